// Reads that stay cached while the directory changes: a change of some merchants drops the
// answers built from those merchants alone, keeps every other merchant's, and leaves lists
// stale for a stated bound while one request rebuilds them (web/middleware/response-cache.ts).
import express from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/clock.js';
import { REBUILD_LISTS_EVERY_MS, ResponseCache, STALE_LISTS_MS, cachePage, cacheScope, cacheShows } from '../../src/web/middleware/response-cache.js';
import type { PageCheck } from '../../src/modules/directory/listing.js';
import type { DirectoryChange, DirectoryVersions } from '../../src/modules/directory/version.js';
import { createDemoApp } from '../setup/demo.js';
import type { TestApp } from '../setup/app.js';

describe('invalidation by what changed', () => {
  let t: TestApp;
  let a: { id: string; slug: string; name: string };
  let b: { id: string; slug: string; name: string };
  let agent: string;
  const LIST = '/api/v1/merchants?view=compact&sort=name';

  beforeAll(async () => {
    t = await createDemoApp();
    const list = await request(t.app).get('/api/v1/merchants?sort=name').expect(200);
    [a, b] = list.body.data as [typeof a, typeof a];
    agent = (await request(t.app).get('/api/v1/agents').expect(200)).body.data[0].slug as string;
  });
  afterAll(() => t.close());

  const get = async (path: string) => {
    const res = await request(t.app).get(path).expect(200);
    return { cache: res.headers['x-cache'] as string, text: res.text };
  };
  /** Every answer built from A alone, then B's profile and a list, all cached. */
  const warm = async () => {
    // Past any earlier test's stale lists.
    t.clock.advance(STALE_LISTS_MS);
    const paths = [
      `/api/v1/merchants/${a.slug}`,
      `/merchants/${a.slug}`,
      `/api/v1/reports?merchant=${a.id}`,
      `/badges/${a.slug}/${agent}.svg`,
      `/merchants/${a.slug}/feed.atom`,
      `/api/v1/merchants/${b.slug}`,
      `/merchants/${b.slug}`,
      LIST,
    ];
    for (const path of paths) {
      await get(path);
      expect((await get(path)).cache, path).toBe('HIT');
    }
  };
  const rename = async (id: string, name: string) => {
    await t.db.pool.query('UPDATE merchants SET name = $2 WHERE id = $1', [id, name]);
    await t.versions.settle();
  };

  it('rebuilds the changed merchant’s answers on the next request and keeps every other merchant’s', async () => {
    await warm();
    await rename(a.id, 'Renamed Shop A');
    for (const path of [`/api/v1/merchants/${a.slug}`, `/merchants/${a.slug}`, `/api/v1/reports?merchant=${a.id.toUpperCase()}`]) {
      const next = await get(path);
      expect(next.cache, path).toBe('MISS');
      expect(next.text, path).toContain('Renamed Shop A');
    }
    expect((await get(`/badges/${a.slug}/${agent}.svg`)).cache).toBe('MISS');
    expect((await get(`/merchants/${a.slug}/feed.atom`)).cache).toBe('MISS');
    expect((await get(`/api/v1/merchants/${b.slug}`)).cache).toBe('HIT');
    expect((await get(`/merchants/${b.slug}`)).cache).toBe('HIT');
  });

  it('drops a list that shows the changed merchant at once, and serves one that does not stale for at most its bound while one request rebuilds it', async () => {
    await warm();
    // A is first by name: on the list's page.
    await rename(a.id, 'Renamed Shop A again');
    const shown = await get(LIST);
    expect(shown.cache).toBe('MISS');
    expect(shown.text).toContain('Renamed Shop A again');

    // A merchant on no cached page (the last by name) may still move into the list: stale.
    const last = (await request(t.app).get('/api/v1/merchants?sort=name&view=compact&page=1000').expect(200)).body as { total: number };
    const lastPage = Math.ceil(last.total / 24);
    const tail = (await request(t.app).get(`/api/v1/merchants?sort=name&page=${lastPage}`).expect(200)).body.data as Array<{ id: string }>;
    const outside = tail.at(-1)!;
    await get(LIST);
    expect((await get(LIST)).cache).toBe('HIT');
    const before = await get(LIST);
    await rename(outside.id, '0 First by name now');
    // Just built: served stale (as it was) until the rebuild interval is up.
    const stale = await get(LIST);
    expect(stale.cache).toBe('STALE');
    expect(stale.text).toBe(before.text);
    t.clock.advance(REBUILD_LISTS_EVERY_MS);
    const rebuilt = await get(LIST);
    expect(rebuilt.cache).toBe('MISS');
    expect(rebuilt.text).toContain('0 First by name now');
    expect((await get(LIST)).cache).toBe('HIT');

    // Past the bound, nothing stale is served: the next request builds it.
    await rename(tail.at(-2)!.id, '000 Earliest');
    t.clock.advance(STALE_LISTS_MS);
    const late = await get(LIST);
    expect(late.cache).toBe('MISS');
    expect(late.text).toContain('000 Earliest');
  });

  it('keeps a stale list whose page is still the same (found again by the listing), and rebuilds one whose page moved', async () => {
    await warm();
    const before = await get(LIST);
    const total = (JSON.parse(before.text) as { total: number }).total;
    const tail = (await request(t.app).get(`/api/v1/merchants?sort=name&page=${Math.ceil(total / 24)}`).expect(200)).body.data as Array<{ id: string; name: string }>;
    // Renamed within the last page: the first page (the cached list) stays what it was.
    await rename(tail.at(-1)!.id, `${tail.at(-1)!.name} (renamed)`);
    t.clock.advance(REBUILD_LISTS_EVERY_MS);
    const kept = await get(LIST);
    expect(kept.cache).toBe('REVALIDATED');
    expect(kept.text).toBe(before.text);
    expect((await get(LIST)).cache).toBe('HIT');

    // A change that moves a merchant onto the page: the page differs, so the list is built again.
    await rename(tail.at(-1)!.id, '00 Onto the first page');
    t.clock.advance(REBUILD_LISTS_EVERY_MS);
    const moved = await get(LIST);
    expect(moved.cache).toBe('MISS');
    expect(moved.text).toContain('00 Onto the first page');
  });

  it('keeps everything for a write of equal values, and drops everything for a change of the catalog', async () => {
    await warm();
    await t.db.pool.query('UPDATE merchants SET name = name');
    await t.versions.settle();
    expect((await get(`/api/v1/merchants/${a.slug}`)).cache).toBe('HIT');
    expect((await get(LIST)).cache).toBe('HIT');

    await t.db.pool.query("UPDATE agents SET name = name || ' ' WHERE slug = $1", [agent]);
    await t.versions.settle();
    expect((await get(`/api/v1/merchants/${b.slug}`)).cache).toBe('MISS');
    expect((await get(LIST)).cache).toBe('MISS');
  });
});

/** Directory versions this test moves by hand: each change names some merchants. */
function versionsByHand() {
  let listener: ((change: DirectoryChange) => void) | undefined;
  let version = 1n;
  const versions: DirectoryVersions = {
    current: () => version,
    settle: async () => {},
    onChange: (l) => {
      listener = l;
      return () => undefined;
    },
    close: async () => {},
  };
  const change = (merchants: string[]) => {
    version += 1n;
    listener!({ version, scope: { merchants } });
  };
  return { versions, change };
}

describe('single flight', () => {
  /** A cache over versions this test moves by hand, in front of a handler that counts its runs. */
  function harness(scope: string[] | null) {
    const { versions, change } = versionsByHand();
    const clock = fixedClock('2026-11-22T12:00:00Z');
    const cache = new ResponseCache({ versions, clock });
    let runs = 0;
    let body = 'first';
    let started: (() => void) | null = null;
    const app = express();
    app.get('/answer', cache.middleware(), async (_req, res) => {
      runs += 1;
      const read = body;
      started?.();
      started = null;
      await new Promise((resolve) => setTimeout(resolve, 50));
      if (scope) cacheScope(res, scope);
      res.type('text/plain').send(`${read} ${'x'.repeat(2000)}`);
    });
    return {
      app,
      clock,
      runs: () => runs,
      /** Resolves when the handler next starts (has read the body it answers). */
      nextRun: () => new Promise<void>((resolve) => (started = resolve)),
      change(merchants: string[], next: string) {
        body = next;
        change(merchants);
      },
    };
  }

  it('runs the handler once for ten concurrent misses, and each gets its answer', async () => {
    const h = harness(null);
    const answers = await Promise.all(Array.from({ length: 10 }, () => request(h.app).get('/answer')));
    expect(h.runs()).toBe(1);
    for (const res of answers) expect(res.text.startsWith('first')).toBe(true);
    expect(answers.filter((res) => res.headers['x-cache'] === 'MISS')).toHaveLength(1);
  });

  it('rebuilds a stale list once while ten concurrent readers get the stale answer', async () => {
    const h = harness(null);
    await request(h.app).get('/answer');
    h.change(['0190a1b2-0000-7000-8000-000000000001'], 'second');
    h.clock.advance(REBUILD_LISTS_EVERY_MS);
    const answers = await Promise.all(Array.from({ length: 10 }, () => request(h.app).get('/answer')));
    expect(h.runs()).toBe(2);
    expect(answers.filter((res) => res.headers['x-cache'] === 'MISS')).toHaveLength(1);
    expect(answers.filter((res) => res.headers['x-cache'] === 'STALE')).toHaveLength(9);
    const after = await request(h.app).get('/answer');
    expect(after.headers['x-cache']).toBe('HIT');
    expect(after.text.startsWith('second')).toBe(true);
  });

  it('hands an abandoned build to one waiter at a time, never to all of them at once', async () => {
    // The first build fails (as a 503 does when the database is slow); the ten requests waiting
    // for it must not all build at once: one takes over, and the rest get its answer.
    const clock = fixedClock('2026-11-22T12:00:00Z');
    const versions: DirectoryVersions = { current: () => 1n, settle: async () => {}, onChange: () => () => undefined, close: async () => {} };
    const cache = new ResponseCache({ versions, clock });
    let arrived = 0;
    let allArrived!: () => void;
    const everyone = new Promise<void>((resolve) => (allArrived = resolve));
    let runs = 0;
    let building = 0;
    let mostAtOnce = 0;
    const app = express();
    app.get(
      '/answer',
      (_req, _res, next) => {
        if (++arrived === 11) allArrived();
        next();
      },
      cache.middleware(),
      async (_req, res) => {
        runs += 1;
        building += 1;
        mostAtOnce = Math.max(mostAtOnce, building);
        // The first build waits until every request has arrived (and waits for it), then fails.
        if (runs === 1) await everyone;
        else await new Promise((resolve) => setTimeout(resolve, 20));
        building -= 1;
        if (runs === 1) res.status(503).set('Retry-After', '5').type('text/plain').send('resting');
        else res.type('text/plain').send(`built by run ${runs}`);
      },
    );
    const answers = await Promise.all(Array.from({ length: 11 }, () => request(app).get('/answer')));
    expect(mostAtOnce).toBe(1);
    expect(runs).toBe(2);
    expect(answers.map((res) => res.status).sort()).toEqual([...Array<number>(10).fill(200), 503]);
    for (const res of answers.filter((r) => r.status === 200)) expect(res.text).toBe('built by run 2');
  });

  it('checks a stale list’s page once for concurrent readers, and keeps it stale for a change heard during the check', async () => {
    const { versions, change } = versionsByHand();
    const clock = fixedClock('2026-11-22T12:00:00Z');
    const cache = new ResponseCache({ versions, clock });
    let checks = 0;
    let checkBegun!: () => void;
    const begun = new Promise<void>((resolve) => (checkBegun = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const page: PageCheck = {
      identity: 'the same page',
      identityAt: async () => {
        checks += 1;
        checkBegun();
        await released;
        return 'the same page';
      },
    };
    let runs = 0;
    const app = express();
    app.get('/list', cache.middleware(), (_req, res) => {
      runs += 1;
      cacheShows(res, ['0190a1b2-0000-7000-8000-000000000001']);
      cachePage(res, page);
      res.type('text/plain').send(`list ${'x'.repeat(2000)}`);
    });
    await request(app).get('/list').expect('X-Cache', 'MISS');
    change(['0190a1b2-0000-7000-8000-000000000002']);
    clock.advance(REBUILD_LISTS_EVERY_MS);
    const answers = Promise.all(Array.from({ length: 10 }, () => request(app).get('/list')));
    await begun;
    // A change heard while the page is being checked: the check may not have seen it.
    change(['0190a1b2-0000-7000-8000-000000000003']);
    release();
    const results = (await answers).map((res) => res.headers['x-cache']);
    expect(checks).toBe(1);
    expect(runs).toBe(1);
    expect(results.filter((r) => r === 'REVALIDATED')).toHaveLength(1);
    expect(results.filter((r) => r === 'STALE')).toHaveLength(9);
    // Kept, but stale from that change: checked again once the rebuild interval is up.
    await request(app).get('/list').expect('X-Cache', 'STALE');
    clock.advance(REBUILD_LISTS_EVERY_MS);
    await request(app).get('/list').expect('X-Cache', 'REVALIDATED');
    await request(app).get('/list').expect('X-Cache', 'HIT');
    expect(checks).toBe(2);
    expect(runs).toBe(1);
  });

  it('does not file an answer that a change of its merchant overtook while it was built', async () => {
    const merchant = '0190a1b2-0000-7000-8000-000000000002';
    const h = harness([merchant]);
    // The change comes while the answer is being built (an event, not a guess of 10 ms, which a
    // loaded machine broke: the build had not begun by then).
    const begun = h.nextRun();
    const building = request(h.app).get('/answer').then((res) => res);
    await begun;
    h.change([merchant], 'second');
    expect((await building).text.startsWith('first')).toBe(true);
    const next = await request(h.app).get('/answer');
    expect(next.headers['x-cache']).toBe('MISS');
    expect(next.text.startsWith('second')).toBe(true);
  });
});
