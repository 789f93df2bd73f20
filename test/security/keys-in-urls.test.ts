// Agent keys never travel or rest where others read them: a key in a query string is refused
// (400 key-in-query) without echoing it, no request log line holds a key (in the URL, in the
// Authorization header, or an invalid one), and a refused key is not echoed in the 401.
import { Writable } from 'node:stream';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { createTestApp, TEST_BASE_URL, type TestApp } from '../setup/app.js';
import { accountWithKey } from '../setup/actors.js';

/** A key-shaped value that no account has. */
const UNKNOWN_KEY = `acd_${'Zq9'.repeat(14)}x`;

describe('agent keys in URLs, logs and error bodies', () => {
  let t: TestApp;
  const lines: string[] = [];
  let key: string;
  let auth: { Authorization: string };
  let body: Record<string, unknown>;
  let reportId: string;

  /** Every place a response could carry the key: body and headers. */
  const expectNoKey = (res: request.Response, secret: string, where: string) => {
    const everything = `${res.text}\n${JSON.stringify(res.headers)}`;
    expect(everything, where).not.toContain(secret);
    // Nor its random part on its own (without the acd_ prefix).
    expect(everything, where).not.toContain(secret.slice(4));
  };

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    t = await createTestApp({ logger: createLogger('info', sink) });
    const agent = await t.db.prisma.agent.create({ data: { slug: 'key-agent', name: 'Key Agent', vendor: 'V' } });
    const merchant = await t.db.prisma.merchant.create({
      data: { slug: 'key-shop', name: 'Key Shop', website: 'https://key.example', category: 'Misc', approvedCanonical: true },
    });
    ({ key, auth } = await accountWithKey(t, 'key-owner@example.org', agent.id));
    body = { adId: merchant.id, agentId: agent.id, privacy: true, outcome: 'WORKS' };
    const created = await request(t.app).post('/api/v1/reports').set(auth).send(body).expect(201);
    reportId = created.body.id;
  });
  afterAll(() => t.close());

  it('refuses a key in the query string of every private endpoint with 400 key-in-query, echoing nothing of it', async () => {
    const queries = [
      `key=${key}`,
      `api_key=${key}`,
      `apikey=${key}`,
      `access_token=${key}`,
      `token=${key}`,
      `token=${encodeURIComponent(key)}`,
      `limit=5&token=${key}`,
      `Key=${key}`,
      `API_KEY=${key.slice(4)}`,
      key,
      `${key}=`,
      `q=${key}`,
    ];
    const before = await t.db.prisma.report.count();
    for (const query of queries) {
      const requests: Array<[string, () => request.Test]> = [
        ['GET queue', () => request(t.app).get(`/api/v1/automation/queue?${query}`)],
        ['GET own reports', () => request(t.app).get(`/api/v1/automation/reports?${query}`)],
        ['GET own report', () => request(t.app).get(`/api/v1/automation/reports/${reportId}?${query}`)],
        ['PUT own report', () => request(t.app).put(`/api/v1/automation/reports/${reportId}?${query}`).set('If-Match', 'x').send({ ...body, outcome: 'BLOCKED' })],
        ['POST report', () => request(t.app).post(`/api/v1/reports?${query}`).send({ ...body, outcome: 'PARTIAL' })],
        ['POST report (session)', () => request(t.app).post(`/api/v1/reports?${query}`).set('Origin', TEST_BASE_URL).send(body)],
      ];
      for (const [what, make] of requests) {
        // Without a header, and next to a valid one: refused either way.
        for (const withHeader of [false, true]) {
          const req = make();
          const res = await (withHeader ? req.set(auth) : req);
          const where = `${what} ?${query}${withHeader ? ' with a valid Authorization header' : ''}`;
          expect(res.status, where).toBe(400);
          expect(res.headers['content-type'], where).toMatch(/^application\/problem\+json/);
          expect(res.body, where).toMatchObject({ type: `${TEST_BASE_URL}/problems/key-in-query`, status: 400 });
          expectNoKey(res, key, where);
        }
      }
    }
    // Nothing was written by the refused requests.
    expect(await t.db.prisma.report.count()).toBe(before);
    expect((await t.db.prisma.report.findUniqueOrThrow({ where: { id: reportId } })).outcome).toBe('WORKS');
  });

  it('does not echo an invalid or malformed bearer key in the 401', async () => {
    const revoked = await accountWithKey(t, 'revoked-owner@example.org', (await t.db.prisma.agent.findFirstOrThrow()).id);
    await t.db.prisma.agentKey.updateMany({ where: { accountId: revoked.account.id }, data: { revokedAt: t.clock.now() } });
    const headers: Array<[string, string]> = [
      [UNKNOWN_KEY, `Bearer ${UNKNOWN_KEY}`],
      [UNKNOWN_KEY, `bearer ${UNKNOWN_KEY}`],
      [UNKNOWN_KEY, `Bearer ${UNKNOWN_KEY} extra`],
      [UNKNOWN_KEY, `Basic ${UNKNOWN_KEY}`],
      [UNKNOWN_KEY, UNKNOWN_KEY],
      [`${key}x`, `Bearer ${key}x`],
      [key.slice(0, -1), `Bearer ${key.slice(0, -1)}`],
      [revoked.key, `Bearer ${revoked.key}`],
    ];
    for (const [secret, header] of headers) {
      for (const res of [
        await request(t.app).get('/api/v1/automation/queue').set('Authorization', header),
        await request(t.app).post('/api/v1/reports').set('Authorization', header).send(body),
      ]) {
        expect(res.status, header).toBe(401);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(res.headers['www-authenticate']).toMatch(/^Bearer realm=/);
        expectNoKey(res, secret, header);
      }
    }
  });

  it('writes no key to the request log: in the URL, in the Authorization header, or refused', async () => {
    lines.length = 0;
    const sent = [
      request(t.app).get(`/api/v1/automation/queue?key=${key}`),
      request(t.app).get(`/api/v1/automation/queue?limit=5&token=${key}`),
      request(t.app).get(`/api/v1/automation/reports?${key}`),
      request(t.app).post(`/api/v1/reports?api_key=${key.slice(4)}`).set(auth).send(body),
      // Public endpoints and pages do not refuse it, but do not log it either.
      request(t.app).get(`/api/v1/merchants?q=${key}`),
      request(t.app).get(`/api/v1/agents?key=${key}`),
      request(t.app).get(`/?q=${key}`),
      request(t.app).get(`/merchants/key-shop?token=${key}`),
      request(t.app).get(`/no-such-page?${key}`),
      // In the header, accepted and refused.
      request(t.app).get('/api/v1/automation/queue').set(auth),
      request(t.app).get('/api/v1/automation/reports').set(auth),
      request(t.app).get('/api/v1/automation/queue').set('Authorization', `Bearer ${UNKNOWN_KEY}`),
      request(t.app).get('/api/v1/automation/queue').set('Authorization', `Bearer ${UNKNOWN_KEY} extra`),
      request(t.app).post('/api/v1/reports').set('Authorization', `Bearer ${UNKNOWN_KEY}`).send(body),
      request(t.app).get('/admin').set(auth),
      request(t.app).get('/profile/agents').set('Authorization', `Bearer ${UNKNOWN_KEY}`),
    ];
    for (const req of sent) await req;
    // The log is written when each response closes.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const log = lines.join('');
    expect(lines.length, 'one line per request').toBeGreaterThanOrEqual(sent.length);
    expect(log).toContain('redacted');
    for (const secret of [key, key.slice(4), UNKNOWN_KEY, UNKNOWN_KEY.slice(4)]) {
      expect(log, 'a logged line holds a key').not.toContain(secret);
    }
    // Each line still names the request (with the key cut out).
    expect(log).toContain('/api/v1/automation/queue?limit=5&token=%5Bredacted%5D');
  });

  // Known to fail (found by this suite): the request log redacts keys in the query string only
  // (redactUrl in src/logger.ts), so a key pasted into the path is written to the log in full.
  it('writes no key to the request log when a client pastes it into the URL path', async () => {
    lines.length = 0;
    const sent = [
      request(t.app).get(`/api/v1/automation/queue/${key}`).set(auth),
      request(t.app).get(`/api/v1/automation/reports/${key}`).set(auth),
      request(t.app).get(`/api/v1/merchants/${key}`),
      request(t.app).get(`/merchants/${key}`),
      request(t.app).get(`/${key}`),
    ];
    for (const req of sent) expectNoKey(await req, key, 'a key in the path');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(lines.length, 'one line per request').toBeGreaterThanOrEqual(sent.length);
    const log = lines.join('');
    expect(log, 'a logged URL path holds the key').not.toContain(key.slice(4));
  });
});
