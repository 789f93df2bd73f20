import express from 'express';
import request from 'supertest';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { problemErrorHandler } from '../../src/http/middleware/errors.js';
import { validationRefusal } from '../../src/errors.js';
import { createTestApp, type TestApp } from '../setup/app.js';
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
    expect(res.headers['ratelimit-policy']).toMatch(/"private:account"; q=\d+; w=60; pk=:[^:]+:, "private:address"/);
  };
  afterAll(() => t.close());

  it('answers an unknown API path with a problem+json 404', async () => {
    const res = await request(t.app).get('/api/v1/no-such-thing').expect(404);
    expect(res.headers['content-type']).toMatch(PROBLEM);
    expect(res.body).toEqual({
      type: '/problems/not-found',
      title: 'Not found',
      status: 404,
      detail: expect.any(String),
    });
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
    expect(res.body).toMatchObject({ type: '/problems/malformed-json', status: 400 });
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
    expect(tooLarge.body).toMatchObject({ type: '/problems/payload-too-large', status: 413 });
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
      type: '/problems/internal-error',
      title: 'Internal server error',
      status: 500,
      detail: expect.any(String),
    });
    expect(res.text).not.toMatch(/duplicate key|accounts_email_key|x\.ts|stack/);
  });

  it('answers a validation failure with an errors array naming each parameter', async () => {
    const res = await request(app).get('/invalid').expect(400);
    expect(res.body).toMatchObject({ type: '/problems/validation-failed', status: 400 });
    expect(res.body.detail).toContain('page');
    expect(res.body.detail).toContain('sort');
    expect(res.body.errors).toEqual([
      { parameter: 'page', detail: expect.any(String) },
      { parameter: 'sort', detail: expect.any(String) },
    ]);
  });
});
