// The whole journey in a real browser (Debian's Chromium through playwright-core) against the
// real app on a local port: sign in through the outbox link, issue an agent key, submit the form
// with a screenshot, a moderator approves it in /admin, and the merchant page's matrix shows it.
// Plus directory search with filters, the legacy category redirect and the agent guide; every
// page is checked for console errors, CSP violations, HTML validity and axe-core findings.
import path from 'node:path';
import type { Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { htmlProblems } from '../pages/html-validate.js';
import {
  DESK,
  expectErrorStatus,
  fitsViewport,
  HAS_CHROMIUM,
  screenshot,
  seriousAxeViolations,
  startBrowserSuite,
  type BrowserSuite,
  type WatchedPage,
} from './browser.js';

const PERSON = 'e2e.person@example.org';
const MODERATOR = 'e2e.moderator@example.org';
const EXPERIENCE = 'Found the cable fast. <script>alert("not escaped")</script> & the cart took two tries.';

// A browser on two busy cores is slower than a request: a generous per-test limit.
describe.skipIf(!HAS_CHROMIUM)('in a real browser', { timeout: 120_000 }, () => {
  let live: BrowserSuite;
  let w: WatchedPage;
  let page: Page;
  let target: { merchantId: string; slug: string; name: string; agentId: string; agentSlug: string; agentName: string; vendor: string };

  /** Goes to a path and checks what every page must satisfy. */
  async function visit(pathname: string, options: { status?: number; validate?: boolean } = {}): Promise<Response> {
    const url = `${live.baseUrl}${pathname}`;
    if ((options.status ?? 200) >= 400) expectErrorStatus(url);
    const response = await page.goto(url);
    if (!response) throw new Error(`no response for ${pathname}`);
    expect(response.status(), pathname).toBe(options.status ?? 200);
    if (options.validate !== false && response.headers()['content-type']?.startsWith('text/html')) {
      expect(await htmlProblems(await response.text()), pathname).toEqual([]);
    }
    await pageIsClean(pathname);
    return response;
  }

  async function pageIsClean(where: string): Promise<void> {
    expect(await w.cspViolations(), `CSP violations on ${where}`).toEqual([]);
    expect(w.problems, `console errors by ${where}`).toEqual([]);
  }

  async function noSeriousAxe(where: string): Promise<void> {
    expect(await seriousAxeViolations(page), `axe on ${where}`).toEqual([]);
  }

  beforeAll(async () => {
    live = await startBrowserSuite({ MODERATOR_EMAILS: MODERATOR });
    w = await live.open(DESK);
    page = w.page;
    // A merchant with an owner statement on which one active agent has no reports yet.
    const rows = await live.t.db.pool.query<{
      merchantId: string; slug: string; name: string; agentId: string; agentSlug: string; agentName: string; vendor: string;
    }>(
      `SELECT m.id AS "merchantId", m.slug, m.name, a.id AS "agentId", a.slug AS "agentSlug", a.name AS "agentName", a.vendor
         FROM merchants m CROSS JOIN agents a
        WHERE m.is_public AND a.active
          AND EXISTS (SELECT 1 FROM owner_statements o WHERE o.merchant_id = m.id)
          AND NOT EXISTS (SELECT 1 FROM reports r WHERE r.merchant_id = m.id AND r.agent_id = a.id)
        ORDER BY m.name, a.name LIMIT 1`,
    );
    target = rows.rows[0]!;
    expect(target).toBeDefined();
  }, 120_000);

  afterAll(() => live?.close());

  it('shows the directory, searches with filters, and keeps the phone layout', async () => {
    await visit('/');
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toContain('How well can AI agents shop here?');
    // Sponsored listings come first, as cards marked with the disclosure, with their evidence.
    const sponsored = page.locator('.merchant-card.sponsored');
    await expect(sponsored.count()).resolves.toBeGreaterThan(0);
    await expect(sponsored.first().textContent()).resolves.toContain('Sponsored — advertising, not evidence that the site works');
    await expect(page.locator('.merchant-card').first().getAttribute('class')).resolves.toContain('sponsored');
    await noSeriousAxe('the directory');
    await screenshot(page, 'directory');

    // Keyboard: the first Tab reaches the skip link, with a visible focus outline.
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Skip to content');
    expect(await page.evaluate<string>('getComputedStyle(document.activeElement).outlineStyle')).not.toBe('none');

    // Filters, submitted through the form: empty fields stay out of the URL.
    await page.getByText('Filters', { exact: true }).click();
    await page.locator('#f-agent').selectOption(target.agentSlug);
    await page.locator('#f-outcome').selectOption('WORKS');
    await page.locator('#f-sort').selectOption('name');
    await Promise.all([page.waitForURL(/\?/), page.getByRole('button', { name: 'Apply filters' }).click()]);
    const url = new URL(page.url());
    expect(Object.fromEntries(url.searchParams)).toEqual({ agent: target.agentSlug, outcome: 'WORKS', sort: 'name' });
    await pageIsClean('the filtered directory');
    const api = await (await fetch(`${live.baseUrl}/api/v1/merchants?agent=${target.agentSlug}&outcome=WORKS&sort=name`)).json() as {
      total: number; data: Array<{ name: string }>;
    };
    // Every result is a card, sponsored ones first.
    const names = await page.locator('.merchant-card h3 a').allTextContents();
    expect(names.map((n) => n.trim())).toEqual(api.data.map((m) => m.name));
    await expect(page.locator('.result-count').textContent()).resolves.toMatch(/^\d+ shops?( \+ \d+ sponsored)? found/);
    // Each result shows the chosen agent's verdict only.
    for (const verdicts of await page.locator('.merchant-card .verdicts').all()) {
      await expect(verdicts.locator('li').count()).resolves.toBe(1);
      await expect(verdicts.textContent()).resolves.toContain(target.agentName);
    }

    // Text search: press Enter in the search box.
    await page.goto(`${live.baseUrl}/`);
    await page.getByLabel('Search merchants by name or website').fill(target.name.split(' ')[0]!);
    await Promise.all([page.waitForURL(/q=/), page.keyboard.press('Enter')]);
    await expect(page.locator('.merchant-card h3').allTextContents()).resolves.toContainEqual(expect.stringContaining(target.name));

    // A bad value in the address: a friendly message, not a server error.
    await visit('/?days=soon&region=Mars', { status: 400 });
    const alert = await page.getByRole('alert').textContent();
    expect(alert).toContain('Reported in the last … days: must be a whole number');
    expect(alert).toContain('Region: must be a two-letter country code or GLOBAL');

    // Phone width: nothing wider than the screen.
    const small = await live.open({ width: 360, height: 740, phone: true });
    for (const [p, name] of [['/', 'directory-phone'], [`/merchants/${target.slug}`, 'merchant-phone'], ['/how-it-works', null]] as const) {
      await small.page.goto(`${live.baseUrl}${p}`);
      expect(await fitsViewport(small.page), `${p} at 360 px`).toBe(true);
      if (name) await screenshot(small.page, name);
    }
    expect(small.problems).toEqual([]);
    await small.page.context().close();
  });

  it('redirects legacy category names and slugs to the canonical page', async () => {
    for (const legacy of ['/categories/Consumer%20Electronics', '/categories/consumer-electronics', '/categories/Electronics']) {
      const response = await visit(legacy);
      expect(response.url()).toBe(`${live.baseUrl}/categories/electronics`);
      expect((await response.request().redirectedFrom()?.response())?.status()).toBe(301);
    }
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Electronics');
    await visit('/categories/no-such-category', { status: 404 });
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Category not found');
  });

  it('serves the agent guide as plain text', async () => {
    const response = await visit('/agent-guide');
    expect(response.headers()['content-type']).toMatch(/^text\/plain/);
    const text = await response.text();
    expect(text).toContain('Authorization: Bearer <AGENT_ACCESS_KEY>');
    expect(text).toContain(`${live.baseUrl}/api/v1/contribution-schema`);
    expect(text).toContain(`${live.baseUrl}/profile/agents`);
  });

  it('signs in, issues a key, submits a report with a screenshot; after approval the matrix shows it', async () => {
    // The merchant page before: the agent has not tested this merchant.
    await visit(`/merchants/${target.slug}`);
    const cell = (task: string) => page.locator(`#agent-${target.agentSlug} td[data-task="${task}"]`);
    await expect(cell('ACCESS').getAttribute('data-status')).resolves.toBe('untested');
    await expect(cell('ACCESS').textContent()).resolves.toContain('No report yet');
    await expect(page.locator('.not-yet').textContent()).resolves.toContain(target.agentName);
    await expect(page.locator('.owner-statement .attribution').textContent()).resolves.toMatch(/^Statement by the business owner\./);

    // Sign in through the link in the outbox.
    await visit('/sign-in');
    await page.getByLabel('E-mail address').fill(PERSON);
    await page.getByRole('button', { name: 'Send me a sign-in link' }).click();
    await page.getByRole('heading', { name: 'Check your e-mail' }).waitFor();
    await page.goto(live.signInLink(PERSON));
    // Signing in without a page to return to lands on the person's own reports, greeted.
    expect(page.url()).toBe(`${live.baseUrl}/profile/reports`);
    await expect(page.getByRole('status').first().textContent()).resolves.toContain(`Welcome. You are signed in as ${PERSON}.`);
    await expect(page.locator('.account').textContent()).resolves.toContain(`Signed in as ${PERSON}`);
    await visit('/profile/agents');
    await noSeriousAxe('the profile page');

    // Issue a key for the agent.
    await page.getByLabel('Agent', { exact: true }).selectOption(target.agentId);
    const [issued] = await Promise.all([
      page.waitForResponse((r) => r.url() === `${live.baseUrl}/profile/agents/keys` && r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Issue key' }).click(),
    ]);
    expect(issued.status()).toBe(303);
    await page.locator('#new-key, #keys-error, .notice .error').first().waitFor();
    const key = (await page.locator('#new-key').textContent({ timeout: 1000 }).catch(async () => `(no key: ${await page.locator('main').textContent()})`))?.trim() ?? '';
    expect(key).toMatch(/^acd_[A-Za-z0-9_-]{43}$/);
    expect(page.url()).not.toContain(key);
    await pageIsClean('the profile page with a new key');
    await noSeriousAxe('the profile page with a new key');
    expect(await htmlProblems(await w.documentHtml())).toEqual([]);

    // From the merchant page to the form, with the merchant chosen.
    await page.goto(`${live.baseUrl}/merchants/${target.slug}`);
    await page.getByRole('link', { name: `Report a test of ${target.name}` }).click();
    await page.waitForURL(/\/reports\/new\?adId=/);
    await expect(page.locator('#adId').inputValue()).resolves.toBe(target.merchantId);
    await page.getByLabel('Agent', { exact: true }).selectOption(target.agentId);
    for (const task of ['ACCESS', 'SEARCH', 'DETAILS']) await page.locator(`#task_${task}`).selectOption('WORKS');
    await page.locator('#task_CART').selectOption('PARTIAL');
    await page.getByLabel('Furthest stage reached').selectOption('CART');
    await page.getByLabel(/Your experience/).fill(EXPERIENCE);
    await page.getByLabel(/Screenshots/).setInputFiles(path.resolve(import.meta.dirname, '../../test-artifacts/e2e/directory.png'));
    await page.getByLabel('I have checked all three').check();
    await noSeriousAxe('the report form');
    expect(await htmlProblems(await w.documentHtml())).toEqual([]);
    await screenshot(page, 'report-form');
    await pageIsClean('the report form');
    await Promise.all([page.waitForURL(/\/reports\/[0-9a-f-]{36}\/review$/), page.getByRole('button', { name: 'Submit for moderation' }).click()]);
    await expect(page.locator('main').textContent()).resolves.toContain('Waiting for moderation');
    const reportId = /\/reports\/([0-9a-f-]{36})\/review$/.exec(page.url())![1]!;
    const stored = await live.t.db.prisma.report.findUniqueOrThrow({ where: { id: reportId }, include: { _count: { select: { evidence: true } } } });
    expect(stored._count.evidence).toBe(1);

    // Not public yet.
    await page.goto(`${live.baseUrl}/merchants/${target.slug}`);
    await expect(cell('ACCESS').getAttribute('data-status')).resolves.toBe('untested');

    // A moderator signs in (in a browser of their own) and approves it in /admin.
    const mod = await live.open(DESK);
    try {
      await live.signIn(mod.page, MODERATOR);
      // The pending queue, narrowed with its filters to this merchant and agent.
      await mod.page.goto(`${live.baseUrl}/admin/reports?status=PENDING`);
      await mod.page.getByLabel('Merchant (name, slug or website)').fill(target.slug);
      await mod.page.locator('#f-agent').selectOption(target.agentSlug);
      await Promise.all([mod.page.waitForURL(/merchant=/), mod.page.getByRole('button', { name: 'Filter' }).click()]);
      const row = mod.page.locator(`tr[data-report-id="${reportId}"]`);
      await expect(row.textContent()).resolves.toContain(target.name);
      await Promise.all([mod.page.waitForURL(`${live.baseUrl}/admin/reports/${reportId}`), row.getByRole('link', { name: 'Open report' }).click()]);
      await Promise.all([mod.page.waitForURL(/\/admin\/reports\//), mod.page.getByRole('button', { name: 'Approve', exact: true }).click()]);
      await mod.page.waitForLoadState();
      expect((await live.t.db.prisma.report.findUniqueOrThrow({ where: { id: reportId } })).status).toBe('APPROVED');
      expect(await mod.cspViolations()).toEqual([]);
      expect(mod.problems).toEqual([]);
    } finally {
      await mod.page.context().close();
    }

    // The matrix shows the new evidence, cell by cell, with the report behind it.
    await visit(`/merchants/${target.slug}`);
    for (const task of ['ACCESS', 'SEARCH', 'DETAILS']) {
      await expect(cell(task).getAttribute('data-status')).resolves.toBe('supported');
      await expect(cell(task).textContent()).resolves.toMatch(/Works[\s\S]*Low confidence[\s\S]*1 report, 1 recent/);
    }
    await expect(cell('CART').getAttribute('data-status')).resolves.toBe('partial');
    await expect(cell('PURCHASE').getAttribute('data-status')).resolves.toBe('untested');
    const why = cell('CART').locator('details');
    await why.locator('summary').click();
    const evidence = why.locator(`a[href="#report-${reportId}"]`);
    await expect(evidence.isVisible()).resolves.toBe(true);
    await expect(why.textContent()).resolves.toContain('Partially works, task result given in the report');
    await evidence.click();
    const report = page.locator(`#report-${reportId}`);
    await expect(report.locator('.experience').textContent()).resolves.toBe(EXPERIENCE);
    await expect(page.locator(`#summary-${target.agentSlug}`).textContent()).resolves.toContain(target.agentName);
    // The verdict leads the page, with its evidence: one report, tested today.
    await expect(page.locator(`#verdict-${target.agentSlug} .verdict-evidence`).textContent()).resolves.toMatch(/^1 report · last tested /);
    await noSeriousAxe('a merchant page');
    await screenshot(page, 'merchant');
    await pageIsClean('the merchant page after approval');
  });
});
