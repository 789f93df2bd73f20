// How far each agent gets, in a real browser (Debian's Chromium through playwright-core) at 320,
// 390 and 1280 px (issue 24): from the home page to "shops where <agent> gets through checkout"
// in at most three actions; every card shows each agent's reach, coloured by its tone, and never
// green below the cart or at low confidence (checked against the API the page was built from);
// the filters and the category and agent lists come before the results; at most three sponsored
// listings, one line each; the agent page's counts lead to their lists; a search for an agent's
// name points to it; and no page, and no element on it, is wider than the viewport.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_NOW } from '../setup/demo.js';
import { aMerchant, aReport } from '../factories/index.js';
import { htmlProblems } from '../pages/html-validate.js';
import {
  HAS_CHROMIUM,
  fitsViewport,
  launchBrowser,
  screenshot,
  seriousAxeViolations,
  SKIP_MESSAGE,
  startLiveApp,
  watchedPage,
  type LiveApp,
  type WatchedPage,
} from './browser.js';

if (!HAS_CHROMIUM) console.warn(SKIP_MESSAGE);

const WIDTHS = [
  { name: 'small-phone', width: 320, height: 640, isMobile: true },
  { name: 'phone', width: 390, height: 844, isMobile: true },
  { name: 'desktop', width: 1280, height: 900, isMobile: false },
] as const;
type Size = (typeof WIDTHS)[number];

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}
interface ApiReach {
  level: number;
  label: string;
  tone: string;
  confidence: string;
}
interface ApiMerchant {
  slug: string;
  name: string;
  sponsored: boolean;
  agents: Array<{ agent: { slug: string; name: string }; reach: ApiReach }>;
}

const CART_LEVEL = 4;

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

/** Every reach shown on the page, with where it stands: [merchant slug, agent slug, tone, label, class list]. */
const SHOWN_REACHES = `[...document.querySelectorAll('[data-agent][data-tone]')].map((el) => {
  const merchant = el.closest('[data-merchant]')?.getAttribute('data-merchant') ?? document.querySelector('link[rel=alternate][href^="/merchants/"]')?.getAttribute('href').split('/')[2] ?? null;
  const label = el.querySelector('.reach-label')?.textContent ?? el.textContent.replace(/^\\S+\\s/, '');
  return [merchant, el.getAttribute('data-agent'), el.getAttribute('data-tone'), label.trim(), el.className, getComputedStyle(el).backgroundColor];
})`;

describe.skipIf(!HAS_CHROMIUM)('how far each agent gets, in a real browser', { timeout: 240_000 }, () => {
  let live: LiveApp;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let agent: { slug: string; name: string };
  let green: string;
  let greenColour: string;

  async function open(size: Size): Promise<WatchedPage> {
    const context = await browser.newContext({ viewport: { width: size.width, height: size.height }, isMobile: size.isMobile, hasTouch: size.isMobile });
    contexts.push(context);
    return watchedPage(context);
  }

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

  /** The reaches the page shows match the API's, and green only where the agent gets to the cart, surely. */
  async function reachesAreTrue(page: Page, where: string, reachOf: (merchant: string, agent: string) => ApiReach | undefined): Promise<number> {
    const shown = await page.evaluate<Array<[string | null, string, string, string, string, string]>>(SHOWN_REACHES);
    let checked = 0;
    for (const [merchant, agentSlug, tone, label, classes, background] of shown) {
      if (merchant === null) continue;
      const reach = reachOf(merchant, agentSlug);
      if (!reach) {
        // A cell of the category table for an agent without reports there.
        expect([tone, label], `${where}: ${merchant} × ${agentSlug}`).toEqual(['grey', 'Not tested']);
        continue;
      }
      checked += 1;
      expect([tone, label], `${where}: ${merchant} × ${agentSlug}`).toEqual([reach.tone, reach.label]);
      expect(classes.split(' '), `${where}: ${merchant} × ${agentSlug}`).toContain(`reach-${reach.tone}`);
      // Coloured by the tone: green's colour only on green, and green only from the cart at medium confidence or better.
      expect(background === greenColour, `${where}: ${merchant} × ${agentSlug} is ${tone}`).toBe(tone === 'green');
      if (tone === 'green') {
        expect(reach.level, `${where}: green below the cart`).toBeGreaterThanOrEqual(CART_LEVEL);
        expect(reach.confidence, `${where}: green at low confidence`).not.toBe('low');
      }
    }
    return checked;
  }

  /** The reach of every (merchant, agent) pair on the merchants listed by an API path, all pages. */
  async function reachesFrom(path: string): Promise<(merchant: string, agent: string) => ApiReach | undefined> {
    const map = new Map<string, ApiReach>();
    const separator = path.includes('?') ? '&' : '?';
    for (let page = 1; page <= 5; page += 1) {
      const { data, total } = await json<{ data: ApiMerchant[]; total: number }>(`${path}${separator}page=${page}`);
      for (const m of data) for (const a of m.agents) map.set(`${m.slug} ${a.agent.slug}`, a.reach);
      if (page * 24 >= total) break;
    }
    return (merchant, agentSlug) => map.get(`${merchant} ${agentSlug}`);
  }

  beforeAll(async () => {
    live = await startLiveApp();
    browser = await launchBrowser();
    // The demo's reaches are all of low confidence: add one shop where the agent is known (three
    // agreeing reports) to get through checkout, so that green is on the pages too.
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

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    await live?.close();
  });

  for (const size of WIDTHS) {
    it(`at ${size.width} px: from the home page to the shops where an agent gets through checkout in three actions or fewer`, async () => {
      const w = await open(size);
      const { page } = w;
      await page.goto(`${live.baseUrl}/`);
      greenColour = await page.evaluate<string>('(() => { const s = document.createElement("span"); s.className = "badge reach-green"; document.body.append(s); const c = getComputedStyle(s).backgroundColor; s.remove(); return c; })()');
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
      expect(await page.locator('#results-heading').textContent()).toBe(`Shops where ${agent.name} gets through checkout`);
      const apiPath = `/api/v1/merchants?agent=${agent.slug}&reaches=CHECKOUT&sort=reach`;
      const { data, total } = await json<{ data: ApiMerchant[]; total: number }>(apiPath);
      expect(await page.locator('.result-count').textContent()).toContain(`${total} merchant`);
      const listed = data.filter((m) => !m.sponsored);
      expect(await page.locator('.merchant-card h3').allTextContents()).toEqual(listed.map((m) => m.name));
      // Every shop listed gets through checkout, and its card says so.
      for (const m of listed) expect(m.agents[0]!.reach.level).toBeGreaterThanOrEqual(5);
      // The first result is reachable without hunting: on the first screen when wide, after the finder when narrow.
      const first = (await page.locator('.merchant-card').first().boundingBox()) as Box;
      if (!size.isMobile) expect(first.y).toBeLessThan(size.height);
      expect(await reachesAreTrue(page, 'the checkout list', await reachesFrom(apiPath))).toBe(listed.length);
      await pageIsSound(w, size, 'the checkout list');
      await screenshot(page, `reach-checkout-list-${size.width}`);
      expect(w.problems).toEqual([]);
    });

    it(`at ${size.width} px every card shows each agent's reach, green only from the cart at medium confidence or better`, async () => {
      const w = await open(size);
      const pages: Array<[string, string]> = [
        ['/', '/api/v1/merchants'],
        ['/?q=shop', '/api/v1/merchants?q=shop'],
        [`/agents/${agent.slug}`, `/api/v1/agents/${agent.slug}/merchants`],
        ['/categories/electronics', '/api/v1/merchants?category=electronics'],
        ['/categories/electronics?layout=table', '/api/v1/merchants?category=electronics'],
        [`/categories/electronics?agent=${agent.slug}&sort=reach&layout=table`, '/api/v1/merchants?category=electronics'],
      ];
      let greens = 0;
      for (const [path, apiPath] of pages) {
        await w.page.goto(`${live.baseUrl}${path}`);
        const reachOf = await reachesFrom(apiPath);
        const { data } = await json<{ data: ApiMerchant[] }>(apiPath.includes('?') ? apiPath : `${apiPath}?page=1`);
        // Every card shows every agent with reports there, each with its label and a symbol beside the colour.
        for (const card of await w.page.locator('.merchant-card').all()) {
          const slug = (await card.getAttribute('data-merchant'))!;
          const merchant = data.find((m) => m.slug === slug);
          if (!merchant || path.startsWith('/agents/')) continue;
          const badges = card.locator('.badge[data-agent]');
          expect(await badges.count(), `${path}: ${slug}`).toBe(merchant.agents.length);
          for (const badge of await badges.all()) {
            expect(await badge.isVisible()).toBe(true);
            expect(((await badge.locator('.symbol').textContent()) ?? '').trim()).not.toBe('');
          }
        }
        if (path.startsWith('/agents/')) {
          for (const card of await w.page.locator('.merchant-card').all()) expect(await card.locator(`.badge[data-agent="${agent.slug}"]`).count()).toBe(1);
        }
        const checked = await reachesAreTrue(w.page, path, reachOf);
        expect(checked, path).toBeGreaterThan(0);
        greens += await w.page.locator('[data-merchant] [data-tone="green"], td[data-tone="green"]').count();
        await pageIsSound(w, size, path);
      }
      expect(greens, 'the known shop shows green').toBeGreaterThan(0);
      // The merchant page leads with the reach, above the matrix.
      for (const slug of [green, (await json<{ data: ApiMerchant[] }>('/api/v1/merchants?sort=popular')).data.find((m) => !m.sponsored)!.slug]) {
        await w.page.goto(`${live.baseUrl}/merchants/${slug}`);
        const profile = (await json<{ data: ApiMerchant }>(`/api/v1/merchants/${slug}`)).data;
        const reach = (await w.page.locator('#reach-heading').boundingBox()) as Box;
        const matrix = (await w.page.locator('#matrix-heading').boundingBox()) as Box;
        expect(reach.y).toBeLessThan(matrix.y);
        for (const a of profile.agents) {
          const badge = w.page.locator(`#reach-${a.agent.slug} .badge[data-agent]`);
          expect(await badge.getAttribute('data-tone')).toBe(a.reach.tone);
          expect(await badge.locator('.reach-label').textContent()).toBe(a.reach.label);
          if (a.reach.tone === 'green') {
            expect(a.reach.level).toBeGreaterThanOrEqual(CART_LEVEL);
            expect(a.reach.confidence).not.toBe('low');
          }
        }
        await pageIsSound(w, size, `/merchants/${slug}`);
      }
      expect(w.problems).toEqual([]);
    });

    it(`at ${size.width} px the filters and lists come before the results, sponsored listings take a line each, and nothing is wider than the screen`, async () => {
      const w = await open(size);
      const { page } = w;
      await page.goto(`${live.baseUrl}/?q=a`);
      const filters = (await page.locator('#filters').boundingBox()) as Box;
      const browse = (await page.locator('.browse-lists').boundingBox()) as Box;
      const heading = (await page.locator('#results-heading').boundingBox()) as Box;
      const card = (await page.locator('.merchant-card').first().boundingBox()) as Box;
      if (size.isMobile) {
        // Closed disclosures above the results.
        expect(filters.y + filters.height).toBeLessThanOrEqual(heading.y);
        expect(browse.y + browse.height).toBeLessThanOrEqual(heading.y);
        expect(await page.locator('details.more-filters').getAttribute('open')).toBeNull();
        expect(await page.locator('details.browse-lists').getAttribute('open')).toBeNull();
      } else {
        // Beside the results, on their left, starting level with them; the lists open.
        expect(filters.x + filters.width).toBeLessThanOrEqual(card.x);
        expect(filters.y).toBeLessThanOrEqual(heading.y + heading.height);
        expect(await page.locator('details.browse-lists').getAttribute('open')).not.toBeNull();
        expect(card.y).toBeLessThan(size.height);
      }
      // Sponsored listings: at most three above the results, one line each, marked, under the disclosure.
      const top = page.locator('#sponsored-top');
      const lines = top.locator('.sponsored-line');
      expect(await lines.count()).toBeGreaterThan(0);
      expect(await lines.count()).toBeLessThanOrEqual(3);
      expect(await top.locator('.sponsored-heading').textContent()).toContain('Sponsored — advertising, not evidence that the site works');
      const lineHeight = await page.evaluate<number>('parseFloat(getComputedStyle(document.querySelector("#sponsored-top .sponsored-line")).lineHeight)');
      expect(lineHeight).toBeGreaterThan(10);
      for (const line of await lines.all()) {
        const box = (await line.boundingBox()) as Box;
        expect(box.height, 'one line').toBeLessThan(lineHeight * 1.6);
        expect(await line.locator('.sponsored-tag').textContent()).toBe('Sponsored');
      }
      const topBox = (await top.boundingBox()) as Box;
      expect(topBox.y + topBox.height).toBeLessThanOrEqual(card.y);
      if (size.isMobile) expect(topBox.y).toBeLessThan(size.height * 1.25);
      await pageIsSound(w, size, '/?q=a');

      // The pages people reach, each no wider than the screen, with every filter set at once.
      const everything = `/?agent=${agent.slug}&reaches=CHECKOUT&task=CHECKOUT&taskStatus=blocked,unsupported&minConfidence=medium&outcome=WORKS&stage=PAYMENT_APPROVAL&region=GB&days=365&minReports=1&sort=reach`;
      for (const path of ['/', everything, `/?stage=PAYMENT_APPROVAL&agent=${agent.slug}`, `/agents/${agent.slug}`, `/agents/${agent.slug}?reaches=CART&sort=reach`, '/categories/electronics', '/categories/electronics?layout=table', `/merchants/${green}`, `/?q=${encodeURIComponent(agent.name)}`, '/?reaches=CHECKOUT']) {
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
      await screenshot(page, `reach-category-table-${size.width}`);
      expect(w.problems).toEqual([]);
    });

    it(`at ${size.width} px the agent page's counts lead to their lists, and a search for the agent points to it`, async () => {
      const w = await open(size);
      const { page } = w;
      await page.goto(`${live.baseUrl}/agents/${agent.slug}`);
      const overview = page.locator('.agent-overview');
      const entry = overview.getByRole('link', { name: `Where can ${agent.name} check out?` });
      expect(await entry.isVisible()).toBe(true);
      const checkout = overview.locator('tr[data-reach="CHECKOUT"] td.number a');
      const count = Number(((await checkout.textContent()) ?? '').match(/\d+/)![0]);
      await Promise.all([page.waitForURL(/reaches=CHECKOUT/), checkout.click()]);
      expect(new URL(page.url()).pathname).toBe(`/agents/${agent.slug}`);
      expect(await page.locator('.result-count').textContent()).toContain(`${count} merchant`);
      expect(await page.locator('#results-heading').textContent()).toBe(`Shops where ${agent.name} gets through checkout`);
      // Where it gets stuck: each count lists as many merchants.
      await page.goto(`${live.baseUrl}/agents/${agent.slug}`);
      const stuck = overview.locator('li[data-stuck] a').first();
      const stuckCount = Number(((await stuck.textContent()) ?? '').match(/\d+/)![0]);
      await Promise.all([page.waitForURL(/taskStatus=/), stuck.click()]);
      expect(await page.locator('.result-count').textContent()).toContain(`${stuckCount} merchant`);
      await pageIsSound(w, size, 'a stuck list');

      // Searching the directory for the agent's name: a pointer to its page, even with no merchant found.
      await page.goto(`${live.baseUrl}/`);
      await page.getByLabel('Search merchants by name or website').fill(agent.name);
      await Promise.all([page.waitForURL(/q=/), page.keyboard.press('Enter')]);
      expect(await page.locator('.result-count').textContent()).toContain('0 merchants');
      const pointer = page.locator('.agent-pointer');
      expect(await pointer.textContent()).toContain(`Looking for the agent ${agent.name}?`);
      await Promise.all([page.waitForURL(new RegExp(`/agents/${agent.slug}$`)), pointer.getByRole('link', { name: 'See its page' }).click()]);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain(agent.name);
      expect(w.problems).toEqual([]);
    });
  }
});
