import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outboxDir } from '../../src/mail/mailer.js';
import { hashToken } from '../../src/modules/accounts/accounts.repository.js';
import { safeNextPath } from '../../src/modules/accounts/sign-in.service.js';
import { createTestApp, TEST_BASE_URL, type TestApp } from '../setup/app.js';
import { captureMailer, csrfTokenOf } from '../setup/session.js';

async function requestLink(t: TestApp, email: string, extra: Record<string, string> = {}) {
  const agent = request.agent(t.app);
  const page = await agent.get('/sign-in').expect(200);
  const res = await agent
    .post('/sign-in')
    .set('Origin', TEST_BASE_URL)
    .type('form')
    .send({ email, _csrf: csrfTokenOf(page.text), ...extra });
  return { agent, res };
}

const sessionCookie = (res: request.Response) =>
  ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith('acd.sid='));

describe('sign-in through the outbox (no mail server)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('writes the link to DATA_DIR/outbox as an .eml; following it signs in and creates the account', async () => {
    const { agent, res } = await requestLink(t, 'New.Person@Example.org');
    expect(res.status).toBe(200);
    expect(res.text).toContain('Check your e-mail');
    const dir = outboxDir(t.config.dataDir);
    const files = readdirSync(dir).filter((f) => f.endsWith('.eml'));
    expect(files).toHaveLength(1);
    const eml = readFileSync(path.join(dir, files[0]!), 'utf8');
    expect(eml).toMatch(/^To: new\.person@example\.org$/m);
    // Quoted-printable: undo soft line breaks and =XX escapes.
    const body = eml.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    const link = /http:\/\/directory\.test\/sign-in\/verify\?token=[A-Za-z0-9_-]+/.exec(body)![0];

    expect(await t.db.prisma.account.count({ where: { email: 'new.person@example.org' } })).toBe(0);
    const url = new URL(link);
    const signedIn = await agent.get(`${url.pathname}${url.search}`).expect(303);
    // Without a next page, a person lands on their own reports.
    expect(signedIn.headers.location).toBe('/profile/reports');
    const account = await t.db.prisma.account.findUniqueOrThrow({ where: { email: 'new.person@example.org' } });
    expect(account.role).toBe('USER');

    const home = await agent.get('/sign-in').expect(200);
    expect(home.text).toContain('new.person@example.org');
    // The token is stored only as a hash.
    const token = url.searchParams.get('token')!;
    const rows = await t.db.pool.query('SELECT token_hash FROM sign_in_tokens');
    expect(rows.rows.map((r) => r.token_hash)).toEqual([hashToken(token)]);
    expect(JSON.stringify(rows.rows)).not.toContain(token);
  });
});

describe('sign-in', () => {
  let t: TestApp;
  const mailer = captureMailer();
  beforeAll(async () => {
    t = await createTestApp({ mailer, env: { MODERATOR_EMAILS: 'mod@directory.example' } });
  });
  afterAll(() => t.close());

  it('answers the same whether or not an account exists (no enumeration)', async () => {
    await t.db.prisma.account.create({ data: { email: 'known@example.org' } });
    const known = await requestLink(t, 'known@example.org');
    const unknown = await requestLink(t, 'unknown@example.org');
    expect(known.res.status).toBe(unknown.res.status);
    const strip = (html: string) => html.replace(/known@example\.org|unknown@example\.org/g, 'X').replace(/value="[^"]+"/g, '');
    expect(strip(known.res.text)).toBe(strip(unknown.res.text));
  });

  it('uses a link once only', async () => {
    const { agent } = await requestLink(t, 'once@example.org');
    const link = new URL(mailer.lastLinkFor('once@example.org'));
    await agent.get(`${link.pathname}${link.search}`).expect(303);
    const again = await request(t.app).get(`${link.pathname}${link.search}`).expect(400);
    expect(again.text).toContain('expired or was already used');
  });

  it('refuses a link after 15 minutes', async () => {
    await requestLink(t, 'late@example.org');
    const link = new URL(mailer.lastLinkFor('late@example.org'));
    t.clock.advance(15 * 60_000 + 1);
    await request(t.app).get(`${link.pathname}${link.search}`).expect(400);
    expect(await t.db.prisma.account.count({ where: { email: 'late@example.org' } })).toBe(0);
    t.clock.set('2026-11-22T12:00:00Z');
  });

  it('refuses an unknown token', async () => {
    await request(t.app).get('/sign-in/verify?token=made-up').expect(400);
    await request(t.app).get('/sign-in/verify').expect(400);
  });

  it('regenerates the session id at sign-in (no fixation)', async () => {
    const { agent, res } = await requestLink(t, 'fixation@example.org');
    const before = sessionCookie(res) ?? '';
    expect(before).toBeTruthy();
    const link = new URL(mailer.lastLinkFor('fixation@example.org'));
    const signedIn = await agent.get(`${link.pathname}${link.search}`).expect(303);
    const after = sessionCookie(signedIn) ?? '';
    expect(after).toBeTruthy();
    expect(after.split(';')[0]).not.toBe(before.split(';')[0]);
    // The planted (old) id is not signed in.
    const planted = await request(t.app).get('/sign-in').set('Cookie', before.split(';')[0]!).expect(200);
    expect(planted.text).not.toContain('fixation@example.org');
  });

  it('sets an httpOnly, SameSite=Lax session cookie', async () => {
    const { res } = await requestLink(t, 'cookie@example.org');
    const cookie = sessionCookie(res)!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).not.toMatch(/Secure/i);
  });

  it('follows next only to a path on this site', async () => {
    for (const [next, expected] of [
      ['/profile/agents?x=1', '/profile/agents?x=1'],
      ['https://evil.example/', '/profile/reports'],
      ['//evil.example/path', '/profile/reports'],
      ['/\\evil.example', '/profile/reports'],
      ['javascript:alert(1)', '/profile/reports'],
    ] as const) {
      const email = `next-${Math.random().toString(36).slice(2)}@example.org`;
      const { agent } = await requestLink(t, email, { next });
      const link = new URL(mailer.lastLinkFor(email));
      const res = await agent.get(`${link.pathname}${link.search}`).expect(303);
      expect(res.headers.location).toBe(expected);
    }
    expect(safeNextPath('/a/b#c', TEST_BASE_URL)).toBe('/a/b#c');
    expect(safeNextPath('http://directory.test/x', TEST_BASE_URL)).toBeNull();
  });

  it('gives MODERATOR_EMAILS addresses the moderator role at sign-in', async () => {
    const { agent } = await requestLink(t, 'MOD@directory.example');
    const link = new URL(mailer.lastLinkFor('mod@directory.example'));
    await agent.get(`${link.pathname}${link.search}`).expect(303);
    expect((await t.db.prisma.account.findUniqueOrThrow({ where: { email: 'mod@directory.example' } })).role).toBe('MODERATOR');
  });

  it('signs out by destroying the session', async () => {
    const { agent } = await requestLink(t, 'bye@example.org');
    const link = new URL(mailer.lastLinkFor('bye@example.org'));
    await agent.get(`${link.pathname}${link.search}`).expect(303);
    const page = await agent.get('/sign-in').expect(200);
    expect(page.text).toContain('bye@example.org');
    await agent.post('/sign-out').set('Origin', TEST_BASE_URL).type('form').send({ _csrf: csrfTokenOf(page.text) }).expect(303);
    expect((await agent.get('/sign-in').expect(200)).text).not.toContain('bye@example.org');
  });

  it('rejects an invalid address with the form and its error', async () => {
    const { res } = await requestLink(t, 'not-an-address');
    expect(res.status).toBe(400);
    expect(res.text).toContain('Enter a valid e-mail address.');
    expect(res.text).toContain('value="not-an-address"');
  });

  it('refuses a form post without the CSRF token, or from another origin', async () => {
    const agent = request.agent(t.app);
    const page = await agent.get('/sign-in').expect(200);
    await agent.post('/sign-in').set('Origin', TEST_BASE_URL).type('form').send({ email: 'a@example.org' }).expect(403);
    await agent
      .post('/sign-in')
      .set('Origin', 'https://evil.example')
      .type('form')
      .send({ email: 'a@example.org', _csrf: csrfTokenOf(page.text) })
      .expect(403);
    await agent.post('/sign-in').type('form').send({ email: 'a@example.org', _csrf: csrfTokenOf(page.text) }).expect(403);
  });
});

describe('sign-in limits', () => {
  let t: TestApp;
  const mailer = captureMailer();
  beforeAll(async () => {
    t = await createTestApp({ mailer, env: { LIMIT_SIGN_IN_PER_ADDRESS_PER_HOUR: '2', LIMIT_SIGN_IN_PER_CLIENT_PER_HOUR: '4' } });
  });
  afterAll(() => t.close());

  it('limits requests per address and per client address, with a clear page', async () => {
    expect((await requestLink(t, 'limit@example.org')).res.status).toBe(200);
    expect((await requestLink(t, 'LIMIT@example.org')).res.status).toBe(200);
    const limited = await requestLink(t, 'limit@example.org');
    expect(limited.res.status).toBe(429);
    expect(limited.res.headers['retry-after']).toBeDefined();
    expect(limited.res.text).toContain('Too many sign-in requests');
    expect(mailer.sent.filter((m) => m.to === 'limit@example.org')).toHaveLength(2);
    // Per client address: 4 in all (the refused one counts too), then refused whatever the address.
    expect((await requestLink(t, 'other@example.org')).res.status).toBe(200);
    expect((await requestLink(t, 'third@example.org')).res.status).toBe(429);
    expect(mailer.sent.filter((m) => m.to === 'third@example.org')).toHaveLength(0);
  });
});
