// How far each agent gets, on the pages (issue 24): every card and the merchant page lead with
// the API's reach label, coloured by its tone; the home page asks "where does my agent get
// through checkout?"; a search for an agent's name points to it; a category page offers a
// merchants × agents table; the reach filters mean what the API's do.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FUNNEL_TASKS } from '../../src/modules/aggregation/constants.js';
import { createDemoApp, DEMO_NOW } from '../setup/demo.js';
import type { TestApp } from '../setup/app.js';
import { aMerchant, aReport } from '../factories/index.js';
import { htmlProblems } from './html-validate.js';

interface ApiReach {
  level: number;
  label: string;
  tone: 'green' | 'amber' | 'red' | 'grey';
  confidence: 'low' | 'medium' | 'high';
}
interface ApiMerchant {
  id: string;
  slug: string;
  name: string;
  sponsored: boolean;
  agents: Array<{ agent: { slug: string; name: string }; reach: ApiReach }>;
}

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&#34;').replace(/'/g, '&#39;');

/** Each card's badges: merchant slug → [agent slug, tone class, label]. */
function cardBadges(html: string): Map<string, Array<[string, string, string]>> {
  const cards = new Map<string, Array<[string, string, string]>>();
  for (const card of html.matchAll(/<li class="merchant-card" data-merchant="([^"]+)">([\s\S]*?)<\/li>\s*(?=<li class="merchant-card"|<\/ol>)/g)) {
    const badges = [...card[2]!.matchAll(/<span class="badge reach-(\w+)" data-agent="([^"]+)" data-tone="(\w+)"[^>]*><span class="symbol" aria-hidden="true">[^<]+<\/span> <span class="badge-agent">[^<]*<\/span> <span class="reach-label">([^<]*)<\/span>/g)];
    for (const b of badges) expect(b[1]).toBe(b[3]);
    cards.set(card[1]!, badges.map((b) => [b[2]!, b[1]!, b[4]!]));
  }
  return cards;
}

describe('how far each agent gets, on the pages', () => {
  let t: TestApp;
  const get = (path: string) => request(t.app).get(path);
  const api = async <T = ApiMerchant>(path: string) => (await get(path).expect(200)).body as { total: number; data: T[] };
  let agent: { slug: string; name: string; id: string };
  let green: { slug: string; id: string };
  let browsingOnly: { slug: string };

  beforeAll(async () => {
    t = await createDemoApp();
    // The demo's reaches are all of low confidence: add a merchant where the agent is known (three
    // agreeing reports) to get through checkout, and one where only browsing was tested.
    const now = new Date(DEMO_NOW);
    const row = await t.db.prisma.agent.findFirstOrThrow({ where: { active: true }, orderBy: { name: 'asc' } });
    agent = { slug: row.slug, name: row.name, id: row.id };
    const electronics = await t.db.prisma.category.findUniqueOrThrow({ where: { slug: 'electronics' } });
    const m = await aMerchant(t.db.prisma, { name: 'Known Checkout Shop', slug: 'known-checkout-shop', categoryId: electronics.id });
    const b = await aMerchant(t.db.prisma, { name: 'Browsing Only Shop', slug: 'browsing-only-shop', categoryId: electronics.id });
    for (let i = 0; i < 3; i += 1) {
      await aReport(t.db.prisma, {
        merchantId: m.id,
        agentId: agent.id,
        status: 'APPROVED',
        capabilityResults: { ACCESS: 'WORKS', SEARCH: 'WORKS', DETAILS: 'WORKS', CART: 'WORKS', CHECKOUT: 'WORKS' },
        createdAt: new Date(now.getTime() - (i + 1) * 86_400_000),
      }, now);
      await aReport(t.db.prisma, {
        merchantId: b.id,
        agentId: agent.id,
        status: 'APPROVED',
        capabilityResults: { ACCESS: 'WORKS', SEARCH: 'WORKS' },
        createdAt: new Date(now.getTime() - (i + 1) * 86_400_000),
      }, now);
    }
    green = { slug: m.slug, id: m.id };
    browsingOnly = { slug: b.slug };
  });
  afterAll(() => t.close());

  it('shows on every card each agent\'s reach label, coloured by its tone, as the API gives them', async () => {
    const pages: Array<[string, string]> = [
      ['/', '/api/v1/merchants'],
      ['/?page=2', '/api/v1/merchants?page=2'],
      ['/?q=shop', '/api/v1/merchants?q=shop'],
      [`/agents/${agent.slug}`, `/api/v1/agents/${agent.slug}/merchants`],
      ['/categories/electronics', '/api/v1/merchants?category=electronics'],
      [`/?agent=${agent.slug}&reaches=CHECKOUT&sort=reach`, `/api/v1/merchants?agent=${agent.slug}&reaches=CHECKOUT&sort=reach`],
    ];
    const tones = new Set<string>();
    for (const [page, apiPath] of pages) {
      const res = await get(page).expect(200);
      expect(await htmlProblems(res.text), page).toEqual([]);
      const cards = cardBadges(res.text);
      const { data } = await api(apiPath);
      const listed = data.filter((m) => !m.sponsored);
      expect([...cards.keys()], page).toEqual(listed.map((m) => m.slug));
      for (const merchant of listed) {
        const shown = cards.get(merchant.slug)!;
        expect(shown, `${page} ${merchant.slug}`).toEqual(merchant.agents.map((a) => [a.agent.slug, a.reach.tone, escapeHtml(a.reach.label)]));
        for (const a of merchant.agents) {
          tones.add(a.reach.tone);
          // Green only where the agent is known to get at least as far as the cart.
          if (a.reach.tone === 'green') {
            expect(a.reach.level).toBeGreaterThanOrEqual(FUNNEL_TASKS.indexOf('CART') + 1);
            expect(a.reach.confidence).not.toBe('low');
          }
        }
      }
    }
    expect([...tones]).toEqual(expect.arrayContaining(['green', 'amber', 'red']));
    // The shop known to get through checkout is green; the one where only browsing was tested is not.
    const { data } = await api(`/api/v1/agents/${agent.slug}/merchants?q=only%20shop`);
    expect(data.find((m) => m.slug === browsingOnly.slug)!.agents[0]!.reach.tone).toBe('amber');
    const home = await get(`/agents/${agent.slug}?q=known%20checkout`).expect(200);
    expect(cardBadges(home.text).get(green.slug)![0]![1]).toBe('green');
  });

  it('asks on the home page where an agent gets through checkout, and lands on that list', async () => {
    const home = await get('/').expect(200);
    const finder = /<section aria-labelledby="finder-heading" class="finder">([\s\S]*?)<\/section>/.exec(home.text)![1]!;
    expect(finder).toContain('<h2 id="finder-heading">Where does my agent get through checkout?</h2>');
    expect(finder).toContain('<form method="get" action="/" id="finder"');
    expect(finder).toContain(`<option value="${agent.slug}">${escapeHtml(agent.name)}</option>`);
    expect(finder).toContain('<option value="CHECKOUT" selected>checkout</option>');
    expect(finder).toContain('<input type="hidden" name="sort" value="reach">');
    // The finder comes before the results.
    expect(home.text.indexOf('id="finder"')).toBeLessThan(home.text.indexOf('id="results-heading"'));

    const list = await get(`/?agent=${agent.slug}&reaches=CHECKOUT&sort=reach`).expect(200);
    expect(list.text).toContain(`<h2 id="results-heading">Shops where ${escapeHtml(agent.name)} gets through checkout</h2>`);
    const { data, total } = await api(`/api/v1/merchants?agent=${agent.slug}&reaches=CHECKOUT&sort=reach`);
    expect(list.text).toContain(`${total} merchant`);
    expect([...cardBadges(list.text).keys()]).toEqual(data.filter((m) => !m.sponsored).map((m) => m.slug));
    for (const m of data) expect(m.agents[0]!.reach.level).toBeGreaterThanOrEqual(5);
    expect(list.text).toMatch(/Filtered by <span class="filter-chip">Agent: <strong>[^<]+<\/strong><\/span>; <span class="filter-chip">Gets at least through: <strong>checkout<\/strong><\/span>/);
    // The finder keeps the choice.
    expect(list.text).toContain(`<option value="${agent.slug}" selected>`);
  });

  it('points a search for an agent\'s name to the agent, even when no merchant matches', async () => {
    for (const q of [agent.name, agent.name.toUpperCase(), agent.name.split(' ')[0]!]) {
      const res = await get(`/?q=${encodeURIComponent(q)}`).expect(200);
      expect(await htmlProblems(res.text)).toEqual([]);
      const pointer = /<p class="notice agent-pointer">([\s\S]*?)<\/p>/.exec(res.text)![1]!;
      expect(pointer).toContain(`Looking for the agent <strong>${escapeHtml(agent.name)}</strong>? <a href="/agents/${agent.slug}">See its page</a>`);
    }
    expect((await get(`/?q=${encodeURIComponent(agent.name)}`).expect(200)).text).toContain('0 merchants found');
    expect((await get('/?q=zzxqvv').expect(200)).text).not.toContain('agent-pointer');
  });

  it('offers a category as a merchants × agents table, each cell the reach, sortable by an agent\'s column', async () => {
    const agents = (await api<{ slug: string; name: string }>('/api/v1/agents')).data;
    const res = await get('/categories/electronics?layout=table').expect(200);
    expect(await htmlProblems(res.text)).toEqual([]);
    const table = /<table class="reach-table"[\s\S]*?<\/table>/.exec(res.text)![0];
    const heads = [...table.matchAll(/<th scope="col" data-agent="([^"]+)"[^>]*><a href="([^"]+)">/g)];
    expect(heads.map((h) => h[1])).toEqual(agents.map((a) => a.slug));
    for (const [, slug, href] of heads) expect(href).toBe(`/categories/electronics?agent=${slug}&amp;sort=reach&amp;layout=table`);
    const { data } = await api('/api/v1/merchants?category=electronics');
    const rows = [...table.matchAll(/<tr data-merchant="([^"]+)">([\s\S]*?)<\/tr>/g)];
    expect(rows.map((r) => r[1])).toEqual(data.filter((m) => !m.sponsored).map((m) => m.slug));
    for (const [, slug, row] of rows) {
      const merchant = data.find((m) => m.slug === slug)!;
      const cells = [...row!.matchAll(/<td class="reach-cell reach-(\w+)" data-agent="([^"]+)"[^>]*><span class="symbol" aria-hidden="true">[^<]+<\/span> ([^<]*)<\/td>/g)];
      expect(cells.map((c) => c[2])).toEqual(agents.map((a) => a.slug));
      for (const [, tone, agentSlug, label] of cells) {
        const summary = merchant.agents.find((a) => a.agent.slug === agentSlug);
        expect([tone, label]).toEqual(summary ? [summary.reach.tone, escapeHtml(summary.reach.label)] : ['grey', 'Not tested']);
      }
    }

    // Sorted by one agent's column: the API's order for that agent, every other column still filled.
    const sorted = await get(`/categories/electronics?agent=${agent.slug}&sort=reach&layout=table`).expect(200);
    expect(await htmlProblems(sorted.text)).toEqual([]);
    expect(sorted.text).toMatch(new RegExp(`<th scope="col" data-agent="${agent.slug}" aria-sort="descending">`));
    const order = (await api(`/api/v1/merchants?category=electronics&agent=${agent.slug}&sort=reach`)).data.filter((m) => !m.sponsored);
    const sortedRows = [...sorted.text.matchAll(/<tr data-merchant="([^"]+)">([\s\S]*?)<\/tr>/g)];
    expect(sortedRows.map((r) => r[1])).toEqual(order.map((m) => m.slug));
    expect(sortedRows.map((r) => r[1])).toContain(green.slug);
    for (const [, slug, row] of sortedRows) {
      const profile = (await get(`/api/v1/merchants/${slug}`).expect(200)).body.data as ApiMerchant;
      for (const a of profile.agents) {
        expect(row).toContain(`data-agent="${a.agent.slug}" data-tone="${a.reach.tone}"`);
      }
    }
    // The cards stay one link away, and the table another.
    expect(res.text).toContain('<a href="/categories/electronics">cards</a>');
    expect((await get('/categories/electronics').expect(200)).text).toContain('<a href="/categories/electronics?layout=table">a table of merchants × agents</a>');
  });

  it('leads the merchant page with each agent\'s reach, above the capability matrix', async () => {
    const { data } = await api('/api/v1/merchants?sort=popular');
    for (const slug of [green.slug, data[0]!.slug]) {
      const res = await get(`/merchants/${slug}`).expect(200);
      expect(await htmlProblems(res.text)).toEqual([]);
      expect(res.text.indexOf('id="reach-heading"')).toBeLessThan(res.text.indexOf('id="matrix-heading"'));
      const profile = (await get(`/api/v1/merchants/${slug}`).expect(200)).body.data as ApiMerchant;
      for (const a of profile.agents) {
        const item = new RegExp(`<li class="reach-agent" id="reach-${a.agent.slug}">([\\s\\S]*?)</li>\\s*(?=<li class="reach-agent"|</ul>)`).exec(res.text)![1]!;
        expect(item).toContain(`<span class="badge reach-${a.reach.tone}" data-agent="${a.agent.slug}" data-tone="${a.reach.tone}"`);
        expect(item).toContain(`<span class="reach-label">${escapeHtml(a.reach.label)}</span>`);
      }
    }
    // The ladder says where the agent stands on each step.
    const known = await get(`/merchants/${green.slug}`).expect(200);
    const ladder = new RegExp(`<li class="reach-agent" id="reach-${agent.slug}">[\\s\\S]*?<ol class="ladder">([\\s\\S]*?)</ol>`).exec(known.text)![1]!;
    expect([...ladder.matchAll(/data-task="(\w+)" data-state="(\w+)"/g)].map((m) => [m[1], m[2]])).toEqual([
      ['ACCESS', 'through'],
      ['SEARCH', 'through'],
      ['DETAILS', 'through'],
      ['CART', 'through'],
      ['CHECKOUT', 'through'],
      ['PURCHASE', 'open'],
    ]);
  });

  it('applies the reach filters as the API does, and asks for an agent when one is missing', async () => {
    const queries = [
      `agent=${agent.slug}&reaches=CART`,
      `agent=${agent.slug}&task=CHECKOUT&taskStatus=blocked,unsupported`,
      `agent=${agent.slug}&task=CART&taskStatus=supported&minConfidence=medium`,
      `agent=${agent.slug}&sort=reach`,
    ];
    for (const query of queries) {
      const page = await get(`/?${query}`).expect(200);
      expect(await htmlProblems(page.text), query).toEqual([]);
      const { data, total } = await api(`/api/v1/merchants?${query}`);
      expect([...cardBadges(page.text).keys()], query).toEqual(data.filter((m) => !m.sponsored).map((m) => m.slug));
      expect(page.text, query).toContain(`${total} merchant`);
    }
    const chips = (await get(`/?agent=${agent.slug}&task=CHECKOUT&taskStatus=blocked,unsupported&minConfidence=medium`).expect(200)).text;
    expect(chips).toContain('<span class="filter-chip">Task: <strong>Agent checkout</strong></span>');
    expect(chips).toContain('<span class="filter-chip">Where that task: <strong>is blocked or doesn&#39;t work</strong></span>');
    expect(chips).toContain('<span class="filter-chip">How sure, at least: <strong>Medium confidence</strong></span>');

    // Without an agent: a notice offering the agents, each link keeping the filter; the list meanwhile.
    const res = await get('/?reaches=CHECKOUT').expect(200);
    const notice = /<div class="notice" id="needs-agent">([\s\S]*?)<\/div>/.exec(res.text)![1]!;
    expect(notice).toContain('needs an agent');
    expect(notice).toContain(`href="/?agent=${agent.slug}&amp;reaches=CHECKOUT"`);
    // A filter the API refuses in words of its own becomes the form's words.
    const incomplete = await get(`/?agent=${agent.slug}&task=CART`).expect(400);
    expect(incomplete.text).toContain('Where that task: choose which statuses to match for the task.');
  });
});
