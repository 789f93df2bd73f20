// Shop owners in a real browser at 390 and 1280 px (issue 34): an owner finds "Is this your
// shop?" on the shop's page, starts a claim, publishes the well-known file (served by a local
// fixture reached through the test door, OUTBOUND_TEST_HOSTS), checks it, publishes a statement,
// replies to a report and asks for a correction; a moderator approves the reply, applies the
// correction and revokes the claim, after which the shop's page no longer shows either. Every
// page the owner touches is checked for console errors, CSP violations, sideways scrolling and
// serious axe findings.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixture, type Fixture } from '../setup/outbound.js';
import { fitsViewport, HAS_CHROMIUM, screenshot, seriousAxeViolations, startBrowserSuite, submitAndLoad, type BrowserSuite, type WatchedPage } from './browser.js';

const MODERATOR = 'e2e.owners.moderator@example.org';

describe.skipIf(!HAS_CHROMIUM)('shop owners in a real browser (issue 34)', { timeout: 240_000 }, () => {
  let live: BrowserSuite;
  let site: Fixture;
  /** What the shops' websites serve: `${host}${path}` to a body. */
  const files = new Map<string, string>();
  const used = new Set<string>();

  beforeAll(async () => {
    site = await startFixture((req, res) => {
      const body = files.get(`${(req.headers.host ?? '').replace(/:\d+$/, '')}${req.url}`);
      if (body === undefined) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/plain' }).end(body);
    });
    // The demo shops live under .example: reached at the fixture, nothing else is.
    live = await startBrowserSuite({ MODERATOR_EMAILS: MODERATOR, OUTBOUND_TEST_HOSTS: `*.example=127.0.0.1:${site.port}` });
  }, 180_000);

  afterAll(async () => {
    await live?.close();
    await site?.close();
  });

  /** A public shop of its own host (not a path on a shared one) with an approved report, not used yet. */
  async function aShopWithReports() {
    const merchants = await live.t.db.prisma.merchant.findMany({
      where: { isPublic: true, website: { endsWith: '.example' }, reports: { some: { status: 'APPROVED', agent: { active: true } } } },
      orderBy: { reportCount: 'desc' },
      select: { id: true, slug: true, name: true, website: true },
    });
    const merchant = merchants.find((m) => !used.has(m.id))!;
    used.add(merchant.id);
    return merchant;
  }

  for (const width of [390, 1280]) {
    describe(`at ${width} px`, () => {
      let w: WatchedPage;
      let page: Page;
      const owner = `e2e.owner.${width}@example.org`;

      beforeAll(async () => {
        w = await live.open({ width, height: 900 });
        page = w.page;
      });
      afterAll(() => w?.page.context().close());

      async function pageIsGood(where: string): Promise<void> {
        expect(await fitsViewport(page), `${where} is no wider than the screen`).toBe(true);
        expect(await w.cspViolations(), `CSP violations on ${where}`).toEqual([]);
        expect(w.problems, `console errors by ${where}`).toEqual([]);
        expect(await seriousAxeViolations(page), `axe on ${where}`).toEqual([]);
      }

      it('claims a shop by the well-known file, speaks for it, and a moderator revokes the claim', async () => {
        const shop = await aShopWithReports();
        const host = new URL(shop.website).hostname;
        await live.signIn(page, owner);

        // "Is this your shop?" on the shop's page starts a claim.
        await page.goto(`${live.baseUrl}/merchants/${shop.slug}`);
        await Promise.all([page.waitForURL(/\/claims\/new\?merchant=/), page.getByRole('link', { name: 'Is this your shop?' }).click()]);
        await pageIsGood('the claim start page');
        await Promise.all([page.waitForURL(/\/claims\/[0-9a-f-]{36}$/), page.getByRole('button', { name: 'Start the claim' }).click()]);
        await pageIsGood('the claim page');
        await expect(page.locator('#file-url').textContent()).resolves.toBe(`https://${host}/.well-known/agent-directory-verification.txt`);
        const line = (await page.locator('#file-content').textContent())!.trim();
        expect(line).toMatch(/^agent-directory-verification=[A-Za-z0-9_-]{20,}$/);
        if (width === 1280) await screenshot(page, 'owner-claim-1280');

        // Checked before the file is there: it says so, in words.
        await page.getByLabel('Check').selectOption('file');
        await submitAndLoad(page, page.getByRole('button', { name: 'Check now' }));
        await expect(page.getByRole('status').first().textContent()).resolves.toContain('Not verified (a file on the website: not found)');
        // Published, then checked: verified.
        files.set(`${host}/.well-known/agent-directory-verification.txt`, `${line}\n`);
        await page.getByLabel('Check').selectOption('file');
        await submitAndLoad(page, page.getByRole('button', { name: 'Check now' }));
        await expect(page.getByRole('status').first().textContent()).resolves.toContain('Verified by a file on the website');
        await pageIsGood('the verified claim page');

        // The statement, from the owner's page.
        await page.goto(`${live.baseUrl}/profile/claims`);
        await pageIsGood("the owner's page");
        const card = page.locator('li.owner-claim').filter({ hasText: shop.name });
        await card.getByText(/^(Write|Change) your statement$/).click();
        await card.getByLabel(`Your statement about agents on ${shop.name}`).fill(`Agents are welcome at ${shop.name}; checkout works without a captcha.`);
        await card.locator('select[name="claim_CHECKOUT"]').selectOption('WORKS');
        await submitAndLoad(page, card.getByRole('button', { name: 'Publish the statement' }));
        expect(page.url()).toBe(`${live.baseUrl}/profile/claims`);
        await page.goto(`${live.baseUrl}/merchants/${shop.slug}`);
        const text = (await page.locator('main').textContent())!.replace(/\s+/g, ' ');
        expect(text).toContain(`Agents are welcome at ${shop.name}; checkout works without a captcha.`);
        expect(text).toMatch(/Claimed by its owner, verified by a file on its website on \d{1,2} \w{3} \d{4}\./);
        await pageIsGood('the shop page with its statement');

        // A reply under a report.
        await page.goto(`${live.baseUrl}/profile/claims`);
        await Promise.all([page.waitForURL(/\/reports$/), page.getByRole('link', { name: `Reply to reports about ${shop.name}` }).click()]);
        await pageIsGood('the reports to reply to');
        const first = page.locator('li.report').first();
        const reportId = (await first.getAttribute('id'))!.replace('report-', '');
        await first.getByLabel('Your reply').fill('Thank you: we fixed the address form on 20 November.');
        await submitAndLoad(page, first.getByRole('button', { name: 'Send the reply' }));
        await expect(page.locator(`#report-${reportId}`).textContent()).resolves.toContain('waiting for a moderator');

        // A correction of the shop's details.
        await page.goto(`${live.baseUrl}/profile/claims`);
        const again = page.locator('li.owner-claim').filter({ hasText: shop.name });
        await again.getByText(`Ask for a correction of ${shop.name}'s details`).click();
        await again.getByLabel('Correct name').fill(`${shop.name} Ltd`);
        await again.getByLabel('Note for the moderators').fill('Our registered company name.');
        await submitAndLoad(page, again.getByRole('button', { name: 'Send the correction' }));
        expect(page.url()).toBe(`${live.baseUrl}/profile/claims`);
        await expect(page.getByRole('status').first().textContent()).resolves.toMatch(/moderator/i);
        await pageIsGood("the owner's page after a correction");
        expect((await live.t.db.prisma.merchant.findUniqueOrThrow({ where: { id: shop.id } })).name).toBe(shop.name);

        // The moderator approves the reply, applies the correction, then revokes the claim.
        const mod = (await live.open({ width, height: 900 })).page;
        try {
          await live.signIn(mod, MODERATOR);
          await mod.goto(`${live.baseUrl}/admin/owners`);
          const reply = mod.locator('li').filter({ hasText: 'we fixed the address form' }).first();
          await submitAndLoad(mod, reply.getByRole('button', { name: 'Approve this reply' }));
          await expect(mod.getByRole('status').first().textContent()).resolves.toContain('Reply approved');
          const correction = mod.locator('li').filter({ hasText: 'Our registered company name.' }).first();
          await submitAndLoad(mod, correction.getByRole('button', { name: 'Apply this correction' }));
          await expect(mod.getByRole('status').first().textContent()).resolves.toContain('Correction applied');
          expect((await live.t.db.prisma.merchant.findUniqueOrThrow({ where: { id: shop.id } })).name).toBe(`${shop.name} Ltd`);
          await page.goto(`${live.baseUrl}/merchants/${shop.slug}`);
          await expect(page.locator(`#report-${reportId}`).textContent()).resolves.toContain('Thank you: we fixed the address form on 20 November.');

          await mod.goto(`${live.baseUrl}/admin/claims`);
          await Promise.all([mod.waitForURL(/\/admin\/claims\/[0-9a-f-]{36}$/), mod.getByRole('link', { name: `${shop.name} Ltd` }).first().click()]);
          await mod.getByLabel('Why it is revoked').fill('The domain changed hands.');
          await submitAndLoad(mod, mod.getByRole('button', { name: 'Revoke the claim' }));
          await expect(mod.getByRole('status').first().textContent()).resolves.toContain('Claim revoked');
        } finally {
          await mod.context().close();
        }
        await page.goto(`${live.baseUrl}/merchants/${shop.slug}`);
        const after = (await page.locator('main').textContent())!.replace(/\s+/g, ' ');
        expect(after).not.toContain('Claimed by its owner');
        expect(after).not.toContain('Agents are welcome at');
        await page.goto(`${live.baseUrl}/profile/claims`);
        await expect(page.locator('li.owner-claim').filter({ hasText: shop.name }).textContent()).resolves.toContain('Revoked by a moderator');
        await pageIsGood("the owner's page after the revocation");
        if (width === 390) await screenshot(page, 'owner-claims-390');
      });
    });
  }
});
