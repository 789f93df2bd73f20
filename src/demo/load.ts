// Loads the generated demo directory into PostgreSQL: one transaction, multi-row inserts of
// a few thousand rows each through unnest() over one array parameter per column.
import type pg from 'pg';
import {
  createDemoData,
  DEFAULT_BATCH_SIZE,
  type AccountRow,
  type AgentRow,
  type CategoryLegacyNameRow,
  type CategoryRow,
  type DemoCounts,
  type DemoOptions,
  type MerchantRow,
  type OwnerStatementRow,
  type ReportRow,
  type SponsorshipRow,
} from './demo-data.js';

export type { DemoCounts, DemoOptions } from './demo-data.js';

type Queryable = Pick<pg.PoolClient, 'query'>;
type ProgressFn = (message: string) => void;

interface Column<R> {
  readonly name: string;
  /** Element type of the array parameter. */
  readonly type: string;
  readonly value: (row: R) => string | number | boolean | null;
  /** Converts the unnested element to the column type, when the parameter cannot be typed directly. */
  readonly cast?: string;
}

interface TableSpec<R> {
  readonly table: string;
  readonly columns: readonly Column<R>[];
}

const snakeCase = (field: string) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * One column per field of the row, named in snake case, with its PostgreSQL type. A jsonb
 * value travels as its JSON text. unnest() flattens a two-dimensional array, so an array
 * value (text[]) travels as one array literal per row (region codes are plain letters: no
 * quoting needed) and is cast back.
 */
function table<R>(name: string, types: { readonly [K in keyof R & string]?: string }): TableSpec<R> {
  const columns = Object.entries(types as Record<string, string>).map(([field, type]): Column<R> => {
    const raw = (row: R) => (row as Record<string, unknown>)[field];
    if (type === 'jsonb') return { name: snakeCase(field), type, value: (row) => JSON.stringify(raw(row)) };
    if (type.endsWith('[]')) return { name: snakeCase(field), type: 'text', value: (row) => `{${(raw(row) as string[]).join(',')}}`, cast: type };
    return { name: snakeCase(field), type, value: (row) => raw(row) as string | number | boolean | null };
  });
  return { table: name, columns };
}

const stamps = { createdAt: 'timestamptz', updatedAt: 'timestamptz' } as const;

const CATEGORIES = table<CategoryRow>('categories', { id: 'uuid', name: 'text', slug: 'text', ...stamps });

const CATEGORY_LEGACY_NAMES = table<CategoryLegacyNameRow>('category_legacy_names', {
  id: 'uuid', name: 'text', slug: 'text', categoryId: 'uuid', createdAt: 'timestamptz',
});

const AGENTS = table<AgentRow>('agents', { id: 'uuid', slug: 'text', name: 'text', vendor: 'text', description: 'text', active: 'boolean', ...stamps });

const ACCOUNTS = table<AccountRow>('accounts', {
  id: 'uuid', email: 'text', role: '"AccountRole"', suspended: 'boolean', suspendedReason: 'text', suspendedAt: 'timestamptz',
  lastSignInAt: 'timestamptz', ...stamps,
});

const MERCHANTS = table<MerchantRow>('merchants', {
  id: 'uuid', slug: 'text', name: 'text', website: 'text', category: 'text', categoryId: 'uuid', serviceRegions: 'text[]',
  isPublic: 'boolean', approvedCanonical: 'boolean', ...stamps,
});

const SPONSORSHIPS = table<SponsorshipRow>('sponsorships', {
  id: 'uuid', merchantId: 'uuid', source: '"SponsorshipSource"', placement: 'text', disclosure: 'text', startsAt: 'timestamptz',
  endsAt: 'timestamptz', billingId: 'text', ...stamps,
});

const OWNER_STATEMENTS = table<OwnerStatementRow>('owner_statements', {
  id: 'uuid', merchantId: 'uuid', statement: 'text', taskClaims: 'jsonb', declaredAt: 'date', ownershipEvidence: 'text', ...stamps,
});

const REPORTS = table<ReportRow>('reports', {
  id: 'uuid', accountId: 'uuid', merchantId: 'uuid', agentId: 'uuid', status: '"ReportStatus"', channel: '"SubmissionChannel"',
  capabilityResults: 'jsonb', outcome: '"Outcome"', outcomeSupplied: 'boolean', experience: 'text', testedAt: 'date',
  agentVersion: 'text', region: 'text', task: 'text', stage: '"Stage"', failureReason: '"FailureReason"',
  humanIntervention: 'boolean', privacyConfirmed: 'boolean', moderationFeedback: 'text', moderationNotes: 'text',
  moderatedAt: 'timestamptz', moderatedById: 'uuid', ...stamps,
});

function insertSql<R>(spec: TableSpec<R>): string {
  const names = spec.columns.map((c) => `"${c.name}"`).join(', ');
  const params = spec.columns.map((c, i) => `$${i + 1}::${c.type}[]`).join(', ');
  const aliases = spec.columns.map((_, i) => `c${i}`);
  const select = spec.columns.map((c, i) => (c.cast ? `${aliases[i]}::${c.cast}` : aliases[i])).join(', ');
  return `INSERT INTO "${spec.table}" (${names}) SELECT ${select} FROM unnest(${params}) AS u(${aliases.join(', ')})`;
}

// Progress lines for big tables at roughly every tenth, never more often than every batch.
const PROGRESS_MIN_ROWS = 50_000;

// From this many rows on, a table's secondary indexes and foreign keys are dropped for the
// load and rebuilt after it: one sort per index and one join per foreign key instead of a
// B-tree insertion and a row-locking lookup for every row (a million reports: about a
// minute less). Below it the DDL is not worth its exclusive lock.
const BULK_MIN_ROWS = 50_000;

/**
 * Drops `table`'s foreign keys and the indexes no constraint relies on, and returns the
 * statements that recreate them exactly as they were (definitions read back from the
 * catalog, so migrations stay the single source of the schema). Runs inside the load's
 * transaction: a failed load rolls the DDL back with it.
 */
async function dropForBulkLoad(client: Queryable, table: string): Promise<string[]> {
  const { rows: foreignKeys } = await client.query<{ name: string; definition: string }>(
    `SELECT conname AS name, pg_get_constraintdef(oid) AS definition
       FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'f' ORDER BY conname`,
    [table],
  );
  const { rows: indexes } = await client.query<{ name: string; definition: string }>(
    `SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS definition
       FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
      WHERE i.indrelid = $1::regclass AND NOT i.indisprimary
        AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)
      ORDER BY c.relname`,
    [table],
  );
  const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
  for (const fk of foreignKeys) await client.query(`ALTER TABLE ${quote(table)} DROP CONSTRAINT ${quote(fk.name)}`);
  for (const index of indexes) await client.query(`DROP INDEX ${quote(index.name)}`);
  return [
    ...indexes.map((index) => index.definition),
    ...foreignKeys.map((fk) => `ALTER TABLE ${quote(table)} ADD CONSTRAINT ${quote(fk.name)} ${fk.definition}`),
  ];
}

async function insertTable<R>(
  client: Queryable,
  spec: TableSpec<R>,
  batches: Iterable<R[]>,
  expected: number,
  onProgress: ProgressFn | undefined,
): Promise<number> {
  const sql = insertSql(spec);
  const started = performance.now();
  const restore = expected >= BULK_MIN_ROWS ? await dropForBulkLoad(client, spec.table) : [];
  let inserted = 0;
  let nextReport = expected >= PROGRESS_MIN_ROWS ? Math.ceil(expected / 10) : Infinity;
  // One insert in flight while the next batch is generated: PostgreSQL and the generator
  // then work on the two cores at once.
  let inFlight: Promise<pg.QueryResult> | undefined;
  let waited = 0;
  const settle = async (): Promise<void> => {
    if (!inFlight) return;
    const waitStarted = performance.now();
    const result = await inFlight;
    waited += performance.now() - waitStarted;
    inFlight = undefined;
    inserted += result.rowCount ?? 0;
    if (inserted >= nextReport && inserted < expected) {
      onProgress?.(`${spec.table}: ${inserted.toLocaleString('en-US')} / ${expected.toLocaleString('en-US')} rows`);
      nextReport += Math.ceil(expected / 10);
    }
  };
  for (const batch of batches) {
    if (batch.length === 0) continue;
    const values = spec.columns.map((c) => batch.map(c.value));
    const query = client.query({ text: sql, values });
    // After a failure the transaction is aborted and queued inserts fail too; the first
    // error is the one awaited and thrown, the rest must not surface as unhandled.
    query.catch(() => undefined);
    await settle();
    inFlight = query;
  }
  await settle();
  if (restore.length > 0) {
    const rebuildStarted = performance.now();
    for (const statement of restore) await client.query(statement);
    onProgress?.(`${spec.table}: rebuilt ${restore.length} indexes and foreign keys in ${((performance.now() - rebuildStarted) / 1000).toFixed(1)} s`);
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  // The wait shows whether PostgreSQL or the generator was the bottleneck.
  onProgress?.(`${spec.table}: ${inserted.toLocaleString('en-US')} rows in ${seconds} s (${(waited / 1000).toFixed(1)} s waiting for PostgreSQL)`);
  return inserted;
}

async function insertDemoData(client: Queryable, options: DemoOptions, onProgress?: ProgressFn): Promise<DemoCounts> {
  const data = createDemoData(options, { batchSize: DEFAULT_BATCH_SIZE });
  const { counts } = data;
  return {
    categories: await insertTable(client, CATEGORIES, data.categories(), counts.categories, onProgress),
    categoryLegacyNames: await insertTable(client, CATEGORY_LEGACY_NAMES, data.categoryLegacyNames(), counts.categoryLegacyNames, onProgress),
    agents: await insertTable(client, AGENTS, data.agents(), counts.agents, onProgress),
    accounts: await insertTable(client, ACCOUNTS, data.accounts(), counts.accounts, onProgress),
    merchants: await insertTable(client, MERCHANTS, data.merchants(), counts.merchants, onProgress),
    sponsorships: await insertTable(client, SPONSORSHIPS, data.sponsorships(), counts.sponsorships, onProgress),
    ownerStatements: await insertTable(client, OWNER_STATEMENTS, data.ownerStatements(), counts.ownerStatements, onProgress),
    reports: await insertTable(client, REPORTS, data.reports(), counts.reports, onProgress),
  };
}

/**
 * Every table that holds directory content or refers to it. Accounts go too: the demo's
 * contributor e-mail addresses would collide with a previous load's, and sessions of the
 * removed accounts would dangle.
 */
export const DIRECTORY_TABLES = [
  'merchant_agent_summaries',
  'moderation_audit_log',
  'screenshot_evidence',
  'report_revisions',
  'reports',
  'owner_statements',
  'sponsorships',
  'agent_keys',
  'merchants',
  'category_legacy_names',
  'categories',
  'agents',
  'accounts',
  'session',
] as const;

/**
 * The transaction-level advisory lock that serialises every demo load across processes, so
 * that two servers starting on one empty database load a single copy. Arbitrary but fixed.
 */
export const SEED_LOCK_KEY = 0x4143_4453_4545;

async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  // A checked-out client has no listener of the pool's: a database lost between two queries
  // must fail the load, not the process.
  const ignore = () => undefined;
  client.on('error', ignore);
  try {
    await client.query('BEGIN');
    // Demo data is reproducible, so waiting for the WAL flush at commit buys nothing.
    await client.query('SET LOCAL synchronous_commit = off');
    // Index rebuilds after a bulk load sort in memory rather than on disk.
    await client.query("SET LOCAL maintenance_work_mem = '256MB'");
    await client.query('SELECT pg_advisory_xact_lock($1)', [SEED_LOCK_KEY]);
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.removeListener('error', ignore);
    client.release();
  }
}

/** True when the directory has no merchants, no agents and no categories. */
export async function isDatabaseEmpty(db: pg.Pool | pg.PoolClient): Promise<boolean> {
  const { rows } = await db.query<{ empty: boolean }>(
    `SELECT NOT EXISTS (SELECT 1 FROM merchants)
        AND NOT EXISTS (SELECT 1 FROM agents)
        AND NOT EXISTS (SELECT 1 FROM categories) AS empty`,
  );
  return rows[0]?.empty === true;
}

export interface LoadOptions {
  /** Empty DIRECTORY_TABLES first, in the same transaction as the load. */
  truncateFirst?: boolean;
}

/** Inserts the generated rows, all or nothing. Fails on key collisions with existing rows. */
export async function loadDemoData(
  pool: pg.Pool,
  options: DemoOptions,
  onProgress?: ProgressFn,
  { truncateFirst = false }: LoadOptions = {},
): Promise<DemoCounts> {
  return inTransaction(pool, async (client) => {
    if (truncateFirst) {
      await client.query(`TRUNCATE TABLE ${DIRECTORY_TABLES.map((t) => `"${t}"`).join(', ')} CASCADE`);
      onProgress?.(`emptied ${DIRECTORY_TABLES.join(', ')}`);
    }
    return insertDemoData(client, options, onProgress);
  });
}

/**
 * Loads the demo directory (the default one unless options say otherwise) only into an empty
 * database; returns null when it did nothing. Safe when several processes start at once: the
 * emptiness check is repeated under the seed lock, so only the first one loads.
 */
export async function seedDemoDataIfEmpty(
  pool: pg.Pool,
  options: Partial<DemoOptions> = {},
  onProgress?: ProgressFn,
): Promise<DemoCounts | null> {
  // The common case, a database in use, costs one query and no lock.
  if (!(await isDatabaseEmpty(pool))) return null;
  const resolved: DemoOptions = { ...options, now: options.now ?? new Date() };
  return inTransaction(pool, async (client) => {
    if (!(await isDatabaseEmpty(client))) return null;
    return insertDemoData(client, resolved, onProgress);
  });
}
