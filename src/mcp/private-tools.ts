// The tools for an agent key (spec 4.2, 4.3): the key's account and agent only, as the
// contribution and automation APIs answer them.
import { z } from 'zod';
import { OwnReportDetail, ownReportsQuery, queueQuery } from '../modules/automation/automation.schemas.js';
import { ownReportById, ownReports, queue, replaceReport, validateUpdate, whoami } from '../modules/automation/automation.service.js';
import { notice, ownReportApiUrl } from '../modules/directory/notice.js';
import { reportReplacement, reportSubmission } from '../modules/reports/submission.schema.js';
import { reviewUrl, submitReport, validateSubmission, validationView } from '../modules/reports/submissions.service.js';
import { Answers, jsonSchemaOf, type JsonSchema } from './schemas.js';
import { bodyArgs, noArgs, privateTool, queryArgs, READ, scopeOf, type Tool } from './tool-kit.js';

const KEY_RULE =
  "Tools marked KEY need an agent key, carried by the MCP client's connection as its bearer token, never in an argument; " +
  'their answers add limits (what remains of each). Errors are isError results with a problem JSON: on 401 or 403 stop; ' +
  'on 429 or 503 wait retryAfter seconds; on 400 fix the arguments errors names.';
const REPORT_RULES =
  'Report only what you actually tested; set privacy true only after checking the report holds no personal or payment data and ' +
  'describes an actual, authorised test. Read the definitions and rules (get_contribution_schema) before filling in a field.';

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
/** The tools for an agent key, in the order tools/list gives them (after the public ones). */
export const PRIVATE_TOOLS: readonly Tool[] = [whoamiTool, getQueue, validateReport, submitReportTool, listMyReports, getMyReport, updateReport];
