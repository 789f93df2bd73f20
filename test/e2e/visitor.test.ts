// A newcomer's visit in a real browser (Debian's Chromium through playwright-core), at a desktop
// width (1280 px) and a phone width (390 px): no public page scrolls sideways, the matrix reads
// as one card per agent on a phone, a plain search shows a result on the first screen with the
// filters closed before it, "Why this
// status" never clips the table, each agent's status comes with its sentence and its marked
// cell, and every confidence badge leads to the one definition. Every page is checked for
// console errors, CSP violations, HTML validity and serious axe-core findings.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { htmlProblems } from '../pages/html-validate.js';
import { DESK, HAS_CHROMIUM, fitsViewport, PHONE, seriousAxeViolations, startBrowserSuite, type BrowserSuite } from './browser.js';

const WIDTHS = [
  { name: 'desktop', ...DESK },
  { name: 'phone', ...PHONE },
] as const;

// Browser code as text: the project compiles without the DOM library.
const MATRIX_FITS_ITS_BOX = '(() => { const el = document.querySelector(".matrix-wrap"); return el.scrollWidth <= el.clientWidth; })()';
const hrefsOf = (selector: string, text = '') =>
  `[...document.querySelectorAll(${JSON.stringify(selector)})].filter((a) => a.textContent.includes(${JSON.stringify(text)})).map((a) => a.getAttribute("href"))`;

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

describe.skipIf(!HAS_CHROMIUM)('a visitor in a real browser', { timeout: 180_000 }, () => {
  let live: BrowserSuite;
  let busy: { slug: string; agents: number };
  let sponsored: string;
  let owned: string;
  let agentSlug: string;
  let publicPages: string[];

  /** Neither wider than the viewport nor zoomed out to fit (a phone widens its layout viewport). */
  async function noSidewaysScroll(page: Page, width: number, where: string): Promise<void> {
    expect(await fitsViewport(page), `${where} at ${width} px`).toBe(true);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth'), `${where} at ${width} px`).toBeLessThanOrEqual(width);
  }

  beforeAll(async () => {
    live = await startBrowserSuite();
    const json = async <T>(path: string): Promise<T> => (await (await fetch(`${live.baseUrl}${path}`)).json()) as T;
    const { data } = await json<{ data: Array<{ slug: string; sponsored: boolean; agents: unknown[] }> }>('/api/v1/merchants?sort=popular');
    const unsponsored = data.filter((m) => !m.sponsored).sort((a, b) => b.agents.length - a.agents.length);
    busy = { slug: unsponsored[0]!.slug, agents: unsponsored[0]!.agents.length };
    expect(busy.agents).toBeGreaterThanOrEqual(4);
    sponsored = data.find((m) => m.sponsored)!.slug;
    const statement = await live.t.db.prisma.merchant.findFirstOrThrow({ where: { isPublic: true, ownerStatement: { isNot: null } }, orderBy: { name: 'asc' } });
    owned = statement.slug;
    agentSlug = (await json<{ data: Array<{ slug: string }> }>('/api/v1/agents')).data[0]!.slug;
    publicPages = [
      '/',
      '/?q=lamp',
      '/?q=zzxqvv',
      '/?sort=rating',
      `/?agent=${agentSlug}&outcome=BLOCKED`,
      `/merchants/${busy.slug}`,
      `/merchants/${sponsored}`,
      `/merchants/${owned}`,
      `/agents/${agentSlug}`,
      '/categories/electronics',
      '/how-it-works',
      '/problems',
      '/problems/stale-version',
      '/data',
    ];
  }, 120_000);

  afterAll(() => live?.close());

  for (const size of WIDTHS) {
    it(`at ${size.width} px no public page scrolls sideways, and every page is valid and accessible`, async () => {
      const w = await live.open(size);
      for (const path of publicPages) {
        const response = await w.page.goto(`${live.baseUrl}${path}`);
        expect(response?.status(), path).toBe(200);
        expect(await htmlProblems(await response!.text()), path).toEqual([]);
        await noSidewaysScroll(w.page, size.width, path);
        expect(await seriousAxeViolations(w.page), `axe on ${path} at ${size.width} px`).toEqual([]);
        expect(await w.cspViolations(), `CSP on ${path}`).toEqual([]);
      }
      expect(w.problems).toEqual([]);
    });

    it(`at ${size.width} px a plain search keeps the filters closed, and puts a result on the first screen (before the filters on a phone)`, async () => {
      const { page, problems } = await live.open(size);
      await page.goto(`${live.baseUrl}/`);
      await page.getByLabel('Search merchants by name or website').fill('a');
      await Promise.all([page.waitForURL(/\?q=a$/), page.keyboard.press('Enter')]);
      expect(new URL(page.url()).search).toBe('?q=a');
      // The Filters panel stays closed; once something was asked, the results come first on a
      // phone (the filters below them), and on the left of them when wide.
      expect(await page.locator('details.more-filters').getAttribute('open')).toBeNull();
      const card = (await page.locator('.merchant-card').first().boundingBox()) as Box;
      const filters = (await page.locator('#filters').boundingBox()) as Box;
      const heading = (await page.locator('#results-heading').boundingBox()) as Box;
      const name = (await page.locator('.merchant-card h3').first().boundingBox()) as Box;
      expect(name.y + name.height).toBeLessThanOrEqual(size.height);
      if (size.phone) expect(heading.y + heading.height).toBeLessThanOrEqual(filters.y);
      else {
        expect(filters.x + filters.width).toBeLessThanOrEqual(card.x); // beside the results, on their left
        expect(card.y + 40).toBeLessThan(size.height);
      }
      expect(await page.locator('.result-count').textContent()).toMatch(/^\d+ shops?( \+ \d+ sponsored)? found for “a”/);
      expect(problems).toEqual([]);
    });
  }

  it('on a phone the matrix is one card per agent, each task status beside its agent\'s name', async () => {
    const { page, problems } = await live.open(WIDTHS[1]);
    await page.goto(`${live.baseUrl}/merchants/${busy.slug}`);
    expect(await page.evaluate<boolean>(MATRIX_FITS_ITS_BOX)).toBe(true);
    const rows = page.locator('.matrix tbody tr');
    expect(await rows.count()).toBeGreaterThanOrEqual(busy.agents);
    for (const row of await rows.all()) {
      const agent = ((await row.locator('th .row-agent').textContent()) ?? '').trim();
      expect(agent).not.toBe('');
      const header = (await row.locator('th').boundingBox()) as Box;
      const cells = row.locator('td.cell');
      expect(await cells.count()).toBe(7);
      for (const cell of await cells.all()) {
        const box = (await cell.boundingBox()) as Box;
        // Fully on the screen's width, below its agent's header, and naming the agent.
        expect(box.x).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width).toBeLessThanOrEqual(390);
        expect(box.y).toBeGreaterThan(header.y);
        const label = cell.locator('.cell-task');
        expect(await label.isVisible()).toBe(true);
        expect(await label.textContent()).toContain(agent);
        expect(await cell.locator('.cell-status').isVisible()).toBe(true);
      }
    }
    expect(problems).toEqual([]);
  });

  it('on a desktop "Why this status" opens inside its cell without clipping the table', async () => {
    const { page, problems } = await live.open(WIDTHS[0]);
    await page.goto(`${live.baseUrl}/merchants/${busy.slug}`);
    const wrap = page.locator('.matrix-wrap');
    const before = await page.locator('.matrix').boundingBox() as Box;
    // Open every "Why this status" of the last tested column, and of the busiest row.
    const summaries = page.locator('.matrix td.cell details.why > summary');
    expect(await summaries.count()).toBeGreaterThan(5);
    const closed = page.locator(
      '.matrix tbody tr:first-child details.why:not([open]) > summary, .matrix td:is([data-task="PURCHASE"], [data-task="CHECKOUT"]) details.why:not([open]) > summary',
    );
    while ((await closed.count()) > 0) await closed.first().click();
    expect(await page.locator('.matrix details.why[open]').count()).toBeGreaterThan(1);
    expect(await page.evaluate<boolean>(MATRIX_FITS_ITS_BOX), 'the table scrolls sideways').toBe(true);
    const after = await page.locator('.matrix').boundingBox() as Box;
    expect(after.width).toBe(before.width);
    const wrapBox = (await wrap.boundingBox()) as Box;
    for (const th of await page.locator('.matrix thead th').all()) {
      const box = (await th.boundingBox()) as Box;
      expect(box.x + box.width).toBeLessThanOrEqual(wrapBox.x + wrapBox.width + 0.5);
      expect(await th.isVisible()).toBe(true);
    }
    await noSidewaysScroll(page, 1280, 'merchant page with open details');
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
  });

  for (const size of WIDTHS) {
    it(`at ${size.width} px each agent's verdict comes first with its evidence, and its row of the table carries it`, async () => {
      const { page, problems } = await live.open(size);
      await page.goto(`${live.baseUrl}/merchants/${busy.slug}`);
      const profile = (await (await fetch(`${live.baseUrl}/api/v1/merchants/${busy.slug}`)).json()) as {
        data: { agents: Array<{ agent: { slug: string }; label: string; counts: { total: number }; verdict: { evidenceText: string; colour: string } }> };
      };
      for (const summary of profile.data.agents) {
        const row = page.locator(`#agent-${summary.agent.slug}`);
        const inRow = row.locator('.row-verdict .verdict');
        expect(await inRow.isVisible()).toBe(true);
        expect(await inRow.locator('.verdict-sentence').textContent()).toBe(summary.label);
        expect(await inRow.getAttribute('data-colour')).toBe(summary.verdict.colour);
        if (summary.counts.total > 0) {
          const item = page.locator(`#verdict-${summary.agent.slug}`);
          expect(await item.locator('.verdict-sentence').textContent()).toBe(summary.label);
          expect(await item.locator('.verdict-evidence').textContent()).toContain(summary.verdict.evidenceText);
        }
      }
      // No engine terms on a person's page.
      expect(await page.locator('body').textContent()).not.toMatch(/Score band|Sets the status|Latest evidence|in few reports/);
      expect(problems).toEqual([]);
    });
  }

  it('confidence links beside the verdicts lead to the one plain-language definition', async () => {
    const { page, problems } = await live.open(WIDTHS[1]);
    await page.goto(`${live.baseUrl}/`);
    const links = page.locator('.verdict-evidence a');
    expect(await links.count()).toBeGreaterThan(10);
    expect(new Set(await page.evaluate<string[]>(hrefsOf('.verdict-evidence a')))).toEqual(
      new Set(['/how-it-works#confidence']),
    );
    await Promise.all([page.waitForURL(/\/how-it-works#confidence$/), links.first().click()]);
    const section = page.locator('#confidence');
    expect(await section.isVisible()).toBe(true);
    expect(await section.locator('h2').textContent()).toBe('Confidence');
    // Scrolled to: the heading is on the screen.
    const heading = (await section.locator('h2').boundingBox()) as Box;
    expect(heading.y).toBeGreaterThanOrEqual(-1);
    expect(heading.y).toBeLessThan(844);
    expect(await section.textContent()).toContain('how many reports there are, how much they agree, and how recent they are');

    // The merchant page's links go to the same place.
    await page.goto(`${live.baseUrl}/merchants/${busy.slug}`);
    const hrefs = await page.evaluate<string[]>(hrefsOf('a', 'confidence'));
    expect(hrefs.length).toBeGreaterThanOrEqual(busy.agents);
    expect(new Set(hrefs)).toEqual(new Set(['/how-it-works#confidence']));
    expect(problems).toEqual([]);
  });
});
