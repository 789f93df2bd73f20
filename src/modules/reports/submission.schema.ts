// The report submission body of spec 2.1: one schema for the JSON endpoint, the form,
// automation updates, the OpenAPI document and the contribution schema.
import { z } from 'zod';
import { FAILURE_REASONS, OUTCOMES, STAGES, TASKS, type OutcomeKey } from '../aggregation/constants.js';
import { storable } from '../../text.js';

export const EXPERIENCE_MAX_LENGTH = 4_000;

export const PRIVACY_CONDITIONS = [
  'the submission contains no private or payment data',
  'it describes an actual, authorized test',
  'it contains no instructions for bypassing a site\'s protections',
] as const;

const text = (max: number) =>
  z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`).superRefine(storable());

/** The earliest test date taken (before it, the date is a typo, and PostgreSQL has no year 0). */
export const EARLIEST_TEST_DATE = '2000-01-01';

/** A real calendar date written YYYY-MM-DD. Whether it lies in the future is checked against the clock. */
export const calendarDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date written YYYY-MM-DD')
  .refine((value) => {
    const date = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
  }, 'must be a real calendar date')
  .refine((value) => value >= EARLIEST_TEST_DATE, `must be ${EARLIEST_TEST_DATE} or later`);

export const reportSubmission = z
  .strictObject({
    adId: z.uuid('must be a merchant id').describe('Merchant id, from the merchants endpoints. Cannot change later.'),
    agentId: z.uuid('must be an agent id').describe('Agent id, from the agents endpoint. Cannot change later.'),
    privacy: z
      .literal(true, { error: `must be true, confirming that ${PRIVACY_CONDITIONS.join('; ')}` })
      .describe(`Set true only after checking that ${PRIVACY_CONDITIONS.join('; ')}.`),
    capabilityResults: z
      .strictObject(Object.fromEntries(TASKS.map((t) => [t, z.enum(OUTCOMES).optional()])) as Record<(typeof TASKS)[number], z.ZodOptional<z.ZodEnum<{ [K in OutcomeKey]: K }>>>)
      .optional()
      .describe('Outcome per attempted task; unattempted tasks are absent.'),
    outcome: z.enum(OUTCOMES).optional().describe('Overall outcome; derived from capabilityResults when omitted.'),
    experience: z
      .string()
      .max(EXPERIENCE_MAX_LENGTH, `must be at most ${EXPERIENCE_MAX_LENGTH} characters`)
      .superRefine(storable({ multiline: true }))
      .optional(),
    testedAt: calendarDate.optional().describe('Date of the test (YYYY-MM-DD), not in the future.'),
    agentVersion: text(100).optional(),
    region: text(100).optional(),
    task: text(500).optional(),
    stage: z.enum(STAGES).optional().describe('Furthest stage reached.'),
    failureReason: z.enum(FAILURE_REASONS).optional(),
    humanIntervention: z.boolean().optional(),
  })
  .refine(
    (body) => body.outcome !== undefined || Object.values(body.capabilityResults ?? {}).some((v) => v !== undefined),
    { path: ['outcome'], message: 'give at least one capabilityResults entry or an overall outcome' },
  )
  .meta({ id: 'ReportSubmission' });

export type ReportSubmission = z.output<typeof reportSubmission>;
