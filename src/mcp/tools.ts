// The MCP tools: each is one endpoint of the JSON API, reached through the same zod schema,
// the same service call and the same answer body. A tool parses its own arguments with the
// API's schema, so an invalid argument is the API's `validation-failed` problem, naming the
// same parameters (query-like tools) or JSON pointers (report bodies). server.ts registers
// them and turns every refusal into a problem tool result.
import { z } from 'zod';
import type { Clock } from '../clock.js';
import type { PrismaClient } from '../db/client.js';
import { validationRefusal, type LimitUsage } from '../errors.js';
import type { AgentKeyContext } from '../http/middleware/bearer.js';
import { MAX_JSON_BODY_BYTES } from '../http/middleware/body.js';
import { HttpProblem } from '../http/problem.js';
import { ownReportsQuery, queueQuery } from '../modules/automation/automation.schemas.js';
import {
  ownReportById,
  ownReports,
  queue,
  replaceReport,
  whoami,
  type AutomationDeps,
  type KeyScope,
} from '../modules/automation/automation.service.js';
import { agents, categories } from '../modules/catalog/catalog.service.js';
import { pageParam } from '../modules/directory/query.js';
import { listEnvelope, notice, ownReportApiUrl } from '../modules/directory/notice.js';
import { merchantQuery } from '../modules/merchants/merchants.schemas.js';
import { merchantProfile, searchDirectory, searchDirectoryCompact, type DirectoryContext } from '../modules/merchants/merchants.service.js';
import { reportReplacement, reportSubmission } from '../modules/reports/submission.schema.js';
import { reviewUrl, submitReport, type SubmissionDeps } from '../modules/reports/submissions.service.js';

/** The services behind the tools, built once per app (the same deps as the API's routers). */
export interface ToolServices {
  prisma: PrismaClient;
  baseUrl: string;
  clock: Clock;
  submissions: SubmissionDeps;
  automation: AutomationDeps;
}

/** Who calls, as the HTTP request that carries the call established it. */
export interface Caller {
  /** The agent key the bearer guard accepted, or null for an anonymous request. */
  key: AgentKeyContext | null;
  /** The limits this request was counted against (whoami lists them). */
  counted: readonly LimitUsage[];
  /** A submission quota this call used (the router lists it in the RateLimit headers). */
  onUsage(usage: LimitUsage): void;
}

export interface Tool {
  name: string;
  title: string;
  description: string;
  /** The JSON Schema of the arguments, from the API's zod schema (what tools/list shows). */
  inputJsonSchema: Record<string, unknown>;
  annotations: { readOnlyHint: boolean; idempotentHint: boolean; destructiveHint: boolean; openWorldHint: boolean };
  /**
   * Checks the key (private tools: refused without one, never hidden), validates the arguments
   * and answers the body the HTTP API answers; throws refusals.
   */
  run(services: ToolServices, caller: Caller, args: Record<string, unknown>): Promise<Record<string, unknown>>;
}

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

/** A JSON body (a report), validated as the API validates it: errors are JSON pointers into it. */
function bodyArgs<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  // The API reads at most MAX_JSON_BODY_BYTES of report (as JSON); an MCP call carries no more.
  if (Buffer.byteLength(JSON.stringify(body ?? null)) > MAX_JSON_BODY_BYTES) {
    throw new HttpProblem({
      status: 413,
      code: 'payload-too-large',
      title: 'Request body too large',
      detail: `The request body must be at most ${MAX_JSON_BODY_BYTES} bytes.`,
    });
  }
  const result = schema.safeParse(body);
  if (!result.success) throw validationRefusal(result.error, 'body');
  return result.data;
}

/**
 * The JSON Schema tools/list shows for an API schema: its input side (integers where the
 * query string carries digits, as the OpenAPI document says), with named schemas inlined so
 * that each tool's schema stands alone.
 */
function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const generated = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', target: 'draft-7' }) as Record<string, unknown>;
  const { $schema: _schema, definitions, ...root } = generated;
  const named = (definitions ?? {}) as Record<string, unknown>;
  const inline = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(inline);
    if (!node || typeof node !== 'object') return node;
    const { $ref: ref, allOf, ...rest } = node as { $ref?: unknown; allOf?: unknown[] } & Record<string, unknown>;
    if (typeof ref === 'string' && ref.startsWith('#/definitions/')) return inline(named[ref.slice('#/definitions/'.length)]);
    // A described reference comes as { description, allOf: [{ $ref }] }: one schema with the description.
    if (allOf?.length === 1) return { ...(inline(allOf[0]) as object), ...(inline(rest) as object) };
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, inline(value)]));
  };
  return inline(root) as Record<string, unknown>;
}

// The rules the descriptions repeat, so that an agent reading one tool has them at hand.

const KEY_RULE =
  'Needs an agent key: the MCP client sends "Authorization: Bearer <key>" as an HTTP header on every request to this endpoint ' +
  '(keys are issued on /profile/agents; never put a key in a URL or an argument).';
const ERROR_RULE =
  'Errors come back as isError results holding a problem JSON (type, title, status, detail, errors, retryAfter): ' +
  'on status 401 or 403 stop and do not retry with the same key; on 429 or 503 wait retryAfter seconds first; on 400 fix the inputs named in errors.';
const REPORT_RULES =
  'Rules: report only what you actually tested (capabilityResults holds only the tasks you attempted); ' +
  'privacy must be true, and only after checking that the report has no personal or payment data (no names, e-mails, addresses, ' +
  'order or card numbers in experience or task), describes an actual authorized test and contains no instructions for bypassing a ' +
  "site's protections; agentId is the key's agent (whoami names it); testedAt is the UTC date of the test, YYYY-MM-DD, not in the future; " +
  'region is an ISO 3166-1 alpha-2 country code such as DE; experience is at most 4,000 characters; the report is at most 16,384 bytes of JSON.';
const DISCLAIMER_RULE =
  'Answers are community-reported experience, not guaranteed capability or confirmed merchant policy; sponsored listings are advertising, never evidence.';

const READ = { readOnlyHint: true, idempotentHint: true, destructiveHint: false, openWorldHint: false };

// Tools for anyone (spec 4.1).

const pageOnly = z.strictObject({ page: pageParam.describe('Page number, from 1; 24 items a page.') });
const merchantId = z.strictObject({
  slugOrId: z.string().min(1).max(200).describe('The merchant\'s slug (e.g. "example-shop") or id (a UUID), as search_merchants gives them.'),
});

const directory = (services: ToolServices): DirectoryContext => ({ prisma: services.prisma, baseUrl: services.baseUrl, now: services.clock.now() });

const searchMerchants: Tool = {
  name: 'search_merchants',
  title: 'Search merchants',
  description:
    'Search the directory of merchants (GET /api/v1/merchants, same filters and answer): q, category, agent, outcome, stage, region, days, ' +
    'minReports, reaches, task, taskStatus, minConfidence, sort, page, view. 24 merchants a page; total says how many match. ' +
    "Each agent summary has a reach: how far that agent gets at the merchant on the ladder ACCESS, SEARCH, DETAILS, CART, CHECKOUT, PURCHASE " +
    '(level 0-6), where it stops and why, and a confidence (low, medium, high); LOGIN is beside the ladder. With an agent: ' +
    'reaches=CHECKOUT lists merchants where the agent gets at least that far; task=CART with taskStatus=blocked,unsupported lists those where ' +
    'that task has one of those statuses (supported, partial, blocked, unsupported, unknown, untested); minConfidence=medium|high keeps reaches ' +
    'at least that sure; sort=reach puts the furthest reach first, then the surest, then the newest report (sort=rating is an older score ' +
    'of how reliably tasks work, not how far). These need agent, and task and taskStatus go together: otherwise a 400 names the rule. ' +
    'Sponsored listings come first (sponsored true), then the chosen order. ' +
    'view "compact" answers status and confidence per agent and task only, a far smaller answer; prefer it unless you need evidence. ' +
    `Unknown filters and values are refused. ${DISCLAIMER_RULE}`,
  inputJsonSchema: jsonSchemaOf(merchantQuery),
  annotations: READ,
  async run(services, _caller, args) {
    const q = queryArgs(merchantQuery, args);
    const { total, data }: { total: number; data: unknown[] } =
      q.view === 'compact' ? await searchDirectoryCompact(directory(services), q) : await searchDirectory(directory(services), q);
    return listEnvelope(services, data, total, q.page);
  },
};

const getMerchant: Tool = {
  name: 'get_merchant',
  title: 'Get a merchant',
  description:
    'One merchant\'s profile with a summary for every active agent (GET /api/v1/merchants/{slugOrId}): status per task ' +
    `(ACCESS … PURCHASE), confidence, counts, dates and evidence links. ${DISCLAIMER_RULE}`,
  inputJsonSchema: jsonSchemaOf(merchantId),
  annotations: READ,
  async run(services, _caller, args) {
    const { slugOrId } = queryArgs(merchantId, args);
    return { data: await merchantProfile(directory(services), slugOrId), ...notice(services) };
  },
};

const listAgents: Tool = {
  name: 'list_agents',
  title: 'List agents',
  description:
    'The active AI agents of the directory (GET /api/v1/agents): id, slug (the agent filter of search_merchants), name, vendor. 24 a page.',
  inputJsonSchema: jsonSchemaOf(pageOnly),
  annotations: READ,
  async run(services, _caller, args) {
    const { page } = queryArgs(pageOnly, args);
    const { total, data } = await agents(directory(services), page);
    return listEnvelope(services, data, total, page);
  },
};

const listCategories: Tool = {
  name: 'list_categories',
  title: 'List categories',
  description:
    'The canonical merchant categories (GET /api/v1/categories): name, slug (the category filter of search_merchants and get_queue), ' +
    'page URL and number of public merchants. 24 a page.',
  inputJsonSchema: jsonSchemaOf(pageOnly),
  annotations: READ,
  async run(services, _caller, args) {
    const { page } = queryArgs(pageOnly, args);
    const { total, data } = await categories(directory(services), page);
    return listEnvelope(services, data, total, page);
  },
};

// Tools for an agent key (spec 4.2, 4.3): the key's account and agent only.

/** The key's scope; a call without a key is refused with what to do (spec 5 rule 8: do not retry as is). */
function keyOf(services: ToolServices, caller: Caller): AgentKeyContext {
  if (caller.key) return caller.key;
  throw new HttpProblem({
    status: 401,
    code: 'missing-credentials',
    title: 'Agent key required',
    detail:
      'This tool needs an agent key. Configure the MCP client to send the HTTP header "Authorization: Bearer <key>" on its requests ' +
      `to this endpoint; keys are issued on ${services.baseUrl}/profile/agents. Do not retry without one; never put the key in an argument or a URL.`,
  });
}

const scopeOf = (key: AgentKeyContext): KeyScope => ({ accountId: key.accountId, agentId: key.agentId });

const noArgs = z.strictObject({});
const reportId = z.strictObject({ id: z.string().min(1).max(100).describe('The report id, as submit_report or list_my_reports gave it.') });

const whoamiTool: Tool = {
  name: 'whoami',
  title: 'Who am I',
  description:
    "The key's agent (its id is the agentId every report must carry), the key (prefix, expiry; never the secret) and every limit that " +
    `applies with what remains (GET /api/v1/automation/me). Call it first. ${KEY_RULE}`,
  inputJsonSchema: jsonSchemaOf(noArgs),
  annotations: READ,
  async run(services, caller, args) {
    const key = keyOf(services, caller);
    queryArgs(noArgs, args);
    return whoami(services.automation, { ...scopeOf(key), keyId: key.keyId }, caller.counted);
  },
};

const getQueue: Tool = {
  name: 'get_queue',
  title: 'Get the work queue',
  description:
    'The next merchants this account has not reported yet for the key\'s agent (GET /api/v1/automation/queue), in a fixed order. ' +
    'Pass nextCursor as after for the next page and repeat the same filters; nextCursor null ends the pass. Nothing is reserved. ' +
    'retestAfterDays (7-365) also lists merchants whose report is older, with existingReport (update it with update_report). ' +
    `After an empty pass wait at least an hour before starting another. ${KEY_RULE}`,
  inputJsonSchema: jsonSchemaOf(queueQuery),
  annotations: READ,
  async run(services, caller, args) {
    const key = keyOf(services, caller);
    const query = queryArgs(queueQuery, args);
    return queue(services.automation, scopeOf(key), query, services.clock.now());
  },
};

const submitReportTool: Tool = {
  name: 'submit_report',
  title: 'Submit a report',
  description:
    'Report how one merchant worked for the key\'s agent (POST /api/v1/reports; fields of the spec, same answer). A new report is PENDING ' +
    'until moderated and is not a published compatibility claim. One report per merchant and agent: an identical resubmission answers ' +
    'unchanged true and writes nothing; a different one is refused with 409 duplicate-report (reportId, updatedAt) and replaces nothing: ' +
    `change your report with update_report. ${REPORT_RULES} ${ERROR_RULE} ${KEY_RULE}`,
  inputJsonSchema: jsonSchemaOf(reportSubmission),
  annotations: { readOnlyHint: false, idempotentHint: true, destructiveHint: false, openWorldHint: false },
  async run(services, caller, args) {
    const key = keyOf(services, caller);
    const body = bodyArgs(reportSubmission, args);
    const submitter = { channel: 'AGENT_KEY' as const, accountId: key.accountId, agentId: key.agentId };
    const result = await submitReport(services.submissions, body, submitter, services.clock.now());
    if (result.kind === 'created') caller.onUsage(result.usage);
    const { report } = result;
    // The bearer answer of POST /api/v1/reports.
    return {
      id: report.id,
      status: report.status,
      reviewUrl: reviewUrl(services.baseUrl, report.id),
      updatedAt: report.updatedAt.toISOString(),
      url: ownReportApiUrl(services, report.id),
      unchanged: result.kind === 'unchanged',
      ...notice(services),
    };
  },
};

const listMyReports: Tool = {
  name: 'list_my_reports',
  title: 'List my reports',
  description:
    "This account's reports for the key's agent, newest first, including pending and rejected ones with the moderators' feedback " +
    '(GET /api/v1/automation/reports). Each is in the shape submit_report takes, plus id, status, updatedAt (the version update_report ' +
    `needs) and the merchant. Pass nextCursor as after for the next page; merchant (an id) narrows to one merchant. ${KEY_RULE}`,
  inputJsonSchema: jsonSchemaOf(ownReportsQuery),
  annotations: READ,
  async run(services, caller, args) {
    const key = keyOf(services, caller);
    const query = queryArgs(ownReportsQuery, args);
    return ownReports(services.automation, scopeOf(key), query);
  },
};

const getMyReport: Tool = {
  name: 'get_my_report',
  title: 'Get one of my reports',
  description:
    'One of this account\'s reports for the key\'s agent (GET /api/v1/automation/reports/{id}), with its status, moderation feedback and ' +
    `updatedAt, the version update_report needs. ${KEY_RULE}`,
  inputJsonSchema: jsonSchemaOf(reportId),
  annotations: READ,
  async run(services, caller, args) {
    const key = keyOf(services, caller);
    const { id } = queryArgs(reportId, args);
    return ownReportById(services.automation, scopeOf(key), id);
  },
};

/** update_report's arguments: the path (id), the If-Match header (version) and the body (report). */
const updateArgs = z.strictObject({
  id: z.string().min(1).max(100),
  version: z.string().max(100).optional(),
  report: z.record(z.string(), z.unknown()),
});
// What tools/list shows: the same, with the report's own schema and version required.
const updateArgsDoc = z.strictObject({
  id: reportId.shape.id,
  version: z
    .string()
    .describe(
      'The report\'s updatedAt from your latest read (list_my_reports, get_my_report or submit_report): the If-Match version, read by the same rules as the header (a list, * or a weak tag as RFC 9110 says).',
    ),
  report: reportReplacement.describe(
    'The complete report: the object as read with your changes. Read-only fields (status, merchant, url, …) are ignored; status may only be sent as read.',
  ),
});

const updateReport: Tool = {
  name: 'update_report',
  title: 'Update my report',
  description:
    'Replace one of your reports completely (PUT /api/v1/automation/reports/{id} with If-Match: version; same answer). ' +
    'The merchant (adId) and agent (agentId) cannot change. Identical content answers unchanged true and writes nothing. ' +
    'Otherwise a version that is not the current one is refused with 409 stale-version and the current updatedAt: read the report again, ' +
    're-apply your change and retry. A changed report goes back to PENDING for moderation. Error pointers are relative to report. ' +
    `${REPORT_RULES} ${ERROR_RULE} ${KEY_RULE}`,
  inputJsonSchema: jsonSchemaOf(updateArgsDoc),
  annotations: { readOnlyHint: false, idempotentHint: true, destructiveHint: true, openWorldHint: false },
  async run(services, caller, args) {
    const key = keyOf(services, caller);
    const { id, version, report } = queryArgs(updateArgs, args);
    const body = bodyArgs(reportReplacement, report);
    const { usage, ...result } = await replaceReport(services.automation, scopeOf(key), {
      id,
      ifMatch: version,
      body,
      now: services.clock.now(),
    });
    if (usage) caller.onUsage(usage);
    return { ...result, ...notice(services) };
  },
};

/** Every tool, in the order tools/list gives them. */
export const TOOLS: readonly Tool[] = [
  searchMerchants,
  getMerchant,
  listAgents,
  listCategories,
  whoamiTool,
  getQueue,
  submitReportTool,
  listMyReports,
  getMyReport,
  updateReport,
];
