import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TASKS } from '../../src/modules/aggregation/constants.js';
import { createDemoApp } from '../setup/demo.js';
import { TEST_BASE_URL, type TestApp } from '../setup/app.js';

const PROBLEM = /^application\/problem\+json/;

describe('public directory endpoints', () => {
  let t: TestApp;
  const api = (path: string) => request(t.app).get(path);
  const sql = <T>(text: string, values: unknown[] = []) =>
    t.db.pool.query(text, values).then((r) => r.rows as [T, ...T[]]);
  beforeAll(async () => {
    t = await createDemoApp();
  });
  afterAll(() => t.close());

  describe('GET /api/v1/categories', () => {
    it('lists canonical categories with URLs and public merchant counts', async () => {
      const res = await api('/api/v1/categories').expect(200);
      const expected = await sql<{ slug: string; n: number }>(
        `SELECT c.slug, count(m.id) FILTER (WHERE m.is_public)::int AS n FROM categories c
           LEFT JOIN merchants m ON m.category_id = c.id GROUP BY c.slug, c.name ORDER BY c.name`,
      );
      expect(res.body).toMatchObject({ total: expected.length, page: 1, pageSize: 24 });
      expect(res.body.data.map((c: { slug: string; merchantCount: number }) => [c.slug, c.merchantCount])).toEqual(
        expected.map((e) => [e.slug, e.n]),
      );
      expect(res.body.data[0]).toMatchObject({
        url: `http://directory.test/categories/${expected[0]!.slug}`,
        merchantsUrl: `http://directory.test/api/v1/merchants?category=${expected[0]!.slug}`,
      });
      expect(res.body.methodology).toBe('http://directory.test/how-it-works');
    });
  });

  describe('GET /api/v1/agents', () => {
    it('lists active agents only, each with its slug', async () => {
      const res = await api('/api/v1/agents').expect(200);
      const active = await sql<{ slug: string }>('SELECT slug FROM agents WHERE active ORDER BY name');
      const inactive = await sql<{ slug: string }>('SELECT slug FROM agents WHERE NOT active');
      expect(inactive.length).toBeGreaterThan(0);
      expect(res.body.data.map((a: { slug: string }) => a.slug)).toEqual(active.map((a) => a.slug));
      expect(res.body.total).toBe(active.length);
    });
  });

  describe('GET /api/v1/merchants/:slugOrId', () => {
    it('answers by slug and by id with a summary for every active agent', async () => {
      const [m] = await sql<{ id: string; slug: string }>(
        `SELECT id, slug FROM merchants WHERE is_public ORDER BY report_count DESC LIMIT 1`,
      );
      const bySlug = await api(`/api/v1/merchants/${m!.slug}`).expect(200);
      const byId = await api(`/api/v1/merchants/${m!.id.toUpperCase()}`).expect(200);
      expect(byId.body).toEqual(bySlug.body);
      const active = await sql<{ slug: string }>('SELECT slug FROM agents WHERE active ORDER BY name');
      const data = bySlug.body.data;
      expect(data.agents.map((a: { agent: { slug: string } }) => a.agent.slug)).toEqual(active.map((a) => a.slug));
      for (const summary of data.agents) expect(Object.keys(summary.capabilities)).toEqual([...TASKS]);
      expect(bySlug.body.methodology).toBe('http://directory.test/how-it-works');
      expect(bySlug.body.disclaimer).toEqual(expect.any(String));
    });

    it('shows an agent without reports as untested, with null dates', async () => {
      const [pair] = await sql<{ slug: string; agent: string }>(
        `SELECT m.slug, a.slug AS agent FROM merchants m CROSS JOIN agents a
          WHERE m.is_public AND a.active
            AND NOT EXISTS (SELECT 1 FROM reports r WHERE r.merchant_id = m.id AND r.agent_id = a.id AND r.status = 'APPROVED')
          LIMIT 1`,
      );
      const res = await api(`/api/v1/merchants/${pair!.slug}`).expect(200);
      const summary = res.body.data.agents.find((a: { agent: { slug: string } }) => a.agent.slug === pair!.agent);
      expect(summary).toMatchObject({
        status: 'untested',
        label: 'Not tested yet',
        lastTestedAt: null,
        lastReportedAt: null,
        latestEvidenceAt: null,
        counts: { total: 0 },
        evidence: [],
      });
    });

    it('shows an owner statement attributed to the owner, with its declaration date, apart from the evidence', async () => {
      const [owner] = await sql<{ slug: string; declared_at: Date }>(
        `SELECT m.slug, o.declared_at FROM owner_statements o JOIN merchants m ON m.id = o.merchant_id WHERE m.is_public LIMIT 1`,
      );
      const res = await api(`/api/v1/merchants/${owner!.slug}`).expect(200);
      expect(res.body.data.ownerCompatibility).toMatchObject({
        statement: expect.any(String),
        taskClaims: expect.any(Object),
        declaredAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
        attribution: expect.stringMatching(/business owner.*not community evidence/i),
      });
      expect(res.body.data.ownerCompatibility).not.toHaveProperty('testedAt');
    });

    it.each([['no-such-merchant'], ['00000000-0000-7000-8000-000000000000']])('answers %s with a 404 problem', async (key) => {
      const res = await api(`/api/v1/merchants/${key}`).expect(404);
      expect(res.headers['content-type']).toMatch(PROBLEM);
      expect(res.body).toMatchObject({ type: `${TEST_BASE_URL}/problems/not-found`, status: 404 });
    });

    it('answers a hidden merchant with 404, by slug and by id', async () => {
      const [hidden] = await sql<{ id: string; slug: string }>('SELECT id, slug FROM merchants WHERE NOT is_public LIMIT 1');
      await api(`/api/v1/merchants/${hidden!.slug}`).expect(404);
      await api(`/api/v1/merchants/${hidden!.id}`).expect(404);
    });
  });

  describe('GET /api/v1/agents/:slug/merchants', () => {
    it('lists the merchants with approved reports for that agent, with its summary', async () => {
      const [agent] = await sql<{ id: string; slug: string }>('SELECT id, slug FROM agents WHERE active ORDER BY slug LIMIT 1');
      const [{ n }] = await sql<{ n: number }>(
        `SELECT count(DISTINCT r.merchant_id)::int AS n FROM reports r JOIN merchants m ON m.id = r.merchant_id AND m.is_public
          WHERE r.agent_id = $1 AND r.status = 'APPROVED'`,
        [agent!.id],
      );
      const res = await api(`/api/v1/agents/${agent!.slug}/merchants`).expect(200);
      expect(res.body.total).toBe(n);
      for (const m of res.body.data) expect(m.agents.map((a: { agent: { slug: string } }) => a.agent.slug)).toEqual([agent!.slug]);
      expect((await api(`/api/v1/agents/${agent!.slug}/merchants?sort=rating`).expect(200)).body.total).toBe(n);
    });

    it('answers an unknown or inactive agent with 404', async () => {
      const [inactive] = await sql<{ slug: string }>('SELECT slug FROM agents WHERE NOT active LIMIT 1');
      await api(`/api/v1/agents/${inactive!.slug}/merchants`).expect(404);
      await api('/api/v1/agents/no-such-agent/merchants').expect(404);
    });

    it('refuses the agent parameter, which the path already gives', async () => {
      const [agent] = await sql<{ slug: string }>('SELECT slug FROM agents WHERE active LIMIT 1');
      const res = await api(`/api/v1/agents/${agent!.slug}/merchants?agent=${agent!.slug}`).expect(400);
      expect(res.body.errors[0].parameter).toBe('agent');
    });
  });

  describe('GET /api/v1/reports', () => {
    it('lists approved reports of public merchants and active agents, newest first', async () => {
      const [{ n }] = await sql<{ n: number }>(
        `SELECT count(*)::int AS n FROM reports r JOIN merchants m ON m.id = r.merchant_id AND m.is_public
           JOIN agents a ON a.id = r.agent_id AND a.active WHERE r.status = 'APPROVED'`,
      );
      const res = await api('/api/v1/reports').expect(200);
      expect(res.body).toMatchObject({ total: n, page: 1, pageSize: 24 });
      const dates = res.body.data.map((r: { reportedAt: string }) => r.reportedAt);
      expect(dates).toEqual([...dates].sort().reverse());
    });

    it('filters by agent, merchant and outcome', async () => {
      const [r] = await sql<{ agent: string; merchant_id: string; outcome: string }>(
        `SELECT a.slug AS agent, r.merchant_id, r.outcome::text FROM reports r JOIN agents a ON a.id = r.agent_id AND a.active
           JOIN merchants m ON m.id = r.merchant_id AND m.is_public WHERE r.status = 'APPROVED' LIMIT 1`,
      );
      const res = await api(`/api/v1/reports?agent=${r!.agent}&merchant=${r!.merchant_id}&outcome=${r!.outcome}`).expect(200);
      expect(res.body.total).toBeGreaterThan(0);
      for (const report of res.body.data) {
        expect(report.agent.slug).toBe(r!.agent);
        expect(report.merchant.id).toBe(r!.merchant_id);
        expect(report.outcome).toBe(r!.outcome);
      }
    });

    it.each([
      ['merchant=not-a-uuid', 'merchant'],
      ['merchant=00000000-0000-7000-8000-000000000000', 'merchant'],
      ['agent=nobody', 'agent'],
      ['outcome=FINE', 'outcome'],
      ['page=0', 'page'],
    ])('answers ?%s with a 400 naming %s', async (query, parameter) => {
      const res = await api(`/api/v1/reports?${query}`).expect(400);
      expect(res.body.errors.map((e: { parameter: string }) => e.parameter)).toContain(parameter);
    });

    it('serves one approved report and 404s pending, rejected and unknown ones', async () => {
      const [approved] = await sql<{ id: string }>(
        `SELECT r.id FROM reports r JOIN merchants m ON m.id = r.merchant_id AND m.is_public
           JOIN agents a ON a.id = r.agent_id AND a.active WHERE r.status = 'APPROVED' LIMIT 1`,
      );
      const res = await api(`/api/v1/reports/${approved!.id}`).expect(200);
      expect(res.body.data).toMatchObject({ id: approved!.id, url: `http://directory.test/api/v1/reports/${approved!.id}` });
      expect(res.body.disclaimer).toEqual(expect.any(String));
      for (const status of ['PENDING', 'REJECTED']) {
        const [other] = await sql<{ id: string }>(`SELECT id FROM reports WHERE status = $1 LIMIT 1`, [status]);
        await api(`/api/v1/reports/${other!.id}`).expect(404);
      }
      await api('/api/v1/reports/nope').expect(404);
    });
  });

  describe('evidence links', () => {
    it('point at published reports that the API serves', async () => {
      const res = await api('/api/v1/merchants?sort=popular').expect(200);
      const links = res.body.data.flatMap((m: { agents: Array<{ evidence: Array<{ url: string }> }> }) =>
        m.agents.flatMap((a) => a.evidence.map((e) => e.url)),
      );
      expect(links.length).toBeGreaterThan(0);
      for (const link of links.slice(0, 10)) {
        await api(link.replace('http://directory.test', '')).expect(200);
      }
    });
  });
});
