// The profile agent setup page: issue, list, revoke and replace agent keys through real
// form posts (session, CSRF token, Origin), over a real database with a controlled clock.
import { createHash } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticateKey, KEY_LIFETIME_DAYS } from '../../src/modules/keys/keys.service.js';
import { createTestApp, TEST_BASE_URL, type TestApp } from '../setup/app.js';
import { captureMailer, csrfTokenOf, signIn } from '../setup/session.js';

type Client = Awaited<ReturnType<typeof signIn>>;

const DAY = 24 * 60 * 60 * 1000;
const REVEALED = /id="new-key" class="secret">(acd_[A-Za-z0-9_-]{43})</;
const ANY_KEY = /acd_[A-Za-z0-9_-]{43}/;
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

describe('agent keys on the profile page', () => {
  let t: TestApp;
  const mailer = captureMailer();
  let alice: Client;
  let bob: Client;
  let agentA: { id: string; name: string };
  let agentB: { id: string; name: string };
  let retired: { id: string; name: string };

  beforeAll(async () => {
    t = await createTestApp({ mailer });
    agentA = await t.db.prisma.agent.create({ data: { slug: 'alpha-agent', name: 'Alpha Agent', vendor: 'Alpha Inc.' } });
    agentB = await t.db.prisma.agent.create({ data: { slug: 'beta-agent', name: 'Beta Agent', vendor: 'Beta Ltd.' } });
    retired = await t.db.prisma.agent.create({
      data: { slug: 'retired-agent', name: 'Retired Agent', vendor: 'Old Co.', active: false },
    });
    alice = await signIn(t.app, mailer, 'alice@example.org');
    bob = await signIn(t.app, mailer, 'bob@example.org');
  });
  afterAll(() => t.close());

  const accountId = async (email: string) => (await t.db.prisma.account.findUniqueOrThrow({ where: { email } })).id;

  async function post(client: Client, path: string, fields: Record<string, string> = {}) {
    const page = await client.get('/profile/agents').expect(200);
    return client.post(path).set('Origin', TEST_BASE_URL).type('form').send({ _csrf: csrfTokenOf(page.text), ...fields });
  }

  /** Issues (or replaces) through the page and returns the key shown on the next view. */
  async function revealAfter(client: Client, res: request.Response): Promise<string> {
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/profile/agents');
    const page = await client.get('/profile/agents').expect(200);
    const match = REVEALED.exec(page.text);
    expect(match, 'the new key is shown').not.toBeNull();
    return match![1]!;
  }

  /** Every value of every column of every table, as text. */
  async function databaseText(): Promise<string> {
    const { rows: columns } = await t.db.pool.query<{ table_name: string; column_name: string }>(
      `SELECT c.table_name, c.column_name FROM information_schema.columns c
         JOIN information_schema.tables tb ON tb.table_schema = c.table_schema AND tb.table_name = c.table_name
        WHERE c.table_schema = 'public' AND tb.table_type = 'BASE TABLE'`,
    );
    expect(columns.length).toBeGreaterThan(20);
    const parts: string[] = [];
    for (const { table_name, column_name } of columns) {
      const { rows } = await t.db.pool.query<{ v: string | null }>(
        `SELECT string_agg(${JSON.stringify(column_name)}::text, E'\\n') AS v FROM ${JSON.stringify(table_name)}`,
      );
      parts.push(rows[0]?.v ?? '');
    }
    return parts.join('\n');
  }

  it('sends people who are signed out to sign in, and back here afterwards', async () => {
    const res = await request(t.app).get('/profile/agents').expect(303);
    expect(res.headers.location).toBe('/sign-in?next=%2Fprofile%2Fagents');
  });

  it('lists the active agents only, with a form to issue a key', async () => {
    const page = await alice.get('/profile/agents').expect(200);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.text).toContain(`value="${agentA.id}"`);
    expect(page.text).toContain(`value="${agentB.id}"`);
    expect(page.text).not.toContain(retired.id);
    expect(page.text).toContain('action="/profile/agents/keys"');
    expect(page.text).toContain('You have no agent keys yet.');
  });

  it('issues a key shown exactly once, stored only as its SHA-256, expiring after 90 days', async () => {
    const now = t.clock.now();
    const posted = await post(alice, '/profile/agents/keys', { agentId: agentA.id });
    // Between the POST and the page view the key waits in the session: not in clear text.
    const textBeforeView = await databaseText();

    expect(posted.status).toBe(303);
    const page = await alice.get('/profile/agents').expect(200);
    const key = REVEALED.exec(page.text)![1]!;
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.text).toContain(`Authorization: Bearer ${key}`);
    expect(page.text).toContain('Your new key for Alpha Agent');
    expect(page.text).toContain('data-copy-target="new-key"');
    expect(page.text).toContain('<script src="/static/js/copy.js" defer></script>');
    expect(page.text).toMatch(/Never put the key in a URL/);
    expect(page.text).not.toMatch(/<script>/);

    // Reloading no longer shows it; the list shows its display prefix instead.
    const again = await alice.get('/profile/agents').expect(200);
    expect(again.text).not.toContain(key);
    expect(again.text).not.toMatch(ANY_KEY);
    expect(again.text).toContain(`${key.slice(0, 12)}…`);
    expect(again.text).toMatch(/Alpha Agent<\/td>/);

    // Only the hash (and the first 12 characters) are stored.
    const rows = await t.db.prisma.agentKey.findMany({ where: { accountId: await accountId('alice@example.org') } });
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    expect(row.keyHash).toBe(sha256(key));
    expect(row.displayPrefix).toBe(key.slice(0, 12));
    expect(row.agentId).toBe(agentA.id);
    expect(row.createdAt).toEqual(now);
    expect(row.expiresAt).toEqual(new Date(now.getTime() + KEY_LIFETIME_DAYS * DAY));
    expect(row.revokedAt).toBeNull();

    // The raw key (or its random part) is in no column of any table, before or after the view.
    const textAfterView = await databaseText();
    for (const text of [textBeforeView, textAfterView]) {
      expect(text).toContain(sha256(key));
      expect(text).not.toContain(key);
      expect(text).not.toContain(key.slice(4));
    }
    expect(await authenticateKey(t.db.prisma, key, t.clock.now())).toMatchObject({ ok: true, agentId: agentA.id });
  });

  it('does not show the new key to a browser that lacks the reveal cookie', async () => {
    const posted = await post(alice, '/profile/agents/keys', { agentId: agentB.id });
    expect(posted.status).toBe(303);
    const cookies = ([] as string[]).concat(posted.headers['set-cookie'] ?? []);
    expect(cookies.find((c) => c.startsWith('acd.reveal='))).toMatch(/HttpOnly/i);
    // The same session without the one-time secret (e.g. someone holding only the session).
    const sessionCookie = cookies.find((c) => c.startsWith('acd.sid='))!.split(';')[0]!;
    const page = await request(t.app).get('/profile/agents').set('Cookie', sessionCookie).expect(200);
    expect(page.text).not.toMatch(ANY_KEY);
    expect(page.text).toContain('can no longer be shown');
    // And it is gone for the browser that has the cookie too: shown at most once.
    expect((await alice.get('/profile/agents').expect(200)).text).not.toMatch(ANY_KEY);
    await t.db.prisma.agentKey.updateMany({ where: { agentId: agentB.id }, data: { revokedAt: t.clock.now() } });
  });

  it('re-renders the form with an error (400) for an inactive, unknown or malformed agent', async () => {
    const before = await t.db.prisma.agentKey.count();
    for (const agentId of [retired.id, '00000000-0000-7000-8000-000000000000', 'not-an-id', '']) {
      const res = await post(alice, '/profile/agents/keys', { agentId });
      expect(res.status).toBe(400);
      expect(res.text).toContain('Choose one of the listed agents.');
      expect(res.text).toContain('action="/profile/agents/keys"');
    }
    expect(await t.db.prisma.agentKey.count()).toBe(before);
  });

  it('revokes a key (idempotently), after which it no longer authenticates', async () => {
    const key = await revealAfter(alice, await post(alice, '/profile/agents/keys', { agentId: agentA.id }));
    const row = await t.db.prisma.agentKey.findUniqueOrThrow({ where: { keyHash: sha256(key) } });

    const res = await post(alice, `/profile/agents/keys/${row.id}/revoke`);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/profile/agents');
    const revoked = await t.db.prisma.agentKey.findUniqueOrThrow({ where: { id: row.id } });
    expect(revoked.revokedAt).toEqual(t.clock.now());
    expect(await authenticateKey(t.db.prisma, key, t.clock.now())).toEqual({ ok: false, reason: 'revoked' });

    const page = await alice.get('/profile/agents').expect(200);
    const rowHtml = page.text.slice(page.text.indexOf(`data-key-id="${row.id}"`));
    expect(rowHtml.slice(0, rowHtml.indexOf('</tr>'))).toMatch(/Revoked/);
    expect(rowHtml.slice(0, rowHtml.indexOf('</tr>'))).not.toMatch(/\/revoke"/);

    t.clock.advance(5_000);
    expect((await post(alice, `/profile/agents/keys/${row.id}/revoke`)).status).toBe(303);
    expect((await t.db.prisma.agentKey.findUniqueOrThrow({ where: { id: row.id } })).revokedAt).toEqual(revoked.revokedAt);
  });

  it('replaces a key: a new one for the same agent, the old one revoked at once', async () => {
    const oldKey = await revealAfter(alice, await post(alice, '/profile/agents/keys', { agentId: agentB.id }));
    const old = await t.db.prisma.agentKey.findUniqueOrThrow({ where: { keyHash: sha256(oldKey) } });
    t.clock.advance(60_000);

    const newKey = await revealAfter(alice, await post(alice, `/profile/agents/keys/${old.id}/replace`));
    expect(newKey).not.toBe(oldKey);
    const replaced = await t.db.prisma.agentKey.findUniqueOrThrow({ where: { id: old.id } });
    const fresh = await t.db.prisma.agentKey.findUniqueOrThrow({ where: { keyHash: sha256(newKey) } });
    expect(replaced.revokedAt).toEqual(t.clock.now());
    expect(fresh.agentId).toBe(agentB.id);
    expect(fresh.accountId).toBe(old.accountId);
    expect(fresh.createdAt).toEqual(t.clock.now());
    expect(fresh.expiresAt).toEqual(new Date(t.clock.now().getTime() + 90 * DAY));
    expect(await authenticateKey(t.db.prisma, oldKey, t.clock.now())).toEqual({ ok: false, reason: 'revoked' });
    expect(await authenticateKey(t.db.prisma, newKey, t.clock.now())).toMatchObject({ ok: true, agentId: agentB.id });

    // A revoked key cannot be replaced (again).
    const count = await t.db.prisma.agentKey.count();
    const again = await post(alice, `/profile/agents/keys/${old.id}/replace`);
    expect(again.status).toBe(409);
    expect(again.text).toContain('cannot be replaced');
    expect(await t.db.prisma.agentKey.count()).toBe(count);
  });

  it("answers 404 for another account's key (and for unknown ids), leaving it untouched", async () => {
    const bobKey = await revealAfter(bob, await post(bob, '/profile/agents/keys', { agentId: agentA.id }));
    const row = await t.db.prisma.agentKey.findUniqueOrThrow({ where: { keyHash: sha256(bobKey) } });
    const count = await t.db.prisma.agentKey.count();

    for (const action of ['revoke', 'replace']) {
      for (const id of [row.id, '00000000-0000-7000-8000-000000000000', 'nope']) {
        const res = await post(alice, `/profile/agents/keys/${id}/${action}`);
        expect(res.status).toBe(404);
        expect(res.text).toContain('Key not found');
      }
    }
    expect((await t.db.prisma.agentKey.findUniqueOrThrow({ where: { id: row.id } })).revokedAt).toBeNull();
    expect(await t.db.prisma.agentKey.count()).toBe(count);
    // Alice's page does not list Bob's key.
    expect((await alice.get('/profile/agents')).text).not.toContain(row.id);
  });

  it('refuses form posts without the CSRF token (403) or from another origin (403)', async () => {
    const count = await t.db.prisma.agentKey.count();
    const page = await alice.get('/profile/agents').expect(200);
    const token = csrfTokenOf(page.text);

    const noCsrf = await alice.post('/profile/agents/keys').set('Origin', TEST_BASE_URL).type('form').send({ agentId: agentA.id });
    expect(noCsrf.status).toBe(403);
    const badCsrf = await alice
      .post('/profile/agents/keys')
      .set('Origin', TEST_BASE_URL)
      .type('form')
      .send({ agentId: agentA.id, _csrf: 'x'.repeat(token.length) });
    expect(badCsrf.status).toBe(403);
    const wrongOrigin = await alice
      .post('/profile/agents/keys')
      .set('Origin', 'https://evil.example')
      .type('form')
      .send({ agentId: agentA.id, _csrf: token });
    expect(wrongOrigin.status).toBe(403);
    const noOrigin = await alice.post('/profile/agents/keys').type('form').send({ agentId: agentA.id, _csrf: token });
    expect(noOrigin.status).toBe(403);

    const key = await t.db.prisma.agentKey.findFirstOrThrow({ where: { revokedAt: null, account: { email: 'alice@example.org' } } });
    const revokeNoCsrf = await alice.post(`/profile/agents/keys/${key.id}/revoke`).set('Origin', TEST_BASE_URL).type('form').send({});
    expect(revokeNoCsrf.status).toBe(403);
    const replaceWrongOrigin = await alice
      .post(`/profile/agents/keys/${key.id}/replace`)
      .set('Origin', 'http://directory.test.evil.example')
      .type('form')
      .send({ _csrf: token });
    expect(replaceWrongOrigin.status).toBe(403);

    expect(await t.db.prisma.agentKey.count()).toBe(count);
    expect((await t.db.prisma.agentKey.findUniqueOrThrow({ where: { id: key.id } })).revokedAt).toBeNull();
  });

  it('shows a suspended account a notice and refuses to issue or replace keys (403)', async () => {
    const carol = await signIn(t.app, mailer, 'carol@example.org');
    const key = await revealAfter(carol, await post(carol, '/profile/agents/keys', { agentId: agentA.id }));
    const row = await t.db.prisma.agentKey.findUniqueOrThrow({ where: { keyHash: sha256(key) } });
    await t.db.prisma.account.update({ where: { email: 'carol@example.org' }, data: { suspended: true, suspendedAt: t.clock.now() } });

    const page = await carol.get('/profile/agents').expect(200);
    expect(page.text).toContain('Your account is suspended.');
    expect(page.text).not.toContain('action="/profile/agents/keys"');
    expect(page.text).not.toContain('/replace"');
    expect(page.text).toContain(`/profile/agents/keys/${row.id}/revoke`);

    const count = await t.db.prisma.agentKey.count();
    const issue = await post(carol, '/profile/agents/keys', { agentId: agentA.id });
    expect(issue.status).toBe(403);
    expect(issue.text).toContain('Your account is suspended');
    const replace = await post(carol, `/profile/agents/keys/${row.id}/replace`);
    expect(replace.status).toBe(403);
    expect(await t.db.prisma.agentKey.count()).toBe(count);
    // Revoking stays possible.
    expect((await post(carol, `/profile/agents/keys/${row.id}/revoke`)).status).toBe(303);
  });

  it('expires keys 90 days after issue, by the injected clock', async () => {
    const start = t.clock.now();
    const key = await revealAfter(bob, await post(bob, '/profile/agents/keys', { agentId: agentB.id }));
    const row = await t.db.prisma.agentKey.findUniqueOrThrow({ where: { keyHash: sha256(key) } });
    const stateOf = async () => {
      const html = (await bob.get('/profile/agents').expect(200)).text;
      const tr = html.slice(html.indexOf(`data-key-id="${row.id}"`));
      return /class="key-state">\s*(\w+)/.exec(tr.slice(0, tr.indexOf('</tr>')))![1];
    };
    try {
      t.clock.advance(90 * DAY - 1);
      expect(await authenticateKey(t.db.prisma, key, t.clock.now())).toMatchObject({ ok: true });
      expect(await stateOf()).toBe('Active');
      t.clock.advance(1);
      expect(await authenticateKey(t.db.prisma, key, t.clock.now())).toEqual({ ok: false, reason: 'expired' });
      expect(await stateOf()).toBe('Expired');

      // An expired key may be replaced: the new one runs 90 days from now.
      const newKey = await revealAfter(bob, await post(bob, `/profile/agents/keys/${row.id}/replace`));
      const fresh = await t.db.prisma.agentKey.findUniqueOrThrow({ where: { keyHash: sha256(newKey) } });
      expect(fresh.expiresAt).toEqual(new Date(start.getTime() + 180 * DAY));
    } finally {
      t.clock.set(start);
    }
  });
});
