// robots.txt read the same way by a longest-match parser (robots-parser, as Google reads it)
// and by first-match semantics (Python's urllib.robotparser), and the sitemap it names: public
// merchants, active agents and categories only, absolute URLs, and an index past one page.
import express, { type ErrorRequestHandler } from 'express';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import robotsParserModule from 'robots-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Refusal } from '../../src/errors.js';
import { createLimiter } from '../../src/web/middleware/rate-limit.js';
import { ResponseCache } from '../../src/web/middleware/response-cache.js';
import { openDataRouter } from '../../src/http/routers/open-data.js';
import { robotsTxt } from '../../src/modules/open-data/discovery.js';
import { sitemap, sitemapPage } from '../../src/modules/open-data/sitemap.js';
import { aCategory, aMerchant, anAgent, aReport } from '../factories/index.js';
import { createTestApp, TEST_BASE_URL, type TestApp } from '../setup/app.js';
import { getText } from '../setup/bodies.js';

// robots-parser is CommonJS (module.exports = the function) while its types declare an ES
// default export: under NodeNext the default import is the function, typed as the module.
const robotsParser = robotsParserModule as unknown as typeof robotsParserModule.default;

const text = (t: { app: express.Express }, path: string) => getText(t, path);

/**
 * Python's urllib.robotparser in a few lines: the group for `*`, and in it the first rule whose
 * path is a prefix of the request's path decides; no rule means allowed.
 */
function firstMatchAllows(robots: string, path: string): boolean {
  let inStarGroup = false;
  for (const raw of robots.split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const field = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (field === 'user-agent') inStarGroup = value === '*';
    else if (inStarGroup && (field === 'allow' || field === 'disallow') && value !== '' && path.startsWith(value)) return field === 'allow';
  }
  return true;
}

const PRIVATE_PATHS = [
  '/admin',
  '/admin/reports',
  '/api/v1/automation/me',
  '/api/v1/automation/queue',
  '/profile/agents',
  '/profile/reports',
  '/reports/new',
  '/reports/0b7c/edit',
  '/sign-in',
  '/sign-in/verify?token=x',
  '/sign-out',
];
// /mcp is where llms.txt sends agents: robots.txt must not tell them it is forbidden.
const PUBLIC_PATHS = ['/', '/merchants/x', '/agents/x', '/categories/x', '/how-it-works', '/agent-guide', '/data', '/llms.txt', '/sitemap.xml', '/api/v1/merchants', '/mcp'];

const xml = new XMLParser({ isArray: (name) => name === 'url' || name === 'sitemap' });
type UrlSet = { urlset: { url: Array<{ loc: string; lastmod?: string }> } };
type Index = { sitemapindex: { sitemap: Array<{ loc: string }> } };
const locs = (body: string) => (xml.parse(body) as UrlSet).urlset.url.map((u) => u.loc);

describe('robots.txt', () => {
  const robots = robotsTxt({ baseUrl: TEST_BASE_URL });
  const longestMatch = robotsParser(`${TEST_BASE_URL}/robots.txt`, robots);

  it.each(PRIVATE_PATHS)('disallows %s for both first-match and longest-match parsers', (path) => {
    expect(firstMatchAllows(robots, path)).toBe(false);
    expect(longestMatch.isAllowed(`${TEST_BASE_URL}${path}`, 'AnyBot')).toBe(false);
  });

  it.each(PUBLIC_PATHS)('allows %s for both first-match and longest-match parsers', (path) => {
    expect(firstMatchAllows(robots, path)).toBe(true);
    expect(longestMatch.isAllowed(`${TEST_BASE_URL}${path}`, 'AnyBot')).toBe(true);
  });

  it('has no Allow rule that a first-match parser would let win over a Disallow', () => {
    expect(robots).not.toMatch(/^Allow:/m);
  });

  it('names the absolute sitemap address', () => {
    expect(longestMatch.getSitemaps()).toEqual([`${TEST_BASE_URL}/sitemap.xml`]);
  });
});

describe('sitemap', () => {
  let t: TestApp;
  let used: Awaited<ReturnType<typeof aCategory>>;
  let empty: Awaited<ReturnType<typeof aCategory>>;
  let reported: Awaited<ReturnType<typeof aMerchant>>;
  let quiet: Awaited<ReturnType<typeof aMerchant>>;
  let hidden: Awaited<ReturnType<typeof aMerchant>>;
  let agent: Awaited<ReturnType<typeof anAgent>>;
  let inactive: Awaited<ReturnType<typeof anAgent>>;
  let onlyHidden: Awaited<ReturnType<typeof aCategory>>;

  beforeAll(async () => {
    t = await createTestApp();
    const prisma = t.db.prisma;
    used = await aCategory(prisma);
    empty = await aCategory(prisma);
    onlyHidden = await aCategory(prisma);
    reported = await aMerchant(prisma, { categoryId: used.id });
    quiet = await aMerchant(prisma, { categoryId: used.id });
    hidden = await aMerchant(prisma, { categoryId: onlyHidden.id, isPublic: false });
    agent = await anAgent(prisma);
    inactive = await anAgent(prisma, { active: false });
    await aReport(prisma, { merchantId: reported.id, agentId: agent.id, status: 'APPROVED' }, t.clock.now());
    await aReport(prisma, { merchantId: hidden.id, agentId: agent.id, status: 'APPROVED' }, t.clock.now());
  });
  afterAll(() => t.close());

  const everything = () => [
    `${TEST_BASE_URL}/`,
    `${TEST_BASE_URL}/how-it-works`,
    `${TEST_BASE_URL}/agent-guide`,
    `${TEST_BASE_URL}/agent-guide/reference`,
    `${TEST_BASE_URL}/data`,
    `${TEST_BASE_URL}/categories/${used.slug}`,
    `${TEST_BASE_URL}/agents/${agent.slug}`,
    `${TEST_BASE_URL}/merchants/${reported.slug}`,
    `${TEST_BASE_URL}/merchants/${quiet.slug}`,
  ];

  it('lists the fixed pages, categories with public merchants, active agents and public merchants as absolute URLs', async () => {
    const res = await text(t, '/sitemap.xml').expect(200);
    expect(res.headers['content-type']).toBe('application/xml; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=3600, stale-if-error=600');
    const body = res.body as string;
    expect(XMLValidator.validate(body)).toBe(true);
    expect(body).toContain('xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"');
    expect(new Set(locs(body))).toEqual(new Set(everything()));
    for (const loc of locs(body)) expect(loc.startsWith(`${TEST_BASE_URL}/`)).toBe(true);
  });

  it('never lists a hidden merchant, an inactive agent or a category without public merchants', async () => {
    const body = (await text(t, '/sitemap.xml').expect(200)).body as string;
    expect(body).not.toContain(`/merchants/${hidden.slug}<`);
    expect(body).not.toContain(`/agents/${inactive.slug}<`);
    expect(body).not.toContain(`/categories/${empty.slug}<`);
    expect(body).not.toContain(`/categories/${onlyHidden.slug}<`);
  });

  it("gives a merchant's last report date as lastmod, and none to a merchant without reports", async () => {
    const body = (await text(t, '/sitemap.xml').expect(200)).body as string;
    const urls = (xml.parse(body) as UrlSet).urlset.url;
    const row = await t.db.prisma.merchant.findUniqueOrThrow({ where: { id: reported.id } });
    expect(row.lastReportedAt).not.toBeNull();
    expect(urls.find((u) => u.loc.endsWith(`/merchants/${reported.slug}`))?.lastmod).toBe(row.lastReportedAt!.toISOString());
    expect(urls.find((u) => u.loc.endsWith(`/merchants/${quiet.slug}`))?.lastmod).toBeUndefined();
  });

  it('is answered from the response cache the second time', async () => {
    await text(t, '/sitemap.xml').expect(200);
    const again = await text(t, '/sitemap.xml').expect(200);
    expect(again.headers['x-cache']).toBe('HIT');
  });

  it('has no numbered pages while everything fits in one sitemap', async () => {
    await text(t, '/sitemaps/1.xml').expect(404);
    await text(t, '/sitemaps/x.xml').expect(404);
  });

  it('becomes an index of pages of at most the page size, together listing every URL once', async () => {
    const deps = { baseUrl: TEST_BASE_URL, prisma: t.db.prisma, pageSize: 3 };
    const answer = await sitemap(deps, t.clock.now());
    expect(answer.kind).toBe('index');
    expect(XMLValidator.validate(answer.xml)).toBe(true);
    const pages = (xml.parse(answer.xml) as Index).sitemapindex.sitemap.map((s) => s.loc);
    expect(pages).toEqual([1, 2, 3].map((n) => `${TEST_BASE_URL}/sitemaps/${n}.xml`));
    const listed: string[] = [];
    for (let n = 1; n <= pages.length; n += 1) {
      const page = await sitemapPage(deps, n, t.clock.now());
      expect(page).not.toBeNull();
      const urls = locs(page!);
      expect(urls.length).toBeGreaterThan(0);
      expect(urls.length).toBeLessThanOrEqual(3);
      listed.push(...urls);
    }
    expect(listed).toHaveLength(everything().length);
    expect(new Set(listed)).toEqual(new Set(everything()));
    expect(await sitemapPage(deps, pages.length + 1, t.clock.now())).toBeNull();
    expect(await sitemapPage(deps, 0, t.clock.now())).toBeNull();
  });

  it('serves the index and its pages over HTTP when the router is given a small page size', async () => {
    // The open-data router alone, as the app mounts it, with a page size of 3.
    const app = express();
    const limiter = createLimiter({
      pool: t.db.pool, clock: t.clock, name: 'sitemap-test', limit: 1_000_000, windowMs: 60_000, keyGenerator: () => 'test', counting: 'synced',
    });
    const responses = new ResponseCache({ versions: t.versions, clock: t.clock });
    app.use(openDataRouter({ baseUrl: TEST_BASE_URL, dataDir: t.config.dataDir, prisma: t.db.prisma, clock: t.clock, limiter, responses, sitemapPageSize: 3 }));
    const problems: ErrorRequestHandler = (error, _req, res, _next) => {
      res.status(error instanceof Refusal && error.kind === 'not-found' ? 404 : 500).end();
    };
    app.use(problems);
    const small = { app };
    await t.versions.settle();

    const index = await text(small, '/sitemap.xml').expect(200);
    expect(index.headers['content-type']).toBe('application/xml; charset=utf-8');
    const pages = (xml.parse(index.body as string) as Index).sitemapindex.sitemap.map((s) => s.loc);
    expect(pages).toHaveLength(3);
    const second = await text(small, '/sitemaps/2.xml').expect(200);
    expect(second.headers['content-type']).toBe('application/xml; charset=utf-8');
    expect(second.headers['cache-control']).toBe('public, max-age=3600, stale-if-error=600');
    expect(locs(second.body as string)).toHaveLength(3);
    await text(small, '/sitemaps/4.xml').expect(404);
    await text(small, '/sitemaps/0.xml').expect(404);
  });

  it('splits merchants across pages without repeating or dropping one', async () => {
    const prisma = t.db.prisma;
    const more = [];
    for (let i = 0; i < 5; i += 1) more.push(await aMerchant(prisma, { categoryId: used.id }));
    const deps = { baseUrl: TEST_BASE_URL, prisma, pageSize: 4 };
    const answer = await sitemap(deps, t.clock.now());
    const pages = (xml.parse(answer.xml) as Index).sitemapindex.sitemap;
    const listed: string[] = [];
    for (let n = 1; n <= pages.length; n += 1) listed.push(...locs((await sitemapPage(deps, n, t.clock.now()))!));
    const expected = [...everything(), ...more.map((m) => `${TEST_BASE_URL}/merchants/${m.slug}`)];
    expect(listed.sort()).toEqual(expected.sort());
    expect(pages).toHaveLength(Math.ceil(expected.length / 4));
  });
});
