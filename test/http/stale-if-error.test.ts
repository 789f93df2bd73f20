// Stale if error: while the database cannot be reached (here: behind a TCP proxy that hangs as
// a stopped server does), a public answer the process holds keeps being served, for at most
// STALE_IF_ERROR_SECONDS past its normal life, with Age, Warning and X-Cache saying so; what it
// does not hold, and every write, still answers 503 with Retry-After; once the database is back
// the normal bounds apply again. The clock is the app's own (fixed, moved by the test).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { fixedClock } from '../../src/clock.js';
import { createPool, createPrismaClient } from '../../src/db/client.js';
import { STALE_IF_ERROR_SECONDS } from '../../src/web/cache-control.js';
import { createLogger } from '../../src/logger.js';
import { watchDirectoryVersion, type DirectoryVersions } from '../../src/modules/directory/version.js';
import { issueKey } from '../../src/modules/keys/keys.service.js';
import { contributionTargets } from '../factories/index.js';
import { testConfig } from '../setup/app.js';
import { createTestDatabase, type TestDatabase } from '../setup/database.js';
import { hangingProxy } from '../setup/hanging-proxy.js';

const TIMEOUT_MS = 1_500;

describe('stale if error', { timeout: 120_000 }, () => {
  let db: TestDatabase;
  let pool: pg.Pool;
  let versions: DirectoryVersions;
  let server: http.Server;
  let base: string;
  let key: string;
  let body: Record<string, unknown>;
  let merchantSlug: string;
  let proxy: Awaited<ReturnType<typeof hangingProxy>>;
  const clock = fixedClock('2026-11-22T12:00:00Z');

  beforeAll(async () => {
    db = await createTestDatabase();
    const targets = await contributionTargets(db.prisma, 3);
    merchantSlug = targets.merchants[0]!.slug;
    const account = await db.prisma.account.create({ data: { email: 'stale@example.org' } });
    key = (await issueKey(db.prisma, { accountId: account.id, agentId: targets.agents[0]!.id }, clock.now())).key;
    body = { adId: targets.merchants[1]!.id, agentId: targets.agents[0]!.id, privacy: true, outcome: 'WORKS' };
    proxy = await hangingProxy(new URL(db.url));
    const url = new URL(db.url);
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    pool = createPool(url.toString(), 10, { statementMs: TIMEOUT_MS, acquireMs: TIMEOUT_MS });
    versions = await watchDirectoryVersion(pool, { pollMs: 60_000, maxBackoffMs: 200 });
    const config = testConfig({ DATABASE_TIMEOUT_MS: String(TIMEOUT_MS), LIMIT_PUBLIC_PER_MINUTE: '100000' });
    const app = createApp({ config, logger: createLogger('silent'), prisma: createPrismaClient(pool), pool, clock, versions });
    server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    proxy?.goOn();
    await new Promise((resolve) => server?.close(resolve));
    await versions?.close();
    await pool?.end();
    await proxy?.close();
    await db?.drop();
  });

  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${base}${path}`, { headers });

  it('serves what it holds while the database hangs, within the bound; 503 for the rest; the normal bounds once it is back', async () => {
    // Cached while the database answers: public, with stale-if-error published for caches in front.
    const fresh = await get('/api/v1/categories');
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('cache-control')).toBe(`public, max-age=60, stale-if-error=${STALE_IF_ERROR_SECONDS}`);
    const freshBody = await fresh.text();
    expect((await get('/api/v1/categories')).headers.get('x-cache')).toBe('HIT');
    const page = await get(`/merchants/${merchantSlug}`);
    expect(page.status).toBe(200);
    const pageBody = await page.text();

    // The database stops answering; the listener notices (here at once: a read on its connection fails).
    proxy.hang();
    await versions.settle();
    expect(versions.current()).toBeNull();
    clock.advance(30_000);

    const stale = await get('/api/v1/categories');
    expect(stale.status).toBe(200);
    expect(stale.headers.get('x-cache')).toBe('STALE-IF-ERROR');
    expect(stale.headers.get('warning')).toBe('111 - "Revalidation Failed"');
    expect(stale.headers.get('age')).toBe('30');
    expect(stale.headers.get('retry-after')).toBeNull();
    expect(await stale.text()).toBe(freshBody);
    // The next ones at once (no wait for the database's deadline); pages too.
    const again = await get('/api/v1/categories', { 'accept-encoding': 'gzip' });
    expect(again.headers.get('x-cache')).toBe('STALE-IF-ERROR');
    expect(await again.text()).toBe(freshBody);
    const stalePage = await get(`/merchants/${merchantSlug}`);
    expect(stalePage.status).toBe(200);
    expect(stalePage.headers.get('x-cache')).toBe('STALE-IF-ERROR');
    expect(await stalePage.text()).toBe(pageBody);

    // What it does not hold, and writes: 503 with Retry-After.
    const uncached = await get('/api/v1/agents');
    expect(uncached.status).toBe(503);
    expect(uncached.headers.get('retry-after')).toBe('5');
    expect(uncached.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const write = await fetch(`${base}/api/v1/reports`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(write.status).toBe(503);
    expect(write.headers.get('retry-after')).toBe('5');

    // Past the bound (its 60 s life and STALE_IF_ERROR_SECONDS more), nothing stale: 503.
    clock.advance((60 + STALE_IF_ERROR_SECONDS) * 1000 - 30_000);
    const late = await get('/api/v1/categories');
    expect(late.status).toBe(503);
    expect(late.headers.get('retry-after')).toBe('5');

    // The database is back: answers are built afresh and the normal bounds apply.
    proxy.goOn();
    for (let i = 0; i < 600 && versions.current() === null; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(versions.current()).not.toBeNull();
    const back = await get('/api/v1/categories');
    expect(back.status).toBe(200);
    expect(back.headers.get('x-cache')).toBe('MISS');
    expect(back.headers.get('warning')).toBeNull();
    // And the write is taken again.
    expect((await fetch(`${base}/api/v1/reports`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })).status).toBe(201);
  });
});
