// Each defect a hostile client found (issue "zero 5xx"): every one answered 500 before, and
// must now answer a 4xx that names the problem, writing nothing.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import pg from 'pg';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerClientErrors } from '../../src/web/client-errors.js';
import { TEST_BASE_URL, type TestApp, createTestApp } from '../setup/app.js';
import { contributionTargets } from '../factories/index.js';
import { accountWithKey } from '../setup/actors.js';
import { captureMailer, csrfTokenOf, signIn } from '../setup/session.js';
import { adminTestApp, MODERATOR } from '../admin/helpers.js';

const PROBLEM = /^application\/problem\+json/;
const NUL = 'a\u0000b';

describe('hostile input', () => {
  let t: TestApp;
  let T: Awaited<ReturnType<typeof contributionTargets>>;
  let auth: Record<string, string>;
  let agentId: string;
  const mailer = captureMailer();
  let person: Awaited<ReturnType<typeof signIn>>;
  let n = 0;
  beforeAll(async () => {
    t = await createTestApp({ mailer });
    T = await contributionTargets(t.db.prisma);
    agentId = T.agents[0]!.id;
    ({ auth } = await accountWithKey(t, 'hostile@example.org', agentId));
    person = await signIn(t.app, mailer, 'hostile.person@example.org');
  });
  afterAll(() => t.close());

  const rows = async () =>
    (
      await t.db.pool.query(
        `SELECT (SELECT count(*)::int FROM reports) AS reports, (SELECT count(*)::int FROM report_revisions) AS revisions,
                (SELECT coalesce(sum(hits), 0)::int FROM rate_limit_counters WHERE key LIKE '%submissions%') AS quotas`,
      )
    ).rows[0] as { reports: number; revisions: number; quotas: number };
  const body = (extra: Record<string, unknown> = {}) => ({ adId: T.merchants[n++]!.id, agentId, privacy: true, outcome: 'WORKS', ...extra });
  async function refusedWithout(write: () => Promise<request.Response>, status: number, field?: string) {
    const before = await rows();
    const res = await write();
    expect(res.status, res.text).toBe(status);
    expect(res.headers['content-type']).toMatch(PROBLEM);
    if (field) expect(JSON.stringify(res.body.errors)).toContain(field);
    expect(await rows()).toEqual(before);
    return res;
  }

  describe('1. ids that cannot be ids on the own-report routes', () => {
    for (const id of ['nope', 'abc', '%20', '0199f0a1-2b3c-7d4e-8f90']) {
      it(`answers 404 for GET and PUT /api/v1/automation/reports/${id}`, async () => {
        const got = await request(t.app).get(`/api/v1/automation/reports/${id}`).set(auth).expect(404);
        expect(got.headers['content-type']).toMatch(PROBLEM);
        await refusedWithout(() => request(t.app).put(`/api/v1/automation/reports/${id}`).set(auth).set('If-Match', 'x').send(body()), 404);
      });
    }
  });

  describe('2. NUL characters', () => {
    for (const field of ['experience', 'agentVersion', 'region', 'task']) {
      it(`refuses a NUL in ${field} on POST, PUT and the form with a 400 naming it`, async () => {
        await refusedWithout(() => request(t.app).post('/api/v1/reports').set(auth).send(body({ [field]: NUL })), 400, field);
        const created = await request(t.app).post('/api/v1/reports').set(auth).send(body()).expect(201);
        await refusedWithout(
          () =>
            request(t.app)
              .put(`/api/v1/automation/reports/${created.body.id}`)
              .set(auth)
              .set('If-Match', created.body.updatedAt)
              .send({ adId: T.merchants[n - 1]!.id, agentId, privacy: true, outcome: 'PARTIAL', [field]: NUL }),
          400,
          field,
        );
        const page = await person.get('/reports/new').expect(200);
        const before = await rows();
        const form = await person
          .post('/reports/new')
          .set('Origin', TEST_BASE_URL)
          .type('form')
          .send({ _csrf: csrfTokenOf(page.text), adId: T.merchants[n++]!.id, agentId, privacy: 'true', outcome: 'WORKS', [field]: NUL });
        expect(form.status).toBe(400);
        expect(form.text).toContain('control characters');
        expect(await rows()).toEqual(before);
      });
    }

    it('answers 400 for a NUL in q or category, on the API and on the directory pages', async () => {
      for (const param of ['q', 'category']) {
        const api = await request(t.app).get(`/api/v1/merchants?${param}=a%00b`).expect(400);
        expect(api.headers['content-type']).toMatch(PROBLEM);
        expect(api.body.errors[0].parameter).toBe(param);
        const page = await request(t.app).get(`/?${param}=a%00b`).expect(400);
        expect(page.headers['content-type']).toMatch(/^text\/html/);
      }
    });

    it('answers 404 for a NUL in any slug, on the API and the pages', async () => {
      for (const path of ['/api/v1/merchants/a%00b', '/api/v1/agents/a%00b/merchants', '/merchants/a%00b', '/agents/a%00b', '/categories/a%00b']) {
        const res = await request(t.app).get(path);
        expect(res.status, path).toBe(404);
      }
    });

    it('answers 400 for a NUL in the admin merchant search', async () => {
      const { t: admin, as } = await adminTestApp();
      try {
        const moderator = await as(MODERATOR);
        const res = await moderator.get('/admin/merchants?q=a%00b');
        expect(res.status).toBe(400);
        expect(res.text).toContain('control characters');
        // LIKE wildcards are plain characters in every search, here too.
        const wild = await moderator.get('/admin/merchants?q=%25_%25').expect(200);
        expect(wild.text).not.toContain('/admin/merchants/0');
        expect((wild.text.match(/href="\/admin\/merchants\/[0-9a-f-]{36}"/g) ?? []).length).toBe(0);
      } finally {
        await admin.close();
      }
    });
  });

  it('3. refuses a test date PostgreSQL cannot store (year 0) on POST, PUT and the form', async () => {
    const res = await refusedWithout(() => request(t.app).post('/api/v1/reports').set(auth).send(body({ testedAt: '0000-01-01' })), 400, 'testedAt');
    expect(JSON.stringify(res.body)).toContain('2000-01-01 or later');
    const created = await request(t.app).post('/api/v1/reports').set(auth).send(body()).expect(201);
    await refusedWithout(
      () =>
        request(t.app)
          .put(`/api/v1/automation/reports/${created.body.id}`)
          .set(auth)
          .set('If-Match', created.body.updatedAt)
          .send({ adId: T.merchants[n - 1]!.id, agentId, privacy: true, outcome: 'WORKS', testedAt: '0000-01-01' }),
      400,
      'testedAt',
    );
    const page = await person.get('/reports/new').expect(200);
    const form = await person
      .post('/reports/new')
      .set('Origin', TEST_BASE_URL)
      .type('form')
      .send({ _csrf: csrfTokenOf(page.text), adId: T.merchants[n++]!.id, agentId, privacy: 'true', outcome: 'WORKS', testedAt: '0000-01-01' });
    expect(form.status).toBe(400);
  });

  describe('4. bytes that do not decode', () => {
    for (const segment of ['%FF', '%ZZ', '%', '%C0%80']) {
      it(`answers 400 problem+json for ${segment} in an API path`, async () => {
        const res = await request(t.app).get(`/api/v1/merchants/${segment}`).expect(400);
        expect(res.headers['content-type']).toMatch(PROBLEM);
        expect(res.body.type).toBe(`${TEST_BASE_URL}/problems/malformed-path`);
      });
    }

    for (const encoding of ['gzip', 'br', 'deflate']) {
      it(`answers a 4xx problem for a corrupt ${encoding} body, writing nothing`, async () => {
        await refusedWithout(
          () =>
            request(t.app)
              .post('/api/v1/reports')
              .set(auth)
              .set('Content-Type', 'application/json')
              .set('Content-Encoding', encoding)
              .send(Buffer.concat([gzipSync(Buffer.from('{"a":1}')).subarray(0, 8), Buffer.from('garbage')])),
          400,
        );
      });
    }
  });

  describe('5. multipart', () => {
    it('answers 400 for a malformed multipart form on the route that takes files, writing nothing', async () => {
      const page = await person.get('/reports/new').expect(200);
      for (const contentType of ['multipart/form-data; boundary=XYZ', 'multipart/form-data']) {
        const before = await rows();
        const res = await person
          .post('/reports/new')
          .set('Origin', TEST_BASE_URL)
          .set('Content-Type', contentType)
          .send(`--XYZ\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${csrfTokenOf(page.text)}\r\n--XYZ\r\nContent-Disposition: form-data; name="adId"\r\n\r\nx`);
        expect(res.status).toBe(400);
        expect(res.headers['content-type']).toMatch(/^text\/html/);
        expect(await rows()).toEqual(before);
      }
    });

    it('refuses multipart bodies unread (415) on every other form, and anonymously without Origin', async () => {
      const anonymous = await request(t.app).post('/sign-in').set('Content-Type', 'multipart/form-data; boundary=XYZ').send('--XYZ');
      expect(anonymous.status).toBe(403);
      const res = await request(t.app)
        .post('/sign-in')
        .set('Origin', TEST_BASE_URL)
        .set('Content-Type', 'multipart/form-data; boundary=XYZ')
        .send('--XYZ\r\nContent-Disposition: form-data; name="email"\r\n\r\na@example.org\r\n--XYZ--\r\n');
      expect(res.status).toBe(415);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
    });
  });

  it('7. limits refused keys per address before any lookup', async () => {
    const limited = await createTestApp({ env: { LIMIT_FAILED_KEYS_PER_ADDRESS_PER_MINUTE: '5' } });
    try {
      const unknown = { Authorization: `Bearer acd_${'A'.repeat(43)}` };
      for (let i = 0; i < 5; i++) await request(limited.app).get('/api/v1/automation/queue').set(unknown).expect(401);
      // Every key lookup of the process is counted while the limit holds.
      let lookups = 0;
      const query = pg.Client.prototype.query;
      pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
        const text = typeof args[0] === 'string' ? args[0] : String((args[0] as { text?: string } | undefined)?.text ?? '');
        if (text.includes('agent_keys')) lookups++;
        return (query as (...a: unknown[]) => unknown).apply(this, args);
      } as typeof query;
      try {
        for (let i = 0; i < 20; i++) {
          const res = await request(limited.app).get('/api/v1/automation/queue').set(unknown).expect(429);
          expect(res.headers['content-type']).toMatch(PROBLEM);
          expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
        }
        expect(lookups).toBe(0);
        // In the next window the key is looked up (and refused) again.
        limited.clock.advance(60_000);
        await request(limited.app).get('/api/v1/automation/queue').set(unknown).expect(401);
        expect(lookups).toBeGreaterThan(0);
      } finally {
        pg.Client.prototype.query = query;
      }
    } finally {
      await limited.close();
    }
  });

  it('8. gives a visitor who is not signed in a short session, and only for a form', async () => {
    const form = await request(t.app).get('/sign-in').expect(200);
    const sid = decodeURIComponent(/acd\.sid=s%3A([^.;]+)/.exec(form.headers['set-cookie']![0]!)![1]!);
    const { rows: [session] } = await t.db.pool.query<{ expire: Date }>('SELECT expire FROM session WHERE sid = $1', [sid]);
    expect(session!.expire.getTime() - Date.now()).toBeLessThanOrEqual(2 * 3600_000 + 5_000);
    expect(form.headers['set-cookie']![0]).toMatch(/Expires=/);
    const page = await request(t.app).get('/how-it-works').expect(200);
    expect(page.headers['set-cookie']).toBeUndefined();
  });

  it('9. refuses a lone surrogate with 400 (it could not be stored as sent), so retries stay identical', async () => {
    await refusedWithout(() => request(t.app).post('/api/v1/reports').set(auth).send(body({ experience: '\ud800x' })), 400, 'experience');
    const payload = body({ experience: 'ok 😀 still fine' });
    await request(t.app).post('/api/v1/reports').set(auth).send(payload).expect(201);
    const retry = await request(t.app).post('/api/v1/reports').set(auth).send(payload).expect(200);
    expect(retry.body.unchanged).toBe(true);
  });

  it('10. answers 401 to a report posted with neither credentials nor Origin', async () => {
    const res = await refusedWithout(() => request(t.app).post('/api/v1/reports').send(body()), 401);
    expect(res.body.type).toBe(`${TEST_BASE_URL}/problems/missing-credentials`);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
  });

  it('never echoes a long address into a Location header (clients cannot read headers over 16 KB)', async () => {
    const long = 'x'.repeat(12_000);
    const profile = await request(t.app).get(`/profile/agents?q=${long}`).expect(303);
    expect(profile.headers.location).toBe('/sign-in?next=%2Fprofile%2Fagents');
    const admin = await request(t.app).get(`/admin/${long}`).expect(303);
    expect(admin.headers.location).toBe('/sign-in');
    const category = await request(t.app).get(`/categories/${T.merchants[0]!.category.toUpperCase().replace(/[^A-Z]/g, '') || 'x'}?q=${long}`);
    expect(category.headers.location?.length ?? 0).toBeLessThan(2_100);
  });

  it('answers a URL over 16 KB with a 431 problem naming the limit', async () => {
    const server = http.createServer(t.app);
    answerClientErrors(server, TEST_BASE_URL);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/merchants?q=${'x'.repeat(17_000)}`);
      expect(res.status).toBe(431);
      expect(res.headers.get('content-type')).toMatch(PROBLEM);
      expect(await res.json()).toMatchObject({ type: `${TEST_BASE_URL}/problems/headers-too-large`, status: 431 });
    } finally {
      server.close();
    }
  });
});
