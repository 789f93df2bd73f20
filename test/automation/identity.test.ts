// How an agent learns who it is, and reads its reports in the shape it writes them.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aCategory, aMerchant, anAgent } from '../factories/index.js';
import { accountWithKey } from '../setup/actors.js';
import { createTestApp, TEST_BASE_URL, type TestApp } from '../setup/app.js';

describe('agent identity and the own-report shape', () => {
  let t: TestApp;
  let agent: Awaited<ReturnType<typeof anAgent>>;
  let merchants: Array<Awaited<ReturnType<typeof aMerchant>>>;
  let category: Awaited<ReturnType<typeof aCategory>>;
  let auth: Record<string, string>;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp({ env: { LIMIT_AGENT_SUBMISSIONS_PER_HOUR: '5', LIMIT_PRIVATE_PER_MINUTE: '50' } });
    agent = await anAgent(t.db.prisma, { name: 'Basket Bot', slug: 'basket-bot' });
    category = await aCategory(t.db.prisma, { name: 'Garden Things', slug: 'garden-things' });
    merchants = [];
    for (let i = 0; i < 4; i += 1) merchants.push(await aMerchant(t.db.prisma, { categoryId: category.id }));
    ({ auth, key } = await accountWithKey(t, 'Identity@Example.org', agent.id));
  });
  afterAll(() => t.close());

  describe('GET /api/v1/automation/me', () => {
    it("names the key's agent, the key (never its secret), no e-mail, and every limit with what remains", async () => {
      const res = await request(t.app).get('/api/v1/automation/me').set(auth).expect(200);
      expect(res.headers['cache-control']).toBe('no-store');
      const row = await t.db.prisma.agentKey.findFirstOrThrow({ where: { agentId: agent.id } });
      expect(res.body).toEqual({
        agent: { id: agent.id, slug: 'basket-bot', name: 'Basket Bot' },
        account: { handle: null },
        key: { id: row.id, prefix: row.displayPrefix, createdAt: row.createdAt.toISOString(), expiresAt: row.expiresAt.toISOString() },
        limits: [
          { name: 'private:address', limit: expect.any(Number), windowSeconds: 60, remaining: expect.any(Number), resetSeconds: expect.any(Number) },
          { name: 'private:account', limit: 50, windowSeconds: 60, remaining: 49, resetSeconds: expect.any(Number) },
          { name: 'agent-submissions', limit: 5, windowSeconds: 3600, remaining: 5, resetSeconds: 3600 },
        ],
        methodology: `${TEST_BASE_URL}/how-it-works`,
        disclaimer: expect.stringContaining('Community-reported'),
      });
      const text = JSON.stringify(res.body);
      expect(text).not.toContain('identity@example.org');
      expect(text).not.toContain(key);
      expect(text).not.toContain(row.accountId);
    });

    it('counts changed submissions in what remains, without counting itself', async () => {
      await request(t.app).post('/api/v1/reports').set(auth).send({ adId: merchants[3]!.id, agentId: agent.id, privacy: true, outcome: 'WORKS' }).expect(201);
      const first = await request(t.app).get('/api/v1/automation/me').set(auth).expect(200);
      const second = await request(t.app).get('/api/v1/automation/me').set(auth).expect(200);
      const submissions = (res: request.Response) => res.body.limits.find((l: { name: string }) => l.name === 'agent-submissions');
      expect(submissions(first).remaining).toBe(4);
      expect(submissions(second).remaining).toBe(4);
    });

    it('needs a key', async () => {
      await request(t.app).get('/api/v1/automation/me').expect(401);
    });
  });

  describe('reading and writing in one shape', () => {
    it('reads a report with the fields it was written with, and PUTting it back as read changes nothing', async () => {
      const written = {
        adId: merchants[0]!.id,
        agentId: agent.id,
        privacy: true,
        capabilityResults: { ACCESS: 'WORKS', CART: 'BLOCKED' },
        testedAt: '2026-11-20',
        region: 'DE',
        agentVersion: '2.1',
        experience: 'Stopped at a puzzle.',
      };
      const created = await request(t.app).post('/api/v1/reports').set(auth).send(written).expect(201);
      const read = await request(t.app).get(created.headers.location!.replace(TEST_BASE_URL, '')).set(auth).expect(200);
      expect(read.body).toMatchObject({
        ...written,
        // Derived from the task results (spec 2.1): mixed results are PARTIAL.
        outcome: 'PARTIAL',
        stage: null,
        failureReason: null,
        humanIntervention: null,
        task: null,
        id: created.body.id,
        status: 'PENDING',
        updatedAt: created.body.updatedAt,
        moderationFeedback: null,
        url: created.body.url,
        merchant: {
          id: merchants[0]!.id,
          slug: merchants[0]!.slug,
          name: merchants[0]!.name,
          url: `${TEST_BASE_URL}/api/v1/merchants/${merchants[0]!.slug}`,
          categoryInfo: { name: 'Garden Things', slug: 'garden-things', url: `${TEST_BASE_URL}/categories/garden-things` },
        },
      });
      expect(read.headers.etag).toBe(`"${created.body.updatedAt}"`);
      expect(created.headers.etag).toBe(read.headers.etag);

      // The body exactly as read, with its ETag quoted or not, is an unchanged no-op.
      for (const ifMatch of [read.headers.etag!, created.body.updatedAt]) {
        const again = await request(t.app).put(`/api/v1/automation/reports/${created.body.id}`).set(auth).set('If-Match', ifMatch).send(read.body).expect(200);
        expect(again.body).toMatchObject({ unchanged: true, status: 'PENDING', updatedAt: created.body.updatedAt });
      }
      expect(await t.db.prisma.reportRevision.count({ where: { reportId: created.body.id } })).toBe(0);

      // One change in what was read is a change.
      const changed = await request(t.app)
        .put(`/api/v1/automation/reports/${created.body.id}`)
        .set(auth)
        .set('If-Match', read.headers.etag!)
        .send({ ...read.body, stage: 'CART' })
        .expect(200);
      expect(changed.body).toMatchObject({ unchanged: false, status: 'PENDING' });
      expect(changed.headers.etag).toBe(`"${changed.body.updatedAt}"`);
    });

    it('refuses a status other than the current one: a client never sets it', async () => {
      const created = await request(t.app)
        .post('/api/v1/reports')
        .set(auth)
        .send({ adId: merchants[1]!.id, agentId: agent.id, privacy: true, outcome: 'WORKS' })
        .expect(201);
      const read = await request(t.app).get(`/api/v1/automation/reports/${created.body.id}`).set(auth).expect(200);
      const res = await request(t.app)
        .put(`/api/v1/automation/reports/${created.body.id}`)
        .set(auth)
        .set('If-Match', read.headers.etag!)
        .send({ ...read.body, status: 'APPROVED', experience: 'changed' })
        .expect(400);
      expect(res.body.errors).toEqual([{ pointer: '#/status', detail: expect.stringContaining('PENDING') }]);
    });

    it('gives the category one shape, categoryInfo, in queue items as on merchant records', async () => {
      const queue = await request(t.app).get('/api/v1/automation/queue').set(auth).expect(200);
      const item = queue.body.items.find((i: { id: string }) => i.id === merchants[2]!.id);
      const merchant = await request(t.app).get(`/api/v1/merchants/${merchants[2]!.slug}`).expect(200);
      expect(item.categoryInfo).toEqual(merchant.body.data.categoryInfo);
      expect(item.categoryInfo).toEqual({ name: 'Garden Things', slug: 'garden-things', url: `${TEST_BASE_URL}/categories/garden-things` });
      // The queue's older category object stays for existing clients.
      expect(item.category).toEqual({ name: 'Garden Things', slug: 'garden-things' });
    });

    it('carries the methodology link and disclaimer on private lists and reports', async () => {
      for (const path of ['/api/v1/automation/queue', '/api/v1/automation/reports']) {
        const res = await request(t.app).get(path).set(auth).expect(200);
        expect(res.body.methodology).toBe(`${TEST_BASE_URL}/how-it-works`);
        expect(res.body.disclaimer).toContain('Community-reported');
      }
    });
  });
});
