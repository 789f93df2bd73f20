import express from 'express';
import request from 'supertest';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { problemErrorHandler } from '../../src/web/middleware/errors.js';
import { validationRefusal } from '../../src/errors.js';
import { PROBLEM_TYPES, problemTypeUrl, type ProblemCode } from '../../src/problem-types.js';
import { createTestApp, type TestApp, TEST_BASE_URL } from '../setup/app.js';
import { accountWithKey } from '../setup/actors.js';
import { anAgent } from '../factories/index.js';

const PROBLEM = /^application\/problem\+json/;

describe('API error bodies', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  beforeAll(async () => {
    t = await createTestApp();
    ({ auth } = await accountWithKey(t, 'bodies@example.org', (await anAgent(t.db.prisma)).id));
  });

  /** A private answer like any other: never stored, and counted against the key's limits. */
  const expectPrivate = (res: request.Response) => {
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['ratelimit-policy']).toMatch(/"private:address"; q=\d+; w=60; pk=:[^:]+:, "private:account"/);
  };
  afterAll(() => t.close());

  it('answers an unknown API path with a problem+json 404', async () => {
    const res = await request(t.app).get('/api/v1/no-such-thing?key=secret').expect(404);
    expect(res.headers['content-type']).toMatch(PROBLEM);
    expect(res.body).toEqual({
      type: `${TEST_BASE_URL}/problems/not-found`,
      title: 'Not found',
      status: 404,
      detail: expect.any(String),
      // The occurrence, by its request id: never an echo of the path or query.
      instance: `urn:request:${res.headers['x-request-id']}`,
    });
  });

  it('gives every problem type an absolute address that resolves to a page saying what to do', async () => {
    const index = await request(t.app).get('/problems').expect(200);
    for (const [code, problem] of Object.entries(PROBLEM_TYPES)) {
      expect(index.text).toContain(`href="/problems/${code}"`);
      const page = await request(t.app).get(new URL(problemTypeUrl(TEST_BASE_URL, code as ProblemCode)).pathname).expect(200);
      expect(page.headers['content-type']).toMatch(/text\/html/);
      expect(page.text).toContain('What to do');
      expect(page.text).toContain(problem.status.join(', '));
    }
    await request(t.app).get('/problems/no-such-problem').expect(404);
  });

  it('answers malformed JSON with a 400 problem', async () => {
    const res = await request(t.app)
      .post('/api/v1/reports')
      .set(auth)
      .set('Content-Type', 'application/json')
      .send('{"adId": ')
      .expect(400);
    expect(res.headers['content-type']).toMatch(PROBLEM);
    expectPrivate(res);
    expect(res.body).toMatchObject({ type: `${TEST_BASE_URL}/problems/malformed-json`, status: 400 });
    expect(JSON.stringify(res.body)).not.toMatch(/Unexpected|SyntaxError|at /);
  });

  it('answers a body over 16,384 bytes with 413 and accepts one of exactly 16,384', async () => {
    const body = (size: number) => {
      const prefix = '{"experience":"';
      const suffix = '"}';
      return prefix + 'x'.repeat(size - prefix.length - suffix.length) + suffix;
    };
    const tooLarge = await request(t.app)
      .post('/api/v1/reports')
      .set(auth)
      .set('Content-Type', 'application/json')
      .send(body(16_385))
      .expect(413);
    expect(tooLarge.headers['content-type']).toMatch(PROBLEM);
    expectPrivate(tooLarge);
    // Without credentials nothing is read: the missing key is what the client must fix first.
    await request(t.app).post('/api/v1/reports').set('Content-Type', 'application/json').send(body(16_385)).expect(401);
    expect(tooLarge.body).toMatchObject({ type: `${TEST_BASE_URL}/problems/payload-too-large`, status: 413 });
    // Exactly at the limit the body is parsed; the route itself decides what follows.
    const atLimit = await request(t.app).post('/api/v1/reports').set(auth).set('Content-Type', 'application/json').send(body(16_384));
    expect(atLimit.status).not.toBe(413);
  });

  it('names the request id in a response header', async () => {
    const res = await request(t.app).get('/healthz').set('X-Request-Id', 'abc-123');
    expect(res.headers['x-request-id']).toBe('abc-123');
    const generated = await request(t.app).get('/healthz').set('X-Request-Id', 'bad id with spaces');
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers an unknown page with an HTML 404', async () => {
    const res = await request(t.app).get('/no-such-page').expect(404);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('Page not found');
  });

  it('sets security headers', async () => {
    const res = await request(t.app).get('/healthz');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toBeDefined();
    expect(res.headers['x-powered-by']).toBeUndefined();
  });
});

describe('the central error handler', () => {
  const app = express();
  app.locals.baseUrl = TEST_BASE_URL;
  app.get('/boom', () => {
    throw new Error('duplicate key value violates unique constraint "accounts_email_key" at /srv/app/x.ts:12');
  });
  app.get('/invalid', () => {
    const result = z.object({ page: z.coerce.number().int().min(1), sort: z.enum(['name']) }).safeParse({ page: '0', sort: 'x' });
    if (!result.success) throw validationRefusal(result.error, 'query');
  });
  app.use(problemErrorHandler());

  it('answers an unexpected error with a generic 500 problem, never its message or stack', async () => {
    const res = await request(app).get('/boom').expect(500);
    expect(res.headers['content-type']).toMatch(PROBLEM);
    expect(res.body).toEqual({
      type: `${TEST_BASE_URL}/problems/internal-error`,
      title: 'Internal server error',
      status: 500,
      detail: expect.any(String),
    });
    expect(res.text).not.toMatch(/duplicate key|accounts_email_key|x\.ts|stack/);
  });

  it('answers a validation failure with an errors array naming each parameter', async () => {
    const res = await request(app).get('/invalid').expect(400);
    expect(res.body).toMatchObject({ type: `${TEST_BASE_URL}/problems/validation-failed`, status: 400 });
    expect(res.body.detail).toContain('page');
    expect(res.body.detail).toContain('sort');
    expect(res.body.errors).toEqual([
      { parameter: 'page', detail: expect.any(String) },
      { parameter: 'sort', detail: expect.any(String) },
    ]);
  });
});
