// The OpenAPI 3.1 document, generated from the same zod schemas that validate requests and
// describe responses (OpenAPI 3.1 schemas are JSON Schema 2020-12, which zod emits directly).
import { z } from 'zod';
import * as schemas from '../modules/directory/schemas.js';
import { agentMerchantQuery, merchantQuery } from '../modules/merchants/merchants.schemas.js';
import { reportQuery } from '../modules/reports/public-reports.schemas.js';
import { reportSubmission } from '../modules/reports/submission.schema.js';
import { pageParam } from '../modules/directory/query.js';
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

const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: componentRef('Problem') } },
});

const json = (description: string, id: string) => ({
  description,
  content: { 'application/json': { schema: componentRef(id) } },
});

const merchantList = (description: string) => ({
  description: `${description} The standard view gives every field of each per-agent summary, with the newest observation and evidence reference per task (the merchant's \`url\` has up to five); \`view=compact\` gives status and confidence per agent and task.`,
  content: {
    'application/json': { schema: { anyOf: [componentRef('MerchantList'), componentRef('CompactMerchantList')] } },
  },
});

const publicErrors = {
  '400': problem('An invalid filter or parameter; `errors` names each one.'),
  '429': problem('Too many requests; honour Retry-After.'),
};

const pathParam = (name: string, description: string) => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: { type: 'string' },
});

const bearer = [{ agentKey: [] }];
const bearerOrSession = [{ agentKey: [] }, { session: [] }];

function paths(): Record<string, unknown> {
  const page = queryParameters(z.strictObject({ page: pageParam }));
  return {
    '/contribution-schema': {
      get: {
        operationId: 'contributionSchema',
        summary: 'The machine-readable contribution schema',
        description: 'Tasks, outcomes, stages and failure reasons with their labels, every limit of the contribution endpoints, the privacy conditions, and the JSON Schema of the report body.',
        tags: ['Contribution'],
        responses: { '200': { description: 'The contribution schema.', content: { 'application/json': { schema: { type: 'object' } } } } },
      },
    },
    '/categories': {
      get: {
        operationId: 'listCategories',
        summary: 'Canonical categories with their public merchant counts',
        tags: ['Public directory'],
        parameters: page,
        responses: { '200': json('A page of categories.', 'CategoryList'), ...publicErrors },
      },
    },
    '/merchants': {
      get: {
        operationId: 'searchMerchants',
        summary: 'Search the merchant directory',
        description:
          'Sponsored listings come first within the matching results, then the chosen order. agent, outcome, stage and days together select merchants with one approved report meeting all of them. Only agents with published reports appear in `agents`.',
        tags: ['Public directory'],
        parameters: queryParameters(merchantQuery),
        responses: { '200': merchantList('A page of merchants.'), ...publicErrors },
      },
    },
    '/merchants/{slugOrId}': {
      get: {
        operationId: 'getMerchant',
        summary: 'A merchant profile with a summary for every active agent',
        tags: ['Public directory'],
        parameters: [pathParam('slugOrId', 'Merchant slug or id.')],
        responses: {
          '200': json('The merchant.', 'MerchantDetail'),
          '404': problem('No public merchant has this slug or id.'),
          '429': publicErrors['429'],
        },
      },
    },
    '/agents': {
      get: {
        operationId: 'listAgents',
        summary: 'The active agent registry',
        tags: ['Public directory'],
        parameters: page,
        responses: { '200': json('A page of agents.', 'AgentList'), ...publicErrors },
      },
    },
    '/agents/{slug}/merchants': {
      get: {
        operationId: 'searchAgentMerchants',
        summary: 'The merchant directory scoped to one agent',
        tags: ['Public directory'],
        parameters: [pathParam('slug', 'Agent slug.'), ...queryParameters(agentMerchantQuery)],
        responses: {
          '200': merchantList('A page of merchants with approved reports for this agent.'),
          '404': problem('No active agent has this slug.'),
          ...publicErrors,
        },
      },
    },
    '/reports': {
      get: {
        operationId: 'listReports',
        summary: 'Recent approved reports',
        tags: ['Public directory'],
        parameters: queryParameters(reportQuery),
        responses: { '200': json('A page of approved reports, newest first.', 'ReportList'), ...publicErrors },
      },
      post: {
        operationId: 'submitReport',
        summary: 'Submit a report about one merchant and one agent',
        description:
          'With a signed-in browser session (same origin, Origin header required) or a bearer agent key. The report is moderated before it becomes public. Screenshots can only be attached through the browser form.',
        tags: ['Contribution'],
        security: bearerOrSession,
        requestBody: {
          required: true,
          content: { 'application/json': { schema: componentRef('ReportSubmission') } },
        },
        responses: {
          '201': { description: 'Created, pending moderation: id, status PENDING, reviewUrl; with a bearer key also updatedAt and unchanged.' },
          '200': { description: 'Identical bearer resubmission: unchanged true, moderation status kept.' },
          '400': problem('The body is not valid; `errors` points at each field.'),
          '401': problem('No sign-in or key. Stop retrying.'),
          '403': problem('Rejected origin, suspended account, or an agent other than the key\'s. Stop retrying.'),
          '409': problem('A different report by this account for this merchant and agent exists; update it with PUT.'),
          '413': problem('Body larger than 16,384 bytes.'),
          '415': problem('Not application/json.'),
          '429': publicErrors['429'],
        },
      },
    },
    '/reports/{id}': {
      get: {
        operationId: 'getReport',
        summary: 'One approved report',
        tags: ['Public directory'],
        parameters: [pathParam('id', 'Report id.')],
        responses: {
          '200': json('The report.', 'ReportDetail'),
          '404': problem('No published report has this id.'),
          '429': publicErrors['429'],
        },
      },
    },
    '/automation/queue': {
      get: {
        operationId: 'automationQueue',
        summary: 'Merchants this account has not yet reported for the key\'s agent',
        description:
          'A sequential work queue, not a reservation. Repeat the filters on every page; nextCursor null ends a pass; after an empty pass wait at least an hour.',
        tags: ['Automation'],
        security: bearer,
        parameters: queryParameters(queueQuery),
        responses: {
          '200': { description: 'items (id, slug, name, website, category, profileUrl, apiUrl, and existingReport {id, status, updatedAt} when retesting) and nextCursor (null ends the pass).' },
          '400': problem('An invalid parameter or cursor.'),
          '401': problem('Missing, unknown, revoked or expired key. Stop retrying.'),
          '403': problem('Suspended account. Stop retrying.'),
          '429': publicErrors['429'],
        },
      },
    },
    '/automation/reports': {
      get: {
        operationId: 'automationReports',
        summary: 'The account\'s own reports, pending and rejected ones included, with moderation feedback',
        tags: ['Automation'],
        security: bearer,
        parameters: queryParameters(ownReportsQuery),
        responses: {
          '200': { description: 'items (own reports of the key\'s agent, newest first, with status, moderationFeedback and updatedAt for If-Match) and nextCursor.' },
          '401': problem('Missing, unknown, revoked or expired key. Stop retrying.'),
          '403': problem('Suspended account. Stop retrying.'),
          '429': publicErrors['429'],
        },
      },
    },
    '/automation/reports/{id}': {
      get: {
        operationId: 'automationReport',
        summary: 'One of the account\'s reports; its ETag is the If-Match version',
        tags: ['Automation'],
        security: bearer,
        parameters: [pathParam('id', 'Report id.')],
        responses: {
          '200': { description: 'The report, with updatedAt; the ETag header carries the same version.' },
          '401': problem('Missing, unknown, revoked or expired key. Stop retrying.'),
          '404': problem('No such report of this account for this agent.'),
        },
      },
      put: {
        operationId: 'updateReport',
        summary: 'Replace one of the account\'s reports',
        tags: ['Automation'],
        security: bearer,
        parameters: [
          pathParam('id', 'Report id.'),
          { name: 'If-Match', in: 'header', required: true, schema: { type: 'string' }, description: 'The report\'s updatedAt from the latest private read.' },
        ],
        requestBody: { required: true, content: { 'application/json': { schema: componentRef('ReportSubmission') } } },
        responses: {
          '200': { description: 'id, status, updatedAt, unchanged.' },
          '400': problem('Invalid body, or a different merchant or agent.'),
          '404': problem('No such report of this account.'),
          '409': problem('Stale If-Match; the body carries the current updatedAt.'),
          '428': problem('If-Match is missing.'),
          '429': publicErrors['429'],
        },
      },
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
  void [schemas.MerchantList, schemas.CompactMerchantList, schemas.MerchantDetail, schemas.CategoryList, schemas.AgentList, schemas.ReportList, schemas.ReportDetail, schemas.Problem, reportSubmission];
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
      description: `Community-reported evidence of how well AI agents can use online merchants. ${DISCLAIMER} Contributors: see the contribution schema at ${baseUrl}/api/v1/contribution-schema and the agent guide at ${baseUrl}/agent-guide.`,
    },
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
