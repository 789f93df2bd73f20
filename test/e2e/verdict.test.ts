// The verdict in a real browser (Debian's Chromium through playwright-core) at 320, 390 and
// 1280 px: from the home page to "shops where <agent> gets at least as far as checkout" in at most
// three actions, the results in the first screen; every card, merchant page and category table
// shows each agent's verdict as the API gives it, in the legend's colours (solid or outlined by
// confidence, the hue by how far only); a category page's "which agent gets furthest" matches
// the API, and its table lists every merchant the category counts; sponsored listings are cards,
// marked; the agent page's counts lead to their lists; a search for an agent's name points to it;
// every page validates, passes axe, and no page, and no element on it, is wider than the viewport.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_NOW } from '../setup/demo.js';
import { aMerchant, aReport } from '../factories/index.js';
import { htmlProblems } from '../pages/html-validate.js';
import {
  DESK,
  HAS_CHROMIUM,
  fitsViewport,
  PHONE,
  screenshot,
  seriousAxeViolations,
  startBrowserSuite,
  type BrowserSuite,
  type WatchedPage,
} from './browser.js';

const WIDTHS = [
  { name: 'small-phone', width: 320, height: 640, phone: true },
  { name: 'phone', ...PHONE },
  { name: 'desktop', ...DESK },
] as const;
type Size = (typeof WIDTHS)[number];

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}
interface ApiVerdict {
  colour: string;
  confidence: string;
  sentence: string;
  through: string | null;
  stop: { task: string } | null;
  furthest: { task: string } | null;
}
interface ApiMerchant {
  slug: string;
  name: string;
  sponsored: boolean;
  agents: Array<{ agent: { slug: string; name: string }; verdict: ApiVerdict }>;
}

const LADDER = ['ACCESS', 'SEARCH', 'DETAILS', 'CART', 'CHECKOUT', 'PURCHASE'];
const level = (task: string | null | undefined) => (task ? LADDER.indexOf(task) + 1 : 0);
/** The colour rule, stated again: by how far only. */
const ruledColour = (v: ApiVerdict) =>
  level(v.through) >= level('CHECKOUT') ? 'green' : v.stop && level(v.stop.task) <= level('SEARCH') ? 'red' : v.furthest || v.stop ? 'amber' : 'grey';
const UNTESTED: ApiVerdict = { colour: 'grey', confidence: 'low', sentence: 'Not tested yet', through: null, stop: null, furthest: null };

// Browser code as text: the project compiles without the DOM library.
/**
 * Elements sticking out past the viewport's right edge, except inside a box that
 * scrolls or clips them (a table's own scroller, a visually hidden text): each as a short selector.
 */
const ELEMENTS_WIDER_THAN_VIEWPORT = `(() => {
  const width = document.documentElement.clientWidth;
  const clipped = (el) => {
    // The content of a closed disclosure is not shown (and checked again with it open).
    const details = el.closest('details');
    if (details && !details.open && !el.closest('summary')) return true;
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      const style = getComputedStyle(p);
      if (style.overflowX !== 'visible' || style.clipPath !== 'none' || style.clip !== 'auto') return true;
    }
    return false;
  };
  const out = [];
  for (const el of document.body.querySelectorAll('*')) {
    const box = el.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;
    // (Sticking out on the left, like the skip link waiting for focus, scrolls nothing.)
    if (box.right > width + 0.5 && !clipped(el)) {
      out.push(el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\\s+/).join('.') : '') + ' right=' + Math.round(box.right));
    }
  }
  return out.slice(0, 10);
})()`;

/**
 * Every verdict shown on the page, with where it stands and how it is drawn: [merchant slug,
 * agent slug, colour, confidence, sentence, background, border colour, border style].
 */
const SHOWN_VERDICTS = `[...document.querySelectorAll('.verdict[data-agent]')].map((el) => {
  const merchant = el.closest('[data-merchant]')?.getAttribute('data-merchant') ?? document.querySelector('link[rel=alternate][href^="/merchants/"]')?.getAttribute('href').split('/')[2] ?? null;
  const style = getComputedStyle(el);
  return [merchant, el.getAttribute('data-agent'), el.getAttribute('data-colour'), el.getAttribute('data-confidence'), el.querySelector('.verdict-sentence').textContent.trim(), style.backgroundColor, style.borderTopColor, style.borderTopStyle];
})`;

/** How the legend draws each colour: colour → [background, border colour] of its solid sample. */
const LEGEND_COLOURS = `Object.fromEntries([...document.querySelectorAll('.verdict-legend li[data-colour] .verdict')].map((el) => {
  const style = getComputedStyle(el);
  return [el.closest('li').getAttribute('data-colour'), [style.backgroundColor, style.borderTopColor]];
}))`;

describe.skipIf(!HAS_CHROMIUM)('the verdict, in a real browser', { timeout: 240_000 }, () => {
  let live: BrowserSuite;
  let agent: { slug: string; name: string };
  let green: string;

  const json = async <T>(path: string): Promise<T> => {
    const response = await fetch(`${live.baseUrl}${path}`);
    expect(response.status, path).toBe(200);
    return (await response.json()) as T;
  };

  /** Valid, accessible, within CSP, and nothing wider than the viewport. */
  async function pageIsSound(w: WatchedPage, size: Size, where: string): Promise<void> {
    expect(await htmlProblems(await w.documentHtml()), where).toEqual([]);
    expect(await fitsViewport(w.page), `${where} at ${size.width} px`).toBe(true);
    expect(await w.page.evaluate<number>('document.documentElement.scrollWidth'), `${where} at ${size.width} px`).toBeLessThanOrEqual(size.width);
    expect(await w.page.evaluate<string[]>(ELEMENTS_WIDER_THAN_VIEWPORT), `${where} at ${size.width} px`).toEqual([]);
    expect(await seriousAxeViolations(w.page), `axe on ${where} at ${size.width} px`).toEqual([]);
    expect(await w.cspViolations(), `CSP on ${where}`).toEqual([]);
  }

  /**
   * The verdicts the page shows are the API's, drawn as the legend draws their colour: solid at
   * medium or high confidence, outlined (dashed, white) at low; and each colour is the rule's.
   */
  async function verdictsAreTrue(page: Page, where: string, verdictOf: (merchant: string, agent: string) => ApiVerdict | undefined): Promise<number> {
    const legend = await page.evaluate<Record<string, [string, string]>>(LEGEND_COLOURS);
    expect(Object.keys(legend).sort(), `${where}: the legend`).toEqual(['amber', 'green', 'grey', 'red']);
    const shown = await page.evaluate<Array<[string | null, string, string, string, string, string, string, string]>>(SHOWN_VERDICTS);
    let checked = 0;
    for (const [merchant, agentSlug, colour, confidence, sentence, background, border, borderStyle] of shown) {
      if (merchant === null) continue;
      const v = verdictOf(merchant, agentSlug) ?? UNTESTED;
      const what = `${where}: ${merchant} × ${agentSlug}`;
      expect([colour, confidence, sentence], what).toEqual([v.colour, v.confidence, v.sentence]);
      expect(colour, what).toBe(ruledColour(v));
      expect(sentence, what).not.toMatch(v === UNTESTED ? /^$/ : /not tested/i);
      // The legend matches the cells: the same border colour for the same colour; filled as the
      // legend's sample when sure, outlined when not.
      expect(border, what).toBe(legend[colour]![1]);
      if (confidence === 'low') expect([background, borderStyle], what).toEqual(['rgb(255, 255, 255)', 'dashed']);
      else expect([background, borderStyle], what).toEqual([legend[colour]![0], 'solid']);
      checked += 1;
    }
    return checked;
  }

  /** The verdict of every (merchant, agent) pair on the merchants listed by an API path, all pages. */
  async function verdictsFrom(path: string): Promise<(merchant: string, agent: string) => ApiVerdict | undefined> {
    const map = new Map<string, ApiVerdict>();
    const separator = path.includes('?') ? '&' : '?';
    for (let page = 1; page <= 5; page += 1) {
      const { data, total } = await json<{ data: ApiMerchant[]; total: number }>(`${path}${separator}page=${page}`);
      for (const m of data) for (const a of m.agents) map.set(`${m.slug} ${a.agent.slug}`, a.verdict);
      if (page * 24 >= total) break;
    }
    return (merchant, agentSlug) => map.get(`${merchant} ${agentSlug}`);
  }

  beforeAll(async () => {
    live = await startBrowserSuite();
    // A shop where the agent is known (three agreeing reports) to get through checkout.
    const prisma = live.t.db.prisma;
    const now = new Date(DEMO_NOW);
    const row = await prisma.agent.findFirstOrThrow({ where: { active: true, slug: 'errand-otter' } });
    agent = { slug: row.slug, name: row.name };
    const electronics = await prisma.category.findUniqueOrThrow({ where: { slug: 'electronics' } });
    const shop = await aMerchant(prisma, { name: 'Known Checkout Electronics', slug: 'known-checkout-electronics', categoryId: electronics.id });
    for (let i = 0; i < 3; i += 1) {
      await aReport(prisma, {
        merchantId: shop.id,
        agentId: row.id,
        status: 'APPROVED',
        capabilityResults: { ACCESS: 'WORKS', SEARCH: 'WORKS', DETAILS: 'WORKS', CART: 'WORKS', CHECKOUT: 'WORKS' },
        createdAt: new Date(now.getTime() - (i + 1) * 86_400_000),
      }, now);
    }
    green = shop.slug;
  }, 120_000);

  afterAll(() => live?.close());

  for (const size of WIDTHS) {
    it(`at ${size.width} px: from the home page to the shops where an agent gets as far as checkout in three actions or fewer, the results in the first screen`, async () => {
      const w = await live.open(size);
      const { page } = w;
      await page.goto(`${live.baseUrl}/`);
      let actions = 0;
      // 1. Choose the agent; the step already says checkout.
      await page.getByLabel('Agent', { exact: true }).first().selectOption(agent.slug);
      actions += 1;
      expect(await page.locator('#r-reaches').inputValue()).toBe('CHECKOUT');
      // 2. Show the shops.
      await Promise.all([page.waitForURL(/reaches=CHECKOUT/), page.getByRole('button', { name: 'Show shops' }).click()]);
      actions += 1;
      expect(actions).toBeLessThanOrEqual(3);
      expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual({ agent: agent.slug, reaches: 'CHECKOUT', sort: 'reach' });
      expect(await page.locator('#results-heading').textContent()).toBe(`Shops where ${agent.name} gets at least as far as checkout`);
      const apiPath = `/api/v1/merchants?agent=${agent.slug}&reaches=CHECKOUT&sort=reach`;
      const { data, total } = await json<{ data: ApiMerchant[]; total: number }>(apiPath);
      const sponsored = data.filter((m) => m.sponsored).length;
      expect(await page.locator('.result-count').textContent()).toContain(`${total - sponsored} shop${total - sponsored === 1 ? '' : 's'}${sponsored ? ` + ${sponsored} sponsored` : ''} found`);
      expect(await page.locator('.merchant-card h3 a').allTextContents()).toEqual(data.map((m) => m.name));
      // The results are in the first screen, at every width: the first result's name is on it; on
      // a phone of 390 px or wider, and on a desktop, its first verdict too.
      const firstName = (await page.locator('.merchant-card h3').first().boundingBox()) as Box;
      expect(firstName.y + firstName.height, 'the first result on the first screen').toBeLessThanOrEqual(size.height);
      if (size.width >= 390) {
        const firstVerdict = (await page.locator('.merchant-card').first().locator('.verdict').first().boundingBox()) as Box;
        expect(firstVerdict.y + firstVerdict.height, 'and its first verdict').toBeLessThanOrEqual(size.height);
      }
      expect(await verdictsAreTrue(page, 'the checkout list', await verdictsFrom(apiPath))).toBe(data.length);
      await pageIsSound(w, size, 'the checkout list');
      await screenshot(page, `verdict-checkout-list-${size.width}`);
      // A plain search puts its results in the first screen too.
      await page.goto(`${live.baseUrl}/`);
      await page.getByLabel('Search merchants by name or website').fill('shop');
      await Promise.all([page.waitForURL(/q=shop/), page.keyboard.press('Enter')]);
      const searched = (await page.locator('.merchant-card h3').first().boundingBox()) as Box;
      expect(searched.y + searched.height, 'the first result of a search on the first screen').toBeLessThanOrEqual(size.height);
      expect(w.problems).toEqual([]);
    });

    it(`at ${size.width} px every card, merchant page and table shows the API's verdicts in the legend's colours`, async () => {
      const w = await live.open(size);
      const pages: Array<[string, string]> = [
        ['/', '/api/v1/merchants'],
        ['/?q=shop', '/api/v1/merchants?q=shop'],
        [`/agents/${agent.slug}`, `/api/v1/agents/${agent.slug}/merchants`],
        ['/categories/electronics', '/api/v1/merchants?category=electronics'],
        ['/categories/electronics?layout=table', '/api/v1/merchants?category=electronics'],
        [`/categories/electronics?agent=${agent.slug}&sort=reach&layout=table`, '/api/v1/merchants?category=electronics'],
      ];
      const colours = new Set<string>();
      for (const [path, apiPath] of pages) {
        await w.page.goto(`${live.baseUrl}${path}`);
        const checked = await verdictsAreTrue(w.page, path, await verdictsFrom(apiPath));
        expect(checked, path).toBeGreaterThan(0);
        for (const c of await w.page.locator('[data-merchant] .verdict[data-colour]').evaluateAll((els) => els.map((el) => el.getAttribute('data-colour')))) colours.add(c!);
        await pageIsSound(w, size, path);
      }
      // The demo's first pages show the whole scale.
      expect([...colours]).toEqual(expect.arrayContaining(['green', 'amber', 'red']));
      // A merchant page answers first: each agent's verdict with its evidence on the first screen, the table after.
      for (const slug of [green, (await json<{ data: ApiMerchant[] }>('/api/v1/merchants?sort=popular')).data[0]!.slug]) {
        await w.page.goto(`${live.baseUrl}/merchants/${slug}`);
        const verdicts = (await w.page.locator('#verdicts-heading').boundingBox()) as Box;
        const matrix = (await w.page.locator('#matrix-heading').boundingBox()) as Box;
        expect(verdicts.y).toBeLessThan(matrix.y);
        const firstItem = (await w.page.locator('.merchant-verdicts li').first().boundingBox()) as Box;
        expect(firstItem.y + firstItem.height, `/merchants/${slug}: the first verdict on the first screen`).toBeLessThanOrEqual(size.height);
        expect(await w.page.locator('.merchant-verdicts li').first().locator('.verdict-evidence').textContent()).toMatch(/\d+ reports? · last tested [A-Z][a-z]{2} \d{4}/);
        await verdictsAreTrue(w.page, `/merchants/${slug}`, await verdictsFrom(`/api/v1/merchants?q=${slug}`));
        await pageIsSound(w, size, `/merchants/${slug}`);
      }
      expect(w.problems).toEqual([]);
    });

    it(`at ${size.width} px a category page leads with which agent gets furthest there, as the API counts, and its table lists every merchant it counts`, async () => {
      const w = await live.open(size);
      const { page } = w;
      const categories = (await json<{ data: Array<{ slug: string; name: string; merchantCount: number }> }>('/api/v1/categories')).data;
      for (const category of categories.filter((c) => c.merchantCount > 0).slice(0, 3)) {
        await page.goto(`${live.baseUrl}/categories/${category.slug}`);
        const leaders = page.locator('section.leaders');
        expect(await leaders.isVisible()).toBe(true);
        const rows = await leaders.locator('tbody tr').all();
        expect(rows.length).toBeGreaterThan(0);
        let previous = [Infinity, Infinity, Infinity];
        for (const row of rows) {
          const agentSlug = (await row.getAttribute('data-agent'))!;
          const counts = [] as number[];
          for (const [kind, query] of [['checkout', 'reaches=CHECKOUT&'], ['purchase', 'reaches=PURCHASE&'], ['tested', '']] as const) {
            const shown = Number(((await row.locator(`td[data-count="${kind}"] a`).textContent()) ?? '').match(/\d+/)![0]);
            const { total } = await json<{ total: number }>(`/api/v1/merchants?category=${category.slug}&agent=${agentSlug}&${query}sort=reach`);
            expect(shown, `${category.slug} ${agentSlug} ${kind}`).toBe(total);
            counts.push(shown);
          }
          // Furthest first.
          expect(counts[0]! < previous[0]! || (counts[0] === previous[0] && (counts[1]! < previous[1]! || (counts[1] === previous[1] && counts[2]! <= previous[2]!)))).toBe(true);
          previous = counts;
        }
        // The leaders come before the results.
        expect(((await leaders.boundingBox()) as Box).y).toBeLessThan(((await page.locator('#results-heading').boundingBox()) as Box).y);
        await pageIsSound(w, size, `/categories/${category.slug}`);
        // The table lists every merchant the category counts, sponsored ones marked.
        await page.goto(`${live.baseUrl}/categories/${category.slug}?layout=table`);
        const tableRows = page.locator('table.reach-table tbody tr');
        expect(await tableRows.count(), category.slug).toBe(category.merchantCount);
        const { data } = await json<{ data: ApiMerchant[] }>(`/api/v1/merchants?category=${category.slug}`);
        for (const m of data.filter((x) => x.sponsored)) {
          expect(await page.locator(`tr[data-merchant="${m.slug}"] .sponsored-tag`).textContent()).toBe('Sponsored');
        }
        await pageIsSound(w, size, `/categories/${category.slug}?layout=table`);
      }
      await screenshot(page, `verdict-category-table-${size.width}`);
      expect(w.problems).toEqual([]);
    });

    it(`at ${size.width} px sponsored listings are marked cards with their evidence, and nothing is wider than the screen`, async () => {
      const w = await live.open(size);
      const { page } = w;
      await page.goto(`${live.baseUrl}/`);
      const sponsoredCards = page.locator('.merchant-card.sponsored');
      expect(await sponsoredCards.count()).toBeGreaterThan(0);
      for (const card of await sponsoredCards.all()) {
        expect(await card.locator('.sponsored-tag').textContent()).toBe('Sponsored');
        expect(await card.locator('.sponsored-note').textContent()).toContain('Sponsored — advertising, not evidence that the site works');
      }
      // The pages people reach, each no wider than the screen, with every filter set at once.
      const everything = `/?agent=${agent.slug}&reaches=CHECKOUT&task=CHECKOUT&taskStatus=blocked,unsupported&minConfidence=medium&outcome=WORKS&stage=PAYMENT_APPROVAL&region=GB&days=365&minReports=1&sort=reach`;
      for (const path of ['/', everything, `/?stage=PAYMENT_APPROVAL&agent=${agent.slug}`, `/agents/${agent.slug}`, `/agents/${agent.slug}?reaches=CART&sort=reach`, '/categories/electronics', '/categories/electronics?layout=table', `/merchants/${green}`, `/?q=${encodeURIComponent(agent.name)}`, '/?reaches=CHECKOUT', '/how-it-works']) {
        const response = await page.goto(`${live.baseUrl}${path}`);
        expect(response?.status(), path).toBe(200);
        // Open every disclosure: an open one must not widen the page either.
        await page.evaluate('document.querySelectorAll("details").forEach((d) => { d.open = true; })');
        await pageIsSound(w, size, path);
      }
      // The merchants × agents table scrolls inside its own box.
      await page.goto(`${live.baseUrl}/categories/electronics?layout=table`);
      const wrap = (await page.locator('.reach-table-wrap').boundingBox()) as Box;
      expect(wrap.x + wrap.width).toBeLessThanOrEqual(size.width);
      expect(w.problems).toEqual([]);
    });

    it(`at ${size.width} px the agent page's counts lead to their lists, by category too, and a search for the agent points to it`, async () => {
      const w = await live.open(size);
      const { page } = w;
      await page.goto(`${live.baseUrl}/agents/${agent.slug}`);
      const overview = page.locator('.agent-overview');
      const entry = overview.getByRole('link', { name: `Where can ${agent.name} check out?` });
      expect(await entry.isVisible()).toBe(true);
      const countLine = async (path: string) => {
        const { data, total } = await json<{ data: ApiMerchant[]; total: number }>(path);
        const sponsored = data.filter((m) => m.sponsored).length;
        return `${total - sponsored} shop${total - sponsored === 1 ? '' : 's'}${sponsored ? ` + ${sponsored} sponsored` : ''} found`;
      };
      const checkout = overview.locator('tr[data-reach="CHECKOUT"] td.number a');
      await Promise.all([page.waitForURL(/reaches=CHECKOUT/), checkout.click()]);
      expect(new URL(page.url()).pathname).toBe(`/agents/${agent.slug}`);
      expect(await page.locator('.result-count').textContent()).toContain(await countLine(`/api/v1/agents/${agent.slug}/merchants?reaches=CHECKOUT`));
      expect(await page.locator('#results-heading').textContent()).toBe(`Shops where ${agent.name} gets at least as far as checkout`);
      // By category: each count lists as many shops.
      await page.goto(`${live.baseUrl}/agents/${agent.slug}`);
      const byCategory = page.locator('section.by-category tbody tr').first();
      const category = (await byCategory.getAttribute('data-category'))!;
      await Promise.all([page.waitForURL(/category=/), byCategory.locator('td[data-count="tested"] a').click()]);
      expect(await page.locator('.result-count').textContent()).toContain(await countLine(`/api/v1/agents/${agent.slug}/merchants?category=${category}`));
      await pageIsSound(w, size, 'an agent\'s category list');

      // Searching the directory for the agent's name: a pointer to its page, even with no merchant found.
      await page.goto(`${live.baseUrl}/`);
      await page.getByLabel('Search merchants by name or website').fill(agent.name);
      await Promise.all([page.waitForURL(/q=/), page.keyboard.press('Enter')]);
      expect(await page.locator('.result-count').textContent()).toContain('0 shops');
      const pointer = page.locator('.agent-pointer');
      expect(await pointer.textContent()).toContain(`Looking for the agent ${agent.name}?`);
      await Promise.all([page.waitForURL(new RegExp(`/agents/${agent.slug}$`)), pointer.getByRole('link', { name: 'See its page' }).click()]);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain(agent.name);
      expect(w.problems).toEqual([]);
    });
  }
});
