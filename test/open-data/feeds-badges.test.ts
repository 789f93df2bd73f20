// Atom feeds (parsed with a real feed parser), the status-change entries a moderation decision
// produces (each naming the agent's verdict now), badges showing the verdict in every colour (and
// low confidence hatched), short enough for a README line, and a task's status, and the discovery
// documents (/llms.txt, /robots.txt, GET /api/v1) whose links resolve.
import { parseFeed } from '@rowanmanning/feed-parser';
import { XMLValidator } from 'fast-xml-parser';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TASK_LABELS } from '../../src/modules/aggregation/constants.js';
import { approveReport } from '../../src/modules/moderation/moderation.service.js';
import { BADGE_COLOURS, BADGE_STATUS, TASK_BADGE_COLOUR } from '../../src/modules/open-data/badges.service.js';
import { aCategory, aMerchant, anAgent, aReport } from '../factories/index.js';
import { createTestApp, TEST_BASE_URL, type TestApp } from '../setup/app.js';
import { htmlProblems } from '../pages/html-validate.js';
import { getText } from '../setup/bodies.js';

const text = getText;

/** badge-maker's escaping of a badge's text. */
const escapeBadge = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');

type ApiVerdict = { sentence: string; colour: 'green' | 'amber' | 'red' | 'grey'; short: string; symbol: string; confidence: string; evidenceText: string };

/** The API's verdict of each agent (by slug) on a merchant. */
async function verdictsOn(t: TestApp, merchantSlug: string): Promise<Map<string, ApiVerdict & { label: string }>> {
  const { data } = (await request(t.app).get(`/api/v1/merchants/${merchantSlug}`).expect(200)).body as {
    data: { agents: Array<{ agent: { slug: string }; label: string; verdict: ApiVerdict }> };
  };
  return new Map(data.agents.map((a) => [a.agent.slug, { ...a.verdict, label: a.label }]));
}

describe('open data', () => {
  let t: TestApp;
  let merchant: Awaited<ReturnType<typeof aMerchant>>;
  let other: Awaited<ReturnType<typeof aMerchant>>;
  let agent: Awaited<ReturnType<typeof anAgent>>;
  let category: Awaited<ReturnType<typeof aCategory>>;
  beforeAll(async () => {
    t = await createTestApp();
    category = await aCategory(t.db.prisma, { name: 'Garden & Things', slug: 'garden-things' });
    merchant = await aMerchant(t.db.prisma, { categoryId: category.id });
    other = await aMerchant(t.db.prisma);
    agent = await anAgent(t.db.prisma, { name: 'Cart <Bot> & Co', slug: 'cart-bot' });
  });
  afterAll(() => t.close());

  describe('feeds', () => {
    it('lists newly approved reports, each linking the report and the merchant page, in every scope', async () => {
      await aReport(t.db.prisma, { merchantId: merchant.id, agentId: agent.id, status: 'APPROVED', outcome: 'WORKS', capabilityResults: { ACCESS: 'WORKS', CHECKOUT: 'WORKS' } }, t.clock.now());
      await aReport(t.db.prisma, { merchantId: other.id, agentId: agent.id, status: 'APPROVED', outcome: 'PARTIAL' }, t.clock.now());
      // Not public: pending.
      await aReport(t.db.prisma, { merchantId: merchant.id, agentId: agent.id, status: 'PENDING', outcome: 'BLOCKED' }, t.clock.now());

      const site = await text(t, '/feed.atom').expect(200);
      expect(site.headers['content-type']).toBe('application/atom+xml; charset=utf-8');
      expect(site.headers['cache-control']).toBe('public, max-age=300, stale-if-error=600');
      const feed = parseFeed(site.body as string);
      expect(feed.meta.type).toBe('atom');
      expect(feed.items).toHaveLength(2);
      const entry = feed.items.find((i) => i.title?.includes(merchant.name))!;
      expect(entry.title).toBe(`Cart <Bot> & Co on ${merchant.name}: Works`);
      expect(entry.url).toBe(`${TEST_BASE_URL}/merchants/${merchant.slug}`);
      expect(entry.content).toContain(`${TEST_BASE_URL}/api/v1/reports/`);
      expect(entry.content).toContain(`href="${TEST_BASE_URL}/merchants/${merchant.slug}"`);
      expect(entry.content).toContain('Community-reported');
      // The entry names the verdict there now: the API's sentence, colour and evidence (as HTML text, like the names).
      const now = (await verdictsOn(t, merchant.slug)).get(agent.slug)!;
      expect(now.label).toBe(now.sentence);
      expect(entry.content).toContain(`Cart <Bot> & Co at ${merchant.name} now: <strong>${now.symbol} ${now.sentence}</strong> (${now.colour}; ${now.evidenceText};`);
      expect(entry.content).toContain(`href="${TEST_BASE_URL}/how-it-works#verdict"`);

      const scoped = async (path: string) => parseFeed((await text(t, path).expect(200)).body as string).items.map((i) => i.title);
      expect(await scoped(`/merchants/${merchant.slug}/feed.atom`)).toEqual([`Cart <Bot> & Co on ${merchant.name}: Works`]);
      expect(await scoped(`/agents/${agent.slug}/feed.atom`)).toHaveLength(2);
      expect(await scoped(`/categories/${category.slug}/feed.atom`)).toEqual([`Cart <Bot> & Co on ${merchant.name}: Works`]);
      await text(t, '/merchants/no-such-shop/feed.atom').expect(404);
      await text(t, '/agents/no-such-agent/feed.atom').expect(404);
      await text(t, '/categories/no-such-category/feed.atom').expect(404);
    });

    it('gives a moderation decision that changes a status an entry of its own, naming the old and new status', async () => {
      // One approved WORKS at checkout: supported. Then blocked reports are approved by a moderator.
      for (let i = 0; i < 4; i += 1) {
        const report = await aReport(t.db.prisma, {
          merchantId: merchant.id,
          agentId: agent.id,
          status: 'PENDING',
          outcome: 'BLOCKED',
          capabilityResults: { ACCESS: 'WORKS', CHECKOUT: 'BLOCKED' },
        });
        t.clock.advance(60_000);
        await approveReport(t.db.prisma, { reportId: report.id, actorId: null, now: t.clock.now() });
      }
      const changes = await t.db.prisma.statusChange.findMany({ where: { merchantId: merchant.id, agentId: agent.id } });
      expect(changes.some((c) => c.task === 'CHECKOUT' && c.fromStatus === 'supported' && c.toStatus === 'blocked')).toBe(true);
      const now = (await verdictsOn(t, merchant.slug)).get(agent.slug)!;
      expect(now.label).toMatch(/stop(s|ped) at checkout: blocked/i);
      for (const path of ['/feed.atom', `/merchants/${merchant.slug}/feed.atom`, `/agents/${agent.slug}/feed.atom`]) {
        const items = parseFeed((await text(t, path).expect(200)).body as string).items;
        const title = `Cart <Bot> & Co on ${merchant.name}: ${TASK_LABELS.CHECKOUT} changed from Supported to Blocked`;
        expect(items.map((i) => i.title), path).toContain(title);
        // The change names the agent's verdict now (every entry of the pair does, with the current sentence).
        expect(items.find((i) => i.title === title)!.content, path).toContain(`now: <strong>${now.symbol} ${now.sentence}</strong>`);
      }
    });
  });

  describe('badges', () => {
    it('shows the verdict in its colour, short ("checkout ✓") with the sentence in the title, hatched when low confidence, with Cache-Control, an ETag and 304', async () => {
      const shop = await aMerchant(t.db.prisma, { name: 'Badge Shop' });
      const outcomes = { supported: 'WORKS', partial: 'PARTIAL', blocked: 'BLOCKED', unsupported: 'DOES_NOT_WORK', unknown: 'UNSURE' } as const;
      for (const [status, outcome] of Object.entries(outcomes)) {
        const a = await anAgent(t.db.prisma, { slug: `badge-${status}` });
        await aReport(t.db.prisma, { merchantId: shop.id, agentId: a.id, status: 'APPROVED', outcome, capabilityResults: { ACCESS: outcome } }, t.clock.now());
      }
      // Through checkout on three agreeing reports: green, medium confidence (solid).
      const through = await anAgent(t.db.prisma, { slug: 'badge-checkout', name: 'A Rather Long Agent Name' });
      for (let i = 0; i < 3; i += 1) {
        const capabilityResults = { ACCESS: 'WORKS', SEARCH: 'WORKS', DETAILS: 'WORKS', CART: 'WORKS', CHECKOUT: 'WORKS' } as const;
        await aReport(t.db.prisma, { merchantId: shop.id, agentId: through.id, status: 'APPROVED', outcome: 'WORKS', capabilityResults }, t.clock.now());
      }
      // Stopped at the door on three agreeing reports: red, medium.
      const stopped = await anAgent(t.db.prisma, { slug: 'badge-stopped' });
      for (let i = 0; i < 3; i += 1) {
        await aReport(t.db.prisma, { merchantId: shop.id, agentId: stopped.id, status: 'APPROVED', outcome: 'BLOCKED', capabilityResults: { ACCESS: 'BLOCKED' } }, t.clock.now());
      }
      await anAgent(t.db.prisma, { slug: 'badge-untested' });
      const verdicts = await verdictsOn(t, shop.slug);
      const colours = new Set<string>();
      for (const slug of [...Object.keys(outcomes).map((status) => `badge-${status}`), 'badge-checkout', 'badge-stopped', 'badge-untested']) {
        const res = await text(t, `/badges/${shop.slug}/${slug}.svg`).expect(200);
        expect(res.headers['content-type']).toBe('image/svg+xml; charset=utf-8');
        expect(res.headers['cache-control']).toBe('public, max-age=300, stale-if-error=600');
        expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
        const svg = res.body as string;
        expect(svg, slug).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" width="(\d+)"/);
        expect(XMLValidator.validate(svg), slug).toBe(true);
        // Short enough for a README line.
        expect(Number(/width="(\d+)"/.exec(svg)![1]), slug).toBeLessThanOrEqual(200);
        // The API's verdict: its few words and symbol, its colour, the whole sentence in the title.
        const v = verdicts.get(slug) ?? { short: 'not tested', symbol: '–', colour: 'grey' as const, sentence: 'Not tested yet', confidence: 'low', evidenceText: 'No reports yet' };
        expect(svg, slug).toContain(`>${escapeBadge(`${v.short} ${v.symbol}`)}</text>`);
        expect(svg, slug).toContain(`fill="${BADGE_COLOURS[v.colour]}"`);
        const title = /<title>([^<]*)<\/title>/.exec(svg)![1]!;
        expect(title, slug).toContain(`at Badge Shop: ${v.sentence.replace(/'/g, '&#39;')} (${v.evidenceText}`);
        expect(svg.includes('data-confidence="low"'), slug).toBe(v.confidence === 'low' && slug !== 'badge-untested');
        colours.add(v.colour);
        expect(res.headers.etag).toBeDefined();
        await text(t, `/badges/${shop.slug}/${slug}.svg`, { 'If-None-Match': res.headers.etag! }).expect(304);
      }
      expect(colours).toEqual(new Set(['green', 'amber', 'red', 'grey']));
      expect(verdicts.get('badge-checkout')).toMatchObject({ colour: 'green', short: 'checkout', confidence: 'medium' });
      expect(verdicts.get('badge-stopped')).toMatchObject({ colour: 'red', short: 'stops at access' });
      // One report is as red as three: colour never follows confidence; the hatch says it is one report.
      expect(verdicts.get('badge-blocked')).toMatchObject({ colour: 'red', confidence: 'low', sentence: 'Stopped at website access: blocked' });
      expect((await text(t, `/badges/${shop.slug}/badge-untested.svg`).expect(200)).body as string).toContain('not tested');
    });

    it('shows a task\'s status with ?task= in words and a symbol, in one neutral colour (colours are the verdict\'s)', async () => {
      const shop = await aMerchant(t.db.prisma, { name: 'Task Badge Shop' });
      const outcomes = { supported: 'WORKS', partial: 'PARTIAL', blocked: 'BLOCKED', unsupported: 'DOES_NOT_WORK', unknown: 'UNSURE' } as const;
      for (const [status, outcome] of Object.entries(outcomes)) {
        const a = await anAgent(t.db.prisma, { slug: `task-badge-${status}` });
        await aReport(t.db.prisma, { merchantId: shop.id, agentId: a.id, status: 'APPROVED', outcome, capabilityResults: { CART: outcome } }, t.clock.now());
      }
      await anAgent(t.db.prisma, { slug: 'task-badge-untested' });
      for (const status of [...Object.keys(outcomes), 'untested'] as Array<keyof typeof BADGE_STATUS>) {
        const svg = (await text(t, `/badges/${shop.slug}/task-badge-${status}.svg?task=CART`).expect(200)).body as string;
        expect(svg, status).toContain(escapeBadge(BADGE_STATUS[status]));
        expect(svg, status).toContain(`fill="${TASK_BADGE_COLOUR}"`);
      }
    });

    it('shows one task, escapes its text, and gives a grey "unknown" 404 for an unknown merchant or agent', async () => {
      const svg = (await text(t, `/badges/${merchant.slug}/${agent.slug}.svg?task=CHECKOUT`).expect(200)).body as string;
      expect(svg).toContain(`Cart &lt;Bot&gt; &amp; Co · ${TASK_LABELS.CHECKOUT.toLowerCase()}`);
      expect(svg).toContain('blocked');
      expect(svg).not.toContain('<Bot>');
      for (const path of [`/badges/no-such-shop/${agent.slug}.svg`, `/badges/${merchant.slug}/no-such-agent.svg`, '/badges/%3Cscript%3E/x.svg']) {
        const res = await text(t, path).expect(404);
        expect(res.body as string).toContain('unknown');
        expect(res.body as string).toContain('fill="#6e6e6e"');
      }
      expect((await text(t, `/badges/${merchant.slug}/${agent.slug}.svg?task=NOPE`).expect(400)).body as string).toContain('task must be one of');
    });
  });

  describe('on the pages', () => {
    it('offers the badge embed snippet, the feed, its autodiscovery link and the trend with a sparkline on the merchant page', async () => {
      const page = await request(t.app).get(`/merchants/${merchant.slug}`).expect(200);
      expect(await htmlProblems(page.text)).toEqual([]);
      expect(page.text).not.toMatch(/<[a-z][^>]*\s(style|on[a-z]+)=/i);
      expect(page.text).toContain(`${TEST_BASE_URL}/badges/${merchant.slug}/${agent.slug}.svg`);
      expect(page.text).toContain(`&lt;a href=&#34;${TEST_BASE_URL}/merchants/${merchant.slug}&#34;&gt;&lt;img src=&#34;${TEST_BASE_URL}/badges/${merchant.slug}/${agent.slug}.svg&#34;`);
      expect(page.text).toContain(`<link rel="alternate" type="application/atom+xml" title="${merchant.name}: new reports and status changes" href="/merchants/${merchant.slug}/feed.atom">`);
      expect(page.text).toContain('<link rel="alternate" type="application/atom+xml" title="Agent-Compatibility Directory: new reports and status changes" href="/feed.atom">');
      expect(page.text).toContain('Last 90 days:');
      expect(page.text).toMatch(/<svg class="sparkline"[^>]*role="img" aria-label="Cart &lt;Bot&gt; &amp; Co: reports per month/);
      // Checkout moved from supported to blocked: the recent status differs from... the same window here.
      const how = await request(t.app).get('/how-it-works').expect(200);
      expect(how.text).toContain('id="trends"');
    });

    it('announces the agent and category feeds on their pages', async () => {
      const agentPage = await request(t.app).get(`/agents/${agent.slug}`).expect(200);
      expect(agentPage.text).toContain(`href="/agents/${agent.slug}/feed.atom"`);
      const categoryPage = await request(t.app).get(`/categories/${category.slug}`).expect(200);
      expect(categoryPage.text).toContain(`href="/categories/${category.slug}/feed.atom"`);
    });
  });

  describe('discovery', () => {
    it('serves /llms.txt whose links all resolve, /robots.txt, and the API index with its Link headers', async () => {
      const llms = await text(t, '/llms.txt').expect(200);
      expect(llms.headers['content-type']).toBe('text/plain; charset=utf-8');
      const body = llms.body as string;
      expect(body).toMatch(/^# Agent-Compatibility Directory\n\n> /);
      const links = [...body.matchAll(/\]\((http[^)]+)\)/g)].map((m) => m[1]!);
      // How far an agent gets, and the query for "where does my agent get through checkout".
      expect(body).toContain('`verdict`');
      expect(body).toContain('`reach`');
      expect(body).toContain(`\`GET ${TEST_BASE_URL}/api/v1/agents/{slug}/merchants?reaches=CHECKOUT&sort=reach\``);
      for (const name of ['/agent-guide', '/api/v1/openapi.json', '/api/v1/contribution-schema', '/mcp', '/how-it-works']) {
        expect(links).toContain(`${TEST_BASE_URL}${name}`);
      }
      await request(t.app).post('/api/v1/reports').expect(401); // make sure nothing above needs a key
      for (const link of links) {
        const path = link.slice(TEST_BASE_URL.length);
        if (path === '/mcp') {
          // The MCP endpoint takes POST: a JSON-RPC ping answers.
          const res = await request(t.app).post('/mcp').set('Accept', 'application/json, text/event-stream').send({ jsonrpc: '2.0', id: 1, method: 'ping' });
          expect(res.status, link).toBe(200);
        } else {
          expect((await request(t.app).get(path)).status, link).toBe(200);
        }
      }
      const robots = await text(t, '/robots.txt').expect(200);
      expect(robots.body as string).toContain('Disallow: /admin');
      expect(robots.body as string).toContain(`${TEST_BASE_URL}/llms.txt`);

      const index = await request(t.app).get('/api/v1').expect(200);
      expect(index.headers.link).toContain(`<${TEST_BASE_URL}/api/v1/openapi.json>; rel="service-desc"`);
      expect(index.headers.link).toContain(`<${TEST_BASE_URL}/agent-guide>; rel="service-doc"`);
      expect(index.body.documentation.openApi).toBe(`${TEST_BASE_URL}/api/v1/openapi.json`);
      expect(index.body.disclaimer).toContain('Community-reported');
    });
  });

  // Last: its hostile names then appear on every page that lists active agents.
  describe('hostile names', () => {
    it('keeps a badge well-formed SVG when a stored agent name carries control characters', async () => {
      // Stored before the admin form refused them (or by hand): the badge must still be XML.
      const named = await anAgent(t.db.prisma, { name: 'Ctrl\u0001Bot\u001f\u007f <b>', slug: 'ctrl-bot' });
      await aReport(t.db.prisma, { merchantId: merchant.id, agentId: named.id, status: 'APPROVED', outcome: 'WORKS', capabilityResults: { ACCESS: 'WORKS' } }, t.clock.now());
      for (const path of [`/badges/${merchant.slug}/${named.slug}.svg`, `/badges/${merchant.slug}/${named.slug}.svg?task=ACCESS`]) {
        const svg = (await text(t, path).expect(200)).body as string;
        expect(XMLValidator.validate(svg), path).toBe(true);
        // eslint-disable-next-line no-control-regex
        expect(svg, path).not.toMatch(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/);
        expect(svg, path).toContain('Ctrl');
        expect(svg, path).toContain('&lt;b&gt;');
      }
    });

    it('escapes names in entry titles: markup stays text, and "]]>" or a control character never breaks the XML', async () => {
      const hostileMerchant = await aMerchant(t.db.prisma, { name: 'Shop ]]> one ]]> two <script>alert(1)</script>', categoryId: category.id });
      const hostileAgent = await anAgent(t.db.prisma, { name: 'Bot <img src=x onerror=alert(2)> ]]>\u0001', slug: 'hostile-bot' });
      // A first report makes ACCESS supported, four blocked ones move it: a status-change entry too.
      for (const outcome of ['WORKS', 'BLOCKED', 'BLOCKED', 'BLOCKED', 'BLOCKED'] as const) {
        const report = await aReport(t.db.prisma, {
          merchantId: hostileMerchant.id,
          agentId: hostileAgent.id,
          status: 'PENDING',
          outcome,
          capabilityResults: { ACCESS: outcome },
        });
        t.clock.advance(60_000);
        await approveReport(t.db.prisma, { reportId: report.id, actorId: null, now: t.clock.now() });
      }
      for (const path of ['/feed.atom', `/merchants/${hostileMerchant.slug}/feed.atom`, `/agents/${hostileAgent.slug}/feed.atom`, `/categories/${category.slug}/feed.atom`]) {
        const xml = (await text(t, path).expect(200)).body as string;
        expect(XMLValidator.validate(xml), path).toBe(true);
        expect(xml, path).not.toContain('<script>');
        expect(xml, path).not.toContain('<img');
        // Both kinds of entry (the approved report and the status change) carry the names as escaped HTML.
        const titles = [...xml.matchAll(/<title type="html"><!\[CDATA\[(.*?)\]\]><\/title>/g)].map((m) => m[1]!);
        const mine = titles.filter((title) => title.includes('alert(1)'));
        expect(mine.length, path).toBeGreaterThanOrEqual(2);
        for (const title of mine) expect(title).toContain('Shop ]]&gt; one ]]&gt; two &lt;script&gt;alert(1)&lt;/script&gt;');
      }
    });
  });
});
