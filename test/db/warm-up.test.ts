// A process runs each kind of directory read once before it listens (warmDirectoryReads): over
// an empty directory as over the demo, and a database that fails makes it fail (the start
// logs that and listens all the same; test/process/start-stop.test.ts sees it warmed).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemoData } from '../../src/demo/load.js';
import { uncachedCounts } from '../../src/modules/directory/counts.js';
import { warmDirectoryReads, type ListContext } from '../../src/modules/merchants/merchants.service.js';
import { createPool, createPrismaClient } from '../../src/db/client.js';
import { DEMO_NOW } from '../setup/demo.js';
import { createTestDatabase, type TestDatabase } from '../setup/database.js';
import { TEST_BASE_URL } from '../setup/app.js';

const contextOf = (prisma: ListContext['prisma'], pool: ListContext['pool']): ListContext => ({ prisma, pool, counts: uncachedCounts(prisma), baseUrl: TEST_BASE_URL, now: new Date(DEMO_NOW) });

/** The statements a pool's clients were given, as text. */
function recordStatements(db: TestDatabase): string[] {
  const seen: string[] = [];
  db.pool.on('acquire', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const [first] = args;
      seen.push(typeof first === 'string' ? first : String((first as { text?: string }).text ?? ''));
      return query(...args);
    };
  });
  return seen;
}

describe('warming the read path', () => {
  let empty: TestDatabase;
  let demo: TestDatabase;
  beforeAll(async () => {
    [empty, demo] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    await loadDemoData(demo.pool, { now: new Date(DEMO_NOW) });
  });
  afterAll(() => Promise.all([empty.drop(), demo.drop()]));

  it('reads nothing it cannot find in an empty directory, and fails nothing', async () => {
    await expect(warmDirectoryReads(contextOf(empty.prisma, empty.pool))).resolves.toBeUndefined();
  });

  it('reads the lists, an agent’s filters and a merchant’s detail of the demo directory', async () => {
    const statements = recordStatements(demo);
    await warmDirectoryReads(contextOf(demo.prisma, demo.pool));
    // The lists' summaries (the pages': stored text; the API's: the stored fragments) and the
    // detail's (the whole summary, with its trend).
    expect(statements.some((sql) => sql.includes('summary_text'))).toBe(true);
    expect(statements.some((sql) => sql.includes('list_json'))).toBe(true);
    expect(statements.some((sql) => sql.includes('summary::text'))).toBe(true);
    // An agent's filters read its summaries' stored columns.
    expect(statements.some((sql) => /reach_level|status_bits/.test(sql))).toBe(true);
  });

  it('fails when the database does', async () => {
    const pool = createPool('postgresql://nobody:wrong@127.0.0.1:1/none', 1, { acquireMs: 2_000, statementMs: 2_000 });
    try {
      await expect(warmDirectoryReads(contextOf(createPrismaClient(pool), pool))).rejects.toThrow();
    } finally {
      await pool.end();
    }
  });
});
