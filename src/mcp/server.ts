// The directory's MCP server: the tools of tools.ts on an McpServer of the official SDK, made
// for each request (stateless Streamable HTTP; the route and its guards: mcp/router.ts).
// A tool that succeeds answers structuredContent in the shape its outputSchema declares (the
// envelope of schemas.ts), and as text a summary that points to it, for clients that read only
// text (answerSummary).
// A tool that refuses answers a tool result with isError and, as its text, the problem JSON the HTTP API
// would answer (same code, title, status and errors, plus retryAfter where the API sends
// Retry-After), worded in the channel's terms (errors.ts); never a stack trace or a database
// message.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandler } from 'express';
import { z } from 'zod';
import packageJson from '../../package.json' with { type: 'json' };
import { classifyError } from '../web/middleware/errors.js';
import { appendRateLimitHeaders, problemBody } from '../web/problem.js';
import type { Logger } from '../logger.js';
import { mcpProblem } from './errors.js';
import { PROMPTS, promptResult } from './prompts.js';
import { CONTRIBUTION_SCHEMA_RESOURCE, contributionSchemaOf } from './public-tools.js';
import type { Caller, ToolServices } from './tool-kit.js';
import { TOOLS } from './tools.js';

const MCP_SERVER_NAME = 'agent-compatibility-directory';
const MCP_SERVER_VERSION: string = packageJson.version;

/**
 * Largest MCP message: a JSON-RPC envelope around a tool's arguments. A report inside it is
 * held to the API's own MAX_JSON_BODY_BYTES by the tool (tools.ts).
 */
export const MCP_MAX_BODY_BYTES = 64 * 1024;

/** What the server tells a client at initialize: the rules every tool description repeats. */
function mcpInstructions(baseUrl: string): string {
  return [
    'Agent-Compatibility Directory: a public directory of online merchants with community reports on how well AI agents can shop there',
    '(tasks ACCESS, SEARCH, DETAILS, LOGIN, CART, CHECKOUT, PURCHASE). Reading needs nothing; the tools marked KEY need an agent key,',
    `which the MCP client's connection carries as its bearer token (keys are issued on ${baseUrl}/profile/agents, one account and one agent each).`,
    'Agent flow: whoami, get_queue, test a merchant, validate_report, submit_report; later get_my_report, validate_report and update_report.',
    'The definitions, rules and cases of a report are in get_contribution_schema (the resource contribution-schema): read them first.',
    'The prompts report-test-run and find-checkout give the flow of tools and the questions to ask the person.',
    'Errors are isError results with a problem JSON: on 401 or 403 stop, on 429 or 503 wait retryAfter seconds, on 400 fix the named arguments.',
    'Everything here is community-reported experience, not guaranteed capability or confirmed merchant policy; sponsored listings are',
    'advertising, never evidence.',
  ].join(' ');
}

/**
 * The SDK validates arguments against a tool's zod schema before the tool runs, and answers a
 * failure in its own words. The tools validate with the API's schemas instead (tools.ts), so
 * the schema handed to the SDK accepts any object and only carries, as metadata, the JSON
 * Schema tools/list shows. Likewise for answers: the SDK would check them against a zod
 * schema; the answers are the API's own, checked against their schemas by the tests, and the
 * SDK only carries the declared outputSchema. Made once: metadata lives in zod's global registry.
 */
const SDK_SCHEMAS = new Map(
  TOOLS.map((tool) => [
    tool.name,
    {
      input: z.looseObject({}).meta(tool.inputJsonSchema),
      // `additionalProperties` stated, so that nothing of the carrier's own schema shows through.
      output: z.looseObject({}).meta({ additionalProperties: true, ...tool.outputJsonSchema }),
    },
  ]),
);

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The fields a summary keeps: what names a resource and what the next call needs. */
const SUMMARY_FIELDS = new Set([
  'id', 'key', 'slug', 'name', 'label', 'adId', 'agentId', 'status', 'outcome', 'outcomeDerived', 'updatedAt', 'unchanged', 'wouldBe',
  'reportCount', 'prefix', 'expiresAt',
]);

/**
 * A value cut down to SUMMARY_FIELDS: the resource (data, or each item of a list: depth 1) and
 * the objects in its fields (depth 2: its merchant, agent, existing report, the agents of a
 * merchant…) keep those of their fields that are not objects; deeper ones are left out, and so
 * is what is left empty.
 */
function brief(value: unknown, depth: number): unknown {
  if (Array.isArray(value)) {
    const items = value.filter(isRecord).map((item) => brief(item, depth)).filter((item) => item !== undefined);
    return items.length === 0 ? undefined : items;
  }
  if (!isRecord(value)) return value;
  if (depth > 2) return undefined;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    const kept = typeof field === 'object' && field !== null ? brief(field, depth + 1) : SUMMARY_FIELDS.has(key) ? field : undefined;
    if (kept !== undefined) out[key] = kept;
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

/** The note that opens every summary: where the whole answer is. */
export const SUMMARY_NOTE = 'A summary: the whole answer is this result\'s structuredContent, in the shape of the tool\'s outputSchema.';

/**
 * The text of an answer, for clients that read only text (see docs/decisions.md, "MCP answers
 * and schemas"): the note, the paging fields (total, page, pageSize, nextCursor), what remains of
 * each limit, the resource in brief, the methodology link and the disclaimer.
 */
export function answerSummary(body: Record<string, unknown>): Record<string, unknown> {
  const { data, methodology, disclaimer, limits, ...paging } = body;
  return {
    note: SUMMARY_NOTE,
    ...paging,
    ...(Array.isArray(limits) ? { remaining: Object.fromEntries(limits.filter(isRecord).map((limit) => [limit.name, limit.remaining])) } : {}),
    data: brief(data, 1) ?? (Array.isArray(data) ? [] : {}),
    methodology,
    disclaimer,
  };
}

/**
 * An answer: structuredContent, in the shape the outputSchema declares, and as text a summary of
 * it that points to structuredContent (never the same JSON twice).
 */
const toolResult = (body: Record<string, unknown>): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(answerSummary(body)) }],
  structuredContent: body,
});

/**
 * A refusal: the problem JSON as text only. structuredContent is what the outputSchema
 * describes, an answer; validating clients (the official TypeScript SDK's Client up to at
 * least 1.32, typescript-sdk issue #1943) check it against that schema even on isError results
 * and would throw instead of handing the problem over.
 */
const errorResult = (problem: Record<string, unknown>): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(problem) }],
  isError: true,
});

/** A refusal or failure as the problem the HTTP API would answer, classified the same way. */
function problemResult(error: unknown, baseUrl: string, log: Logger, tool: string): CallToolResult {
  const { problem, log: level } = classifyError(error);
  if (level) log[level]({ err: error, tool }, problem.status >= 500 ? 'MCP tool failed' : 'MCP tool input refused by the database');
  const retryAfter = Number(problem.headers?.['Retry-After']);
  return errorResult({ ...problemBody(mcpProblem(problem), { baseUrl }), ...(retryAfter > 0 ? { retryAfter } : {}) });
}

/** A server for one request of `caller`: every tool is listed; private ones refuse without a key. */
export function directoryMcpServer(services: ToolServices, caller: Caller & { log: Logger }): McpServer {
  const server = new McpServer(
    { name: MCP_SERVER_NAME, title: 'Agent-Compatibility Directory', version: MCP_SERVER_VERSION },
    { instructions: mcpInstructions(services.baseUrl) },
  );
  for (const tool of TOOLS) {
    const schemas = SDK_SCHEMAS.get(tool.name)!;
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: schemas.input,
        outputSchema: schemas.output,
        annotations: tool.annotations,
      },
      async (args) => {
        try {
          return toolResult(await tool.run(services, caller, args));
        } catch (error) {
          return problemResult(error, services.baseUrl, caller.log, tool.name);
        }
      },
    );
  }
  // The prompts: a person's usual requests as a flow of tools and the questions to ask (prompts.ts).
  for (const prompt of PROMPTS) {
    const config = { title: prompt.title, description: prompt.description };
    if (prompt.args) server.registerPrompt(prompt.name, { ...config, argsSchema: prompt.args }, (args) => promptResult(prompt, args, services.baseUrl));
    else server.registerPrompt(prompt.name, config, () => promptResult(prompt, {}, services.baseUrl));
  }
  // The whole contribution schema, as GET /api/v1/contribution-schema answers it.
  const resource = CONTRIBUTION_SCHEMA_RESOURCE;
  server.registerResource(
    resource.name,
    resource.uri(services.baseUrl),
    { title: resource.title, description: resource.description, mimeType: resource.mimeType },
    (uri) => ({ contents: [{ uri: uri.href, mimeType: resource.mimeType, text: JSON.stringify(contributionSchemaOf(services)) }] }),
  );
  return server;
}

/**
 * POST /mcp, after the guards and the JSON body parser: the SDK's stateless pattern, a new
 * server and transport for each request (no session id), answering JSON rather than an event
 * stream. The caller is what the guards established: the accepted key and the limits counted.
 */
export function mcpHandler(services: ToolServices): RequestHandler {
  return async (req, res) => {
    const server = directoryMcpServer(services, {
      key: res.locals.agentKey ?? null,
      counted: res.locals.rateLimits ?? [],
      onUsage: (usage) => appendRateLimitHeaders(res, usage),
      address: req.ip,
      log: req.log,
    });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: MCP_MAX_BODY_BYTES,
    });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    // Always the parsed body (null when it was not JSON): the transport never reads the stream itself.
    await transport.handleRequest(req, res, req.body ?? null);
  };
}
