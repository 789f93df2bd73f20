// A moderator in a real browser (issue 37) finds a burst of near-identical reports from new
// accounts through the queue's signals, shows the burst, selects all of it and rejects it in one
// step with one feedback; every report gets its audit row. The pages pass axe, the HTML
// validator, and raise no console error or CSP violation.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DESK, expectSpotlessPage, HAS_CHROMIUM, startBrowserSuite, type BrowserSuite, type WatchedPage } from './browser.js';

const MODERATOR = 'e2e.moderator37@example.org';
const BURST = 5;
const TEXT = 'Amazing agent, checkout went through in seconds, best shopping assistant ever, highly recommended';

describe.skipIf(!HAS_CHROMIUM)('a moderator rejects a burst in one step (issue 37)', { timeout: 180_000 }, () => {
  let live: BrowserSuite;
  let w: WatchedPage;
  let page: Page;
  const burstIds: string[] = [];

  beforeAll(async () => {
    live = await startBrowserSuite({ MODERATOR_EMAILS: MODERATOR });
    const prisma = live.t.db.prisma;
    const now = live.t.clock.now();
    const [agent] = await prisma.agent.findMany({ where: { active: true }, orderBy: { name: 'asc' }, take: 1 });
    // Five new accounts, each reporting a different shop within the hour, with the same words.
    const merchants = await prisma.merchant.findMany({ where: { isPublic: true }, orderBy: { name: 'desc' }, take: BURST });
    let made = 0;
    for (const merchant of merchants) {
      if (made === BURST) break;
      made += 1;
      const account = await prisma.account.create({ data: { email: `burst-${made}@example.org`, createdAt: new Date(now.getTime() - 6 * 3_600_000) } });
      const report = await prisma.report.create({
        data: {
          accountId: account.id,
          merchantId: merchant.id,
          agentId: agent!.id,
          status: 'PENDING',
          channel: 'BROWSER',
          outcome: 'WORKS',
          capabilityResults: { CHECKOUT: 'WORKS' },
          experience: made % 2 ? TEXT : `${TEXT}!!`,
          privacyConfirmed: true,
          createdAt: new Date(now.getTime() - made * 600_000),
          updatedAt: new Date(now.getTime() - made * 600_000),
        },
      });
      burstIds.push(report.id);
    }
    expect(burstIds).toHaveLength(BURST);
    w = await live.open(DESK);
    page = w.page;
  }, 180_000);

  afterAll(() => live?.close());

  /** Every touched admin page, at 1280 px: no axe violation at all (browser.ts). */
  const pageIsGood = (where: string) => expectSpotlessPage(w, where);

  it('finds the burst by its signals, selects all of it and rejects it with one feedback', async () => {
    await live.signIn(page, MODERATOR);

    // The queue, filtered by the near-identical text signal, newest accounts first.
    await page.goto(`${live.baseUrl}/admin/reports`);
    await page.getByLabel('Signal', { exact: true }).selectOption('near-duplicate');
    await page.getByLabel('Order', { exact: true }).selectOption('account-age');
    await Promise.all([page.waitForURL(/signal=near-duplicate/), page.getByRole('button', { name: 'Filter' }).click()]);
    await pageIsGood('the queue filtered by a signal');
    // Newest accounts first: the burst's new accounts lead the list (the demo's own texts may also be alike).
    const rows = page.locator('tbody tr');
    expect(await rows.count()).toBeGreaterThanOrEqual(BURST);
    const first = rows.first();
    expect(burstIds).toContain(await first.getAttribute('data-report-id'));
    await expect(first.locator('td.signals').textContent()).resolves.toMatch(/Account 0 days old/);
    await expect(first.locator('td.signals').textContent()).resolves.toMatch(new RegExp(`Near-identical text: ${BURST - 1} from ${BURST - 1} other accounts`));

    // The burst, all of it selected, rejected in one step.
    await Promise.all([page.waitForURL(/similarTo=/), first.getByRole('link', { name: 'Show the burst' }).click()]);
    await Promise.all([page.waitForURL(/select=all/), page.getByRole('link', { name: 'Select all of them' }).click()]);
    await pageIsGood('the burst, selected');
    const boxes = page.locator('tbody input[type=checkbox]');
    await expect(boxes.count()).resolves.toBe(BURST);
    for (let i = 0; i < BURST; i += 1) await expect(boxes.nth(i).isChecked()).resolves.toBe(true);
    await page.getByLabel('Feedback the authors will read').fill('These reports repeat one text from new accounts; report your own test in your own words.');
    await Promise.all([page.waitForURL(/\/admin\/reports/), page.getByRole('button', { name: 'Reject selected reports' }).click()]);
    await expect(page.locator('#flash').textContent()).resolves.toContain(`Rejected ${BURST} reports.`);
    await pageIsGood('the queue after the rejection');

    const prisma = live.t.db.prisma;
    const decided = await prisma.report.findMany({ where: { id: { in: burstIds } } });
    expect(decided.map((r) => r.status)).toEqual(Array(BURST).fill('REJECTED'));
    expect(new Set(decided.map((r) => r.moderationFeedback))).toEqual(new Set(['These reports repeat one text from new accounts; report your own test in your own words.']));
    const audits = await prisma.moderationAuditLog.findMany({ where: { reportId: { in: burstIds } } });
    expect(audits.map((a) => [a.action, a.fromStatus, a.toStatus])).toEqual(Array(BURST).fill(['reject', 'PENDING', 'REJECTED']));
  });
});
