// Issue 28 in a real browser (Debian's Chromium through playwright-core), at 390 and 1280 px:
// a contributor sent to sign in by "Report a test" is told why and comes back to the form,
// reports with a screenshot and a region typed as a country name, receives the e-mail of the
// rejection (with the moderator's feedback) in the outbox, edits the rejected report with the
// feedback shown first, removes the screenshot and adds another, resubmits, receives the
// e-mail of the approval, and signs out to a confirmation; an agent owner finds the agent
// guide from the key page. Every page touched is checked for axe findings (any impact),
// sideways scrolling, console errors and CSP violations, and the form's small controls for
// touch targets of at least 24 × 24 px.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveReport, rejectReport } from '../../src/modules/moderation/moderation.service.js';
import { decisionNoticesSent } from '../../src/modules/moderation/decision-notices.js';
import {
  axeViolations,
  DESK,
  expectErrorStatus,
  fitsViewport,
  HAS_CHROMIUM,
  outboxMessages,
  PHONE,
  PNG,
  screenshot,
  startBrowserSuite,
  type BrowserSuite,
  type WatchedPage,
} from './browser.js';

const WIDTHS = [
  { name: 'phone', ...PHONE },
  { name: 'desk', ...DESK },
] as const;

describe.skipIf(!HAS_CHROMIUM)('the contributor loop in a real browser', { timeout: 240_000 }, () => {
  let live: BrowserSuite;
  let targets: Array<{ merchantId: string; agentId: string }> = [];

  beforeAll(async () => {
    live = await startBrowserSuite();
    for (const where of ['/reports/new', '/sign-in']) expectErrorStatus(`${live.baseUrl}${where}`);
    const { rows } = await live.t.db.pool.query<{ merchantId: string; agentId: string }>(
      `SELECT m.id AS "merchantId", (SELECT id FROM agents WHERE active ORDER BY name LIMIT 1) AS "agentId"
         FROM merchants m WHERE m.is_public ORDER BY m.name DESC LIMIT 4`,
    );
    targets = rows;
    expect(targets.length).toBe(4);
  }, 180_000);

  afterAll(() => live?.close());

  /** What every touched page must satisfy: no axe violation of any impact, no sideways scroll, no console or CSP problem. */
  async function pageIsGood(w: WatchedPage, where: string): Promise<void> {
    expect(await fitsViewport(w.page), `${where} is no wider than the screen`).toBe(true);
    expect(await w.cspViolations(), `CSP violations on ${where}`).toEqual([]);
    expect(w.problems, `console errors by ${where}`).toEqual([]);
    const violations = (await axeViolations(w.page)).map((v) => `${v.impact} ${v.id}: ${v.help} ${JSON.stringify(v.nodes)}`);
    expect(violations, `axe on ${where}`).toEqual([]);
  }

  /** Runs `action` (a click that navigates) and waits for the next document to load. */
  async function andLoad(page: Page, action: () => Promise<unknown>): Promise<void> {
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), action()]);
  }

  async function untilMail(to: string, pattern: RegExp): Promise<string> {
    const end = Date.now() + 10_000;
    for (;;) {
      await decisionNoticesSent(live.t.db.prisma);
      const found = outboxMessages(live.t.config.dataDir, to).find((text) => pattern.test(text));
      if (found) return found;
      if (Date.now() > end) throw new Error(`no mail to ${to} matching ${pattern}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** At least 24 × 24 CSS px. */
  async function bigEnough(page: Page, selector: string, what: string): Promise<void> {
    const box = await page.locator(selector).first().boundingBox();
    expect(box, `${what} is shown`).not.toBeNull();
    expect(box!.width, `${what} is at least 24 px wide`).toBeGreaterThanOrEqual(24);
    expect(box!.height, `${what} is at least 24 px tall`).toBeGreaterThanOrEqual(24);
  }

  WIDTHS.forEach((size, i) => {
    it(`at ${size.width} px: signs in to report, hears both decisions by e-mail, edits the rejected report's screenshots and resubmits, signs out`, async () => {
      const w = await live.open(size);
      const { page } = w;
      const email = `loop-${size.name}@example.org`;
      const target = targets[i]!;

      // "Report a test" while signed out: the sign-in page says why, and comes back to the form.
      await page.goto(`${live.baseUrl}/`);
      await andLoad(page, () => page.locator('.site-nav').getByRole('link', { name: 'Report a test' }).click());
      await page.getByRole('heading', { name: 'Sign in to report a test' }).waitFor();
      await pageIsGood(w, `the sign-in page with its reason (${size.name})`);
      await page.getByLabel('E-mail address').fill(email);
      await andLoad(page, () => page.getByRole('button', { name: 'Send me a sign-in link' }).click());
      await page.goto(live.signInLink(email));
      expect(new URL(page.url()).pathname).toBe('/reports/new');

      // The report, with a region typed as a country's name and one screenshot.
      await page.goto(`${live.baseUrl}/reports/new?adId=${target.merchantId}`);
      await page.getByLabel('Agent', { exact: true }).selectOption(target.agentId);
      await page.getByLabel('Overall result').selectOption('WORKS');
      await page.getByLabel(/^Region you tested from/).fill('Germany');
      await page.locator('#screenshots').setInputFiles({ name: 'first.png', mimeType: 'image/png', buffer: PNG });
      await page.getByText('Screenshots are seen only by the moderators').waitFor();
      await bigEnough(page, '#privacy', 'the privacy checkbox');
      await bigEnough(page, '#screenshots', 'the file input');
      await page.getByLabel('I have checked all three').check();
      await pageIsGood(w, `the new report form (${size.name})`);
      await andLoad(page, () => page.getByRole('button', { name: 'Submit for moderation' }).click());
      const id = /\/reports\/([0-9a-f-]{36})\/review$/.exec(page.url())![1]!;
      const report = await live.t.db.prisma.report.findUniqueOrThrow({ where: { id }, include: { evidence: true } });
      expect(report.region).toBe('DE');
      expect(report.evidence).toHaveLength(1);
      await pageIsGood(w, `the review page (${size.name})`);

      // A moderator rejects it with feedback: the e-mail says so, with the feedback and My reports.
      const feedback = 'Please say which page showed the CAPTCHA.';
      await rejectReport(live.t.db.prisma, { reportId: id, actorId: null, feedback, now: new Date() });
      const rejection = await untilMail(email, /A moderator did not approve your report/);
      expect(rejection).toContain(feedback);
      expect(rejection).toContain(`${live.baseUrl}/profile/reports`);

      // From My reports to the edit form: the feedback first.
      await page.goto(`${live.baseUrl}/profile/reports`);
      await page.locator('#notifyDecisions').waitFor();
      await bigEnough(page, '#notifyDecisions', 'the e-mail setting checkbox');
      await pageIsGood(w, `my reports (${size.name})`);
      await andLoad(page, () => page.locator(`[data-report-id="${id}"] a[href$="/edit"]`).click());
      await page.getByRole('heading', { name: 'Why a moderator rejected this report' }).waitFor();
      await expect(page.locator('.moderator-feedback .feedback-text').textContent()).resolves.toBe(feedback);
      await page.getByText('Tick it again each time you save').waitFor();
      await bigEnough(page, '#privacy', 'the privacy checkbox on the edit form');
      await bigEnough(page, '#screenshots', 'the file input on the edit form');
      await bigEnough(page, `#remove_${report.evidence[0]!.id}`, 'the remove checkbox');
      await pageIsGood(w, `the edit form with feedback (${size.name})`);
      if (size.phone) await screenshot(page, 'contributor-loop-edit-phone');

      // Remove the screenshot, add another, answer the feedback, and resubmit.
      await page.getByLabel('Remove screenshot 1').check();
      await page.locator('#screenshots').setInputFiles({ name: 'second.png', mimeType: 'image/png', buffer: PNG });
      await page.getByLabel('Your experience').fill('The CAPTCHA appeared on the cart page.');
      await page.getByLabel('I have checked all three').check();
      await andLoad(page, () => page.getByRole('button', { name: 'Save changes' }).click());
      expect(page.url()).toBe(`${live.baseUrl}/reports/${id}/review`);
      await expect(page.getByRole('status').first().textContent()).resolves.toContain('1 screenshot added, 1 screenshot removed');
      const resubmitted = await live.t.db.prisma.report.findUniqueOrThrow({ where: { id }, include: { evidence: true } });
      expect(resubmitted.status).toBe('PENDING');
      expect(resubmitted.evidence).toHaveLength(1);
      expect(resubmitted.evidence[0]!.id).not.toBe(report.evidence[0]!.id);
      await pageIsGood(w, `the review page after resubmitting (${size.name})`);

      // Approved: the second e-mail.
      await approveReport(live.t.db.prisma, { reportId: id, actorId: null, now: new Date() });
      const approval = await untilMail(email, /A moderator approved your report/);
      expect(approval).toContain(`${live.baseUrl}/profile/reports`);
      expect(outboxMessages(live.t.config.dataDir, email).filter((m) => /A moderator (approved|did not approve) your report/.test(m))).toHaveLength(2);

      // Signing out confirms.
      await andLoad(page, () => page.getByRole('button', { name: 'Sign out' }).click());
      expect(new URL(page.url()).pathname).toBe('/sign-out/done');
      await page.getByRole('heading', { name: 'You are signed out' }).waitFor();
      await pageIsGood(w, `the signed-out page (${size.name})`);
    });

    it(`at ${size.width} px: an agent owner finds the agent guide from the key page`, async () => {
      const w = await live.open(size);
      const { page } = w;
      const email = `owner-${size.name}@example.org`;
      await page.goto(`${live.baseUrl}/profile/agents`);
      await page.getByRole('heading', { name: 'Sign in to manage the keys for your agents' }).waitFor();
      await page.getByLabel('E-mail address').fill(email);
      await andLoad(page, () => page.getByRole('button', { name: 'Send me a sign-in link' }).click());
      await page.goto(live.signInLink(email));
      expect(new URL(page.url()).pathname).toBe('/profile/agents');
      await page.getByRole('heading', { name: 'Keys for your agents', level: 1 }).waitFor();

      // A key for one agent: listed under "Your agents", before the chooser.
      await page.getByLabel('Agent', { exact: true }).selectOption(targets[0]!.agentId);
      await andLoad(page, () => page.getByRole('button', { name: 'Issue key' }).click());
      await page.locator('#new-key').waitFor();
      await page.goto(`${live.baseUrl}/profile/agents`);
      await page.locator(`.your-agents [data-agent-id="${targets[0]!.agentId}"]`).waitFor();
      await expect(page.getByRole('link', { name: 'API documentation' }).getAttribute('href')).resolves.toBe('/api/v1/openapi.json');
      await pageIsGood(w, `the key page (${size.name})`);

      await andLoad(page, () => page.getByRole('link', { name: 'agent guide' }).click());
      expect(new URL(page.url()).pathname).toBe('/agent-guide');
      await expect(page.locator('body').textContent()).resolves.toContain('/mcp');
    });
  });
});
