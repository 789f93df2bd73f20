// What only grows is pruned by the upkeep: ended rate-limit windows and sign-in links a day
// past their expiry (expired sessions are connect-pg-simple's own pruning).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { runUpkeep } from '../../src/upkeep.js';
import { createTestDatabase, type TestDatabase } from '../setup/database.js';

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
});
