// The example client against the real test server.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMPTY_QUEUE_WAIT_MS, queuePass, type QueueItem } from '../../examples/queue-pass.js';
import { createDemoApp } from '../setup/demo.js';
import type { TestApp } from '../setup/app.js';
import { accountWithKey } from '../setup/actors.js';

describe('examples/queue-pass.ts', () => {
  let t: TestApp;
  let server: Server;
  let baseUrl: string;
  let key: string;
  const sleeps: number[] = [];
  const sleep = async (ms: number) => {
    sleeps.push(ms);
    t.clock.advance(ms); // the server's limits see the time pass
  };
  beforeAll(async () => {
    t = await createDemoApp({ env: { LIMIT_PRIVATE_PER_MINUTE: '3' } });
    server = t.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const agent = await t.db.prisma.agent.findFirstOrThrow({ where: { active: true } });
    ({ key } = await accountWithKey(t, 'example@example.org', agent.id));
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await t.close();
  });

  it('walks the whole queue, waiting out 429s as Retry-After says', async () => {
    sleeps.length = 0;
    const seen: QueueItem[] = [];
    const result = await queuePass({ baseUrl, key, filters: { limit: 5 }, onItem: (i) => void seen.push(i), sleep, log: () => {} });
    const eligible = await t.db.prisma.merchant.count({ where: { approvedCanonical: true, isPublic: true } });
    expect(result).toEqual({ outcome: 'done', items: eligible, pages: Math.ceil(eligible / 5) });
    expect(new Set(seen.map((i) => i.id)).size).toBe(eligible);
    // 3 requests a minute: the client was told to wait, and did.
    expect(sleeps.length).toBeGreaterThan(0);
    expect(sleeps.every((ms) => ms > 0 && ms <= 60_000)).toBe(true);
  });

  it('stops at once on 401', async () => {
    let calls = 0;
    const counting: typeof fetch = (input, init) => {
      calls++;
      return fetch(input, init);
    };
    const result = await queuePass({ baseUrl, key: 'acd_revoked-or-unknown', fetch: counting, sleep, log: () => {} });
    expect(result).toMatchObject({ outcome: 'stopped', status: 401 });
    expect(calls).toBe(1);
  });

  it('backs off boundedly on server errors and network failures, then gives up', async () => {
    sleeps.length = 0;
    let calls = 0;
    const failing: typeof fetch = async () => {
      calls++;
      if (calls % 2) throw new TypeError('connection refused');
      return new Response('{}', { status: 503 });
    };
    const result = await queuePass({ baseUrl, key, fetch: failing, sleep, log: () => {}, maxAttempts: 4 });
    expect(result).toEqual({ outcome: 'gave-up', reason: 'server error 503' });
    expect(calls).toBe(4);
    expect(sleeps).toEqual([1000, 2000, 4000]);
  });

  it('recovers after a transient server error', async () => {
    let calls = 0;
    const flaky: typeof fetch = (input, init) => (++calls === 1 ? Promise.resolve(new Response('{}', { status: 502 })) : fetch(input, init));
    const result = await queuePass({ baseUrl, key, filters: { limit: 50 }, fetch: flaky, sleep, log: () => {} });
    expect(result.outcome).toBe('done');
  });

  it('waits an hour after an empty pass', async () => {
    sleeps.length = 0;
    const result = await queuePass({ baseUrl, key, filters: { category: 'no-merchants-here' }, sleep, log: () => {} });
    expect(result).toMatchObject({ outcome: 'stopped', status: 400 });
    await t.db.prisma.category.create({ data: { name: 'Empty Aisle', slug: 'empty-aisle' } });
    sleeps.length = 0;
    const empty = await queuePass({ baseUrl, key, filters: { category: 'empty-aisle' }, sleep, log: () => {} });
    expect(empty).toEqual({ outcome: 'done', items: 0, pages: 1 });
    expect(sleeps.at(-1)).toBe(EMPTY_QUEUE_WAIT_MS);
  });
});
