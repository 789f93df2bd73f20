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

  it('drops the counters of an ended window at the first look after it, not only when the same key returns', async () => {
    clock.set('2026-11-22T13:00:00.000Z');
    const store = storeOf({ flushAt: 1_000 });
    for (let i = 0; i < 500; i++) store.hit(`ended-${i}`);
    expect(store.size).toBe(500);
    clock.set('2026-11-22T13:01:00.000Z');
    store.hit('next-window');
    expect(store.size).toBe(1);
    expect(store.count('ended-0')).toBeUndefined();
  });

  it('sends only the counts that changed since the last sync, not the whole map', async () => {
    clock.set('2026-11-22T13:10:00.000Z');
    const sent: string[][] = [];
    const recording = {
      query: (text: string, params: unknown[]) => {
        if (text.startsWith('INSERT')) sent.push([...(params[0] as string[])].sort());
        return db.pool.query(text, params);
      },
    } as unknown as typeof db.pool;
    const store = new SyncedRateLimitStore(recording, clock, 'synced', { syncMs: 60_000, flushAt: 1_000 });
    store.init({ windowMs: 60_000, limit: 100 } as Parameters<typeof store.init>[0]);
    for (let i = 0; i < 1_000; i++) store.hit(`idle-${i}`);
    await store.sync();
    expect(sent.at(-1)).toHaveLength(1_000);
    store.hit('idle-7');
    store.hit('new');
    store.hit('new');
    expect(store.size).toBe(1_001);
    expect(store.queued).toBe(2);
    await store.sync();
    expect(sent.at(-1)).toEqual(['synced:idle-7', 'synced:new']);
    expect(store.queued).toBe(0);
    expect(await stored('new')).toMatchObject({ hits: 2 });
    // Nothing changed: nothing is sent.
    await store.sync();
    expect(sent).toHaveLength(2);
  });

  it('holds at most maxKeys counters however many keys it sees, and counts a key it forgot from PostgreSQL when it returns', async () => {
    clock.set('2026-11-22T13:20:00.000Z');
    const limit = 5;
    const store = storeOf({ flushAt: 1_000, maxKeys: 10 }, limit);
    for (let i = 0; i < limit; i++) expect(store.hit('returning').totalHits).toBeLessThanOrEqual(limit);
    for (let i = 0; i < 10_000; i++) {
      store.hit(`flood-${i}`);
      expect(store.size).toBeLessThanOrEqual(10);
      if (i % 100 === 99) await store.flush();
    }
    await store.flush();
    expect(store.count('returning')).toBeUndefined();
    expect(await stored('returning')).toMatchObject({ hits: limit });
    expect(await stored('flood-0')).toMatchObject({ hits: 1 });
    // Its first hit back cannot know the total yet (the one-round-trip excess), and syncs at once...
    expect(store.hit('returning').totalHits).toBe(1);
    await store.flush();
    // ...after which it is counted from PostgreSQL's total.
    expect(store.hit('returning').totalHits).toBe(limit + 2);
    expect(store.count('returning')?.totalHits).toBe(limit + 2);
  });

  it('keeps the queue bounded too when the database never answers', async () => {
    clock.set('2026-11-22T13:30:00.000Z');
    const stalled = { query: () => new Promise(() => undefined) } as unknown as typeof db.pool;
    const store = new SyncedRateLimitStore(stalled, clock, 'synced', { syncMs: 60_000, flushAt: 1, maxKeys: 100 });
    store.init({ windowMs: 60_000, limit: 3 } as Parameters<typeof store.init>[0]);
    for (let i = 0; i < 10_000; i++) store.hit(`stalled-${i}`);
    expect(store.size).toBeLessThanOrEqual(100);
    expect(store.queued).toBeLessThanOrEqual(50);
    // A key it holds is still limited in this process alone.
    for (let i = 0; i < 3; i++) store.hit('held');
    expect(store.hit('held').totalHits).toBe(4);
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
