import { z } from 'zod';
import { intParam, slugParam, uuidParam } from '../directory/query.js';
import { CapabilityResults, FailureReason, Notice, Outcome, Stage, Website } from '../directory/schemas.js';
import { QUEUE_LIMIT, RETEST_AFTER_DAYS } from '../reports/contribution-schema.js';

const limit = intParam(QUEUE_LIMIT.min, QUEUE_LIMIT.max).optional().default(QUEUE_LIMIT.default);
const after = z.string().min(1).max(500).optional().describe('nextCursor of the previous page.');

export const queueQuery = z.strictObject({
  limit,
  after,
  category: slugParam.optional().describe('Canonical category slug.'),
  retestAfterDays: intParam(RETEST_AFTER_DAYS.min, RETEST_AFTER_DAYS.max)
    .optional()
    .describe(
      'Also merchants whose report by this account for this agent was last changed more than this many days ago; those items carry existingReport. With retest=only, only those.',
    ),
  retest: z
    .enum(['include', 'only'])
    .optional()
    .describe(
      'include (the default): with retestAfterDays, never-reported merchants and those due for a retest. only: just the merchants due for a retest (needs retestAfterDays), each with existingReport.',
    ),
});
export type QueueQuery = z.output<typeof queueQuery>;

export const ownReportsQuery = z.strictObject({
  limit,
  after,
  merchant: uuidParam.optional().describe('Merchant id.'),
});
export type OwnReportsQuery = z.output<typeof ownReportsQuery>;

// The private answers, as the OpenAPI document describes them and tests check them.
const url = z.url();
const isoDateTime = z.iso.datetime({ offset: true });
const CategoryInfo = z
  .object({ name: z.string(), slug: z.string(), url })
  .nullable()
  .meta({ id: 'CategoryInfo', description: "A merchant's canonical category: the same shape wherever it appears." });
const ReportStatus = z.enum(['PENDING', 'APPROVED', 'REJECTED']).meta({ id: 'ReportStatus' });
const Version = isoDateTime.describe("The report's version: send it back as If-Match (quoted or not). The ETag header carries it quoted.");

export const QueueItem = z
  .object({
    id: z.uuid(),
    slug: z.string(),
    name: z.string(),
    website: Website,
    category: z.object({ name: z.string(), slug: z.string() }).nullable().describe('Kept for existing clients; categoryInfo is the shape merchants use.'),
    categoryInfo: CategoryInfo,
    profileUrl: url,
    apiUrl: url,
    existingReport: z.object({ id: z.uuid(), status: ReportStatus, updatedAt: Version }).optional().describe('Present when retesting.'),
  })
  .meta({ id: 'QueueItem' });

export const Queue = z
  .object({
    items: z.array(QueueItem),
    nextCursor: z.string().nullable().describe('Pass as `after` with the same filters; null ends the pass.'),
    total: z.int().min(0).describe('How many merchants these filters match now: the whole pass (a merchant you report drops out).'),
    remaining: z.int().min(0).describe('How many of them come after this page.'),
    ...Notice,
  })
  .meta({ id: 'Queue' });

export const OwnReport = z
  .object({
    id: z.uuid(),
    adId: z.uuid(),
    agentId: z.uuid(),
    privacy: z.literal(true),
    capabilityResults: CapabilityResults.nullable(),
    outcome: Outcome.nullable(),
    outcomeDerived: z
      .boolean()
      .describe('true when outcome was derived from capabilityResults (left out of the body); when you change capabilityResults, send outcome as null to have it derived again (sent back as read while the new results derive another outcome, it is refused).'),
    stage: Stage.nullable(),
    failureReason: FailureReason.nullable(),
    humanIntervention: z.boolean().nullable(),
    testedAt: z.iso.date().nullable(),
    agentVersion: z.string().nullable(),
    region: z.string().nullable(),
    task: z.string().nullable(),
    experience: z.string().nullable(),
    status: ReportStatus,
    moderationFeedback: z.string().nullable(),
    updatedAt: Version,
    createdAt: isoDateTime,
    url: url.describe('This report in the automation API.'),
    reviewUrl: url.describe("The person's private review page (needs a browser sign-in)."),
    screenshotCount: z.int().min(0),
    merchant: z.object({ id: z.uuid(), slug: z.string(), name: z.string(), url, categoryInfo: CategoryInfo }),
  })
  .meta({
    id: 'OwnReport',
    description: 'One of the account’s reports, in the shape it is written (spec 2.1 fields by name; absent ones null) plus what the server keeps. PUT it back as read and it is a 200 unchanged no-op.',
  });

export const OwnReportList = z
  .object({ items: z.array(OwnReport), nextCursor: z.string().nullable(), ...Notice })
  .meta({ id: 'OwnReportList' });

export const OwnReportDetail = OwnReport.extend(Notice).meta({ id: 'OwnReportDetail' });

export const ReplaceResult = z
  .object({ id: z.uuid(), status: ReportStatus, updatedAt: Version, unchanged: z.boolean(), url, ...Notice })
  .meta({ id: 'ReplaceResult', description: 'unchanged: true when the content was identical (nothing written, status kept); otherwise status PENDING.' });

export const SubmissionResult = z
  .object({
    id: z.uuid(),
    status: ReportStatus,
    reviewUrl: url.describe("The person's private review page."),
    updatedAt: Version.optional().describe('With a bearer key: the version (also the ETag).'),
    url: url.optional().describe('With a bearer key: the report in the automation API (also the Location of a 201).'),
    unchanged: z.boolean().optional().describe('With a bearer key, or on an identical resubmission.'),
    ...Notice,
  })
  .meta({ id: 'SubmissionResult' });

export const ReportValidation = z
  .object({
    valid: z.literal(true),
    wouldBe: z
      .enum(['created', 'updated', 'unchanged'])
      .describe('What the write would do: create a report (201), update yours (200), or find it identical to yours (200 unchanged).'),
    submitStatus: z.union([z.literal(201), z.literal(200)]).describe('The status the write would answer.'),
    notes: z.array(z.string()).describe('How the server reads what the body left to it: a derived outcome, a version it has not seen yet, a reason left out.'),
    report: OwnReport.pick({
      adId: true,
      agentId: true,
      privacy: true,
      capabilityResults: true,
      outcome: true,
      outcomeDerived: true,
      stage: true,
      failureReason: true,
      humanIntervention: true,
      testedAt: true,
      agentVersion: true,
      region: true,
      task: true,
      experience: true,
    }).describe('The report as a submission would store it and a read would show it: absent fields null, the overall outcome derived when left out.'),
    existingReport: z
      .object({ id: z.uuid(), status: ReportStatus, updatedAt: Version, reviewUrl: url })
      .optional()
      .describe('With wouldBe unchanged or updated: your report as it is now.'),
    ...Notice,
  })
  .meta({
    id: 'ReportValidation',
    description: 'A dry run of a submission or an update: valid, what the write would do, and the report as it would be stored. Nothing was written.',
  });

const LimitUsage = z
  .object({
    name: z.string(),
    limit: z.int().min(0),
    windowSeconds: z.int().min(1),
    remaining: z.int().min(0),
    resetSeconds: z.int().min(0),
  })
  .meta({ id: 'LimitUsage' });

export const WhoAmI = z
  .object({
    agent: z.object({ id: z.uuid(), slug: z.string(), name: z.string() }),
    account: z.object({ handle: z.string().nullable().describe('No public handles exist yet: always null. Never the e-mail.') }),
    key: z.object({ id: z.uuid(), prefix: z.string(), createdAt: isoDateTime, expiresAt: isoDateTime }),
    limits: z.array(LimitUsage).describe('Every limit that applies to this key, with what remains.'),
    ...Notice,
  })
  .meta({ id: 'WhoAmI' });
