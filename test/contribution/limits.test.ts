import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_BASE_URL, type TestApp, createTestApp } from '../setup/app.js';
import { captureMailer, signIn } from '../setup/session.js';
import { contributionTargets } from '../factories/index.js';
import { accountWithKey } from '../setup/actors.js';

function expectLimited(res: request.Response) {
  expect(res.status).toBe(429);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  expect(res.headers['ratelimit']).toBeDefined();
  expect(res.headers['ratelimit-policy']).toBeDefined();
}

describe('submission limits', () => {
  let t: TestApp;
  let T: Awaited<ReturnType<typeof contributionTargets>>;
  const mailer = captureMailer();
  beforeAll(async () => {
    t = await createTestApp({
      mailer,
      env: {
        LIMIT_BROWSER_SUBMISSIONS_PER_HOUR: '2',
        LIMIT_AGENT_SUBMISSIONS_PER_HOUR: '3',
        LIMIT_PRIVATE_PER_MINUTE: '6',
        LIMIT_PRIVATE_ADDRESS_PER_MINUTE: '9',
      },
    });
    T = await contributionTargets(t.db.prisma);
  });
  afterAll(() => t.close());

  const report = (i: number, agentId: string, extra: Record<string, unknown> = {}) => ({
    adId: T.merchants[i]!.id,
    agentId,
    privacy: true,
    outcome: 'WORKS',
    ...extra,
  });

  it('limits browser submissions per account per hour, then lets them through in the next hour', async () => {
    const browser = await signIn(t.app, mailer, 'browser-limit@example.org');
    const agentId = T.agents[0]!.id;
    for (const i of [0, 1]) {
      const res = await browser.post('/api/v1/reports').set('Origin', TEST_BASE_URL).send(report(i, agentId)).expect(201);
      // The same draft-8 syntax as every other limit, partition key included.
      expect(res.headers['ratelimit-policy']).toMatch(/^"browser-submissions"; q=2; w=3600; pk=:[A-Za-z0-9+/=]+:$/);
      expect(res.headers['ratelimit']).toBe(`"browser-submissions"; r=${1 - i}; t=3600`);
    }
    const before = await t.db.prisma.report.count();
    const limited = await browser.post('/api/v1/reports').set('Origin', TEST_BASE_URL).send(report(2, agentId));
    expectLimited(limited);
    expect(limited.headers['retry-after']).toBe('3600');
    expect(await t.db.prisma.report.count()).toBe(before);
    t.clock.advance(3_600_000);
    await browser.post('/api/v1/reports').set('Origin', TEST_BASE_URL).send(report(2, agentId)).expect(201);
    t.clock.set('2026-11-22T12:00:00Z');
  });

  it('counts changed agent submissions across all keys of an account, but not unchanged ones', async () => {
    t.clock.set('2026-11-22T14:00:00Z');
    const agentA = T.agents[1]!.id;
    const agentB = T.agents[2]!.id;
    const { auth: keyA, account } = await accountWithKey(t, 'agent-limit@example.org', agentA);
    const { auth: keyB } = await accountWithKey(t, 'agent-limit@example.org', agentB);
    const post = (auth: Record<string, string>, body: unknown) => request(t.app).post('/api/v1/reports').set(auth).send(body as object);

    await post(keyA, report(5, agentA)).expect(201);
    await post(keyA, report(5, agentA)).expect(200); // unchanged: not counted
    await post(keyB, report(6, agentB)).expect(201);
    await post(keyB, report(6, agentB)).expect(200);
    await post(keyA, report(7, agentA)).expect(201);
    const limited = await post(keyB, report(8, agentB));
    expectLimited(limited);
    // Listed after the private policies the request passed, not instead of them.
    expect(limited.headers['ratelimit-policy']).toMatch(/^"private:address"; q=\d+; w=60; pk=:[^:]+:, "private:account"; q=\d+; w=60; pk=:[^:]+:, "agent-submissions"; q=3; w=3600; pk=:[^:]+:$/);
    expect(await t.db.prisma.report.count({ where: { accountId: account.id } })).toBe(3);
    // Unchanged resubmissions still answer while the hourly quota is used up (a minute later,
    // past the per-minute private limit these seven requests reached).
    t.clock.advance(60_000);
    await post(keyA, report(5, agentA)).expect(200);
    expectLimited(await post(keyA, report(9, agentA)));
    t.clock.set('2026-11-22T12:00:00Z');
  });

  it('limits private requests per account per minute, across keys', async () => {
    t.clock.set('2026-11-22T16:00:00Z');
    const agentA = T.agents[3]!.id;
    const { auth } = await accountWithKey(t, 'private-limit@example.org', agentA);
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await request(t.app).post('/api/v1/reports').set(auth).send(report(10, agentA));
      statuses.push(res.status);
      if (res.status === 429) expectLimited(res);
    }
    expect(statuses).toEqual([201, 200, 200, 200, 200, 200, 429]);
    t.clock.set('2026-11-22T12:00:00Z');
  });

  it('limits private requests per client address, whatever the account', async () => {
    t.clock.set('2026-11-22T18:00:00Z');
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      const agentId = T.agents[i % T.agents.length]!.id;
      const { auth } = await accountWithKey(t, `address-${i}@example.org`, agentId);
      const res = await request(t.app).post('/api/v1/reports').set(auth).send(report(12 + i, agentId));
      statuses.push(res.status);
    }
    expect(statuses.slice(0, 9).every((s) => s === 201)).toBe(true);
    expect(statuses[9]).toBe(429);
    t.clock.set('2026-11-22T12:00:00Z');
  });
});
