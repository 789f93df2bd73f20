// Browser tests: Debian's Chromium driven by playwright-core (never a downloaded browser),
// against the real app listening on 127.0.0.1, with console and CSP watching and axe-core.
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Locator, type Page, type Response as PlaywrightResponse } from 'playwright-core';
import { expect } from 'vitest';
import { freePort } from '../../src/net.js';
import { htmlProblems } from '../pages/html-validate.js';
import { outboxDir } from '../../src/mail/mailer.js';
import type { TestApp } from '../setup/app.js';
import { createDemoApp } from '../setup/demo.js';

const CHROMIUM = '/usr/bin/chromium';
export const HAS_CHROMIUM = existsSync(CHROMIUM);
const SKIP_MESSAGE = `browser tests skipped: ${CHROMIUM} is missing (install Debian's chromium: apt-get install -y chromium; .ci/run does)`;

// A skipped file passes, so CI (which exports REQUIRE_BROWSER=1) would go green without
// having run a browser at all: there, a missing Chromium fails every browser test file.
if (!HAS_CHROMIUM && process.env.REQUIRE_BROWSER === '1') {
  throw new Error(`REQUIRE_BROWSER=1 but ${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium), or unset REQUIRE_BROWSER to skip the browser tests`);
}
// Said once by each browser test file (each file loads this module afresh).
if (!HAS_CHROMIUM) console.warn(SKIP_MESSAGE);

/** Screenshots of the directory, a merchant page and the form (git-ignored). */
const ARTIFACTS_DIR = path.resolve(import.meta.dirname, '../../test-artifacts/e2e');

interface LiveApp {
  t: TestApp;
  baseUrl: string;
  server: Server;
  close(): Promise<void>;
}

/** The demo directory served on a free local port, BASE_URL set to that origin (Origin checks pass). */
async function startLiveApp(env: Record<string, string> = {}): Promise<LiveApp> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const t = await createDemoApp({ env: { BASE_URL: baseUrl, ...env } });
  const server = createServer(t.app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    t,
    baseUrl,
    server,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await t.close();
    },
  };
}

async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
  });
}

/** A screen to open pages at; a phone's context is also mobile (viewport meta honoured) and touch. */
export interface Screen {
  width: number;
  height: number;
  phone?: boolean;
}
export const DESK = { width: 1280, height: 900, phone: false } as const satisfies Screen;
export const PHONE = { width: 390, height: 844, phone: true } as const satisfies Screen;

/** What a browser suite runs against: the live demo app, Chromium, and the contexts opened in it. */
export interface BrowserSuite {
  t: TestApp;
  baseUrl: string;
  browser: Browser;
  /** A new browser context at `screen` (with `options` on top), closed by `close()`. */
  context(screen: Screen, options?: BrowserContextOptions): Promise<BrowserContext>;
  /** A watched page (console, page errors, CSP) in a new context of its own at `screen`. */
  open(screen: Screen): Promise<WatchedPage>;
  /** The sign-in link of the newest outbox message to `email` (a link to this app). */
  signInLink(email: string): string;
  /** Asks for a sign-in link for `email` on /sign-in and follows it from the outbox. */
  signIn(page: Page, email: string): Promise<void>;
  /** Closes every context opened through `context`/`open`, then the browser, then the app. */
  close(): Promise<void>;
}

/**
 * The setup the browser suites share (call in beforeAll, `close()` in afterAll): the demo app on
 * a free local port with `env`, and Debian's Chromium.
 */
export async function startBrowserSuite(env: Record<string, string> = {}): Promise<BrowserSuite> {
  const live = await startLiveApp(env);
  let browser: Browser;
  try {
    browser = await launchBrowser();
  } catch (error) {
    await live.close();
    throw error;
  }
  const contexts: BrowserContext[] = [];
  const signInPattern = new RegExp(`${live.baseUrl.replace(/\./g, '\\.')}/sign-in/verify\\?token=[A-Za-z0-9_-]+`);
  const suite: BrowserSuite = {
    t: live.t,
    baseUrl: live.baseUrl,
    browser,
    async context(screen, options = {}) {
      const phone = screen.phone ?? false;
      const context = await browser.newContext({ viewport: { width: screen.width, height: screen.height }, isMobile: phone, hasTouch: phone, ...options });
      contexts.push(context);
      return context;
    },
    async open(screen) {
      return watchedPage(await suite.context(screen));
    },
    signInLink(email) {
      const mail = outboxMessages(live.t.config.dataDir, email).at(-1);
      if (!mail) throw new Error(`no sign-in mail to ${email}`);
      const link = signInPattern.exec(mail);
      if (!link) throw new Error(`no sign-in link in the mail to ${email}`);
      return link[0];
    },
    async signIn(page, email) {
      await page.goto(`${live.baseUrl}/sign-in`);
      await page.getByLabel('E-mail address').fill(email);
      await page.getByRole('button', { name: 'Send me a sign-in link' }).click();
      await page.getByRole('heading', { name: 'Check your e-mail' }).waitFor();
      await page.goto(suite.signInLink(email));
    },
    async close() {
      for (const context of contexts) await context.close().catch(() => undefined);
      await browser.close();
      await live.close();
    },
  };
  return suite;
}

export interface WatchedPage {
  page: Page;
  /** Console errors and uncaught exceptions, except those expected by `expectErrorStatus`. */
  problems: string[];
  /** Content-Security-Policy violations reported by the page. */
  cspViolations(): Promise<string[]>;
  /** The HTML the server sent for the current document (not the browser's re-serialisation). */
  documentHtml(): Promise<string>;
}

/** A page that records console errors, page errors and CSP violations. */
async function watchedPage(context: BrowserContext): Promise<WatchedPage> {
  const page = await context.newPage();
  const problems: string[] = [];
  // Init scripts run through the DevTools protocol, not as page scripts, so the CSP allows them.
  // (Browser code is passed as text: the project compiles without the DOM library.)
  await page.addInitScript(`
    window.__csp = [];
    document.addEventListener('securitypolicyviolation', (event) => {
      window.__csp.push(event.violatedDirective + ' ' + event.blockedURI + ' at ' + event.sourceFile + ':' + event.lineNumber);
    });
  `);
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const text = message.text();
    // A page answered deliberately with 4xx (an error page under test) is logged by Chromium as
    // a failed resource; everything else is a problem.
    if (/^Failed to load resource: the server responded with a status of 4\d\d/.test(text) && expectedErrors.has(message.location().url)) return;
    problems.push(`${text} (${message.location().url})`);
  });
  let lastDocument: PlaywrightResponse | null = null;
  page.on('response', (response) => {
    const request = response.request();
    if (request.isNavigationRequest() && request.frame() === page.mainFrame() && response.status() < 300) lastDocument = response;
  });
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  page.on('dialog', (dialog) => {
    problems.push(`unexpected dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  return {
    page,
    problems,
    documentHtml: async () => {
      if (!lastDocument) throw new Error('no document loaded');
      return lastDocument.text();
    },
    cspViolations: async () => {
      // A navigation resets the page's list; collect what the current document saw.
      return page.evaluate<string[]>('window.__csp || []');
    },
  };
}

const expectedErrors = new Set<string>();
/** Marks a URL whose 4xx answer is what the test expects. */
export function expectErrorStatus(url: string): void {
  expectedErrors.add(url);
}

const require = createRequire(import.meta.url);
let axeSource: string | undefined;

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown; failureSummary?: string }>;
}

/** axe-core injected into the page (through the DevTools protocol, so the CSP does not block it). */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  axeSource ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(axeSource);
  return page.evaluate<AxeViolation[]>(`
    axe.run(document, { resultTypes: ['violations'] }).then((result) =>
      result.violations.map((v) => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        nodes: v.nodes.slice(0, 5).map((n) => ({ target: n.target, failureSummary: n.failureSummary })),
      })),
    )
  `);
}

/** Serious and critical axe findings, one line each. */
export async function seriousAxeViolations(page: Page): Promise<string[]> {
  return (await axeViolations(page))
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} ${JSON.stringify(v.nodes)}`);
}

/**
 * Clicks `button`, which submits a form, and waits until the page the answer leads to has
 * loaded, also when that page has the URL already shown (a POST redirected back to the page it
 * came from, where waitForURL returns at once). The next step then never reads the old page
 * nor overlaps the submission with another request of the same session. An answer of 400 or
 * more fails here with its status and title, so a failure says what the server answered.
 */
export async function submitAndLoad(page: Page, button: Locator): Promise<PlaywrightResponse> {
  const main = page.mainFrame();
  const answered = page.waitForResponse((r) => r.request().isNavigationRequest() && r.frame() === main && (r.status() < 300 || r.status() >= 400));
  const committed = page.waitForEvent('framenavigated', { predicate: (frame) => frame === main });
  await button.click();
  const [response] = await Promise.all([answered, committed]);
  await page.waitForLoadState('load');
  if (response.status() >= 400) {
    const title = (await page.title().catch(() => '')) || '(no title)';
    throw new Error(`${response.request().method()} ${new URL(response.url()).pathname} answered ${response.status()}: ${title}`);
  }
  return response;
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const file = path.join(ARTIFACTS_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** True when the document is no wider than the viewport (no sideways scrolling of the page). */
/**
 * What every page of the strict suites (the moderators' pages) must satisfy: it fits the screen,
 * no CSP violation or console error, no axe violation at all, and valid HTML as sent.
 */
export async function expectSpotlessPage(w: WatchedPage, where: string): Promise<void> {
  expect(await fitsViewport(w.page), `${where} is no wider than the screen`).toBe(true);
  expect(await w.cspViolations(), `CSP violations on ${where}`).toEqual([]);
  expect(w.problems, `console errors by ${where}`).toEqual([]);
  const violations = (await axeViolations(w.page)).map((v) => `${v.impact} ${v.id}: ${v.help} ${JSON.stringify(v.nodes)}`);
  expect(violations, `axe on ${where}`).toEqual([]);
  expect(await htmlProblems(await w.documentHtml()), `HTML of ${where}`).toEqual([]);
}

export async function fitsViewport(page: Page): Promise<boolean> {
  return page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth');
}

/** A real 1×1 PNG, for screenshot uploads. */
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

/** Every outbox message to `to` (DATA_DIR/outbox), oldest first, quoted-printable decoded. */
export function outboxMessages(dataDir: string, to: string): string[] {
  const dir = outboxDir(dataDir);
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.eml')).sort();
  } catch {
    return [];
  }
  return files
    .map((f) => readFileSync(path.join(dir, f), 'utf8'))
    .filter((text) => new RegExp(`^To: ${to.replace(/\./g, '\\.')}$`, 'm').test(text))
    .map((eml) => eml.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))));
}
