// Errors of HTML routes render in the site's layout (404, 403, 429, 500); API routes keep
// problem+json.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, TEST_BASE_URL, type TestApp } from '../setup/app.js';
import { csrfTokenOf } from '../setup/session.js';
import { htmlProblems } from './html-validate.js';

async function expectErrorPage(res: request.Response, status: number, title: string) {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^text\/html/);
  expect(res.text).toContain(`<p class="error-code">Error ${status}</p>`);
  expect(res.text).toContain(`<h1>${title}</h1>`);
  expect(res.text).toContain('<header class="site-header">');
  expect(res.text).toContain('<a href="/how-it-works">How it works: the methodology</a>');
  expect(res.text).not.toMatch(/at .*\.(ts|js):\d+|Error: /);
  expect(await htmlProblems(res.text)).toEqual([]);
}

describe('HTML error pages', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { LIMIT_PUBLIC_PER_MINUTE: '3' } });
  });
  afterAll(() => t.close());

  it('404 for an unknown page', async () => {
    await expectErrorPage(await request(t.app).get('/no/such/page'), 404, 'Page not found');
  });

  it('403 for a form posted from another origin', async () => {
    const agent = request.agent(t.app);
    const page = await agent.get('/sign-in').expect(200);
    const res = await agent.post('/sign-in').set('Origin', 'https://evil.example').type('form').send({ email: 'a@example.org', _csrf: csrfTokenOf(page.text) });
    await expectErrorPage(res, 403, 'Origin rejected');
  });

  it('429 with Retry-After when one address asks for too many pages', async () => {
    t.clock.advance(60_000); // a fresh window: every page counts, error pages and forms too
    for (let i = 0; i < 3; i += 1) await request(t.app).get('/how-it-works').expect(200);
    const res = await request(t.app).get('/how-it-works');
    await expectErrorPage(res, 429, 'Too many requests');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(res.text).toContain(`Try again in ${res.headers['retry-after']} seconds.`);
  });

  it('keeps problem+json for API routes', async () => {
    const missing = await request(t.app).get('/api/v1/merchants/no-such-shop').expect(404);
    expect(missing.headers['content-type']).toMatch(/^application\/problem\+json/);
    const invalid = await request(t.app).get('/api/v1/merchants?days=abc').expect(400);
    expect(invalid.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('uses a Referrer-Policy under which browsers still send Origin on form posts', async () => {
    t.clock.advance(60_000);
    const res = await request(t.app).get('/sign-in').expect(200);
    expect(res.headers['referrer-policy']).toBe('same-origin');
    expect(TEST_BASE_URL.startsWith('http:')).toBe(true);
    // No upgrade-insecure-requests on an http deployment (it would break http://localhost).
    expect(res.headers['content-security-policy']).not.toContain('upgrade-insecure-requests');
  });
});

describe('503 page', () => {
  it('answers a failure (the database is gone) with the error page and Retry-After, without internals', async () => {
    const t = await createTestApp();
    try {
      await t.db.pool.end();
      // Compressed, as browsers ask: the session the page touched cannot be saved either, and
      // that late failure must not cut the page short (it did, about one time in two).
      for (let i = 0; i < 8; i += 1) {
        const res = await request(t.app).get('/').set('Accept-Encoding', 'gzip');
        await expectErrorPage(res, 503, 'The directory is resting');
        expect(res.headers['retry-after']).toBe('5');
      }
    } finally {
      await t.close();
    }
  });
});

describe('https deployments', () => {
  it('ask browsers to upgrade insecure requests', async () => {
    const t = await createTestApp({ env: { BASE_URL: 'https://directory.example' } });
    try {
      const res = await request(t.app).get('/how-it-works').expect(200);
      expect(res.headers['content-security-policy']).toContain('upgrade-insecure-requests');
    } finally {
      await t.close();
    }
  });
});
