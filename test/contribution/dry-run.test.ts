// POST /api/v1/reports/validate: the dry run of a submission. It answers what the POST would
// (the normalized report, or the very same problem), writes nothing, leaves the submission quota
// alone and counts against the private request budget like any key request.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contributionTargets } from '../factories/index.js';
import { accountWithKey } from '../setup/actors.js';
import { createTestApp, TEST_BASE_URL, type TestApp } from '../setup/app.js';
import { captureMailer, signIn } from '../setup/session.js';

/** The remaining count of one policy in a RateLimit header. */
const remaining = (res: request.Response, policy: string): number | undefined => {
  const m = new RegExp(`"${policy}"; r=(\\d+)`).exec(String(res.headers.ratelimit ?? ''));
  return m ? Number(m[1]) : undefined;
};

/** A problem without what differs per request. */
const problemOf = (res: request.Response) => {
  const { instance: _instance, ...rest } = res.body as Record<string, unknown>;
  return { status: res.status, type: res.headers['content-type'], body: rest };
};

describe('POST /api/v1/reports/validate', () => {
  let t: TestApp;
  let T: Awaited<ReturnType<typeof contributionTargets>>;
  let agentId: string;
  let auth: Record<string, string>;
  let accountId: string;
  const mailer = captureMailer();
  beforeAll(async () => {
    t = await createTestApp({ mailer, env: { LIMIT_PRIVATE_PER_MINUTE: '1000', LIMIT_AGENT_SUBMISSIONS_PER_HOUR: '50' } });
    T = await contributionTargets(t.db.prisma, 8);
    agentId = T.agents[0]!.id;
    ({ auth, account: { id: accountId } } = await accountWithKey(t, 'dry-run@example.org', agentId));
  });
  afterAll(() => t.close());

  const validate = (body: unknown, headers = auth) => request(t.app).post('/api/v1/reports/validate').set(headers).send(body as object);
  const submit = (body: unknown, headers = auth) => request(t.app).post('/api/v1/reports').set(headers).send(body as object);
  const rows = () => Promise.all([t.db.prisma.report.count(), t.db.prisma.reportRevision.count()]);
  const quota = async () =>
    ((await request(t.app).get('/api/v1/automation/me').set(auth).expect(200)).body.limits as Array<{ name: string; remaining: number }>).find(
      (l) => l.name === 'agent-submissions',
    )!.remaining;

  it('answers a valid body with the normalized report and wouldBe created, writing nothing', async () => {
    const merchant = T.merchants[0]!;
    const body = {
      adId: merchant.id,
      agentId,
      privacy: true,
      capabilityResults: { CART: 'BLOCKED', ACCESS: 'WORKS', SEARCH: 'WORKS' },
      stage: 'CART',
      failureReason: 'CAPTCHA',
      testedAt: '2026-11-21',
    };
    const before = await rows();
    const quotaBefore = await quota();
    const res = await validate(body).expect(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({
      valid: true,
      wouldBe: 'created',
      submitStatus: 201,
      notes: ['outcome is derived from capabilityResults: PARTIAL.'],
      report: {
        adId: merchant.id,
        agentId,
        privacy: true,
        capabilityResults: { ACCESS: 'WORKS', SEARCH: 'WORKS', CART: 'BLOCKED' },
        outcome: 'PARTIAL',
        outcomeDerived: true,
        stage: 'CART',
        failureReason: 'CAPTCHA',
        humanIntervention: null,
        testedAt: '2026-11-21',
        agentVersion: null,
        region: null,
        task: null,
        experience: null,
      },
      methodology: `${TEST_BASE_URL}/how-it-works`,
      disclaimer: expect.stringContaining('Community-reported'),
    });
    expect(await rows()).toEqual(before);
    expect(await quota()).toBe(quotaBefore);

    // The real submission then stores exactly that report, and reads it back the same way.
    const created = await submit(body).expect(201);
    const read = await request(t.app).get(`/api/v1/automation/reports/${created.body.id}`).set(auth).expect(200);
    const { outcomeDerived: _derived, ...stored } = res.body.report;
    expect(read.body).toMatchObject(stored);

    // Now the identical body: wouldBe unchanged (the POST answers 200 unchanged), naming the report.
    const again = await validate(body).expect(200);
    expect(again.body).toMatchObject({
      wouldBe: 'unchanged',
      submitStatus: 200,
      existingReport: { id: created.body.id, status: 'PENDING', updatedAt: created.body.updatedAt, reviewUrl: created.body.reviewUrl },
    });
    expect((await submit(body).expect(200)).body.unchanged).toBe(true);
  });

  it('refuses exactly as the POST does: the same status and problem, for every refusal', async () => {
    const merchant = T.merchants[1]!;
    const good = { adId: merchant.id, agentId, privacy: true, outcome: 'WORKS' };
    await submit(good).expect(201);
    const cases: Array<[string, unknown, number]> = [
      ['invalid fields', { ...good, outcome: 'GREAT', privacy: false, status: 'APPROVED' }, 400],
      ['no result', { adId: merchant.id, agentId, privacy: true }, 400],
      ['a hidden merchant', { ...good, adId: T.hidden.id }, 400],
      ['an inactive agent', { ...good, agentId: T.inactive.id }, 400],
      ['a future test date', { ...good, testedAt: '2026-12-31' }, 400],
      ["another agent than the key's", { ...good, agentId: T.agents[1]!.id }, 403],
      ['a different report of the same merchant (duplicate)', { ...good, outcome: 'BLOCKED' }, 409],
    ];
    for (const [what, body, status] of cases) {
      const before = await rows();
      const quotaBefore = await quota();
      const dry = await validate(body);
      const real = await submit(body);
      expect(dry.status, what).toBe(status);
      expect(problemOf(dry), what).toEqual(problemOf(real));
      expect(await rows(), what).toEqual(before);
      expect(await quota(), what).toBe(quotaBefore);
    }
    // Unreadable bodies too: not JSON, and too large.
    const raw = (path: string, type: string, text: string) => request(t.app).post(path).set(auth).set('Content-Type', type).send(text);
    for (const [type, text] of [
      ['text/plain', 'hello'],
      ['application/json', '{"adId":'],
      ['application/json', JSON.stringify({ ...good, experience: 'x'.repeat(20_000) })],
    ] as const) {
      const dry = await raw('/api/v1/reports/validate', type, text);
      const real = await raw('/api/v1/reports', type, text);
      expect(problemOf(dry)).toEqual(problemOf(real));
    }
  });

  it('counts against the private request budget (RateLimit headers), never against agent-submissions', async () => {
    const body = { adId: T.merchants[2]!.id, agentId, privacy: true, outcome: 'WORKS' };
    const first = await validate(body).expect(200);
    const second = await validate(body).expect(200);
    expect(first.headers['ratelimit-policy']).toContain('"private:account"');
    expect(first.headers['ratelimit-policy']).not.toContain('agent-submissions');
    expect(remaining(second, 'private:account')).toBe(remaining(first, 'private:account')! - 1);
    expect(remaining(second, 'private:address')).toBe(remaining(first, 'private:address')! - 1);
    expect(await t.db.prisma.report.count({ where: { accountId, merchantId: T.merchants[2]!.id } })).toBe(0);
  });

  it('needs a key or a signed-in session, as the POST does; with a session it answers the same', async () => {
    const body = { adId: T.merchants[3]!.id, agentId, privacy: true, outcome: 'WORKS' };
    const anonymous = await request(t.app).post('/api/v1/reports/validate').send(body);
    expect(anonymous.status).toBe(401);
    expect(problemOf(anonymous)).toEqual(problemOf(await request(t.app).post('/api/v1/reports').send(body)));
    const browser = await signIn(t.app, mailer, 'dry-run-person@example.org');
    const res = await browser.post('/api/v1/reports/validate').set('Origin', TEST_BASE_URL).send(body).expect(200);
    expect(res.body).toMatchObject({ valid: true, wouldBe: 'created', report: { outcome: 'WORKS', outcomeDerived: false } });
    expect(await t.db.prisma.report.count({ where: { merchantId: T.merchants[3]!.id } })).toBe(0);
  });
});
