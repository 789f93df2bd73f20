// /metrics: Prometheus text for the operator, refused to anyone without the configured token.
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runUpkeep } from '../../src/upkeep.js';
import { aMerchant } from '../factories/index.js';
import { createTestApp, TEST_BASE_URL, type TestApp } from '../setup/app.js';

const TOKEN = 'metrics-token-for-the-tests-0123456789';

/** The value of one series (name and labels exactly as written), or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('/metrics', () => {
  let t: TestApp;
  let slug: string;
  const scrape = async () => {
    const res = await request(t.app).get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200);
    return res.text;
  };

  beforeAll(async () => {
    t = await createTestApp({ env: { METRICS_TOKEN: TOKEN } });
    slug = (await aMerchant(t.db.prisma, { slug: 'secret-shop-slug' })).slug;
  });
  afterAll(() => t.close());

  it('refuses a request without a token with a 401 problem', async () => {
    const res = await request(t.app).get('/metrics').expect(401);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="metrics"');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toMatchObject({ type: `${TEST_BASE_URL}/problems/metrics-token-refused`, status: 401 });
    expect(res.text).not.toContain('http_request_duration_seconds');
  });

  it('refuses a wrong token, a token of another length and another scheme', async () => {
    await request(t.app).get('/metrics').set('Authorization', `Bearer ${TOKEN.slice(0, -1)}x`).expect(401);
    await request(t.app).get('/metrics').set('Authorization', 'Bearer short').expect(401);
    await request(t.app).get('/metrics').set('Authorization', `Basic ${TOKEN}`).expect(401);
  });

  it('answers 404 to everyone when no token is configured', async () => {
    const other = await createTestApp();
    try {
      const res = await request(other.app).get('/metrics').set('Authorization', 'Bearer anything-at-all-here').expect(404);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.text).not.toContain('http_request_duration_seconds');
    } finally {
      await other.close();
    }
  });

  it('exposes request durations by route template and status class, and the counts move', async () => {
    await request(t.app).get('/api/v1/merchants').expect(200);
    await request(t.app).get(`/api/v1/merchants/${slug}`).expect(200);
    await request(t.app).get('/api/v1/merchants/no-such-shop-4711').expect(404);
    await request(t.app).get('/no/such/page/4712').expect(404);
    const before = await scrape();
    const list = 'http_request_duration_seconds_count{method="GET",route="/api/v1/merchants",status_class="2xx"}';
    expect(before).toMatch(/http_request_duration_seconds_bucket\{le="0\.1",method="GET",route="\/api\/v1\/merchants",status_class="2xx"\} \d+/);
    expect(before).toContain('route="/api/v1/merchants/:slugOrId",status_class="2xx"');
    expect(before).toContain('route="/api/v1/merchants/:slugOrId",status_class="4xx"');
    expect(before).toContain('route="unmatched",status_class="4xx"');
    const counted = sample(before, list)!;
    expect(counted).toBeGreaterThanOrEqual(1);

    // A cached answer, served at the cache's front door, keeps its route.
    await request(t.app).get('/api/v1/merchants').expect(200);
    const after = await scrape();
    expect(sample(after, list)).toBe(counted + 1);

    // No id, slug or other text a client sent becomes a label.
    // The series' names and labels only: a value (a duration sum of 0.04711 s) may hold any digits.
    const labels = after
      .split('\n')
      .filter((l) => !l.startsWith('#'))
      .map((l) => l.slice(0, l.lastIndexOf(' ')))
      .join('\n');
    expect(labels).not.toMatch(/secret-shop-slug|no-such-shop|4711|4712|no\/such/);
  });

  it('exposes the response cache, the pool, the limiters, the process and the headers of a private answer', async () => {
    await request(t.app).get('/api/v1/categories').expect(200);
    await request(t.app).get('/api/v1/categories').expect(200);
    const res = await request(t.app).get('/metrics').set('Authorization', `bearer ${TOKEN}`).expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.headers['cache-control']).toBe('no-store');
    const text = res.text;
    expect(sample(text, 'acd_response_cache_requests_total{result="hit"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'acd_response_cache_requests_total{result="miss"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'acd_response_cache_entries')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'acd_response_cache_bytes')).toBeGreaterThan(0);
    expect(sample(text, 'acd_db_pool_connections{state="in_use"}')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'acd_db_pool_connections{state="idle"}')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'acd_db_pool_waiting_clients')).toBe(0);
    expect(sample(text, 'acd_db_pool_max_connections')).toBeGreaterThan(0);
    expect(text).toContain('# TYPE acd_limiter_syncs_total counter');
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds /m);
  });

  it('counts limiter syncs', async () => {
    await request(t.app).get('/api/v1/agents').expect(200);
    // The public limiter sends its counts within a second of a hit.
    await expect.poll(async () => sample(await scrape(), 'acd_limiter_syncs_total{limiter="public",outcome="ok"}'), { timeout: 3_000 }).toBeGreaterThanOrEqual(1);
  });

  it('exposes upkeep and summary refresh timings', async () => {
    await runUpkeep(t.db, t.clock.now(), t.logger);
    const text = await scrape();
    expect(sample(text, 'acd_upkeep_duration_seconds_count')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'acd_summary_refresh_duration_seconds_count')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'acd_upkeep_last_success_timestamp_seconds')).toBe(t.clock.now().getTime() / 1000);
    expect(text).toContain('# TYPE acd_upkeep_failures_total counter');
    expect(text).toContain('# TYPE acd_summary_refresh_failures_total counter');
  });

  it('gives the age of the newest dump by the app clock, NaN before the first', async () => {
    expect(sample(await scrape(), 'acd_dump_age_seconds')).toBeNaN();
    const dir = path.join(t.config.dataDir, 'exports');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'directory-2026-11-22.ndjson.gz');
    writeFileSync(file, '');
    const written = new Date(t.clock.now().getTime() - 3_600_000);
    utimesSync(file, written, written);
    expect(sample(await scrape(), 'acd_dump_age_seconds')).toBe(3_600);
  });
});
