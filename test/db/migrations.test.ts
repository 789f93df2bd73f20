import { afterAll, describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import pg from 'pg';
import {
  applyMigrations,
  diffMigrationsToSchema,
  migrationStatus,
  MIGRATION_LOCK_KEY,
  migrationsDir,
  pendingMigrations,
} from '../../src/db/migrations.js';
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
