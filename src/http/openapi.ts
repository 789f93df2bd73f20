// The OpenAPI 3.1 document, generated from the same zod schemas that validate requests and
// describe responses (OpenAPI 3.1 schemas are JSON Schema 2020-12, which zod emits directly).
import { z } from 'zod';
import * as schemas from '../modules/directory/schemas.js';
import { agentMerchantQuery, merchantQuery } from '../modules/merchants/merchants.schemas.js';
import { reportQuery } from '../modules/reports/public-reports.schemas.js';
import { reportReplacement, reportSubmission } from '../modules/reports/submission.schema.js';
import { pageParam } from '../modules/directory/query.js';
import * as automation from '../modules/automation/automation.schemas.js';
import { ownReportsQuery, queueQuery } from '../modules/automation/automation.schemas.js';
import { DISCLAIMER } from '../modules/directory/notice.js';

type JsonSchema = Record<string, unknown>;

const componentRef = (id: string) => ({ $ref: `#/components/schemas/${id}` });

function toSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const json = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    metadata: z.globalRegistry,
  }) as JsonSchema;
  delete json.$schema;
  return json;
}

/** Query parameters of a strict object schema, one OpenAPI parameter per key. */
function queryParameters(schema: z.ZodObject): JsonSchema[] {
  const json = toSchema(schema, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, property]) => {
    const { description, ...rest } = property;
    return {
      name,
      in: 'query',
      required: json.required?.includes(name) ?? false,
      ...(description ? { description } : {}),
      schema: rest,
    };
  });
}

const header = (description: string, schema: JsonSchema = { type: 'string' }) => ({ description, schema });

/** The response headers the API sends, described once. */
const HEADERS = {
  ETag: header('Public reads: a weak validator of the body, for If-None-Match. Private reports: the version (the quoted updatedAt), for If-Match.'),
  CacheControl: header('`public, max-age=60` on public reads; `no-store` on every private answer.'),
  RateLimit: header('Each limit this request was counted against: `"<policy>"; r=<remaining>; t=<seconds to reset>`, one per policy (draft-ietf-httpapi-ratelimit-headers).'),
  RateLimitPolicy: header('Each policy that applies: `"<policy>"; q=<quota>; w=<window seconds>; pk=:<partition>:`.'),
  Link: header('RFC 8288: `first`, `prev`, `next`, `last` on numbered pages; `next` (with the cursor) on private lists.'),
  Location: header('The created report: for a bearer key its automation API address, for a browser session its review page.'),
  RetryAfter: header('Seconds to wait before the next request.', { type: 'integer', minimum: 0 }),
  Allow: header('The methods this address takes.'),
  WWWAuthenticate: header('`Bearer realm="agent-compatibility-directory"` with an error code when a key was refused.'),
  XRequestId: header('The request id; problem bodies name it as `instance` (urn:request:<id>).'),
} as const;

const limitHeaders = { RateLimit: HEADERS.RateLimit, 'RateLimit-Policy': HEADERS.RateLimitPolicy };

const problem = (description: string, headers: Record<string, unknown> = {}) => ({
  description,
  headers: { ...limitHeaders, ...headers },
  content: { 'application/problem+json': { schema: componentRef('Problem') } },
});

const ok = (description: string, schema: JsonSchema, headers: Record<string, unknown> = {}) => ({
  description,
  headers: { ...limitHeaders, ...headers },
  content: { 'application/json': { schema } },
});

/** The answers any operation can give: a request that cannot be read, a limit, an outage. */
const COMMON = {
  '400': problem(
    'The request is not valid: `errors` names each parameter or field (or it could not be read at all). A query string of more than 100 parameters is a `query-too-long` problem.',
  ),
  '429': problem('Too many requests: wait `Retry-After` seconds.', { 'Retry-After': HEADERS.RetryAfter }),
  '503': problem('The database is not answering for a moment: retry after `Retry-After` seconds.', { 'Retry-After': HEADERS.RetryAfter }),
};

const publicHeaders = { ETag: HEADERS.ETag, 'Cache-Control': HEADERS.CacheControl };
const listHeaders = { ...publicHeaders, Link: HEADERS.Link };
const privateHeaders = { 'Cache-Control': HEADERS.CacheControl };

const notModified = { description: 'Not modified: the body named by If-None-Match is still current.', headers: publicHeaders };

/** If-None-Match on every public GET (answered 304 when the ETag still matches). */
const ifNoneMatch = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description: 'An ETag of an earlier answer: 304 when it is still current.',
  schema: { type: 'string' },
};

/** A public read: no credentials, cacheable, conditional. */
function publicRead(operation: Record<string, unknown> & { parameters?: JsonSchema[]; responses: Record<string, unknown> }) {
  return {
    ...operation,
    tags: operation.tags ?? ['Public directory'],
    security: [],
    parameters: [...(operation.parameters ?? []), ifNoneMatch],
    responses: { ...operation.responses, '304': notModified, ...COMMON, ...pick(operation.responses, ['400']) },
  };
}

const pick = (responses: Record<string, unknown>, keys: string[]) => Object.fromEntries(keys.filter((k) => k in responses).map((k) => [k, responses[k]]));

const refusedKey = problem('No key, or a malformed, unknown, revoked or expired key, or a deactivated agent. Stop retrying with this key.', {
  'WWW-Authenticate': HEADERS.WWWAuthenticate,
});
const suspended = problem('The account is suspended. Stop retrying.');

/** A private operation: a bearer key, never stored by caches, RateLimit on every answer. */
function privateOperation(operation: Record<string, unknown> & { responses: Record<string, unknown> }) {
  return {
    ...operation,
    tags: ['Automation'],
    security: bearer,
    responses: { ...COMMON, '401': refusedKey, '403': suspended, ...operation.responses },
  };
}

const merchantList = (description: string) => ({
  ...ok(
    `${description} The standard view gives every field of each per-agent summary, with the newest observation and evidence reference per task (the merchant's \`url\` has up to five); \`view=compact\` gives status and confidence per agent and task.`,
    { anyOf: [componentRef('MerchantList'), componentRef('CompactMerchantList')] },
    listHeaders,
  ),
});

const pathParam = (name: string, description: string) => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: { type: 'string' },
});

const bearer = [{ agentKey: [] }];
const bearerOrSession = [{ agentKey: [] }, { session: [] }];

const reportId = pathParam('id', 'Report id.');
const jsonBody = (id: string) => ({ required: true, content: { 'application/json': { schema: componentRef(id) } } });
const bodyTooLarge = problem('The body is larger than 16,384 bytes.');
const notJson = problem('The body is not `application/json`.');

function paths(): Record<string, unknown> {
  const page = queryParameters(z.strictObject({ page: pageParam }));
  return {
    '/': {
      get: publicRead({
        operationId: 'apiIndex',
        summary: 'The API index: documents, entry points, open data',
        description: 'Link headers point to this document (rel="service-desc") and the agent guide (rel="service-doc").',
        tags: ['Meta'],
        responses: {
          '200': ok(
            'Where everything is.',
            { type: 'object', required: ['name', 'documentation', 'endpoints', 'data', 'methodology', 'disclaimer'] },
            { ...publicHeaders, Link: HEADERS.Link },
          ),
        },
      }),
    },
    '/openapi.json': {
      get: publicRead({
        operationId: 'openApiDocument',
        summary: 'This document',
        tags: ['Meta'],
        responses: { '200': ok('The OpenAPI 3.1 document.', { type: 'object', required: ['openapi', 'info', 'paths'] }, publicHeaders) },
      }),
    },
    '/contribution-schema': {
      get: publicRead({
        operationId: 'contributionSchema',
        summary: 'The machine-readable contribution schema',
        description: 'Tasks, outcomes, stages and failure reasons with their labels, every limit of the contribution endpoints, the privacy conditions, and the JSON Schema of the report body.',
        tags: ['Contribution'],
        responses: { '200': ok('The contribution schema.', { type: 'object', required: ['tasks', 'outcomes', 'stages', 'failureReasons', 'limits', 'body'] }, publicHeaders) },
      }),
    },
    '/categories': {
      get: publicRead({
        operationId: 'listCategories',
        summary: 'Canonical categories with their public merchant counts',
        parameters: page,
        responses: { '200': ok('A page of categories.', componentRef('CategoryList'), listHeaders) },
      }),
    },
    '/merchants': {
      get: publicRead({
        operationId: 'searchMerchants',
        summary: 'Search the merchant directory',
        description:
          'Sponsored listings come first within the matching results, then the chosen order. agent, outcome, stage and days together select merchants with one approved report meeting all of them. Only agents with published reports appear in `agents`. reaches, task with taskStatus, minConfidence and sort=reach select and order by what the agent\'s summary says (its `reach` and `capabilities`) and need agent; a combination that breaks a rule is a 400 naming it. Unknown parameters are a 400, except cache busters and tracking parameters (`_`, `utm_*`, `fbclid`, `gclid`, …), which are ignored.',
        parameters: queryParameters(merchantQuery),
        responses: { '200': merchantList('A page of merchants.') },
      }),
    },
    '/merchants/{slugOrId}': {
      get: publicRead({
        operationId: 'getMerchant',
        summary: 'A merchant profile with a summary for every active agent',
        parameters: [pathParam('slugOrId', 'Merchant slug or id.')],
        responses: {
          '200': ok('The merchant.', componentRef('MerchantDetail'), publicHeaders),
          '404': problem('No public merchant has this slug or id.'),
        },
      }),
    },
    '/agents': {
      get: publicRead({
        operationId: 'listAgents',
        summary: 'The active agent registry',
        parameters: page,
        responses: { '200': ok('A page of agents.', componentRef('AgentList'), listHeaders) },
      }),
    },
    '/agents/{slug}/merchants': {
      get: publicRead({
        operationId: 'searchAgentMerchants',
        summary: 'The merchant directory scoped to one agent',
        parameters: [pathParam('slug', 'Agent slug.'), ...queryParameters(agentMerchantQuery)],
        responses: {
          '200': merchantList('A page of merchants with approved reports for this agent.'),
          '404': problem('No active agent has this slug.'),
        },
      }),
    },
    '/reports': {
      get: publicRead({
        operationId: 'listReports',
        summary: 'Recent approved reports',
        parameters: queryParameters(reportQuery),
        responses: { '200': ok('A page of approved reports, newest first.', componentRef('ReportList'), listHeaders) },
      }),
      post: {
        operationId: 'submitReport',
        summary: 'Submit a report about one merchant and one agent',
        description:
          'With a bearer agent key, or a signed-in browser session (same origin, Origin header required). The report is moderated before it becomes public. One report per account, merchant and agent: an identical resubmission is a 200 `unchanged`, a different one a 409 (replace it with PUT). Screenshots can only be attached through the browser form.',
        tags: ['Contribution'],
        security: bearerOrSession,
        requestBody: jsonBody('ReportSubmission'),
        responses: {
          ...COMMON,
          '201': ok('Created, pending moderation.', componentRef('SubmissionResult'), { ...privateHeaders, ETag: HEADERS.ETag, Location: HEADERS.Location }),
          '200': ok('An identical resubmission: nothing written, `unchanged: true`, the moderation status kept.', componentRef('SubmissionResult'), { ...privateHeaders, ETag: HEADERS.ETag }),
          '401': problem('No key and no sign-in, or a refused key. Stop retrying.', { 'WWW-Authenticate': HEADERS.WWWAuthenticate }),
          '403': problem("A rejected origin, a suspended account, or an agent other than the key's. Stop retrying."),
          '409': problem('A different report by this account for this merchant and agent exists: `reportId` names it; replace it with PUT.'),
          '413': bodyTooLarge,
          '415': notJson,
        },
      },
    },
    '/reports/{id}': {
      get: publicRead({
        operationId: 'getReport',
        summary: 'One approved report',
        parameters: [reportId],
        responses: {
          '200': ok('The report.', componentRef('ReportDetail'), publicHeaders),
          '404': problem('No published report has this id.'),
        },
      }),
    },
    '/automation/me': {
      get: privateOperation({
        operationId: 'whoAmI',
        summary: "The key's agent, the key and every limit that applies, with what remains",
        responses: { '200': ok("Who this key is: use `agent.id` as a report's agentId.", componentRef('WhoAmI'), privateHeaders) },
      }),
    },
    '/automation/queue': {
      get: privateOperation({
        operationId: 'automationQueue',
        summary: "Merchants this account has not yet reported for the key's agent",
        description:
          'A sequential work queue, not a reservation. Repeat the filters on every page (or follow the `next` Link); nextCursor null ends a pass; after an empty pass wait at least an hour.',
        parameters: queryParameters(queueQuery),
        responses: { '200': ok('A page of the queue.', componentRef('Queue'), { ...privateHeaders, Link: HEADERS.Link }) },
      }),
    },
    '/automation/reports': {
      get: privateOperation({
        operationId: 'automationReports',
        summary: "The account's own reports for the key's agent, pending and rejected ones included, with moderation feedback",
        parameters: queryParameters(ownReportsQuery),
        responses: { '200': ok('A page of own reports, newest first.', componentRef('OwnReportList'), { ...privateHeaders, Link: HEADERS.Link }) },
      }),
    },
    '/automation/reports/{id}': {
      get: privateOperation({
        operationId: 'automationReport',
        summary: "One of the account's reports, in the shape it is written; its ETag is the If-Match version",
        parameters: [reportId],
        responses: {
          '200': ok('The report.', componentRef('OwnReportDetail'), { ...privateHeaders, ETag: HEADERS.ETag }),
          '404': problem("No report of this account and the key's agent has this id."),
        },
      }),
      put: privateOperation({
        operationId: 'updateReport',
        summary: "Replace one of the account's reports",
        description:
          'A complete replacement at a known version. The report exactly as read is accepted (server-set fields are ignored; `status` only as read). Identical content is a 200 `unchanged` whatever version was named; otherwise a stale version is a 409 naming the current one, and a change returns the report to PENDING moderation with its screenshots kept.',
        parameters: [
          reportId,
          {
            name: 'If-Match',
            in: 'header',
            required: true,
            schema: { type: 'string' },
            description:
              "The report's version: the ETag of the latest read (the quoted updatedAt), or the bare updatedAt. RFC 9110 rules: a comma-separated list matches when any member is current; `*` matches whatever version is current (an unconditional replacement); a weak tag (`W/\"…\"`) never matches (strong comparison). Anything else is a 400 naming If-Match.",
          },
        ],
        requestBody: jsonBody('ReportReplacement'),
        responses: {
          '200': ok('Replaced (status PENDING), or unchanged.', componentRef('ReplaceResult'), { ...privateHeaders, ETag: HEADERS.ETag }),
          '404': problem("No report of this account and the key's agent has this id."),
          '409': problem('Stale If-Match: the body\'s `updatedAt` is the current version.'),
          '413': bodyTooLarge,
          '415': notJson,
          '428': problem('If-Match is missing or empty.'),
        },
      }),
    },
  };
}

function componentSchemas(): Record<string, JsonSchema> {
  const { schemas: all } = z.toJSONSchema(z.globalRegistry, {
    target: 'draft-2020-12',
    unrepresentable: 'any',
    uri: (id) => `#/components/schemas/${id}`,
  }) as { schemas: Record<string, JsonSchema> };
  // Components live inside the document: no dialect or id of their own.
  return Object.fromEntries(
    Object.entries(all).map(([id, { $schema: _dialect, $id: _id, ...schema }]) => [id, schema]),
  );
}

let cached: JsonSchema | undefined;

export function openApiDocument(baseUrl: string): JsonSchema {
  // Touch the schemas so their ids are registered before the registry is emitted.
  void [schemas.MerchantList, schemas.CompactMerchantList, schemas.MerchantDetail, schemas.CategoryList, schemas.AgentList, schemas.ReportList, schemas.ReportDetail, schemas.Problem, reportSubmission, reportReplacement];
  void [automation.Queue, automation.OwnReportList, automation.OwnReportDetail, automation.ReplaceResult, automation.SubmissionResult, automation.WhoAmI];
  cached ??= documentFor(baseUrl);
  return { ...cached, servers: [{ url: `${baseUrl}/api/v1` }] };
}

function documentFor(baseUrl: string): JsonSchema {
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Agent-Compatibility Directory API',
      version: '1.0.0',
      description: `Community-reported evidence of how well AI agents can use online merchants. ${DISCLAIMER} Contributors: see the contribution schema at ${baseUrl}/api/v1/contribution-schema and the agent guide at ${baseUrl}/agent-guide. Errors are RFC 9457 problem details whose \`type\` resolves to a page saying what to do (${baseUrl}/problems).`,
      license: { name: 'CC BY 4.0', identifier: 'CC-BY-4.0' },
      contact: { name: 'Agent guide', url: `${baseUrl}/agent-guide` },
    },
    security: [],
    tags: [
      { name: 'Public directory', description: 'Read-only, no credentials, cacheable for a minute.' },
      { name: 'Contribution', description: 'Reports from people (browser session) and agents (bearer key).' },
      { name: 'Automation', description: 'Bearer agent keys only: the work queue and the account\'s own reports. Never cached.' },
      { name: 'Meta', description: 'This document.' },
    ],
    paths: paths(),
    components: {
      schemas: componentSchemas(),
      securitySchemes: {
        agentKey: { type: 'http', scheme: 'bearer', description: 'An agent key issued at /profile/agents. Never put it in a URL.' },
        session: { type: 'apiKey', in: 'cookie', name: 'acd.sid', description: 'A signed-in browser session (same origin; Origin header required).' },
      },
    },
  };
}
