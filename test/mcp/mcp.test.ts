// The MCP endpoint (/mcp) through the SDK's own client against a listening server: the tools
// answer what the HTTP API answers for the same question (in one envelope, schemas.ts), each
// answer conforms to its tool's declared outputSchema, the schemas pass the MCP Inspector's
// portability check, refusals are the API's problems worded in MCP terms, private answers carry
// the remaining budget, and nothing shows an e-mail, an account id or a key.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult, Tool as ListedTool } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type pg from 'pg';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import packageJson from '../../package.json' with { type: 'json' };
import type { PrismaClient } from '../../src/db/client.js';
import { createLogger } from '../../src/logger.js';
import { cursorCodec } from '../../src/modules/automation/cursor.js';
import { uncachedCounts } from '../../src/modules/directory/counts.js';
import { definitionTexts } from '../../src/modules/reports/definitions.js';
import { answerSummary, directoryMcpServer, SUMMARY_NOTE } from '../../src/mcp/server.js';
import { TOOLS } from '../../src/mcp/tools.js';
import { aReport, contributionTargets } from '../factories/index.js';
import { accountWithKey } from '../setup/actors.js';
import { createTestApp, TEST_BASE_URL, testConfig, type TestApp } from '../setup/app.js';
import { lintTool } from './schema-portability.js';

type Problem = { type: string; title: string; status: number; detail?: string; errors?: { parameter?: string; pointer?: string; detail: string }[]; retryAfter?: number } & Record<string, unknown>;

const PUBLIC_TOOLS = [
  'search_merchants',
  'get_merchant',
  'list_agents',
  'list_categories',
  'list_agent_merchants',
  'list_reports',
  'get_report',
  'get_contribution_schema',
];
const PRIVATE_TOOLS = ['whoami', 'get_queue', 'validate_report', 'submit_report', 'list_my_reports', 'get_my_report', 'update_report'];
const LIMIT_NAMES = ['agent-submissions', 'private:account', 'private:address', 'public'];

/** What an MCP refusal must never say: the HTTP API's headers, methods, paths or query syntax. */
const HTTP_WORDING = /If-Match|If-None-Match|ETag|\b(PUT|GET|POST)\b|\/api\/v1\/|\b[a-zA-Z]+=[a-zA-Z<]/;
const problemWording = (problem: Problem) => [problem.title, problem.detail ?? '', ...(problem.errors ?? []).map((e) => e.detail)].join('\n');

/** The HTTP body without the notice the envelope carries beside data. */
const withoutNotice = ({ methodology: _m, disclaimer: _d, ...rest }: Record<string, unknown>) => rest;

/** Listens on a free port of 127.0.0.1; the base URL of the server. */
async function listen(t: TestApp): Promise<{ server: Server; url: string }> {
  const server = t.app.listen(0, '127.0.0.1');
  // The SDK's client compiles every tool's outputSchema after tools/list, in this same process:
  // on a loaded machine that blocks the event loop past Node's 5 s keep-alive, and the client's
  // next request then meets a socket the server is closing (ECONNRESET). Idle sockets stay open here.
  server.keepAliveTimeout = 120_000;
  await new Promise((resolve) => server.once('listening', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** A problem as the HTTP API sends it, without what only HTTP has (the request path). */
const withoutInstance = ({ instance: _instance, ...problem }: Record<string, unknown>) => problem;

describe('MCP endpoint', () => {
  let t: TestApp;
  let http: { server: Server; url: string };
  let T: Awaited<ReturnType<typeof contributionTargets>>;
  let agentId: string;
  let key: string;
  let auth: Record<string, string>;
  let accountId: string;
  const email = 'mcp-agent@example.org';
  /** Every text a tool answered: none may show a secret. */
  const seen: string[] = [];
  const clients: Client[] = [];
  /** tools/list as a client reads it, and the tools whose real answers were checked against their outputSchema. */
  let listed: Map<string, ListedTool>;
  const conformed = new Set<string>();
  const validator = new AjvJsonSchemaValidator();

  beforeAll(async () => {
    t = await createTestApp();
    T = await contributionTargets(t.db.prisma, 12);
    agentId = T.agents[0]!.id;
    // Public evidence, so that searches and profiles have summaries to show.
    const now = t.clock.now();
    await aReport(t.db.prisma, { merchantId: T.merchants[0]!.id, agentId, status: 'APPROVED', outcome: 'WORKS', stage: 'CHECKOUT' }, now);
    await aReport(t.db.prisma, { merchantId: T.merchants[1]!.id, agentId, status: 'APPROVED', capabilityResults: { ACCESS: 'WORKS', CART: 'BLOCKED' }, outcome: 'PARTIAL' }, now);
    await aReport(t.db.prisma, { merchantId: T.merchants[0]!.id, agentId: T.agents[1]!.id, status: 'APPROVED', outcome: 'BLOCKED' }, now);
    const actor = await accountWithKey(t, email, agentId);
    ({ key, auth } = actor);
    accountId = actor.account.id;
    http = await listen(t);
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await new Promise((resolve) => http.server.close(resolve));
    await t.close();
    // Checked last, over every answer of the file.
    const all = seen.join('\n');
    expect(all).not.toContain(email);
    expect(all).not.toContain(accountId);
    expect(all).not.toContain(key);
  });

  /** A client that has read tools/list, as real clients do: the SDK then checks every answer against its outputSchema too. */
  async function connect(headers: Record<string, string> = {}): Promise<Client> {
    const client = new Client({ name: 'mcp-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', http.url), { requestInit: { headers } }));
    clients.push(client);
    const { tools } = await client.listTools();
    listed ??= new Map(tools.map((tool) => [tool.name, tool]));
    return client;
  }

  /** An answer against the outputSchema tools/list declares (as the SDK's client checks it) and against the tool's zod schema. */
  function conforms(name: string, answer: unknown) {
    const declared = listed.get(name)?.outputSchema;
    expect(declared, name).toBeDefined();
    const verdict = validator.getValidator(declared as Record<string, unknown>)(answer);
    expect(verdict.errorMessage, name).toBeUndefined();
    expect(verdict.valid, name).toBe(true);
    const parsed = TOOLS.find((tool) => tool.name === name)!.output.safeParse(answer);
    expect(parsed.error, name).toBeUndefined();
    conformed.add(name);
  }

  /** Per tool: the bytes of the largest answer as JSON and of its text. */
  const textSizes = new Map<string, { json: number; text: number }>();

  /**
   * An answer's text: a summary that points to structuredContent, never the same JSON again. A
   * client that reads only text still has the paging fields, what remains of each limit, the
   * notice, and the id of the resource and of each item (what the next call needs).
   */
  function summarised(name: string, text: string, body: Record<string, unknown>) {
    const summary = JSON.parse(text) as Record<string, unknown>;
    expect(summary, name).toEqual(answerSummary(body));
    expect(summary.note, name).toBe(SUMMARY_NOTE);
    expect(summary).toMatchObject({ methodology: body.methodology, disclaimer: body.disclaimer });
    for (const field of ['total', 'page', 'pageSize', 'nextCursor']) if (field in body) expect(summary[field], `${name} ${field}`).toEqual(body[field]);
    if (Array.isArray(body.limits)) expect(Object.keys(summary.remaining as object).sort(), name).toEqual(LIMIT_NAMES);
    const items = Array.isArray(body.data) ? (body.data as Record<string, unknown>[]) : [body.data as Record<string, unknown>];
    const briefs = Array.isArray(summary.data) ? (summary.data as Record<string, unknown>[]) : [summary.data as Record<string, unknown>];
    items.forEach((item, i) => {
      for (const field of ['id', 'slug', 'status', 'updatedAt', 'outcome']) if (typeof item[field] === 'string') expect(briefs[i]![field], `${name} ${field}`).toBe(item[field]);
    });
    const json = JSON.stringify(body).length;
    if (json > 2000) expect(text.length, name).toBeLessThan(json);
    const largest = textSizes.get(name);
    if (!largest || largest.json < json) textSizes.set(name, { json, text: text.length });
  }

  /**
   * A tool call. An answer: its text summarises its structuredContent, which conforms to the
   * declared outputSchema, and a private tool's answer lists the remaining budget. A refusal: the
   * problem as JSON text only.
   */
  async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    const text = result.content[0]?.type === 'text' ? result.content[0].text : '';
    seen.push(text);
    if (result.isError) {
      expect(result.structuredContent).toBeUndefined();
      return { isError: true, body: JSON.parse(text) as Record<string, unknown> };
    }
    const body = result.structuredContent as Record<string, unknown>;
    summarised(name, text, body);
    conforms(name, body);
    expect(body).toMatchObject({ data: expect.anything(), methodology: `${TEST_BASE_URL}/how-it-works`, disclaimer: expect.stringContaining('Community-reported') });
    if (PRIVATE_TOOLS.includes(name)) {
      expect((body.limits as { name: string }[]).map((l) => l.name).sort(), name).toEqual(LIMIT_NAMES);
      expect(JSON.stringify(body.limits)).not.toContain('partition');
    } else {
      expect(body).not.toHaveProperty('limits');
    }
    return { isError: false, body };
  }

  async function refused(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Problem> {
    const { isError, body } = await call(client, name, args);
    expect(isError).toBe(true);
    return body as Problem;
  }

  const reportCount = () => t.db.prisma.report.count();

  describe('discovery', () => {
    it('names itself, says its rules at initialize and lists every tool, private ones included', async () => {
      const client = await connect();
      expect(client.getServerVersion()).toMatchObject({ name: 'agent-compatibility-directory', version: packageJson.version });
      const instructions = client.getInstructions() ?? '';
      for (const rule of ['bearer token', '/profile/agents', 'get_contribution_schema', 'validate_report', 'update_report', '401 or 403', 'retryAfter', 'report-test-run']) {
        expect(instructions).toContain(rule);
      }
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual([...PUBLIC_TOOLS, ...PRIVATE_TOOLS]);
      for (const tool of tools) {
        expect(tool.description?.length).toBeGreaterThan(40);
        expect(tool.inputSchema.type).toBe('object');
        // Every answer is an object with data, the notice and (private tools) limits.
        expect(tool.outputSchema).toMatchObject({ type: 'object', required: expect.arrayContaining(['data', 'methodology', 'disclaimer']) });
        expect(tool.outputSchema!.required!.includes('limits')).toBe(PRIVATE_TOOLS.includes(tool.name));
      }
      // Each rule once: the key and error rules in whoami, the report rules in submit_report.
      for (const name of PRIVATE_TOOLS) expect(tools.find((tool) => tool.name === name)?.description).toMatch(/^KEY\. /);
      const whoami = tools.find((tool) => tool.name === 'whoami')!.description!;
      for (const rule of ['bearer token', 'never in an argument', '401 or 403', 'retryAfter', 'limits']) expect(whoami).toContain(rule);
      const submit = tools.find((tool) => tool.name === 'submit_report')!.description!;
      for (const rule of ['privacy true', 'actually tested', 'get_contribution_schema', '409 duplicate-report', 'validate_report']) expect(submit).toContain(rule);
      // MCP wording never names an HTTP header: the client's connection carries the key.
      const said = JSON.stringify(tools) + instructions;
      for (const header of ['Authorization', 'If-Match', 'Retry-After', 'RateLimit']) expect(said, header).not.toContain(header);
    });

    it('points to the contribution schema for every definition and rule instead of repeating them', async () => {
      const client = await connect();
      const listed = JSON.stringify(await client.listTools());
      for (const sentence of definitionTexts()) expect(listed, sentence).not.toContain(JSON.stringify(sentence).slice(1, -1));
      const resource = await client.readResource({ uri: `${TEST_BASE_URL}/api/v1/contribution-schema` });
      const text = (resource.contents[0] as { text: string }).text;
      for (const sentence of definitionTexts()) expect(text, sentence).toContain(JSON.stringify(sentence).slice(1, -1));
    });

    it('describes the retest-only queue with an example of existingReport', async () => {
      const { tools } = await (await connect()).listTools();
      const queue = tools.find((tool) => tool.name === 'get_queue')!;
      expect(queue.description).toMatch(/retest "only"/);
      expect(queue.description).toContain('existingReport: test again, then update_report it');
      expect((queue.inputSchema.properties as Record<string, { enum?: string[] }>).retest!.enum).toEqual(['include', 'only']);
    });

    it('shows the API schemas as JSON Schema: integers, enums, no unknown arguments, required report fields', async () => {
      const { tools } = await (await connect()).listTools();
      const schema = (name: string) => tools.find((tool) => tool.name === name)!.inputSchema as Record<string, unknown> & { properties: Record<string, Record<string, unknown>> };
      const search = schema('search_merchants');
      expect(search.additionalProperties).toBe(false);
      expect(search.properties.page).toMatchObject({ type: 'integer', minimum: 1 });
      expect(search.properties.outcome!.enum).toEqual(['WORKS', 'PARTIAL', 'BLOCKED', 'DOES_NOT_WORK', 'UNSURE']);
      expect(Object.keys(search.properties).sort()).toEqual([
        'agent', 'category', 'days', 'independent', 'minConfidence', 'minReports', 'outcome', 'page', 'q', 'reaches', 'region', 'sort', 'stage', 'task', 'taskStatus', 'view',
      ]);
      expect(Object.keys(schema('list_agent_merchants').properties).sort()).toEqual(Object.keys(search.properties).sort());
      expect(schema('list_agent_merchants').required).toEqual(['agent']);
      const submit = schema('submit_report');
      expect(submit.required).toEqual(['adId', 'agentId', 'privacy']);
      expect(submit.properties.privacy).toMatchObject({ const: true });
      expect(submit.properties.capabilityResults).toMatchObject({ type: 'object', properties: expect.objectContaining({ CART: expect.objectContaining({ enum: expect.any(Array) }) }) });
      // validate_report and update_report take submit_report's fields, typed there once: let through.
      const validate = schema('validate_report');
      expect(Object.keys(validate.properties).sort()).toEqual(['id', 'report', 'version']);
      expect(validate.additionalProperties).toBe(true);
      const update = schema('update_report');
      expect(update.required).toEqual(['id', 'version', 'report']);
      expect(update.properties.version).toMatchObject({ type: 'string', pattern: expect.any(String) });
      expect(update.properties.report).toMatchObject({ type: 'object', properties: {}, additionalProperties: true, description: expect.stringContaining("submit_report's arguments") });
      expect(JSON.stringify(tools.map((tool) => tool.inputSchema))).not.toContain('$ref');
      expect(schema('get_queue').properties.limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 50 });
    });

    it('passes the MCP Inspector\'s schema-portability check with no warning, inputs and outputs alike', async () => {
      const { tools } = await (await connect()).listTools();
      expect(tools.flatMap((tool) => lintTool(tool))).toEqual([]);
      // The check itself finds what the issue found on update_report.
      expect(
        lintTool({ name: 'x', inputSchema: { type: 'object', properties: { a: { type: ['boolean', 'null'] }, b: { description: 'untyped' }, c: { type: 'object' }, d: { type: 'array' }, e: true } } }).map((f) => f.rule),
      ).toEqual(['type-union', 'untyped', 'object-without-properties', 'array-without-items', 'boolean-schema']);
    });

    it('offers the whole contribution schema as a resource, the HTTP body', async () => {
      const client = await connect();
      const uri = `${TEST_BASE_URL}/api/v1/contribution-schema`;
      const { resources } = await client.listResources();
      expect(resources).toEqual([expect.objectContaining({ uri, name: 'contribution-schema', mimeType: 'application/json' })]);
      const { contents } = await client.readResource({ uri });
      const http = (await request(t.app).get('/api/v1/contribution-schema').expect(200)).body;
      expect(JSON.parse((contents[0] as { text: string }).text)).toEqual(http);
      expect(contents[0]).toMatchObject({ uri, mimeType: 'application/json' });
    });
  });

  describe('public tools answer what the HTTP API answers', () => {
    let client: Client;
    beforeAll(async () => {
      client = await connect();
    });

    const same = async (tool: string, args: Record<string, unknown>, path: string) => {
      const { isError, body } = await call(client, tool, args);
      expect(isError).toBe(false);
      const res = await request(t.app).get(path).expect(200);
      expect(body).toEqual(res.body);
      expect(body).toMatchObject({ methodology: `${TEST_BASE_URL}/how-it-works`, disclaimer: expect.stringContaining('Community-reported') });
      return body;
    };

    it('search_merchants, with and without filters, in both views', async () => {
      const all = await same('search_merchants', {}, '/api/v1/merchants');
      expect(all).toMatchObject({ total: 12, page: 1, pageSize: 24 });
      const slug = T.agents[0]!.slug;
      const scoped = await same('search_merchants', { agent: slug, outcome: 'WORKS', sort: 'rating', page: 1 }, `/api/v1/merchants?agent=${slug}&outcome=WORKS&sort=rating&page=1`);
      expect((scoped.data as { id: string }[]).map((m) => m.id)).toEqual([T.merchants[0]!.id]);
      await same('search_merchants', { view: 'compact', sort: 'name', minReports: 1 }, '/api/v1/merchants?view=compact&sort=name&minReports=1');
      await same('search_merchants', { category: T.merchants[0]!.category, days: 30, region: 'de' }, `/api/v1/merchants?category=${encodeURIComponent(T.merchants[0]!.category)}&days=30&region=de`);
    });

    it('get_merchant by slug and by id', async () => {
      const merchant = T.merchants[0]!;
      const bySlug = await same('get_merchant', { slugOrId: merchant.slug }, `/api/v1/merchants/${merchant.slug}`);
      await same('get_merchant', { slugOrId: merchant.id }, `/api/v1/merchants/${merchant.id}`);
      expect(bySlug.data).toMatchObject({ id: merchant.id, slug: merchant.slug });
    });

    it('list_agents and list_categories, with pages', async () => {
      await same('list_agents', {}, '/api/v1/agents');
      await same('list_agents', { page: 2 }, '/api/v1/agents?page=2');
      await same('list_categories', { page: 1 }, '/api/v1/categories?page=1');
    });

    it('list_agent_merchants: the agent-scoped list with the reach filters', async () => {
      const slug = T.agents[0]!.slug;
      const all = await same('list_agent_merchants', { agent: slug }, `/api/v1/agents/${slug}/merchants`);
      expect(all.total).toBeGreaterThan(0);
      const reaching = await same('list_agent_merchants', { agent: slug, reaches: 'ACCESS', sort: 'reach', minConfidence: 'low' }, `/api/v1/agents/${slug}/merchants?reaches=ACCESS&sort=reach&minConfidence=low`);
      expect((reaching.data as { id: string }[]).length).toBeGreaterThan(0);
      const blocked = await same('list_agent_merchants', { agent: slug, task: 'CART', taskStatus: 'blocked,unsupported', view: 'compact' }, `/api/v1/agents/${slug}/merchants?task=CART&taskStatus=blocked,unsupported&view=compact`);
      expect((blocked.data as { id: string }[]).map((m) => m.id)).toEqual([T.merchants[1]!.id]);
      await same('list_agent_merchants', { agent: slug, outcome: 'WORKS', page: 1, sort: 'rating' }, `/api/v1/agents/${slug}/merchants?outcome=WORKS&page=1&sort=rating`);
      // Refusals as the API's: an unknown agent, an agent argument among the filters of the path.
      const unknown = await refused(client, 'list_agent_merchants', { agent: 'no-such-agent' });
      expect(unknown).toEqual(withoutInstance((await request(t.app).get('/api/v1/agents/no-such-agent/merchants').expect(404)).body));
      expect(await refused(client, 'list_agent_merchants', {})).toMatchObject({ status: 400, errors: [{ parameter: 'agent' }] });
      expect(await refused(client, 'list_agent_merchants', { agent: slug, task: 'CART' })).toMatchObject({ status: 400, errors: [{ parameter: 'taskStatus' }] });
    });

    it('list_reports and get_report: the public reports, with their filters', async () => {
      const slug = T.agents[0]!.slug;
      const recent = await same('list_reports', {}, '/api/v1/reports');
      expect(recent.total).toBe(3);
      await same('list_reports', { agent: slug, outcome: 'PARTIAL', page: 1 }, `/api/v1/reports?agent=${slug}&outcome=PARTIAL&page=1`);
      await same('list_reports', { merchant: T.merchants[0]!.id }, `/api/v1/reports?merchant=${T.merchants[0]!.id}`);
      // The evidence of get_merchant names reports get_report reads.
      const { body: merchant } = await call(client, 'get_merchant', { slugOrId: T.merchants[0]!.slug });
      const evidence = (merchant.data as { agents: { evidence: { reportId: string }[] }[] }).agents.flatMap((a) => a.evidence);
      expect(evidence.length).toBeGreaterThan(0);
      for (const { reportId } of evidence) {
        const one = await same('get_report', { id: reportId }, `/api/v1/reports/${reportId}`);
        expect(one.data).toMatchObject({ id: reportId, merchant: { id: T.merchants[0]!.id } });
      }
      expect(await refused(client, 'get_report', { id: '00000000-0000-7000-8000-000000000000' })).toEqual(
        withoutInstance((await request(t.app).get('/api/v1/reports/00000000-0000-7000-8000-000000000000').expect(404)).body),
      );
      expect(await refused(client, 'list_reports', { outcome: 'GREAT' })).toEqual(withoutInstance((await request(t.app).get('/api/v1/reports?outcome=GREAT').expect(400)).body));
    });

    it('get_contribution_schema: the contribution schema of the HTTP API, definitions included', async () => {
      const { isError, body } = await call(client, 'get_contribution_schema');
      expect(isError).toBe(false);
      const http = (await request(t.app).get('/api/v1/contribution-schema').expect(200)).body;
      expect(body).toEqual({ data: http, methodology: `${TEST_BASE_URL}/how-it-works`, disclaimer: expect.any(String) });
      const text = JSON.stringify(body.data);
      for (const sentence of definitionTexts()) expect(text).toContain(JSON.stringify(sentence).slice(1, -1));
    });

    it('refuses invalid input with the API\'s own problem, naming the argument', async () => {
      const cases: [string, Record<string, unknown>, string][] = [
        ['search_merchants', { outcome: 'GREAT' }, '/api/v1/merchants?outcome=GREAT'],
        ['search_merchants', { categroy: 'shoes' }, '/api/v1/merchants?categroy=shoes'],
        ['search_merchants', { page: 0 }, '/api/v1/merchants?page=0'],
        ['search_merchants', { days: 1.5 }, '/api/v1/merchants?days=1.5'],
        ['search_merchants', { category: 'no-such-category' }, '/api/v1/merchants?category=no-such-category'],
        ['search_merchants', { agent: 'Not A Slug' }, '/api/v1/merchants?agent=Not%20A%20Slug'],
        ['list_categories', { page: 'first' }, '/api/v1/categories?page=first'],
        ['get_merchant', { slugOrId: 'no-such-shop' }, '/api/v1/merchants/no-such-shop'],
        ['get_merchant', { slugOrId: 'Not A Slug!' }, '/api/v1/merchants/Not%20A%20Slug!'],
      ];
      for (const [tool, args, path] of cases) {
        const problem = await refused(client, tool, args);
        const res = await request(t.app).get(path);
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(problem).toEqual(withoutInstance(res.body));
        expect(problem.status).toBe(res.status);
      }
      // The combination rules of the filters are the API's problems, worded with arguments and tools.
      const rules: [Record<string, unknown>, string, string][] = [
        [{ sort: 'rating' }, '/api/v1/merchants?sort=rating', 'sort'],
        [{ sort: 'reach' }, '/api/v1/merchants?sort=reach', 'sort'],
        [{ reaches: 'CART' }, '/api/v1/merchants?reaches=CART', 'reaches'],
        [{ minConfidence: 'high' }, '/api/v1/merchants?minConfidence=high', 'minConfidence'],
        [{ task: 'CART', taskStatus: 'blocked' }, '/api/v1/merchants?task=CART&taskStatus=blocked', 'task'],
        [{ agent: T.agents[0]!.slug, task: 'CART' }, `/api/v1/merchants?agent=${T.agents[0]!.slug}&task=CART`, 'taskStatus'],
        [{ agent: T.agents[0]!.slug, taskStatus: 'blocked' }, `/api/v1/merchants?agent=${T.agents[0]!.slug}&taskStatus=blocked`, 'task'],
        [{ agent: T.agents[0]!.slug, reaches: 'LOGIN' }, `/api/v1/merchants?agent=${T.agents[0]!.slug}&reaches=LOGIN`, 'reaches'],
      ];
      for (const [args, path, parameter] of rules) {
        const problem = await refused(client, 'search_merchants', args);
        const res = await request(t.app).get(path).expect(400);
        expect({ ...problem, detail: undefined, errors: undefined }).toEqual({ ...withoutInstance(res.body), detail: undefined, errors: undefined });
        expect(problem.errors!.map((e) => e.parameter)).toEqual((res.body as Problem).errors!.map((e) => e.parameter));
        expect(problem.errors![0]!.parameter).toBe(parameter);
        expect(problemWording(problem), JSON.stringify(args)).not.toMatch(HTTP_WORDING);
      }
      expect((await refused(client, 'search_merchants', { sort: 'reach' })).errors![0]!.detail).toContain('list_agent_merchants');
      const unknown = await refused(client, 'search_merchants', { outcome: 'GREAT' });
      expect(unknown).toMatchObject({ status: 400, type: expect.stringMatching(/\/problems\/validation-failed$/), errors: [{ parameter: 'outcome' }] });
      expect(await refused(client, 'get_merchant', {})).toMatchObject({ status: 400, errors: [{ parameter: 'slugOrId' }] });
    });

    it('treats an Authorization-less request as anonymous, and answers privately and uncached', async () => {
      const res = await fetch(new URL('/mcp', http.url), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('ratelimit-policy')).toContain('"public"');
      expect(((await res.json()) as { result: { tools: unknown[] } }).result.tools).toHaveLength(PUBLIC_TOOLS.length + PRIVATE_TOOLS.length);
      // Large answers are compressed, as the API's are.
      const search = await fetch(new URL('/mcp', http.url), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'Accept-Encoding': 'gzip' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'search_merchants', arguments: {} } }),
      });
      expect(search.headers.get('content-encoding')).toBe('gzip');
      expect(((await search.json()) as { result: CallToolResult }).result.structuredContent).toMatchObject({ total: 12 });
    });
  });

  describe('private tools without a key', () => {
    it('are refused with what to do, and write nothing', async () => {
      const client = await connect();
      const before = await reportCount();
      const report = { adId: T.merchants[5]!.id, agentId, privacy: true, outcome: 'WORKS' };
      const args: Record<string, Record<string, unknown>> = {
        submit_report: report,
        validate_report: report,
        get_my_report: { id: '00000000-0000-7000-8000-000000000000' },
        update_report: { id: '00000000-0000-7000-8000-000000000000', version: 'x', report: {} },
      };
      for (const tool of PRIVATE_TOOLS) {
        const problem = await refused(client, tool, args[tool] ?? {});
        expect(problem).toMatchObject({ status: 401, type: expect.stringMatching(/\/problems\/missing-credentials$/) });
        expect(problem.detail).toContain('bearer token');
        expect(problem.detail).toContain(`${TEST_BASE_URL}/profile/agents`);
      }
      expect(await reportCount()).toBe(before);
    });
  });

  describe('with an agent key', () => {
    let client: Client;
    let merchantId: string;
    let report: { id: string; updatedAt: string };
    beforeAll(async () => {
      client = await connect({ Authorization: `Bearer ${key}` });
    });

    const body = (extra: Record<string, unknown> = {}) => ({
      adId: merchantId,
      agentId,
      privacy: true,
      capabilityResults: { ACCESS: 'WORKS', SEARCH: 'WORKS' },
      testedAt: '2026-11-21',
      region: 'DE',
      ...extra,
    });
    const limitOf = (answer: Record<string, unknown>, name: string) => (answer.limits as { name: string; remaining: number }[]).find((l) => l.name === name)!;
    const submissionsLeft = async () =>
      ((await request(t.app).get('/api/v1/automation/me').set(auth).expect(200)).body.limits as { name: string; remaining: number }[]).find((l) => l.name === 'agent-submissions')!.remaining;

    it('whoami names the key\'s agent and limits, never the account', async () => {
      const { isError, body: me } = await call(client, 'whoami');
      expect(isError).toBe(false);
      const http = (await request(t.app).get('/api/v1/automation/me').set(auth).expect(200)).body;
      expect({ ...(me.data as object), limits: undefined }).toEqual({ ...withoutNotice(http), limits: undefined });
      expect(me.data).toMatchObject({ agent: { id: agentId }, account: { handle: null } });
      expect(((me.data as { limits: { name: string }[] }).limits).map((l) => l.name).sort()).toEqual(LIMIT_NAMES);
      // The budget beside data is the same list.
      expect(me.limits).toEqual((me.data as { limits: unknown }).limits);
    });

    it('every private answer carries the remaining budget, counting down per request', async () => {
      const first = (await call(client, 'whoami')).body;
      const second = (await call(client, 'whoami')).body;
      for (const name of ['private:account', 'private:address']) expect(limitOf(second, name).remaining).toBe(limitOf(first, name).remaining - 1);
      // Reading writes nothing: the submission quota stays as it was.
      expect(limitOf(second, 'agent-submissions').remaining).toBe(limitOf(first, 'agent-submissions').remaining);
      expect(limitOf(first, 'agent-submissions')).toMatchObject({ limit: expect.any(Number), windowSeconds: 3600, resetSeconds: expect.any(Number) });
    });

    it('get_queue answers the queue of the HTTP API, with interchangeable cursors', async () => {
      const { body: page } = await call(client, 'get_queue', { limit: 5 });
      const http = (await request(t.app).get('/api/v1/automation/queue?limit=5').set(auth).expect(200)).body;
      // The HTTP items, without the legacy category object (categoryInfo is the category, as merchants give it).
      expect(page.data).toEqual(http.items.map(({ category: _legacy, ...item }: Record<string, unknown>) => item));
      expect(page.nextCursor).toEqual(http.nextCursor);
      expect(page.nextCursor).toEqual(expect.any(String));
      const next = await request(t.app).get(`/api/v1/automation/queue?limit=5&after=${encodeURIComponent(page.nextCursor as string)}`).set(auth).expect(200);
      const { body: nextByMcp } = await call(client, 'get_queue', { limit: 5, after: page.nextCursor });
      expect((nextByMcp.data as { id: string }[]).map((m) => m.id)).toEqual(next.body.items.map((m: { id: string }) => m.id));
      // Bound to its filters, as on the API.
      expect(await refused(client, 'get_queue', { limit: 5, after: page.nextCursor, retestAfterDays: 30 })).toMatchObject({ status: 400, errors: [{ parameter: 'after' }] });
      expect(await refused(client, 'get_queue', { limit: 51 })).toMatchObject({ status: 400, errors: [{ parameter: 'limit' }] });
      merchantId = (page.data as { id: string }[])[0]!.id;
    });

    it('validate_report answers what POST /api/v1/reports/validate answers, writing nothing and using no quota', async () => {
      const before = await reportCount();
      const quota = await submissionsLeft();
      const checked = await call(client, 'validate_report', body({ stage: 'BROWSE' }));
      expect(checked.isError).toBe(false);
      expect(checked.body.data).toMatchObject({ valid: true, wouldBe: 'created', report: { adId: merchantId, outcome: 'WORKS', outcomeDerived: true, stage: 'BROWSE', failureReason: null } });
      const http = await request(t.app).post('/api/v1/reports/validate').set(auth).send(body({ stage: 'BROWSE' })).expect(200);
      expect(checked.body.data).toEqual(withoutNotice(http.body));
      expect(await reportCount()).toBe(before);
      expect(await submissionsLeft()).toBe(quota);
      expect(limitOf(checked.body, 'agent-submissions').remaining).toBe(quota);
      // The same refusals as a submission.
      for (const args of [body({ privacy: false }), body({ agentId: T.agents[1]!.id }), body({ testedAt: '2027-01-01' })]) {
        const problem = await refused(client, 'validate_report', args);
        expect(problem).toEqual(withoutInstance((await request(t.app).post('/api/v1/reports/validate').set(auth).send(args)).body));
        expect(problem).toEqual(await refused(client, 'submit_report', args));
      }
      expect(await reportCount()).toBe(before);
    });

    it('submit_report creates a PENDING report; an identical one is unchanged, a different one a 409 worded for MCP', async () => {
      const before = await reportCount();
      const quota = await submissionsLeft();
      const created = await call(client, 'submit_report', body());
      expect(created.isError).toBe(false);
      const data = created.body.data as Record<string, unknown>;
      expect(data).toMatchObject({
        status: 'PENDING',
        unchanged: false,
        reviewUrl: expect.stringMatching(/\/reports\/.+\/review$/),
        url: `${TEST_BASE_URL}/api/v1/automation/reports/${data.id as string}`,
        updatedAt: expect.any(String),
      });
      expect(await reportCount()).toBe(before + 1);
      // The quota this write used, as the RateLimit headers would list it.
      expect(limitOf(created.body, 'agent-submissions').remaining).toBe(quota - 1);
      report = { id: data.id as string, updatedAt: data.updatedAt as string };

      const again = await call(client, 'submit_report', body());
      expect(again.body.data).toEqual({ ...data, unchanged: true });
      // The HTTP API agrees: the same answer to the same body.
      const http = await request(t.app).post('/api/v1/reports').set(auth).send(body()).expect(200);
      expect(again.body.data).toEqual(withoutNotice(http.body));
      // A dry run of the same body says so.
      const dry = await call(client, 'validate_report', body());
      expect(dry.body.data).toMatchObject({ wouldBe: 'unchanged', existingReport: { id: report.id, updatedAt: report.updatedAt } });

      const different = await refused(client, 'submit_report', body({ outcome: 'BLOCKED' }));
      expect(different).toMatchObject({ status: 409, reportId: report.id, updatedAt: report.updatedAt, type: expect.stringMatching(/duplicate-report$/) });
      expect(different).not.toHaveProperty('updateUrl');
      expect(different.detail).toContain('update_report');
      expect(different.detail).toContain(report.id);
      expect(problemWording(different)).not.toMatch(HTTP_WORDING);
      const httpDifferent = (await request(t.app).post('/api/v1/reports').set(auth).send(body({ outcome: 'BLOCKED' })).expect(409)).body;
      expect({ ...different, detail: undefined }).toEqual({ ...withoutInstance(httpDifferent), detail: undefined, updateUrl: undefined });
      expect(await reportCount()).toBe(before + 1);
    });

    it('refuses invalid reports as the API does, writing nothing', async () => {
      const before = await reportCount();
      const other = T.merchants[8]!.id;
      const cases: Record<string, unknown>[] = [
        { adId: other, agentId, privacy: false, outcome: 'WORKS' },
        { adId: other, agentId, privacy: true },
        { adId: other, agentId, privacy: true, outcome: 'WORKS', testedAt: '2026-11-31' },
        { adId: other, agentId, privacy: true, outcome: 'WORKS', testedAt: '2027-01-01' },
        { adId: other, agentId, privacy: true, outcome: 'WORKS', status: 'APPROVED' },
        { adId: other, agentId: T.agents[1]!.id, privacy: true, outcome: 'WORKS' },
        { adId: T.hidden.id, agentId, privacy: true, outcome: 'WORKS' },
      ];
      for (const args of cases) {
        const problem = await refused(client, 'submit_report', args);
        const res = await request(t.app).post('/api/v1/reports').set(auth).send(args);
        expect(problem).toEqual(withoutInstance(res.body));
        expect(problem.status).toBe(res.status);
      }
      // Too large: the same status and type, said of the report.
      const huge = { adId: other, agentId, privacy: true, outcome: 'WORKS', experience: 'x'.repeat(17_000) };
      const tooLarge = await refused(client, 'submit_report', huge);
      const res = await request(t.app).post('/api/v1/reports').set(auth).send(huge);
      expect(tooLarge).toMatchObject({ status: res.status, type: res.body.type, detail: 'The report must be at most 16384 bytes of JSON.' });
      expect(await reportCount()).toBe(before);
      const privacy = await refused(client, 'submit_report', cases[0]!);
      expect(privacy).toMatchObject({ status: 400, errors: [{ pointer: '#/privacy' }] });
    });

    it('list_my_reports and get_my_report show the report as the API does', async () => {
      const { body: list } = await call(client, 'list_my_reports', { merchant: merchantId });
      const http = (await request(t.app).get(`/api/v1/automation/reports?merchant=${merchantId}`).set(auth).expect(200)).body;
      expect(list.data).toEqual(http.items);
      expect(list.nextCursor).toEqual(http.nextCursor);
      expect(list.data).toMatchObject([{ id: report.id, status: 'PENDING', updatedAt: report.updatedAt, adId: merchantId, agentId }]);
      const { body: one } = await call(client, 'get_my_report', { id: report.id });
      expect(one.data).toEqual(withoutNotice((await request(t.app).get(`/api/v1/automation/reports/${report.id}`).set(auth).expect(200)).body));
      expect(await refused(client, 'get_my_report', { id: 'nope' })).toMatchObject({ status: 404 });
      expect(await refused(client, 'list_my_reports', { merchant: 'nope' })).toMatchObject({ status: 400, errors: [{ parameter: 'merchant' }] });
    });

    it('update_report: a stale version is a 409 and writes nothing; the current one returns the report to PENDING', async () => {
      const read = (await call(client, 'get_my_report', { id: report.id })).body.data as Record<string, unknown>;
      const changed = { ...read, capabilityResults: { ACCESS: 'WORKS', SEARCH: 'WORKS', CART: 'BLOCKED' }, experience: 'Cart button ignored the agent.', outcome: null };

      // What was read, sent back as is, is a harmless no-op whatever version is named.
      const same = await call(client, 'update_report', { id: report.id, version: '2020-01-01T00:00:00.000Z', report: read });
      expect(same.body.data).toMatchObject({ id: report.id, status: 'PENDING', updatedAt: report.updatedAt, unchanged: true });

      const stale = await refused(client, 'update_report', { id: report.id, version: '2020-01-01T00:00:00.000Z', report: changed });
      expect(stale).toMatchObject({ status: 409, updatedAt: report.updatedAt, type: expect.stringMatching(/stale-version$/) });
      const missing = await refused(client, 'update_report', { id: report.id, report: changed });
      expect(missing).toMatchObject({ status: 428, type: expect.stringMatching(/if-match-required$/), errors: [{ parameter: 'version' }] });
      const malformed = await refused(client, 'update_report', { id: report.id, version: 'W/"2020-01-01T00:00:00.000Z"', report: changed });
      expect(malformed).toMatchObject({ status: 400, errors: [{ parameter: 'version' }] });
      // In the channel's terms: the tool and its argument, never the HTTP header or method.
      for (const problem of [stale, missing, malformed]) {
        expect(problemWording(problem)).not.toMatch(HTTP_WORDING);
        expect(problemWording(problem)).toContain('version');
      }
      for (const problem of [stale, missing]) expect(problem.detail).toContain('update_report');
      const stored = await t.db.prisma.report.findUniqueOrThrow({ where: { id: report.id } });
      expect(stored.updatedAt.toISOString()).toBe(report.updatedAt);

      // A moderator's decision, at the test clock's time (as the moderation service records it).
      await t.db.prisma.report.update({ where: { id: report.id }, data: { status: 'APPROVED', updatedAt: t.clock.now() } });
      t.clock.advance(1000);
      const current = ((await call(client, 'get_my_report', { id: report.id })).body.data as { updatedAt: string }).updatedAt;
      const quota = await submissionsLeft();
      const updated = await call(client, 'update_report', { id: report.id, version: current, report: { ...changed, status: 'APPROVED' } });
      expect(updated.isError).toBe(false);
      expect(updated.body.data).toMatchObject({ id: report.id, status: 'PENDING', unchanged: false, url: `${TEST_BASE_URL}/api/v1/automation/reports/${report.id}` });
      expect((updated.body.data as { updatedAt: string }).updatedAt).not.toBe(current);
      expect(limitOf(updated.body, 'agent-submissions').remaining).toBe(quota - 1);
      const after = await t.db.prisma.report.findUniqueOrThrow({ where: { id: report.id } });
      expect(after).toMatchObject({ status: 'PENDING', experience: 'Cart button ignored the agent.' });
      // The HTTP API shows the same report.
      expect((await call(client, 'get_my_report', { id: report.id })).body.data).toEqual(
        withoutNotice((await request(t.app).get(`/api/v1/automation/reports/${report.id}`).set(auth).expect(200)).body),
      );
    });

    it('update_report refuses what PUT refuses, with pointers into report', async () => {
      const read = (await call(client, 'get_my_report', { id: report.id })).body.data as Record<string, unknown>;
      const version = read.updatedAt as string;
      expect(await refused(client, 'update_report', { id: report.id, version, report: { ...read, adId: T.merchants[9]!.id } })).toMatchObject({
        status: 400,
        errors: [{ pointer: '#/adId', detail: 'cannot change' }],
      });
      expect(await refused(client, 'update_report', { id: report.id, version, report: { ...read, region: '' } })).toMatchObject({
        status: 400,
        errors: [{ pointer: '#/region' }],
      });
      expect(await refused(client, 'update_report', { id: report.id, version, report: 'everything works' })).toMatchObject({
        status: 400,
        errors: [{ parameter: 'report' }],
      });
      expect(await refused(client, 'update_report', { id: report.id, version, report: read, extra: 1 })).toMatchObject({
        status: 400,
        errors: [{ parameter: 'extra' }],
      });
      expect(await refused(client, 'update_report', { id: '00000000-0000-7000-8000-000000000000', version, report: read })).toMatchObject({ status: 404 });
    });

    it('get_queue with retest "only": just the merchants due for a retest, each with existingReport, as the API lists them', async () => {
      t.clock.advance(8 * 86_400_000);
      const { body: due } = await call(client, 'get_queue', { retest: 'only', retestAfterDays: 7 });
      const http = (await request(t.app).get('/api/v1/automation/queue?retest=only&retestAfterDays=7').set(auth).expect(200)).body;
      expect(due.data).toEqual(http.items.map(({ category: _legacy, ...item }: Record<string, unknown>) => item));
      expect(due.data).toEqual([expect.objectContaining({ id: merchantId, existingReport: { id: report.id, status: 'PENDING', updatedAt: expect.any(String) } })]);
      const needsDays = await refused(client, 'get_queue', { retest: 'only' });
      expect(needsDays).toMatchObject({ status: 400, errors: [{ parameter: 'retest' }] });
      expect(problemWording(needsDays)).not.toMatch(HTTP_WORDING);
    });

    it('lists the agent-submission quota a write used in the RateLimit headers and in limits alike', async () => {
      const res = await fetch(new URL('/mcp', http.url), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${key}` },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name: 'submit_report', arguments: { adId: T.merchants[10]!.id, agentId, privacy: true, outcome: 'UNSURE' } },
        }),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      const policies = res.headers.get('ratelimit-policy') ?? '';
      for (const name of ['public', 'private:account', 'private:address', 'agent-submissions']) expect(policies).toContain(`"${name}"`);
      const answer = (await res.json()) as { result: CallToolResult };
      expect(answer.result.isError).toBeUndefined();
      seen.push(JSON.stringify(answer));
      const content = answer.result.structuredContent as Record<string, unknown>;
      const header = res.headers.get('ratelimit') ?? '';
      for (const name of LIMIT_NAMES) {
        const remaining = new RegExp(`"${name}"; r=(\\d+)`).exec(header)?.[1];
        expect(limitOf(content, name).remaining, name).toBe(Number(remaining));
      }
    });

    it('checked a real answer of every tool against its declared outputSchema', () => {
      expect([...conformed].sort()).toEqual([...PUBLIC_TOOLS, ...PRIVATE_TOOLS].sort());
    });

    it('sent no answer twice: the texts of the largest answers are a fraction of their JSON', () => {
      const sum = (field: 'json' | 'text') => [...textSizes.values()].reduce((n, size) => n + size[field], 0);
      expect([...textSizes.keys()].sort()).toEqual([...PUBLIC_TOOLS, ...PRIVATE_TOOLS].sort());
      if (process.env.MCP_SIZES) console.table(Object.fromEntries(textSizes));
      expect(sum('text')).toBeLessThan(sum('json') / 2);
    });
  });

  describe('HTTP', () => {
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      fetch(new URL('/mcp', http.url), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });

    it('an invalid key is an HTTP 401 with WWW-Authenticate, which the client reports', async () => {
      await expect(connect({ Authorization: 'Bearer acd_not-a-real-key' })).rejects.toSatisfy(
        (error: unknown) => error instanceof StreamableHTTPError && error.code === 401,
      );
      const res = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { Authorization: 'Bearer acd_not-a-real-key' });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain('Bearer');
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(await res.text()).not.toContain('acd_not-a-real-key');
      const malformed = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { Authorization: 'Basic abc' });
      expect(malformed.status).toBe(401);
    });

    it('GET and DELETE are 405 with Allow: POST (stateless: no stream, no session)', async () => {
      for (const method of ['GET', 'DELETE']) {
        const res = await fetch(new URL('/mcp', http.url), { method, headers: { Accept: 'text/event-stream' } });
        expect(res.status).toBe(405);
        expect(res.headers.get('allow')).toBe('POST');
        expect(await res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 }, id: null });
      }
    });

    it('refuses batches, bodies over 64 KB, malformed JSON and keys in the URL', async () => {
      const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
      const batch = await post([list, { ...list, id: 2 }]);
      expect(batch.status).toBe(400);
      expect(await batch.json()).toMatchObject({ error: { code: -32600 } });
      expect((await post({ ...list, params: { padding: 'x'.repeat(70_000) } })).status).toBe(413);
      expect((await post('{"jsonrpc":')).status).toBe(400);
      const inUrl = await fetch(new URL(`/mcp?key=${key}`, http.url), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(list) });
      expect(inUrl.status).toBe(400);
      expect(await inUrl.text()).not.toContain(key);
      // The transport's own checks still apply.
      const noAccept = await fetch(new URL('/mcp', http.url), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(list) });
      expect(noAccept.status).toBe(406);
      const text = await post('hello', { 'Content-Type': 'text/plain' });
      expect(text.status).toBe(415);
    });

    it('answers arguments that are not an object with -32602 and words, and an empty batch with -32600', async () => {
      for (const args of [null, [], [1, 2], 'list', 7, true]) {
        const res = await post({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'list_agents', arguments: args } });
        const body = (await res.json()) as { jsonrpc: string; id: unknown; error?: { code: number; message: string } };
        expect(body, JSON.stringify(args)).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32602 } });
        expect(body.error!.message).toBe('Invalid params: arguments must be an object of the tool\'s arguments (or left out), not ' + (args === null ? 'null' : Array.isArray(args) ? 'an array' : `a ${typeof args}`) + '.');
        expect(body.error!.message).not.toMatch(/invalid_type|expected record|\[\s*\{/);
      }
      for (const [params, words] of [
        ['call', 'params must be an object, not a string.'],
        [{ arguments: {} }, 'name must be the name of a tool (a string; tools/list lists them).'],
      ] as const) {
        const res = await post({ jsonrpc: '2.0', id: 'x', method: 'tools/call', params });
        expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 'x', error: { code: -32602, message: `Invalid params: ${words}` } });
      }
      // Left out, arguments are an empty object, as the protocol allows.
      const none = await post({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'list_agents' } });
      expect(((await none.json()) as { result?: CallToolResult }).result?.structuredContent).toMatchObject({ total: 4 });

      const empty = await post([]);
      expect(empty.status).toBe(400);
      expect(await empty.json()).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request: an empty batch. Send one JSON-RPC message per request.' }, id: null });
    });

    it('lets browser-based clients call from any origin, without credentials', async () => {
      const preflight = await fetch(new URL('/mcp', http.url), {
        method: 'OPTIONS',
        headers: { Origin: 'https://inspector.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization, content-type, mcp-protocol-version' },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
      expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('mcp-protocol-version');
      expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();
      const res = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { Origin: 'https://inspector.example' });
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-expose-headers')).toContain('WWW-Authenticate');
    });

    it('is not a session: no Mcp-Session-Id, and any request may come first', async () => {
      const res = await post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_agents', arguments: {} } });
      expect(res.status).toBe(200);
      expect(res.headers.get('mcp-session-id')).toBeNull();
      const answer = (await res.json()) as { result: CallToolResult };
      expect(answer.result.structuredContent).toMatchObject({ total: 4 });
    });
  });
});

describe('MCP limits', () => {
  let t: TestApp;
  let http: { server: Server; url: string };
  let T: Awaited<ReturnType<typeof contributionTargets>>;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp({ env: { LIMIT_PUBLIC_PER_MINUTE: '8', LIMIT_AGENT_SUBMISSIONS_PER_HOUR: '1' } });
    T = await contributionTargets(t.db.prisma, 3);
    ({ key } = await accountWithKey(t, 'limited@example.org', T.agents[0]!.id));
    http = await listen(t);
  });
  afterAll(async () => {
    await new Promise((resolve) => http.server.close(resolve));
    await t.close();
  });

  const connect = async (headers: Record<string, string> = {}) => {
    const client = new Client({ name: 'mcp-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', http.url), { requestInit: { headers } }));
    return client;
  };

  it('a spent submission quota is a 429 problem with retryAfter, and writes nothing', async () => {
    const client = await connect({ Authorization: `Bearer ${key}` });
    const submit = (merchantId: string) =>
      client.callTool({ name: 'submit_report', arguments: { adId: merchantId, agentId: T.agents[0]!.id, privacy: true, outcome: 'WORKS' } }) as Promise<CallToolResult>;
    expect((await submit(T.merchants[0]!.id)).isError).toBeUndefined();
    const before = await t.db.prisma.report.count();
    const second = await submit(T.merchants[1]!.id);
    expect(second.isError).toBe(true);
    expect(second.structuredContent).toBeUndefined();
    const problem = JSON.parse((second.content[0] as { text: string }).text) as { retryAfter: number };
    expect(problem).toMatchObject({ status: 429, type: expect.stringMatching(/rate-limited$/), retryAfter: expect.any(Number) });
    expect(problem.retryAfter).toBeGreaterThan(0);
    expect(await t.db.prisma.report.count()).toBe(before);
    await client.close();
  });

  it('the public limit counts every MCP request: past it, an HTTP 429 with Retry-After', async () => {
    t.clock.advance(60_000);
    const client = await connect();
    let refusal: unknown;
    for (let i = 0; i < 10 && !refusal; i++) {
      await client.listTools().catch((error: unknown) => (refusal = error));
    }
    expect(refusal).toBeInstanceOf(StreamableHTTPError);
    expect((refusal as StreamableHTTPError).code).toBe(429);
    const res = await fetch(new URL('/mcp', http.url), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    await client.close();
  });
});

describe('MCP tools when the database is down', () => {
  it('answer a 503 problem with retryAfter, never a database message', async () => {
    // Every query fails as a dropped connection does.
    const outage = Object.assign(new Error('Connection terminated unexpectedly (secret internals)'), { code: 'ECONNRESET' });
    const broken: PrismaClient = new Proxy(function () {}, {
      get: (_target, property) => (property === 'then' ? undefined : broken),
      apply: () => Promise.reject(outage),
    }) as unknown as PrismaClient;
    const quota = { consume: () => Promise.reject(outage), refund: () => Promise.reject(outage), usage: () => Promise.reject(outage) };
    const codec = cursorCodec('secret-for-the-test-0123456789', 'queue');
    const services = {
      prisma: broken,
      pool: { query: () => Promise.reject(outage) } as unknown as pg.Pool,
      baseUrl: TEST_BASE_URL,
      limits: testConfig().limits,
      clock: { now: () => new Date('2026-11-22T12:00:00Z') },
      submissions: { prisma: broken, baseUrl: TEST_BASE_URL, browserQuota: quota, agentQuota: quota },
      automation: { prisma: broken, baseUrl: TEST_BASE_URL, agentQuota: quota, queueCursors: codec, reportCursors: codec },
      counts: uncachedCounts(broken),
    };
    const key = { keyId: 'k', accountId: 'a', agentId: '00000000-0000-7000-8000-000000000001', agentSlug: 'agent' };
    const server = directoryMcpServer(services, { key, counted: [], onUsage: () => {}, log: createLogger('silent') });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'mcp-test', version: '1.0.0' });
    await client.connect(clientSide);
    const report = { adId: '00000000-0000-7000-8000-000000000002', agentId: key.agentId, privacy: true, outcome: 'WORKS' };
    const args: Record<string, Record<string, unknown>> = {
      get_merchant: { slugOrId: 'some-shop' },
      list_agent_merchants: { agent: 'some-agent' },
      get_report: { id: '00000000-0000-7000-8000-000000000004' },
      submit_report: report,
      validate_report: report,
      get_my_report: { id: '00000000-0000-7000-8000-000000000003' },
      update_report: { id: '00000000-0000-7000-8000-000000000003', version: '2026-11-22T12:00:00.000Z', report: { adId: '00000000-0000-7000-8000-000000000002', agentId: key.agentId, privacy: true, outcome: 'WORKS' } },
    };
    // The contribution schema is made without the database.
    for (const tool of TOOLS.filter((x) => x.name !== 'get_contribution_schema')) {
      const result = (await client.callTool({ name: tool.name, arguments: args[tool.name] ?? {} })) as CallToolResult;
      expect(result.isError, tool.name).toBe(true);
      expect(JSON.parse((result.content[0] as { text: string }).text), tool.name).toMatchObject({ status: 503, retryAfter: 5, type: expect.stringMatching(/service-unavailable$/) });
      expect(JSON.stringify(result)).not.toMatch(/terminated|internals|ECONNRESET|stack/i);
    }
    await client.close();
  });
});
