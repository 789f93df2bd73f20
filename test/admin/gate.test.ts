// Who gets into /admin: moderators and admins with a browser session; everyone else is sent
// to sign in (signed out) or refused (403), and an agent key never works here.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_BASE_URL, type TestApp } from '../setup/app.js';
import { accountWithKey } from '../setup/actors.js';
import { ADMIN, adminTestApp, MODERATOR, postForm, USER, type Client } from './helpers.js';

describe('the admin route gate', () => {
  let t: TestApp;
  let as: (email: string) => Promise<Client>;
  let moderator: Client;
  let admin: Client;
  let user: Client;

  beforeAll(async () => {
    ({ t, as } = await adminTestApp());
    moderator = await as(MODERATOR);
    user = await as(USER);
    admin = await as(ADMIN);
    await t.db.prisma.account.update({ where: { email: ADMIN }, data: { role: 'ADMIN' } });
  });
  afterAll(() => t.close());

  const pages = [
    '/admin',
    '/admin/reports',
    '/admin/audit',
    '/admin/merchants',
    '/admin/merchants/new',
    '/admin/categories',
    '/admin/agents',
    '/admin/accounts',
  ];

  it('lets moderators (MODERATOR_EMAILS) and admins (role in the database) in', async () => {
    for (const client of [moderator, admin]) {
      for (const path of pages) {
        const res = await client.get(path);
        expect(res.status, path).toBe(200);
        expect(res.headers['cache-control']).toBe('no-store');
        expect(res.text).toContain('aria-label="Moderation"');
      }
    }
  });

  it('sends people who are signed out to sign in, and back afterwards', async () => {
    const res = await request(t.app).get('/admin/reports?status=APPROVED').expect(303);
    expect(res.headers.location).toBe(`/sign-in?next=${encodeURIComponent('/admin/reports?status=APPROVED')}`);
    const root = await request(t.app).get('/admin').expect(303);
    expect(root.headers.location).toBe('/sign-in?next=%2Fadmin');
  });

  it('refuses signed-in people without the role with a 403 page, for pages and form posts', async () => {
    for (const path of pages) {
      const res = await user.get(path);
      expect(res.status, path).toBe(403);
      expect(res.headers['content-type']).toMatch(/text\/html/);
      expect(res.text).toContain('Moderators only');
    }
    const pending = await t.db.prisma.report.findFirstOrThrow({ where: { status: 'PENDING' } });
    const res = await postForm(user, `/admin/reports/${pending.id}/approve`, {}, '/profile/agents');
    expect(res.status).toBe(403);
    expect((await t.db.prisma.report.findUniqueOrThrow({ where: { id: pending.id } })).status).toBe('PENDING');
  });

  it('never accepts an agent key, not even a moderator’s, nor next to a moderator session', async () => {
    const agent = await t.db.prisma.agent.findFirstOrThrow({ where: { active: true } });
    const { auth } = await accountWithKey(t, MODERATOR, agent.id);
    const bare = await request(t.app).get('/admin/reports').set(auth);
    expect(bare.status).toBe(403);
    expect(bare.text).toContain('Agent keys cannot be used here');
    const withSession = await moderator.get('/admin/reports').set(auth);
    expect(withSession.status).toBe(403);
    const evidence = await request(t.app).get('/admin/evidence/00000000-0000-7000-8000-000000000000').set(auth);
    expect(evidence.status).toBe(403);
  });

  it('needs the CSRF token and our Origin on every state change', async () => {
    const pending = await t.db.prisma.report.findFirstOrThrow({ where: { status: 'PENDING' } });
    const page = await moderator.get('/admin').expect(200);
    const token = /name="_csrf" value="([^"]+)"/.exec(page.text)![1]!;
    const noToken = await moderator.post(`/admin/reports/${pending.id}/approve`).set('Origin', TEST_BASE_URL).type('form').send({});
    expect(noToken.status).toBe(403);
    const otherOrigin = await moderator
      .post(`/admin/reports/${pending.id}/approve`)
      .set('Origin', 'https://evil.example')
      .type('form')
      .send({ _csrf: token });
    expect(otherOrigin.status).toBe(403);
    const noOrigin = await moderator.post(`/admin/reports/${pending.id}/approve`).type('form').send({ _csrf: token });
    expect(noOrigin.status).toBe(403);
    expect((await t.db.prisma.report.findUniqueOrThrow({ where: { id: pending.id } })).status).toBe('PENDING');
  });

  it('follows the database at once: a suspended or demoted moderator is refused on the next request', async () => {
    const other = await as('temp-mod@example.org');
    await t.db.prisma.account.update({ where: { email: 'temp-mod@example.org' }, data: { role: 'MODERATOR' } });
    await other.get('/admin').expect(200);
    await t.db.prisma.account.update({ where: { email: 'temp-mod@example.org' }, data: { suspended: true, suspendedReason: 'test' } });
    const suspended = await other.get('/admin');
    expect(suspended.status).toBe(403);
    expect(suspended.text).toContain('suspended');
    await t.db.prisma.account.update({ where: { email: 'temp-mod@example.org' }, data: { suspended: false, role: 'USER' } });
    expect((await other.get('/admin')).status).toBe(403);
  });

  it('answers unknown ids with a 404 page', async () => {
    expect((await moderator.get('/admin/reports/not-an-id')).status).toBe(404);
    expect((await moderator.get('/admin/reports/00000000-0000-7000-8000-000000000000')).status).toBe(404);
    expect((await moderator.get('/admin/merchants/00000000-0000-7000-8000-000000000000')).status).toBe(404);
    expect((await moderator.get('/admin/agents/00000000-0000-7000-8000-000000000000')).status).toBe(404);
    expect((await moderator.get('/admin/accounts/00000000-0000-7000-8000-000000000000')).status).toBe(404);
    expect((await moderator.get('/admin/categories/00000000-0000-7000-8000-000000000000')).status).toBe(404);
  });
});
