// Path traversal: screenshots come only from DATA_DIR/evidence, whatever the URL or the stored
// path says, and only to moderators; slugs and static paths that climb out of their directory
// are 4xx answers that never carry a file's contents. Paths are sent byte for byte (no client
// normalises `..` or percent-escapes on the way).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evidenceDir } from '../../src/modules/evidence/screenshots.js';
import { createTestApp, type TestApp } from '../setup/app.js';
import { accountWithKey } from '../setup/actors.js';
import { captureMailer } from '../setup/session.js';
import { rawClient, signInCookie, type RawClient, type RawResponse } from './helpers.js';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);
const SECRET = 'SECRET-OUTSIDE-THE-EVIDENCE-DIRECTORY';
const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MODERATOR = 'traversal-mod@example.org';
const USER = 'traversal-user@example.org';

/** Nothing of a file outside the served directories: our secret, /etc/passwd, package.json. */
function expectNoFileContents(res: RawResponse, where: string) {
  expect(res.text, where).not.toContain(SECRET);
  expect(res.text, where).not.toMatch(/root:[^:\n]*:0:0:/);
  expect(res.text, where).not.toContain('"dependencies"');
  expect(res.text, where).not.toContain('"devDependencies"');
  expect(res.text, where).not.toContain('agent-compatibility-directory"');
  expect(res.text, where).not.toContain('SESSION_SECRET');
}

/** URL spellings of a climb out of a directory to `target` (a path relative to the project or root). */
const climbs = (target: string) => {
  const encoded = target.split('/').join('%2f');
  return [
    `..%2f..%2f${encoded}`,
    `..%2F..%2F..%2F..%2F..%2F..%2F${target.split('/').join('%2F')}`,
    `%2e%2e/%2e%2e/${target}`,
    `%2e%2e%2f%2e%2e%2f${encoded}`,
    `..%5c..%5c${target.split('/').join('%5c')}`,
    `..%252f..%252f${target.split('/').join('%252f')}`,
    `%c0%ae%c0%ae%2f%c0%ae%c0%ae%2f${encoded}`,
    `....%2f%2f....%2f%2f${encoded}`,
    `../../${target}`,
    `%2f${encoded}`,
  ];
};

describe('path traversal', () => {
  let t: TestApp;
  let http: RawClient;
  let moderator: string;
  let user: string;
  let agentKey: string;
  let merchantSlug: string;
  let legitId: string;
  const outside: Array<{ id: string; storagePath: string }> = [];

  beforeAll(async () => {
    const mailer = captureMailer();
    t = await createTestApp({ mailer, env: { MODERATOR_EMAILS: MODERATOR } });
    http = await rawClient(t.app);
    moderator = (await signInCookie(t.app, mailer, MODERATOR, t.config.origin)).cookie;
    user = (await signInCookie(t.app, mailer, USER, t.config.origin)).cookie;

    const agent = await t.db.prisma.agent.create({ data: { slug: 'traversal-agent', name: 'Traversal Agent', vendor: 'V' } });
    const merchant = await t.db.prisma.merchant.create({
      data: { slug: 'traversal-shop', name: 'Traversal Shop', website: 'https://traversal.example', category: 'Misc' },
    });
    merchantSlug = merchant.slug;
    const account = await t.db.prisma.account.findUniqueOrThrow({ where: { email: USER } });
    agentKey = (await accountWithKey(t, MODERATOR, agent.id)).key;
    const report = await t.db.prisma.report.create({
      data: { accountId: account.id, merchantId: merchant.id, agentId: agent.id, channel: 'BROWSER', outcome: 'WORKS', privacyConfirmed: true },
    });

    // One real screenshot, where the form stores them; a secret file just outside that directory.
    const dir = evidenceDir(t.config.dataDir);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'legit.png'), PNG);
    writeFileSync(path.join(t.config.dataDir, 'secret.txt'), SECRET);
    writeFileSync(path.join(t.config.dataDir, 'secret.png'), SECRET);
    const row = (storagePath: string) =>
      t.db.prisma.screenshotEvidence.create({
        data: { reportId: report.id, storagePath, mediaType: 'image/png', sizeBytes: PNG.length, sha256: 'a'.repeat(64) },
      });
    legitId = (await row(path.join(dir, 'legit.png'))).id;
    // Stored paths that point elsewhere (a tampered or migrated row): none may be followed.
    for (const storagePath of [
      path.join(t.config.dataDir, 'secret.txt'),
      path.join(dir, '..', 'secret.png'),
      '../secret.png',
      `${dir}/../../${path.basename(t.config.dataDir)}/secret.txt`,
      path.join(PROJECT_ROOT, 'package.json'),
      '/etc/passwd',
      '..',
      '.',
      '',
      `${dir}/`,
      '..\\secret.png',
      'evidence/../../secret.txt',
    ]) {
      outside.push({ id: (await row(storagePath)).id, storagePath });
    }
  });
  afterAll(async () => {
    await http.close();
    await t.close();
  });

  it('serves a stored screenshot to a moderator (the control: the route works over this client)', async () => {
    const res = await http.request(`/admin/evidence/${legitId}`, { headers: { Cookie: moderator } });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(Buffer.from(res.text, 'latin1').equals(PNG)).toBe(true);
    // An image answer runs no script, even if a browser opened it as a document.
    const csp = res.headers['content-security-policy'] as string;
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).not.toMatch(/script-src/);
  });

  it('never follows a stored path out of DATA_DIR/evidence', async () => {
    for (const { id, storagePath } of outside) {
      const res = await http.request(`/admin/evidence/${id}`, { headers: { Cookie: moderator } });
      expect(res.status, `stored path ${JSON.stringify(storagePath)}`).toBe(404);
      expectNoFileContents(res, storagePath);
    }
  });

  it('answers traversal, absolute and NUL-bearing evidence URLs with 4xx to a moderator, never a file', async () => {
    const paths = [
      ...climbs('etc/passwd').map((p) => `/admin/evidence/${p}`),
      ...climbs('secret.txt').map((p) => `/admin/evidence/${p}`),
      ...climbs('package.json').map((p) => `/admin/evidence/${p}`),
      '/admin/evidence//etc/passwd',
      '/admin/evidence/%2fetc%2fpasswd',
      `/admin/evidence/${encodeURIComponent(path.join(t.config.dataDir, 'secret.txt'))}`,
      `/admin/evidence/${encodeURIComponent(path.join(PROJECT_ROOT, 'package.json'))}`,
      '/admin/evidence/%00',
      `/admin/evidence/${legitId}%00`,
      `/admin/evidence/${legitId}%00.png`,
      `/admin/evidence/${legitId}%2f..%2f..%2fsecret.txt`,
      `/admin/evidence/${legitId}/../../secret.txt`,
      `/admin/evidence/${legitId}/..%2f..%2fsecret.txt`,
      '/admin/evidence/legit.png',
      '/admin/evidence/..',
      '/admin/evidence/.',
      '/admin/evidence/%2e%2e',
    ];
    for (const p of paths) {
      const res = await http.request(p, { headers: { Cookie: moderator } });
      expect(res.status, p).toBeGreaterThanOrEqual(400);
      expect(res.status, p).toBeLessThan(500);
      expect(res.headers['content-type'], p).not.toMatch(/^image\//);
      expectNoFileContents(res, p);
    }
  });

  it('refuses every evidence URL, traversal or not, to a plain user (403), an agent key (403) and the signed out (303 to sign in)', async () => {
    const paths = [`/admin/evidence/${legitId}`, ...climbs('etc/passwd').map((p) => `/admin/evidence/${p}`), `/admin/evidence/${legitId}%00.png`];
    for (const p of paths) {
      const asUser = await http.request(p, { headers: { Cookie: user } });
      expect(asUser.status, p).toBe(403);
      expectNoFileContents(asUser, p);
      const withKey = await http.request(p, { headers: { Cookie: moderator, Authorization: `Bearer ${agentKey}` } });
      expect(withKey.status, p).toBe(403);
      const signedOut = await http.request(p);
      expect(signedOut.status, p).toBe(303);
      expect(signedOut.headers.location, p).toMatch(/^\/sign-in\?next=/);
      for (const res of [asUser, withKey, signedOut]) expect(res.headers['content-type'], p).not.toMatch(/^image\//);
    }
  });

  it('answers traversal in merchant, category, agent and report slugs with 4xx, never a file', async () => {
    // The control: the same client reaches a real merchant.
    expect((await http.request(`/merchants/${merchantSlug}`)).status).toBe(200);
    expect((await http.request(`/api/v1/merchants/${merchantSlug}`)).status).toBe(200);
    const targets = ['etc/passwd', 'package.json', 'src/config/env.ts'];
    const paths = targets.flatMap((target) =>
      climbs(target).flatMap((p) => [
        `/merchants/${p}`,
        `/api/v1/merchants/${p}`,
        `/categories/${p}`,
        `/agents/${p}`,
        `/api/v1/agents/${p}/merchants`,
        `/api/v1/reports/${p}`,
        `/reports/${p}/review`,
      ]),
    );
    for (const p of paths) {
      // The review page is for its signed-in author (signed out, it sends people to sign in).
      const res = await http.request(p, p.startsWith('/reports/') ? { headers: { Cookie: user } } : {});
      expect(res.status, p).toBeGreaterThanOrEqual(400);
      expect(res.status, p).toBeLessThan(500);
      expectNoFileContents(res, p);
    }
  });

  it('serves nothing outside public/ under /static', async () => {
    // The control: a real static file is served.
    const css = await http.request('/static/css/site.css');
    expect(css.status).toBe(200);
    expect(css.headers['content-type']).toMatch(/^text\/css/);
    const paths = [
      ...climbs('package.json').map((p) => `/static/${p}`),
      ...climbs('etc/passwd').map((p) => `/static/${p}`),
      ...climbs('../package.json').map((p) => `/static/css/${p}`),
      '/static/../package.json',
      '/static/..',
      '/static//etc/passwd',
      '/static/%2fetc%2fpasswd',
      '/static/..%00/package.json',
      '/static/css/%2e%2e%2f%2e%2e%2fpackage.json',
      '/static/..%2f.env',
      '/static/..%2fsrc%2fconfig%2fenv.ts',
      '/..%2fpackage.json',
      '/%2e%2e/package.json',
      '/%2e%2e%2fpackage.json',
      '/package.json',
      '/src/config/env.ts',
      '/favicon.ico/..%2f..%2fpackage.json',
      `/static/${encodeURIComponent(path.join(PROJECT_ROOT, 'package.json'))}`,
    ];
    for (const p of paths) {
      const res = await http.request(p);
      expect(res.status, p).toBeGreaterThanOrEqual(400);
      expect(res.status, p).toBeLessThan(500);
      expectNoFileContents(res, p);
    }
  });
});
