import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, TEST_BASE_URL } from '../setup/app.js';

describe('public rate limit', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { LIMIT_PUBLIC_PER_MINUTE: '3' } });
  });
  afterAll(() => t.close());

  it('allows the configured number of public GETs per minute per address, then answers 429 with Retry-After', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await request(t.app).get('/api/v1/categories').expect(200);
      expect(res.headers['ratelimit-policy']).toMatch(/q=3;\s*w=60/);
      expect(res.headers['ratelimit']).toMatch(new RegExp(`r=${2 - i}`));
    }
    const limited = await request(t.app).get('/api/v1/agents').expect(429);
    expect(limited.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(limited.body).toMatchObject({ type: `${TEST_BASE_URL}/problems/rate-limited`, status: 429 });
    expect(Number(limited.headers['retry-after'])).toBe(60);

    t.clock.advance(30_000);
    expect(Number((await request(t.app).get('/api/v1/agents').expect(429)).headers['retry-after'])).toBe(30);
    t.clock.advance(30_001);
    await request(t.app).get('/api/v1/agents').expect(200);
  });

  it('counts answers served from the response cache, and refuses them with the same problem', async () => {
    t.clock.advance(60_000);
    for (let i = 0; i < 3; i++) {
      const res = await request(t.app).get('/api/v1/categories').expect(200);
      if (i > 0) expect(res.headers['x-cache']).toBe('HIT');
    }
    const limited = await request(t.app).get('/api/v1/categories').expect(429);
    expect(limited.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(limited.body).toMatchObject({ type: `${TEST_BASE_URL}/problems/rate-limited`, status: 429 });
    expect(limited.headers['ratelimit']).toBe('"public"; r=0; t=60');
  });

  it('keeps its counters in PostgreSQL, shared by every app over the same database', async () => {
    const { rows } = await t.db.pool.query("SELECT key, hits FROM rate_limit_counters WHERE key LIKE 'public:%'");
    expect(rows.length).toBe(1);
    expect(rows[0].hits).toBeGreaterThanOrEqual(1);
  });
});
