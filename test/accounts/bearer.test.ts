// Bearer agent keys on a small API app (the middleware as the API will mount it), and the
// refusal of keys in query strings, over a real database with a controlled clock.
import { Writable } from 'node:stream';
import express from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refusedKeyCounter, bearerAuth, hasBearer } from '../../src/web/middleware/bearer.js';
import { problemErrorHandler } from '../../src/web/middleware/errors.js';
import { refuseKeyInQuery } from '../../src/web/middleware/key-in-query.js';
import { createLogger, redactUrl } from '../../src/logger.js';
import { issueKey, revokeKey, touchKey } from '../../src/modules/keys/keys.service.js';
import { createTestApp, TEST_BASE_URL, type TestApp } from '../setup/app.js';

const PROBLEM = /^application\/problem\+json/;
const DAY = 24 * 60 * 60 * 1000;

describe('bearer agent keys', () => {
  let t: TestApp;
  let api: express.Express;
  let accountId: string;
  let agentId: string;
  let key: string;
  let keyId: string;

  const newAccount = async (email: string) => (await t.db.prisma.account.create({ data: { email } })).id;
  const newAgent = async (slug: string) =>
    (await t.db.prisma.agent.create({ data: { slug, name: slug, vendor: 'Vendor' } })).id;

  beforeAll(async () => {
    t = await createTestApp();
    accountId = await newAccount('agent-owner@example.org');
    agentId = await newAgent('bearer-agent');
    const issued = await issueKey(t.db.prisma, { accountId, agentId }, t.clock.now());
    key = issued.key;
    keyId = issued.record.id;

    api = express();
    api.locals.baseUrl = TEST_BASE_URL;
    api.use(refuseKeyInQuery);
    // Refused keys are limited per address; this suite refuses many on purpose.
    const auth = bearerAuth({ prisma: t.db.prisma, clock: t.clock, failures: refusedKeyCounter(t.db.pool, t.clock, 1_000_000) });
    api.post('/api/v1/reports', auth, (_req, res) => {
      res.json({ agentKey: res.locals.agentKey });
    });
    api.get('/api/v1/automation/queue', auth, (req, res) => {
      res.json({ agentKey: res.locals.agentKey, bearer: hasBearer(req) });
    });
    api.get('/api/v1/merchants', (req, res) => {
      res.json({ bearer: hasBearer(req) });
    });
    api.use(problemErrorHandler());
  });
  afterAll(() => t.close());

  async function refused(status: 401 | 403, res: request.Response, type: string) {
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(PROBLEM);
    expect(res.body).toMatchObject({ type: `${TEST_BASE_URL}/problems/${type}`, status });
    // Spec 5 rule 8: the client must stop.
    expect(res.body.detail).toMatch(/stop retrying/i);
    if (status === 401) expect(res.headers['www-authenticate']).toMatch(/^Bearer realm=/);
    expect(JSON.stringify(res.body)).not.toContain(key);
  }

  it('answers 401 without an Authorization header', async () => {
    await refused(401, await request(api).post('/api/v1/reports'), 'missing-credentials');
    await refused(401, await request(api).get('/api/v1/automation/queue'), 'missing-credentials');
    await refused(401, await request(api).post('/api/v1/reports').set('Authorization', ''), 'missing-credentials');
  });

  it('answers 401 for a malformed Authorization header', async () => {
    for (const header of [key, `Basic ${key}`, 'Bearer', 'Bearer ', `Bearer ${key} extra`, `Token ${key}`]) {
      await refused(401, await request(api).post('/api/v1/reports').set('Authorization', header), 'malformed-authorization');
    }
  });

  it('answers 401 for an unknown key', async () => {
    const unknown = `acd_${'A'.repeat(43)}`;
    for (const value of [unknown, 'acd_short', key.slice(0, -1), `${key}x`, key.toUpperCase()]) {
      await refused(401, await request(api).post('/api/v1/reports').set('Authorization', `Bearer ${value}`), 'invalid-key');
    }
  });

  it('accepts a valid key (any case of the scheme) and sets res.locals.agentKey', async () => {
    for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
      const res = await request(api).post('/api/v1/reports').set('Authorization', `${scheme} ${key}`).expect(200);
      expect(res.body.agentKey).toEqual({ keyId, accountId, agentId, agentSlug: 'bearer-agent' });
    }
    const res = await request(api).get('/api/v1/automation/queue').set('Authorization', `Bearer ${key}`).expect(200);
    expect(res.body).toEqual({ agentKey: { keyId, accountId, agentId, agentSlug: 'bearer-agent' }, bearer: true });
    // Needs no session and no Origin header; hasBearer tells bearer requests apart.
    expect((await request(api).get('/api/v1/merchants').expect(200)).body).toEqual({ bearer: false });
    expect((await request(api).get('/api/v1/merchants').set('Authorization', 'Basic x').expect(200)).body).toEqual({ bearer: true });
  });

  it('writes lastUsedAt at most once a minute per key', async () => {
    const ownAccount = await newAccount('touch@example.org');
    const issued = await issueKey(t.db.prisma, { accountId: ownAccount, agentId }, t.clock.now());
    const state = async () =>
      (
        await t.db.pool.query<{ last_used_at: Date | null; xmin: string }>(
          'SELECT last_used_at, xmin::text FROM agent_keys WHERE id = $1',
          [issued.record.id],
        )
      ).rows[0]!;
    const use = () => request(api).post('/api/v1/reports').set('Authorization', `Bearer ${issued.key}`).expect(200);
    const start = t.clock.now();
    try {
      expect((await state()).last_used_at).toBeNull();
      await use();
      const first = await state();
      expect(first.last_used_at).toEqual(start);

      // Within the minute: no write at all (the row version does not change).
      t.clock.advance(30_000);
      await use();
      t.clock.advance(29_999);
      await use();
      expect(await touchKey(t.db.prisma, issued.record.id, t.clock.now())).toBe(false);
      expect(await state()).toEqual(first);

      // A minute later: written again.
      t.clock.advance(2);
      await use();
      const second = await state();
      expect(second.last_used_at).toEqual(new Date(start.getTime() + 60_001));
      expect(second.xmin).not.toBe(first.xmin);
    } finally {
      t.clock.set(start);
    }
  });

  it('answers 401 for a revoked key', async () => {
    const issued = await issueKey(t.db.prisma, { accountId, agentId }, t.clock.now());
    expect(await revokeKey(t.db.prisma, { accountId, keyId: issued.record.id }, t.clock.now())).toBe(true);
    await refused(401, await request(api).post('/api/v1/reports').set('Authorization', `Bearer ${issued.key}`), 'key-revoked');
  });

  it('answers 401 for an expired key (90 days by the clock)', async () => {
    const start = t.clock.now();
    const issued = await issueKey(t.db.prisma, { accountId, agentId }, start);
    try {
      t.clock.advance(90 * DAY - 1);
      await request(api).post('/api/v1/reports').set('Authorization', `Bearer ${issued.key}`).expect(200);
      t.clock.advance(1);
      await refused(401, await request(api).post('/api/v1/reports').set('Authorization', `Bearer ${issued.key}`), 'key-expired');
    } finally {
      t.clock.set(start);
    }
  });

  it('answers 401 when the key’s agent is no longer active', async () => {
    const otherAgent = await newAgent('fading-agent');
    const issued = await issueKey(t.db.prisma, { accountId, agentId: otherAgent }, t.clock.now());
    await request(api).post('/api/v1/reports').set('Authorization', `Bearer ${issued.key}`).expect(200);
    await t.db.prisma.agent.update({ where: { id: otherAgent }, data: { active: false } });
    await refused(401, await request(api).post('/api/v1/reports').set('Authorization', `Bearer ${issued.key}`), 'agent-inactive');
  });

  it('answers 403 when the account is suspended', async () => {
    const suspendedAccount = await newAccount('suspended@example.org');
    const issued = await issueKey(t.db.prisma, { accountId: suspendedAccount, agentId }, t.clock.now());
    await t.db.prisma.account.update({ where: { id: suspendedAccount }, data: { suspended: true } });
    await refused(403, await request(api).post('/api/v1/reports').set('Authorization', `Bearer ${issued.key}`), 'account-suspended');
    await refused(403, await request(api).get('/api/v1/automation/queue').set('Authorization', `Bearer ${issued.key}`), 'account-suspended');
    // Its lastUsedAt stays untouched.
    expect((await t.db.prisma.agentKey.findUniqueOrThrow({ where: { id: issued.record.id } })).lastUsedAt).toBeNull();
  });

  it('refuses to issue keys for inactive agents or suspended accounts', async () => {
    const inactive = await t.db.prisma.agent.create({ data: { slug: 'gone', name: 'Gone', vendor: 'V', active: false } });
    await expect(issueKey(t.db.prisma, { accountId, agentId: inactive.id }, t.clock.now())).rejects.toMatchObject({ kind: 'invalid', init: { code: 'agent-unavailable' } });
    await expect(issueKey(t.db.prisma, { accountId, agentId: 'nope' }, t.clock.now())).rejects.toMatchObject({ kind: 'invalid', init: { code: 'agent-unavailable' } });
    const suspended = await t.db.prisma.account.findUniqueOrThrow({ where: { email: 'suspended@example.org' } });
    await expect(issueKey(t.db.prisma, { accountId: suspended.id, agentId }, t.clock.now())).rejects.toMatchObject({ kind: 'forbidden', init: { code: 'account-suspended' } });
  });

  it('refuses a key in the query string (400) without echoing it, even alongside a valid header', async () => {
    const urls = [
      `/api/v1/reports?key=${key}`,
      `/api/v1/reports?token=${encodeURIComponent(key)}`,
      `/api/v1/reports?x=1&k=${key.replace('_', '%5F')}`,
      '/api/v1/reports?api_key=x',
      '/api/v1/reports?API_KEY=x',
      '/api/v1/reports?ApiKey=x',
      '/api/v1/reports?access_token=x',
      '/api/v1/reports?Key=',
      `/api/v1/reports?${key}`,
    ];
    for (const url of urls) {
      for (const res of [
        await request(api).post(url),
        await request(api).post(url).set('Authorization', `Bearer ${key}`),
        await request(api).get(url.replace('/reports', '/automation/queue')),
        await request(api).get(url.replace('/reports', '/merchants')),
      ]) {
        expect(res.status, url).toBe(400);
        expect(res.headers['content-type']).toMatch(PROBLEM);
        expect(res.body).toMatchObject({ type: `${TEST_BASE_URL}/problems/key-in-query`, status: 400 });
        expect(res.body.detail).toMatch(/Authorization header/);
        expect(res.body.detail).toMatch(/exposed/);
        expect(res.body.detail).toMatch(/replace/);
        expect(JSON.stringify(res.body)).not.toContain(key);
        expect(JSON.stringify(res.body)).not.toContain(key.slice(4));
      }
    }
    // Ordinary queries pass.
    await request(api).get('/api/v1/merchants?q=acme&sort=name&monkey=1').expect(200);
  });

  it('keeps keys in URLs out of the request log', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const logged = await createTestApp({ logger: createLogger('info', sink) });
    try {
      for (const url of [`/api/v1/agents?key=${key}`, `/api/v1/agents?q=${key}`, `/api/v1/agents?api_key=${key.slice(4)}`]) {
        await request(logged.app).get(url);
      }
      expect(lines.length).toBeGreaterThanOrEqual(3);
      const log = lines.join('');
      expect(log).toContain('%5Bredacted%5D');
      expect(log).not.toContain(key.slice(4));
    } finally {
      await logged.close();
    }
    expect(redactUrl(`/x?a=1&b=${key}`)).toBe('/x?a=1&b=%5Bredacted%5D');
  });

  it('does not open the profile pages: they know sessions only', async () => {
    const res = await request(t.app).get('/profile/agents').set('Authorization', `Bearer ${key}`).expect(303);
    expect(res.headers.location).toBe('/sign-in?next=%2Fprofile%2Fagents');
    const count = await t.db.prisma.agentKey.count();
    const post = await request(t.app)
      .post('/profile/agents/keys')
      .set('Authorization', `Bearer ${key}`)
      .set('Origin', TEST_BASE_URL)
      .type('form')
      .send({ agentId });
    // No session, so no CSRF token: refused before the route.
    expect(post.status).toBe(403);
    expect(await t.db.prisma.agentKey.count()).toBe(count);
  });
});
