import { afterAll, describe, expect, inject, it } from 'vitest';
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { applyMigrations, MigrationError, MIGRATION_LOCK_KEY, migrationsDir, pendingMigrations } from '../../src/db/migrations.js';
import { diffMigrationsToSchema, migrationStatus } from '../../src/db/schema-engine.js';
import { adminDatabaseUrl, adminQuery, databaseUrl, uniqueDatabaseName } from '../setup/database.js';

const committed = readdirSync(migrationsDir, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();

describe('migrations', () => {
  const name = uniqueDatabaseName('acd_migrate');
  const url = databaseUrl(name);
  afterAll(() => adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));

  it('are committed in Prisma\'s standard layout', () => {
    expect(committed.length).toBeGreaterThan(0);
    for (const dir of committed) expect(dir).toMatch(/^\d{14}_[a-z0-9_]+$/);
  });

  it('apply to an empty database, recorded as Prisma records them, and only once', async () => {
    await adminQuery(`CREATE DATABASE "${name}"`);
    expect(await applyMigrations(url)).toEqual(committed);
    expect(await applyMigrations(url)).toEqual([]);

    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query(
        'SELECT migration_name, finished_at IS NOT NULL AS finished FROM _prisma_migrations ORDER BY migration_name',
      );
      expect(rows).toEqual(committed.map((migration_name) => ({ migration_name, finished: true })));
      const tables = await client.query(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name",
      );
      expect(tables.rows.map((r) => r.table_name)).toEqual(
        expect.arrayContaining(['accounts', 'agents', 'merchants', 'reports', 'session', 'rate_limit_counters', 'agent_keys']),
      );
    } finally {
      await client.end();
    }
    const status = await migrationStatus(url);
    expect(status).toMatchObject({ history: null, failedMigrationNames: [], editedMigrationNames: [] });
  });

  it('are all pending on an empty database and none after they were applied', async () => {
    const fresh = uniqueDatabaseName('acd_pending');
    await adminQuery(`CREATE DATABASE "${fresh}"`);
    try {
      expect(await pendingMigrations(databaseUrl(fresh))).toEqual(committed);
      await applyMigrations(databaseUrl(fresh));
      expect(await pendingMigrations(databaseUrl(fresh))).toEqual([]);
    } finally {
      await adminQuery(`DROP DATABASE IF EXISTS "${fresh}" WITH (FORCE)`);
    }
  });

  it('applied twice at once on an empty database (two instances starting), apply each migration once', async () => {
    const raced = uniqueDatabaseName('acd_race');
    await adminQuery(`CREATE DATABASE "${raced}"`);
    try {
      const url = databaseUrl(raced);
      const results = await Promise.all([applyMigrations(url), applyMigrations(url)]);
      // The advisory lock serialises them: one applies everything, the other finds nothing pending.
      expect(results.map((applied) => applied.length).sort((a, b) => a - b)).toEqual([0, committed.length]);
      expect(results.flat()).toEqual(committed);
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const { rows } = await client.query(
          `SELECT migration_name, count(*)::int AS n, bool_and(finished_at IS NOT NULL AND rolled_back_at IS NULL) AS ok
             FROM _prisma_migrations GROUP BY migration_name ORDER BY migration_name`,
        );
        expect(rows).toEqual(committed.map((migration_name) => ({ migration_name, n: 1, ok: true })));
      } finally {
        await client.end();
      }
    } finally {
      await adminQuery(`DROP DATABASE IF EXISTS "${raced}" WITH (FORCE)`);
    }
  });

  it('wait for the migration lock while another session holds it', async () => {
    const locked = uniqueDatabaseName('acd_locked');
    await adminQuery(`CREATE DATABASE "${locked}"`);
    const url = databaseUrl(locked);
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    try {
      await holder.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
      let finished = false;
      const applying = applyMigrations(url).finally(() => (finished = true));
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(finished).toBe(false);
      expect(await pendingMigrations(url)).toEqual(committed);
      await holder.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
      expect(await applying).toEqual(committed);
    } finally {
      await holder.end();
      await adminQuery(`DROP DATABASE IF EXISTS "${locked}" WITH (FORCE)`);
    }
  });

  it('agree with schema.prisma (a drift fails here: run `npm run migrate:create -- <intent>`)', async () => {
    expect(await diffMigrationsToSchema(adminDatabaseUrl())).toBe('');
  });
});

describe('migrations that fail, were edited, or are missing locally', () => {
  const scratch = mkdtempSync(path.join(tmpdir(), 'acd-migrations-'));
  const created: string[] = [];
  afterAll(async () => {
    rmSync(scratch, { recursive: true, force: true });
    for (const name of created) await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  });

  /** A copy of the committed migrations directory (so a test may add or edit migrations). */
  function copyOfMigrations(): string {
    const dir = mkdtempSync(path.join(scratch, 'dir-'));
    cpSync(migrationsDir, dir, { recursive: true });
    return dir;
  }
  function addMigration(dir: string, name: string, script: string): void {
    mkdirSync(path.join(dir, name));
    writeFileSync(path.join(dir, name, 'migration.sql'), script);
  }
  /** A database with every committed migration applied (a clone of the run's template). */
  async function migratedDatabase(): Promise<string> {
    const name = uniqueDatabaseName('acd_migfail');
    await adminQuery(`CREATE DATABASE "${name}" TEMPLATE "${inject('templateDatabase')}"`);
    created.push(name);
    return databaseUrl(name);
  }
  async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query<T>(sql)).rows;
    } finally {
      await client.end();
    }
  }
  async function applyError(url: string, dir: string): Promise<MigrationError> {
    const error = await applyMigrations(url, dir).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(MigrationError);
    return error as MigrationError;
  }
  const rowsOf = (url: string, name: string) =>
    query<{ finished: boolean; rolled_back: boolean; logs: string | null; applied_steps_count: number }>(
      url,
      `SELECT finished_at IS NOT NULL AS finished, rolled_back_at IS NOT NULL AS rolled_back, logs, applied_steps_count
         FROM _prisma_migrations WHERE migration_name = '${name}' ORDER BY started_at`,
    );

  it('a failing migration leaves none of its schema, is recorded as failed, and blocks later applies until rolled back', async () => {
    const url = await migratedDatabase();
    const dir = copyOfMigrations();
    const broken = '29991231000000_broken';
    addMigration(dir, broken, 'CREATE TABLE "half_done" ("id" INTEGER);\n\nSELECT * FROM "no_such_table";\n');

    const failure = await applyError(url, dir);
    expect(failure.message).toMatch(/^migration 29991231000000_broken failed/);
    expect(failure.message).toContain('relation "no_such_table" does not exist');
    expect(failure.message).toContain('at line 3 of migration.sql');
    // One implicit transaction: the CREATE TABLE before the failing statement is gone too.
    expect(await query(url, `SELECT to_regclass('half_done') AS t`)).toEqual([{ t: null }]);
    expect(await rowsOf(url, broken)).toEqual([
      { finished: false, rolled_back: false, logs: expect.stringContaining('42P01'), applied_steps_count: 0 },
    ]);
    expect(await pendingMigrations(url, dir)).toEqual([broken]);

    // The next apply refuses, naming it, and applies nothing else either (as Prisma's P3009).
    const after = '29991231000001_after';
    addMigration(dir, after, 'CREATE TABLE "after" ("id" INTEGER);\n');
    const refusal = await applyError(url, dir);
    expect(refusal.message).toMatch(/P3009/);
    expect(refusal.message).toContain(`the migration ${broken} started at`);
    expect(refusal.message).toContain('relation "no_such_table" does not exist');
    expect(await query(url, `SELECT to_regclass('after') AS t`)).toEqual([{ t: null }]);
    // The engine agrees that it failed.
    expect((await migrationStatus(url)).failedMigrationNames).toEqual([broken]);

    // Fixed and marked rolled back (`prisma migrate resolve --rolled-back`), it is applied again.
    writeFileSync(path.join(dir, broken, 'migration.sql'), 'CREATE TABLE "half_done" ("id" INTEGER);\n');
    await query(url, `UPDATE _prisma_migrations SET rolled_back_at = now() WHERE migration_name = '${broken}'`);
    expect(await applyMigrations(url, dir)).toEqual([broken, after]);
    expect(await rowsOf(url, broken)).toEqual([
      { finished: false, rolled_back: true, logs: expect.stringContaining('42P01'), applied_steps_count: 0 },
      { finished: true, rolled_back: false, logs: null, applied_steps_count: 1 },
    ]);
    expect(await pendingMigrations(url, dir)).toEqual([]);
  });

  it('an applied migration edited since is refused, naming it; other line endings are not an edit', async () => {
    const url = await migratedDatabase();
    const dir = copyOfMigrations();
    const last = committed.at(-1)!;
    const file = path.join(dir, last, 'migration.sql');
    const original = readFileSync(file, 'utf8');

    // git may check the file out with CRLF line endings: the same migration, as for Prisma.
    writeFileSync(file, original.replaceAll('\n', '\r\n'));
    expect(await applyMigrations(url, dir)).toEqual([]);

    writeFileSync(file, original);
    appendFileSync(file, 'CREATE INDEX "edited_idx" ON "merchants"("name");\n');
    addMigration(dir, '29991231000000_pending', 'CREATE TABLE "pending" ("id" INTEGER);\n');
    const refusal = await applyError(url, dir);
    expect(refusal.message).toMatch(new RegExp(`^migration ${last} changed after being applied`));
    // Nothing was applied.
    expect(await query(url, `SELECT to_regclass('pending') AS t`)).toEqual([{ t: null }]);
    expect(await pendingMigrations(url, dir)).toEqual(['29991231000000_pending']);
  });

  it('applied migrations that the directory lacks are reported and do not stop an apply', async () => {
    const url = await migratedDatabase();
    const dir = copyOfMigrations();
    const last = committed.at(-1)!;
    rmSync(path.join(dir, last), { recursive: true });
    addMigration(dir, '29991231000000_pending', 'CREATE TABLE "pending" ("id" INTEGER);\n');
    const warnings: string[] = [];
    expect(await applyMigrations(url, dir, { warn: (message) => warnings.push(message) })).toEqual(['29991231000000_pending']);
    expect(warnings).toEqual([expect.stringContaining(last)]);
  });

  it('a migration that cannot take its lock in time gives up, applies nothing, and is applied by the next deploy', async () => {
    const url = await migratedDatabase();
    const dir = copyOfMigrations();
    const name = '29991231000000_add_column';
    addMigration(dir, name, 'ALTER TABLE "merchants" ADD COLUMN "waits" INTEGER;\n');
    // A long transaction that has read merchants: ALTER TABLE must wait for it, and while it
    // waits, every reader of merchants would queue behind it (the whole directory stalls).
    const reader = new pg.Client({ connectionString: url });
    await reader.connect();
    try {
      await reader.query('BEGIN');
      await reader.query('SELECT count(*) FROM merchants');
      const failure = await applyMigrations(url, dir, { lockTimeoutMs: 300 }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(failure).toBeInstanceOf(MigrationError);
      expect((failure as Error).message).toMatch(new RegExp(`^migration ${name} could not take a lock within 300 ms`));
      expect((failure as Error).message).toContain('nothing of it was applied');
      expect(await query(url, `SELECT count(*)::int AS n FROM information_schema.columns WHERE table_name = 'merchants' AND column_name = 'waits'`)).toEqual([{ n: 0 }]);
      // Recorded as rolled back, not failed: nothing blocks the next apply.
      expect(await rowsOf(url, name)).toEqual([{ finished: false, rolled_back: true, logs: expect.stringContaining('55P03'), applied_steps_count: 0 }]);
      expect(await pendingMigrations(url, dir)).toEqual([name]);
    } finally {
      await reader.query('COMMIT');
      await reader.end();
    }
    expect(await applyMigrations(url, dir, { lockTimeoutMs: 300 })).toEqual([name]);
    expect(await pendingMigrations(url, dir)).toEqual([]);
  });

  it('a migration that is a single CREATE INDEX CONCURRENTLY applies (no transaction of our own)', async () => {
    const url = await migratedDatabase();
    const dir = copyOfMigrations();
    addMigration(dir, '29991231000000_concurrent_index', 'CREATE INDEX CONCURRENTLY "merchants_concurrent_idx" ON "merchants"("name");\n');
    expect(await applyMigrations(url, dir)).toEqual(['29991231000000_concurrent_index']);
    expect(await query(url, `SELECT to_regclass('merchants_concurrent_idx')::text AS t`)).toEqual([{ t: 'merchants_concurrent_idx' }]);
  });

  it('a schema with tables but no migration history is refused (it needs baselining)', async () => {
    const name = uniqueDatabaseName('acd_migfail');
    await adminQuery(`CREATE DATABASE "${name}"`);
    created.push(name);
    const url = databaseUrl(name);
    await query(url, 'CREATE TABLE "somebody_elses" ("id" INTEGER)');
    const refusal = await applyError(url, migrationsDir);
    expect(refusal.message).toMatch(/not empty but has no _prisma_migrations table \(P3005\).*somebody_elses/);
    expect(await query(url, `SELECT to_regclass('_prisma_migrations') AS t`)).toEqual([{ t: null }]);
  });
});
