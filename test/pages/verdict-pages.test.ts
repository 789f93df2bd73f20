// The verdict on the pages: every card, the merchant page and the category table show each
// agent's verdict as the API gives it (sentence, colour, confidence drawn apart); the home page
// asks "where does my agent get through checkout?"; a search for an agent's name points to it;
// a category page leads with which agent gets furthest there and offers a merchants × agents
// table of every merchant it counts; an agent's page breaks its results down by category; the
// reach filters mean what the API's do; counts are said as numbers, sponsored listings apart.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FUNNEL_TASKS } from '../../src/modules/aggregation/constants.js';
import { createDemoApp, DEMO_NOW } from '../setup/demo.js';
import type { TestApp } from '../setup/app.js';
import { aMerchant, aReport } from '../factories/index.js';
import { htmlProblems } from './html-validate.js';

interface ApiVerdict {
  sentence: string;
  colour: 'green' | 'amber' | 'red' | 'grey';
  confidence: 'low' | 'medium' | 'high';
  evidenceText: string;
  through: string | null;
}
interface ApiMerchant {
  id: string;
  slug: string;
  name: string;
  sponsored: boolean;
  agents: Array<{ agent: { slug: string; name: string }; label: string; verdict: ApiVerdict; reach: { level: number } }>;
}

/** "12 shops + 2 sponsored found", as a list's count line says it for these API results. */
const countLine = (total: number, sponsored: number) => `${total - sponsored} ${total - sponsored === 1 ? 'shop' : 'shops'}${sponsored ? ` + ${sponsored} sponsored` : ''} found`;

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&#34;').replace(/'/g, '&#39;');

/** Each card's verdicts: merchant slug → [agent slug, colour, confidence, sentence]. */
function cardBadges(html: string): Map<string, Array<[string, string, string, string]>> {
  const cards = new Map<string, Array<[string, string, string, string]>>();
  for (const card of html.matchAll(/<li class="merchant-card(?: sponsored)?" data-merchant="([^"]+)"[^>]*>([\s\S]*?)<\/li>\s*(?=<li class="merchant-card|<\/ol>)/g)) {
    const verdicts = [
      ...card[2]!.matchAll(
        /<span class="verdict verdict-(\w+) conf-(\w+)" data-colour="(\w+)" data-confidence="\w+" data-short="[^"]*" data-agent="([^"]+)"><span class="symbol" aria-hidden="true">[^<]+<\/span> <span class="verdict-agent">[^<]*<\/span> <span class="verdict-sentence">([^<]*)<\/span>/g,
      ),
    ];
    for (const v of verdicts) expect(v[1]).toBe(v[3]);
    cards.set(card[1]!, verdicts.map((v) => [v[4]!, v[1]!, v[2]!, v[5]!]));
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

  it('shows the whole scale in the demo: every colour on the first list page, and pairs at medium and high confidence', async () => {
    // The demo's data (this file's two shops are left out of the counts).
    const first = await get('/').expect(200);
    const colours = new Set([...first.text.matchAll(/<ul class="verdicts">[\s\S]*?<\/ul>/g)].flatMap((m) => [...m[0].matchAll(/data-colour="(\w+)"/g)].map((c) => c[1])));
    expect([...colours].sort()).toEqual(['amber', 'green', 'grey', 'red']);
    const confidences = new Map<string, number>();
    for (let page = 1; page <= 3; page += 1) {
      for (const m of (await api(`/api/v1/merchants?page=${page}`)).data) {
        if (m.slug === green.slug || m.slug === browsingOnly.slug) continue;
        for (const a of m.agents) confidences.set(a.verdict.confidence, (confidences.get(a.verdict.confidence) ?? 0) + 1);
      }
    }
    expect(confidences.get('high') ?? 0).toBeGreaterThanOrEqual(2);
    expect((confidences.get('high') ?? 0) + (confidences.get('medium') ?? 0)).toBeGreaterThanOrEqual(10);
  });

  it('shows on every card, sponsored ones too, each agent\'s verdict as the API gives it', async () => {
    const pages: Array<[string, string]> = [
      ['/', '/api/v1/merchants'],
      ['/?page=2', '/api/v1/merchants?page=2'],
      ['/?q=shop', '/api/v1/merchants?q=shop'],
      [`/agents/${agent.slug}`, `/api/v1/agents/${agent.slug}/merchants`],
      ['/categories/electronics', '/api/v1/merchants?category=electronics'],
      [`/?agent=${agent.slug}&reaches=CHECKOUT&sort=reach`, `/api/v1/merchants?agent=${agent.slug}&reaches=CHECKOUT&sort=reach`],
    ];
    const colours = new Set<string>();
    for (const [page, apiPath] of pages) {
      const res = await get(page).expect(200);
      expect(await htmlProblems(res.text), page).toEqual([]);
      const cards = cardBadges(res.text);
      const { data } = await api(apiPath);
      expect([...cards.keys()], page).toEqual(data.map((m) => m.slug));
      for (const merchant of data) {
        const shown = cards.get(merchant.slug)!;
        expect(shown, `${page} ${merchant.slug}`).toEqual(merchant.agents.map((a) => [a.agent.slug, a.verdict.colour, a.verdict.confidence, escapeHtml(a.label)]));
        for (const a of merchant.agents) {
          colours.add(a.verdict.colour);
          expect(a.label).toBe(a.verdict.sentence);
          // Green only where the agent gets through checkout.
          if (a.verdict.colour === 'green') expect(FUNNEL_TASKS.indexOf(a.verdict.through as never)).toBeGreaterThanOrEqual(FUNNEL_TASKS.indexOf('CHECKOUT'));
          expect(a.verdict.sentence).not.toMatch(/not tested/i);
        }
      }
    }
    expect([...colours]).toEqual(expect.arrayContaining(['green', 'amber', 'red']));
    // The shop known to get through checkout is green and solid; the one where only browsing was tested amber.
    const { data } = await api(`/api/v1/agents/${agent.slug}/merchants?q=only%20shop`);
    expect(data.find((m) => m.slug === browsingOnly.slug)!.agents[0]!.verdict.colour).toBe('amber');
    const home = await get(`/agents/${agent.slug}?q=known%20checkout`).expect(200);
    expect(cardBadges(home.text).get(green.slug)![0]!.slice(1, 3)).toEqual(['green', 'medium']);
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
    expect(list.text).toContain(`<h2 id="results-heading">Shops where ${escapeHtml(agent.name)} gets at least as far as checkout</h2>`);
    const { data, total } = await api(`/api/v1/merchants?agent=${agent.slug}&reaches=CHECKOUT&sort=reach`);
    expect(list.text).toContain(countLine(total, data.filter((m) => m.sponsored).length));
    expect([...cardBadges(list.text).keys()]).toEqual(data.map((m) => m.slug));
    // The question folds into one line above the results once asked.
    expect(list.text).toContain('<details class="finder finder-compact">');
    expect(list.text).not.toContain('<p class="lead">');
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
    expect((await get(`/?q=${encodeURIComponent(agent.name)}`).expect(200)).text).toContain('0 shops found');
    expect((await get('/?q=zzxqvv').expect(200)).text).not.toContain('agent-pointer');
  });

  it('offers a category as a merchants × agents table of every merchant it counts, each cell the verdict, sortable by an agent\'s column', async () => {
    const agents = (await api<{ slug: string; name: string }>('/api/v1/agents')).data;
    const res = await get('/categories/electronics?layout=table').expect(200);
    expect(await htmlProblems(res.text)).toEqual([]);
    const table = /<table class="reach-table"[\s\S]*?<\/table>/.exec(res.text)![0];
    const heads = [...table.matchAll(/<th scope="col" data-agent="([^"]+)"[^>]*><a href="([^"]+)">/g)];
    expect(heads.map((h) => h[1])).toEqual(agents.map((a) => a.slug));
    for (const [, slug, href] of heads) expect(href).toBe(`/categories/electronics?agent=${slug}&amp;sort=reach&amp;layout=table`);
    const { data } = await api('/api/v1/merchants?category=electronics');
    const rows = [...table.matchAll(/<tr data-merchant="([^"]+)"( data-sponsored="true")?>([\s\S]*?)<\/tr>/g)];
    // Every merchant the category counts, sponsored ones included and marked.
    const categories = (await api<{ slug: string; merchantCount: number }>('/api/v1/categories')).data;
    expect(rows).toHaveLength(categories.find((c) => c.slug === 'electronics')!.merchantCount);
    expect(rows.map((r) => r[1])).toEqual(data.map((m) => m.slug));
    for (const [, slug, sponsoredMark, row] of rows) {
      const merchant = data.find((m) => m.slug === slug)!;
      expect(Boolean(sponsoredMark)).toBe(merchant.sponsored);
      if (merchant.sponsored) expect(row).toContain('<span class="sponsored-tag">Sponsored</span>');
      const cells = [...row!.matchAll(/<td class="reach-cell" data-agent="([^"]+)"><span class="verdict verdict-(\w+) [^"]*"[^>]*><span class="symbol" aria-hidden="true">[^<]+<\/span> <span class="verdict-sentence">([^<]*)<\/span><\/span> <span class="cell-evidence">([^<]*)<\/span><\/td>/g)];
      expect(cells.map((c) => c[1])).toEqual(agents.map((a) => a.slug));
      for (const [, agentSlug, colour, sentence, evidence] of cells) {
        const summary = merchant.agents.find((a) => a.agent.slug === agentSlug);
        expect([colour, sentence, evidence]).toEqual(summary ? [summary.verdict.colour, escapeHtml(summary.label), summary.verdict.evidenceText] : ['grey', 'Not tested yet', 'No reports yet']);
      }
    }

    // Sorted by one agent's column: the API's order for that agent, every other column still filled.
    const sorted = await get(`/categories/electronics?agent=${agent.slug}&sort=reach&layout=table`).expect(200);
    expect(await htmlProblems(sorted.text)).toEqual([]);
    expect(sorted.text).toMatch(new RegExp(`<th scope="col" data-agent="${agent.slug}" aria-sort="descending">`));
    const order = (await api(`/api/v1/merchants?category=electronics&agent=${agent.slug}&sort=reach`)).data;
    const sortedRows = [...sorted.text.matchAll(/<tr data-merchant="([^"]+)"(?: data-sponsored="true")?>([\s\S]*?)<\/tr>/g)];
    expect(sortedRows.map((r) => r[1])).toEqual(order.map((m) => m.slug));
    expect(sortedRows.map((r) => r[1])).toContain(green.slug);
    for (const [, slug, row] of sortedRows) {
      const profile = (await get(`/api/v1/merchants/${slug}`).expect(200)).body.data as ApiMerchant;
      for (const a of profile.agents) {
        expect(row).toContain(`<td class="reach-cell" data-agent="${a.agent.slug}"><span class="verdict verdict-${a.verdict.colour} conf-${a.verdict.confidence}"`);
      }
    }
    // The cards stay one link away, and the table another.
    expect(res.text).toContain('<a href="/categories/electronics">cards</a>');
    expect((await get('/categories/electronics').expect(200)).text).toContain('<a href="/categories/electronics?layout=table">a table of merchants × agents</a>');
  });

  it('leads the merchant page with each agent\'s verdict and evidence, above the seven-task table', async () => {
    const { data } = await api('/api/v1/merchants?sort=popular');
    for (const slug of [green.slug, data[0]!.slug]) {
      const res = await get(`/merchants/${slug}`).expect(200);
      expect(await htmlProblems(res.text)).toEqual([]);
      expect(res.text.indexOf('id="verdicts-heading"')).toBeLessThan(res.text.indexOf('id="matrix-heading"'));
      const profile = (await get(`/api/v1/merchants/${slug}`).expect(200)).body.data as ApiMerchant & { agents: Array<{ counts: { total: number } }> };
      for (const a of profile.agents.filter((x) => (x as unknown as { counts: { total: number } }).counts.total > 0)) {
        const item = new RegExp(`<li id="verdict-${a.agent.slug}">([\\s\\S]*?)</li>`).exec(res.text)![1]!;
        expect(item).toContain(`<span class="verdict verdict-${a.verdict.colour} conf-${a.verdict.confidence}" data-colour="${a.verdict.colour}"`);
        expect(item).toContain(`<span class="verdict-sentence">${escapeHtml(a.label)}</span>`);
        expect(item).toContain(`<span class="verdict-evidence">${escapeHtml(a.verdict.evidenceText)}`);
      }
    }
    // The table says where the agent stands on each step.
    const known = await get(`/merchants/${green.slug}`).expect(200);
    const row = new RegExp(`<tr id="agent-${agent.slug}">([\\s\\S]*?)</tr>`).exec(known.text)![1]!;
    expect([...row.matchAll(/data-task="(\w+)" data-status="(\w+)"/g)].map((m) => [m[1], m[2]])).toEqual([
      ['ACCESS', 'supported'],
      ['SEARCH', 'supported'],
      ['DETAILS', 'supported'],
      ['LOGIN', 'untested'],
      ['CART', 'supported'],
      ['CHECKOUT', 'supported'],
      ['PURCHASE', 'untested'],
    ]);
  });

  it('leads a category page with which agent gets furthest there, each count the total of the list it links to', async () => {
    const agents = (await api<{ slug: string; name: string }>('/api/v1/agents')).data;
    const res = await get('/categories/electronics').expect(200);
    expect(await htmlProblems(res.text)).toEqual([]);
    const section = /<section aria-labelledby="leaders-heading" class="leaders">([\s\S]*?)<\/section>/.exec(res.text)![1]!;
    expect(res.text.indexOf('id="leaders-heading"')).toBeLessThan(res.text.indexOf('id="results-heading"'));
    const rows = [...section.matchAll(/<tr data-agent="([^"]+)" data-rank="(\d+)">([\s\S]*?)<\/tr>/g)];
    expect(rows.map((r) => r[1]).sort()).toEqual(agents.map((a) => a.slug).sort());
    const tallies: Array<[number, number, number]> = [];
    for (const [, slug, , row] of rows) {
      const counts: Record<string, number> = {};
      for (const [, kind, href, n] of row!.matchAll(/<td class="number" data-count="(\w+)"><a href="([^"]+)">(\d+)</g)) {
        const query = href!.replace(/&amp;/g, '&').replace(/^\/categories\/electronics\?/, '').replace(/#.*/, '');
        expect(Number(n), `${slug} ${kind}`).toBe((await api(`/api/v1/merchants?category=electronics&${query}`)).total);
        counts[kind!] = Number(n);
      }
      tallies.push([counts.checkout!, counts.purchase!, counts.tested!]);
    }
    // Furthest first: by checkout, then purchase, then shops with reports.
    const sorted = [...tallies].sort((a, b) => b[0] - a[0] || b[1] - a[1] || b[2] - a[2]);
    expect(tallies).toEqual(sorted);
  });

  it('breaks an agent\'s results down by category on its page, each count the total of its list', async () => {
    const res = await get(`/agents/${agent.slug}`).expect(200);
    const section = /<section aria-labelledby="by-category-heading" class="by-category">([\s\S]*?)<\/section>/.exec(res.text)![1]!;
    const rows = [...section.matchAll(/<tr data-category="([^"]+)">([\s\S]*?)<\/tr>/g)];
    expect(rows.length).toBeGreaterThan(1);
    for (const [, category, row] of rows) {
      for (const [, kind, href, n] of row!.matchAll(/<td class="number" data-count="(\w+)"><a href="([^"]+)">(\d+)</g)) {
        const query = href!.replace(/&amp;/g, '&').replace(new RegExp(`^/agents/${agent.slug}\\?`), '').replace(/#.*/, '');
        expect(Number(n), `${category} ${kind}`).toBe((await api(`/api/v1/agents/${agent.slug}/merchants?${query}`)).total);
      }
    }
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
      expect([...cardBadges(page.text).keys()], query).toEqual(data.map((m) => m.slug));
      expect(page.text, query).toContain(countLine(total, data.filter((m) => m.sponsored).length));
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
