// The session cookie's flags (HttpOnly, SameSite=Lax, Path=/, Secure exactly on https), and
// the /admin gate: a plain user's session is a 403 page, an agent key is a 403 even beside a
// moderator's session, and someone signed out is sent to sign in; none of them ever gets a 200.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../setup/app.js';
import { accountWithKey } from '../setup/actors.js';
import { captureMailer } from '../setup/session.js';
import { sessionSetCookie, signInCookie } from './helpers.js';

const attributes = (setCookie: string) =>
  setCookie
    .split(';')
    .slice(1)
    .map((a) => a.trim().toLowerCase());

describe('the session cookie', () => {
  it('is HttpOnly, SameSite=Lax, Path=/ and not Secure over http', async () => {
    const mailer = captureMailer();
    const t = await createTestApp({ mailer });
    try {
      expect(t.config.origin.startsWith('http:')).toBe(true);
      const { setCookies } = await signInCookie(t.app, mailer, 'cookie-http@example.org', t.config.origin);
      // The anonymous session of the sign-in form and the signed-in one.
      expect(setCookies.length).toBeGreaterThanOrEqual(2);
      for (const cookie of setCookies) {
        const flags = attributes(cookie);
        expect(flags, cookie).toContain('httponly');
        expect(flags, cookie).toContain('samesite=lax');
        expect(flags, cookie).toContain('path=/');
        expect(flags, cookie).not.toContain('secure');
        expect(flags.some((f) => f.startsWith('domain=')), cookie).toBe(false);
      }
    } finally {
      await t.close();
    }
  });

  it('is also Secure when BASE_URL is https', async () => {
    const mailer = captureMailer();
    // An https deployment sits behind a TLS-terminating proxy that says so in X-Forwarded-Proto.
    const t = await createTestApp({ mailer, env: { BASE_URL: 'https://directory.test', TRUST_PROXY: 'loopback' } });
    try {
      const { setCookies } = await signInCookie(t.app, mailer, 'cookie-https@example.org', 'https://directory.test', {
        'X-Forwarded-Proto': 'https',
      });
      expect(setCookies.length).toBeGreaterThanOrEqual(2);
      for (const cookie of setCookies) {
        const flags = attributes(cookie);
        expect(flags, cookie).toContain('secure');
        expect(flags, cookie).toContain('httponly');
        expect(flags, cookie).toContain('samesite=lax');
        expect(flags, cookie).toContain('path=/');
      }
      // Never handed out over plain http, where it would travel in the clear.
      const plain = await request(t.app).get('/sign-in').set('X-Forwarded-Proto', 'http').expect(200);
      expect(sessionSetCookie(plain.headers)).toBeUndefined();
    } finally {
      await t.close();
    }
  });

  it('is not sent at all on an https deployment over a connection not known to be https (no trusted proxy)', async () => {
    const t = await createTestApp({ env: { BASE_URL: 'https://directory.test' } });
    try {
      for (const headers of [{}, { 'X-Forwarded-Proto': 'https' }]) {
        const res = await request(t.app).get('/sign-in').set(headers).expect(200);
        // A forged X-Forwarded-Proto does not count without TRUST_PROXY.
        expect(sessionSetCookie(res.headers), JSON.stringify(headers)).toBeUndefined();
      }
    } finally {
      await t.close();
    }
  });
});

describe('the /admin gate', () => {
  const MODERATOR = 'gate-mod@example.org';
  let t: TestApp;
  let moderator: string;
  let user: string;
  let moderatorKey: string;
  let reportId: string;
  let evidenceId: string;

  beforeAll(async () => {
    const mailer = captureMailer();
    t = await createTestApp({ mailer, env: { MODERATOR_EMAILS: MODERATOR } });
    moderator = (await signInCookie(t.app, mailer, MODERATOR, t.config.origin)).cookie;
    user = (await signInCookie(t.app, mailer, 'gate-user@example.org', t.config.origin)).cookie;
    const agent = await t.db.prisma.agent.create({ data: { slug: 'gate-agent', name: 'Gate Agent', vendor: 'V' } });
    const merchant = await t.db.prisma.merchant.create({ data: { slug: 'gate-shop', name: 'Gate Shop', website: 'https://gate.example', category: 'Misc' } });
    const account = await t.db.prisma.account.findUniqueOrThrow({ where: { email: 'gate-user@example.org' } });
    const report = await t.db.prisma.report.create({
      data: { accountId: account.id, merchantId: merchant.id, agentId: agent.id, channel: 'BROWSER', outcome: 'WORKS', privacyConfirmed: true },
    });
    reportId = report.id;
    evidenceId = (
      await t.db.prisma.screenshotEvidence.create({
        data: { reportId, storagePath: 'gate.png', mediaType: 'image/png', sizeBytes: 1, sha256: 'b'.repeat(64) },
      })
    ).id;
    // The moderator's own key: a key never administers, whoever owns it.
    moderatorKey = (await accountWithKey(t, MODERATOR, agent.id)).key;
  });
  afterAll(() => t.close());

  const paths = () => [
    '/admin',
    '/admin/',
    '/admin/reports',
    `/admin/reports/${reportId}`,
    '/admin/merchants',
    '/admin/accounts',
    '/admin/audit',
    `/admin/evidence/${evidenceId}`,
    '/ADMIN',
    '/Admin/reports',
    '/admin;x=1',
    '/admin/reports?status=APPROVED',
  ];

  it('lets the moderator in (the control)', async () => {
    for (const path of ['/admin', '/admin/reports', `/admin/reports/${reportId}`, '/ADMIN']) {
      expect((await request(t.app).get(path).set('Cookie', moderator)).status, path).toBe(200);
    }
  });

  it('answers a plain user\'s session with the 403 page, for pages and form posts', async () => {
    for (const path of paths()) {
      const res = await request(t.app).get(path).set('Cookie', user);
      if (path === '/admin;x=1') {
        // Not a route at all: a 404 page, never the admin.
        expect(res.status, path).toBe(404);
        continue;
      }
      expect(res.status, path).toBe(403);
      expect(res.headers['content-type'], path).toMatch(/^text\/html/);
      expect(res.text, path).toContain('Moderators only');
      expect(res.text, path).not.toContain('aria-label="Moderation"');
    }
    const post = await request(t.app).post(`/admin/reports/${reportId}/approve`).set('Cookie', user).set('Origin', t.config.origin).type('form').send({});
    expect([403]).toContain(post.status);
    expect((await t.db.prisma.report.findUniqueOrThrow({ where: { id: reportId } })).status).toBe('PENDING');
  });

  it('answers an agent key with 403, alone, beside a moderator\'s session, and with any scheme', async () => {
    const headers = [`Bearer ${moderatorKey}`, `bearer ${moderatorKey}`, `Basic ${Buffer.from(`${MODERATOR}:x`).toString('base64')}`, 'Bearer', ''];
    for (const path of paths().filter((p) => p !== '/admin;x=1')) {
      for (const authorization of headers) {
        for (const cookie of [undefined, moderator]) {
          let req = request(t.app).get(path).set('Authorization', authorization);
          if (cookie) req = req.set('Cookie', cookie);
          const res = await req;
          expect(res.status, `${path} with "${authorization.slice(0, 12)}"${cookie ? ' and a moderator session' : ''}`).toBe(403);
          expect(res.text).not.toContain(moderatorKey);
        }
      }
    }
    const post = await request(t.app)
      .post(`/admin/reports/${reportId}/approve`)
      .set('Authorization', `Bearer ${moderatorKey}`)
      .set('Cookie', moderator)
      .set('Origin', t.config.origin)
      .type('form')
      .send({});
    expect(post.status).toBe(403);
    expect((await t.db.prisma.report.findUniqueOrThrow({ where: { id: reportId } })).status).toBe('PENDING');
  });

  it('sends someone signed out to sign in (303) with the page to come back to', async () => {
    for (const path of paths().filter((p) => p !== '/admin;x=1')) {
      const res = await request(t.app).get(path);
      expect(res.status, path).toBe(303);
      expect(res.headers.location, path).toBe(`/sign-in?next=${encodeURIComponent(path)}`);
    }
    // A forged or expired session cookie is signed out too.
    for (const cookie of ['acd.sid=s%3Aforged.signature', 'acd.sid=forged', `${moderator}x`]) {
      const res = await request(t.app).get('/admin').set('Cookie', cookie);
      expect(res.status, cookie).toBe(303);
      expect(res.headers.location).toBe('/sign-in?next=%2Fadmin');
    }
  });
});
