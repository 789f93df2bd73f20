import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import pg from 'pg';
import { collectDemoData, createDemoData, type DemoCounts } from '../../src/demo/demo-data.js';
import { isDatabaseEmpty, loadDemoData, SEED_LOCK_KEY, seedDemoDataIfEmpty } from '../../src/demo/load.js';
import { createTestDatabase, type TestDatabase } from '../setup/database.js';

const now = new Date('2026-11-22T12:00:00.000Z');

const TABLES: Record<keyof DemoCounts, string> = {
  categories: 'categories',
  categoryLegacyNames: 'category_legacy_names',
  agents: 'agents',
  accounts: 'accounts',
  merchants: 'merchants',
  sponsorships: 'sponsorships',
  ownerStatements: 'owner_statements',
  reports: 'reports',
};

async function tableCounts(pool: pg.Pool): Promise<DemoCounts> {
  const entries = await Promise.all(
    Object.entries(TABLES).map(async ([key, table]) => {
      const { rows } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${table}"`);
      return [key, rows[0]!.n] as const;
    }),
  );
  return Object.fromEntries(entries) as unknown as DemoCounts;
}

// Indexes and constraints as the catalog defines them, to prove a bulk load puts back
// exactly what the migrations created.
async function catalog(pool: pg.Pool): Promise<unknown> {
  const indexes = await pool.query(`SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY 1`);
  const constraints = await pool.query(
    `SELECT conrelid::regclass::text AS tbl, conname, pg_get_constraintdef(oid) AS def, convalidated
       FROM pg_constraint WHERE connamespace = 'public'::regnamespace ORDER BY 1, 2`,
  );
  return [indexes.rows, constraints.rows];
}

describe('loading the demo data', () => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = await createTestDatabase();
  });
  afterEach(async () => {
    await db.drop();
  });

  it('inserts the default demo with the generated counts and values', async () => {
    expect(await isDatabaseEmpty(db.pool)).toBe(true);
    const expected = createDemoData({ now }).counts;

    const counts = await loadDemoData(db.pool, { now });

    expect(counts).toEqual(expected);
    expect(await tableCounts(db.pool)).toEqual(expected);
    expect(await isDatabaseEmpty(db.pool)).toBe(false);

    // Values survive the round trip through the array parameters and casts.
    const rows = collectDemoData({ now });
    const report = rows.reports.find((r) => r.stage === 'PURCHASE' && r.testedAt !== null)!;
    const stored = await db.prisma.report.findUniqueOrThrow({ where: { id: report.id } });
    expect(stored).toMatchObject({
      accountId: report.accountId,
      merchantId: report.merchantId,
      agentId: report.agentId,
      status: report.status,
      capabilityResults: report.capabilityResults,
      outcome: report.outcome,
      stage: report.stage,
      failureReason: report.failureReason,
      experience: report.experience,
      privacyConfirmed: true,
    });
    expect(stored.createdAt.toISOString()).toBe(report.createdAt);
    expect(stored.updatedAt.toISOString()).toBe(report.updatedAt);
    expect(stored.testedAt!.toISOString().slice(0, 10)).toBe(report.testedAt);
    const merchant = rows.merchants.find((m) => m.serviceRegions.length > 1)!;
    const storedMerchant = await db.prisma.merchant.findUniqueOrThrow({ where: { slug: merchant.slug } });
    expect(storedMerchant.serviceRegions).toEqual(merchant.serviceRegions);
    expect(storedMerchant.category).toBe(merchant.category);
    const statement = rows.ownerStatements[0]!;
    const storedStatement = await db.prisma.ownerStatement.findUniqueOrThrow({ where: { id: statement.id } });
    expect(storedStatement.taskClaims).toEqual(statement.taskClaims);
    expect(storedStatement.declaredAt.toISOString().slice(0, 10)).toBe(statement.declaredAt);
  });

  it('rolls a failed load back completely', async () => {
    const first = await loadDemoData(db.pool, { now });
    await expect(loadDemoData(db.pool, { now })).rejects.toThrow(/duplicate key/);
    expect(await tableCounts(db.pool)).toEqual(first);
  });

  it('replaces the directory when asked to truncate first', async () => {
    await loadDemoData(db.pool, { now });
    const other = collectDemoData({ now, seed: 7 });

    const counts = await loadDemoData(db.pool, { now, seed: 7 }, undefined, { truncateFirst: true });

    expect(await tableCounts(db.pool)).toEqual(counts);
    const { rows } = await db.pool.query<{ id: string }>('SELECT id FROM reports ORDER BY id');
    expect(rows.map((r) => r.id)).toEqual(other.reports.map((r) => r.id).sort());
  });

  it('bulk-loads large tables and restores their indexes and foreign keys exactly', async () => {
    const before = await catalog(db.pool);
    const messages: string[] = [];

    const counts = await loadDemoData(db.pool, { now, merchants: 300, reports: 60_000 }, (m) => messages.push(m));

    expect(counts.reports).toBe(60_000);
    expect(await tableCounts(db.pool)).toEqual(counts);
    expect(messages.some((m) => m.startsWith('reports: rebuilt'))).toBe(true);
    expect(await catalog(db.pool)).toEqual(before);
  }, 120_000);
});

describe('seeding an empty database', () => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = await createTestDatabase();
  });
  afterEach(async () => {
    await db.drop();
  });

  it('loads the default demo once and then does nothing', async () => {
    const counts = await seedDemoDataIfEmpty(db.pool, { now });
    expect(counts).toEqual(createDemoData({ now }).counts);

    expect(await seedDemoDataIfEmpty(db.pool, { now })).toBeNull();
    expect(await seedDemoDataIfEmpty(db.pool)).toBeNull();
    expect(await tableCounts(db.pool)).toEqual(counts);
  });

  it('does nothing to a database that already has a directory', async () => {
    await db.pool.query(
      `INSERT INTO categories (id, name, slug, updated_at) VALUES ('0190a000-0000-7000-8000-000000000001', 'Misc', 'misc', now())`,
    );
    expect(await seedDemoDataIfEmpty(db.pool, { now })).toBeNull();
    expect((await tableCounts(db.pool)).merchants).toBe(0);
  });

  it('loads exactly one copy when two processes start at once', async () => {
    // Separate pools stand for separate processes.
    const pools = [new pg.Pool({ connectionString: db.url, max: 2 }), new pg.Pool({ connectionString: db.url, max: 2 })];
    try {
      const results = await Promise.all(pools.map((pool) => seedDemoDataIfEmpty(pool, { now })));
      expect(results.filter((r) => r !== null)).toHaveLength(1);
      expect(await tableCounts(db.pool)).toEqual(createDemoData({ now }).counts);
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });

  it('re-checks under the lock, so a process that saw an empty database but waited loads nothing', async () => {
    const pools = [new pg.Pool({ connectionString: db.url, max: 2 }), new pg.Pool({ connectionString: db.url, max: 2 })];
    const holder = await db.pool.connect();
    try {
      // Both processes get past the quick emptiness check, then queue for the lock.
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock($1)', [SEED_LOCK_KEY]);
      const seeding = Promise.all(pools.map((pool) => seedDemoDataIfEmpty(pool, { now })));
      // This database's waiters only (pg_locks lists the whole server's), and a bound a busy
      // machine cannot break (expect.poll's default is one second).
      await expect
        .poll(
          async () => {
            const { rows } = await db.pool.query<{ n: number }>(
              `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
                 AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
            );
            return rows[0]!.n;
          },
          { timeout: 60_000, interval: 20 },
        )
        .toBe(2);
      await holder.query('COMMIT');

      const results = await seeding;
      expect(results.filter((r) => r !== null)).toHaveLength(1);
      expect(await tableCounts(db.pool)).toEqual(createDemoData({ now }).counts);
    } finally {
      holder.release();
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });
});
