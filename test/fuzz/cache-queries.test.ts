// Hostile query strings against every route whose answers the response cache shares: more pairs
// than the app reads (around MAX_QUERY_PAIRS, and past the 1,000 Express's default parser read),
// runs of empty pairs, very long names and values (up to and past Node's 16 KB request line),
// the real filters hidden behind them. For every one: never a 5xx; a query over the cap is
// refused whole, in the audience's format; and a clean request sent after it gets exactly what
// it gets from nothing cached (and the other way round).
//
// Bounded for CI (FC_RUNS per route, default 8); replay a failure with the seed and path
// fast-check prints: FC_SEED=<seed> FC_PATH=<path> npx vitest run test/fuzz/cache-queries.test.ts
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerClientErrors } from '../../src/web/client-errors.js';
import { MAX_QUERY_PAIRS } from '../../src/web/middleware/validate.js';
import { TASKS } from '../../src/modules/aggregation/constants.js';
import { createDemoApp } from '../setup/demo.js';
import { TEST_BASE_URL, type TestApp } from '../setup/app.js';

const RUNS = Number(process.env.FC_RUNS ?? 8);
const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;
const PATH = process.env.FC_PATH;
const LEAKS = /at [^\n]*\.(ts|js|mjs):\d+|SQLSTATE|Prisma|prisma\.|node_modules|DriverAdapter/;
/** Every request carries this id, so that problem bodies (their `instance`) compare equal. */
const REQUEST_ID = 'cache-queries-fuzz';

interface Route {
  /** `:x` segments are replaced by a real slug or id. */
  path: string;
  /** Real parameters of the route, with values it accepts (`:x` again for a real one). */
  params: Record<string, string[]>;
  /** The audience, whose format a refusal has: the API's problem+json or the site's HTML page. */
  audience: 'api' | 'site';
}

const FILTERS = {
  q: [':word', 'zzzznomatch'],
  agent: [':agent'],
  category: [':category'],
  outcome: ['BLOCKED', 'WORKS'],
  stage: ['CART'],
  region: ['GB'],
  days: ['30'],
  minReports: ['2'],
  sort: ['name', 'popular'],
  page: ['1', '2'],
};

/** Every route whose answers the response cache shares (public API, open data, anonymous pages). */
const ROUTES: Route[] = [
  { path: '/api/v1', params: {}, audience: 'api' },
  { path: '/api/v1/contribution-schema', params: {}, audience: 'api' },
  { path: '/api/v1/categories', params: { page: ['1', '2'] }, audience: 'api' },
  { path: '/api/v1/agents', params: { page: ['1'] }, audience: 'api' },
  { path: '/api/v1/merchants', params: { ...FILTERS, view: ['compact'] }, audience: 'api' },
  { path: '/api/v1/merchants/:merchant', params: {}, audience: 'api' },
  { path: '/api/v1/agents/:agent/merchants', params: { outcome: FILTERS.outcome, sort: ['rating'], view: ['compact'] }, audience: 'api' },
  { path: '/api/v1/reports', params: { merchant: [':merchantId'], agent: [':agent'], outcome: ['BLOCKED'], page: ['1'] }, audience: 'api' },
  { path: '/api/v1/reports/:report', params: {}, audience: 'api' },
  { path: '/', params: FILTERS, audience: 'site' },
  { path: '/categories/:category', params: { q: FILTERS.q, outcome: FILTERS.outcome }, audience: 'site' },
  { path: '/agents/:agent', params: { q: FILTERS.q, sort: ['rating'] }, audience: 'site' },
  { path: '/merchants/:merchant', params: { reports: ['1', '2'] }, audience: 'site' },
  { path: '/how-it-works', params: {}, audience: 'site' },
  { path: '/agent-guide', params: {}, audience: 'site' },
  { path: '/problems', params: {}, audience: 'site' },
  { path: '/problems/query-too-long', params: {}, audience: 'site' },
  { path: '/favicon.svg', params: {}, audience: 'site' },
  { path: '/llms.txt', params: {}, audience: 'site' },
  { path: '/robots.txt', params: {}, audience: 'site' },
  { path: '/sitemap.xml', params: {}, audience: 'site' },
  { path: '/feed.atom', params: {}, audience: 'site' },
  { path: '/merchants/:merchant/feed.atom', params: {}, audience: 'site' },
  { path: '/agents/:agent/feed.atom', params: {}, audience: 'site' },
  { path: '/categories/:category/feed.atom', params: {}, audience: 'site' },
  { path: '/badges/:merchant/:agent.svg', params: { task: [...TASKS] }, audience: 'site' },
];

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

describe('over-long query strings against every cached public route', { timeout: 600_000 }, () => {
  let t: TestApp;
  let server: http.Server;
  const real: Record<string, string> = {};
  const resolve = (text: string) => text.replace(/:(\w+)/g, (_, name: string) => real[name] ?? 'x');

  const send = (path: string) =>
    new Promise<Answer>((done, reject) => {
      const req = http.request(
        { host: '127.0.0.1', port: (server.address() as AddressInfo).port, method: 'GET', path, headers: { 'x-request-id': REQUEST_ID }, agent: false },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => done({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
        },
      );
      req.on('error', reject);
      req.end();
    });

  const bump = async () => {
    await t.db.pool.query('UPDATE categories SET updated_at = updated_at WHERE false');
    await t.versions.settle();
  };

  beforeAll(async () => {
    t = await createDemoApp();
    server = http.createServer(t.app);
    answerClientErrors(server, TEST_BASE_URL);
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const one = async (sql: string) => (await t.db.pool.query<{ v: string }>(sql)).rows[0]!.v;
    real.agent = await one('SELECT slug AS v FROM agents WHERE active ORDER BY slug LIMIT 1');
    real.merchant = await one('SELECT slug AS v FROM merchants WHERE is_public ORDER BY slug LIMIT 1');
    real.merchantId = await one('SELECT id::text AS v FROM merchants WHERE is_public ORDER BY slug LIMIT 1');
    real.category = await one('SELECT slug AS v FROM categories ORDER BY slug LIMIT 1');
    real.report = await one(`SELECT id::text AS v FROM reports WHERE status = 'APPROVED' ORDER BY id LIMIT 1`);
    real.word = (await one('SELECT name AS v FROM merchants WHERE is_public ORDER BY slug LIMIT 1')).split(' ')[0]!.toLowerCase();
  });
  afterAll(async () => {
    server?.close();
    await t?.close();
  });

  /** Pairs that hide the real ones: ignored tracking parameters, empty pairs, unknown names. */
  const filler = fc.constantFrom('utm_x=1', 'utm_source=news', '_=1', 'fbclid=abc', '', 'x=1', 'utm_campaign=');
  const longText = fc.integer({ min: 1_000, max: 17_000 }).chain((n) => fc.constantFrom('a', '%41', '%C3%A9', '&', '%26', '+').map((unit) => unit.repeat(Math.ceil(n / unit.length))));
  const hostility = fc.oneof(
    // Pairs around the cap and past the 1,000 Express's default parser reads.
    fc.record({ kind: fc.constant('many' as const), count: fc.oneof(fc.integer({ min: MAX_QUERY_PAIRS - 3, max: MAX_QUERY_PAIRS + 3 }), fc.integer({ min: 990, max: 2_000 })), filler, where: fc.constantFrom('before', 'after', 'around') }),
    // One very long value or name (tracking, unknown or a real filter's).
    fc.record({ kind: fc.constant('long' as const), text: longText, as: fc.constantFrom('utm_source', 'x', 'q', 'name') }),
  );

  for (const route of ROUTES) {
    it(`never answers GET ${route.path} with a 5xx or for part of its query, nor changes a later clean answer`, async () => {
      const path = resolve(route.path);
      const refusal = route.audience === 'api' ? /^application\/problem\+json/ : /^text\/html/;
      const names = Object.keys(route.params);
      const clean = fc
        .subarray(names, { maxLength: Math.min(3, names.length) })
        .chain((chosen) => fc.tuple(...chosen.map((name) => fc.constantFrom(...route.params[name]!).map((value) => [name, resolve(value)] as [string, string]))))
        .map((pairs) => pairs.sort(([a], [b]) => (a < b ? -1 : 1)));
      await fc.assert(
        fc.asyncProperty(clean, hostility, async (pairs, how) => {
          const real = pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`);
          const cleanUrl = `${path}${real.length ? `?${real.join('&')}` : ''}`;
          let parts: string[];
          let pairCount: number;
          if (how.kind === 'many') {
            const pad = Array.from({ length: how.count }, () => how.filler);
            parts = how.where === 'before' ? [...pad, ...real] : how.where === 'after' ? [...real, ...pad] : [...pad.slice(0, how.count >> 1), ...real, ...pad.slice(how.count >> 1)];
            pairCount = parts.length;
          } else {
            parts = [...real, how.as === 'name' ? `${how.text}=1` : `${how.as}=${how.text}`];
            pairCount = parts.join('&').split('&').length;
          }
          const hostileUrl = `${path}?${parts.join('&')}`;
          const where = `GET ${hostileUrl.slice(0, 160)}… (${hostileUrl.length} characters, ${pairCount} pairs) then GET ${cleanUrl}`;

          // The hostile request first, then the clean one.
          await bump();
          const hostile = await send(hostileUrl);
          expect(hostile.status, where).toBeLessThan(500);
          expect(hostile.text, where).not.toMatch(LEAKS);
          if (hostile.status === 431) {
            // Node's parser refused the request line before any route: problem+json.
            expect(hostile.headers['content-type'], where).toMatch(/^application\/problem\+json/);
          } else if (pairCount > MAX_QUERY_PAIRS) {
            // Refused whole, never answered for part of the query.
            expect(hostile.status, where).toBe(400);
            expect(hostile.headers['content-type'], where).toMatch(refusal);
            expect(hostile.text, where).toMatch(/query-too-long|Too many query parameters/);
          }
          const after = await send(cleanUrl);

          // The truth: the clean request answered from nothing cached; then the hostile one again.
          await bump();
          const truth = await send(cleanUrl);
          expect(truth.headers['x-cache'], where).not.toBe('HIT');
          const hostileAgain = await send(hostileUrl);
          for (const [got, expected, which] of [
            [after, truth, 'the clean answer after the hostile request'],
            [hostileAgain, hostile, 'the hostile answer after the clean request'],
          ] as const) {
            expect(got.status, `${where}: ${which}`).toBe(expected.status);
            expect(got.headers['content-type'], `${where}: ${which}`).toBe(expected.headers['content-type']);
            expect(got.headers.link, `${where}: ${which}`).toBe(expected.headers.link);
            expect(got.text, `${where}: ${which}`).toBe(expected.text);
          }
        }),
        { numRuns: RUNS, seed: SEED, path: PATH, endOnFailure: true },
      );
    });
  }
});
