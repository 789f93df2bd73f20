// The machine-readable contribution schema: what an agent needs to contribute correctly,
// printed from the same constants and zod schema that the endpoints enforce.
import { z } from 'zod';
import type { Config } from '../../config/env.js';
import { FAILURE_REASONS, MAX_EVIDENCE_REFERENCES, OUTCOMES, STAGES, TASKS } from '../aggregation/constants.js';
import { PAGE_SIZE } from '../directory/notice.js';
import { KEY_LIFETIME_DAYS } from '../keys/keys.service.js';
import { EXPERIENCE_MAX_LENGTH, PRIVACY_CONDITIONS, reportSubmission } from './submission.schema.js';
import { REPORTING_RULES, reportDefinitions } from './definitions.js';

export const CONTRIBUTION_SCHEMA_PATH = '/api/v1/contribution-schema';
export const MAX_BODY_BYTES = 16_384;
export const QUEUE_LIMIT = { min: 1, max: 50, default: 20 } as const;
export const RETEST_AFTER_DAYS = { min: 7, max: 365 } as const;
const EMPTY_QUEUE_WAIT_MINUTES = 60;
/** The dry run of POST /api/v1/reports. */
export const VALIDATE_PATH = '/api/v1/reports/validate';

let bodySchema: Record<string, unknown> | undefined;

export function contributionSchema(baseUrl: string, limits: Config['limits']) {
  bodySchema ??= (() => {
    const json = z.toJSONSchema(reportSubmission, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as {
      $ref?: string;
      $defs?: Record<string, Record<string, unknown>>;
    } & Record<string, unknown>;
    // The schema has an id for the OpenAPI components; here it stands alone.
    const root = json.$ref ? json.$defs?.[json.$ref.split('/').pop()!] : json;
    const { $schema: _dialect, id: _id, ...schema } = root ?? {};
    return schema;
  })();
  // Each key with its label, definition and (where useful) an example; the rules of filling a
  // report in (stage, failure reasons, PARTIAL, stopping at payment, unknown fields): definitions.ts.
  const { tasks, outcomes, stages, failureReasons, rules, cases } = reportDefinitions();
  return {
    tasks,
    outcomes,
    stages,
    failureReasons,
    rules,
    cases,
    privacyConditions: [...PRIVACY_CONDITIONS],
    resultRule: 'Give at least one capabilityResults entry or an overall outcome. Without outcome, it is derived: all task outcomes identical → that outcome; mixed → PARTIAL; all UNSURE → UNSURE.',
    limits: {
      requestBodyBytes: MAX_BODY_BYTES,
      experienceMaxLength: EXPERIENCE_MAX_LENGTH,
      reportsPerAccountMerchantAgent: 1,
      browserSubmissionsPerAccountPerHour: limits.browserSubmissionsPerHour,
      changedAgentSubmissionsPerAccountPerHour: limits.agentSubmissionsPerHour,
      privateRequestsPerAccountPerMinute: limits.privatePerMinute,
      privateRequestsPerAddressPerMinute: limits.privateAddressPerMinute,
      publicRequestsPerAddressPerMinute: limits.publicPerMinute,
      keyLifetimeDays: KEY_LIFETIME_DAYS,
      queueLimit: QUEUE_LIMIT,
      retestAfterDays: RETEST_AFTER_DAYS,
      pageSize: PAGE_SIZE,
      evidenceReferencesPerCapability: MAX_EVIDENCE_REFERENCES,
      emptyQueueWaitMinutes: EMPTY_QUEUE_WAIT_MINUTES,
    },
    endpoints: {
      submit: { method: 'POST', url: `${baseUrl}/api/v1/reports` },
      validate: { method: 'POST', url: `${baseUrl}${VALIDATE_PATH}`, note: 'A dry run of submit: the same answer or problem, nothing written.' },
      agents: { method: 'GET', url: `${baseUrl}/api/v1/agents`, note: 'Each agent with the versions seen in approved reports, newest first.' },
      queue: { method: 'GET', url: `${baseUrl}/api/v1/automation/queue` },
      retestQueue: {
        method: 'GET',
        url: `${baseUrl}/api/v1/automation/queue?retest=only&retestAfterDays=90`,
        note: 'Only merchants whose report by this account for this agent was last changed more than retestAfterDays days ago, each with existingReport.',
      },
      ownReports: { method: 'GET', url: `${baseUrl}/api/v1/automation/reports` },
      update: { method: 'PUT', url: `${baseUrl}/api/v1/automation/reports/{id}`, requires: 'If-Match: <updatedAt>' },
      validateUpdate: {
        method: 'POST',
        url: `${baseUrl}/api/v1/automation/reports/{id}/validate`,
        requires: 'If-Match: <updatedAt>',
        note: 'A dry run of update: the same answer or problem, nothing written.',
      },
      openapi: `${baseUrl}/api/v1/openapi.json`,
      agentGuide: `${baseUrl}/agent-guide`,
      keys: `${baseUrl}/profile/agents`,
    },
    authentication: 'Authorization: Bearer <agent key>. Never put a key in a URL. On 401 or 403 stop retrying; on 429 honour Retry-After.',
    body: bodySchema,
  };
}

// The answer's schema, for the OpenAPI document (and tests check real answers against it).
const DefinedKeySchema = (id: string, keys: readonly [string, ...string[]]) =>
  z
    .object({
      key: z.enum(keys),
      label: z.string(),
      definition: z.string().describe('What the key means, in one sentence.'),
      example: z.string().optional().describe('A run where it applies.'),
    })
    .meta({ id });
const range = (keys: string[]) => z.object(Object.fromEntries(keys.map((k) => [k, z.int()])));
const endpoint = z.object({ method: z.string(), url: z.string(), requires: z.string().optional(), note: z.string().optional() });

export const ContributionSchema = z
  .object({
    tasks: z.array(DefinedKeySchema('DefinedTask', TASKS)),
    outcomes: z.array(DefinedKeySchema('DefinedOutcome', OUTCOMES)),
    stages: z.array(DefinedKeySchema('DefinedStage', STAGES)),
    failureReasons: z.array(DefinedKeySchema('DefinedFailureReason', FAILURE_REASONS)),
    rules: z
      .object(Object.fromEntries(Object.keys(REPORTING_RULES).map((k) => [k, z.string()])) as Record<keyof typeof REPORTING_RULES, z.ZodString>)
      .describe('The rules of filling a report in, each stated once.'),
    cases: z
      .array(
        z.object({
          id: z.string(),
          when: z.string(),
          rule: z.string(),
          example: z
            .object({
              capabilityResults: z.partialRecord(z.enum(TASKS), z.enum(OUTCOMES)),
              stage: z.enum(STAGES),
              failureReason: z.enum(FAILURE_REASONS).optional(),
              humanIntervention: z.boolean().optional(),
              region: z.string().optional(),
              agentVersion: z.string().optional(),
            })
            .describe('The report fields for this case; add adId, agentId, privacy, testedAt and your own text.'),
        }),
      )
      .describe('Cases real runs hit, each settled by one rule, with the report it gives.'),
    privacyConditions: z.array(z.string()),
    resultRule: z.string(),
    limits: z.object({
      requestBodyBytes: z.int(),
      experienceMaxLength: z.int(),
      reportsPerAccountMerchantAgent: z.int(),
      browserSubmissionsPerAccountPerHour: z.int(),
      changedAgentSubmissionsPerAccountPerHour: z.int(),
      privateRequestsPerAccountPerMinute: z.int(),
      privateRequestsPerAddressPerMinute: z.int(),
      publicRequestsPerAddressPerMinute: z.int(),
      keyLifetimeDays: z.int(),
      queueLimit: range(['min', 'max', 'default']),
      retestAfterDays: range(['min', 'max']),
      pageSize: z.int(),
      evidenceReferencesPerCapability: z.int(),
      emptyQueueWaitMinutes: z.int(),
    }),
    endpoints: z.object({
      submit: endpoint,
      validate: endpoint,
      agents: endpoint,
      queue: endpoint,
      retestQueue: endpoint,
      ownReports: endpoint,
      update: endpoint,
      validateUpdate: endpoint,
      openapi: z.string(),
      agentGuide: z.string(),
      keys: z.string(),
    }),
    authentication: z.string(),
    body: z.record(z.string(), z.unknown()).describe('The JSON Schema (2020-12) of the report body, as POST /api/v1/reports validates it.'),
  })
  .meta({ id: 'ContributionSchema', description: 'What an agent needs to contribute correctly: keys with definitions, rules, limits, endpoints and the body schema.' });
