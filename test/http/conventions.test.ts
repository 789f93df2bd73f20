// The HTTP conventions clients expect of the API: 405 with Allow, CORS for other origins,
// Link headers on paged lists, ignored tracking parameters, and no-store with RateLimit
// headers on every private answer.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contributionTargets } from '../factories/index.js';
import { accountWithKey } from '../setup/actors.js';
import { createTestApp, TEST_BASE_URL, type TestApp } from '../setup/app.js';

const PROBLEM = /^application\/problem\+json/;

/** The Link header as { rel: url }. */
function links(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? '').split(/,\s*(?=<)/)) {
    const m = /^<([^>]+)>;\s*rel="([^"]+)"$/.exec(part.trim());
    if (m) out[m[2]!] = m[1]!;
  }
  return out;
}

const local = (url: string) => url.slice(TEST_BASE_URL.length);

describe('HTTP conventions of the API', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  let targets: Awaited<ReturnType<typeof contributionTargets>>;
  beforeAll(async () => {
    t = await createTestApp();
    targets = await contributionTargets(t.db.prisma, 50);
    ({ auth } = await accountWithKey(t, 'conventions@example.org', targets.agents[0]!.id));
  });
  afterAll(() => t.close());

  describe('405 with Allow', () => {
    it('answers a method an existing address does not take with 405, Allow and a problem', async () => {
      for (const [method, path, allow] of [
        ['post', '/api/v1/merchants', 'GET, HEAD, OPTIONS'],
        ['delete', '/api/v1/merchants/some-shop', 'GET, HEAD, OPTIONS'],
        ['put', '/api/v1/reports', 'POST, GET, HEAD, OPTIONS'],
        ['patch', '/api/v1/openapi.json', 'GET, HEAD, OPTIONS'],
      ] as const) {
        const res = await request(t.app)[method](path).expect(405);
        expect(res.headers.allow, path).toBe(allow);
        expect(res.headers['content-type']).toMatch(PROBLEM);
        expect(res.body).toMatchObject({ type: `${TEST_BASE_URL}/problems/method-not-allowed`, status: 405 });
        expect(res.body.instance).toBe(`urn:request:${res.headers['x-request-id']}`);
      }
    });

    it('answers a wrong method on a private address after the key is checked', async () => {
      await request(t.app).delete('/api/v1/automation/reports/00000000-0000-7000-8000-000000000000').expect(401);
      const res = await request(t.app).delete('/api/v1/automation/reports/00000000-0000-7000-8000-000000000000').set(auth).expect(405);
      expect(res.headers.allow).toBe('GET, PUT, HEAD, OPTIONS');
      expect(res.headers['cache-control']).toBe('no-store');
    });

    it('keeps 404 for addresses that do not exist', async () => {
      await request(t.app).post('/api/v1/nothing-here').expect(404);
      await request(t.app).options('/api/v1/nothing-here').expect(404);
    });
  });

  describe('CORS', () => {
    it('lets any origin read public answers, without credentials, also from the response cache', async () => {
      for (let i = 0; i < 2; i += 1) {
        const res = await request(t.app).get('/api/v1/merchants').set('Origin', 'https://app.example').expect(200);
        expect(res.headers['access-control-allow-origin']).toBe('*');
        expect(res.headers['access-control-allow-credentials']).toBeUndefined();
        expect(res.headers['access-control-expose-headers']).toContain('Link');
        expect(res.headers['access-control-expose-headers']).toContain('ETag');
      }
    });

    it('answers preflights on existing addresses with 204, the allowed methods and headers', async () => {
      for (const [path, method] of [
        ['/api/v1/merchants', 'GET'],
        ['/api/v1/automation/queue', 'GET'],
        ['/api/v1/automation/reports/00000000-0000-7000-8000-000000000000', 'PUT'],
        ['/api/v1/reports', 'POST'],
      ] as const) {
        const res = await request(t.app)
          .options(path)
          .set({ Origin: 'https://app.example', 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': 'authorization, content-type, if-match' })
          .expect(204);
        expect(res.headers['access-control-allow-origin']).toBe('*');
        expect(res.headers['access-control-allow-methods']).toContain(method);
        expect(res.headers['access-control-allow-headers']).toMatch(/Authorization/);
        expect(res.headers['access-control-allow-headers']).toMatch(/If-Match/);
        expect(res.headers.allow).toContain(method);
      }
    });
  });

  describe('Link headers', () => {
    it('gives a public list first, prev, next and last, keeping its filters and dropping tracking parameters', async () => {
      const res = await request(t.app).get('/api/v1/merchants?page=2&sort=name&utm_source=newsletter').expect(200);
      const l = links(res.headers.link);
      expect(res.body.total).toBeGreaterThanOrEqual(50);
      const last = Math.ceil(res.body.total / res.body.pageSize);
      expect(l).toEqual({
        first: `${TEST_BASE_URL}/api/v1/merchants?page=1&sort=name`,
        prev: `${TEST_BASE_URL}/api/v1/merchants?page=1&sort=name`,
        next: `${TEST_BASE_URL}/api/v1/merchants?page=3&sort=name`,
        last: `${TEST_BASE_URL}/api/v1/merchants?page=${last}&sort=name`,
      });
      const next = await request(t.app).get(local(l.next!)).expect(200);
      expect(next.body.page).toBe(3);
      const first = links((await request(t.app).get('/api/v1/agents').expect(200)).headers.link);
      expect(first.prev).toBeUndefined();
      expect(Object.keys(first).sort()).toEqual(['first', 'last']);
    });

    it('gives a private list a next link with the cursor, and none at the end', async () => {
      let url: string | undefined = '/api/v1/automation/queue?limit=20';
      const seen = new Set<string>();
      while (url) {
        const res: request.Response = await request(t.app).get(url).set(auth).expect(200);
        for (const item of res.body.items) seen.add(item.id);
        const next = links(res.headers.link).next;
        expect(Boolean(next)).toBe(res.body.nextCursor !== null);
        if (next) expect(new URL(next).searchParams.get('after')).toBe(res.body.nextCursor);
        url = next ? local(next) : undefined;
      }
      expect(seen.size).toBe(50);
    });
  });

  describe('query parameters', () => {
    it('ignores cache busters and tracking parameters, and names any other unknown one', async () => {
      const plain = await request(t.app).get('/api/v1/merchants?sort=name').expect(200);
      const tracked = await request(t.app).get('/api/v1/merchants?sort=name&_=1737000000&utm_campaign=x&fbclid=abc&gclid=d').expect(200);
      expect(tracked.body).toEqual(plain.body);
      const res = await request(t.app).get('/api/v1/merchants?sortt=name').expect(400);
      expect(res.body.errors).toEqual([{ parameter: 'sortt', detail: 'is not a known parameter' }]);
    });
  });

  describe('private answers', () => {
    const hasRateLimit = (res: request.Response) => {
      expect(res.headers['cache-control'], res.text).toBe('no-store');
      expect(res.headers['ratelimit-policy'], res.text).toMatch(/"private:address"; q=\d+; w=60; pk=:/);
      expect(res.headers.ratelimit, res.text).toMatch(/"private:address"; r=\d+; t=\d+/);
    };

    it('carry no-store and the RateLimit headers, errors included, with a key or without', async () => {
      hasRateLimit(await request(t.app).get('/api/v1/automation/queue').expect(401));
      hasRateLimit(await request(t.app).get('/api/v1/automation/me').set('Authorization', 'Bearer not-a-key').expect(401));
      hasRateLimit(await request(t.app).post('/api/v1/reports').send({}).expect(401));
      const withKey = [
        await request(t.app).get('/api/v1/automation/queue?limit=0').set(auth).expect(400),
        await request(t.app).get('/api/v1/automation/reports/00000000-0000-7000-8000-000000000000').set(auth).expect(404),
        await request(t.app).put('/api/v1/automation/reports/00000000-0000-7000-8000-000000000000').set(auth).send('{').type('json').expect(400),
        await request(t.app).put('/api/v1/automation/reports/00000000-0000-7000-8000-000000000000').set(auth).send({ adId: targets.merchants[0]!.id, agentId: targets.agents[0]!.id, privacy: true, outcome: 'WORKS' }).expect(428),
        await request(t.app).post('/api/v1/reports').set(auth).type('json').send('{"adId":').expect(400),
        await request(t.app).post('/api/v1/reports').set(auth).type('json').send(JSON.stringify({ notes: 'x'.repeat(70_000) })).expect(413),
      ];
      for (const res of withKey) {
        hasRateLimit(res);
        expect(res.headers['ratelimit-policy']).toMatch(/"private:account"/);
        expect(res.headers['content-type']).toMatch(PROBLEM);
      }
    });
  });
});
