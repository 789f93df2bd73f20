// The agent guide (/agent-guide) says what an agent needs, names only endpoints that exist, lists
// every MCP tool and problem code, and its worked example still matches what the API answers:
// the example is replayed against the app and every answer compared, shape and key values.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOLS } from '../../src/mcp/tools.js';
import { GENERAL_MIN_REPORTS, GREEN_FROM } from '../../src/modules/aggregation/verdict.js';
import { Reach, Verdict } from '../../src/modules/directory/schemas.js';
import { MCP_TOOL_SUMMARIES, RETEST_DAYS_LATER } from '../../src/modules/site/agent-guide.js';
import { REPORTING_RULES } from '../../src/modules/reports/definitions.js';
import { proseOf, repeatedSentences } from '../setup/sentences.js';
import { PROBLEM_TYPES } from '../../src/problem-types.js';
import { aCategory, aMerchant, anAgent } from '../factories/index.js';
import { accountWithKey } from '../setup/actors.js';
import { createTestApp, TEST_BASE_URL, type TestApp } from '../setup/app.js';

const METHODS = ['get', 'post', 'put', 'delete', 'patch'] as const;

/** A guide's path segment that stands for a value: {id}, <REPORT_ID>, :id. */
const isPlaceholder = (segment: string) => /^(\{[^}]+\}|<[^>]+>|:[A-Za-z]+)$/.test(segment);

/** Whether a path the guide names (under /api/v1) is one of the OpenAPI document's path templates. */
function matchesTemplate(path: string, template: string): boolean {
  const a = path.split('/').filter(Boolean);
  const b = template.split('/').filter(Boolean);
  return a.length === b.length && a.every((segment, i) => {
    const t = b[i]!;
    if (t.startsWith('{')) return true;
    return !isPlaceholder(segment) && segment === t;
  });
}

/** The structure of a JSON value: object keys (sorted) with their values' structure, types of the rest. */
function shape(value: unknown): unknown {
  if (value === null) return 'null';
  if (Array.isArray(value)) return value.length ? [shape(value[0])] : [];
  if (typeof value === 'object') {
    return Object.fromEntries(Object.keys(value as object).sort().map((key) => [key, shape((value as Record<string, unknown>)[key])]));
  }
  return typeof value;
}

/** The JSON blocks of a text indented by exactly `indent` spaces ("{" … "}"), with the status line before each. */
function jsonBlocks(text: string, indent: number): Array<{ status: number | null; json: Record<string, unknown> }> {
  const lines = text.split('\n');
  const pad = ' '.repeat(indent);
  const blocks: Array<{ status: number | null; json: Record<string, unknown> }> = [];
  let status: number | null = null;
  for (let i = 0; i < lines.length; i++) {
    const statusLine = /^\s*HTTP\/1\.1 (\d{3})/.exec(lines[i]!);
    if (statusLine) status = Number(statusLine[1]);
    if (lines[i] !== `${pad}{`) continue;
    const end = lines.indexOf(`${pad}}`, i);
    blocks.push({ status, json: JSON.parse(lines.slice(i, end + 1).join('\n')) as Record<string, unknown> });
    status = null;
    i = end;
  }
  return blocks;
}

describe('the agent guide', () => {
  let t: TestApp;
  /** Both pages: the main page and the reference. */
  let guide: string;
  let main: string;
  let reference: string;

  beforeAll(async () => {
    t = await createTestApp({ now: '2026-11-23T02:29:00Z' });
    const res = await request(t.app).get('/agent-guide').expect(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    main = res.text;
    const ref = await request(t.app).get('/agent-guide/reference').expect(200);
    expect(ref.headers['content-type']).toBe('text/plain; charset=utf-8');
    reference = ref.text;
    guide = `${main}\n${reference}`;
  });

  it('keeps the main page short (at most 25 KB): the flow, the rules and the worked example; the reference holds the rest', () => {
    expect(Buffer.byteLength(main)).toBeLessThanOrEqual(25 * 1024);
    for (const title of ['QUICK START', 'REPORT FIELDS AND FORMATS', 'WORKED EXAMPLE']) expect(main).toMatch(new RegExp(`^\\d+\\. ${title}`, 'm'));
    expect(main).toContain(`${TEST_BASE_URL}/agent-guide/reference`);
    for (const title of ['WHAT EACH KEY MEANS', 'ERRORS, RETRIES AND WHEN TO STOP', 'MCP: THE SAME, AS TOOLS']) expect(reference).toMatch(new RegExp(`^\\d+\\. ${title}`, 'm'));
  });

  it('says no sentence of more than 12 words twice, across both pages (JSON examples and HTTP lines aside)', () => {
    expect(repeatedSentences([proseOf(main), proseOf(reference)])).toEqual([]);
    // The check finds a repeated rule.
    expect(repeatedSentences(['One rule said here in more than twelve words, so that it counts as a sentence.', 'One rule said here in more than twelve words, so that it counts as a sentence.'])).toHaveLength(1);
  });

  it('states the testedAt rule once, as the validator applies it (no "UTC, not your local date")', async () => {
    expect(guide.split(REPORTING_RULES.testedAt.slice(0, 60)).length - 1).toBe(1);
    expect(guide).not.toMatch(/not your local one/i);
    const schema = (await request(t.app).get('/api/v1/contribution-schema').expect(200)).body;
    expect(schema.rules.testedAt).toBe(REPORTING_RULES.testedAt);
    expect(JSON.stringify(schema.body)).not.toMatch(/UTC date|local one/);
  });
  afterAll(() => t.close());

  it('covers what agents tripped on: identity, versions, the per-report GET, formats, canonical, problems, MCP', () => {
    const base = TEST_BASE_URL;
    for (const phrase of [
      // Identity.
      `${base}/api/v1/automation/me`,
      'agent.id',
      'handle is always null',
      // Versions and If-Match.
      'If-Match',
      'quoted or unquoted',
      'ETag',
      'unchanged: true',
      'whatever version If-Match named',
      'stale-version',
      'duplicate-report',
      'reportId',
      'PENDING',
      'screenshots',
      // The per-report GET, and reading in the shape written.
      `GET ${base}/api/v1/automation/reports/{id}`,
      `PUT ${base}/api/v1/automation/reports/{id}`,
      'in the shape they are written',
      'moderationFeedback',
      // Links.
      'Location',
      'reviewUrl',
      'Link',
      'rel="next"',
      'nextCursor',
      // Errors and limits.
      'application/problem+json',
      `${base}/problems/<code>`,
      '/problems/',
      'urn:request:',
      'X-Request-Id',
      'errors[]',
      'JSON pointer',
      'Retry-After',
      'Allow',
      'RateLimit-Policy',
      'RateLimit:',
      // Formats.
      'ISO 3166-1 alpha-2',
      'UTC',
      'YYYY-MM-DD',
      'one day past today\'s UTC date',
      // Canonical.
      'canonical category',
      'canonical merchant',
      'canonical slug',
      // MCP.
      `${base}/mcp`,
      'Authorization: Bearer <AGENT_ACCESS_KEY>',
      'isError',
      'retryAfter',
      // Conduct.
      'STOP',
      'wait at least 60 minutes',
      'authorised',
    ]) {
      expect(guide.replace(/\s+/g, ' '), phrase).toContain(phrase);
    }
    expect(guide).not.toContain('(1)');
    expect(guide).not.toMatch(/undefined|\[object Object\]|NaN/);
  });

  it('has a table of contents on each page naming every numbered section, in order, and its references point at real sections', () => {
    const sectionsOf = (page: string) => {
      const contents = /^CONTENTS\n((?: +\d+\. .+\n)+)/m.exec(page)![1]!;
      const listed = [...contents.matchAll(/^ +(\d+)\. (.+)$/gm)].map((m) => [Number(m[1]), m[2]!] as const);
      const headings = [...page.matchAll(/^(\d+)\. ([A-Z][^a-z\n]+)\n-+$/gm)].map((m) => [Number(m[1]), m[2]!] as const);
      expect(headings.map(([number, title]) => [number, title])).toEqual(listed.map(([number, title]) => [number, title.toUpperCase()]));
      expect(listed.map(([number]) => number)).toEqual(listed.map((_, i) => i + 1));
      return listed.length;
    };
    const mainCount = sectionsOf(main);
    const referenceCount = sectionsOf(reference);
    expect(mainCount + referenceCount).toBeGreaterThanOrEqual(15);
    for (const page of [main, reference]) {
      for (const m of page.matchAll(/(reference )?[Ss]ections? (\d+)/g)) expect(Number(m[2]), m[0]).toBeLessThanOrEqual(m[1] ? referenceCount : mainCount);
    }
  });

  it('names only API paths, and methods on them, that the OpenAPI document has', async () => {
    const openapi = (await request(t.app).get('/api/v1/openapi.json').expect(200)).body as { paths: Record<string, Record<string, unknown>> };
    const templates = Object.keys(openapi.paths).map((path) => `/api/v1${path}`);
    const segment = String.raw`(?:[A-Za-z0-9_.-]+|\{[^}\s]+\}|<[^>\s]+>|:[A-Za-z]+)`;
    const named = [...guide.matchAll(new RegExp(String.raw`/api/v1((?:/${segment})*)`, 'g'))].map((m) => `/api/v1${m[1]}`.replace(/\.+$/, ''));
    expect(named.length).toBeGreaterThan(20);
    for (const path of new Set(named)) {
      expect(templates.some((template) => matchesTemplate(path, template)), `${path} is not in the OpenAPI document`).toBe(true);
    }
    // "GET /api/v1/…", "PUT https://…/api/v1/…": that operation exists.
    const operations = guide.matchAll(new RegExp(String.raw`\b(GET|POST|PUT|DELETE|PATCH)\s+(?:https?://[^\s/]+)?(/api/v1(?:/${segment})*)`, 'g'));
    let count = 0;
    for (const [, method, rawPath] of operations) {
      const path = rawPath!.replace(/\.+$/, '');
      const template = templates.find((candidate) => matchesTemplate(path, candidate))!;
      const item = openapi.paths[template.slice('/api/v1'.length)]!;
      expect(Object.keys(item).filter((k) => (METHODS as readonly string[]).includes(k)), `${method} ${path}`).toContain(method!.toLowerCase());
      count++;
    }
    expect(count).toBeGreaterThan(15);
  });

  it('lists every MCP tool the server registers, each with its own line', async () => {
    const names = TOOLS.map((tool) => tool.name);
    const listed = await request(t.app)
      .post('/mcp')
      .set('Accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
      .expect(200);
    expect((listed.body.result.tools as Array<{ name: string }>).map((tool) => tool.name).sort()).toEqual([...names].sort());
    // A new tool needs its line in MCP_TOOL_SUMMARIES; a removed one loses it.
    expect(Object.keys(MCP_TOOL_SUMMARIES).sort()).toEqual([...names].sort());
    for (const name of names) expect(guide).toMatch(new RegExp(`^  ${name} +${MCP_TOOL_SUMMARIES[name]!.slice(0, 20).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'm'));
  });

  it('defines the verdict and the reach (every field of both schemas), their rules, and the filters and sort with an example that answers', async () => {
    const section = /^(\d+)\. THE VERDICT, AND HOW FAR AN AGENT GETS \(REACH\)\n-+\n([\s\S]*?)\n\d+\. [A-Z]/m.exec(guide)![2]!;
    for (const field of [...Object.keys(Verdict.shape), ...Object.keys(Reach.shape)]) expect(section, field).toMatch(new RegExp(`^  ${field}\\b`, 'm'));
    for (const phrase of ['LOGIN stands beside it', 'never lowers how far the agent gets', `green through ${GREEN_FROM}`, 'Confidence never changes it', `from ${GENERAL_MIN_REPORTS} reports`, 'verdict.sentence']) {
      expect(section.replace(/\s+/g, ' '), phrase).toContain(phrase);
    }
    const example = `${TEST_BASE_URL}/api/v1/agents/<slug>/merchants?reaches=CHECKOUT&sort=reach`;
    expect(section).toContain(`GET ${example}`);
    // Every parameter the section names is one of the agent-scoped list's, and the example answers.
    const openapi = (await request(t.app).get('/api/v1/openapi.json').expect(200)).body as {
      paths: Record<string, { get: { parameters: Array<{ name: string; schema: { enum?: string[] } }> } }>;
    };
    const parameters = openapi.paths['/agents/{slug}/merchants']!.get.parameters;
    const named = [...section.matchAll(/^ {2}([a-zA-Z]+)=/gm), ...section.matchAll(/&([a-zA-Z]+)=/g)].map((m) => m[1]!);
    expect(new Set(named)).toEqual(new Set(['reaches', 'task', 'taskStatus', 'minConfidence', 'sort']));
    for (const name of named) expect(parameters.map((p) => p.name), name).toContain(name);
    expect(parameters.find((p) => p.name === 'sort')!.schema.enum).toContain('reach');
    const agent = await anAgent(t.db.prisma, { slug: 'reach-guide-agent' });
    await request(t.app).get(example.replace(TEST_BASE_URL, '').replace('<slug>', agent.slug)).expect(200);
    // The search tool's line names the new filters too.
    for (const name of ['reaches', 'taskStatus', 'minConfidence']) expect(MCP_TOOL_SUMMARIES.search_merchants).toContain(name);
  });

  it('lists every problem code', () => {
    for (const code of Object.keys(PROBLEM_TYPES)) expect(guide).toMatch(new RegExp(`\\b${code}\\b`));
  });

  it('has a worked example that the API still answers the same way', async () => {
    const section = /^\d+\. WORKED EXAMPLE[^\n]*\n-+\n([\s\S]*?)\n\d+\. [A-Z]/m.exec(main)![1]!;
    const prisma = t.db.prisma;
    const category = await aCategory(prisma, { name: 'Toys & Games', slug: 'toys-games' });
    const first = await aMerchant(prisma, { name: 'Paper Crane Hobbies', slug: 'paper-crane-hobbies', categoryId: category.id });
    await aMerchant(prisma, { categoryId: category.id });
    await aMerchant(prisma, { categoryId: category.id });
    const agent = await anAgent(prisma, { name: 'Basket Pilot', slug: 'basket-pilot' });
    const { auth } = await accountWithKey(t, 'guide-example@example.org', agent.id);

    let reportId = '<REPORT_ID>';
    const fill = (value: unknown) =>
      JSON.parse(
        JSON.stringify(value).replaceAll('<MERCHANT_ID>', first.id).replaceAll('<AGENT_ID>', agent.id).replaceAll('<REPORT_ID>', reportId),
      ) as Record<string, unknown>;
    const blocks = jsonBlocks(section, 4);
    const [me, queue, postBody, validated, created, duplicate, read, changes, replaced, stale, retest] = blocks;
    expect(blocks).toHaveLength(11);
    // Step 6 sends back what step 5 read, with these members changed.
    const putBody = { status: null, json: { ...read!.json, ...changes!.json } };

    /**
     * The real answer has the example's status, structure and the values that are not ids or
     * times. The example leaves out methodology and disclaimer (said once), and an object with a
     * "…" member shows only some of its members.
     */
    const trimmed = (actual: unknown, example: unknown): unknown => {
      if (Array.isArray(actual) && Array.isArray(example)) return actual.slice(0, 1).map((item) => trimmed(item, example[0]));
      if (actual && example && typeof actual === 'object' && typeof example === 'object') {
        const keys = '…' in example ? Object.keys(example).filter((key) => key !== '…') : Object.keys(actual).filter((key) => key !== 'methodology' && key !== 'disclaimer');
        return Object.fromEntries(keys.map((key) => [key, trimmed((actual as Record<string, unknown>)[key], (example as Record<string, unknown>)[key])]));
      }
      return actual;
    };
    const withoutEllipsis = (example: unknown): unknown =>
      Array.isArray(example)
        ? example.slice(0, 1).map(withoutEllipsis)
        : example && typeof example === 'object'
          ? Object.fromEntries(Object.entries(example).filter(([key]) => key !== '…').map(([key, value]) => [key, withoutEllipsis(value)]))
          : example;
    const same = (res: request.Response, example: (typeof blocks)[number]) => {
      expect(res.status).toBe(example.status);
      expect(shape(trimmed(res.body, example.json))).toEqual(shape(withoutEllipsis(example.json)));
      for (const key of ['status', 'unchanged', 'title', 'outcome', 'stage', 'failureReason', 'region', 'testedAt', 'experience', 'valid', 'wouldBe', 'submitStatus']) {
        if (key in example.json) expect(res.body[key], key).toEqual(example.json[key]);
      }
      if (typeof example.json.type === 'string') expect(res.body.type).toBe(example.json.type);
    };

    const whoami = await request(t.app).get('/api/v1/automation/me').set(auth);
    same(whoami, me!);
    expect(whoami.body.limits.map((l: { name: string }) => l.name)).toEqual((me!.json.limits as Array<{ name: string }>).map((l) => l.name));

    const page = await request(t.app).get('/api/v1/automation/queue?limit=2').set(auth);
    same(page, queue!);
    expect(page.headers.link).toMatch(/^<http:\/\/directory\.test\/api\/v1\/automation\/queue\?limit=2&after=[^>]+>; rel="next"$/);

    // The dry run: the normalized report, nothing written, only the request budgets counted.
    const dryRun = await request(t.app).post('/api/v1/reports/validate').set(auth).send(fill(postBody!.json));
    same(dryRun, validated!);
    expect(dryRun.body.report).toEqual(fill(validated!.json.report));
    expect(await prisma.report.count()).toBe(0);
    expect(dryRun.headers.ratelimit).not.toContain('agent-submissions');

    const post = await request(t.app).post('/api/v1/reports').set(auth).send(fill(postBody!.json));
    same(post, created!);
    reportId = post.body.id;
    expect(post.headers.location).toBe(`${TEST_BASE_URL}/api/v1/automation/reports/${reportId}`);
    expect(post.body.url).toBe(post.headers.location);
    expect(post.headers.etag).toBe(`"${post.body.updatedAt}"`);
    const v1 = post.body.updatedAt as string;

    const again = await request(t.app).post('/api/v1/reports').set(auth).send(fill(postBody!.json));
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ ...created!.json, id: reportId, updatedAt: v1, url: post.body.url, reviewUrl: post.body.reviewUrl, unchanged: true });
    const changedPost = { ...fill(postBody!.json), experience: String(postBody!.json.experience).replace('two attempts', 'three attempts') };
    const conflict = await request(t.app).post('/api/v1/reports').set(auth).send(changedPost);
    same(conflict, duplicate!);
    expect(conflict.body.reportId).toBe(reportId);

    const got = await request(t.app).get(`/api/v1/automation/reports/${reportId}`).set(auth);
    same(got, read!);
    expect(got.headers.etag).toBe(`"${v1}"`);

    t.clock.advance(9_000);
    const put = await request(t.app).put(`/api/v1/automation/reports/${reportId}`).set(auth).set('If-Match', `"${v1}"`).send(fill(putBody.json));
    same(put, replaced!);
    expect(put.headers.etag).toBe(`"${put.body.updatedAt}"`);
    expect(put.body.updatedAt).not.toBe(v1);
    expect((await request(t.app).get(`/api/v1/automation/reports/${reportId}`).set(auth)).body).toMatchObject({ outcome: 'WORKS', stage: 'CHECKOUT' });

    const stalePut = await request(t.app)
      .put(`/api/v1/automation/reports/${reportId}`)
      .set(auth)
      .set('If-Match', `"${v1}"`)
      .send({ ...fill(putBody.json), humanIntervention: true });
    same(stalePut, stale!);
    expect(stalePut.body.updatedAt).toBe(put.body.updatedAt);

    // The step 6 body again, naming the old version unquoted: identical, so not refused.
    const unchanged = await request(t.app).put(`/api/v1/automation/reports/${reportId}`).set(auth).set('If-Match', v1).send(fill(putBody.json));
    expect(unchanged.status).toBe(200);
    expect(unchanged.body).toMatchObject({ unchanged: true, updatedAt: put.body.updatedAt });

    // Later, the retest-only queue lists this merchant alone, with the report to update.
    t.clock.advance(RETEST_DAYS_LATER * 86_400_000);
    const due = await request(t.app).get('/api/v1/automation/queue?retest=only&retestAfterDays=30').set(auth);
    same(due, retest!);
    expect(due.body.items).toHaveLength(1);
    expect(due.body.items[0]).toMatchObject({ id: first.id, existingReport: { id: reportId, status: 'PENDING', updatedAt: put.body.updatedAt } });
    expect(due.body.nextCursor).toBeNull();
  });
});
