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
import { validationRefusal, type LimitUsage } from '../errors.js';
import type { AgentKeyContext } from '../http/middleware/bearer.js';
import { MAX_JSON_BODY_BYTES } from '../http/middleware/body.js';
import { HttpProblem } from '../http/problem.js';
import { OwnReportDetail, ownReportsQuery, queueQuery } from '../modules/automation/automation.schemas.js';
import {
  ownReportById,
  ownReports,
  queue,
  replaceReport,
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
import {
  DEFINED_FAILURE_REASONS,
  DEFINED_OUTCOMES,
  DEFINED_STAGES,
  DEFINED_TASKS,
  REPORTING_RULES,
  QUEUE_RULES,
  type DefinedKey,
} from '../modules/reports/definitions.js';
import { Answers, jsonSchemaOf, type JsonSchema } from './schemas.js';

/** The services behind the tools, built once per app (the same deps as the API's routers). */
export interface ToolServices {
  prisma: PrismaClient;
  baseUrl: string;
  clock: Clock;
  /**
   * The configured limits, which the contribution schema states. Until the router passes them
   * (http/routers/mcp.ts), the contribution schema is not offered.
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
    throw new HttpProblem({
      status: 413,
      code: 'payload-too-large',
      title: 'Report too large',
      detail: `The report must be at most ${MAX_JSON_BODY_BYTES} bytes of JSON.`,
    });
  }
  const result = schema.safeParse(body);
  if (!result.success) throw validationRefusal(result.error, 'body');
  return result.data;
}

// The rules the descriptions repeat, so that an agent reading one tool has them at hand.

const KEY_RULE =
  'Needs an agent key: the MCP client sends "Authorization: Bearer <key>" as an HTTP header on every request to this endpoint ' +
  '(keys are issued on /profile/agents; never put a key in a URL or an argument). ' +
  'The answer lists in limits what remains of each limit the call counted against.';
const ERROR_RULE =
  'Errors come back as isError results whose text is a problem JSON (type, title, status, detail, errors, retryAfter): ' +
  'on status 401 or 403 stop and do not retry with the same key; on 429 or 503 wait retryAfter seconds first; on 400 fix the arguments named in errors.';
const REPORT_RULES =
  'Rules: report only what you actually tested (capabilityResults holds only the tasks you attempted); ' +
  'privacy must be true, and only after checking that the report has no personal or payment data (no names, e-mails, addresses, ' +
  'order or card numbers in experience or task), describes an actual authorized test and contains no instructions for bypassing a ' +
  "site's protections; agentId is the key's agent (whoami names it); testedAt is the UTC date of the test, YYYY-MM-DD, not in the future; " +
  'region is an ISO 3166-1 alpha-2 country code such as DE; experience is at most 4,000 characters; the report is at most 16,384 bytes of JSON.';
/** `KEY: definition Example: example`, the definitions module's sentences verbatim. */
const keyLines = (items: readonly DefinedKey[]) =>
  items.map((i) => `${i.key}: ${i.definition}${i.example ? ` Example: ${i.example}` : ''}`).join(' ');
/**
 * What every key of a report means and how to fill a report in (reports/definitions.ts, the
 * same sentences as the contribution schema, the OpenAPI document and the agent guide).
 */
const DEFINITIONS =
  `Tasks (capabilityResults keys). ${keyLines(DEFINED_TASKS)} ` +
  `Outcomes. ${keyLines(DEFINED_OUTCOMES)} ` +
  `Stages. ${keyLines(DEFINED_STAGES)} ` +
  `Failure reasons. ${keyLines(DEFINED_FAILURE_REASONS)} ` +
  `How to fill it in. ${Object.values(REPORTING_RULES).join(' ')}`;
const DISCLAIMER_RULE =
  'Answers are community-reported experience, not guaranteed capability or confirmed merchant policy; sponsored listings are advertising, never evidence.';
const PAGED = 'Answer: { data: [...], total, page, pageSize: 24, methodology, disclaimer }, the HTTP body.';

const READ = { readOnlyHint: true, idempotentHint: true, destructiveHint: false, openWorldHint: false };

// Tools for anyone (spec 4.1).

const pageOnly = z.strictObject({ page: pageParam.describe('Page number, from 1; 24 items a page.') });
const merchantId = z.strictObject({
  slugOrId: z.string().min(1).max(200).describe('The merchant\'s slug (e.g. "example-shop") or id (a UUID), as search_merchants gives them.'),
  independent: independentParam,
});

// Issue 37: one sentence for every tool that takes `independent`.
const INDEPENDENT_RULE =
  'Statuses and verdicts count independent reports; reports by a verified owner of the shop or vendor of the agent are self-reported: ' +
  'counted apart (sources) and named in the verdict, or counted too with independent "all".';

const directory = (services: ToolServices): DirectoryContext => ({ prisma: services.prisma, baseUrl: services.baseUrl, now: services.clock.now() });

/** GET /merchants and GET /agents/{slug}/merchants: the standard or the compact view. */
async function merchantPage(services: ToolServices, q: MerchantQuery, agent?: Parameters<typeof searchDirectory>[2]) {
  const { total, data }: { total: number; data: unknown[] } =
    q.view === 'compact' ? await searchDirectoryCompact(directory(services), q, agent) : await searchDirectory(directory(services), q, agent);
  return listEnvelope(services, data, total, q.page);
}

const REACH_FILTERS =
  "Each agent summary has a reach: how far that agent gets at the merchant on the ladder ACCESS, SEARCH, DETAILS, CART, CHECKOUT, PURCHASE " +
  '(level 0-6), where it stops and why, and a confidence (low, medium, high); LOGIN is beside the ladder. ' +
  'reaches "CHECKOUT" lists merchants where the agent gets at least that far; task "CART" with taskStatus "blocked,unsupported" lists those where ' +
  'that task has one of those statuses (supported, partial, blocked, unsupported, unknown, untested); minConfidence "medium" or "high" keeps reaches ' +
  'at least that sure; sort "reach" puts the furthest reach first, then the surest, then the newest report (sort "rating" is an older score ' +
  'of how reliably tasks work, not how far). task and taskStatus go together. ' +
  'Sponsored listings come first (sponsored true), then the chosen order. ' +
  'view "compact" answers status and confidence per agent and task only, a far smaller answer; prefer it unless you need evidence.';

const searchMerchants = publicTool({
  name: 'search_merchants',
  title: 'Search merchants',
  description:
    'Search the directory of merchants (GET /api/v1/merchants, same filters and answer): q, category, agent, outcome, stage, region, days, ' +
    `minReports, reaches, task, taskStatus, minConfidence, sort, page, view, independent. 24 merchants a page; total says how many match. ${REACH_FILTERS} ${INDEPENDENT_RULE} ` +
    'reaches, task, taskStatus, minConfidence and sort "reach" or "rating" need agent (or use list_agent_merchants): otherwise a 400 names the rule. ' +
    `Unknown filters and values are refused. ${PAGED} ${DISCLAIMER_RULE}`,
  input: merchantQuery,
  output: Answers.merchantList,
  annotations: READ,
  async run(services, _caller, args) {
    return merchantPage(services, queryArgs(merchantQuery, args));
  },
});

const agentSlug = z.string().min(1).max(100).describe('The agent\'s slug, as list_agents gives it (e.g. "example-agent").');
const agentMerchantsDoc = z.strictObject({ agent: agentSlug, ...agentMerchantQuery.shape });

const listAgentMerchants = publicTool({
  name: 'list_agent_merchants',
  title: "List one agent's merchants",
  description:
    "The merchants with a summary of one agent (GET /api/v1/agents/{agent}/merchants, same filters and answer): every filter of search_merchants " +
    `but agent, which names the agent here. ${REACH_FILTERS} Unknown filters and values are refused; an unknown agent is a 404. ${PAGED} ${DISCLAIMER_RULE}`,
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

const getMerchant = publicTool({
  name: 'get_merchant',
  title: 'Get a merchant',
  description:
    'One merchant\'s profile with a summary for every active agent (GET /api/v1/merchants/{slugOrId}): status per task ' +
    '(ACCESS … PURCHASE), reach, confidence, counts, dates and evidence (report ids: read one with get_report). ' +
    `Each summary also lists the agent versions reported and any regression (a newer version fails a task an older one passed). ${INDEPENDENT_RULE} ` +
    `Answer: { data: merchant, methodology, disclaimer }, the HTTP body. ${DISCLAIMER_RULE}`,
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
  description:
    'The active AI agents of the directory (GET /api/v1/agents): id, slug (the agent argument of search_merchants and list_agent_merchants), ' +
    `name, vendor. 24 a page. ${PAGED}`,
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
  description:
    'The canonical merchant categories (GET /api/v1/categories): name, slug (the category argument of search_merchants and get_queue), ' +
    `page URL and number of public merchants. 24 a page. ${PAGED}`,
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
  description:
    'Published (approved) reports, newest first (GET /api/v1/reports, same filters and answer): agent (a slug), merchant (an id), outcome, page, ' +
    'independent ("only", the default: independent reports; "all": self-reported ones too, each marked selfReported). ' +
    `Each report: merchant, agent, outcome, capabilityResults, stage, failureReason, testedAt, experience, reportedAt. ${PAGED} ${DISCLAIMER_RULE}`,
  input: reportQuery,
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
  description:
    "One published report (GET /api/v1/reports/{id}): what an agent found at a merchant, the evidence behind get_merchant's statuses. " +
    `Answer: { data: report, methodology, disclaimer }, the HTTP body. Reports not (or no longer) published are a 404. ${DISCLAIMER_RULE}`,
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
    'The whole contribution schema (GET /api/v1/contribution-schema): every task, outcome, stage and failure reason, the privacy ' +
    'conditions, the result rule, the limits and the JSON Schema of a report.',
  mimeType: 'application/json',
  uri: (baseUrl: string) => `${baseUrl}${CONTRIBUTION_SCHEMA_PATH}`,
};

const getContributionSchema = publicTool({
  name: 'get_contribution_schema',
  title: 'Get the contribution schema',
  description:
    'Everything needed to report correctly (GET /api/v1/contribution-schema; also the MCP resource contribution-schema): every task, ' +
    'outcome, stage and failure reason with its label, the privacy conditions, the result rule, the limits and the JSON Schema of a report ' +
    '(the arguments of submit_report). Answer: { data: the contribution schema, methodology, disclaimer }.',
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
const withoutLink = <T extends { methodology?: unknown; disclaimer?: unknown }>({ methodology: _m, disclaimer: _d, ...rest }: T) => rest;

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
  description:
    "The key's agent (its id is the agentId every report must carry), the key (prefix, expiry; never the secret) and every limit that " +
    `applies with what remains (GET /api/v1/automation/me). Call it first. Answer: { data, methodology, disclaimer, limits }. ${KEY_RULE}`,
  input: noArgs,
  output: Answers.whoami,
  annotations: READ,
  async run(services, caller, key, args) {
    queryArgs(noArgs, args);
    const me = await whoami(services.automation, { ...scopeOf(key), keyId: key.keyId }, caller.counted);
    return { data: withoutLink(me), ...notice(services) };
  },
});

const getQueue = privateTool({
  name: 'get_queue',
  title: 'Get the work queue',
  description:
    `The next merchants this account has not reported yet for the key's agent (GET /api/v1/automation/queue). ${QUEUE_RULES.contents} ${QUEUE_RULES.order} ` +
    'Pass nextCursor as after for the next page and repeat the same filters; nextCursor null ends the pass. Nothing is reserved. ' +
    'retestAfterDays (7-365) also lists merchants whose report (by this account, for this agent) was last changed more than that many days ago; ' +
    `with retest "only" it lists only those, the merchants due for a retest (retest needs retestAfterDays). ${QUEUE_RULES.retestAfterDays} Such an item carries existingReport, ` +
    'your report: e.g. { "id": "0196f3a2-5c1e-7b4d-9a0e-2f6c8d1b3e4a", "slug": "example-shop", …, "existingReport": { "id": ' +
    '"0196f3a2-9d7e-7c21-8b5f-6a4e2d0c1b9f", "status": "APPROVED", "updatedAt": "2026-01-31T12:00:00.000Z" } }. Test the merchant again, ' +
    'then change that report with update_report (id: existingReport.id; version: the updatedAt of get_my_report); never submit_report it again. ' +
    'Answer: { data: [merchant…], nextCursor, methodology, disclaimer, limits }; categoryInfo is the merchant\'s category. ' +
    `${QUEUE_RULES.emptyPass} ${KEY_RULE}`,
  input: queueQuery,
  output: Answers.queue,
  annotations: READ,
  async run(services, _caller, key, args) {
    const query = queryArgs(queueQuery, args);
    const { items, nextCursor } = await queue(services.automation, scopeOf(key), query, services.clock.now());
    return { data: items.map(({ category: _legacy, ...item }) => item), nextCursor, ...notice(services) };
  },
});

const submitReportTool = privateTool({
  name: 'submit_report',
  title: 'Submit a report',
  description:
    'Report how one merchant worked for the key\'s agent (POST /api/v1/reports; fields of the spec, same answer). A new report is PENDING ' +
    'until moderated and is not a published compatibility claim. One report per merchant and agent: an identical resubmission answers ' +
    'unchanged true and writes nothing; a different one is refused with 409 duplicate-report (reportId, updatedAt) and replaces nothing: ' +
    'change your report with update_report. validate_report checks a report the same way without submitting it. ' +
    'Answer: { data: { id, status, updatedAt, unchanged, url, reviewUrl }, methodology, disclaimer, limits }. ' +
    `${REPORT_RULES} ${ERROR_RULE} ${KEY_RULE} ${DEFINITIONS}`,
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

const validateReport = privateTool({
  name: 'validate_report',
  title: 'Check a report without submitting it',
  description:
    'A dry run of submit_report (POST /api/v1/reports/validate; same arguments, same answer): every check submit_report makes, with the ' +
    'same refusals (400 naming the fields, 403 agent-mismatch, 409 duplicate-report when a different report of yours exists), and nothing ' +
    'written: no report, and the changed-submissions quota is not used (the call counts against the request limits like any other). ' +
    'A valid report answers { data: { valid: true, wouldBe, submitStatus, report, existingReport? }, methodology, disclaimer, limits }: ' +
    'wouldBe "created" (submit_report would create it) or "unchanged" (an identical report of yours exists, existingReport names it); ' +
    'report is the report as it would be stored, absent fields null and the overall outcome derived when left out (outcomeDerived). ' +
    `The definitions of every key are in submit_report's description and the contribution schema. ${REPORT_RULES} ${ERROR_RULE} ${KEY_RULE}`,
  input: reportSubmission,
  output: Answers.validation,
  annotations: READ,
  async run(services, _caller, key, args) {
    const body = bodyArgs(reportSubmission, args);
    const submitter = { channel: 'AGENT_KEY' as const, accountId: key.accountId, agentId: key.agentId };
    const result = await validateSubmission(services.submissions, body, submitter, services.clock.now());
    return { data: validationView(services, result), ...notice(services) };
  },
});

const listMyReports = privateTool({
  name: 'list_my_reports',
  title: 'List my reports',
  description:
    "This account's reports for the key's agent, newest first, including pending and rejected ones with the moderators' feedback " +
    '(GET /api/v1/automation/reports). Each is in the shape submit_report takes, plus id, status, updatedAt (the version update_report ' +
    'needs) and the merchant. Pass nextCursor as after for the next page; merchant (an id) narrows to one merchant. ' +
    `Answer: { data: [report…], nextCursor, methodology, disclaimer, limits }. ${KEY_RULE}`,
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
    'One of this account\'s reports for the key\'s agent (GET /api/v1/automation/reports/{id}), with its status, moderation feedback and ' +
    'updatedAt, the version update_report needs. Answer: { data: report, methodology, disclaimer, limits }; data, changed, is the report ' +
    `argument of update_report. ${KEY_RULE}`,
  input: reportId,
  output: Answers.ownReport,
  annotations: READ,
  async run(services, _caller, key, args) {
    const { id } = queryArgs(reportId, args);
    return { data: withoutLink(await ownReportById(services.automation, scopeOf(key), id)), ...notice(services) };
  },
});

/** A report's version as read: its updatedAt, an ISO 8601 UTC instant. */
const VERSION = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;
const version = z
  .string()
  .max(100)
  .regex(VERSION, 'must be the report\'s updatedAt as read, e.g. "2026-01-31T12:00:00.000Z"')
  .describe(
    "The report's updatedAt from your latest read (get_my_report, list_my_reports or submit_report), e.g. \"2026-01-31T12:00:00.000Z\": " +
      'the change applies only if the report is still at this version.',
  );

/** update_report's arguments: which report (id), at which version, and the complete report. */
const updateArgs = z.strictObject({
  id: reportId.shape.id,
  version: version.optional(),
  report: z.record(z.string(), z.unknown()),
});

const withoutRequired = (node: unknown): JsonSchema =>
  Object.fromEntries(
    Object.entries(node as JsonSchema)
      .filter(([key]) => key !== 'required')
      .map(([key, value]) => [
        key,
        key === 'properties' ? Object.fromEntries(Object.entries(value as JsonSchema).map(([n, v]) => [n, withoutRequired(v)])) : value,
      ]),
  );

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
        'The complete report: data of get_my_report (or an item of list_my_reports) with your changes. Fields set by the server ' +
          '(id, updatedAt, merchant, url, …) may be sent back as read and are ignored; status may only be sent as read. A field left out ' +
          '(or null) is not given.',
      ),
    }),
    'input',
  ) as { properties: { report: { properties: Record<string, JsonSchema> } } };
  const read = jsonSchemaOf(OwnReportDetail, 'input') as { properties: Record<string, JsonSchema> };
  const fields = doc.properties.report.properties;
  for (const [name, schema] of Object.entries(fields)) {
    if (schema.type !== undefined) continue;
    if (!read.properties[name]) throw new Error(`update_report: ${name} is neither typed nor part of the report as read`);
    // Sent back as read, ignored: typed as read, with nothing in it demanded.
    fields[name] = { ...withoutRequired(read.properties[name]), description: schema.description };
  }
  return doc as JsonSchema;
})();

const updateReport: Tool = {
  ...privateTool({
    name: 'update_report',
    title: 'Update my report',
    description:
      'Replace one of your reports completely with report (PUT /api/v1/automation/reports/{id}; same answer), if it is still at version. ' +
      'The merchant (adId) and agent (agentId) cannot change. Identical content answers unchanged true and writes nothing. ' +
      'Otherwise a version that is not the current one is refused with 409 stale-version and the current updatedAt: read the report again, ' +
      're-apply your change and retry. A changed report goes back to PENDING for moderation. Error pointers (#/…) are relative to report. ' +
      `Answer: { data: { id, status, updatedAt, unchanged, url }, methodology, disclaimer, limits }. ${REPORT_RULES} ${ERROR_RULE} ${KEY_RULE} ` +
      DEFINITIONS,
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
      });
      if (usage) caller.onUsage(usage);
      return { data: result, ...notice(services) };
    },
  }),
  inputJsonSchema: updateArgsSchema,
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
