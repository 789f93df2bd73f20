// Window arithmetic of the shared counter store, with a clock the test moves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/clock.js';
import { PostgresRateLimitStore, pruneRateLimitCounters } from '../../src/http/middleware/rate-limit.js';
import { createTestDatabase, type TestDatabase } from '../setup/database.js';

describe('PostgresRateLimitStore', () => {
  let db: TestDatabase;
  const clock = fixedClock('2026-11-22T12:00:00.000Z');
  let store: PostgresRateLimitStore;
  beforeAll(async () => {
    db = await createTestDatabase();
    store = new PostgresRateLimitStore(db.pool, clock, 'test');
    store.init({ windowMs: 60_000 } as Parameters<typeof store.init>[0]);
  });
  afterAll(() => db.drop());

  it('counts within a fixed window and starts a new one when it ends', async () => {
    expect(await store.increment('a')).toEqual({ totalHits: 1, resetTime: new Date('2026-11-22T12:01:00.000Z') });
    clock.advance(59_999);
    expect(await store.increment('a')).toEqual({ totalHits: 2, resetTime: new Date('2026-11-22T12:01:00.000Z') });
    expect(await store.get('a')).toEqual({ totalHits: 2, resetTime: new Date('2026-11-22T12:01:00.000Z') });
    clock.advance(1);
    expect(await store.get('a')).toBeUndefined();
    expect(await store.increment('a')).toEqual({ totalHits: 1, resetTime: new Date('2026-11-22T12:02:00.000Z') });
  });

  it('keeps keys and prefixes apart, decrements and resets', async () => {
    const other = new PostgresRateLimitStore(db.pool, clock, 'other');
    other.init({ windowMs: 60_000 } as Parameters<typeof other.init>[0]);
    await store.increment('b');
    await store.increment('b');
    expect((await other.increment('b')).totalHits).toBe(1);
    await store.decrement('b');
    expect((await store.get('b'))?.totalHits).toBe(1);
    await store.resetKey('b');
    expect(await store.get('b')).toBeUndefined();
    expect((await other.get('b'))?.totalHits).toBe(1);
  });

  it('counts concurrent increments exactly', async () => {
    const results = await Promise.all(Array.from({ length: 25 }, () => store.increment('c')));
    expect(results.map((r) => r.totalHits).sort((x, y) => x - y)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
  });

  it('prunes ended windows', async () => {
    clock.advance(3_600_000);
    expect(await pruneRateLimitCounters(db.pool, clock.now())).toBeGreaterThan(0);
    expect((await db.pool.query('SELECT count(*)::int AS n FROM rate_limit_counters')).rows[0].n).toBe(0);
  });
});
