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
import {
  COMPACT_VERDICT_FIELDS,
  GENERAL_MIN_REPORTS,
  GREEN_FROM,
  RED_UP_TO,
  STEP_STATES,
  VERDICT_COLOURS,
} from '../aggregation/verdict.js';

const isoDateTime = z.iso.datetime({ offset: true });
const isoDate = z.iso.date();
const url = z.url();
/** A merchant's site: an http(s) address as moderators entered it (not re-encoded, so not always a strict URI). */
export const Website = z.string().describe("The merchant's http(s) address.");

const Task = z.enum(TASKS).meta({ id: 'Task', description: 'Task key, in the spec\'s order.' });
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

const Trend = z
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
    label: z.string().describe('The verdict\'s sentence (verdict.sentence), as every surface shows it.'),
    tone: z.enum(VERDICT_COLOURS).describe('The verdict\'s colour (verdict.colour).'),
  })
  .meta({ id: 'Reach', description: 'How far the agent gets by its task statuses alone: what reaches=, minConfidence= and sort=reach compare. People read the verdict.' });

const VerdictStep = z.enum(FUNNEL_TASKS);

export const Verdict = z
  .object({
    colour: z
      .enum(VERDICT_COLOURS)
      .describe(
        `By how far the agent gets, never by confidence: green once it gets through ${GREEN_FROM} (or completes a purchase), red when it stops at ACCESS or ${RED_UP_TO}, amber anywhere between, grey when no report places it on the ladder.`,
      ),
    symbol: z.string().describe('The symbol shown beside the colour (✓ green, ◐ amber, ✕ red, – grey).'),
    sentence: z.string().describe('The one sentence every surface shows: how far the agent gets, then where it stops and why. The summary\'s label.'),
    short: z.string().describe('A few words for small places such as badges: "checkout", "stops at access".'),
    evidenceText: z.string().describe('The evidence in words: "3 reports · last tested Apr 2026".'),
    furthest: z
      .object({ task: VerdictStep, how: z.enum(['through', 'partly', 'reached']) })
      .nullable()
      .describe('The furthest step: got through it, partly through it, or only reached it (a report\'s furthest stage, without a task result).'),
    through: VerdictStep.nullable().describe('The furthest step it gets fully through (supported); null when none.'),
    stop: z
      .object({
        task: VerdictStep,
        status: z.enum(['blocked', 'unsupported']),
        reason: FailureReason.nullable(),
        basis: z.enum(['tasks', 'reported']).describe('tasks: the step\'s status; reported: only a report\'s overall outcome at its furthest stage.'),
      })
      .nullable()
      .describe('Where it stops and why; null when it does not.'),
    partialBelow: VerdictStep.nullable().describe('The first step below the furthest that only partly works.'),
    steps: z
      .array(z.object({ task: VerdictStep, state: z.enum(STEP_STATES) }))
      .describe('Each ladder step: through, partial, passed (no result, a later step worked), reached, stop, open (not tested yet), beyond (above a stop).'),
    unplaced: z
      .enum(['untested', 'unsure', 'old', 'no-step', 'login-only'])
      .nullable()
      .describe('Why no step is placed, when none is: no report, unsure reports, reports too old, reports naming no step, login only.'),
    confidence: Confidence.describe('How sure: the lowest confidence of the steps the verdict rests on; low when it rests only on overall outcomes.'),
    conflicting: z.boolean().describe('Recent reports disagree on a step the verdict rests on.'),
    login: CapabilityStatus.describe('LOGIN\'s status, beside the ladder.'),
    newestOutcome: Outcome.nullable().describe('The newest report\'s overall outcome.'),
    selfReported: z
      .object({
        owner: z.int().min(0).describe('Approved reports by the shop\'s verified owner.'),
        vendor: z.int().min(0).describe('Approved reports by the agent\'s verified vendor.'),
        counted: z.boolean().describe('false: the verdict is the independent reports\' and only names these (the default); true: it counts them (independent=all).'),
      })
      .optional()
      .describe('Self-reported reports, when there are: by a verified owner of the shop or vendor of the agent. The sentence says "plus N reports by the vendor" (or "including", when counted).'),
    regression: z
      .object({
        task: Task,
        workedUpTo: z.string().describe('The newest agent version seen working at the task.'),
        failsSince: z.string().describe('The version since which every version with a result fails it.'),
      })
      .nullable()
      .optional()
      .describe('A newer agent version fails a task an older one passed, within the regression window: the sentence says "worked up to 0.7.1, fails at checkout since 0.7.3".'),
    evidence: z.object({
      reports: z.int().min(0).describe('Approved reports of this agent here.'),
      recent: z.int().min(0).describe('Of them, tested (else reported) in the last 90 days.'),
      lastTestedOn: isoDate.nullable().describe('The newest test date, else that report\'s date; null without reports.'),
    }),
  })
  .meta({
    id: 'Verdict',
    description: `The answer people read, made once by the aggregation engine (see /how-it-works#verdict). The sentence says "usually" only from ${GENERAL_MIN_REPORTS} reports at medium confidence, and speaks in the present tense only from ${GENERAL_MIN_REPORTS} at high; otherwise it tells what the reports saw.`,
  });

/** A verified claim as readers see it: how, and when. The claimant, token and checks stay private. */
const Claimed = z
  .object({
    verified: z.literal(true),
    method: z.enum(['dns', 'file', 'meta']).describe('How control of the website was proved: a DNS TXT record, a file under /.well-known/, or a meta tag.'),
    verifiedAt: isoDate.describe('The day it was first verified.'),
  })
  .meta({ id: 'Claimed' });

const AgentRef = z
  .object({ id: z.uuid(), slug: z.string(), name: z.string(), vendor: z.string(), url })
  .meta({ id: 'AgentRef' });

const EvidenceSources = z
  .object({
    independent: z.int().min(0).describe('Approved reports by people with no verified claim on the shop or the agent: what statuses, reach, scores and the verdict count by default.'),
    selfReported: z.int().min(0).describe('Approved reports by a verified owner of the shop or vendor of the agent; independent + selfReported = all approved reports.'),
    byOwner: z.int().min(0),
    byVendor: z.int().min(0),
  })
  .meta({ id: 'EvidenceSources', description: 'Independent and self-reported reports side by side.' });

const VersionSeen = z.object({
  version: z.string().describe('agentVersion as reported, trimmed.'),
  reports: z.int().min(1),
  lastSeenOn: isoDate.describe('The newest test date naming it (else its report date).'),
});

const Regression = z
  .object({
    task: Task,
    workedUpTo: z.string().describe('The newest version seen working at the task within the window.'),
    failsSince: z.string().describe('The oldest version since which every version with a result failed it.'),
    newest: z.string().describe('The newest version that failed it.'),
    since: isoDate.describe('The date of the oldest failing run of those versions.'),
    evidence: z.object({
      working: z.array(z.uuid()).max(5).describe('Reports that saw workedUpTo work (public report ids).'),
      failing: z.array(z.uuid()).max(5).describe('Reports that saw the newer versions fail.'),
    }),
  })
  .meta({ id: 'Regression', description: 'A newer agent version fails a task that an older version passed, within the regression window (see /how-it-works#versions).' });

const AgentVersions = z
  .object({
    seen: z.array(VersionSeen).max(20).describe('Versions named by the reports, most recently seen first.'),
    tasks: z
      .partialRecord(Task, z.object({ lastWorking: z.object({ version: z.string(), on: isoDate }).nullable() }))
      .describe('Per task: the newest version seen working, and when.'),
    regressions: z.array(Regression),
  })
  .meta({ id: 'AgentVersions', description: 'Agent versions at this merchant (semantic versions compared as such, other strings as text; see /how-it-works#versions).' });

const AgentSummary = z
  .object({
    agent: AgentRef,
    independent: z.enum(['only', 'all']).describe('Which reports this summary counts: only the independent ones (the default), or all, self-reported ones included (independent=all).'),
    sources: EvidenceSources,
    versions: AgentVersions,
    label: z.string().describe('The verdict\'s sentence.'),
    verdict: Verdict,
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
        byVerifiedOwner: z.boolean().describe('Written by the owner under a verified claim (shown only while the claim holds); false when a moderator entered it.'),
      })
      .nullable(),
    claim: Claimed.nullable().describe('The owner\'s verified claim of the website; null when no claim is verified.'),
    reportCount: z.int().min(0).describe('Approved independent reports of active agents (self-reported ones are counted in each agent\'s sources).'),
    lastReportedAt: isoDateTime.nullable(),
    agents: z.array(AgentSummary),
  })
  .meta({ id: 'Merchant' });

export const MerchantList = ListEnvelope(Merchant, 'MerchantList');

const CompactVerdict = Verdict.pick(Object.fromEntries(COMPACT_VERDICT_FIELDS.map((f) => [f, true])) as { [K in (typeof COMPACT_VERDICT_FIELDS)[number]]: true }).meta({
  id: 'CompactVerdict',
  description: 'The verdict without its steps (the merchant\'s own URL has them).',
});

const CompactAgentSummary = z
  .object({
    agent: z.object({ id: z.uuid(), slug: z.string(), name: z.string(), url }),
    independent: z.enum(['only', 'all']),
    sources: EvidenceSources,
    label: z.string().describe('The verdict\'s sentence.'),
    verdict: CompactVerdict,
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

const Category = z
  .object({ name: z.string(), slug: z.string(), url, merchantsUrl: url, merchantCount: z.int().min(0) })
  .meta({ id: 'Category' });
export const CategoryList = ListEnvelope(Category, 'CategoryList');

export const Agent = z
  .object({ id: z.uuid(), slug: z.string(), name: z.string(), vendor: z.string(), description: z.string().nullable(), url, merchantsUrl: url })
  .meta({ id: 'Agent' });

/** What the agent registry adds about the vendor (issue 34): its website, claim and statement. */
export const VendorFields = {
  vendorWebsite: z.string().nullable().describe('The vendor\'s website, set by moderators: what a vendor\'s claim proves.'),
  claim: Claimed.nullable().describe('The vendor\'s verified claim; null when none is verified.'),
  vendorStatement: z
    .object({ statement: z.string(), declaredAt: isoDate.describe('When the vendor made it; not a test date.'), attribution: z.string() })
    .nullable()
    .describe('The verified vendor\'s statement about the agent; never evidence.'),
};
export const AgentList = ListEnvelope(Agent, 'AgentList');

const PublicReport = z
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
    selfReported: z.boolean().describe('Written by a verified owner of the merchant or vendor of the agent. Shown, never counted in statuses, reach, scores or verdicts by default (see independent=).'),
    selfReportedBy: z.enum(['owner', 'vendor']).nullable().describe('Which: the shop\'s owner or the agent\'s vendor (never who in person); null when independent.'),
    replies: z
      .array(z.object({ from: z.enum(['owner', 'vendor']), body: z.string(), repliedAt: isoDateTime, attribution: z.string() }))
      .describe('Approved replies of the merchant\'s verified owner or the agent\'s verified vendor, oldest first: their view, never evidence, and they never change the report.'),
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
