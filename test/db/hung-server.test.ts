// A server that hangs (a stopped process, a network that drops everything) never sends its own
// statement_timeout. The serving pool closes a connection that has been silent for
// statement_timeout + 2 s while a query is in flight (db/client.ts boundSilence): the query
// fails as an outage and the pool answers again once the server does. A connection idle in the
// pool is left open, however long it stays silent.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool } from '../../src/db/client.js';
import { isDatabaseUnavailable } from '../../src/db/errors.js';
import { createTestDatabase, type TestDatabase } from '../setup/database.js';
import { hangingProxy } from '../setup/hanging-proxy.js';

const STATEMENT_MS = 300;
const BOUND_MS = STATEMENT_MS + 2_000;

describe('a database server that hangs', { timeout: 60_000 }, () => {
  let db: TestDatabase;
  let proxy: Awaited<ReturnType<typeof hangingProxy>>;
  beforeAll(async () => {
    db = await createTestDatabase();
    proxy = await hangingProxy(new URL(db.url));
  });
  afterAll(async () => {
    await proxy?.close();
    await db?.drop();
  });

  it('fails the query in flight once its connection has been silent past the bound, and leaves idle connections open', async () => {
    const url = new URL(db.url);
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    const pool = createPool(url.toString(), 2, { statementMs: STATEMENT_MS, acquireMs: 10_000 });
    let removed = 0;
    pool.on('remove', () => (removed += 1));
    try {
      await expect(pool.query('SELECT 1 AS n')).resolves.toMatchObject({ rows: [{ n: 1 }] });
      // Idle in the pool for longer than the bound: nothing waits on the server, nothing is closed.
      await sleep(BOUND_MS + 500);
      expect(removed).toBe(0);
      await expect(pool.query('SELECT 2 AS n')).resolves.toMatchObject({ rows: [{ n: 2 }] });

      proxy.hang();
      const started = performance.now();
      const failure: unknown = await pool.query('SELECT 3 AS n').then(
        () => null,
        (error: unknown) => error,
      );
      // Not before the connection has been silent for the whole bound.
      expect(performance.now() - started).toBeGreaterThanOrEqual(BOUND_MS - 50);
      expect(failure).not.toBeNull();
      expect(isDatabaseUnavailable(failure)).toBe(true);
      expect(removed).toBeGreaterThanOrEqual(1);

      proxy.goOn();
      await expect(pool.query('SELECT 4 AS n')).resolves.toMatchObject({ rows: [{ n: 4 }] });
    } finally {
      await pool.end();
    }
  });
});
