import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_BASE_URL, type TestApp, createTestApp } from '../setup/app.js';
import { captureMailer, signIn } from '../setup/session.js';
import { contributionTargets } from '../factories/index.js';
import { accountWithKey } from '../setup/actors.js';

const PROBLEM = /^application\/problem\+json/;

describe('POST /api/v1/reports', () => {
  let t: TestApp;
  let T: Awaited<ReturnType<typeof contributionTargets>>;
  const mailer = captureMailer();
  let n = 0;
  beforeAll(async () => {
    t = await createTestApp({ mailer });
    T = await contributionTargets(t.db.prisma);
  });
  afterAll(() => t.close());

  const reportCount = () => t.db.prisma.report.count();
  /** A fresh merchant for each test, so the one-report rule does not get in the way. */
  const nextMerchant = () => T.merchants[n++ % T.merchants.length]!;
  const post = (auth: Record<string, string>, body: unknown) =>
    request(t.app).post('/api/v1/reports').set(auth).set('Content-Type', 'application/json').send(JSON.stringify(body));

  describe('with a bearer key', () => {
    let agent: { id: string };
    let auth: Record<string, string>;
    beforeAll(async () => {
      agent = T.agents[0]!;
      ({ auth } = await accountWithKey(t, 'bearer@example.org', agent.id));
    });

    it('creates a pending report: 201 with id, status, reviewUrl, updatedAt and unchanged false', async () => {
      const merchant = nextMerchant();
      const body = { adId: merchant.id, agentId: agent.id, privacy: true, capabilityResults: { ACCESS: 'WORKS', SEARCH: 'WORKS' }, stage: 'DETAILS' };
      const res = await post(auth, body).expect(201);
      expect(res.body).toEqual({
        id: expect.any(String),
        status: 'PENDING',
        reviewUrl: `${TEST_BASE_URL}/reports/${res.body.id}/review`,
        updatedAt: expect.stringMatching(/Z$/),
        unchanged: false,
        url: `${TEST_BASE_URL}/api/v1/automation/reports/${res.body.id}`,
        methodology: `${TEST_BASE_URL}/how-it-works`,
        disclaimer: expect.stringContaining('Community-reported'),
      });
      expect(res.headers['cache-control']).toBe('no-store');
      // The API resource is where a key reads it; the version is its ETag (the If-Match of a PUT).
      expect(res.headers.location).toBe(res.body.url);
      expect(res.headers.etag).toBe(`"${res.body.updatedAt}"`);
      const row = await t.db.prisma.report.findUniqueOrThrow({ where: { id: res.body.id } });
      expect(row).toMatchObject({ status: 'PENDING', outcome: 'WORKS', outcomeSupplied: false, channel: 'AGENT_KEY', merchantId: merchant.id });
      expect(row.updatedAt.toISOString()).toBe(res.body.updatedAt);
      // Not public until approved.
      await request(t.app).get(`/api/v1/reports/${res.body.id}`).expect(404);

      // An identical resubmission: 200, unchanged, status kept, nothing written.
      const again = await post(auth, body).expect(200);
      expect(again.body).toMatchObject({ id: res.body.id, status: 'PENDING', unchanged: true, updatedAt: res.body.updatedAt });
      // Key order and explicit defaults do not make a body different.
      await post(auth, { stage: 'DETAILS', capabilityResults: { SEARCH: 'WORKS', ACCESS: 'WORKS' }, privacy: true, agentId: agent.id, adId: merchant.id }).expect(200);

      // A changed one: 409 pointing at PUT.
      const changed = await post(auth, { ...body, stage: 'CART' }).expect(409);
      expect(changed.headers['content-type']).toMatch(PROBLEM);
      expect(changed.body).toMatchObject({
        type: `${TEST_BASE_URL}/problems/duplicate-report`,
        reportId: res.body.id,
        updatedAt: res.body.updatedAt,
        updateUrl: `${TEST_BASE_URL}/api/v1/automation/reports/${res.body.id}`,
      });
      expect(changed.body.detail).toContain(`PUT /api/v1/automation/reports/${res.body.id}`);
      expect((await t.db.prisma.report.findUniqueOrThrow({ where: { id: res.body.id } })).stage).toBe('DETAILS');
    });

    it('keeps the moderation status on an identical resubmission', async () => {
      const merchant = nextMerchant();
      const body = { adId: merchant.id, agentId: agent.id, privacy: true, outcome: 'BLOCKED', failureReason: 'CAPTCHA' };
      const { body: created } = await post(auth, body).expect(201);
      await t.db.prisma.report.update({ where: { id: created.id }, data: { status: 'APPROVED' } });
      const again = await post(auth, body).expect(200);
      expect(again.body).toMatchObject({ id: created.id, status: 'APPROVED', unchanged: true });
    });

    it.each([
      [{ ACCESS: 'WORKS', CART: 'WORKS' }, 'WORKS'],
      [{ ACCESS: 'WORKS', CART: 'BLOCKED' }, 'PARTIAL'],
      [{ ACCESS: 'UNSURE', LOGIN: 'UNSURE' }, 'UNSURE'],
      [{ ACCESS: 'UNSURE', LOGIN: 'WORKS' }, 'PARTIAL'],
      [{ CHECKOUT: 'DOES_NOT_WORK' }, 'DOES_NOT_WORK'],
    ])('derives the overall outcome of %j as %s', async (capabilityResults, outcome) => {
      const res = await post(auth, { adId: nextMerchant().id, agentId: agent.id, privacy: true, capabilityResults }).expect(201);
      expect((await t.db.prisma.report.findUniqueOrThrow({ where: { id: res.body.id } })).outcome).toBe(outcome);
    });

    it('keeps a supplied overall outcome', async () => {
      const res = await post(auth, { adId: nextMerchant().id, agentId: agent.id, privacy: true, capabilityResults: { ACCESS: 'WORKS' }, outcome: 'PARTIAL' }).expect(201);
      expect((await t.db.prisma.report.findUniqueOrThrow({ where: { id: res.body.id } })).outcome).toBe('PARTIAL');
    });

    it('answers 403 for an agent other than the key\'s, writing nothing', async () => {
      const before = await reportCount();
      const res = await post(auth, { adId: nextMerchant().id, agentId: T.agents[1]!.id, privacy: true, outcome: 'WORKS' }).expect(403);
      expect(res.body).toMatchObject({ type: `${TEST_BASE_URL}/problems/agent-mismatch` });
      expect(res.body.detail).toMatch(/do not retry/i);
      expect(await reportCount()).toBe(before);
    });

    it('makes exactly one report from 20 concurrent identical POSTs', async () => {
      const merchant = nextMerchant();
      const body = { adId: merchant.id, agentId: agent.id, privacy: true, outcome: 'WORKS', stage: 'PURCHASE' };
      const results = await Promise.all(Array.from({ length: 20 }, () => post(auth, body)));
      const statuses = results.map((r) => r.status).sort();
      expect(statuses.filter((s) => s === 201)).toHaveLength(1);
      expect(statuses.filter((s) => s === 200)).toHaveLength(19);
      expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
      expect(await t.db.prisma.report.count({ where: { merchantId: merchant.id, agentId: agent.id, account: { email: 'bearer@example.org' } } })).toBe(1);
    });

    it('answers 413 above 16,384 bytes and accepts exactly 16,384', async () => {
      const base = { adId: nextMerchant().id, agentId: agent.id, privacy: true, outcome: 'WORKS', experience: '' };
      const sized = (size: number) => {
        const text = JSON.stringify(base);
        return JSON.stringify({ ...base, experience: 'x'.repeat(size - text.length) });
      };
      expect(Buffer.byteLength(sized(16_384))).toBe(16_384);
      const send = (text: string) => request(t.app).post('/api/v1/reports').set(auth).set('Content-Type', 'application/json').send(text);
      // experience is capped at 4,000 characters, so the 16,384-byte body is refused for that, not for its size.
      const atLimit = await send(sized(16_384)).expect(400);
      expect(atLimit.body.errors[0].pointer).toBe('#/experience');
      const tooLarge = await send(sized(16_385)).expect(413);
      expect(tooLarge.headers['content-type']).toMatch(PROBLEM);
      // A valid body of exactly 16,384 bytes, padded with JSON whitespace.
      const valid = JSON.stringify({ ...base, experience: 'fits' });
      await send(valid + ' '.repeat(16_384 - Buffer.byteLength(valid))).expect(201);
    });

    it('answers 415 for a body that is not application/json', async () => {
      const before = await reportCount();
      await request(t.app).post('/api/v1/reports').set(auth).set('Content-Type', 'text/plain').send('{}').expect(415);
      await request(t.app).post('/api/v1/reports').set(auth).type('form').send({ adId: 'x' }).expect(415);
      expect(await reportCount()).toBe(before);
    });

    it('answers 400 for malformed JSON', async () => {
      await request(t.app).post('/api/v1/reports').set(auth).set('Content-Type', 'application/json').send('{"adId":').expect(400);
    });

    it('refuses a key in the query string', async () => {
      const key = auth.Authorization!.slice('Bearer '.length);
      const res = await request(t.app).post(`/api/v1/reports?key=${key}`).set('Content-Type', 'application/json').send('{}').expect(400);
      expect(res.body.type).toBe(`${TEST_BASE_URL}/problems/key-in-query`);
      expect(res.text).not.toContain(key);
    });

    it('answers 401 without a usable key', async () => {
      const res = await post({ Authorization: 'Bearer acd_not-a-real-key' }, { outcome: 'WORKS' }).expect(401);
      expect(res.body.detail).toMatch(/stop|do not retry/i);
    });
  });

  describe('validation', () => {
    let agentId: string;
    let auth: Record<string, string>;
    beforeAll(async () => {
      agentId = T.agents[2]!.id;
      ({ auth } = await accountWithKey(t, 'validation@example.org', agentId));
    });
    const valid = () => ({ adId: nextMerchant().id, agentId, privacy: true, outcome: 'WORKS' });

    it.each<[string, (b: Record<string, unknown>) => Record<string, unknown>, string]>([
      ['adId missing', ({ adId: _a, ...b }) => b, '#/adId'],
      ['adId not an id', (b) => ({ ...b, adId: 'shop' }), '#/adId'],
      ['adId unknown', (b) => ({ ...b, adId: '00000000-0000-7000-8000-000000000000' }), '#/adId'],
      ['agentId missing', ({ agentId: _a, ...b }) => b, '#/agentId'],
      ['privacy missing', ({ privacy: _p, ...b }) => b, '#/privacy'],
      ['privacy false', (b) => ({ ...b, privacy: false }), '#/privacy'],
      ['no result at all', ({ outcome: _o, ...b }) => b, '#/outcome'],
      ['empty capabilityResults only', ({ outcome: _o, ...b }) => ({ ...b, capabilityResults: {} }), '#/outcome'],
      ['unknown task key', (b) => ({ ...b, capabilityResults: { BROWSING: 'WORKS' } }), '#/capabilityResults/BROWSING'],
      ['unknown outcome key', (b) => ({ ...b, capabilityResults: { CART: 'works' } }), '#/capabilityResults/CART'],
      ['unknown overall outcome', (b) => ({ ...b, outcome: 'GOOD' }), '#/outcome'],
      ['unknown stage', (b) => ({ ...b, stage: 'LANDING' }), '#/stage'],
      ['unknown failure reason', (b) => ({ ...b, failureReason: 'BOTS' }), '#/failureReason'],
      ['experience too long', (b) => ({ ...b, experience: 'x'.repeat(4001) }), '#/experience'],
      ['testedAt not a date', (b) => ({ ...b, testedAt: '22/11/2026' }), '#/testedAt'],
      ['testedAt not a real date', (b) => ({ ...b, testedAt: '2026-02-30' }), '#/testedAt'],
      ['testedAt in the future', (b) => ({ ...b, testedAt: '2026-12-31' }), '#/testedAt'],
      ['agentVersion too long', (b) => ({ ...b, agentVersion: 'v'.repeat(101) }), '#/agentVersion'],
      ['region too long', (b) => ({ ...b, region: 'r'.repeat(101) }), '#/region'],
      ['agentVersion "unknown" (left out when not known)', (b) => ({ ...b, agentVersion: 'Unknown' }), '#/agentVersion'],
      ['region "n/a" (left out when not known)', (b) => ({ ...b, region: 'n/a' }), '#/region'],
      ['task too long', (b) => ({ ...b, task: 't'.repeat(501) }), '#/task'],
      ['humanIntervention not a boolean', (b) => ({ ...b, humanIntervention: 'yes' }), '#/humanIntervention'],
      ['client-supplied authorId', (b) => ({ ...b, authorId: 'me' }), '#/authorId'],
      ['client-supplied status', (b) => ({ ...b, status: 'APPROVED' }), '#/status'],
      ['client-supplied userId', (b) => ({ ...b, userId: 'me' }), '#/userId'],
    ])('refuses %s with a 400 naming %s, writing nothing', async (_name, change, pointer) => {
      const before = await reportCount();
      const res = await post(auth, change(valid())).expect(400);
      expect(res.headers['content-type']).toMatch(PROBLEM);
      expect(res.body.errors.map((e: { pointer: string }) => e.pointer)).toContain(pointer);
      expect(await reportCount()).toBe(before);
    });

    it('explains the three privacy conditions', async () => {
      const res = await post(auth, { ...valid(), privacy: false }).expect(400);
      const detail = res.body.errors[0].detail as string;
      expect(detail).toMatch(/private or payment data/);
      expect(detail).toMatch(/authorized test/);
      expect(detail).toMatch(/bypass/);
    });

    it('refuses an inactive agent and a hidden merchant', async () => {
      const { auth: inactiveAuth } = await accountWithKey(t, 'inactive-agent@example.org', agentId);
      const hidden = await post(inactiveAuth, { ...valid(), adId: T.hidden.id }).expect(400);
      expect(hidden.body.errors[0].pointer).toBe('#/adId');
      const other = await post(auth, { ...valid(), agentId: T.inactive.id }).expect(400);
      expect(other.body.errors[0].pointer).toBe('#/agentId');
    });

    it('accepts a test date of today', async () => {
      await post(auth, { ...valid(), testedAt: '2026-11-22' }).expect(201);
    });
  });

  describe('with a browser session', () => {
    const body = () => ({ adId: nextMerchant().id, agentId: T.agents[3]!.id, privacy: true, outcome: 'PARTIAL', stage: 'CART' });

    it('creates a report from our origin: 201 with id, status and reviewUrl', async () => {
      const browser = await signIn(t.app, mailer, 'browser@example.org');
      const res = await browser.post('/api/v1/reports').set('Origin', TEST_BASE_URL).send(body()).expect(201);
      expect(res.body).toEqual({
        id: expect.any(String),
        status: 'PENDING',
        reviewUrl: `${TEST_BASE_URL}/reports/${res.body.id}/review`,
        methodology: `${TEST_BASE_URL}/how-it-works`,
        disclaimer: expect.stringContaining('Community-reported'),
      });
      // A person reads their report on its review page.
      expect(res.headers.location).toBe(res.body.reviewUrl);
      expect((await t.db.prisma.report.findUniqueOrThrow({ where: { id: res.body.id } })).channel).toBe('BROWSER');
    });

    it('answers an identical browser resubmission with 200 unchanged, a changed one with 409', async () => {
      const browser = await signIn(t.app, mailer, 'browser-dup@example.org');
      const b = body();
      const first = await browser.post('/api/v1/reports').set('Origin', TEST_BASE_URL).send(b).expect(201);
      const same = await browser.post('/api/v1/reports').set('Origin', TEST_BASE_URL).send(b).expect(200);
      expect(same.body).toMatchObject({ id: first.body.id, unchanged: true });
      const changed = await browser.post('/api/v1/reports').set('Origin', TEST_BASE_URL).send({ ...b, stage: 'CHECKOUT' }).expect(409);
      expect(changed.body).toMatchObject({ reportId: first.body.id, reviewUrl: first.body.reviewUrl });
    });

    it('needs the Origin header of this site', async () => {
      const browser = await signIn(t.app, mailer, 'origin@example.org');
      const before = await reportCount();
      const missing = await browser.post('/api/v1/reports').send(body()).expect(403);
      expect(missing.body).toMatchObject({ type: `${TEST_BASE_URL}/problems/origin-rejected` });
      await browser.post('/api/v1/reports').set('Origin', 'https://evil.example').send(body()).expect(403);
      expect(await reportCount()).toBe(before);
    });

    it('answers 401 without a session, and 403 for a suspended account', async () => {
      await request(t.app).post('/api/v1/reports').set('Origin', TEST_BASE_URL).send(body()).expect(401);
      const browser = await signIn(t.app, mailer, 'suspended@example.org');
      await t.db.prisma.account.update({ where: { email: 'suspended@example.org' }, data: { suspended: true } });
      const res = await browser.post('/api/v1/reports').set('Origin', TEST_BASE_URL).send(body()).expect(403);
      expect(res.body.type).toBe(`${TEST_BASE_URL}/problems/account-suspended`);
    });
  });
});
