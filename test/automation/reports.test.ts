import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveReport, rejectReport } from '../../src/modules/moderation/moderation.service.js';
import { TEST_BASE_URL, type TestApp, createTestApp } from '../setup/app.js';
import { contributionTargets } from '../factories/index.js';
import { accountWithKey } from '../setup/actors.js';

describe('own reports and conditional updates', () => {
  let t: TestApp;
  let T: Awaited<ReturnType<typeof contributionTargets>>;
  let auth: Record<string, string>;
  let agentId: string;
  let n = 0;
  beforeAll(async () => {
    t = await createTestApp();
    T = await contributionTargets(t.db.prisma);
    agentId = T.agents[0]!.id;
    ({ auth } = await accountWithKey(t, 'automation@example.org', agentId));
  });
  afterAll(() => t.close());

  const body = (merchantId: string, extra: Record<string, unknown> = {}) => ({ adId: merchantId, agentId, privacy: true, outcome: 'WORKS', stage: 'CART', ...extra });
  async function create(extra: Record<string, unknown> = {}) {
    const merchant = T.merchants[n++]!;
    const res = await request(t.app).post('/api/v1/reports').set(auth).send(body(merchant.id, extra)).expect(201);
    return { id: res.body.id as string, updatedAt: res.body.updatedAt as string, merchant };
  }
  const put = (id: string, payload: unknown, ifMatch?: string) => {
    const req = request(t.app).put(`/api/v1/automation/reports/${id}`).set(auth);
    return (ifMatch === undefined ? req : req.set('If-Match', ifMatch)).send(payload as object);
  };

  describe('GET /api/v1/automation/reports', () => {
    it('lists the account\'s own reports with pending/rejected status and feedback, never notes or others\' reports', async () => {
      const pending = await create();
      const rejected = await create();
      await rejectReport(t.db.prisma, { reportId: rejected.id, actorId: null, feedback: 'Screens show another shop', note: 'PRIVATE NOTE', now: t.clock.now() });
      const { auth: otherAuth } = await accountWithKey(t, 'someone@example.org', agentId);
      const foreign = await request(t.app).post('/api/v1/reports').set(otherAuth).send(body(T.merchants[29]!.id)).expect(201);

      const res = await request(t.app).get('/api/v1/automation/reports').set(auth).expect(200);
      expect(res.headers['cache-control']).toBe('no-store');
      const ids = res.body.items.map((r: { id: string }) => r.id);
      expect(ids).toContain(pending.id);
      expect(ids).not.toContain(foreign.body.id);
      const r = res.body.items.find((x: { id: string }) => x.id === rejected.id);
      expect(r).toMatchObject({ status: 'REJECTED', moderationFeedback: 'Screens show another shop', reviewUrl: `${TEST_BASE_URL}/reports/${rejected.id}/review` });
      expect(r.updatedAt).toEqual(expect.any(String));
      expect(res.text).not.toContain('PRIVATE NOTE');
      expect(res.text).not.toContain('someone@example.org');
    });

    it('pages with a cursor and filters by merchant', async () => {
      for (let i = 0; i < 3; i++) await create();
      const all = (await request(t.app).get('/api/v1/automation/reports?limit=50').set(auth).expect(200)).body.items;
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const res: request.Response = await request(t.app)
          .get(`/api/v1/automation/reports?limit=2${cursor ? `&after=${encodeURIComponent(cursor)}` : ''}`)
          .set(auth)
          .expect(200);
        seen.push(...res.body.items.map((r: { id: string }) => r.id));
        cursor = res.body.nextCursor;
      } while (cursor);
      expect(seen).toEqual(all.map((r: { id: string }) => r.id));
      const one = all[0];
      const filtered = (await request(t.app).get(`/api/v1/automation/reports?merchant=${one.merchant.id}`).set(auth).expect(200)).body.items;
      expect(filtered.map((r: { id: string }) => r.id)).toEqual([one.id]);
      await request(t.app).get('/api/v1/automation/reports?merchant=nope').set(auth).expect(400);
    });

    it('sends the version as the ETag of a single read', async () => {
      const created = await create();
      const res = await request(t.app).get(`/api/v1/automation/reports/${created.id}`).set(auth).expect(200);
      expect(res.headers.etag).toBe(`"${created.updatedAt}"`);
    });
  });

  describe('PUT /api/v1/automation/reports/:id', () => {
    it('answers 428 without If-Match', async () => {
      const created = await create();
      const res = await put(created.id, body(created.merchant.id, { stage: 'CHECKOUT' })).expect(428);
      expect(res.body.type).toBe(`${TEST_BASE_URL}/problems/if-match-required`);
    });

    it('answers 409 with the current updatedAt for a stale version, writing nothing', async () => {
      const created = await create();
      const res = await put(created.id, body(created.merchant.id, { stage: 'CHECKOUT' }), '2026-01-01T00:00:00.000Z').expect(409);
      expect(res.body).toMatchObject({ type: `${TEST_BASE_URL}/problems/stale-version`, updatedAt: created.updatedAt });
      expect((await t.db.prisma.report.findUniqueOrThrow({ where: { id: created.id } })).stage).toBe('CART');
    });

    it('answers 404 for another account\'s report and for an unknown id', async () => {
      const { auth: otherAuth } = await accountWithKey(t, 'other-owner@example.org', agentId);
      const theirs = await request(t.app).post('/api/v1/reports').set(otherAuth).send(body(T.merchants[28]!.id)).expect(201);
      await put(theirs.body.id, body(T.merchants[28]!.id, { stage: 'CHECKOUT' }), theirs.body.updatedAt).expect(404);
      await put('00000000-0000-7000-8000-000000000000', body(T.merchants[28]!.id), '"x"').expect(404);
    });

    it('answers 400 when the merchant or agent would change, or the body is invalid', async () => {
      const created = await create();
      const merchant = await put(created.id, body(T.merchants[27]!.id), created.updatedAt).expect(400);
      expect(merchant.body.errors[0].pointer).toBe('#/adId');
      const agent = await put(created.id, { ...body(created.merchant.id), agentId: T.agents[1]!.id }, created.updatedAt).expect(400);
      expect(agent.body.errors[0].pointer).toBe('#/agentId');
      await put(created.id, { ...body(created.merchant.id), privacy: false }, created.updatedAt).expect(400);
      await put(created.id, { ...body(created.merchant.id), status: 'APPROVED' }, created.updatedAt).expect(400);
    });

    it('sends a changed approved report back to PENDING and out of the public summary, keeping screenshots', async () => {
      const created = await create();
      await approveReport(t.db.prisma, { reportId: created.id, actorId: null, now: t.clock.now() });
      await t.db.prisma.screenshotEvidence.create({
        data: { reportId: created.id, storagePath: `/tmp/acd-test-${created.id}.png`, mediaType: 'image/png', sizeBytes: 1, sha256: 'x' },
      });
      const countFor = async () => {
        const page = (await request(t.app).get(`/api/v1/merchants/${created.merchant.slug}`).expect(200)).body.data;
        return page.agents.find((a: { agent: { id: string } }) => a.agent.id === agentId).counts.total as number;
      };
      const before = await countFor();
      const current = (await request(t.app).get(`/api/v1/automation/reports/${created.id}`).set(auth).expect(200)).headers.etag!;
      t.clock.advance(1000);
      const res = await put(created.id, body(created.merchant.id, { stage: 'CHECKOUT', experience: 'Got further this time' }), current).expect(200);
      expect(res.body).toEqual({
        id: created.id,
        status: 'PENDING',
        updatedAt: expect.any(String),
        unchanged: false,
        url: `${TEST_BASE_URL}/api/v1/automation/reports/${created.id}`,
        methodology: `${TEST_BASE_URL}/how-it-works`,
        disclaimer: expect.stringContaining('Community-reported'),
      });
      expect(res.body.updatedAt).not.toBe(created.updatedAt);
      // The new version is the ETag, the If-Match of the next PUT.
      expect(res.headers.etag).toBe(`"${res.body.updatedAt}"`);
      expect(await countFor()).toBe(before - 1);
      const row = await t.db.prisma.report.findUniqueOrThrow({ where: { id: created.id }, include: { evidence: true, revisions: true } });
      expect(row).toMatchObject({ status: 'PENDING', stage: 'CHECKOUT', experience: 'Got further this time' });
      expect(row.evidence).toHaveLength(1);
      expect(row.revisions).toHaveLength(1);
      expect(row.revisions[0]!.content).toMatchObject({ stage: 'CART' });
    });

    it('writes nothing for identical content and keeps the status', async () => {
      const created = await create();
      await approveReport(t.db.prisma, { reportId: created.id, actorId: null, now: t.clock.now() });
      const version = (await t.db.prisma.report.findUniqueOrThrow({ where: { id: created.id } })).updatedAt.toISOString();
      const res = await put(created.id, body(created.merchant.id), `"${version}"`).expect(200);
      expect(res.body).toEqual({
        id: created.id,
        status: 'APPROVED',
        updatedAt: version,
        unchanged: true,
        url: `${TEST_BASE_URL}/api/v1/automation/reports/${created.id}`,
        methodology: `${TEST_BASE_URL}/how-it-works`,
        disclaimer: expect.stringContaining('Community-reported'),
      });
      expect(res.headers.etag).toBe(`"${version}"`);
      expect((await t.db.prisma.report.findUniqueOrThrow({ where: { id: created.id } })).updatedAt.toISOString()).toBe(version);
    });

    it('reads If-Match as RFC 9110 does: * matches the current version, a list matches when any member does, a weak tag never does', async () => {
      const stage = (id: string) => t.db.prisma.report.findUniqueOrThrow({ where: { id } }).then((r) => r.stage);
      const star = await create();
      const starred = await put(star.id, body(star.merchant.id, { stage: 'CHECKOUT' }), '*').expect(200);
      expect(starred.body).toMatchObject({ unchanged: false, status: 'PENDING' });
      expect(await stage(star.id)).toBe('CHECKOUT');

      const listed = await create();
      await put(listed.id, body(listed.merchant.id, { stage: 'CHECKOUT' }), `"2026-01-01T00:00:00.000Z", "${listed.updatedAt}"`).expect(200);
      expect(await stage(listed.id)).toBe('CHECKOUT');

      const unlisted = await create();
      const stale = await put(unlisted.id, body(unlisted.merchant.id, { stage: 'CHECKOUT' }), '"2026-01-01T00:00:00.000Z", "abc"').expect(409);
      expect(stale.body).toMatchObject({ type: `${TEST_BASE_URL}/problems/stale-version`, updatedAt: unlisted.updatedAt });

      const weak = await put(unlisted.id, body(unlisted.merchant.id, { stage: 'CHECKOUT' }), `W/"${unlisted.updatedAt}"`).expect(409);
      expect(weak.body.detail).toContain('weak tag');
      expect(weak.body.updatedAt).toBe(unlisted.updatedAt);
      expect(await stage(unlisted.id)).toBe('CART');

      // Quoted as the ETag gives it, or bare as the JSON body gives it.
      const quoted = await put(unlisted.id, body(unlisted.merchant.id, { stage: 'SHIPPING' }), `"${unlisted.updatedAt}"`).expect(200);
      await put(unlisted.id, body(unlisted.merchant.id, { stage: 'CHECKOUT' }), quoted.body.updatedAt).expect(200);
    });

    it('answers 400 naming the format for a malformed If-Match, and 428 for an empty one, writing nothing', async () => {
      const created = await create();
      for (const header of ['x', '"unterminated', `${created.updatedAt}, ${created.updatedAt}`, `"${created.updatedAt}" junk`, '**', 'W/x']) {
        const res = await put(created.id, body(created.merchant.id, { stage: 'CHECKOUT' }), header).expect(400);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(res.body.errors, header).toEqual([{ parameter: 'If-Match', detail: expect.stringContaining('entity tag') }]);
      }
      await put(created.id, body(created.merchant.id, { stage: 'CHECKOUT' }), ' ').expect(428);
      const row = await t.db.prisma.report.findUniqueOrThrow({ where: { id: created.id } });
      expect([row.stage, row.updatedAt.toISOString()]).toEqual(['CART', created.updatedAt]);
    });

    it('lets exactly one of two concurrent PUTs with the same version succeed', async () => {
      const created = await create();
      const [a, b] = await Promise.all([
        put(created.id, body(created.merchant.id, { stage: 'CHECKOUT' }), created.updatedAt),
        put(created.id, body(created.merchant.id, { stage: 'SHIPPING' }), created.updatedAt),
      ]);
      expect([a.status, b.status].sort()).toEqual([200, 409]);
      const row = await t.db.prisma.report.findUniqueOrThrow({ where: { id: created.id }, include: { revisions: true } });
      expect(row.revisions).toHaveLength(1);
      const winner = a.status === 200 ? 'CHECKOUT' : 'SHIPPING';
      expect(row.stage).toBe(winner);
    });
  });
});

describe('changed updates count toward the agent submission limit', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { LIMIT_AGENT_SUBMISSIONS_PER_HOUR: '2' } });
  });
  afterAll(() => t.close());

  it('counts a changed PUT but not an unchanged one', async () => {
    const T = await contributionTargets(t.db.prisma);
    const agentId = T.agents[0]!.id;
    const { auth } = await accountWithKey(t, 'put-limit@example.org', agentId);
    const b = { adId: T.merchants[0]!.id, agentId, privacy: true, outcome: 'WORKS' };
    const created = (await request(t.app).post('/api/v1/reports').set(auth).send(b).expect(201)).body;
    const unchanged = await request(t.app).put(`/api/v1/automation/reports/${created.id}`).set(auth).set('If-Match', created.updatedAt).send(b).expect(200);
    expect(unchanged.body.unchanged).toBe(true);
    const changed = await request(t.app).put(`/api/v1/automation/reports/${created.id}`).set(auth).set('If-Match', created.updatedAt).send({ ...b, outcome: 'PARTIAL' }).expect(200);
    const limited = await request(t.app).put(`/api/v1/automation/reports/${created.id}`).set(auth).set('If-Match', changed.body.updatedAt).send({ ...b, outcome: 'BLOCKED' }).expect(429);
    expect(limited.headers['retry-after']).toBeDefined();
    expect((await t.db.prisma.report.findUniqueOrThrow({ where: { id: created.id } })).outcome).toBe('PARTIAL');
  });
});
