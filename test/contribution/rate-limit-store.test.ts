// Window arithmetic of the shared counter store, with a clock the test moves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/clock.js';
import { PostgresRateLimitStore, pruneRateLimitCounters, SyncedRateLimitStore } from '../../src/modules/limits/counters.js';
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

describe('SyncedRateLimitStore (a per-process first line synced in batches)', () => {
  let db: TestDatabase;
  const clock = fixedClock('2026-11-22T12:00:00.000Z');
  const storeOf = (options: ConstructorParameters<typeof SyncedRateLimitStore>[3] = {}, limit = 100) => {
    const store = new SyncedRateLimitStore(db.pool, clock, 'synced', { syncMs: 60_000, ...options });
    store.init({ windowMs: 60_000, limit } as Parameters<typeof store.init>[0]);
    return store;
  };
  const stored = async (key: string) =>
    (await db.pool.query('SELECT hits, reset_at FROM rate_limit_counters WHERE key = $1', [`synced:${key}`])).rows[0] as
      | { hits: number; reset_at: Date }
      | undefined;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  it('counts exactly in one process without writing per hit, and adds its counts in one sync', async () => {
    const store = storeOf({ flushAt: 1_000 });
    for (let i = 1; i <= 5; i++) expect(store.hit('a').totalHits).toBe(i);
    expect(await stored('a')).toBeUndefined();
    await store.sync();
    expect(await stored('a')).toEqual({ hits: 5, reset_at: new Date('2026-11-22T12:01:00.000Z') });
    expect(store.hit('a').totalHits).toBe(6);
  });

  it('shares counts between processes: each sees the others after its own sync', async () => {
    const one = storeOf({ flushAt: 1_000 });
    const two = storeOf({ flushAt: 1_000 });
    for (let i = 0; i < 7; i++) one.hit('b');
    for (let i = 0; i < 4; i++) two.hit('b');
    await one.sync();
    await two.sync();
    expect(two.hit('b').totalHits).toBe(12);
    // One knows only its own hits until its next sync, which its next hit triggers.
    expect(one.hit('b').totalHits).toBe(8);
    await one.sync();
    expect(one.hit('b').totalHits).toBe(13);
  });

  it('lets at most limit + (processes - 1) x flushAt through when a client spreads over processes', async () => {
    const limit = 50;
    const flushAt = Math.ceil(limit / 10);
    const processes = [storeOf({}, limit), storeOf({}, limit), storeOf({}, limit)];
    let admitted = 0;
    for (let i = 0; i < 600; i++) {
      const store = processes[i % processes.length]!;
      if (store.hit('c').totalHits <= limit) admitted++;
      // Each sync is one round trip; let them land as requests keep coming.
      if (i % 3 === 2) await Promise.all(processes.map((p) => p.sync()));
    }
    expect(admitted).toBeGreaterThanOrEqual(limit);
    expect(admitted).toBeLessThanOrEqual(limit + (processes.length - 1) * flushAt);
  });

  it('starts a new window at a whole multiple of the window, the same in every process', async () => {
    const store = storeOf({ flushAt: 1_000 });
    store.hit('d');
    clock.set('2026-11-22T12:00:59.999Z');
    expect(store.hit('d')).toMatchObject({ totalHits: 2, resetTime: new Date('2026-11-22T12:01:00.000Z') });
    clock.set('2026-11-22T12:01:00.000Z');
    expect(store.hit('d')).toMatchObject({ totalHits: 1, resetTime: new Date('2026-11-22T12:02:00.000Z') });
  });

  it('keeps counting in memory when the database does not answer, and sends the counts later', async () => {
    const errors: unknown[] = [];
    const broken = { query: () => Promise.reject(new Error('connection refused')) } as unknown as typeof db.pool;
    const store = new SyncedRateLimitStore(broken, clock, 'synced', { syncMs: 60_000, flushAt: 1_000, onError: (e) => errors.push(e) });
    store.init({ windowMs: 60_000, limit: 3 } as Parameters<typeof store.init>[0]);
    for (let i = 1; i <= 4; i++) expect(store.hit('e').totalHits).toBe(i);
    await store.sync();
    expect(errors).toHaveLength(1);
    expect(store.hit('e').totalHits).toBe(5);
  });
});
