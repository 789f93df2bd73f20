import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DISCLAIMER } from '../../src/modules/directory/notice.js';
import { createDemoApp } from '../setup/demo.js';
import { TEST_BASE_URL, type TestApp } from '../setup/app.js';

const PROBLEM = /^application\/problem\+json/;

describe('GET /api/v1/merchants', () => {
  let t: TestApp;
  let api: (path: string) => request.Test;
  beforeAll(async () => {
    t = await createDemoApp();
    api = (path) => request(t.app).get(path);
  });
  afterAll(() => t.close());

  const sql = <T>(text: string, values: unknown[] = []) =>
    t.db.pool.query(text, values).then((r) => r.rows as [T, ...T[]]);

  it('lists public merchants in the list envelope with the methodology link and disclaimer', async () => {
    const res = await api('/api/v1/merchants').expect(200);
    const [{ n }] = await sql<{ n: number }>('SELECT count(*)::int AS n FROM merchants WHERE is_public');
    expect(res.body).toMatchObject({
      total: n,
      page: 1,
      pageSize: 24,
      methodology: 'http://directory.test/how-it-works',
      disclaimer: DISCLAIMER,
    });
    expect(res.body.data).toHaveLength(24);
    expect(res.body.disclaimer).toMatch(/community-reported experience, not guaranteed capability or confirmed merchant policy/i);
  });

  it('never lists hidden merchants', async () => {
    const hidden = await sql<{ slug: string }>('SELECT slug FROM merchants WHERE NOT is_public');
    expect(hidden.length).toBeGreaterThan(0);
    const res = await api('/api/v1/merchants?sort=name&page=1').expect(200);
    const all = [...res.body.data];
    for (let page = 2; page <= Math.ceil(res.body.total / 24); page++) {
      all.push(...(await api(`/api/v1/merchants?sort=name&page=${page}`).expect(200)).body.data);
    }
    expect(all).toHaveLength(res.body.total);
    const slugs = new Set(all.map((m: { slug: string }) => m.slug));
    expect(slugs.size).toBe(all.length);
    for (const { slug } of hidden) expect(slugs.has(slug)).toBe(false);
  });

  it('puts active sponsored listings first, then the chosen order, stable across pages', async () => {
    const sponsored = await sql<{ slug: string }>(
      `SELECT m.slug FROM merchants m JOIN sponsorships s ON s.merchant_id = m.id
        WHERE m.is_public AND s.starts_at <= $1 AND (s.ends_at IS NULL OR s.ends_at > $1) ORDER BY m.name`,
      [t.clock.now()],
    );
    expect(sponsored.length).toBeGreaterThan(0);
    const res = await api('/api/v1/merchants?sort=name').expect(200);
    const first = res.body.data.slice(0, sponsored.length);
    expect(first.map((m: { slug: string }) => m.slug)).toEqual(sponsored.map((s) => s.slug));
    for (const m of first) {
      expect(m.sponsored).toBe(true);
      expect(['subscription', 'publisher_owned']).toContain(m.sponsorshipSource);
      expect(m.sponsorshipDisclosure).toEqual(expect.any(String));
      expect(m.placement).toEqual(expect.any(String));
    }
    const rest = res.body.data.slice(sponsored.length).map((m: { name: string; sponsored: boolean }) => {
      expect(m.sponsored).toBe(false);
      return m.name;
    });
    expect(rest).toEqual([...rest].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  });

  it('shows only agents with published reports on search results', async () => {
    const res = await api('/api/v1/merchants?sort=popular').expect(200);
    const top = res.body.data.find((m: { sponsored: boolean }) => !m.sponsored);
    const rows = await sql<{ slug: string }>(
      `SELECT DISTINCT a.slug FROM reports r JOIN agents a ON a.id = r.agent_id AND a.active
        WHERE r.merchant_id = $1 AND r.status = 'APPROVED' ORDER BY a.slug`,
      [top.id],
    );
    expect(top.agents.map((a: { agent: { slug: string } }) => a.agent.slug).sort()).toEqual(rows.map((r) => r.slug));
    for (const summary of top.agents) expect(summary.counts.total).toBeGreaterThan(0);
  });

  it('filters by q in the name, case-insensitively', async () => {
    const [{ name }] = await sql<{ name: string }>('SELECT name FROM merchants WHERE is_public ORDER BY name LIMIT 1');
    const word = name.split(' ')[0]!.toUpperCase();
    const res = await api(`/api/v1/merchants?q=${encodeURIComponent(word)}`).expect(200);
    expect(res.body.total).toBeGreaterThan(0);
    for (const m of res.body.data) {
      expect(`${m.name} ${m.slug} ${m.website}`.toLowerCase()).toContain(word.toLowerCase());
    }
    expect((await api('/api/v1/merchants?q=%25').expect(200)).body.total).toBe(0);
  });

  it('filters by canonical category slug, by canonical name and by legacy name alike', async () => {
    const [legacy] = await sql<{ legacy: string; slug: string; name: string }>(
      `SELECT l.name AS legacy, c.slug, c.name FROM category_legacy_names l JOIN categories c ON c.id = l.category_id LIMIT 1`,
    );
    const bySlug = await api(`/api/v1/merchants?category=${legacy!.slug}`).expect(200);
    const byName = await api(`/api/v1/merchants?category=${encodeURIComponent(legacy!.name)}`).expect(200);
    const byLegacy = await api(`/api/v1/merchants?category=${encodeURIComponent(legacy!.legacy)}`).expect(200);
    expect(bySlug.body.total).toBeGreaterThan(0);
    expect(byName.body.data).toEqual(bySlug.body.data);
    expect(byLegacy.body.data).toEqual(bySlug.body.data);
    for (const m of bySlug.body.data) {
      expect(m.categoryInfo).toEqual({ name: legacy!.name, slug: legacy!.slug, url: `http://directory.test/categories/${legacy!.slug}` });
      expect(typeof m.category).toBe('string');
    }
  });

  it("resolves a merchant's original category string, in any case, without treating it as a pattern", async () => {
    const [m] = await sql<{ id: string; slug: string; category_slug: string }>(
      `SELECT m.id, m.slug, c.slug AS category_slug FROM merchants m JOIN categories c ON c.id = m.category_id
        WHERE m.is_public ORDER BY m.name LIMIT 1`,
    );
    await sql(`UPDATE merchants SET category = 'Vintage Lamps & Lighting_Co' WHERE id = $1`, [m!.id]);
    const res = await api(`/api/v1/merchants?category=${encodeURIComponent('vintage lamps & lighting_co')}&sort=name`).expect(200);
    expect(res.body.data[0].categoryInfo.slug).toBe(m!.category_slug);
    expect(res.body.data.map((x: { slug: string }) => x.slug)).toContain(m!.slug);
    // "_" and "%" are characters here, not wildcards.
    for (const pattern of ['vintage lamps & lighting%', 'vintage lamps & lighting_co_', '%']) {
      const bad = await api(`/api/v1/merchants?category=${encodeURIComponent(pattern)}`).expect(400);
      expect(bad.body.errors[0].parameter).toBe('category');
    }
  });

  it('filters by region, counting GLOBAL merchants as serving every region', async () => {
    const res = await api('/api/v1/merchants?region=de').expect(200);
    expect(res.body.total).toBeGreaterThan(0);
    for (const m of res.body.data) expect(m.serviceRegions.some((r: string) => r === 'DE' || r === 'GLOBAL')).toBe(true);
  });

  it('selects merchants with one approved report matching agent, outcome and exact stage together', async () => {
    const [combo] = await sql<{ slug: string; agent_id: string; outcome: string; stage: string }>(
      `SELECT a.slug, r.agent_id, r.outcome::text, r.stage::text FROM reports r
         JOIN agents a ON a.id = r.agent_id AND a.active JOIN merchants m ON m.id = r.merchant_id AND m.is_public
        WHERE r.status = 'APPROVED' AND r.stage IS NOT NULL
        GROUP BY a.slug, r.agent_id, r.outcome, r.stage ORDER BY count(*) DESC LIMIT 1`,
    );
    const expected = await sql<{ id: string }>(
      `SELECT DISTINCT m.id FROM reports r JOIN merchants m ON m.id = r.merchant_id AND m.is_public
        WHERE r.status = 'APPROVED' AND r.agent_id = $1 AND r.outcome::text = $2 AND r.stage::text = $3`,
      [combo!.agent_id, combo!.outcome, combo!.stage],
    );
    const path = `/api/v1/merchants?agent=${combo!.slug}&outcome=${combo!.outcome}&stage=${combo!.stage}&sort=name`;
    const res = await api(path).expect(200);
    expect(res.body.total).toBe(expected.length);
    const data = [...res.body.data, ...(await api(`${path}&page=2`).expect(200)).body.data];
    expect(data.map((m: { id: string }) => m.id).sort()).toEqual(expected.map((e) => e.id).sort());
    // With an agent selected, each result carries that agent's summary only.
    for (const m of data) expect(m.agents.map((a: { agent: { slug: string } }) => a.agent.slug)).toEqual([combo!.slug]);
  });

  it('filters by days and minReports', async () => {
    const recent = await sql<{ n: number }>(
      `SELECT count(DISTINCT m.id)::int AS n FROM reports r JOIN merchants m ON m.id = r.merchant_id AND m.is_public
         JOIN agents a ON a.id = r.agent_id AND a.active
        WHERE r.status = 'APPROVED' AND r.created_at >= $1::timestamptz - interval '30 days'`,
      [t.clock.now()],
    );
    expect((await api('/api/v1/merchants?days=30').expect(200)).body.total).toBe(recent[0]!.n);
    const busy = await sql<{ n: number }>('SELECT count(*)::int AS n FROM merchants WHERE is_public AND report_count >= 10');
    const res = await api('/api/v1/merchants?minReports=10').expect(200);
    expect(res.body.total).toBe(busy[0]!.n);
    for (const m of res.body.data) expect(m.reportCount).toBeGreaterThanOrEqual(10);
  });

  it('sorts by popular, recent and rating (for an agent)', async () => {
    const strip = <T extends { sponsored: boolean }>(data: T[]) => data.filter((m) => !m.sponsored);
    const popular = strip<{ sponsored: boolean; reportCount: number }>((await api('/api/v1/merchants?sort=popular').expect(200)).body.data);
    for (let i = 1; i < popular.length; i++) expect(popular[i - 1]!.reportCount).toBeGreaterThanOrEqual(popular[i]!.reportCount);
    const recent = strip<{ sponsored: boolean; lastReportedAt: string }>((await api('/api/v1/merchants?sort=recent').expect(200)).body.data);
    for (let i = 1; i < recent.length; i++) expect(recent[i - 1]!.lastReportedAt >= recent[i]!.lastReportedAt).toBe(true);
    const [agent] = await sql<{ slug: string }>('SELECT slug FROM agents WHERE active ORDER BY slug LIMIT 1');
    const rated = strip<{ sponsored: boolean; agents: Array<{ rating: number }> }>(
      (await api(`/api/v1/merchants?agent=${agent!.slug}&sort=rating`).expect(200)).body.data,
    );
    expect(rated.length).toBeGreaterThan(1);
    for (let i = 1; i < rated.length; i++) expect(rated[i - 1]!.agents[0]!.rating).toBeGreaterThanOrEqual(rated[i]!.agents[0]!.rating);
  });

  it.each([
    ['sort=rating', 'sort'],
    ['sort=best', 'sort'],
    ['outcome=GREAT', 'outcome'],
    ['stage=LANDING', 'stage'],
    ['page=0', 'page'],
    ['page=1.5', 'page'],
    ['page=abc', 'page'],
    ['page=10001', 'page'],
    ['days=0', 'days'],
    ['minReports=-1', 'minReports'],
    ['region=Germany', 'region'],
    // One country validator for reports and merchants (issue 36): EU and unassigned codes are no countries.
    ['region=EU', 'region'],
    ['region=XX', 'region'],
    ['agent=no-such-agent', 'agent'],
    ['category=no-such-category', 'category'],
    ['q=', 'q'],
    ['colour=blue', 'colour'],
    ['page=1&page=2', 'page'],
  ])('answers ?%s with a 400 problem naming %s', async (query, parameter) => {
    const res = await api(`/api/v1/merchants?${query}`).expect(400);
    expect(res.headers['content-type']).toMatch(PROBLEM);
    expect(res.body).toMatchObject({ type: `${TEST_BASE_URL}/problems/validation-failed`, status: 400 });
    expect(res.body.errors.map((e: { parameter: string }) => e.parameter)).toContain(parameter);
  });

  it('answers a page past the end with an empty page and the true total', async () => {
    const res = await api('/api/v1/merchants?page=500').expect(200);
    expect(res.body.data).toEqual([]);
    expect(res.body.total).toBeGreaterThan(0);
    expect(res.body.page).toBe(500);
  });

  it('is cacheable: Cache-Control, an ETag, and 304 for a matching If-None-Match', async () => {
    const res = await api('/api/v1/merchants').expect(200);
    expect(res.headers['cache-control']).toBe('public, max-age=60, stale-if-error=600');
    expect(res.headers.etag).toBeDefined();
    await api('/api/v1/merchants').set('If-None-Match', res.headers.etag!).expect(304);
  });
});

describe('list weight: the standard and compact views', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createDemoApp();
  });
  afterAll(() => t.close());

  type Capability = { status: string; confidence: string; recentObservations: unknown[]; evidence: Array<{ reportId: string; url: string }> };
  type Summary = { agent: { slug: string }; status: string; confidence: string; evidence: unknown[]; capabilities: Record<string, Capability> };
  type Listed = { slug: string; agents: Summary[] };

  it('keeps every summary field in lists, with the newest observation and evidence reference per task', async () => {
    const list = (await request(t.app).get('/api/v1/merchants?sort=popular').expect(200)).body.data as Listed[];
    const merchant = list[0]!;
    const detail = (await request(t.app).get(`/api/v1/merchants/${merchant.slug}`).expect(200)).body.data as Listed;
    let trimmed = 0;
    for (const summary of merchant.agents) {
      const full = detail.agents.find((a) => a.agent.slug === summary.agent.slug)!;
      // The detail adds the agent's 90-day trend; every other field is in the list too.
      expect(Object.keys(summary).sort()).toEqual(Object.keys(full).filter((k) => k !== 'trend').sort());
      expect(summary.evidence).toEqual(full.evidence);
      for (const [task, capability] of Object.entries(summary.capabilities)) {
        const whole = full.capabilities[task]!;
        expect(Object.keys(capability).sort()).toEqual(Object.keys(whole).sort());
        expect({ ...capability, recentObservations: [], evidence: [] }).toEqual({ ...whole, recentObservations: [], evidence: [] });
        expect(capability.recentObservations).toEqual(whole.recentObservations.slice(0, 1));
        expect(capability.evidence).toEqual(whole.evidence.slice(0, 1));
        if (whole.evidence.length > 1) trimmed++;
      }
    }
    expect(trimmed).toBeGreaterThan(0);
  });

  it('gives status and confidence per agent and task in the compact view, as the full record has them', async () => {
    const standard = await request(t.app).get('/api/v1/merchants?sort=popular').expect(200);
    const compact = await request(t.app).get('/api/v1/merchants?sort=popular&view=compact').expect(200);
    expect(compact.body).toMatchObject({ total: standard.body.total, page: 1, pageSize: 24, disclaimer: standard.body.disclaimer });
    expect(compact.text.length).toBeLessThan(standard.text.length / 3);
    for (const [i, merchant] of (compact.body.data as Listed[]).entries()) {
      const full = standard.body.data[i] as Listed & Record<string, unknown>;
      expect(merchant.slug).toBe(full.slug);
      expect(merchant).toMatchObject({ sponsored: full.sponsored, sponsorshipDisclosure: full.sponsorshipDisclosure });
      for (const [j, summary] of merchant.agents.entries()) {
        expect(summary).toMatchObject({ status: full.agents[j]!.status, confidence: full.agents[j]!.confidence });
        for (const [task, capability] of Object.entries(summary.capabilities)) {
          expect(capability).toEqual({ status: full.agents[j]!.capabilities[task]!.status, confidence: full.agents[j]!.capabilities[task]!.confidence });
        }
      }
    }
    await request(t.app).get('/api/v1/merchants?view=full').expect(400);
  });
});
