// The report submission body of spec 2.1: one schema for the JSON endpoint, the form,
// automation updates, the OpenAPI document and the contribution schema.
import { z } from 'zod';
import { FAILURE_REASONS, OUTCOMES, STAGES, TASKS, type OutcomeKey } from '../aggregation/constants.js';
import { storable } from '../../text.js';
import { FIELD_DESCRIPTIONS } from './definitions.js';
import { countryCode, isCountryCode, REGION_MESSAGE } from '../../countries.js';
import { EARLIEST_DAY, isCalendarDay } from '../../dates.js';

export const EXPERIENCE_MAX_LENGTH = 4_000;

export const PRIVACY_CONDITIONS = [
  'the submission contains no private or payment data',
  'it describes an actual, authorized test',
  'it contains no instructions for bypassing a site\'s protections',
] as const;

const text = (max: number) =>
  z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`).superRefine(storable());

/** Words that stand for "not known": the field is left out instead (REPORTING_RULES.unknownFields). */
const PLACEHOLDER = /^(?:unknown|n\/?a|none|null|undefined|not known|-+|\?+)$/i;
const known = (field: ReturnType<typeof text>) =>
  field.refine((value) => !PLACEHOLDER.test(value), {
    message: 'leave this field out when it is not known (never "unknown", "n/a" or a guess)',
    params: { rule: 'placeholder' },
  });

/** The earliest test date taken: the earliest day of every input. */
export const EARLIEST_TEST_DATE = EARLIEST_DAY;

/** A real calendar date written YYYY-MM-DD (dates.ts). Whether it lies in the future is checked against the clock. */
const calendarDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date written YYYY-MM-DD')
  .refine(isCalendarDay, 'must be a real calendar date')
  .refine((value) => value >= EARLIEST_TEST_DATE, `must be ${EARLIEST_TEST_DATE} or later`);

/** The fields of spec 2.1. */
const reportFields = {
  adId: z.uuid('must be a merchant id').describe(FIELD_DESCRIPTIONS.adId),
  agentId: z.uuid('must be an agent id').describe(FIELD_DESCRIPTIONS.agentId),
  privacy: z
    .literal(true, { error: `must be true, confirming that ${PRIVACY_CONDITIONS.join('; ')}` })
    .describe(FIELD_DESCRIPTIONS.privacy),
  capabilityResults: z
    .strictObject(
      Object.fromEntries(TASKS.map((t) => [t, z.enum(OUTCOMES).describe(FIELD_DESCRIPTIONS.taskKey(t)).optional()])) as Record<
        (typeof TASKS)[number],
        z.ZodOptional<z.ZodEnum<{ [K in OutcomeKey]: K }>>
      >,
    )
    .describe(FIELD_DESCRIPTIONS.capabilityResults)
    .optional(),
  outcome: z.enum(OUTCOMES).describe(FIELD_DESCRIPTIONS.outcome).optional(),
  experience: z
    .string()
    .max(EXPERIENCE_MAX_LENGTH, `must be at most ${EXPERIENCE_MAX_LENGTH} characters`)
    .superRefine(storable({ multiline: true }))
    .optional()
    .describe(FIELD_DESCRIPTIONS.experience),
  testedAt: calendarDate
    .optional()
    .describe(FIELD_DESCRIPTIONS.testedAt),
  agentVersion: known(text(100)).describe(FIELD_DESCRIPTIONS.agentVersion).optional(),
  // A country name or code, stored as the alpha-2 code (countries.ts); anything else is refused.
  region: known(text(100))
    .overwrite((value) => countryCode(value) ?? value)
    // Only for text that passed the rules above: one refusal per problem.
    .refine(isCountryCode, { message: REGION_MESSAGE, params: { rule: 'country' }, when: (payload) => payload.issues.length === 0 })
    .describe(FIELD_DESCRIPTIONS.region)
    .optional(),
  task: text(500)
    .optional()
    .describe(FIELD_DESCRIPTIONS.task),
  stage: z.enum(STAGES).describe(FIELD_DESCRIPTIONS.stage).optional(),
  failureReason: z.enum(FAILURE_REASONS).describe(FIELD_DESCRIPTIONS.failureReason).optional(),
  humanIntervention: z.boolean().optional().describe(FIELD_DESCRIPTIONS.humanIntervention),
};

const hasResult = (body: { outcome?: unknown; capabilityResults?: Record<string, unknown> | null }) =>
  body.outcome != null || Object.values(body.capabilityResults ?? {}).some((v) => v != null);
const RESULT_RULE = { path: ['outcome'], message: 'give at least one capabilityResults entry or an overall outcome' };

export const reportSubmission = z.strictObject(reportFields).refine(hasResult, RESULT_RULE).meta({ id: 'ReportSubmission' });

/** What the server sets on a report: sent back as read, they are accepted and ignored. */
const ignored = (what: string) => z.unknown().optional().describe(`Ignored: ${what}, set by the server.`);


/**
 * The body of PUT /api/v1/automation/reports/:id: a complete replacement (spec 2.1). A report
 * exactly as GET /api/v1/automation/reports/:id returned it is accepted as is: the read-only
 * fields of that shape are ignored (a client never sets a status or an author).
 */
export const reportReplacement = z
  .strictObject({
    // Spec 2.1's fields; an optional one may also be null ("not given"), as a read shows it.
    adId: reportFields.adId,
    agentId: reportFields.agentId,
    privacy: reportFields.privacy,
    capabilityResults: reportFields.capabilityResults.unwrap().nullable().optional(),
    outcome: reportFields.outcome.unwrap().nullable().optional(),
    experience: reportFields.experience.unwrap().nullable().optional(),
    testedAt: reportFields.testedAt.unwrap().nullable().optional(),
    agentVersion: reportFields.agentVersion.unwrap().nullable().optional(),
    region: reportFields.region.unwrap().nullable().optional(),
    task: reportFields.task.unwrap().nullable().optional(),
    stage: reportFields.stage.unwrap().nullable().optional(),
    failureReason: reportFields.failureReason.unwrap().nullable().optional(),
    humanIntervention: reportFields.humanIntervention.unwrap().nullable().optional(),
    id: ignored('the report id (the path names it)'),
    status: z
      .enum(['PENDING', 'APPROVED', 'REJECTED'])
      .optional()
      .describe('Accepted only as read: a client never sets a moderation status (400 when it differs from the current one).'),
    outcomeDerived: ignored('whether outcome was derived'),
    updatedAt: ignored('the version (the precondition of the update names it)'),
    createdAt: ignored('the creation time'),
    moderationFeedback: ignored("the moderator's feedback"),
    merchant: ignored('the merchant, as adId names it'),
    url: ignored('the API address of the report'),
    reviewUrl: ignored('the review page'),
    screenshotCount: ignored('the number of screenshots (kept on every replacement)'),
    methodology: ignored('the methodology link'),
    disclaimer: ignored('the disclaimer'),
  })
  .refine(hasResult, RESULT_RULE)
  .meta({ id: 'ReportReplacement' });

export type ReportSubmission = z.output<typeof reportSubmission>;
export type ReportReplacement = z.output<typeof reportReplacement>;

/** A replacement as the submission it stands for: null fields absent, read-only fields dropped. */
export function submissionOf(body: ReportReplacement): ReportSubmission {
  const { id: _id, status: _status, outcomeDerived: _derived, updatedAt: _u, createdAt: _c, moderationFeedback: _f, merchant: _m, url: _url, reviewUrl: _r, screenshotCount: _s, methodology: _me, disclaimer: _d, ...fields } = body;
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== null)) as ReportSubmission;
}
