// A moderator in a real browser at 1280 px (issue 28): finds the moderation area from the
// header, opens the oldest pending report, rejects it with feedback, lands on the next pending
// report with a confirmation, reads what its author changed (the diff between versions) and
// approves it. Every page on the way is checked for console errors, CSP violations, sideways
// scrolling, HTML validity and axe findings (none at all on the touched admin pages).
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorHandle } from '../../src/modules/moderation/author-handle.js';
import { DESK, expectSpotlessPage, HAS_CHROMIUM, screenshot, startBrowserSuite, type BrowserSuite, type WatchedPage } from './browser.js';

const MODERATOR = 'e2e.moderator28@example.org';

describe.skipIf(!HAS_CHROMIUM)('a moderator in a real browser (issue 28)', { timeout: 180_000 }, () => {
  let live: BrowserSuite;
  let w: WatchedPage;
  let page: Page;

  beforeAll(async () => {
    live = await startBrowserSuite({ MODERATOR_EMAILS: MODERATOR });
    w = await live.open(DESK);
    page = w.page;
  }, 180_000);

  afterAll(() => live?.close());

  /** Every touched admin page, at 1280 px: no axe violation at all (browser.ts). */
  const pageIsGood = (where: string) => expectSpotlessPage(w, where);

  const pendingOldestFirst = () =>
    live.t.db.prisma.report.findMany({ where: { status: 'PENDING' }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], include: { merchant: true, agent: true } });

  it('finds the area from the header, rejects with feedback, sees the confirmation, then approves the next report after its diff', async () => {
    const [first, second] = await pendingOldestFirst();
    expect(first && second).toBeTruthy();
    // The second oldest was edited by its author: its earlier version said something else.
    await live.t.db.prisma.reportRevision.create({
      data: {
        reportId: second!.id,
        status: 'PENDING',
        createdAt: new Date(second!.updatedAt.getTime() - 1000),
        content: {
          capabilityResults: second!.capabilityResults as object,
          outcome: second!.outcome,
          outcomeSupplied: second!.outcomeSupplied,
          experience: 'EARLIER WORDS that were replaced.',
          testedAt: null,
          agentVersion: second!.agentVersion,
          region: 'ZZ',
          task: second!.task,
          stage: second!.stage,
          failureReason: second!.failureReason,
          humanIntervention: second!.humanIntervention,
        },
      },
    });

    // Signs in; the header offers the moderation area with its count.
    await live.signIn(page, MODERATOR);
    await page.goto(`${live.baseUrl}/`);
    const pending = await live.t.db.prisma.report.count({ where: { status: 'PENDING' } });
    const door = page.getByRole('banner').getByRole('link', { name: `Moderation (${pending} pending)`, exact: true });
    await expect(door.isVisible()).resolves.toBe(true);
    await Promise.all([page.waitForURL(`${live.baseUrl}/admin`), door.click()]);
    await pageIsGood('the moderation overview');

    // The queue, oldest first; the author is a handle, not an address.
    await Promise.all([page.waitForURL(`${live.baseUrl}/admin/reports`), page.getByRole('main').getByRole('link', { name: `${pending} pending`, exact: true }).click()]);
    await pageIsGood('the queue');
    const firstRow = page.locator('tbody tr').first();
    await expect(firstRow.getAttribute('data-report-id')).resolves.toBe(first!.id);
    await expect(firstRow.textContent()).resolves.toContain(authorHandle(first!.accountId));
    // Newest first, and by this author, with the filters.
    await page.getByLabel('Order', { exact: true }).selectOption('newest');
    await page.getByLabel('Author handle', { exact: true }).fill(authorHandle(first!.accountId));
    await Promise.all([page.waitForURL(/sort=newest/), page.getByRole('button', { name: 'Filter' }).click()]);
    await expect(page.locator('#queue-count').textContent()).resolves.toMatch(/by author .*newest first\./s);
    await pageIsGood('the queue filtered by author, newest first');
    await page.goto(`${live.baseUrl}/admin/reports`);

    // Opens the oldest and rejects it with feedback.
    await Promise.all([page.waitForURL(`${live.baseUrl}/admin/reports/${first!.id}`), firstRow.getByRole('link', { name: 'Open report' }).click()]);
    await pageIsGood('the oldest pending report');
    // (Browser code as text: the project compiles without the DOM library.)
    const colour = (selector: string) => page.evaluate<string>(`getComputedStyle(document.querySelector(${JSON.stringify(selector)})).backgroundColor`);
    const [approveColour, rejectColour] = await Promise.all([colour('form.decision-approve button[type=submit]'), colour('form.decision-destructive button[type=submit]')]);
    expect(approveColour).not.toBe(rejectColour);
    expect(rejectColour).toBe('rgb(164, 14, 38)');
    await page.getByLabel('Feedback to the author (required)').fill('Please say at which step the agent stopped.');
    await Promise.all([page.waitForURL(`${live.baseUrl}/admin/reports/${second!.id}`), page.getByRole('button', { name: 'Reject', exact: true }).click()]);
    expect((await live.t.db.prisma.report.findUniqueOrThrow({ where: { id: first!.id } })).status).toBe('REJECTED');

    // The confirmation, on the next pending report, with the way back.
    const flash = page.locator('#flash');
    await expect(flash.textContent()).resolves.toContain(`Rejected the report on ${first!.merchant.name} with ${first!.agent.name}`);
    await expect(flash.textContent()).resolves.toContain('Here is the next pending report.');
    await expect(flash.getByRole('link', { name: 'Open the report you decided' }).getAttribute('href')).resolves.toBe(`/admin/reports/${first!.id}`);
    await expect(page.getByRole('banner').getByRole('link', { name: `Moderation (${pending - 1} pending)`, exact: true }).isVisible()).resolves.toBe(true);

    // What the author changed: the changed rows say so, the words struck and added.
    const edit = page.locator('section.revision').first();
    await edit.scrollIntoViewIfNeeded();
    await expect(edit.locator('tr.changed[data-field="experience"] del').first().textContent()).resolves.toContain('EARLIER WORDS');
    await expect(edit.locator('tr.changed[data-field="region"]').textContent()).resolves.toContain('Changed');
    await pageIsGood('the next report, with its confirmation and its diff');
    await screenshot(page, 'moderator-diff');

    // Approves it: on to the next one, confirmed.
    const third = (await pendingOldestFirst()).find((r) => r.id !== second!.id);
    await Promise.all([
      page.waitForURL(third ? `${live.baseUrl}/admin/reports/${third.id}` : `${live.baseUrl}/admin/reports`),
      page.getByRole('button', { name: 'Approve', exact: true }).click(),
    ]);
    expect((await live.t.db.prisma.report.findUniqueOrThrow({ where: { id: second!.id } })).status).toBe('APPROVED');
    await expect(page.locator('#flash').textContent()).resolves.toContain(`Approved the report on ${second!.merchant.name} with ${second!.agent.name}: it is public now.`);
    await pageIsGood('the report after an approval');
  });
});
