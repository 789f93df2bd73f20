// Screenshots of the contributor's pages for docs/screenshots/, taken with Debian's Chromium
// from a running server (npm start with its own DATA_DIR, PORT and BASE_URL):
//
//   DATA_DIR=/tmp/forms-data PORT=3931 BASE_URL=http://127.0.0.1:3931 npm start
//   npx tsx scripts/form-screenshots.ts --base http://127.0.0.1:3931 --data /tmp/forms-data --prefix before
//
// It signs in through the link in DATA_DIR/outbox, submits the contribution form empty (the
// errors) at 1280 and 390 px, and with `--prefix after` (start the server with
// MODERATOR_EMAILS=moderator@example.org) also files three reports, has a moderator approve
// one and reject one, and shows the first one's review page and /profile/reports (both widths).
import { readdirSync, readFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';

const { values } = parseArgs({
  options: {
    base: { type: 'string', default: 'http://127.0.0.1:3931' },
    data: { type: 'string', default: '/tmp/forms-data' },
    prefix: { type: 'string', default: 'before' },
    email: { type: 'string', default: 'contributor@example.org' },
  },
});
const base = values.base!;
const out = path.resolve(import.meta.dirname, '../docs/screenshots');
mkdirSync(out, { recursive: true });

function signInLink(to: string, since: number): string | null {
  const dir = path.join(values.data!, 'outbox');
  const files = readdirSync(dir).filter((f) => f.endsWith('.eml')).sort();
  for (const file of files.reverse()) {
    const eml = readFileSync(path.join(dir, file), 'utf8');
    if (!new RegExp(`^To: ${to.replace(/\./g, '\\.')}$`, 'm').test(eml)) continue;
    const body = eml.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    const match = /https?:\/\/[^\s"<>]+\/sign-in\/verify\?token=[A-Za-z0-9_-]+/.exec(body);
    if (match && files.length > since) return match[0];
  }
  return null;
}

async function signIn(page: Page, email: string): Promise<void> {
  const outbox = path.join(values.data!, 'outbox');
  const before = (() => {
    try {
      return readdirSync(outbox).length;
    } catch {
      return 0;
    }
  })();
  await page.goto(`${base}/sign-in`);
  await page.getByLabel('E-mail address').fill(email);
  await page.getByRole('button', { name: 'Send me a sign-in link' }).click();
  await page.getByRole('heading', { name: 'Check your e-mail' }).waitFor();
  let link: string | null = null;
  for (let i = 0; i < 50 && !link; i++) {
    link = signInLink(email, before);
    if (!link) await new Promise((r) => setTimeout(r, 100));
  }
  if (!link) throw new Error(`no sign-in link for ${email}`);
  await page.goto(link);
}

async function emptySubmission(page: Page): Promise<void> {
  await page.goto(`${base}/reports/new`);
  await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Submit for moderation' }).click()]);
  await page.waitForLoadState('load');
}

const shot = (page: Page, name: string, fullPage = false) => page.screenshot({ path: path.join(out, `${name}.png`), fullPage });

async function main(): Promise<void> {
  const browser: Browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const desktop = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await desktop.newPage();
    await signIn(page, values.email!);
    await emptySubmission(page);
    // What a person sees first after pressing Submit: the first screen, not the whole page.
    await shot(page, `${values.prefix}-form-errors`);

    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    await phone.addCookies(await desktop.cookies());
    const small = await phone.newPage();
    await emptySubmission(small);
    await shot(small, `${values.prefix}-form-errors-phone`);

    if (values.prefix === 'after') {
      // Three reports (one with a screenshot), one approved and one rejected by a moderator
      // (the server needs MODERATOR_EMAILS=moderator@example.org), then the list and a review page.
      const ids: string[] = [];
      for (let i = 0; i < 3; i += 1) {
        await page.goto(`${base}/reports/new`);
        await page.getByLabel(/Find the merchant/).fill('an');
        await page.locator('#adId option:not([value=""])').nth(2).waitFor({ state: 'attached' });
        await page.locator('#adId').selectOption({ index: i + 1 });
        await page.getByLabel('Agent', { exact: true }).selectOption({ index: i + 1 });
        await page.locator('#task_ACCESS').selectOption('WORKS');
        await page.locator('#task_SEARCH').selectOption(i === 2 ? 'BLOCKED' : 'WORKS');
        if (i === 0) {
          await page.locator('#task_CART').selectOption('PARTIAL');
          await page.getByLabel('Furthest stage reached').selectOption('CART');
          await page.getByLabel('Date of the test').fill('2026-11-20');
          await page.getByLabel(/Your experience/).fill('Search and details were fine; the cart needed a second try.');
          await page.getByLabel(/Screenshots/).setInputFiles(path.join(out, 'before-form-errors.png'));
        }
        await page.getByLabel(/I have checked all three/).check();
        await Promise.all([page.waitForURL(/\/review/), page.getByRole('button', { name: 'Submit for moderation' }).click()]);
        ids.push(/\/reports\/([0-9a-f-]{36})\/review/.exec(page.url())![1]!);
        if (i === 0) await shot(page, 'after-review', true);
      }
      const moderator = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const mod = await moderator.newPage();
      await signIn(mod, 'moderator@example.org');
      await mod.goto(`${base}/admin/reports/${ids[1]}`);
      await mod.getByLabel('Note to the author (optional)').fill('Clear report, thank you.');
      await Promise.all([mod.waitForLoadState('load'), mod.getByRole('button', { name: 'Approve', exact: true }).click()]);
      await mod.goto(`${base}/admin/reports/${ids[2]}`);
      await mod.getByLabel('Feedback to the author (required)').fill('Please say which page blocked the agent, and when you tested.');
      await Promise.all([mod.waitForLoadState('load'), mod.getByRole('button', { name: 'Reject', exact: true }).click()]);
      await moderator.close();

      await page.goto(`${base}/profile/reports`);
      await shot(page, 'after-my-reports', true);
      await small.goto(`${base}/profile/reports`);
      await shot(small, 'after-my-reports-phone', true);
    }
  } finally {
    await browser.close();
  }
}

await main();
