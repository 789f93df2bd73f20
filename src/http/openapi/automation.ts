// The automation API in the OpenAPI document (http/openapi.ts): bearer agent keys only.
import { ownReportsQuery, queueQuery } from '../../modules/automation/automation.schemas.js';
import { DISCLAIMER } from '../../modules/directory/notice.js';
import { RETEST_AFTER_DAYS, QUEUE_LIMIT } from '../../modules/reports/contribution-schema.js';
import { QUEUE_RULES, REPORTING_RULES } from '../../modules/reports/definitions.js';
import { bodyTooLarge, componentRef, CONDITIONAL_HEADER_MAX_LENGTH, HEADERS, jsonBody, notJson, ok, privateHeaders, privateOperation, problem, queryParameters, reportId } from './operations.js';

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

/** Who the key is, the work queue, and the account's own reports. */
export function automationPaths(baseUrl: string): Record<string, unknown> {
  return {
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
  };
}

/** One of the account's own reports: read it, replace it, or try the replacement. */
export function ownReportPaths(): Record<string, unknown> {
  return {
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
