// The OpenAPI 3.1 document, generated from the same zod schemas that validate requests and
// describe responses (OpenAPI 3.1 schemas are JSON Schema 2020-12, which zod emits directly).
import { z } from 'zod';
import * as schemas from '../modules/directory/schemas.js';
import { agentMerchantQuery, merchantDetailQuery, merchantQuery } from '../modules/merchants/merchants.schemas.js';
import { reportQuery } from '../modules/reports/public-reports.schemas.js';
import { reportReplacement, reportSubmission } from '../modules/reports/submission.schema.js';
import { pageParam } from '../modules/directory/query.js';
import * as automation from '../modules/automation/automation.schemas.js';
import { ownReportsQuery, queueQuery } from '../modules/automation/automation.schemas.js';
import { DISCLAIMER } from '../modules/directory/notice.js';
import { RegistryAgentList } from '../modules/catalog/catalog.schemas.js';
import { ContributionSchema, RETEST_AFTER_DAYS, QUEUE_LIMIT } from '../modules/reports/contribution-schema.js';
import { IF_MATCH_MAX_LENGTH } from '../modules/reports/versions.js';
import { QUEUE_RULES, REPORTING_RULES } from '../modules/reports/definitions.js';
import * as claims from '../modules/claims/claims.schemas.js';
import { CLAIM_RULES } from '../modules/claims/rules.js';

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
  CacheControl: header(
    '`public, max-age=60, stale-if-error=600` on public reads (a cache may serve the answer up to 600 s past its life while we answer errors, as we do: X-Cache `STALE-IF-ERROR`, with Age and Warning); `no-store` on every private answer.',
  ),
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
  '500': problem('An unexpected error: retry with bounded backoff; quote `instance` when you report it.'),
  '503': problem('The database is not answering for a moment: retry after `Retry-After` seconds.', { 'Retry-After': HEADERS.RetryAfter }),
};

const publicHeaders = { ETag: HEADERS.ETag, 'Cache-Control': HEADERS.CacheControl };
const listHeaders = { ...publicHeaders, Link: HEADERS.Link };
const privateHeaders = { 'Cache-Control': HEADERS.CacheControl };

const notModified = { description: 'Not modified: the body named by If-None-Match is still current.', headers: publicHeaders };

/** The longest conditional header (If-Match, If-None-Match) a client needs: an ETag here is under 100 characters. */
const CONDITIONAL_HEADER_MAX_LENGTH = IF_MATCH_MAX_LENGTH;

/** If-None-Match on every public GET (answered 304 when the ETag still matches). */
const ifNoneMatch = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description: 'An ETag of an earlier answer: 304 when it is still current.',
  schema: { type: 'string', maxLength: CONDITIONAL_HEADER_MAX_LENGTH },
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

const session = [{ session: [] }];

/** An owner's operation: a signed-in browser session with its Origin; an agent key is refused. */
function ownerOperation(operation: Record<string, unknown> & { responses: Record<string, unknown> }) {
  return {
    ...operation,
    tags: ['Owners'],
    security: session,
    responses: {
      ...COMMON,
      '401': problem('Not signed in: sign in at /sign-in in a browser first.'),
      '403': problem(
        'A rejected origin, a suspended account, an agent key (`owner-session-required`: owners act in a browser session), or, for statements, replies and corrections, no verified claim of this merchant or agent (`claim-required`, or `claim-revoked`).',
      ),
      ...operation.responses,
    },
  };
}

const merchantList = (description: string) => ({
  ...ok(
    `${description} The standard view gives every field of each per-agent summary, with the newest observation and evidence reference per task (the merchant's \`url\` has up to five); \`view=compact\` gives status and confidence per agent and task.`,
    { anyOf: [componentRef('MerchantList'), componentRef('CompactMerchantList')] },
    listHeaders,
  ),
});

const pathParam = (name: string, description: string, maxLength: number) => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: { type: 'string', minLength: 1, maxLength },
});
/** A slug is at most 100 characters; an id (UUID) 36. */
const SLUG_MAX_LENGTH = 100;
const ID_LENGTH = 36;

const bearer = [{ agentKey: [] }];
const bearerOrSession = [{ agentKey: [] }, { session: [] }];

const reportId = pathParam('id', 'Report id (a UUID).', ID_LENGTH);
const jsonBody = (id: string) => ({ required: true, content: { 'application/json': { schema: componentRef(id) } } });
const bodyTooLarge = problem('The body is larger than 16,384 bytes.');
const notJson = problem('The body is not `application/json`.');

const str = (description?: string) => ({ type: 'string', ...(description ? { description } : {}) });
const urlString = (description?: string) => ({ ...str(description), format: 'uri' });
/** An object of URLs, each named. */
const urls = (names: string[], nullable: string[] = []) => ({
  type: 'object',
  properties: Object.fromEntries(names.map((n) => [n, nullable.includes(n) ? { type: ['string', 'null'], format: 'uri' } : urlString()])),
  required: names,
});

/** GET /api/v1 (open-data/discovery.ts apiIndex). */
const API_INDEX: JsonSchema = {
  type: 'object',
  properties: {
    name: str(),
    version: str('The API version: v1.'),
    documentation: urls(['openApi', 'agentGuide', 'contributionSchema', 'problems', 'llmsTxt']),
    endpoints: {
      type: 'object',
      description: 'Entry points of the API, by name.',
      additionalProperties: urlString(),
    },
    data: {
      type: 'object',
      description: 'Open data: the daily dumps, the newest one (null before the first), the Atom feed, and the licence.',
      properties: {
        dumps: urlString(),
        latestDump: { type: ['string', 'null'], format: 'uri' },
        feed: urlString(),
        licence: { type: 'object', description: 'The licence of the open data (name, identifier, url).' },
      },
      required: ['dumps', 'latestDump', 'feed', 'licence'],
    },
    methodology: urlString('How reports become statuses.'),
    disclaimer: str('Community-reported experience, not guaranteed capability or confirmed merchant policy.'),
  },
  required: ['name', 'documentation', 'endpoints', 'data', 'methodology', 'disclaimer'],
};

/** GET /api/v1/openapi.json: an OpenAPI 3.1 document (its own schema is the OpenAPI specification's). */
const OPENAPI_DOCUMENT: JsonSchema = {
  type: 'object',
  description: 'An OpenAPI 3.1 document: see https://spec.openapis.org/oas/v3.1.0 for every member.',
  properties: {
    openapi: { type: 'string', description: 'The OpenAPI version: 3.1.0.' },
    jsonSchemaDialect: urlString(),
    info: { type: 'object', description: 'Title, version, description, licence and contact.' },
    servers: { type: 'array', items: { type: 'object' } },
    security: { type: 'array', items: { type: 'object' } },
    tags: { type: 'array', items: { type: 'object' } },
    paths: { type: 'object', description: 'Every operation, by path.' },
    components: { type: 'object', description: 'Schemas and security schemes.' },
  },
  required: ['openapi', 'info', 'paths'],
};

const QUEUE_DESCRIPTION =
  `A sequential work queue, not a reservation. ${QUEUE_RULES.contents} ${QUEUE_RULES.order} ${QUEUE_RULES.retestAfterDays} ` +
  `With retestAfterDays (${RETEST_AFTER_DAYS.min}-${RETEST_AFTER_DAYS.max}) also those whose report by this account for this agent was last changed more than that many days ago; ` +
  'with retest=only (and retestAfterDays) only those: the merchants due for a retest. A merchant due for a retest carries existingReport {id, status, updatedAt}: ' +
  'GET that report, test again, and PUT the update with updatedAt as If-Match (never POST a second report). See the example `retestOnly`. ' +
  `Repeat the filters on every page (or follow the \`next\` Link); limit ${QUEUE_LIMIT.min}-${QUEUE_LIMIT.max} (default ${QUEUE_LIMIT.default}); nextCursor null ends a pass. ${QUEUE_RULES.emptyPass}`;

/** Examples of the queue's answer: a retest-only page, showing existingReport. */
function queueExamples(baseUrl: string) {
  const item = (id: string, slug: string, name: string, existingReport?: Record<string, unknown>) => ({
    id,
    slug,
    name,
    website: `https://${slug}.example`,
    category: { name: 'Toys & Games', slug: 'toys-games' },
    categoryInfo: { name: 'Toys & Games', slug: 'toys-games', url: `${baseUrl}/categories/toys-games` },
    profileUrl: `${baseUrl}/merchants/${slug}`,
    apiUrl: `${baseUrl}/api/v1/merchants/${slug}`,
    ...(existingReport ? { existingReport } : {}),
  });
  return {
    retestOnly: {
      summary: 'GET /automation/queue?retest=only&retestAfterDays=90: merchants due for a retest',
      value: {
        items: [
          item('0195a1c2-7d3e-7a10-9b2c-3d4e5f607182', 'paper-crane-hobbies', 'Paper Crane Hobbies', {
            id: '0193f0aa-1b2c-7d3e-8f40-5a6b7c8d9e0f',
            status: 'APPROVED',
            updatedAt: '2026-06-02T09:14:27.512Z',
          }),
        ],
        nextCursor: null,
        total: 1,
        remaining: 0,
        methodology: `${baseUrl}/how-it-works`,
        disclaimer: DISCLAIMER,
      },
    },
  };
}

/** If-Match of a report's update and of its dry run: the same header, the same rules. */
const ifMatchParameter = {
  name: 'If-Match',
  in: 'header',
  required: true,
  schema: { type: 'string', minLength: 1, maxLength: CONDITIONAL_HEADER_MAX_LENGTH },
  description:
    "The report's version: the ETag of the latest read (the quoted updatedAt), or the bare updatedAt. RFC 9110 rules: a comma-separated list matches when any member is current; `*` matches whatever version is current (an unconditional replacement); a weak tag (`W/\"…\"`) never matches (strong comparison). Anything else is a 400 naming If-Match.",
};

function paths(baseUrl: string): Record<string, unknown> {
  const page = queryParameters(z.strictObject({ page: pageParam }));
  return {
    '/': {
      get: publicRead({
        operationId: 'apiIndex',
        summary: 'The API index: documents, entry points, open data',
        description: 'Link headers point to this document (rel="service-desc") and the agent guide (rel="service-doc").',
        tags: ['Meta'],
        responses: {
          '200': ok('Where everything is.', API_INDEX, { ...publicHeaders, Link: HEADERS.Link }),
        },
      }),
    },
    '/openapi.json': {
      get: publicRead({
        operationId: 'openApiDocument',
        summary: 'This document',
        description: 'The OpenAPI 3.1 description of every endpoint, parameter and answer of this API, generated from the schemas that validate them.',
        tags: ['Meta'],
        responses: { '200': ok('The OpenAPI 3.1 document.', OPENAPI_DOCUMENT, publicHeaders) },
      }),
    },
    '/contribution-schema': {
      get: publicRead({
        operationId: 'contributionSchema',
        summary: 'The machine-readable contribution schema',
        description:
          'Tasks, outcomes, stages and failure reasons with their labels, definitions and examples; the rules of filling a report in (the stage of a blocked run, one failure reason, PARTIAL, stopping at payment, unknown fields); every limit of the contribution endpoints; the privacy conditions; and the JSON Schema of the report body.',
        tags: ['Contribution'],
        responses: { '200': ok('The contribution schema.', componentRef('ContributionSchema'), publicHeaders) },
      }),
    },
    '/categories': {
      get: publicRead({
        operationId: 'listCategories',
        summary: 'Canonical categories with their public merchant counts',
        description: 'Every canonical category with its slug (the category filter of the merchant endpoints and the queue), page URL and public merchant count, by name.',
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
        description:
          'One public merchant by slug or id, with a per-agent summary (reach, status, confidence, capabilities per task, evidence links, agent versions and regressions) for every active agent, tested or not. ' +
          'Summaries count independent reports by default and name self-reported ones (by a verified owner of the shop or vendor of the agent) beside them in `sources` and the verdict; independent=all counts them too.',
        parameters: [pathParam('slugOrId', 'Merchant slug or id.', SLUG_MAX_LENGTH), ...queryParameters(merchantDetailQuery)],
        responses: {
          '200': ok('The merchant.', componentRef('MerchantDetail'), publicHeaders),
          '400': problem('An invalid value of independent.'),
          '404': problem('No public merchant has this slug or id.'),
        },
      }),
    },
    '/agents': {
      get: publicRead({
        operationId: 'listAgents',
        summary: 'The active agent registry',
        description:
          "Active agents by name: id (a report's agentId), slug (the agent filter), name, vendor, and `versions`: the agentVersion values seen in approved reports, newest first, so an agent can find and name its own. Versions are observed, never declared by vendors.",
        parameters: page,
        responses: { '200': ok('A page of agents.', componentRef('RegistryAgentList'), listHeaders) },
      }),
    },
    '/agents/{slug}/merchants': {
      get: publicRead({
        operationId: 'searchAgentMerchants',
        summary: 'The merchant directory scoped to one agent',
        description: 'The merchant search of GET /merchants for one agent (its slug in the path): merchants with approved reports for it, with the same filters, the reach filters and sort=reach.',
        parameters: [pathParam('slug', 'Agent slug.', SLUG_MAX_LENGTH), ...queryParameters(agentMerchantQuery)],
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
        description:
          'Approved reports of public merchants and active agents, newest first, filtered by agent, merchant or outcome; the evidence behind the summaries. ' +
          'Independent reports only by default; independent=all adds the self-reported ones (by a verified owner of the shop or vendor of the agent), each marked `selfReported`.',
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
    '/reports/validate': {
      post: {
        operationId: 'validateReport',
        summary: 'Check a report without submitting it (a dry run)',
        description:
          'The same checks as POST /reports, in the same order and with the same problems (400 validation-failed, 403 agent-mismatch, 409 duplicate-report for a different report of yours), but nothing is written and no submission quota is used. A valid body answers 200 with the report as a submission would store it (absent fields null, outcome derived when left out), notes on how it was read, and `wouldBe`: `created` (POST would answer 201) or `unchanged` (an identical report of yours exists: POST would answer 200, `existingReport` names it). It counts against the private request budgets like any bearer request. ' +
          REPORTING_RULES.trial,
        tags: ['Contribution'],
        security: bearerOrSession,
        requestBody: jsonBody('ReportSubmission'),
        responses: {
          ...COMMON,
          '200': ok('Valid: what the submission would do, and the normalized report. Nothing written.', componentRef('ReportValidation'), privateHeaders),
          '401': problem('No key and no sign-in, or a refused key. Stop retrying.', { 'WWW-Authenticate': HEADERS.WWWAuthenticate }),
          '403': problem("A rejected origin, a suspended account, or an agent other than the key's. Stop retrying."),
          '409': problem('A different report by this account for this merchant and agent exists: POST would be refused the same way; `reportId` names it.'),
          '413': bodyTooLarge,
          '415': notJson,
        },
      },
    },
    '/reports/{id}': {
      get: publicRead({
        operationId: 'getReport',
        summary: 'One approved report',
        description: 'One approved public report by id: where the evidence links of a summary point.',
        parameters: [reportId],
        responses: {
          '200': ok('The report.', componentRef('ReportDetail'), publicHeaders),
          '404': problem('No published report has this id.'),
        },
      }),
    },
    '/claims': {
      get: ownerOperation({
        operationId: 'listClaims',
        summary: "The account's own claims",
        description: 'Every claim this account made, newest first, with its status and exactly what to publish for each method.',
        responses: { '200': ok('The claims.', componentRef('ClaimList'), privateHeaders) },
      }),
      post: ownerOperation({
        operationId: 'startClaim',
        summary: 'Claim a merchant (its website) or an agent (its vendor website)',
        description: `${CLAIM_RULES.methods} ${CLAIM_RULES.sharedHost} ${CLAIM_RULES.recheck} An account holds one open claim of a merchant or agent: claiming it again answers that claim (200).`,
        requestBody: jsonBody('ClaimStart'),
        responses: {
          '201': ok('Claimed, pending proof: `methods` says what to publish.', componentRef('ClaimAnswer'), { ...privateHeaders, Location: header('The claim in this API.') }),
          '200': ok('This account already holds an open claim of it: that claim.', componentRef('ClaimAnswer'), privateHeaders),
          '404': problem('No public merchant or active agent has this slug or id.'),
          '409': problem('A merchant or agent without a website (`no-website-to-claim`), or one whose claim was revoked by a moderator (`claim-revoked`).'),
          '413': bodyTooLarge,
          '415': notJson,
        },
      }),
    },
    '/claims/{id}': {
      get: ownerOperation({
        operationId: 'getClaim',
        summary: 'One of the account\'s claims',
        description: 'Where the claim stands and exactly what to publish for each method; another account\'s claim is not found.',
        parameters: [pathParam('id', 'Claim id (a UUID).', ID_LENGTH)],
        responses: {
          '200': ok('The claim.', componentRef('ClaimAnswer'), privateHeaders),
          '404': problem('No claim of this account has this id.'),
        },
      }),
    },
    '/claims/{id}/check': {
      post: ownerOperation({
        operationId: 'checkClaim',
        summary: 'Look for the proof now',
        description: `The body is optional: \`{"method": "dns"|"file"|"meta"}\` checks one method; without it each allowed method is tried in turn until one verifies. ${CLAIM_RULES.fetcher}`,
        parameters: [pathParam('id', 'Claim id (a UUID).', ID_LENGTH)],
        requestBody: { required: false, content: { 'application/json': { schema: componentRef('ClaimCheckRequest') } } },
        responses: {
          '200': ok('What the check found: verified, failed (with the reason) or pending (could not finish now).', componentRef('ClaimCheckAnswer'), privateHeaders),
          '404': problem('No claim of this account has this id.'),
          '409': problem('A revoked claim cannot be checked (`claim-revoked`).'),
          '413': bodyTooLarge,
          '415': notJson,
        },
      }),
    },
    '/merchants/{slugOrId}/owner-statement': {
      put: ownerOperation({
        operationId: 'putOwnerStatement',
        summary: "Write or replace the merchant's owner statement",
        description:
          "For the holder of a verified claim of this merchant. Published with the owner's attribution and the declaration date as `ownerCompatibility`; it never counts toward scores, statuses or report counts. While the claim is in its grace period the statement stays; once it lapses or is revoked the statement is no longer shown.",
        parameters: [pathParam('slugOrId', 'Merchant slug or id.', SLUG_MAX_LENGTH)],
        requestBody: jsonBody('OwnerStatementRequest'),
        responses: {
          '200': ok('Saved and published.', componentRef('OwnerStatementAnswer'), privateHeaders),
          '404': problem('No public merchant has this slug or id.'),
          '413': bodyTooLarge,
          '415': notJson,
        },
      }),
    },
    '/agents/{slugOrId}/vendor-statement': {
      put: ownerOperation({
        operationId: 'putVendorStatement',
        summary: "Write or replace the agent's vendor statement",
        description: "For the holder of a verified claim of this agent's vendor website. Published on the agent's page and in the registry with the vendor's attribution and date; never evidence.",
        parameters: [pathParam('slugOrId', 'Agent slug or id.', SLUG_MAX_LENGTH)],
        requestBody: jsonBody('VendorStatementRequest'),
        responses: {
          '200': ok('Saved and published.', componentRef('VendorStatementAnswer'), privateHeaders),
          '404': problem('No active agent has this slug or id.'),
          '413': bodyTooLarge,
          '415': notJson,
        },
      }),
    },
    '/reports/{id}/replies': {
      post: ownerOperation({
        operationId: 'replyToReport',
        summary: "The owner's (or vendor's) one public reply under an approved report",
        description:
          'For the holder of a verified claim of the report\'s merchant (or agent). One reply per report and claim: posting again replaces it and sends it back to moderation. A reply is published under the report, with who wrote it and when, once a moderator approves it; it never changes the report or what it counts for.',
        parameters: [reportId],
        requestBody: jsonBody('ReplyRequest'),
        responses: {
          '201': ok('Saved, pending moderation.', componentRef('ReplyAnswer'), privateHeaders),
          '200': ok('Identical to the reply already saved: nothing changed.', componentRef('ReplyAnswer'), privateHeaders),
          '404': problem('No published report has this id.'),
          '413': bodyTooLarge,
          '415': notJson,
        },
      }),
    },
    '/merchants/{slugOrId}/corrections': {
      post: ownerOperation({
        operationId: 'requestCorrection',
        summary: "Ask the moderators to correct the merchant's details",
        description: 'For the holder of a verified claim of this merchant: a proposed name, website, category or service regions, with a note. Nothing changes until a moderator approves it.',
        parameters: [pathParam('slugOrId', 'Merchant slug or id.', SLUG_MAX_LENGTH)],
        requestBody: jsonBody('CorrectionRequest'),
        responses: {
          '201': ok('Queued for the moderators.', componentRef('CorrectionAnswer'), privateHeaders),
          '404': problem('No public merchant has this slug or id.'),
          '413': bodyTooLarge,
          '415': notJson,
        },
      }),
    },
    '/automation/me': {
      get: privateOperation({
        operationId: 'whoAmI',
        summary: "The key's agent, the key and every limit that applies, with what remains",
        description: "Who this key is: its agent (agent.id is every report's agentId), the key (never its secret), and every limit with what remains. Call it first.",
        responses: { '200': ok("Who this key is: use `agent.id` as a report's agentId.", componentRef('WhoAmI'), privateHeaders) },
      }),
    },
    '/automation/queue': {
      get: privateOperation({
        operationId: 'automationQueue',
        summary: "Merchants this account has not yet reported for the key's agent",
        description: QUEUE_DESCRIPTION,
        parameters: queryParameters(queueQuery),
        responses: {
          '200': {
            ...ok('A page of the queue.', componentRef('Queue'), { ...privateHeaders, Link: HEADERS.Link }),
            content: { 'application/json': { schema: componentRef('Queue'), examples: queueExamples(baseUrl) } },
          },
        },
      }),
    },
    '/automation/reports': {
      get: privateOperation({
        operationId: 'automationReports',
        summary: "The account's own reports for the key's agent, pending and rejected ones included, with moderation feedback",
        description: "The account's reports for the key's agent, newest first, in the shape they are written (absent fields null), with status, version and moderation feedback; filter by merchant to find your report of it.",
        parameters: queryParameters(ownReportsQuery),
        responses: { '200': ok('A page of own reports, newest first.', componentRef('OwnReportList'), { ...privateHeaders, Link: HEADERS.Link }) },
      }),
    },
    '/automation/reports/{id}': {
      get: privateOperation({
        operationId: 'automationReport',
        summary: "One of the account's reports, in the shape it is written; its ETag is the If-Match version",
        description: 'Read a report before replacing it: send it back with PUT, changed, with its updatedAt (the ETag) as If-Match.',
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
          'A complete replacement at a known version. The report exactly as read is accepted (server-set fields are ignored; `status` only as read). Identical content is a 200 `unchanged` whatever version was named; otherwise a stale version is a 409 naming the current one, and a change returns the report to PENDING moderation with its screenshots kept. ' +
          REPORTING_RULES.update,
        parameters: [
          reportId,
          ifMatchParameter,
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
    '/automation/reports/{id}/validate': {
      post: privateOperation({
        operationId: 'validateUpdate',
        summary: 'Check an update without sending it (a dry run of PUT)',
        description:
          'The same checks as PUT /automation/reports/{id}, in the same order and with the same problems (400, 404, 409 stale-version, 428), If-Match included, but nothing is written and no submission quota is used. A valid update answers 200 with `wouldBe` `updated` or `unchanged`, the report as it would be stored, and notes on how it was read.',
        parameters: [
          reportId,
          ifMatchParameter,
        ],
        requestBody: jsonBody('ReportReplacement'),
        responses: {
          '200': ok('Valid: what the PUT would do, and the report as it would be stored. Nothing written.', componentRef('ReportValidation'), privateHeaders),
          '404': problem("No report of this account and the key's agent has this id."),
          '409': problem('Stale If-Match: the PUT would be refused the same way.'),
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
  void [automation.ReportValidation, RegistryAgentList, ContributionSchema];
  void [claims.claimStart, claims.claimCheck, claims.ownerStatementBody, claims.vendorStatementBody, claims.replyBody, claims.correctionBody];
  void [claims.ClaimAnswer, claims.ClaimList, claims.ClaimCheckAnswer, claims.OwnerStatementAnswer, claims.VendorStatementAnswer, claims.ReplyAnswer, claims.CorrectionAnswer];
  cached ??= documentFor(baseUrl);
  return { ...cached, servers: [{ url: `${baseUrl}/api/v1` }] };
}

/**
 * The components the operations use, directly or through other components: a schema that is
 * registered but answers nothing (a shape another surface has replaced) is not published.
 */
function usedComponents(operations: unknown, all: Record<string, JsonSchema>): Record<string, JsonSchema> {
  const used = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (!value || typeof value !== 'object') return;
    for (const [key, member] of Object.entries(value)) {
      if (key === '$ref' && typeof member === 'string' && member.startsWith('#/components/schemas/')) {
        const id = member.slice('#/components/schemas/'.length);
        if (!used.has(id) && all[id]) {
          used.add(id);
          visit(all[id]);
        }
      } else visit(member);
    }
  };
  visit(operations);
  return Object.fromEntries(Object.entries(all).filter(([id]) => used.has(id)));
}

function documentFor(baseUrl: string): JsonSchema {
  const operations = paths(baseUrl);
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
      { name: 'Owners', description: 'Shop owners and agent vendors: claims, statements, replies and corrections. A signed-in browser session only (same origin); agent keys are refused.' },
      { name: 'Meta', description: 'This document.' },
    ],
    paths: operations,
    components: {
      schemas: usedComponents(operations, componentSchemas()),
      securitySchemes: {
        agentKey: { type: 'http', scheme: 'bearer', description: 'An agent key issued at /profile/agents. Never put it in a URL.' },
        session: { type: 'apiKey', in: 'cookie', name: 'acd.sid', description: 'A signed-in browser session (same origin; Origin header required).' },
      },
    },
  };
}
