// Reports in the OpenAPI document (http/openapi.ts): the public reads of approved reports and the contribution of new ones.
import { reportQuery } from '../../modules/reports/public-reports.schemas.js';
import { REPORTING_RULES } from '../../modules/reports/definitions.js';
import { bodyTooLarge, COMMON, componentRef, HEADERS, jsonBody, listHeaders, notJson, ok, privateHeaders, problem, publicHeaders, publicRead, queryParameters, reportId } from './operations.js';

/** A contribution comes with a bearer agent key or a signed-in browser session. */
const bearerOrSession = [{ agentKey: [] }, { session: [] }];

/** GET and POST /reports, POST /reports/validate, GET /reports/{id}. */
export function reportPaths(): Record<string, unknown> {
  return {
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
  };
}
