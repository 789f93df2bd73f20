import { afterAll, describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import pg from 'pg';
import { applyMigrations, diffMigrationsToSchema, migrationStatus, migrationsDir } from '../../src/db/migrations.js';
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

  it('agree with schema.prisma (a drift fails here: run `npm run migrate:create -- <intent>`)', async () => {
    expect(await diffMigrationsToSchema(adminDatabaseUrl())).toBe('');
  });
});
