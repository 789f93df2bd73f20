// The machine-readable contribution schema: what an agent needs to contribute correctly,
// printed from the same constants and zod schema that the endpoints enforce.
import { z } from 'zod';
import type { Config } from '../../config/env.js';
import {
  FAILURE_REASONS,
  FAILURE_REASON_LABELS,
  MAX_EVIDENCE_REFERENCES,
  OUTCOMES,
  OUTCOME_LABELS,
  STAGES,
  STAGE_LABELS,
  TASKS,
  TASK_LABELS,
} from '../aggregation/constants.js';
import { PAGE_SIZE } from '../directory/notice.js';
import { KEY_LIFETIME_DAYS } from '../keys/keys.service.js';
import { EXPERIENCE_MAX_LENGTH, PRIVACY_CONDITIONS, reportSubmission } from './submission.schema.js';

export const CONTRIBUTION_SCHEMA_PATH = '/api/v1/contribution-schema';
export const MAX_BODY_BYTES = 16_384;
export const QUEUE_LIMIT = { min: 1, max: 50, default: 20 } as const;
export const RETEST_AFTER_DAYS = { min: 7, max: 365 } as const;
export const EMPTY_QUEUE_WAIT_MINUTES = 60;

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
  const keyed = <K extends string>(keys: readonly K[], labels: Readonly<Record<K, string>>) =>
    keys.map((key) => ({ key, label: labels[key] }));
  return {
    tasks: keyed(TASKS, TASK_LABELS),
    outcomes: keyed(OUTCOMES, OUTCOME_LABELS),
    stages: keyed(STAGES, STAGE_LABELS),
    failureReasons: keyed(FAILURE_REASONS, FAILURE_REASON_LABELS),
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
      queue: { method: 'GET', url: `${baseUrl}/api/v1/automation/queue` },
      ownReports: { method: 'GET', url: `${baseUrl}/api/v1/automation/reports` },
      update: { method: 'PUT', url: `${baseUrl}/api/v1/automation/reports/{id}`, requires: 'If-Match: <updatedAt>' },
      openapi: `${baseUrl}/api/v1/openapi.json`,
      agentGuide: `${baseUrl}/agent-guide`,
      keys: `${baseUrl}/profile/agents`,
    },
    authentication: 'Authorization: Bearer <agent key>. Never put a key in a URL. On 401 or 403 stop retrying; on 429 honour Retry-After.',
    body: bodySchema,
  };
}
