// Upgrades: a database created at every earlier migration reaches the same schema as one
// migrated from empty in one go; and the engine-free apply keeps the bookkeeping that
// Prisma's schema engine keeps (either can take over from the other).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { applyMigrations, migrationChecksum, migrationsDir, pendingMigrations } from '../../src/db/migrations.js';
import { applyMigrationsWithEngine, migrationStatus } from '../../src/db/schema-engine.js';
import { adminQuery, databaseUrl, uniqueDatabaseName } from '../setup/database.js';

const committed = readdirSync(migrationsDir, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();

const scratch = mkdtempSync(path.join(tmpdir(), 'acd-migrations-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A migrations directory holding the first k committed migrations (and the lock file). */
function prefixDir(k: number): string {
  const dir = path.join(scratch, `prefix-${k}`);
  for (const name of committed.slice(0, k)) cpSync(path.join(migrationsDir, name), path.join(dir, name), { recursive: true });
  cpSync(path.join(migrationsDir, 'migration_lock.toml'), path.join(dir, 'migration_lock.toml'));
  return dir;
}

const created: string[] = [];
async function createDatabase(prefix: string): Promise<string> {
  const name = uniqueDatabaseName(prefix);
  await adminQuery(`CREATE DATABASE "${name}"`);
  created.push(name);
  return databaseUrl(name);
}
afterAll(async () => {
  for (const name of created) await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
});

async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

// What a schema is made of, as text that two equal schemas share exactly. Objects that
// extensions own are left out (they come with the extension, whose version is listed).
const SNAPSHOT_QUERIES: Record<string, string> = {
  extensions: `SELECT extname || ' ' || extversion AS d FROM pg_extension ORDER BY 1`,
  relations: `
    SELECT c.relkind::text || ' ' || c.relname || coalesce(' ' || pg_get_viewdef(c.oid), '') AS d
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public'
       AND NOT EXISTS (SELECT 1 FROM pg_depend dep WHERE dep.objid = c.oid AND dep.deptype = 'e')
     ORDER BY 1`,
  columns: `
    SELECT c.relname || '.' || a.attname || ' #' || a.attnum || ' ' || format_type(a.atttypid, a.atttypmod)
           || CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END
           || coalesce(' DEFAULT ' || pg_get_expr(d.adbin, d.adrelid), '')
           || CASE WHEN a.attidentity::text <> '' THEN ' IDENTITY ' || a.attidentity::text ELSE '' END
           || CASE WHEN a.attgenerated::text <> '' THEN ' GENERATED ' || a.attgenerated::text ELSE '' END
           || coalesce(' COLLATE ' || co.collname, '') AS d
      FROM pg_attribute a
      JOIN pg_class c ON c.oid = a.attrelid
      JOIN pg_namespace n ON n.oid = c.relnamespace
      LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
      LEFT JOIN pg_collation co ON co.oid = a.attcollation AND a.attcollation <> 0 AND co.collname <> 'default'
     WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND a.attnum > 0 AND NOT a.attisdropped
     ORDER BY c.relname, a.attnum`,
  indexes: `SELECT indexdef AS d FROM pg_indexes WHERE schemaname = 'public' ORDER BY tablename, indexname`,
  constraints: `
    SELECT conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid)
           || CASE WHEN condeferrable THEN ' DEFERRABLE' ELSE '' END AS d
      FROM pg_constraint WHERE connamespace = 'public'::regnamespace ORDER BY 1`,
  functions: `
    SELECT pg_get_functiondef(p.oid) AS d
      FROM pg_proc p
     WHERE p.pronamespace = 'public'::regnamespace AND p.prokind IN ('f', 'p')
       AND NOT EXISTS (SELECT 1 FROM pg_depend dep WHERE dep.objid = p.oid AND dep.deptype = 'e')
     ORDER BY 1`,
  triggers: `SELECT pg_get_triggerdef(oid) AS d FROM pg_trigger WHERE NOT tgisinternal ORDER BY 1`,
  enums: `
    SELECT t.typname || ' ' || string_agg(e.enumlabel, ',' ORDER BY e.enumsortorder) AS d
      FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid
     WHERE t.typnamespace = 'public'::regnamespace GROUP BY t.typname ORDER BY 1`,
  sequences: `
    SELECT sequencename || ' ' || data_type || ' ' || start_value || ' ' || increment_by AS d
      FROM pg_sequences WHERE schemaname = 'public' ORDER BY 1`,
};

async function catalogSnapshot(url: string): Promise<Record<string, string[]>> {
  return withClient(url, async (client) => {
    const snapshot: Record<string, string[]> = {};
    for (const [key, sql] of Object.entries(SNAPSHOT_QUERIES)) {
      snapshot[key] = (await client.query<{ d: string }>(sql)).rows.map((r) => r.d);
    }
    // Rows the migrations themselves write (the directory version's, say) count too.
    const tables = (await client.query<{ t: string }>(
      `SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public' AND tablename <> '_prisma_migrations' ORDER BY 1`,
    )).rows.map((r) => r.t);
    snapshot.rows = [];
    for (const t of tables) {
      const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${t}"`);
      snapshot.rows.push(`${t} ${rows[0]!.n}`);
    }
    return snapshot;
  });
}

interface Bookkeeping {
  migration_name: string;
  checksum: string;
  finished: boolean;
  logs: string | null;
  rolled_back_at: Date | null;
  applied_steps_count: number;
}

function bookkeeping(url: string): Promise<Bookkeeping[]> {
  return withClient(url, async (client) =>
    (await client.query<Bookkeeping>(
      `SELECT migration_name, checksum, finished_at IS NOT NULL AND finished_at >= started_at AS finished, logs,
              rolled_back_at, applied_steps_count
         FROM _prisma_migrations ORDER BY migration_name`,
    )).rows,
  );
}

const committedChecksum = (name: string) => migrationChecksum(readFileSync(path.join(migrationsDir, name, 'migration.sql'), 'utf8'));

/** The rows `prisma migrate deploy` leaves for the full set: one finished row per migration. */
const expectedBookkeeping = () =>
  committed.map((migration_name) => ({
    migration_name,
    checksum: committedChecksum(migration_name),
    finished: true,
    logs: null,
    rolled_back_at: null,
    applied_steps_count: 1,
  }));

/** Whether a committed migration changes the schema (any DDL), or only data. */
function changesSchema(name: string): boolean {
  const sql = readFileSync(path.join(migrationsDir, name, 'migration.sql'), 'utf8').replace(/--.*$/gm, '');
  return /\b(CREATE|ALTER|DROP|COMMENT ON)\b/i.test(sql);
}

describe('migrations, upgrading', () => {
  let fullSnapshot: Record<string, string[]>;

  beforeAll(async () => {
    const url = await createDatabase('acd_full');
    expect(await applyMigrations(url)).toEqual(committed);
    fullSnapshot = await catalogSnapshot(url);
  });

  it('the snapshot sees the schema (tables, indexes, constraints, functions, triggers, enums)', () => {
    for (const key of ['relations', 'columns', 'indexes', 'constraints', 'functions', 'triggers', 'enums']) {
      expect(fullSnapshot[key]!.length, key).toBeGreaterThan(0);
    }
    if (process.env.SHOW_SNAPSHOT) console.log(JSON.stringify(fullSnapshot, null, 1));
  });

  it.each(committed.map((_, k) => k))(
    'from a database at the first %i migrations to the full set, equal to one migrated from empty',
    async (k) => {
      const url = await createDatabase(`acd_upgrade_${k}`);
      expect(await applyMigrations(url, prefixDir(k))).toEqual(committed.slice(0, k));
      expect(await pendingMigrations(url)).toEqual(committed.slice(k));
      // A pending migration that changes the schema makes the snapshot tell a k-migration database
      // apart (data-only migrations, such as marking summaries for recomputation, do not).
      if (committed.slice(k).some(changesSchema)) expect(await catalogSnapshot(url)).not.toEqual(fullSnapshot);

      expect(await applyMigrations(url)).toEqual(committed.slice(k));
      expect(await catalogSnapshot(url)).toEqual(fullSnapshot);
      expect(await bookkeeping(url)).toEqual(expectedBookkeeping());
      expect(await pendingMigrations(url)).toEqual([]);
      expect(await applyMigrations(url)).toEqual([]);
    },
  );
});

describe('migrations, bookkeeping compatible with Prisma\'s schema engine', () => {
  it('the table is the engine\'s, and the rows are the rows it writes', async () => {
    const byEngine = await createDatabase('acd_engine');
    const byUs = await createDatabase('acd_engine_free');
    expect(await applyMigrationsWithEngine(byEngine)).toEqual(committed);
    expect(await applyMigrations(byUs)).toEqual(committed);

    const table = (url: string) =>
      withClient(url, async (client) => ({
        columns: (await client.query(
          `SELECT column_name, data_type, character_maximum_length, column_default, is_nullable, ordinal_position
             FROM information_schema.columns WHERE table_name = '_prisma_migrations' ORDER BY ordinal_position`,
        )).rows,
        constraints: (await client.query(
          `SELECT contype, pg_get_constraintdef(oid) AS def FROM pg_constraint
            WHERE conrelid = '_prisma_migrations'::regclass ORDER BY 1, 2`,
        )).rows,
      }));
    expect(await table(byUs)).toEqual(await table(byEngine));
    expect(await bookkeeping(byEngine)).toEqual(expectedBookkeeping());
    expect(await bookkeeping(byUs)).toEqual(expectedBookkeeping());
    expect(await catalogSnapshot(byUs)).toEqual(await catalogSnapshot(byEngine));

    // A database the engine migrated (an old deploy's, or Prisma's CLI's) is up to date here.
    expect(await pendingMigrations(byEngine)).toEqual([]);
    expect(await applyMigrations(byEngine)).toEqual([]);
    // And the engine finds nothing to say about ours.
    expect(await migrationStatus(byUs)).toMatchObject({ history: null, failedMigrationNames: [], editedMigrationNames: [] });
    expect(await applyMigrationsWithEngine(byUs)).toEqual([]);
  });

  it('either takes over from the other halfway', async () => {
    const half = Math.ceil(committed.length / 2);
    const engineFirst = await createDatabase('acd_engine_first');
    const usFirst = await createDatabase('acd_us_first');
    expect(await applyMigrationsWithEngine(engineFirst, prefixDir(half))).toEqual(committed.slice(0, half));
    expect(await applyMigrations(engineFirst)).toEqual(committed.slice(half));
    expect(await applyMigrations(usFirst, prefixDir(half))).toEqual(committed.slice(0, half));
    expect(await applyMigrationsWithEngine(usFirst)).toEqual(committed.slice(half));
    for (const url of [engineFirst, usFirst]) {
      expect(await bookkeeping(url)).toEqual(expectedBookkeeping());
      expect(await migrationStatus(url)).toMatchObject({ history: null, failedMigrationNames: [], editedMigrationNames: [] });
    }
  });

  it('the engine sees a migration that failed here as failed', async () => {
    const dir = prefixDir(committed.length);
    const broken = '29991231000000_broken';
    cpSync(path.join(migrationsDir, committed[0]!), path.join(dir, broken), { recursive: true });
    const url = await createDatabase('acd_engine_failed');
    try {
      // The init migration, again: its first CREATE TABLE already exists.
      await expect(applyMigrations(url, dir)).rejects.toThrow(/migration 29991231000000_broken failed/);
      // migrationStatus reads the committed directory, which lacks the broken migration;
      // the engine still reports it as failed from the table.
      const status = await migrationStatus(url);
      expect(status.failedMigrationNames).toEqual([broken]);
    } finally {
      rmSync(path.join(dir, broken), { recursive: true, force: true });
    }
  });
});
