// Generated hostile requests against every endpoint (fast-check): NUL and control characters,
// lone surrogates, huge and negative numbers, extreme dates, wrong types, arrays for scalars,
// duplicate parameters, bad percent-encoding, bad encodings and content types. For every one:
// never a 5xx; the API answers problem+json, the pages HTML; no stack trace, SQL or driver text;
// and a refused write leaves reports, revisions and quota counters as they were.
//
// Bounded for CI (FC_RUNS per endpoint, default 40); replay a failure with the seed and path
// fast-check prints: FC_SEED=<seed> FC_PATH=<path> npx vitest run test/fuzz
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerClientErrors } from '../../src/web/client-errors.js';
import { createDemoApp } from '../setup/demo.js';
import { TEST_BASE_URL, type TestApp } from '../setup/app.js';
import { accountWithKey } from '../setup/actors.js';
import { captureMailer, csrfTokenOf } from '../setup/session.js';

const RUNS = Number(process.env.FC_RUNS ?? 40);
const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;
const PATH = process.env.FC_PATH;
const LEAKS = /at [^\n]*\.(ts|js|mjs):\d+|SQLSTATE|Prisma|prisma\.|syntax error at|node_modules|ECONNREFUSED|DriverAdapter|invalid byte sequence|violates/;

type Audience = 'api' | 'page';
type As = 'anonymous' | 'bearer' | 'person' | 'moderator';
interface Endpoint {
  method: 'GET' | 'POST' | 'PUT';
  /** `:x` segments are replaced by generated values (sometimes a real id or slug). */
  path: string;
  as: As;
  body?: 'json' | 'form' | 'multipart';
  /** Query parameters worth naming (random others are generated too). */
  params?: string[];
  /** The media type of refusals, when not only the audience's (badges refuse with a grey badge; a malformed path still gets the HTML page). */
  errors?: RegExp;
}

const MERCHANT_PARAMS = ['q', 'category', 'agent', 'outcome', 'region', 'stage', 'days', 'minReports', 'sort', 'page', 'view'];
const ENDPOINTS: Endpoint[] = [
  { method: 'GET', path: '/api/v1/merchants', as: 'anonymous', params: MERCHANT_PARAMS },
  { method: 'GET', path: '/api/v1/merchants/:merchant', as: 'anonymous' },
  { method: 'GET', path: '/api/v1/agents', as: 'anonymous', params: ['page'] },
  { method: 'GET', path: '/api/v1/agents/:agent/merchants', as: 'anonymous', params: MERCHANT_PARAMS },
  { method: 'GET', path: '/api/v1/categories', as: 'anonymous', params: ['page'] },
  { method: 'GET', path: '/api/v1/reports', as: 'anonymous', params: ['agent', 'merchant', 'outcome', 'page'] },
  { method: 'GET', path: '/api/v1/reports/:report', as: 'anonymous' },
  { method: 'GET', path: '/api/v1/contribution-schema', as: 'anonymous' },
  { method: 'GET', path: '/api/v1/openapi.json', as: 'anonymous' },
  { method: 'GET', path: '/api/v1', as: 'anonymous' },
  { method: 'GET', path: '/api/v1/automation/me', as: 'bearer' },
  { method: 'POST', path: '/api/v1/reports', as: 'bearer', body: 'json' },
  { method: 'POST', path: '/api/v1/reports', as: 'person', body: 'json' },
  { method: 'POST', path: '/api/v1/reports', as: 'anonymous', body: 'json' },
  { method: 'GET', path: '/api/v1/automation/queue', as: 'bearer', params: ['limit', 'after', 'category', 'retestAfterDays'] },
  { method: 'GET', path: '/api/v1/automation/reports', as: 'bearer', params: ['limit', 'after', 'merchant'] },
  { method: 'GET', path: '/api/v1/automation/reports/:own', as: 'bearer' },
  { method: 'PUT', path: '/api/v1/automation/reports/:own', as: 'bearer', body: 'json' },
  { method: 'GET', path: '/', as: 'anonymous', params: MERCHANT_PARAMS },
  { method: 'GET', path: '/merchants/:merchant', as: 'anonymous', params: ['reports'] },
  { method: 'GET', path: '/agents/:agent', as: 'anonymous', params: MERCHANT_PARAMS },
  { method: 'GET', path: '/categories/:category', as: 'anonymous', params: MERCHANT_PARAMS },
  { method: 'GET', path: '/how-it-works', as: 'anonymous' },
  { method: 'GET', path: '/agent-guide', as: 'anonymous' },
  { method: 'GET', path: '/sign-in', as: 'anonymous', params: ['next'] },
  { method: 'POST', path: '/sign-in', as: 'anonymous', body: 'form' },
  { method: 'GET', path: '/sign-in/verify', as: 'anonymous', params: ['token', 'next'] },
  { method: 'POST', path: '/sign-out', as: 'person', body: 'form' },
  { method: 'GET', path: '/profile/agents', as: 'person' },
  { method: 'POST', path: '/profile/agents/keys', as: 'person', body: 'form' },
  { method: 'POST', path: '/profile/agents/keys/:key/revoke', as: 'person', body: 'form' },
  { method: 'GET', path: '/reports/new', as: 'person', params: ['adId', 'agentId', 'q'] },
  { method: 'POST', path: '/reports/new', as: 'person', body: 'form' },
  { method: 'POST', path: '/reports/new', as: 'person', body: 'multipart' },
  { method: 'GET', path: '/reports/:own/review', as: 'person' },
  { method: 'GET', path: '/reports/:own/edit', as: 'person' },
  { method: 'POST', path: '/reports/:own/edit', as: 'person', body: 'form' },
  { method: 'GET', path: '/reports/:own/screenshots/:screenshot', as: 'person' },
  { method: 'GET', path: '/profile/reports', as: 'person', params: ['page'] },
  { method: 'GET', path: '/feed.atom', as: 'anonymous' },
  { method: 'GET', path: '/merchants/:merchant/feed.atom', as: 'anonymous' },
  { method: 'GET', path: '/agents/:agent/feed.atom', as: 'anonymous' },
  { method: 'GET', path: '/categories/:category/feed.atom', as: 'anonymous' },
  { method: 'GET', path: '/badges/:merchant/:agent.svg', as: 'anonymous', params: ['task'], errors: /^(image\/svg\+xml|text\/html)/ },
  { method: 'GET', path: '/data', as: 'anonymous' },
  { method: 'GET', path: '/data/:dump', as: 'anonymous' },
  { method: 'GET', path: '/llms.txt', as: 'anonymous' },
  { method: 'GET', path: '/robots.txt', as: 'anonymous' },
  { method: 'GET', path: '/sitemap.xml', as: 'anonymous' },
  { method: 'GET', path: '/metrics', as: 'anonymous', errors: /^application\/problem\+json/ },
  { method: 'GET', path: '/problems/:problem', as: 'anonymous' },
  { method: 'GET', path: '/admin', as: 'moderator' },
  { method: 'GET', path: '/admin/reports', as: 'moderator', params: ['status', 'agent', 'merchant', 'page', 'sort', 'author'] },
  { method: 'GET', path: '/admin/reports/:report', as: 'moderator' },
  { method: 'POST', path: '/admin/reports/:pending/approve', as: 'moderator', body: 'form' },
  { method: 'POST', path: '/admin/reports/:pending/reject', as: 'moderator', body: 'form' },
  { method: 'POST', path: '/admin/reports/:report/withdraw', as: 'moderator', body: 'form' },
  { method: 'POST', path: '/admin/reports/bulk-approve', as: 'moderator', body: 'form' },
  { method: 'GET', path: '/admin/merchants', as: 'moderator', params: ['q', 'visibility', 'page'] },
  { method: 'POST', path: '/admin/merchants', as: 'moderator', body: 'form' },
  { method: 'POST', path: '/admin/merchants/:merchantId', as: 'moderator', body: 'form' },
  { method: 'POST', path: '/admin/merchants/:merchantId/sponsorship', as: 'moderator', body: 'form' },
  { method: 'POST', path: '/admin/merchants/:merchantId/owner-statement', as: 'moderator', body: 'form' },
  { method: 'POST', path: '/admin/categories', as: 'moderator', body: 'form' },
  { method: 'POST', path: '/admin/agents', as: 'moderator', body: 'form' },
  { method: 'GET', path: '/admin/accounts', as: 'moderator', params: ['q', 'page'] },
  { method: 'POST', path: '/admin/accounts/:account/suspend', as: 'moderator', body: 'form' },
  { method: 'GET', path: '/admin/audit', as: 'moderator', params: ['page', 'action'] },
  { method: 'GET', path: '/admin/evidence/:screenshot', as: 'moderator' },
];

/** Characters PostgreSQL or UTF-8 choke on, inside otherwise ordinary text. */
const poisoned = fc
  .tuple(fc.string({ maxLength: 10 }), fc.constantFrom('\u0000', '\u0000', '\ud800', '\udfff', '\u0007', '\u007f'), fc.string({ maxLength: 10 }))
  .map(([a, poison, b]) => a + poison + b);

/** Text meant to hurt: control characters, broken Unicode, numbers at the edges, odd dates. */
const hostileText = fc.oneof(
  poisoned,
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom(
    '\u0000', 'a\u0000b', '\ud800', 'x\udfffy', '\u0007\u001b[31m', '\r\n', ' ', '', 'null', 'true', '[]', '{}',
    '-1', '0', '1.5', '1e309', '99999999999999999999', 'NaN', '-0', '0x10', '9'.repeat(400),
    '0000-01-01', '9999-12-31', '2026-02-30', '+275760-09-13', '1969-12-31T23:59:59Z',
    "' OR 1=1--", '%', '_', '\\', '../../etc/passwd', '<script>alert(1)</script>', 'acd_' + 'A'.repeat(43),
    'WORKS', 'CART', 'PURCHASE', 'rating', 'compact', 'GLOBAL', 'de',
  ),
  fc.string({ minLength: 1, maxLength: 5 }).map((s) => s.repeat(600)),
);

/** How a value travels in a URL: encoded properly, or with broken percent-escapes. */
const urlPiece = fc.oneof(
  { weight: 4, arbitrary: hostileText.map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, '\ufffd'))) },
  { weight: 1, arbitrary: fc.constantFrom('%', '%ZZ', '%FF', '%C0%80', '%E0%80', '%00', '%2e%2e', 'a%2Fb', '%u0041') },
);

const jsonValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileText,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(hostileText, { maxLength: 3 }),
  fc.dictionary(hostileText, hostileText, { maxKeys: 3 }),
);

const SUBMISSION_FIELDS = ['adId', 'agentId', 'privacy', 'capabilityResults', 'outcome', 'experience', 'testedAt', 'agentVersion', 'region', 'task', 'stage', 'failureReason', 'humanIntervention'];
const FORM_FIELDS = [
  ...SUBMISSION_FIELDS, 'email', 'next', 'feedback', 'note', 'reason', 'to', 'notes', 'reportIds', 'agentId', 'name', 'slug', 'website', 'category',
  'serviceRegions', 'isPublic', 'source', 'placement', 'disclosure', 'billingId', 'startsAt', 'endsAt', 'statement', 'declaredAt', 'evidence',
  'vendor', 'description', 'screenshots', 'cap_CART', 'cap_ACCESS',
];

describe('hostile requests against every endpoint', { timeout: 600_000 }, () => {
  let t: TestApp;
  let base: string;
  let server: http.Server;
  const cookies: Record<As, string> = { anonymous: '', bearer: '', person: '', moderator: '' };
  const csrf: Partial<Record<As, string>> = {};
  let key = '';
  const real: Record<string, string[]> = {};
  /** A valid report body for the key's agent (and the person), mutated field by field below. */
  let validReport: Record<string, unknown> = {};
  let ownVersion = '';
  const tally = new Map<string, { requests: number; status5xx: number }>();

  async function raw(method: string, path: string, headers: Record<string, string>, body?: Buffer) {
    return new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, method, path, headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  async function signInAs(email: string): Promise<{ cookie: string; token: string }> {
    const jar = new Map<string, string>();
    const keep = (set?: string[]) => {
      for (const c of set ?? []) {
        const pair = c.split(';')[0]!;
        jar.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
      }
    };
    const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const form = await raw('GET', '/sign-in', {});
    keep(form.headers['set-cookie']);
    await raw('POST', '/sign-in', { cookie: cookie(), origin: TEST_BASE_URL, 'content-type': 'application/x-www-form-urlencoded' }, Buffer.from(new URLSearchParams({ email, _csrf: csrfTokenOf(form.text) }).toString()));
    const link = new URL(mailer.lastLinkFor(email));
    keep((await raw('GET', `${link.pathname}${link.search}`, { cookie: cookie() })).headers['set-cookie']);
    const page = await raw('GET', '/profile/agents', { cookie: cookie() });
    return { cookie: cookie(), token: csrfTokenOf(page.text) };
  }

  const mailer = captureMailer();
  beforeAll(async () => {
    t = await createDemoApp({ mailer, env: { MODERATOR_EMAILS: 'fuzz.moderator@example.org' } });
    server = http.createServer(t.app);
    answerClientErrors(server, TEST_BASE_URL);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    void base;
    const agent = await t.db.prisma.agent.findFirstOrThrow({ where: { active: true }, orderBy: { slug: 'asc' } });
    ({ key } = await accountWithKey(t, 'fuzz.agent@example.org', agent.id));
    const merchants = await t.db.prisma.merchant.findMany({ where: { isPublic: true }, orderBy: { name: 'desc' }, take: 2 });
    validReport = { adId: merchants[0]!.id, agentId: agent.id, privacy: true, outcome: 'WORKS', stage: 'CART', experience: 'fine' };
    const own = await raw('POST', '/api/v1/reports', { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, Buffer.from(JSON.stringify({ ...validReport, adId: merchants[1]!.id })));
    const ownReport = JSON.parse(own.text) as { id: string; updatedAt: string };
    ownVersion = ownReport.updatedAt;
    cookies.bearer = '';
    for (const [as, email] of [['person', 'fuzz.person@example.org'], ['moderator', 'fuzz.moderator@example.org']] as const) {
      const signedIn = await signInAs(email);
      cookies[as] = signedIn.cookie;
      csrf[as] = signedIn.token;
    }
    const q = async (sql: string) => (await t.db.pool.query<{ v: string }>(sql)).rows.map((r) => r.v);
    real.merchant = await q('SELECT slug AS v FROM merchants WHERE is_public LIMIT 3');
    real.merchantId = await q('SELECT id::text AS v FROM merchants LIMIT 3');
    real.publicIds = await q('SELECT id::text AS v FROM merchants WHERE is_public ORDER BY id');
    real.agent = await q('SELECT slug AS v FROM agents WHERE active LIMIT 3');
    real.category = await q('SELECT slug AS v FROM categories LIMIT 3');
    real.report = await q(`SELECT id::text AS v FROM reports WHERE status = 'APPROVED' LIMIT 3`);
    real.pending = await q(`SELECT id::text AS v FROM reports WHERE status = 'PENDING' LIMIT 3`);
    real.account = await q('SELECT id::text AS v FROM accounts LIMIT 3');
    real.own = [ownReport.id];
    real.key = [];
    real.screenshot = [];
  });
  afterAll(async () => {
    server?.close();
    const lines = [...tally].map(([name, { requests, status5xx }]) => `${String(requests).padStart(4)} requests, ${status5xx} 5xx  ${name}`);
    console.log(`generated requests per endpoint (FC_RUNS=${RUNS}${SEED === undefined ? '' : `, FC_SEED=${SEED}`}):\n${lines.join('\n')}`);
    await t?.close();
  });

  const counts = async () =>
    (
      await t.db.pool.query(
        `SELECT (SELECT count(*)::int FROM reports) AS reports, (SELECT count(*)::int FROM report_revisions) AS revisions,
                (SELECT coalesce(sum(hits), 0)::int FROM rate_limit_counters WHERE key LIKE '%submissions%') AS quotas`,
      )
    ).rows[0] as Record<string, number>;

  for (const endpoint of ENDPOINTS) {
    const name = `${endpoint.method} ${endpoint.path} as ${endpoint.as}${endpoint.body ? ` (${endpoint.body})` : ''}`;
    const audience: Audience = endpoint.path.startsWith('/api/') ? 'api' : 'page';

    const pathArb = fc
      .tuple(...[...endpoint.path.matchAll(/:(\w+)/g)].map((m) => fc.oneof({ weight: 1, arbitrary: fc.constantFrom(...(real[m[1]!]?.length ? real[m[1]!]! : ['x'])) }, { weight: 3, arbitrary: urlPiece })))
      .map((values) => {
        let i = 0;
        return endpoint.path.replace(/:(\w+)/g, () => values[i++]!);
      });
    const queryArb = fc
      .array(fc.tuple(fc.oneof(fc.constantFrom(...(endpoint.params ?? ['page']), 'page', 'x'), urlPiece), urlPiece), { maxLength: 5 })
      .map((pairs) => (pairs.length ? `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}` : ''));
    // A valid report with one to three fields replaced: hostile values reach the deep checks.
    // (A different merchant each time, mostly: a second report of one merchant is a duplicate,
    // checked before anything is written.)
    const mutated = fc
      .tuple(
        fc.nat(),
        fc.array(
          fc.tuple(
            fc.constantFrom(...SUBMISSION_FIELDS, 'authorId', 'status'),
            fc.oneof({ weight: 3, arbitrary: poisoned }, { weight: 2, arbitrary: jsonValue }, { weight: 1, arbitrary: fc.constant(undefined) }),
          ),
          { minLength: 1, maxLength: 2 },
        ),
      )
      .map(([m, changes]) => () => JSON.stringify({ ...validReport, adId: real.publicIds![m % real.publicIds!.length], ...Object.fromEntries(changes) }));
    const jsonBody = fc.oneof(
      { weight: 6, arbitrary: mutated },
      { weight: 2, arbitrary: fc.dictionary(fc.constantFrom(...SUBMISSION_FIELDS, 'authorId', 'status'), jsonValue, { maxKeys: 8 }).map((o) => () => JSON.stringify(o)) },
      { weight: 1, arbitrary: fc.constantFrom('', '{', 'null', '[]', '"x"', '{"adId":', '\u0000', '{"a":"\\ud800"}', '{"experience":"\\u0000"}').map((s) => () => s) },
    );
    const formBody = fc
      .tuple(fc.boolean(), fc.array(fc.tuple(fc.constantFrom(...FORM_FIELDS), hostileText), { maxLength: 10 }))
      .map(([fromValid, pairs]) => () => {
        // Half the time a valid report form underneath, so that hostile fields get past the first check.
        const base = fromValid ? Object.entries({ ...validReport, adId: real.publicIds![pairs.length * 7 % real.publicIds!.length], privacy: 'true' }).map(([k, v]) => [k, String(v)] as [string, string]) : [];
        return [...base.filter(([k]) => !pairs.some(([p]) => p === k)), ...pairs].map(
          ([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v.replace(/[\ud800-\udfff]/g, '\ufffd'))}`,
        );
      });
    const request = fc.record({
      path: pathArb,
      query: queryArb,
      json: jsonBody,
      form: formBody,
      withCsrf: fc.boolean(),
      origin: fc.constantFrom(TEST_BASE_URL, TEST_BASE_URL, 'https://evil.example', 'null', ''),
      contentType: fc.constantFrom('default', 'default', 'default', 'text/plain', 'application/json; charset=latin1', 'multipart/form-data', 'application/x-www-form-urlencoded', 'garbage/x;;'),
      encoding: fc.constantFrom('none', 'none', 'none', 'gzip', 'gzip-corrupt', 'br', 'deflate', 'x-unknown'),
      ifMatch: fc.oneof(fc.constant(undefined), hostileText.map((s) => s.replace(/[^\x20-\x7e]/g, '')), fc.constant('current'), fc.constant('"2026-11-22T12:00:00.000Z"')),
      authorization: fc.constantFrom('default', 'default', 'default', 'none', 'Bearer', 'Bearer acd_x', 'Basic Zm9vOmJhcg==', `Bearer acd_${'A'.repeat(43)}`),
    });

    it(`never answers ${name} with a 5xx, a leak or a half write`, async () => {
      const stats = { requests: 0, status5xx: 0 };
      tally.set(name, stats);
      await fc.assert(
        fc.asyncProperty(request, async (r) => {
          const headers: Record<string, string> = {};
          if (endpoint.as === 'person' || endpoint.as === 'moderator') headers.cookie = cookies[endpoint.as];
          const auth = r.authorization === 'default' ? (endpoint.as === 'bearer' ? `Bearer ${key}` : undefined) : r.authorization === 'none' ? undefined : r.authorization;
          if (auth) headers.authorization = auth;
          if (r.ifMatch !== undefined) headers['if-match'] = r.ifMatch === 'current' ? ownVersion : r.ifMatch;
          let body: Buffer | undefined;
          if (endpoint.body) {
            if (r.origin) headers.origin = r.origin;
            let text: string;
            let type: string;
            if (endpoint.body === 'json') {
              text = r.json();
              type = 'application/json';
            } else {
              const fields = [...r.form(), ...(r.withCsrf && csrf[endpoint.as] ? [`_csrf=${encodeURIComponent(csrf[endpoint.as]!)}`] : [])];
              if (endpoint.body === 'multipart') {
                const boundary = 'FUZZ';
                text = fields
                  .map((f) => {
                    const [k, v] = f.split('=');
                    return `--${boundary}\r\nContent-Disposition: form-data; name="${decodeURIComponent(k!)}"\r\n\r\n${decodeURIComponent(v ?? '')}\r\n`;
                  })
                  .join('') + (r.withCsrf ? `--${boundary}--\r\n` : '');
                type = `multipart/form-data; boundary=${boundary}`;
              } else {
                text = fields.join('&');
                type = 'application/x-www-form-urlencoded';
              }
            }
            headers['content-type'] = r.contentType === 'default' ? type : r.contentType;
            body = Buffer.from(text);
            if (r.encoding !== 'none') {
              headers['content-encoding'] = r.encoding === 'gzip-corrupt' ? 'gzip' : r.encoding;
              body = r.encoding === 'gzip' ? gzipSync(body) : r.encoding === 'gzip-corrupt' ? Buffer.concat([gzipSync(body).subarray(0, 6), Buffer.from('junk')]) : body;
            }
          }
          const before = endpoint.body ? await counts() : null;
          const res = await raw(endpoint.method, r.path + r.query, headers, body);
          stats.requests++;
          if (res.status >= 500) stats.status5xx++;
          const where = `${endpoint.method} ${(r.path + r.query).slice(0, 200)} → ${res.status}: ${res.text.slice(0, 300)}`;
          expect(res.status, where).toBeLessThan(500);
          expect(res.text, where).not.toMatch(LEAKS);
          if (res.status >= 400) {
            const type = String(res.headers['content-type'] ?? '');
            // Node's parser refuses some requests before any route (431 for a request line and
            // headers over 16 KB): problem+json whatever the path.
            const beforeRouting = res.status === 431;
            if (audience === 'api' || beforeRouting) expect(type, where).toMatch(/^application\/problem\+json/);
            else expect(type, where).toMatch(endpoint.errors ?? /^text\/html/);
          }
          if (before && res.status >= 400) expect(await counts(), where).toEqual(before);
        }),
        { numRuns: RUNS, seed: SEED, path: PATH, endOnFailure: true },
      );
    });
  }
});
