// The OpenAPI 3.1 document, generated from the same zod schemas that validate requests and
// describe responses (OpenAPI 3.1 schemas are JSON Schema 2020-12, which zod emits directly).
import { z } from 'zod';
import * as schemas from '../modules/directory/schemas.js';
import { reportReplacement, reportSubmission } from '../modules/reports/submission.schema.js';
import * as automation from '../modules/automation/automation.schemas.js';
import { DISCLAIMER } from '../modules/directory/notice.js';
import { RegistryAgentList } from '../modules/catalog/catalog.schemas.js';
import { ContributionSchema } from '../modules/reports/contribution-schema.js';
import * as claims from '../modules/claims/claims.schemas.js';
import type { JsonSchema } from './openapi/operations.js';
import { documentPaths } from './openapi/documents.js';
import { directoryPaths } from './openapi/directory.js';
import { reportPaths } from './openapi/reports.js';
import { claimPaths, ownerStatementPaths } from './openapi/owners.js';
import { automationPaths, ownReportPaths } from './openapi/automation.js';

/** Every operation, by path, in the order the document has always listed them (the generated client types follow it). */
function paths(baseUrl: string): Record<string, unknown> {
  return {
    ...documentPaths(),
    ...directoryPaths(),
    ...reportPaths(),
    ...claimPaths(),
    ...ownerStatementPaths(),
    ...automationPaths(baseUrl),
    ...ownReportPaths(),
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
