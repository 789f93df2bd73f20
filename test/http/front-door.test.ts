// The response cache's front door (issue 38): a cached read is answered before the router, with
// precomputed headers handed to writeHead whole. It must answer exactly what the router's way
// answered (every header but the request's own), log its line, and count its metrics.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import type { AppMetrics } from '../../src/web/middleware/metrics.js';
import { createDemoApp } from '../setup/demo.js';
import type { TestApp } from '../setup/app.js';

type Line = { level: number; msg: string; req: { id: string; method: string; url: string }; res: { statusCode: number }; responseTime: number };

/** Headers that belong to one request (or one moment): every other one must be the same. */
const OWN = new Set(['x-request-id', 'ratelimit', 'ratelimit-policy', 'x-cache', 'date', 'connection', 'keep-alive']);
const fixed = (headers: Record<string, unknown>) => Object.fromEntries(Object.entries(headers).filter(([name]) => !OWN.has(name)));

describe('the front door', () => {
  let t: TestApp;
  const lines: Line[] = [];
  beforeAll(async () => {
    const logger = createLogger('info', { write: (line: string) => void lines.push(JSON.parse(line) as Line) });
    t = await createDemoApp({ logger });
  });
  afterAll(() => t.close());

  const scrape = async () => (t.app.locals.metrics as AppMetrics).registry.metrics();
  const sample = (text: string, series: string) => Number(text.split('\n').find((l) => l.startsWith(`${series} `))?.split(' ')[1] ?? 0);

  for (const [name, path] of [
    ['a list', '/api/v1/merchants?sort=popular&view=compact'],
    ['the API index', '/api/v1/'],
    ['a page', '/'],
  ] as const) {
    it(`answers ${name} from the cache with every header the router's way gave it, and the request's own`, async () => {
      const first = await request(t.app).get(path).set('Accept-Encoding', 'gzip').expect(200);
      expect(first.headers['x-cache']).toBe('MISS');
      const hit = await request(t.app).get(path).set('Accept-Encoding', 'gzip').set('X-Request-Id', 'front-door-1').expect(200);
      expect(hit.headers['x-cache']).toBe('HIT');
      expect(fixed(hit.headers)).toEqual(fixed(first.headers));
      expect(hit.text).toBe(first.text);
      expect(hit.headers['x-request-id']).toBe('front-door-1');
      expect(hit.headers.ratelimit).toMatch(/^"(public|pages)"; r=\d+; t=\d+$/);
      expect(hit.headers['ratelimit-policy']).toBe(first.headers['ratelimit-policy']);
      const head = await request(t.app).head(path).set('Accept-Encoding', 'gzip').expect(200);
      expect(head.headers['x-cache']).toBe('HIT');
      expect(head.headers['content-length']).toBe(hit.headers['content-length']);
    });
  }

  it('logs one line per answer and counts one duration under its route, for a 200 and a 304', async () => {
    const path = '/api/v1/merchants?sort=name&page=1';
    const { headers } = await request(t.app).get(path).expect(200);
    const before = await scrape();
    const series = (statusClass: string) => `http_request_duration_seconds_count{method="GET",route="/api/v1/merchants",status_class="${statusClass}"}`;
    lines.length = 0;
    const ok = await request(t.app).get(path).expect(200);
    const notModified = await request(t.app).get(path).set('If-None-Match', headers.etag!).expect(304);
    expect([ok.headers['x-cache'], notModified.headers['x-cache']]).toEqual(['HIT', 'HIT']);
    const after = await scrape();
    expect(sample(after, series('2xx')) - sample(before, series('2xx'))).toBe(1);
    expect(sample(after, series('3xx')) - sample(before, series('3xx'))).toBe(1);
    const hits = 'acd_response_cache_requests_total{result="hit"}';
    expect(sample(after, hits) - sample(before, hits)).toBe(2);
    expect(lines.map((l) => [l.msg, l.level, l.req.method, l.req.url, l.res.statusCode, l.req.id])).toEqual([
      ['request completed', 30, 'GET', path, 200, ok.headers['x-request-id']],
      ['request completed', 30, 'GET', path, 304, notModified.headers['x-request-id']],
    ]);
  });

  it('never logs a key sent in the query of a cached read', async () => {
    const path = '/api/v1/categories?page=1';
    await request(t.app).get(path).expect(200);
    lines.length = 0;
    // An unknown parameter is refused (400) before anything is cached: the router answers it.
    const res = await request(t.app).get(`${path}&utm_source=acd_live_secretsecret`).expect(200);
    expect(res.headers['x-cache']).toBe('HIT');
    expect(JSON.stringify(lines)).not.toContain('secretsecret');
  });
});
