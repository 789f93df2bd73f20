// The MCP tools: each is one endpoint of the JSON API, reached through the same zod schema and
// the same service call, answering the API's representation in one envelope (schemas.ts):
// { data, …, methodology, disclaimer }, plus `limits` for the tools that need a key. A tool
// parses its own arguments with the API's schema, so an invalid argument is the API's
// `validation-failed` problem, naming the same parameters (query-like tools) or JSON pointers
// (report bodies). server.ts registers them and turns every refusal into a problem tool result.
import { z } from 'zod';
import type { Clock } from '../clock.js';
import type { Config } from '../config/env.js';
import type { PrismaClient } from '../db/client.js';
import { Refusal, validationRefusal, type LimitUsage } from '../errors.js';
import type { AgentKeyContext } from '../web/middleware/bearer.js';
import { MAX_JSON_BODY_BYTES } from '../web/middleware/body.js';
import { OwnReportDetail, ownReportsQuery, queueQuery } from '../modules/automation/automation.schemas.js';
import {
  ownReportById,
  ownReports,
  queue,
  replaceReport,
  validateUpdate,
  whoami,
  type AutomationDeps,
  type KeyScope,
} from '../modules/automation/automation.service.js';
import { activeAgent, agents, categories } from '../modules/catalog/catalog.service.js';
import { independentParam, pageParam } from '../modules/directory/query.js';
import { listEnvelope, notice, ownReportApiUrl } from '../modules/directory/notice.js';
import { agentMerchantQuery, merchantQuery, type MerchantQuery } from '../modules/merchants/merchants.schemas.js';
import { merchantProfile, searchDirectory, searchDirectoryCompact, type DirectoryContext } from '../modules/merchants/merchants.service.js';
import { contributionSchema, CONTRIBUTION_SCHEMA_PATH } from '../modules/reports/contribution-schema.js';
import { publicReport, recentReports } from '../modules/reports/public-reports.service.js';
import { reportQuery } from '../modules/reports/public-reports.schemas.js';
import { reportReplacement, reportSubmission } from '../modules/reports/submission.schema.js';
import {
  reviewUrl,
  submitReport,
  validateSubmission,
  validationView,
  type SubmissionDeps,
} from '../modules/reports/submissions.service.js';
import { Answers, jsonSchemaOf, type JsonSchema } from './schemas.js';

/** The services behind the tools, built once per app (the same deps as the API's routers). */
export interface ToolServices {
  prisma: PrismaClient;
  baseUrl: string;
  clock: Clock;
  /**
   * The configured limits, which the contribution schema states. Until the router passes them
   * (mcp/router.ts), the contribution schema is not offered.
   */
  limits?: Config['limits'];
  submissions: SubmissionDeps;
  automation: AutomationDeps;
}

/** Who calls, as the HTTP request that carries the call established it. */
export interface Caller {
  /** The agent key the bearer guard accepted, or null for an anonymous request. */
  key: AgentKeyContext | null;
  /** The limits this request was counted against (whoami and every private answer list them). */
  counted: readonly LimitUsage[];
  /** A submission quota this call used (the router lists it in the RateLimit headers). */
  onUsage(usage: LimitUsage): void;
  /** The client's address: only its keyed hash is stored with a new report (moderators' signals). */
  address?: string;
}

export interface Tool {
  name: string;
  title: string;
  description: string;
  /** Public tools answer anyone; private ones need an agent key and answer `limits` too. */
  access: 'public' | 'private';
  /** The JSON Schema of the arguments, from the API's zod schema (what tools/list shows). */
  inputJsonSchema: JsonSchema;
  /** The answer (structuredContent) of a call that succeeds, and its JSON Schema (tools/list's outputSchema). */
  output: z.ZodObject;
  outputJsonSchema: JsonSchema;
  annotations: { readOnlyHint: boolean; idempotentHint: boolean; destructiveHint: boolean; openWorldHint: boolean };
  /**
   * Checks the key (private tools: refused without one, never hidden), validates the arguments
   * and answers the envelope around the body the HTTP API answers; throws refusals.
   */
  run(services: ToolServices, caller: Caller, args: Record<string, unknown>): Promise<Record<string, unknown>>;
}

type ToolInit = Omit<Tool, 'inputJsonSchema' | 'outputJsonSchema' | 'access' | 'run'> & {
  input: z.ZodType;
  run(services: ToolServices, caller: Caller, args: Record<string, unknown>): Promise<Record<string, unknown>>;
};

const publicTool = ({ input, ...init }: ToolInit): Tool => ({
  ...init,
  access: 'public',
  inputJsonSchema: jsonSchemaOf(input, 'input'),
  outputJsonSchema: jsonSchemaOf(init.output, 'output'),
});

/**
 * Query-string schemas read digit strings (intParam); MCP arguments are JSON, so numbers and
 * booleans are given to them as the strings a query string would carry, and a null is a
 * parameter left out. Errors name parameters, as for GET requests.
 */
function queryArgs<S extends z.ZodType>(schema: S, args: Record<string, unknown>): z.output<S> {
  const query = Object.fromEntries(
    Object.entries(args)
      .filter(([, value]) => value !== null && value !== undefined)
      .map(([name, value]) => [name, typeof value === 'number' || typeof value === 'boolean' ? String(value) : value]),
  );
  const result = schema.safeParse(query);
  if (!result.success) throw validationRefusal(result.error, 'query');
  return result.data;
}

/** A report, validated as the API validates it: errors are JSON pointers into it. */
function bodyArgs<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  // The API reads at most MAX_JSON_BODY_BYTES of report (as JSON); an MCP call carries no more.
  if (Buffer.byteLength(JSON.stringify(body ?? null)) > MAX_JSON_BODY_BYTES) {
    throw new Refusal({
      kind: 'too-large',
      code: 'payload-too-large',
      title: 'Report too large',
      detail: `The report must be at most ${MAX_JSON_BODY_BYTES} bytes of JSON.`,
    });
  }
  const result = schema.safeParse(body);
  if (!result.success) throw validationRefusal(result.error, 'body');
  return result.data;
}

// Each rule is said once in tools/list: the key and error rules in whoami's description, the
// report rules in submit_report's, the filters in search_merchants'; the other tools point there.
// The definitions of every key are in the contribution schema (get_contribution_schema, the
// resource contribution-schema), never repeated here.

const KEY_RULE =
  "Tools marked KEY need an agent key, carried by the MCP client's connection as its bearer token, never in an argument; " +
  'their answers add limits (what remains of each). Errors are isError results with a problem JSON: on 401 or 403 stop; ' +
  'on 429 or 503 wait retryAfter seconds; on 400 fix the arguments errors names.';
const REPORT_RULES =
  'Report only what you actually tested; set privacy true only after checking the report holds no personal or payment data and ' +
  'describes an actual, authorised test. Read the definitions and rules (get_contribution_schema) before filling in a field.';
const PAGED = 'Answer: { data: [...], total, page, pageSize }.';

/** A schema with its descriptions left out: a tool whose arguments another tool already describes. */
const withoutDescriptions = <T>(node: T): T =>
  (Array.isArray(node)
    ? node.map(withoutDescriptions)
    : node && typeof node === 'object'
      ? Object.fromEntries(Object.entries(node).filter(([key]) => key !== 'description').map(([key, value]) => [key, key === 'properties' || typeof value === 'object' ? withoutDescriptions(value) : value]))
      : node) as T;

const READ = { readOnlyHint: true, idempotentHint: true, destructiveHint: false, openWorldHint: false };

// Tools for anyone (spec 4.1).

const pageOnly = z.strictObject({ page: pageParam.describe('Page number, from 1; 24 items a page.') });
/** `independent` where search_merchants has already said what it means. */
const independentArg = independentParam.describe('"only" (the default) or "all", as in search_merchants.');
const merchantId = z.strictObject({
  slugOrId: z.string().min(1).max(200).describe('The merchant\'s slug (e.g. "example-shop") or id (a UUID), as search_merchants gives them.'),
  independent: independentArg,
});

const directory = (services: ToolServices): DirectoryContext => ({ prisma: services.prisma, baseUrl: services.baseUrl, now: services.clock.now() });

/** GET /merchants and GET /agents/{slug}/merchants: the standard or the compact view. */
async function merchantPage(services: ToolServices, q: MerchantQuery, agent?: Parameters<typeof searchDirectory>[2]) {
  const { total, data }: { total: number; data: unknown[] } =
    q.view === 'compact' ? await searchDirectoryCompact(directory(services), q, agent) : await searchDirectory(directory(services), q, agent);
  return listEnvelope(services, data, total, q.page);
}

const searchMerchants = publicTool({
  name: 'search_merchants',
  title: 'Search merchants',
  description:
    "Search the directory's merchants, 24 a page; each argument's description says what it keeps, and unknown filters and values are refused. " +
    `Sponsored listings come first and are advertising, never evidence. ${PAGED}`,
  input: merchantQuery,
  output: Answers.merchantList,
  annotations: READ,
  async run(services, _caller, args) {
    return merchantPage(services, queryArgs(merchantQuery, args));
  },
});

const agentSlug = z.string().min(1).max(100).describe('The agent\'s slug, as list_agents gives it (e.g. "example-agent").');
const agentMerchantsDoc = z.strictObject({ agent: agentSlug, ...agentMerchantQuery.shape });

const listAgentMerchants: Tool = (() => {
  const tool = publicTool({
  name: 'list_agent_merchants',
  title: "List one agent's merchants",
  description: "The merchants with a summary of one agent (its slug): the filters of search_merchants but agent. An unknown agent is a 404. " + PAGED,
  input: agentMerchantsDoc,
  output: Answers.merchantList,
  annotations: READ,
  async run(services, _caller, args) {
    const { agent: slug, ...filters } = args;
    // As on the API: the filters are validated first, then the agent of the path is looked up.
    const q = queryArgs(agentMerchantQuery, filters);
    const { agent } = queryArgs(z.strictObject({ agent: agentSlug }), { agent: slug });
    return merchantPage(services, q, await activeAgent(directory(services), agent));
  },
  });
  // The filters are search_merchants', described there once.
  const { properties } = tool.inputJsonSchema as { properties: Record<string, JsonSchema> };
  return { ...tool, inputJsonSchema: { ...tool.inputJsonSchema, properties: { ...withoutDescriptions(properties), agent: properties.agent } } };
})();

const getMerchant = publicTool({
  name: 'get_merchant',
  title: 'Get a merchant',
  description:
    "One merchant's profile with a summary per active agent: its verdict, reach, status per task, counts, dates, evidence (report ids for get_report), the versions reported and any regression.",
  input: merchantId,
  output: Answers.merchant,
  annotations: READ,
  async run(services, _caller, args) {
    const { slugOrId, independent } = queryArgs(merchantId, args);
    return { data: await merchantProfile(directory(services), slugOrId, independent), ...notice(services) };
  },
});

const listAgents = publicTool({
  name: 'list_agents',
  title: 'List agents',
  description: `The active AI agents: id, slug (the agent argument elsewhere), name, vendor, versions seen. ${PAGED}`,
  input: pageOnly,
  output: Answers.agentList,
  annotations: READ,
  async run(services, _caller, args) {
    const { page } = queryArgs(pageOnly, args);
    const { total, data } = await agents(directory(services), page);
    return listEnvelope(services, data, total, page);
  },
});

const listCategories = publicTool({
  name: 'list_categories',
  title: 'List categories',
  description: 'The merchant categories: name, slug (the category argument elsewhere), page URL, number of public merchants.',
  input: pageOnly,
  output: Answers.categoryList,
  annotations: READ,
  async run(services, _caller, args) {
    const { page } = queryArgs(pageOnly, args);
    const { total, data } = await categories(directory(services), page);
    return listEnvelope(services, data, total, page);
  },
});

const listReports = publicTool({
  name: 'list_reports',
  title: 'List recent reports',
  description: 'Published (approved) reports, newest first: agent (a slug), merchant (an id), outcome, independent, page.',
  input: reportQuery.extend({ independent: independentArg }),
  output: Answers.reportList,
  annotations: READ,
  async run(services, _caller, args) {
    const q = queryArgs(reportQuery, args);
    const { total, data } = await recentReports(directory(services), q);
    return listEnvelope(services, data, total, q.page);
  },
});

const publicReportId = z.strictObject({
  id: z.string().min(1).max(100).describe('The report id: the reportId of evidence in get_merchant, or an id from list_reports.'),
});

const getReport = publicTool({
  name: 'get_report',
  title: 'Get a published report',
  description: "One published report by id: what an agent found at a merchant, the evidence behind get_merchant's statuses.",
  input: publicReportId,
  output: Answers.report,
  annotations: READ,
  async run(services, _caller, args) {
    const { id } = queryArgs(publicReportId, args);
    return { data: await publicReport(directory(services), id), ...notice(services) };
  },
});

const noArgs = z.strictObject({});

/** The contribution schema, as GET /api/v1/contribution-schema answers it (also the MCP resource). */
export function contributionSchemaOf(services: ToolServices) {
  if (!services.limits) throw new Error('The MCP tools were built without the configured limits.');
  return contributionSchema(services.baseUrl, services.limits);
}

export const CONTRIBUTION_SCHEMA_RESOURCE = {
  name: 'contribution-schema',
  title: 'Contribution schema',
  description:
    'Everything needed to report correctly: every task, outcome, stage and failure reason defined, the rules and the cases real runs hit, ' +
    'the privacy conditions, the limits and the JSON Schema of a report.',
  mimeType: 'application/json',
  uri: (baseUrl: string) => `${baseUrl}${CONTRIBUTION_SCHEMA_PATH}`,
};

const getContributionSchema = publicTool({
  name: 'get_contribution_schema',
  title: 'Get the contribution schema',
  description: 'The contribution schema (also a resource): the definitions, rules, cases and limits every report follows.',
  input: noArgs,
  output: Answers.contributionSchema,
  annotations: READ,
  async run(services, _caller, args) {
    queryArgs(noArgs, args);
    return { data: contributionSchemaOf(services), ...notice(services) };
  },
});

// Tools for an agent key (spec 4.2, 4.3): the key's account and agent only.

/** The key's scope; a call without a key is refused with what to do (spec 5 rule 8: do not retry as is). */
function keyOf(services: ToolServices, caller: Caller): AgentKeyContext {
  if (caller.key) return caller.key;
  throw new Refusal({
    kind: 'unauthenticated',
    code: 'missing-credentials',
    title: 'Agent key required',
    detail:
      "This tool needs an agent key. Configure the MCP client's connection with the key as its bearer token; " +
      `keys are issued on ${services.baseUrl}/profile/agents. Do not retry without one; never put the key in an argument or a URL.`,
  });
}

const scopeOf = (key: AgentKeyContext): KeyScope => ({ accountId: key.accountId, agentId: key.agentId });
/**
 * What remains of every limit the call counted against: the request's own limits (public,
 * private per address and per account), then the account's changed-submissions quota, as this
 * call used it or, when it wrote nothing, as it stands. The RateLimit headers' partition key
 * (a hash) stays out, as in whoami.
 */
async function remainingBudget(services: ToolServices, caller: Caller, key: AgentKeyContext, written: LimitUsage[]) {
  const submissions = written.at(-1) ?? (await services.automation.agentQuota.usage(key.accountId));
  const byName = new Map<string, LimitUsage>();
  for (const usage of [...caller.counted, submissions]) byName.set(usage.name, usage);
  return [...byName.values()].map(({ partition: _partition, ...usage }) => usage);
}

type PrivateInit = Omit<ToolInit, 'run'> & {
  run(services: ToolServices, caller: Caller, key: AgentKeyContext, args: Record<string, unknown>): Promise<Record<string, unknown>>;
};

const privateTool = ({ input, run, ...init }: PrivateInit): Tool => ({
  ...init,
  access: 'private',
  inputJsonSchema: jsonSchemaOf(input, 'input'),
  outputJsonSchema: jsonSchemaOf(init.output, 'output'),
  async run(services, caller, args) {
    // The key first: without one, nothing else is looked at.
    const key = keyOf(services, caller);
    const written: LimitUsage[] = [];
    const answer = await run(
      services,
      {
        ...caller,
        onUsage(usage) {
          written.push(usage);
          caller.onUsage(usage);
        },
      },
      key,
      args,
    );
    return { ...answer, limits: await remainingBudget(services, caller, key, written) };
  },
});

const reportId = z.strictObject({ id: z.string().min(1).max(100).describe('The report id, as submit_report or list_my_reports gave it.') });

const whoamiTool = privateTool({
  name: 'whoami',
  title: 'Who am I',
  description: `KEY. Call it first: the key's agent (its id is the agentId of every report), the key (never the secret) and every limit. ${KEY_RULE}`,
  input: noArgs,
  output: Answers.whoami,
  annotations: READ,
  async run(services, caller, key, args) {
    queryArgs(noArgs, args);
    const me = await whoami(services.automation, { ...scopeOf(key), keyId: key.keyId }, caller.counted);
    return { data: me, ...notice(services) };
  },
});

const getQueue = privateTool({
  name: 'get_queue',
  title: 'Get the work queue',
  description:
    'KEY. The merchants you have not reported for your agent, oldest first; total and remaining count the pass; nothing is reserved. ' +
    'Pass nextCursor as after, with the same filters; null ends the pass. retestAfterDays (7-365) adds the merchants whose report by you ' +
    'is older; retest "only" lists just those, each with existingReport: test again, then update_report it. After an empty pass wait an hour.',
  input: queueQuery,
  output: Answers.queue,
  annotations: READ,
  async run(services, _caller, key, args) {
    const query = queryArgs(queueQuery, args);
    const { items, nextCursor, total, remaining } = await queue(services.automation, scopeOf(key), query, services.clock.now());
    return { data: items.map(({ category: _legacy, ...item }) => item), nextCursor, total, remaining, ...notice(services) };
  },
});

const submitReportTool = privateTool({
  name: 'submit_report',
  title: 'Submit a report',
  description:
    "KEY. Report one test of one merchant with the key's agent; it stays PENDING until a moderator approves it. One report per merchant " +
    'and agent: the same report again answers unchanged true; a different one is refused (409 duplicate-report): change yours with ' +
    `update_report. Check it first with validate_report. ${REPORT_RULES}`,
  input: reportSubmission,
  output: Answers.submission,
  annotations: { readOnlyHint: false, idempotentHint: true, destructiveHint: false, openWorldHint: false },
  async run(services, caller, key, args) {
    const body = bodyArgs(reportSubmission, args);
    const submitter = { channel: 'AGENT_KEY' as const, accountId: key.accountId, agentId: key.agentId, address: caller.address };
    const result = await submitReport(services.submissions, body, submitter, services.clock.now());
    if (result.kind === 'created') caller.onUsage(result.usage);
    const { report } = result;
    // The bearer answer of POST /api/v1/reports.
    return {
      data: {
        id: report.id,
        status: report.status,
        reviewUrl: reviewUrl(services.baseUrl, report.id),
        updatedAt: report.updatedAt.toISOString(),
        url: ownReportApiUrl(services, report.id),
        unchanged: result.kind === 'unchanged',
      },
      ...notice(services),
    };
  },
});

const listMyReports = privateTool({
  name: 'list_my_reports',
  title: 'List my reports',
  description:
    "KEY. Your reports for the key's agent, newest first, each as get_my_report gives it (rejected ones with the moderators' feedback). " +
    'Pass nextCursor as after; merchant (an id) narrows to one merchant.',
  input: ownReportsQuery,
  output: Answers.ownReportList,
  annotations: READ,
  async run(services, _caller, key, args) {
    const query = queryArgs(ownReportsQuery, args);
    const { items, nextCursor } = await ownReports(services.automation, scopeOf(key), query);
    return { data: items, nextCursor, ...notice(services) };
  },
});

const getMyReport = privateTool({
  name: 'get_my_report',
  title: 'Get one of my reports',
  description:
    'KEY. One of your reports: fields, status, moderation feedback and updatedAt (the version update_report needs). ' +
    'outcomeDerived true: outcome was derived; when you change capabilityResults, send outcome null to derive it again (sent back as read, it is refused).',
  input: reportId,
  output: Answers.ownReport,
  annotations: READ,
  async run(services, _caller, key, args) {
    const { id } = queryArgs(reportId, args);
    return { data: await ownReportById(services.automation, scopeOf(key), id), ...notice(services) };
  },
});

/** A report's version as read: its updatedAt, an ISO 8601 UTC instant. */
const VERSION = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;
const version = z
  .string()
  .max(100)
  .regex(VERSION, 'must be the report\'s updatedAt as read, e.g. "2026-01-31T12:00:00.000Z"')
  .describe(
    "The report's updatedAt from your latest read, e.g. \"2026-01-31T12:00:00.000Z\": the change applies only at this version.",
  );

/** update_report's arguments: which report (id), at which version, and the complete report. */
const updateArgs = z.strictObject({
  id: reportId.shape.id,
  version: version.optional(),
  report: z.record(z.string(), z.unknown()),
});

/**
 * What tools/list shows for update_report: `report` is the replacement body of the API, each
 * field of the read shape that is sent back and ignored typed as get_my_report answers it.
 */
const updateArgsSchema: JsonSchema = (() => {
  const doc = jsonSchemaOf(
    z.strictObject({
      id: reportId.shape.id,
      version,
      report: reportReplacement.describe(
        "The complete report, with submit_report's arguments as its fields: data of get_my_report with your changes. The server's " +
          'fields (id, status, updatedAt, merchant, …) may be sent back as read and are ignored. Left out or null: not given.',
      ),
    }),
    'input',
  ) as { properties: { report: JsonSchema & { properties: Record<string, JsonSchema> } } };
  const read = jsonSchemaOf(OwnReportDetail, 'input') as { properties: Record<string, JsonSchema> };
  const report = doc.properties.report;
  // The fields are submit_report's, described there once; the server's fields, sent back as
  // read and ignored, are let through rather than listed.
  for (const [name, schema] of Object.entries(report.properties)) {
    if (schema.type === undefined && !read.properties[name]) throw new Error(`update_report: ${name} is neither typed nor part of the report as read`);
  }
  // The fields are submit_report's arguments, typed and described there once (issue 35's size
  // bound); the server's fields, sent back as read, are ignored. The tool checks the report with
  // the API's schema, naming each field it refuses.
  doc.properties.report = { type: 'object', description: report.description, properties: {}, additionalProperties: true };
  return doc as JsonSchema;
})();

const updateReport: Tool = {
  ...privateTool({
    name: 'update_report',
    title: 'Update my report',
    description:
      'KEY. Replace one of your reports with report, if still at version; its merchant and agent cannot change. The same content ' +
      'answers unchanged true; a stale version is refused (409 stale-version): read it again, re-apply your change. ' +
      'A changed report goes back to PENDING. Dry run: validate_report.',
    input: updateArgs,
    output: Answers.replacement,
    annotations: { readOnlyHint: false, idempotentHint: true, destructiveHint: true, openWorldHint: false },
    async run(services, caller, key, args) {
      const { id, version: named, report } = queryArgs(updateArgs, args);
      const body = bodyArgs(reportReplacement, report);
      const { usage, ...result } = await replaceReport(services.automation, scopeOf(key), {
        id,
        ifMatch: named,
        body,
        now: services.clock.now(),
        address: caller.address,
      });
      if (usage) caller.onUsage(usage);
      return { data: result, ...notice(services) };
    },
  }),
  inputJsonSchema: updateArgsSchema,
};

/**
 * validate_report's arguments: a new report's fields (as submit_report's), or an update (id,
 * version and report, as update_report's). The two are told apart by id.
 */
const validateArgsSchema: JsonSchema = (() => {
  const update = updateArgsSchema as { properties: Record<string, JsonSchema> };
  // A new report's fields are submit_report's arguments, typed there once: let through here.
  return {
    type: 'object',
    properties: {
      id: { ...update.properties.id, description: 'To check an update: the report id (then give version and report, not the fields).' },
      version: update.properties.version,
      report: { type: 'object', properties: {}, additionalProperties: true, description: "To check an update: update_report's report." },
    },
    additionalProperties: true,
  };
})();

const validateReport: Tool = {
  ...privateTool({
    name: 'validate_report',
    title: 'Check a report without sending it',
    description:
      'KEY. A dry run: the checks and refusals of submit_report (given its arguments) or of update_report (given id, version ' +
      'and report), nothing written and no submission quota used. Answers valid true, wouldBe (created, updated or unchanged), the ' +
      'report as it would be stored, and notes on how it was read.',
    input: z.looseObject({}),
    output: Answers.validation,
    annotations: READ,
    async run(services, _caller, key, args) {
      const submitter = { channel: 'AGENT_KEY' as const, accountId: key.accountId, agentId: key.agentId };
      const now = services.clock.now();
      if (args.id === undefined || args.id === null) {
        const body = bodyArgs(reportSubmission, args);
        return { data: validationView(services, await validateSubmission(services.submissions, body, submitter, now)), ...notice(services) };
      }
      const { id, version: named, report } = queryArgs(updateArgs, args);
      const body = bodyArgs(reportReplacement, report);
      const result = await validateUpdate(services.automation, scopeOf(key), { id, ifMatch: named, body, now });
      return { data: validationView(services, result), ...notice(services) };
    },
  }),
  inputJsonSchema: validateArgsSchema,
};

/** Every tool, in the order tools/list gives them. */
export const TOOLS: readonly Tool[] = [
  searchMerchants,
  getMerchant,
  listAgents,
  listCategories,
  listAgentMerchants,
  listReports,
  getReport,
  getContributionSchema,
  whoamiTool,
  getQueue,
  validateReport,
  submitReportTool,
  listMyReports,
  getMyReport,
  updateReport,
];
