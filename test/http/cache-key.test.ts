// The response cache files an answer under exactly the query its handler read (issue 23,
// finding 1). A query string longer than the parser reads is refused before the cache, and
// nothing else a request can vary (repeated or encoded parameters, their order and case,
// tracking parameters, a fragment, HEAD or GET, Accept) makes a later clean request get an
// answer built for other input than its own.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_QUERY_PAIRS } from '../../src/web/middleware/validate.js';
import { OUTCOMES, STAGES, TASKS } from '../../src/modules/aggregation/constants.js';
import { PROBLEM_TYPES } from '../../src/problem-types.js';
import { createDemoApp } from '../setup/demo.js';
import type { TestApp } from '../setup/app.js';

const RUNS = Number(process.env.FC_RUNS ?? 40);
const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;
const PATH = process.env.FC_PATH;

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** The body as sent before any content coding. */
function decoded(body: Buffer, encoding: string | undefined): string {
  // (A HEAD answer names the coding of a body it does not carry.)
  if (body.length === 0) return '';
  if (encoding === 'gzip') return gunzipSync(body).toString('utf8');
  if (encoding === 'br') return brotliDecompressSync(body).toString('utf8');
  return body.toString('utf8');
}

describe('the response cache key', () => {
  let t: TestApp;
  let server: http.Server;
  beforeAll(async () => {
    t = await createDemoApp();
    server = http.createServer(t.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    server?.close();
    await t?.close();
  });

  /** A request sent as written: no client normalises its target (a fragment, `??`, odd escapes travel as they are). */
  const send = (path: string, options: { method?: string; headers?: Record<string, string> } = {}) =>
    new Promise<Answer>((resolve, reject) => {
      const req = http.request(
        { host: '127.0.0.1', port: (server.address() as AddressInfo).port, method: options.method ?? 'GET', path, headers: options.headers ?? {}, agent: false },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: decoded(Buffer.concat(chunks), res.headers['content-encoding']) }));
        },
      );
      req.on('error', reject);
      req.end();
    });

  /** Makes every cached answer stale (a new directory version), as a directory change does. */
  const bump = async () => {
    await t.db.pool.query('UPDATE categories SET updated_at = updated_at WHERE false');
    await t.versions.settle();
  };

  /** The answer the handler builds for `path` now, from nothing cached. */
  const uncached = async (path: string): Promise<Answer> => {
    await bump();
    const res = await send(path);
    expect(res.headers['x-cache'], path).toBe('MISS');
    return res;
  };

  const padding = (pairs: number) => Array.from({ length: pairs }, () => 'utm_x=1').join('&');

  describe('a query string longer than the parser reads (1,000 tracking pairs before the filters)', () => {
    const attack = async (clean: string) => {
      await bump();
      const [path, query] = clean.split('?') as [string, string];
      const hostile = await send(`${path}?${padding(1000)}&${query}`);
      const after = await send(clean);
      const truth = await uncached(clean);
      return { hostile, after, truth };
    };

    it('is refused with a problem naming it, and cannot change what /api/v1/reports answers', async () => {
      const { rows } = await t.db.pool.query<{ id: string; n: number }>(
        `SELECT r.merchant_id::text AS id, count(*)::int AS n FROM reports r JOIN merchants m ON m.id = r.merchant_id
         WHERE r.status = 'APPROVED' AND m.is_public GROUP BY r.merchant_id HAVING count(*) BETWEEN 2 AND 10 ORDER BY n, id LIMIT 1`,
      );
      const merchant = rows[0]!;
      const { hostile, after, truth } = await attack(`/api/v1/reports?merchant=${merchant.id}&page=1`);
      expect(after.status).toBe(200);
      expect(JSON.parse(after.text).total).toBe(merchant.n);
      expect(after.text).toBe(truth.text);
      expect(after.headers.link).toBe(truth.headers.link);
      expect(hostile.status).toBe(400);
      expect(hostile.headers['content-type']).toMatch(/^application\/problem\+json/);
      const problem = JSON.parse(hostile.text) as { type: string; detail: string };
      expect(problem.type).toMatch(/\/problems\/query-too-long$/);
      expect(problem.detail).toContain(String(MAX_QUERY_PAIRS));
    });

    it('cannot change what /api/v1/merchants answers for an agent and an outcome', async () => {
      const { rows } = await t.db.pool.query<{ slug: string }>(
        `SELECT a.slug FROM reports r JOIN agents a ON a.id = r.agent_id
         WHERE r.status = 'APPROVED' AND r.outcome = 'BLOCKED' AND a.active GROUP BY a.slug ORDER BY count(*) DESC, a.slug LIMIT 1`,
      );
      const clean = `/api/v1/merchants?agent=${rows[0]!.slug}&outcome=BLOCKED`;
      const { hostile, after, truth } = await attack(clean);
      expect(after.status).toBe(200);
      expect(after.text).toBe(truth.text);
      const unfiltered = JSON.parse((await send('/api/v1/merchants')).text) as { total: number };
      expect(JSON.parse(after.text).total).toBeLessThan(unfiltered.total);
      expect(hostile.status).toBe(400);
      expect(hostile.headers['content-type']).toMatch(/^application\/problem\+json/);
    });

    it('is refused with the 400 page on the site, and cannot change what the directory page shows', async () => {
      const { hostile, after, truth } = await attack('/?q=zzzznomatch');
      expect(after.status).toBe(200);
      expect(after.text).toBe(truth.text);
      expect(after.text).toContain('0 shops found');
      expect(hostile.status).toBe(400);
      expect(hostile.headers['content-type']).toMatch(/^text\/html/);
      expect(hostile.headers['content-security-policy']).toContain("script-src 'self'");
      expect(hostile.text).toContain(String(MAX_QUERY_PAIRS));
    });

    it('still serves a request at the limit, whole', async () => {
      const { rows } = await t.db.pool.query<{ id: string }>(`SELECT id::text FROM merchants WHERE is_public ORDER BY name LIMIT 1`);
      const clean = `/api/v1/reports?merchant=${rows[0]!.id}`;
      const truth = await uncached(clean);
      const atLimit = await send(`/api/v1/reports?${padding(MAX_QUERY_PAIRS - 1)}&merchant=${rows[0]!.id}`);
      expect(atLimit.status).toBe(200);
      expect(atLimit.text).toBe(truth.text);
      // Empty pairs count as the parser counts them.
      expect((await send(`/api/v1/reports?${'&'.repeat(MAX_QUERY_PAIRS)}merchant=${rows[0]!.id}`)).status).toBe(400);
    });
  });

  it('names the cap where the problem type is described', () => {
    expect(PROBLEM_TYPES['query-too-long'].meaning).toContain(`more than ${MAX_QUERY_PAIRS} parameters`);
  });

  describe('for any request the public routes accept', () => {
    const real: Record<string, string[]> = {};
    beforeAll(async () => {
      const q = async (sql: string) => (await t.db.pool.query<{ v: string }>(sql)).rows.map((r) => r.v);
      real.agent = await q('SELECT slug AS v FROM agents WHERE active ORDER BY slug LIMIT 3');
      real.merchant = await q('SELECT slug AS v FROM merchants WHERE is_public ORDER BY slug LIMIT 3');
      real.merchantId = await q('SELECT id::text AS v FROM merchants WHERE is_public ORDER BY slug LIMIT 3');
      real.category = await q('SELECT slug AS v FROM categories ORDER BY slug LIMIT 3');
      real.report = await q(`SELECT id::text AS v FROM reports WHERE status = 'APPROVED' ORDER BY id LIMIT 2`);
      real.word = (await q('SELECT name AS v FROM merchants WHERE is_public ORDER BY slug LIMIT 3')).map((name) => name.split(' ')[0]!.toLowerCase());
    });

    const pick = (name: string) => fc.constantFrom(...(real[name]!.length ? real[name]! : ['x']));
    const values: Record<string, () => fc.Arbitrary<string>> = {
      q: () => fc.oneof(pick('word'), fc.constantFrom('zzzznomatch', 'a b', 'shop & co', '50%', 'é', 'a=b', ' ')),
      category: () => fc.oneof(pick('category'), fc.constant('no-such-category')),
      agent: () => fc.oneof(pick('agent'), fc.constant('no-such-agent')),
      merchant: () => fc.oneof(pick('merchantId'), pick('merchantId').map((id) => id.toUpperCase())),
      outcome: () => fc.constantFrom(...OUTCOMES, 'blocked'),
      stage: () => fc.constantFrom(...STAGES),
      region: () => fc.constantFrom('de', 'GB', 'GLOBAL', 'global', 'xx1'),
      days: () => fc.constantFrom('7', '30', '3650', '0', '1.5'),
      minReports: () => fc.constantFrom('1', '2', '5'),
      sort: () => fc.constantFrom('recent', 'popular', 'name', 'rating', 'RATING'),
      page: () => fc.constantFrom('1', '2', '3', '01', ''),
      view: () => fc.constantFrom('compact', 'standard', 'COMPACT'),
      reports: () => fc.constantFrom('1', '2', '0'),
      task: () => fc.constantFrom(...TASKS, 'cart'),
    };
    const MERCHANT_PARAMS = ['q', 'category', 'agent', 'outcome', 'region', 'stage', 'days', 'minReports', 'sort', 'page', 'view'];
    const ROUTES: Array<{ path: string; params: string[] }> = [
      { path: '/api/v1/merchants', params: MERCHANT_PARAMS },
      { path: '/api/v1/agents/:agent/merchants', params: MERCHANT_PARAMS.filter((p) => p !== 'agent') },
      { path: '/api/v1/reports', params: ['agent', 'merchant', 'outcome', 'page'] },
      { path: '/api/v1/categories', params: ['page'] },
      { path: '/api/v1/agents', params: ['page'] },
      { path: '/api/v1/merchants/:merchant', params: [] },
      { path: '/api/v1/reports/:report', params: [] },
      { path: '/', params: MERCHANT_PARAMS },
      { path: '/agents/:agent', params: MERCHANT_PARAMS },
      { path: '/categories/:category', params: MERCHANT_PARAMS },
      { path: '/merchants/:merchant', params: ['reports'] },
      { path: '/badges/:merchant/:agent.svg', params: ['task'] },
      { path: '/categories/:category/feed.atom', params: [] },
    ];
    const IGNORED = ['utm_source', 'utm_x', '_', 'fbclid', 'gclid', 'ref', '_ga', 'mc_cid'];

    /** Every byte percent-encoded, in either case of hex digit. */
    const percentAll = (text: string, lower: boolean) =>
      [...Buffer.from(text, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).map((e) => (lower ? e : e.toUpperCase())).join('');
    const encodings = fc.constantFrom('plain', 'all', 'all-lower', 'plus');
    const encode = (text: string, how: string) =>
      how === 'all' ? percentAll(text, false) : how === 'all-lower' ? percentAll(text, true) : how === 'plus' ? encodeURIComponent(text).replace(/%20/g, '+') : encodeURIComponent(text);
    const flipCase = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

    const requestArb = fc
      .constantFrom(...ROUTES)
      .chain((route) =>
        fc.record({
          route: fc.constant(route),
          path: fc.tuple(...[...route.path.matchAll(/:(\w+)/g)].map((m) => pick(m[1] === 'merchant' && route.path.startsWith('/api/v1/reports') ? 'merchantId' : m[1]!))).map((ids) => {
            let i = 0;
            return route.path.replace(/:(\w+)/g, () => ids[i++]!);
          }),
          // The query the clean request sends: some of the route's parameters, sometimes one twice or an unknown one.
          pairs: fc.array(
            fc.oneof(
              { weight: 8, arbitrary: fc.constantFrom(...(route.params.length ? route.params : ['page'])).chain((name) => (values[name] ?? values.page!)().map((v) => [name, v] as [string, string])) },
              { weight: 1, arbitrary: fc.tuple(fc.constantFrom('x', 'Page', 'VIEW', 'task', 'reports'), fc.constantFrom('1', 'compact')) },
            ),
            { maxLength: 4 },
          ),
          // How the hostile request differs, without (mostly) changing what it asks.
          order: fc.array(fc.nat(), { minLength: 8, maxLength: 8 }),
          nameEncoding: encodings,
          valueEncoding: encodings,
          flipName: fc.nat({ max: 4 }).map((n) => n === 0),
          tracking: fc.oneof(
            { weight: 6, arbitrary: fc.array(fc.tuple(fc.constantFrom(...IGNORED), fc.constantFrom('1', 'x', 'a%26merchant%3Dx', '', 'acd')), { maxLength: 4 }) },
            { weight: 1, arbitrary: fc.integer({ min: MAX_QUERY_PAIRS - 6, max: MAX_QUERY_PAIRS + 6 }).map((n) => Array.from({ length: n }, (_, i) => [`utm_${i}`, '1'] as [string, string])) },
          ),
          // The filters where a parser that reads less than the whole text would not see them.
          lead: fc.constantFrom('', '', '', '', '', 'fragment', 'padding'),
          empties: fc.nat({ max: 2 }),
          prefix: fc.constantFrom('?', '?', '?', '??'),
          fragment: fc.constantFrom('', '', '', '#', '#top', '#&q=zzzznomatch', '#&page=2'),
          pathCase: fc.constantFrom('as-is', 'as-is', 'as-is', 'upper', 'trailing-slash'),
          method: fc.constantFrom('GET', 'GET', 'HEAD'),
          accept: fc.constantFrom(undefined, 'application/json', 'text/html', '*/*', 'application/problem+json', 'image/svg+xml', 'application/atom+xml'),
          acceptEncoding: fc.constantFrom(undefined, 'gzip', 'br', 'identity'),
        }),
      )
      .map((r) => {
        const canonical = [...r.pairs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
        const clean = `${r.path}${canonical.length ? `?${canonical.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}` : ''}`;
        const pieces = [...r.pairs.map(([k, v]) => `${encode(r.flipName ? flipCase(k) : k, r.nameEncoding)}=${encode(v, r.valueEncoding)}`), ...(r.tracking as Array<[string, string]>).map(([k, v]) => `${k}=${v}`), ...Array.from({ length: r.empties }, () => '')];
        const shuffled = pieces.map((piece, i) => ({ piece, rank: r.order[i % r.order.length]! + i / 1000 })).sort((a, b) => a.rank - b.rank).map((x) => x.piece);
        const path = r.pathCase === 'upper' ? r.path.toUpperCase() : r.pathCase === 'trailing-slash' && r.path !== '/' ? `${r.path}/` : r.path;
        const lead = r.lead === 'fragment' ? ['utm_source=1#'] : r.lead === 'padding' ? Array.from({ length: 1000 }, () => 'utm_x=1') : [];
        const query = [...lead, ...shuffled];
        const hostile = `${path}${query.length ? `${r.prefix}${query.join('&')}` : ''}${r.fragment}`;
        const headers: Record<string, string> = { 'x-request-id': 'cache-key-property' };
        if (r.accept) headers.accept = r.accept;
        if (r.acceptEncoding) headers['accept-encoding'] = r.acceptEncoding;
        return { clean, hostile, method: r.method, headers };
      });

    /** The same answer: status, type, links, validator and (for a GET) the body. */
    const expectSame = (got: Answer, truth: Answer, where: string) => {
      expect(got.status, where).toBe(truth.status);
      expect(got.headers['content-type'], where).toBe(truth.headers['content-type']);
      expect(got.headers.link, where).toBe(truth.headers.link);
      expect(got.headers.location, where).toBe(truth.headers.location);
      if (got.status === 200) expect(got.headers.etag, where).toBe(truth.headers.etag);
      expect(got.text, where).toBe(truth.text);
    };

    it('the cached answer is the uncached answer, whichever of two requests came first', { timeout: 600_000 }, async () => {
      const clean = { headers: { 'x-request-id': 'cache-key-property' } };
      await fc.assert(
        fc.asyncProperty(requestArb, async (r) => {
          const where = `${r.method} ${r.hostile.slice(0, 300)} (Accept: ${r.headers.accept ?? '-'}) then GET ${r.clean}`;
          // The hostile request first (built from nothing), then the clean one, maybe from its entry.
          await bump();
          const hostileTruth = await send(r.hostile, r);
          expect(hostileTruth.status, where).toBeLessThan(500);
          const cleanAfter = await send(r.clean, clean);
          // The other way round: the clean request from nothing, then the hostile one.
          await bump();
          const cleanTruth = await send(r.clean, clean);
          expect(cleanTruth.headers['x-cache'], where).not.toBe('HIT');
          const hostileAfter = await send(r.hostile, r);
          expectSame(cleanAfter, cleanTruth, `${where}: the clean answer`);
          expectSame(hostileAfter, hostileTruth, `${where}: the hostile answer`);
        }),
        { numRuns: RUNS, seed: SEED, path: PATH, endOnFailure: true },
      );
    });
  });

  it('keys a request by the query its handler read, not by the raw text after `?`', async () => {
    // A fragment travels to the server but the parser stops at it; `??` makes a parameter named "?q".
    for (const [hostile, clean] of [
      ['/?utm_source=x#&q=zzzznomatch', '/?q=zzzznomatch'],
      ['/??q=zzzznomatch', '/?q=zzzznomatch'],
      ['/api/v1/merchants?_=1#&sort=name', '/api/v1/merchants?sort=name'],
    ] as const) {
      await bump();
      const first = await send(hostile);
      expect(first.status, hostile).toBeLessThan(500);
      const after = await send(clean);
      const truth = await uncached(clean);
      expect(after.status, hostile).toBe(truth.status);
      expect(after.text, hostile).toBe(truth.text);
    }
  });
});
