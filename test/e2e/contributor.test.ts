// A contributor's pages in a real browser (Debian's Chromium through playwright-core) at desk
// and phone widths: the form's error summary and its focus, Enter that never sends a
// half-finished report, the merchant search as you type, the keyboard-only journey, "My
// reports", editing a report back to moderation with its screenshot kept, the review page,
// and agent keys that ask before revoking and say what happened. Every page is checked for
// console errors, CSP violations, sideways scrolling, HTML validity and serious axe findings.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveReport } from '../../src/modules/moderation/moderation.service.js';
import { htmlProblems } from '../pages/html-validate.js';
import {
  DESK,
  expectErrorStatus,
  fitsViewport,
  HAS_CHROMIUM,
  PHONE,
  PNG,
  screenshot,
  seriousAxeViolations,
  startBrowserSuite,
  type BrowserSuite,
  type WatchedPage,
} from './browser.js';

const WIDTHS = [
  { name: 'desk', ...DESK },
  { name: 'phone', ...PHONE },
] as const;

interface Target {
  merchantId: string;
  name: string;
  agentId: string;
  agentName: string;
}

describe.skipIf(!HAS_CHROMIUM)('a contributor in a real browser', { timeout: 180_000 }, () => {
  let live: BrowserSuite;
  /** Merchants that a single search finds, each with an agent; taken one per test. */
  let targets: Target[] = [];
  let emails = 0;

  beforeAll(async () => {
    live = await startBrowserSuite();
    // A form that comes back with errors answers 4xx (Chromium logs it): expected here.
    for (const where of ['/reports/new', '/sign-in']) expectErrorStatus(`${live.baseUrl}${where}`);
    // Merchants whose whole name matches only themselves in the API's search.
    const { rows } = await live.t.db.pool.query<{ merchantId: string; name: string }>(
      `SELECT m.id AS "merchantId", m.name FROM merchants m
        WHERE m.is_public AND (SELECT count(*) FROM merchants o WHERE o.is_public AND (o.name ILIKE '%' || m.name || '%' OR o.slug ILIKE '%' || m.name || '%' OR o.website ILIKE '%' || m.name || '%')) = 1
        ORDER BY m.name LIMIT 12`,
    );
    const agents = await live.t.db.pool.query<{ agentId: string; agentName: string }>(
      `SELECT id AS "agentId", name AS "agentName" FROM agents WHERE active ORDER BY name`,
    );
    // Agents whose first word no other agent's name begins with (type-ahead picks them by it).
    const firstWord = (name: string) => name.split(' ')[0]!;
    const distinct = agents.rows.filter((a) => agents.rows.filter((o) => o.agentName.startsWith(firstWord(a.agentName))).length === 1);
    targets = rows.map((m, i) => ({ ...m, ...distinct[i % distinct.length]! }));
    expect(targets.length).toBeGreaterThanOrEqual(6);
  }, 180_000);

  afterAll(() => live?.close());

  /** A browser of its own at one width, signed in as a new person through the outbox link. */
  async function signedIn(size: (typeof WIDTHS)[number]): Promise<{ w: WatchedPage; page: Page; email: string }> {
    const w = await live.open(size);
    const email = `contributor-${(emails += 1)}@example.org`;
    await w.page.goto(`${live.baseUrl}/sign-in`);
    await w.page.getByLabel('E-mail address').fill(email);
    await andLoad(w.page, () => w.page.getByRole('button', { name: 'Send me a sign-in link' }).click(), 200);
    await w.page.getByRole('heading', { name: 'Check your e-mail' }).waitFor();
    await w.page.goto(live.signInLink(email));
    expect(w.page.url()).toBe(`${live.baseUrl}/profile/reports`);
    return { w, page: w.page, email };
  }

  /** What every page of ours must satisfy, at the width it is shown (`html`: the document as sent, when not the last 2xx one). */
  async function pageIsGood(w: WatchedPage, where: string, html?: string): Promise<void> {
    expect(await fitsViewport(w.page), `${where} is no wider than the screen`).toBe(true);
    expect(await w.cspViolations(), `CSP violations on ${where}`).toEqual([]);
    expect(w.problems, `console errors by ${where}`).toEqual([]);
    expect(await seriousAxeViolations(w.page), `axe on ${where}`).toEqual([]);
    expect(await htmlProblems(html ?? (await w.documentHtml())), `HTML of ${where}`).toEqual([]);
  }

  /**
   * Waits until the expression is true in the page (polled with page.evaluate: the CSP, rightly,
   * refuses the string evaluation page.waitForFunction would use). Survives navigations.
   */
  async function until(page: Page, expression: string, timeoutMs = 10_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const ok = await page.evaluate<boolean>(expression).catch(() => false);
      if (ok) return;
      if (Date.now() > end) throw new Error(`timed out waiting for ${expression}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /**
   * Runs `action` (a click that sends a form), waits for the next document to load and returns
   * its HTML as the server sent it (for html-validate: 4xx documents are not kept by watchedPage).
   * With `status`, a different answer fails at once, naming what came instead.
   */
  async function andLoad(page: Page, action: () => Promise<void>, status?: number): Promise<string> {
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.request().isNavigationRequest() && r.request().frame() === page.mainFrame() && (r.status() < 300 || r.status() >= 400)),
      page.evaluate('window.__before = true').then(action),
    ]);
    const html = await response.text();
    if (status !== undefined && response.status() !== status) {
      throw new Error(`expected ${status} from ${response.url()}, got ${response.status()}: ${/<title>([^<]*)/.exec(html)?.[1] ?? html.slice(0, 200)}`);
    }
    await until(page, '!window.__before && document.readyState === "complete"');
    return html;
  }

  const activeId = (page: Page) => page.evaluate<string>('document.activeElement ? document.activeElement.id : ""');

  /** Presses Tab until the element matching `selector` has focus. */
  async function tabTo(page: Page, selector: string, max = 80): Promise<void> {
    for (let i = 0; i < max; i += 1) {
      if (await page.evaluate<boolean>(`document.activeElement ? document.activeElement.matches(${JSON.stringify(selector)}) : false`)) return;
      await page.keyboard.press('Tab');
    }
    throw new Error(`Tab never reached ${selector}`);
  }

  for (const size of WIDTHS) {
    it(`at ${size.width} px: an empty form focuses an error summary on the first screen, whose links lead to the fields`, async () => {
      const { w, page } = await signedIn(size);
      await page.goto(`${live.baseUrl}/reports/new`);
      await pageIsGood(w, `the blank form (${size.name})`);
      const html = await andLoad(page, () => page.getByRole('button', { name: 'Submit for moderation' }).click(), 400);
      const alert = page.getByRole('alert');
      await expect(alert.getAttribute('id')).resolves.toBe('error-summary');
      expect(await activeId(page)).toBe('error-summary');
      const box = await page.evaluate<{ top: number; bottom: number; height: number; scrollY: number }>(
        `(() => { const r = document.getElementById('error-summary').getBoundingClientRect(); return { top: r.top + scrollY, bottom: r.bottom + scrollY, height: innerHeight, scrollY }; })()`,
      );
      expect(box.top, 'the summary starts on the first screen').toBeLessThan(box.height);
      expect(box.scrollY).toBeLessThan(box.height / 2);
      const text = (await alert.textContent()) ?? '';
      for (const message of [
        'Choose the merchant you tested',
        'Choose the agent you tested',
        'Say how at least one task went, or give an overall result',
        'Confirm that the report contains no private or payment data',
      ]) {
        expect(text).toContain(message);
      }
      expect(text).not.toMatch(/must be|capabilityResults|merchant id/);
      await expect(page.title()).resolves.toMatch(/^Error: /);
      await pageIsGood(w, `the form with errors (${size.name})`, html);
      if (size.phone) await screenshot(page, 'contributor-form-errors-phone');

      // Each entry leads to its field, focused.
      await alert.getByRole('link', { name: 'Confirm that the report contains no private or payment data' }).click();
      expect(await activeId(page)).toBe('privacy');
      await alert.getByRole('link', { name: 'Choose the agent you tested' }).click();
      expect(await activeId(page)).toBe('agentId');
    });
  }

  it('searches merchants as you type without losing answers, chooses a single match, and Enter never sends a half-finished report', async () => {
    const { w, page } = await signedIn(WIDTHS[0]);
    const target = targets[0]!;
    await page.goto(`${live.baseUrl}/reports/new`);
    await page.getByLabel('Agent', { exact: true }).selectOption(target.agentId);
    await page.locator('#task_ACCESS').selectOption('WORKS');
    await page.getByLabel(/Region you tested from/).fill('NL');

    let posts = 0;
    page.on('request', (r) => {
      if (r.method() === 'POST') posts += 1;
    });
    // Enter in a text box and on the privacy box: nothing is sent.
    await page.getByLabel(/Region you tested from/).press('Enter');
    await page.getByLabel('I have checked all three').check();
    await page.getByLabel('I have checked all three').press('Enter');
    await page.waitForTimeout(300);
    expect(posts).toBe(0);
    expect(page.url()).toBe(`${live.baseUrl}/reports/new`);

    // Typing in the search box fills the merchant list in place; one match is chosen.
    await page.getByLabel(/Find the merchant/).pressSequentially(target.name, { delay: 20 });
    await until(page, `document.getElementById('merchant-search-status').textContent.startsWith('One merchant matches')`);
    await expect(page.locator('#adId').inputValue()).resolves.toBe(target.merchantId);
    // Nothing else changed, and the page was not reloaded.
    expect(posts).toBe(0);
    await expect(page.locator('#agentId').inputValue()).resolves.toBe(target.agentId);
    await expect(page.locator('#task_ACCESS').inputValue()).resolves.toBe('WORKS');
    await expect(page.locator('#region').inputValue()).resolves.toBe('NL');
    // Enter in the search box searches again, still without sending the form, and goes to the list.
    await page.getByLabel(/Find the merchant/).press('Enter');
    await until(page, `document.activeElement.id === 'adId'`);
    expect(posts).toBe(0);
    await pageIsGood(w, 'the form after a live search');
  });

  it('keeps every answer and an attached screenshot when the form comes back with errors', async () => {
    const { w, page } = await signedIn(WIDTHS[1]);
    const target = targets[1]!;
    await page.goto(`${live.baseUrl}/reports/new`);
    await page.getByLabel(/Find the merchant/).fill(target.name);
    await until(page, `document.getElementById('merchant-search-status').textContent.startsWith('One merchant matches')`);
    await page.locator('#task_CART').selectOption('PARTIAL');
    await page.getByLabel(/Your experience/).fill('Kept across the round trip.');
    await page.getByLabel(/Screenshots/).setInputFiles({ name: 'cart.png', mimeType: 'image/png', buffer: PNG });
    // No agent, no privacy check: back with errors.
    const html = await andLoad(page, () => page.getByRole('button', { name: 'Submit for moderation' }).click(), 400);
    await expect(page.locator('#adId').inputValue()).resolves.toBe(target.merchantId);
    await expect(page.locator('#task_CART').inputValue()).resolves.toBe('PARTIAL');
    await expect(page.locator('#experience').inputValue()).resolves.toBe('Kept across the round trip.');
    await expect(page.getByLabel(/Keep cart\.png/).isChecked()).resolves.toBe(true);
    await pageIsGood(w, 'the form with a kept screenshot (phone)', html);

    await page.getByLabel('Agent', { exact: true }).selectOption(target.agentId);
    await page.getByLabel('I have checked all three').check();
    await Promise.all([page.waitForURL(/\/reports\/[0-9a-f-]{36}\/review$/), page.getByRole('button', { name: 'Submit for moderation' }).click()]);
    const id = /\/reports\/([0-9a-f-]{36})\/review$/.exec(page.url())![1]!;
    expect(await live.t.db.prisma.screenshotEvidence.count({ where: { reportId: id } })).toBe(1);
    await until(page, `document.querySelector('.thumbs img').complete && document.querySelector('.thumbs img').naturalWidth === 1`);
    await pageIsGood(w, 'the review page (phone)');
  });

  it('without JavaScript: the summary takes focus, Find keeps every answer and the screenshot, Enter never sends a report', async () => {
    const context = await live.context(WIDTHS[0], { javaScriptEnabled: false });
    const page = await context.newPage();
    const email = `no-script-${(emails += 1)}@example.org`;
    await live.signIn(page, email);
    const target = targets[5]!;
    const posts: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST') posts.push(r.url());
    });

    // An empty submission: autofocus puts focus on the summary.
    await page.goto(`${live.baseUrl}/reports/new`);
    await andLoad(page, () => page.getByRole('button', { name: 'Submit for moderation' }).click(), 400);
    expect(await activeId(page)).toBe('error-summary');

    // Answers first, then the merchant's name, then Enter in another text box: that is the
    // search (the Find button is the form's first), never the submission.
    await page.getByLabel('Agent', { exact: true }).selectOption(target.agentId);
    await page.locator('#task_ACCESS').selectOption('BLOCKED');
    await page.getByLabel(/Region you tested from/).fill('PL');
    await page.getByLabel(/Screenshots/).setInputFiles({ name: 'no-script.png', mimeType: 'image/png', buffer: PNG });
    await page.getByLabel('I have checked all three').check();
    await page.getByLabel(/Find the merchant/).fill(target.name);
    posts.length = 0;
    await andLoad(page, () => page.getByLabel(/Region you tested from/).press('Enter'), 200);
    // One post, answered with the form (200) and its search results: no report was sent.
    expect(posts).toEqual([`${live.baseUrl}/reports/new`]);
    expect(await live.t.db.prisma.report.count({ where: { account: { email } } })).toBe(0);
    await expect(page.locator('#merchant-search-status').textContent()).resolves.toBe(`One merchant matches “${target.name}”: ${target.name} is chosen.`);
    expect(await activeId(page)).toBe('adId');
    await expect(page.locator('#adId').inputValue()).resolves.toBe(target.merchantId);
    await expect(page.locator('#agentId').inputValue()).resolves.toBe(target.agentId);
    await expect(page.locator('#task_ACCESS').inputValue()).resolves.toBe('BLOCKED');
    await expect(page.locator('#region').inputValue()).resolves.toBe('PL');
    await expect(page.locator('#privacy').isChecked()).resolves.toBe(true);
    await expect(page.getByLabel(/Keep no-script\.png/).isChecked()).resolves.toBe(true);

    await Promise.all([page.waitForURL(/\/review$/), page.getByRole('button', { name: 'Submit for moderation' }).click()]);
    const id = /\/reports\/([0-9a-f-]{36})\/review$/.exec(page.url())![1]!;
    expect(await live.t.db.prisma.screenshotEvidence.count({ where: { reportId: id } })).toBe(1);

    // The edit form: Enter in a text box sends nothing at all (its first submit button is disabled).
    await page.goto(`${live.baseUrl}/reports/${id}/edit`);
    posts.length = 0;
    await page.getByLabel(/Region you tested from/).press('Enter');
    await page.waitForTimeout(500);
    expect(posts).toEqual([]);
    expect(page.url()).toBe(`${live.baseUrl}/reports/${id}/edit`);
  });

  it('submits, finds the report on My reports, edits it and sees it pending again with its screenshot', async () => {
    const { w, page } = await signedIn(WIDTHS[0]);
    const target = targets[2]!;
    await page.goto(`${live.baseUrl}/reports/new?adId=${target.merchantId}`);
    await expect(page.locator('#adId').inputValue()).resolves.toBe(target.merchantId);
    await page.getByLabel('Agent', { exact: true }).selectOption(target.agentId);
    for (const task of ['ACCESS', 'SEARCH']) await page.locator(`#task_${task}`).selectOption('WORKS');
    await page.locator('#task_CART').selectOption('BLOCKED');
    await page.getByLabel('Furthest stage reached').selectOption('CART');
    await page.getByLabel(/Screenshots/).setInputFiles({ name: 'blocked.png', mimeType: 'image/png', buffer: PNG });
    await page.getByLabel('I have checked all three').check();
    await Promise.all([page.waitForURL(/\/review$/), page.getByRole('button', { name: 'Submit for moderation' }).click()]);
    const id = /\/reports\/([0-9a-f-]{36})\/review$/.exec(page.url())![1]!;
    await expect(page.getByRole('status').first().textContent()).resolves.toContain('Thank you: your report is sent.');
    await pageIsGood(w, 'the review page after sending');

    // A moderator approves it.
    await approveReport(live.t.db.prisma, { reportId: id, actorId: null, feedback: 'Clear, thank you.', now: live.t.clock.now() });

    // The header leads to My reports; the report is there, approved, with the feedback.
    await Promise.all([page.waitForURL(`${live.baseUrl}/profile/reports`), page.locator('.account').getByRole('link', { name: 'My reports', exact: true }).click()]);
    const card = page.locator(`.my-report[data-report-id="${id}"]`);
    await expect(card.textContent()).resolves.toMatch(new RegExp(`${target.name}[\\s\\S]*Approved and public[\\s\\S]*1 screenshot[\\s\\S]*Clear, thank you\\.`));
    await pageIsGood(w, 'my reports');

    // Edit: the form is filled in as the report stands.
    await Promise.all([page.waitForURL(`${live.baseUrl}/reports/${id}/edit`), card.getByRole('link', { name: /^Edit/ }).click()]);
    await expect(page.locator('#task_CART').inputValue()).resolves.toBe('BLOCKED');
    await expect(page.locator('#stage').inputValue()).resolves.toBe('CART');
    await pageIsGood(w, 'the edit form');
    await page.locator('#task_CART').selectOption('PARTIAL');
    await page.getByLabel(/Your experience/).fill('The cart worked on the second try.');
    await page.getByLabel('I have checked all three').check();
    await Promise.all([page.waitForURL(`${live.baseUrl}/reports/${id}/review`), page.getByRole('button', { name: 'Save changes' }).click()]);
    await expect(page.getByRole('status').first().textContent()).resolves.toContain('The report is waiting for moderation again');
    await expect(page.locator('.review-status').textContent()).resolves.toContain('Waiting for moderation');
    await expect(page.locator('.review-tasks').textContent()).resolves.toMatch(/Add to cart\s*Partially works/);
    await until(page, `document.querySelector('.thumbs img').complete && document.querySelector('.thumbs img').naturalWidth === 1`);
    await pageIsGood(w, 'the review page after editing');

    await page.goto(`${live.baseUrl}/profile/reports`);
    await expect(card.textContent()).resolves.toMatch(/Waiting for moderation[\s\S]*1 screenshot/);
    const stored = await live.t.db.prisma.report.findUniqueOrThrow({ where: { id }, include: { _count: { select: { evidence: true } } } });
    expect(stored.status).toBe('PENDING');
    expect(stored._count.evidence).toBe(1);
  });

  it('completes the form with the keyboard alone (Tab, typing, Space, Enter)', async () => {
    const { w, page } = await signedIn(WIDTHS[0]);
    const target = targets[3]!;
    await page.goto(`${live.baseUrl}/reports/new`);
    let posts = 0;
    page.on('request', (r) => {
      if (r.method() === 'POST') posts += 1;
    });
    const keys = page.keyboard;

    await tabTo(page, '#q');
    await keys.type(target.name, { delay: 15 });
    await until(page, `document.getElementById('merchant-search-status').textContent.startsWith('One merchant matches')`);
    await expect(page.locator('#adId').inputValue()).resolves.toBe(target.merchantId);
    // A closed list chooses by type-ahead: the first letters of an option.
    await tabTo(page, '#agentId');
    await keys.type(target.agentName.split(' ')[0]!);
    await expect(page.locator('#agentId').inputValue()).resolves.toBe(target.agentId);
    await tabTo(page, '#task_ACCESS');
    await keys.type('Works');
    await tabTo(page, '#task_SEARCH');
    await keys.type('Partially');
    await tabTo(page, '#region');
    await keys.type('SE');
    await keys.press('Enter');
    await tabTo(page, '#experience');
    await keys.type('Done with the keyboard only.');
    await tabTo(page, '#privacy');
    await keys.press('Space');
    await expect(page.locator('#privacy').isChecked()).resolves.toBe(true);
    await keys.press('Enter');
    await page.waitForTimeout(300);
    expect(posts, 'Enter in a text box or on the checkbox sent nothing').toBe(0);
    await tabTo(page, 'button:not([name])');
    await expect(page.evaluate<string>('document.activeElement.textContent.trim()')).resolves.toBe('Submit for moderation');
    await Promise.all([page.waitForURL(/\/reports\/[0-9a-f-]{36}\/review$/), keys.press('Enter')]);
    const id = /\/reports\/([0-9a-f-]{36})\/review$/.exec(page.url())![1]!;
    const report = await live.t.db.prisma.report.findUniqueOrThrow({ where: { id } });
    expect(report).toMatchObject({ merchantId: target.merchantId, agentId: target.agentId, region: 'SE', experience: 'Done with the keyboard only.' });
    expect(report.capabilityResults).toEqual({ ACCESS: 'WORKS', SEARCH: 'PARTIAL' });
    await pageIsGood(w, 'the review page after the keyboard journey');
  });

  for (const size of WIDTHS) {
    it(`at ${size.width} px: revoking a key asks first, then says it happened; the buttons are on screen`, async () => {
      const { w, page, email } = await signedIn(size);
      await page.goto(`${live.baseUrl}/profile/agents`);
      await page.getByLabel('Agent', { exact: true }).selectOption(targets[0]!.agentId);
      await andLoad(page, () => page.getByRole('button', { name: 'Issue key' }).click(), 200);
      await page.locator('#new-key').waitFor();
      const key = await live.t.db.prisma.agentKey.findFirstOrThrow({ where: { account: { email } } });
      await page.goto(`${live.baseUrl}/profile/agents`);
      await pageIsGood(w, `the keys page (${size.name})`);

      const row = page.locator(`tr[data-key-id="${key.id}"]`);
      const revoke = row.locator('summary', { hasText: 'Revoke' });
      const shown = await revoke.boundingBox();
      expect(shown, 'the Revoke control is shown').not.toBeNull();
      expect(shown!.x).toBeGreaterThanOrEqual(0);
      expect(shown!.x + shown!.width, 'the Revoke control is on screen').toBeLessThanOrEqual(size.width);

      // The first click only asks.
      await revoke.click();
      const confirm = row.getByRole('button', { name: /^Yes, revoke key/ });
      await expect(confirm.isVisible()).resolves.toBe(true);
      expect((await live.t.db.prisma.agentKey.findUniqueOrThrow({ where: { id: key.id } })).revokedAt).toBeNull();
      const box = await confirm.boundingBox();
      expect(box!.x + box!.width).toBeLessThanOrEqual(size.width);
      expect(await fitsViewport(page)).toBe(true);
      if (size.phone) await screenshot(page, 'contributor-keys-confirm-phone');

      await andLoad(page, () => confirm.click(), 200);
      await expect(page.getByRole('status').first().textContent()).resolves.toContain(`Key ${key.displayPrefix}… is revoked.`);
      await expect(row.locator('.key-state').textContent()).resolves.toContain('Revoked');
      expect((await live.t.db.prisma.agentKey.findUniqueOrThrow({ where: { id: key.id } })).revokedAt).not.toBeNull();
      await pageIsGood(w, `the keys page after revoking (${size.name})`);
    });
  }

  it('keeps every page of ours within a 390 px screen: my reports, review, edit, sign-in with an error', async () => {
    const { w, page } = await signedIn(WIDTHS[1]);
    const target = targets[4]!;
    await page.goto(`${live.baseUrl}/reports/new?adId=${target.merchantId}`);
    await page.getByLabel('Agent', { exact: true }).selectOption(target.agentId);
    await page.locator('#outcome').selectOption('UNSURE');
    await page.getByLabel(/Your experience/).fill(`A long word without spaces: ${'x'.repeat(120)}`);
    await page.getByLabel('I have checked all three').check();
    await Promise.all([page.waitForURL(/\/review$/), page.getByRole('button', { name: 'Submit for moderation' }).click()]);
    await pageIsGood(w, 'the review page (phone)');
    const id = /\/reports\/([0-9a-f-]{36})\/review$/.exec(page.url())![1]!;
    for (const where of ['/profile/reports', `/reports/${id}/edit`, '/reports/new']) {
      await page.goto(`${live.baseUrl}${where}`);
      await pageIsGood(w, `${where} (phone)`);
    }
    await page.goto(`${live.baseUrl}/profile/reports`);
    await screenshot(page, 'contributor-my-reports-phone');

    const a = await live.open(WIDTHS[1]);
    await a.page.goto(`${live.baseUrl}/sign-in`);
    await a.page.getByLabel('E-mail address').fill('not-an-address');
    const html = await andLoad(a.page, () => a.page.getByRole('button', { name: 'Send me a sign-in link' }).click(), 400);
    expect(await activeId(a.page)).toBe('error-summary');
    await pageIsGood(a, 'sign-in with an error (phone)', html);
  });
});
