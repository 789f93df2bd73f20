// What only grows is pruned by the upkeep: ended rate-limit windows and sign-in links a day
// past their expiry (expired sessions are connect-pg-simple's own pruning). Every instance
// schedules the upkeep; a pass runs in one of them at a time (its advisory lock). It also writes
// the day's open-data dump, once per UTC day, and keeps the newest KEPT_DUMPS.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, createPrismaClient, type PrismaClient } from '../../src/db/client.js';
import { loadDemoData } from '../../src/demo/load.js';
import { createLogger } from '../../src/logger.js';
import { recomputeAllSummaries, refreshStaleSummaries } from '../../src/modules/aggregation/summaries.service.js';
import { dumpsDir, KEPT_DUMPS, listDumps } from '../../src/modules/open-data/export.js';
import { runUpkeep, UPKEEP_LOCK_KEY, UPKEEP_RUNNING_SQL, type UpkeepPass } from '../../src/upkeep.js';
import { aMerchant } from '../factories/index.js';
import { summaryMismatches } from '../setup/consistency.js';
import { adminDatabaseUrl, createTestDatabase, type TestDatabase } from '../setup/database.js';
import { scratchDataDir, TEST_BASE_URL } from '../setup/app.js';
import { pendingFiles, PNG } from '../setup/pending-store.js';

describe('upkeep', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  it('deletes ended counters and sign-in links a day past expiry, keeping the rest', async () => {
    const now = new Date('2026-11-22T12:00:00Z');
    const hoursAgo = (h: number) => new Date(now.getTime() - h * 3600_000);
    await db.pool.query(
      `INSERT INTO rate_limit_counters (key, hits, reset_at) VALUES ('public:old', 3, $1), ('public:current', 2, $2)`,
      [hoursAgo(1), new Date(now.getTime() + 30_000)],
    );
    await db.pool.query(
      `INSERT INTO sign_in_tokens (id, token_hash, email, expires_at) VALUES
         ('00000000-0000-7000-8000-0000000000b1', 'old', 'a@example.org', $1),
         ('00000000-0000-7000-8000-0000000000b2', 'recent', 'b@example.org', $2),
         ('00000000-0000-7000-8000-0000000000b3', 'live', 'c@example.org', $3)`,
      [hoursAgo(25), hoursAgo(2), new Date(now.getTime() + 600_000)],
    );
    await runUpkeep(db, now, createLogger('silent'));
    const keys = (await db.pool.query<{ key: string }>('SELECT key FROM rate_limit_counters ORDER BY key')).rows.map((r) => r.key);
    expect(keys).toEqual(['public:current']);
    const tokens = (await db.pool.query<{ token_hash: string }>('SELECT token_hash FROM sign_in_tokens ORDER BY token_hash')).rows.map((r) => r.token_hash);
    expect(tokens).toEqual(['live', 'recent']);
  });

  it('deletes form screenshots no session refers to, even when nobody opens the form', async () => {
    const dataDir = scratchDataDir('upkeep-');
    const account = await db.prisma.account.create({ data: { email: 'upkeep-drafts@example.org' } });
    const folder = path.join(dataDir, 'evidence-pending', account.id);
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, 'left-behind.png'), PNG);
    expect(pendingFiles(dataDir)).toHaveLength(1);
    await runUpkeep(db, new Date('2026-11-22T12:00:00Z'), createLogger('silent'), { dataDir });
    expect(pendingFiles(dataDir)).toHaveLength(0);
  });
});

describe('the daily open-data dump', () => {
  // 03:00 UTC on day 0; the injected `now` of each pass is the only clock.
  const DAY0 = new Date('2026-11-22T03:00:00Z');
  const day = (n: number, hours = 0) => new Date(DAY0.getTime() + n * 86_400_000 + hours * 3_600_000);
  const dateOf = (n: number) => day(n).toISOString().slice(0, 10);
  let db: TestDatabase;
  let dataDir: string;
  beforeAll(async () => {
    db = await createTestDatabase();
    for (let i = 0; i < 3; i++) await aMerchant(db.prisma);
    dataDir = scratchDataDir('dumps-');
  });
  afterAll(() => db.drop());

  const pass = (now: Date) => runUpkeep(db, now, createLogger('silent'), { dataDir, baseUrl: TEST_BASE_URL });

  it('writes one dump on the first pass of a UTC day, with its checksum, and none on later passes that day', async () => {
    expect(await listDumps(dataDir)).toEqual([]);
    expect(await pass(day(0))).toMatchObject({ ran: true });
    const [first, ...others] = await listDumps(dataDir);
    expect(others).toEqual([]);
    expect(first).toMatchObject({ name: `directory-${dateOf(0)}.ndjson.gz`, date: dateOf(0) });
    const file = path.join(dumpsDir(dataDir), first!.name);
    const bytes = readFileSync(file);
    expect(first!.bytes).toBe(bytes.length);
    expect(first!.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    // The sidecar is in sha256sum's format.
    expect(readFileSync(`${file}.sha256`, 'utf8')).toBe(`${first!.sha256}  ${first!.name}\n`);
    const merchants = gunzipSync(bytes).toString('utf8').trim().split('\n').filter((l) => (JSON.parse(l) as { type: string }).type === 'merchant');
    expect(merchants).toHaveLength(3);

    const written = statSync(file).mtimeMs;
    await pass(day(0, 20)); // 23:00 the same day: nothing new, the file untouched
    expect((await listDumps(dataDir)).map((d) => d.name)).toEqual([first!.name]);
    expect(statSync(file).mtimeMs).toBe(written);
  });

  it('writes a second on the next day, and keeps only the newest KEPT_DUMPS', async () => {
    await pass(day(1));
    expect((await listDumps(dataDir)).map((d) => d.date)).toEqual([dateOf(1), dateOf(0)]);
    for (let n = 2; n < KEPT_DUMPS + 2; n++) await pass(day(n));
    const kept = await listDumps(dataDir);
    expect(kept.map((d) => d.date)).toEqual(Array.from({ length: KEPT_DUMPS }, (_, i) => dateOf(KEPT_DUMPS + 1 - i)));
    // Their checksums went with them: nothing else in the folder.
    expect(readdirSync(dumpsDir(dataDir)).sort()).toEqual(kept.flatMap((d) => [d.name, `${d.name}.sha256`]).sort());
  });

  it('starts no dump once the service is stopping, and a later pass writes it', async () => {
    const elsewhere = scratchDataDir('dumps-');
    const stopping = new AbortController();
    stopping.abort();
    const options = { dataDir: elsewhere, baseUrl: TEST_BASE_URL };
    expect(await runUpkeep(db, day(40), createLogger('silent'), { ...options, signal: stopping.signal })).toMatchObject({ ran: true });
    expect(await listDumps(elsewhere)).toEqual([]);
    await runUpkeep(db, day(40), createLogger('silent'), options);
    expect((await listDumps(elsewhere)).map((d) => d.date)).toEqual([dateOf(40)]);
  });

  it('writes no dump without the base URL its links need', async () => {
    const elsewhere = scratchDataDir('dumps-');
    expect(await runUpkeep(db, day(30), createLogger('silent'), { dataDir: elsewhere })).toMatchObject({ ran: true });
    expect(await listDumps(elsewhere)).toEqual([]);
  });
});

describe('upkeep across instances', () => {
  const LOADED_AT = new Date('2026-11-22T12:00:00Z');
  const days = (n: number) => new Date(LOADED_AT.getTime() + n * 86_400_000);
  let db: TestDatabase;
  /** A second instance: its own pool and Prisma client on the same database. */
  let other: { pool: pg.Pool; prisma: PrismaClient };
  let summaries: number;
  beforeAll(async () => {
    db = await createTestDatabase();
    await loadDemoData(db.pool, { now: LOADED_AT, merchants: 12, reports: 150 });
    await recomputeAllSummaries(db.prisma, LOADED_AT);
    summaries = (await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM merchant_agent_summaries')).rows[0]!.n;
    const pool = createPool(db.url, 3);
    other = { pool, prisma: createPrismaClient(pool) };
  });
  afterAll(async () => {
    await other.prisma.$disconnect();
    await other.pool.end();
    await db.drop();
  });

  /** A logger that keeps what it is told; `errors()` are the lines at level error or above. */
  function capturingLogger() {
    const lines: Array<{ level: number; msg: string }> = [];
    const logger = createLogger('debug', { write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }) });
    return { logger, lines, errors: () => lines.filter((l) => l.level >= 50) };
  }

  /** Resolves once `n` connections of the test database wait for a lock (polled, bounded). */
  async function lockWaiters(n: number): Promise<void> {
    for (let i = 0; i < 1_000; i++) {
      const { rows } = await db.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      if (rows[0]!.n >= n) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`fewer than ${n} connections waited for a lock`);
  }

  it('runs a pass in one instance at a time: the second skips it while the first holds the upkeep lock', async () => {
    const a = capturingLogger();
    const b = capturingLogger();
    // Keeps the first pass inside its summary refresh (as a live decision holding the directory version would).
    const blocker = new pg.Client({ connectionString: db.url });
    await blocker.connect();
    let first: Promise<UpkeepPass> | undefined;
    let second: Promise<UpkeepPass> | undefined;
    try {
      await blocker.query('BEGIN');
      await blocker.query('SELECT id FROM directory_version WHERE id = 1 FOR NO KEY UPDATE');
      first = runUpkeep(db, days(2), a.logger);
      await lockWaiters(1);

      second = runUpkeep(other, days(2), b.logger);
      // Skipping returns at once; a second pass of its own would queue behind the first.
      expect(await Promise.race([second, lockWaiters(2).then(() => 'waited behind the first pass')])).toEqual({ ran: false });
      // pg_locks lists the whole server's locks, and other test files' databases on it run
      // upkeep passes of their own (under load, at the same moment): count this database's.
      const { rows: held } = await db.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_locks
          WHERE locktype = 'advisory' AND granted AND ((classid::bigint << 32) | objid::bigint) = $1
            AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
        [UPKEEP_LOCK_KEY],
      );
      expect(held[0]!.n).toBe(1);
      // What the benchmark and the multi-process test wait on sees the pass, in its own database only.
      expect((await db.pool.query<{ held: boolean }>(UPKEEP_RUNNING_SQL)).rows[0]!.held).toBe(true);
      const elsewhere = new pg.Client({ connectionString: adminDatabaseUrl() });
      await elsewhere.connect();
      try {
        expect((await elsewhere.query<{ held: boolean }>(UPKEEP_RUNNING_SQL)).rows[0]!.held).toBe(false);
      } finally {
        await elsewhere.end();
      }
    } finally {
      await blocker.query('COMMIT');
      await blocker.end();
      await Promise.allSettled([first, second]);
    }

    expect(await first).toEqual({ ran: true, summaries });
    expect((await db.pool.query<{ held: boolean }>(UPKEEP_RUNNING_SQL)).rows[0]!.held).toBe(false);
    expect(a.errors()).toEqual([]);
    expect(b.errors()).toEqual([]);
    expect(b.lines.map((l) => l.msg)).toContain('another instance is doing the upkeep; skipping this pass');
    expect(await summaryMismatches(db.prisma, db.pool, days(2))).toEqual([]);
    // The lock went with the pass: the other instance does the next one.
    expect(await runUpkeep(other, days(2), b.logger)).toEqual({ ran: true, summaries: 0 });
  });

  it('never fails when two instances start a pass at the same moment', async () => {
    for (const day of [4, 6, 8]) {
      const a = capturingLogger();
      const b = capturingLogger();
      const passes = await Promise.all([runUpkeep(db, days(day), a.logger), runUpkeep(other, days(day), b.logger)]);

      expect([...a.errors(), ...b.errors()]).toEqual([]);
      expect(passes.some((p) => p.ran)).toBe(true);
      // Each stale summary recomputed once: by one instance, or by the first of two passes in a row.
      expect(passes.reduce((n, p) => n + (p.ran ? p.summaries : 0), 0)).toBe(summaries);
      expect(await summaryMismatches(db.prisma, db.pool, days(day))).toEqual([]);
    }
  });

  it('keeps the summaries right even when two refreshes overlap (the lock lost with its connection)', async () => {
    const refreshed = await Promise.all([
      refreshStaleSummaries(db.prisma, days(10), { batch: 7 }),
      refreshStaleSummaries(other.prisma, days(10), { batch: 7 }),
    ]);

    expect(refreshed[0] + refreshed[1]).toBe(summaries);
    expect(await summaryMismatches(db.prisma, db.pool, days(10))).toEqual([]);
  });
});
