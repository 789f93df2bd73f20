// Response schemas of the public directory: the OpenAPI document is generated from these,
// and tests check real responses against them.
import { z } from 'zod';
import {
  CAPABILITY_STATUSES,
  CONFIDENCE_LEVELS,
  FAILURE_REASONS,
  FUNNEL_TASKS,
  OBSERVATION_KINDS,
  OUTCOMES,
  SCORE_BANDS,
  STAGES,
  TASKS,
} from '../aggregation/constants.js';
import { GREEN_FROM, REACH_TONES } from '../aggregation/reach.js';

const isoDateTime = z.iso.datetime({ offset: true });
const isoDate = z.iso.date();
const url = z.url();
/** A merchant's site: an http(s) address as moderators entered it (not re-encoded, so not always a strict URI). */
export const Website = z.string().describe("The merchant's http(s) address.");

export const Task = z.enum(TASKS).meta({ id: 'Task', description: 'Task key, in the spec\'s order.' });
export const Outcome = z.enum(OUTCOMES).meta({ id: 'Outcome' });
export const Stage = z.enum(STAGES).meta({ id: 'Stage', description: 'Furthest stage reached.' });
export const FailureReason = z.enum(FAILURE_REASONS).meta({ id: 'FailureReason' });
export const CapabilityStatus = z.enum(CAPABILITY_STATUSES).meta({ id: 'CapabilityStatus' });
export const Confidence = z.enum(CONFIDENCE_LEVELS).meta({ id: 'Confidence' });

export const CapabilityResults = z
  .partialRecord(Task, Outcome)
  .meta({ id: 'CapabilityResults', description: 'Task key to outcome key; only attempted tasks are present.' });

export const Notice = {
  methodology: url.describe('How reports become statuses.'),
  disclaimer: z.string().describe('Community-reported experience, not guaranteed capability or confirmed merchant policy.'),
};

export function ListEnvelope<T extends z.ZodType>(item: T, id: string) {
  return z
    .object({
      data: z.array(item),
      ...Notice,
      total: z.int().min(0),
      page: z.int().min(1),
      pageSize: z.literal(24),
    })
    .meta({ id });
}

const EvidenceReference = z.object({ reportId: z.uuid(), url }).meta({ id: 'EvidenceReference' });

export const TaskCapability = z
  .object({
    status: CapabilityStatus,
    reportCount: z.int().min(0),
    recentCount: z.int().min(0),
    explicitCount: z.int().min(0),
    reachedStageCount: z.int().min(0),
    confidence: Confidence,
    conflicting: z.boolean(),
    lastTestedAt: isoDateTime.nullable(),
    lastReportedAt: isoDateTime.nullable(),
    latestEvidenceAt: isoDateTime.nullable(),
    recentObservations: z.array(
      z.object({ reportId: z.uuid(), outcome: Outcome, kind: z.enum(OBSERVATION_KINDS), observedAt: isoDateTime }),
    ),
    evidence: z.array(EvidenceReference).max(5),
  })
  .meta({ id: 'TaskCapability' });

export const Trend = z
  .object({
    windowDays: z.int().min(1),
    reportCount: z.int().min(0).describe('Reports in the window (by test date, or report date without one).'),
    status: CapabilityStatus,
    capabilities: z.object(Object.fromEntries(TASKS.map((t) => [t, CapabilityStatus])) as Record<(typeof TASKS)[number], typeof CapabilityStatus>),
    months: z.array(
      z.object({ month: z.string().regex(/^\d{4}-\d{2}$/), ...(Object.fromEntries(OUTCOMES.map((o) => [o, z.int().min(0)])) as Record<(typeof OUTCOMES)[number], z.ZodInt>) }),
    ),
  })
  .meta({ id: 'Trend', description: 'Statuses computed from the last windowDays days of approved reports only (beside the all-time ones), and the overall outcomes per month (UTC), oldest first.' });

const FunnelTask = z.enum(FUNNEL_TASKS);

export const Reach = z
  .object({
    task: FunnelTask.nullable().describe('The furthest step of the ladder (ACCESS, SEARCH, DETAILS, CART, CHECKOUT, PURCHASE; LOGIN stands beside it) the agent is known to get through; null when none.'),
    level: z.int().min(0).max(6).describe('That step\'s place on the ladder: 1 (ACCESS) to 6 (PURCHASE), 0 for none. What reaches= and sort=reach compare.'),
    stop: z
      .object({ task: FunnelTask, status: z.enum(['blocked', 'unsupported']), reason: FailureReason.nullable().describe('The failure reason most reported by the reports that saw this step fail.') })
      .nullable()
      .describe('Where the agent stops: the first blocked or unsupported step; null when it does not.'),
    partial: z.array(FunnelTask).describe('Steps at or below the reach that only partly work.'),
    untestedNext: FunnelTask.nullable().describe('The next step above the reach without a verdict (untested or unknown), when the agent does not stop.'),
    tested: z.int().min(0).max(7).describe('Tasks (of seven, LOGIN included) with at least one observation.'),
    confidence: Confidence.describe('The lowest confidence of the steps that set the reach and of the stop.'),
    login: CapabilityStatus.describe('LOGIN\'s status: beside the ladder, it never caps the reach.'),
    label: z.string().describe('The reach in words, as every surface shows it (the summary\'s label too).'),
    tone: z.enum(REACH_TONES).describe(`green: gets at least as far as ${GREEN_FROM} at medium confidence or better; red: stops before it; amber: some way, or not sure; grey: nothing known.`),
  })
  .meta({ id: 'Reach', description: 'How far the agent gets at this merchant, where it stops and why (see /how-it-works).' });

export const AgentRef = z
  .object({ id: z.uuid(), slug: z.string(), name: z.string(), vendor: z.string(), url })
  .meta({ id: 'AgentRef' });

export const AgentSummary = z
  .object({
    agent: AgentRef,
    label: z.string().describe('How far the agent gets, in words (the same as reach.label).'),
    reach: Reach,
    status: CapabilityStatus,
    statusTask: Task.nullable(),
    scoreBand: z.enum(SCORE_BANDS),
    rating: z.number().min(0).max(1),
    confidence: Confidence,
    counts: z.object({
      WORKS: z.int().min(0),
      PARTIAL: z.int().min(0),
      BLOCKED: z.int().min(0),
      DOES_NOT_WORK: z.int().min(0),
      UNSURE: z.int().min(0),
      total: z.int().min(0),
    }),
    lastTestedAt: isoDateTime.nullable(),
    lastReportedAt: isoDateTime.nullable(),
    latestEvidenceAt: isoDateTime.nullable(),
    evidence: z.array(EvidenceReference).max(5),
    capabilities: z.object(Object.fromEntries(TASKS.map((t) => [t, TaskCapability])) as Record<(typeof TASKS)[number], typeof TaskCapability>),
    trend: Trend.nullable()
      .optional()
      .describe('Merchant detail only: the statuses from the last 90 days of reports alone, and outcomes per month; null without reports.'),
  })
  .meta({ id: 'AgentSummary' });

export const Merchant = z
  .object({
    id: z.uuid(),
    slug: z.string(),
    name: z.string(),
    website: Website,
    url: url.describe('This merchant in the API.'),
    profileUrl: url.describe('The merchant\'s public page.'),
    category: z.string().describe('The category string as originally given.'),
    categoryInfo: z.object({ name: z.string(), slug: z.string(), url }).nullable(),
    serviceRegions: z.array(z.string()),
    sponsored: z.boolean(),
    placement: z.string().nullable(),
    sponsorshipDisclosure: z.string().nullable(),
    sponsorshipSource: z.enum(['subscription', 'publisher_owned']).nullable(),
    ownerCompatibility: z
      .object({
        statement: z.string(),
        taskClaims: CapabilityResults,
        declaredAt: isoDate.describe('When the owner made the statement; not a test date.'),
        attribution: z.string(),
      })
      .nullable(),
    reportCount: z.int().min(0).describe('Approved reports of active agents.'),
    lastReportedAt: isoDateTime.nullable(),
    agents: z.array(AgentSummary),
  })
  .meta({ id: 'Merchant' });

export const MerchantList = ListEnvelope(Merchant, 'MerchantList');

const CompactAgentSummary = z
  .object({
    agent: z.object({ id: z.uuid(), slug: z.string(), name: z.string(), url }),
    label: z.string(),
    reach: Reach,
    status: CapabilityStatus,
    statusTask: Task.nullable(),
    scoreBand: z.enum(SCORE_BANDS),
    confidence: Confidence,
    reportCount: z.int().min(0),
    lastReportedAt: isoDateTime.nullable(),
    capabilities: z.object(
      Object.fromEntries(TASKS.map((t) => [t, z.object({ status: CapabilityStatus, confidence: Confidence })])) as Record<
        (typeof TASKS)[number],
        z.ZodObject<{ status: typeof CapabilityStatus; confidence: typeof Confidence }>
      >,
    ),
  })
  .meta({ id: 'CompactAgentSummary', description: 'Status and confidence per task; the merchant URL has the whole summary.' });

export const CompactMerchant = Merchant.pick({
  id: true,
  slug: true,
  name: true,
  website: true,
  url: true,
  profileUrl: true,
  category: true,
  categoryInfo: true,
  sponsored: true,
  placement: true,
  sponsorshipDisclosure: true,
  sponsorshipSource: true,
  reportCount: true,
  lastReportedAt: true,
})
  .extend({ agents: z.array(CompactAgentSummary) })
  .meta({ id: 'CompactMerchant', description: 'A merchant in the compact view (view=compact).' });

export const CompactMerchantList = ListEnvelope(CompactMerchant, 'CompactMerchantList');
export const MerchantDetail = z.object({ data: Merchant, ...Notice }).meta({ id: 'MerchantDetail' });

export const Category = z
  .object({ name: z.string(), slug: z.string(), url, merchantsUrl: url, merchantCount: z.int().min(0) })
  .meta({ id: 'Category' });
export const CategoryList = ListEnvelope(Category, 'CategoryList');

export const Agent = z
  .object({ id: z.uuid(), slug: z.string(), name: z.string(), vendor: z.string(), description: z.string().nullable(), url, merchantsUrl: url })
  .meta({ id: 'Agent' });
export const AgentList = ListEnvelope(Agent, 'AgentList');

export const PublicReport = z
  .object({
    id: z.uuid(),
    url,
    merchant: z.object({ id: z.uuid(), slug: z.string(), name: z.string(), url }),
    agent: z.object({ id: z.uuid(), slug: z.string(), name: z.string() }),
    outcome: Outcome,
    capabilityResults: CapabilityResults,
    stage: Stage.nullable(),
    failureReason: FailureReason.nullable(),
    humanIntervention: z.boolean().nullable(),
    testedAt: isoDate.nullable(),
    agentVersion: z.string().nullable(),
    region: z.string().nullable(),
    task: z.string().nullable(),
    experience: z.string().nullable(),
    reportedAt: isoDateTime,
  })
  .meta({ id: 'PublicReport' });
export const ReportList = ListEnvelope(PublicReport, 'ReportList');
export const ReportDetail = z.object({ data: PublicReport, ...Notice }).meta({ id: 'ReportDetail' });

export const Problem = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.int(),
    detail: z.string().optional(),
    errors: z
      .array(z.object({ parameter: z.string().optional(), pointer: z.string().optional(), detail: z.string() }))
      .optional(),
  })
  .loose()
  .meta({ id: 'Problem' });
