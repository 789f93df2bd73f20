// The methodology, as plain JSON for /how-it-works: every number from constants.ts, and every
// verdict, colour and ladder on the page computed by the engine from example reports, so what
// visitors read is what the code does.
import {
  CAPABILITY_STATUS_LABELS,
  CONFIDENCE_LABELS,
  CONFLICT_SIDE_SHARE,
  FAILURE_REASONS,
  FUNNEL_TASKS,
  HALF_LIFE_DAYS,
  HIGH_CONFIDENCE_MIN_AGREEMENT,
  HIGH_CONFIDENCE_MIN_MASS,
  IMPLIED_WEIGHT,
  MAX_EVIDENCE_REFERENCES,
  MAX_RECENT_OBSERVATIONS,
  MEDIUM_CONFIDENCE_MIN_AGREEMENT,
  MEDIUM_CONFIDENCE_MIN_MASS,
  MIN_MASS,
  MS_PER_DAY,
  OUTCOME_LABELS,
  OUTCOMES,
  PARTIAL_POSITIVE_SHARE,
  RECENT_DAYS,
  STAGE_LABELS,
  STAGES,
  SUPPORTED_SHARE,
  BLOCKED_SHARE,
  UNSUPPORTED_SHARE,
  TASK_COMPLETED_FROM_STAGE,
  TASK_LABELS,
  TASKS,
  WILSON_Z,
} from './constants.js';
import type { CapabilityStatus, Confidence, FailureReasonKey, FunnelTaskKey, OutcomeKey, StageKey, TaskKey } from './constants.js';
import { computeAgentSummary } from './engine.js';
import type { EvidenceReport } from './observations.js';
import { reachLevelOf, REACH_STEP_WORDS, STOP_REASON_WORDS } from './reach.js';
import {
  GENERAL_MIN_REPORTS,
  GREEN_FROM,
  RED_UP_TO,
  STEP_STATE_SYMBOLS,
  STEP_STATE_WORDS,
  STEP_STATES,
  summaryVerdict,
  VERDICT_COLOUR_MEANINGS,
  VERDICT_COLOURS,
  VERDICT_SYMBOLS,
  type StepState,
  type Verdict,
  type VerdictColour,
} from './verdict.js';

interface MethodologyConstant {
  name: string;
  value: number;
  explanation: string;
}

/** One worked case: reports in (described in words), the verdict the engine gives out. */
interface VerdictExample {
  given: string;
  verdict: Verdict;
}

interface VerdictMethodology {
  ladder: Array<{ key: FunnelTaskKey; label: string; words: string; level: number }>;
  loginRule: string;
  stepRules: Array<{ state: StepState; symbol: string; words: string; rule: string }>;
  stopRule: string;
  colours: Array<{ colour: VerdictColour; symbol: string; meaning: string }>;
  colourRule: string;
  confidenceRule: string;
  tenseRule: string;
  evidenceRule: string;
  greenFrom: string;
  redUpTo: string;
  /** One example drawn as a ladder. */
  picture: VerdictExample & { description: string };
  examples: VerdictExample[];
}

export interface Methodology {
  constants: MethodologyConstant[];
  taskCompletedFromStage: Array<{ task: TaskKey; taskLabel: string; completedFromStage: StageKey | null; stageLabel: string | null }>;
  observationRules: string[];
  statusRules: Array<{ status: CapabilityStatus; label: string; when: string }>;
  conflictRule: string;
  confidenceRules: Array<{ confidence: Confidence; label: string; when: string }>;
  /** The API's summary fields (spec 2.4), for readers of the API. */
  apiSummaryRules: { status: string; scoreBand: string; confidence: string; rating: string; dates: string };
  tasks: Array<{ key: TaskKey; label: string }>;
  outcomes: Array<{ key: OutcomeKey; label: string }>;
  stages: Array<{ key: StageKey; label: string }>;
  verdict: VerdictMethodology;
}

const pct = (share: number) => `${Math.round(share * 100)} %`;

/** Everything the methodology page prints, built from the constants and the engine. */
export function methodology(now: Date = new Date()): Methodology {
  const constants: MethodologyConstant[] = [
    { name: 'HALF_LIFE_DAYS', value: HALF_LIFE_DAYS, explanation: 'An observation loses half its weight every this many days (age from the test date, else the report date).' },
    { name: 'IMPLIED_WEIGHT', value: IMPLIED_WEIGHT, explanation: 'A task shown completed only by the furthest stage reached weighs this much of an explicit task result.' },
    { name: 'MIN_MASS', value: MIN_MASS, explanation: 'Below this total weight a task is unknown; blocked or unsupported also need this much negative weight of their own.' },
    { name: 'SUPPORTED_SHARE', value: SUPPORTED_SHARE, explanation: 'Share of "Works" weight from which a task is supported.' },
    { name: 'BLOCKED_SHARE', value: BLOCKED_SHARE, explanation: 'Share of "Blocked" weight from which a task is blocked (if it is at least the "Doesn\'t work" weight).' },
    { name: 'UNSUPPORTED_SHARE', value: UNSUPPORTED_SHARE, explanation: 'Share of "Doesn\'t work" weight from which a task is unsupported.' },
    { name: 'CONFLICT_SIDE_SHARE', value: CONFLICT_SIDE_SHARE, explanation: 'Share of the weight each side needs for a task to be flagged as conflicting.' },
    { name: 'PARTIAL_POSITIVE_SHARE', value: PARTIAL_POSITIVE_SHARE, explanation: 'Fraction of a "Partially works" weight counted on the positive side when judging conflict.' },
    { name: 'RECENT_DAYS', value: RECENT_DAYS, explanation: 'Observations and reports at most this many days old are recent.' },
    { name: 'HIGH_CONFIDENCE_MIN_MASS', value: HIGH_CONFIDENCE_MIN_MASS, explanation: 'Effective (decayed) number of reports needed for high confidence.' },
    { name: 'HIGH_CONFIDENCE_MIN_AGREEMENT', value: HIGH_CONFIDENCE_MIN_AGREEMENT, explanation: 'Share of the most common outcome needed for high confidence.' },
    { name: 'MEDIUM_CONFIDENCE_MIN_MASS', value: MEDIUM_CONFIDENCE_MIN_MASS, explanation: 'Effective (decayed) number of reports needed for medium confidence.' },
    { name: 'MEDIUM_CONFIDENCE_MIN_AGREEMENT', value: MEDIUM_CONFIDENCE_MIN_AGREEMENT, explanation: 'Share of the most common outcome needed for medium confidence.' },
    { name: 'GENERAL_MIN_REPORTS', value: GENERAL_MIN_REPORTS, explanation: 'Reports a verdict needs before it says "usually" (medium confidence or better) or speaks in the present tense (high confidence).' },
    { name: 'WILSON_Z', value: WILSON_Z, explanation: 'z of the 95 % Wilson score lower bound behind the rating.' },
    { name: 'MAX_EVIDENCE_REFERENCES', value: MAX_EVIDENCE_REFERENCES, explanation: 'Newest reports linked as evidence per task and per agent.' },
    { name: 'MAX_RECENT_OBSERVATIONS', value: MAX_RECENT_OBSERVATIONS, explanation: 'Newest observations listed per task.' },
  ];

  return {
    constants,
    taskCompletedFromStage: TASKS.map((task) => {
      const stage = TASK_COMPLETED_FROM_STAGE[task];
      return { task, taskLabel: TASK_LABELS[task], completedFromStage: stage, stageLabel: stage === null ? null : STAGE_LABELS[stage] };
    }),
    observationRules: [
      'Only approved reports for public merchants and active agents count.',
      'Each report gives at most one observation per task.',
      'An explicit task result is the observation.',
      `Without one, a furthest stage at or past the stage in the table gives a "Works" observation weighing ${IMPLIED_WEIGHT} of an explicit one. A reached stage never gives a negative observation.`,
      'An overall outcome never becomes a task observation, positive or negative.',
      'One account counts once per task: its newest observation is kept.',
      `Each observation weighs 0.5 ^ (age in days / ${HALF_LIFE_DAYS}); "Unsure" observations are counted but weigh nothing toward a status.`,
    ],
    statusRules: [
      { status: 'untested', label: CAPABILITY_STATUS_LABELS.untested, when: 'No observation at all.' },
      { status: 'unknown', label: CAPABILITY_STATUS_LABELS.unknown, when: `Only "Unsure" observations, or a total weight below ${MIN_MASS}.` },
      { status: 'supported', label: CAPABILITY_STATUS_LABELS.supported, when: `"Works" is at least ${pct(SUPPORTED_SHARE)} of the weight.` },
      { status: 'blocked', label: CAPABILITY_STATUS_LABELS.blocked, when: `"Blocked" is at least ${pct(BLOCKED_SHARE)} of the weight, at least the "Doesn't work" weight, and at least ${MIN_MASS}.` },
      { status: 'unsupported', label: CAPABILITY_STATUS_LABELS.unsupported, when: `"Doesn't work" is at least ${pct(UNSUPPORTED_SHARE)} of the weight and at least ${MIN_MASS}.` },
      { status: 'partial', label: CAPABILITY_STATUS_LABELS.partial, when: 'Otherwise: "Partially works" dominates, or the outcomes are mixed.' },
    ],
    conflictRule:
      `Conflicting (shown beside the status, never replacing it): the positive side ("Works" plus ${PARTIAL_POSITIVE_SHARE} × "Partially works") ` +
      `and the negative side ("Blocked" plus "Doesn't work") each hold at least ${pct(CONFLICT_SIDE_SHARE)} of the weight, ` +
      `and each side has an observation from the last ${RECENT_DAYS} days.`,
    confidenceRules: [
      { confidence: 'high', label: CONFIDENCE_LABELS.high, when: `Effective reports ≥ ${HIGH_CONFIDENCE_MIN_MASS}, the most common outcome holds ≥ ${pct(HIGH_CONFIDENCE_MIN_AGREEMENT)} of the weight, and the newest weighted observation is at most ${RECENT_DAYS} days old.` },
      { confidence: 'medium', label: CONFIDENCE_LABELS.medium, when: `Effective reports ≥ ${MEDIUM_CONFIDENCE_MIN_MASS} and the most common outcome holds ≥ ${pct(MEDIUM_CONFIDENCE_MIN_AGREEMENT)} of the weight.` },
      { confidence: 'low', label: CONFIDENCE_LABELS.low, when: 'Otherwise; always for unknown and untested tasks.' },
    ],
    apiSummaryRules: {
      status:
        'The weakest result along access → browsing → details → cart → checkout → purchase: the first blocked or unsupported task, ' +
        'else the first partial task, else supported. Login decides only when no other task has a result. ' +
        'Unknown when tasks have only inconclusive observations; untested when none has any.',
      scoreBand:
        'The furthest task along access → browsing → details → cart → checkout → purchase that is supported, with no earlier task ' +
        'partial, blocked or unsupported. Login is shown beside it.',
      confidence: 'The lowest confidence among the supported tasks that set the score band and the task that sets the status.',
      rating: `The mean, over tasks with weighted evidence, of the ${pct(0.95)} Wilson lower bound of the "Works" share; 0 when untested.`,
      dates:
        'lastTestedAt: the newest test date; lastReportedAt: the newest report date; latestEvidenceAt: the newest of the two over ' +
        'reports that gave a task observation. All are null while the status is untested.',
    },
    tasks: TASKS.map((key) => ({ key, label: TASK_LABELS[key] })),
    outcomes: OUTCOMES.map((key) => ({ key, label: OUTCOME_LABELS[key] })),
    stages: STAGES.map((key) => ({ key, label: STAGE_LABELS[key] })),
    verdict: verdictMethodology(now),
  };
}

// Worked examples: each a set of reports, described in words, and what the engine makes of it.

interface ExampleReport {
  results?: Partial<Record<TaskKey, OutcomeKey>>;
  outcome: OutcomeKey;
  stage?: StageKey;
  reason?: FailureReasonKey;
  /** Days before the page's date the test ran. */
  daysAgo: number;
}

interface ExampleCase {
  given: string;
  reports: ExampleReport[];
}

const many = (count: number, report: ExampleReport, spacing = 7): ExampleReport[] =>
  Array.from({ length: count }, (_, i) => ({ ...report, daysAgo: report.daysAgo + i * spacing }));

const ALL_THE_WAY: Partial<Record<TaskKey, OutcomeKey>> = { ACCESS: 'WORKS', SEARCH: 'WORKS', DETAILS: 'WORKS', CART: 'WORKS', CHECKOUT: 'WORKS' };

const EXAMPLES: readonly ExampleCase[] = [
  {
    given: '6 reports from the last two months, each a completed test purchase.',
    reports: many(6, { results: { ...ALL_THE_WAY, PURCHASE: 'WORKS' }, outcome: 'WORKS', stage: 'PURCHASE', daysAgo: 3 }),
  },
  {
    given: '4 recent reports that stopped on purpose at the payment step, all through checkout.',
    reports: many(4, { results: ALL_THE_WAY, outcome: 'WORKS', stage: 'PAYMENT_APPROVAL', daysAgo: 5 }),
  },
  {
    given: '1 report: everything up to checkout worked, then the payment step failed.',
    reports: [{ results: { ...ALL_THE_WAY, PURCHASE: 'DOES_NOT_WORK' }, outcome: 'PARTIAL', stage: 'PAYMENT_APPROVAL', reason: 'PAYMENT', daysAgo: 20 }],
  },
  {
    given: '2 reports: the cart worked; at checkout a CAPTCHA stopped the agent.',
    reports: many(2, { results: { ACCESS: 'WORKS', SEARCH: 'WORKS', DETAILS: 'WORKS', CART: 'WORKS', CHECKOUT: 'BLOCKED' }, outcome: 'BLOCKED', stage: 'CHECKOUT', reason: 'CAPTCHA', daysAgo: 12 }),
  },
  {
    given: '1 report that only names its furthest stage, the product page, and says it worked.',
    reports: [{ outcome: 'WORKS', stage: 'DETAILS', daysAgo: 40 }],
  },
  {
    given: '6 reports from the last month: the shop answers with an "agents not allowed" page.',
    reports: many(6, { results: { ACCESS: 'BLOCKED' }, outcome: 'BLOCKED', stage: 'ACCESS', reason: 'EXPLICIT_BLOCK', daysAgo: 2 }, 5),
  },
  {
    given: '1 report with no task results: overall "Blocked" at website access, naming an explicit block.',
    reports: [{ outcome: 'BLOCKED', stage: 'ACCESS', reason: 'EXPLICIT_BLOCK', daysAgo: 200 }],
  },
  {
    given: '1 report with only an overall result, "Doesn\'t work", and no stage.',
    reports: [{ outcome: 'DOES_NOT_WORK', daysAgo: 30 }],
  },
  { given: 'No approved report.', reports: [] },
];

/** The example the ladder picture draws: a stop after a few steps, with its reason. */
const PICTURED = 3;

function exampleVerdict(c: ExampleCase, now: Date): Verdict {
  const reports: EvidenceReport[] = c.reports.map((r, i) => {
    const tested = new Date(now.getTime() - r.daysAgo * MS_PER_DAY);
    return {
      id: `00000000-0000-7000-8000-${String(i).padStart(12, '0')}`,
      accountId: `example-${i}`,
      outcome: r.outcome,
      capabilityResults: r.results ?? {},
      stage: r.stage ?? null,
      failureReason: r.reason ?? null,
      testedAt: new Date(tested.toISOString().slice(0, 10)),
      createdAt: tested,
    };
  });
  return summaryVerdict(computeAgentSummary(reports, { now, reportUrl: (id) => `/api/v1/reports/${id}` }));
}

function verdictMethodology(now: Date): VerdictMethodology {
  const examples = EXAMPLES.map((c) => ({ given: c.given, verdict: exampleVerdict(c, now) }));
  const pictured = examples[PICTURED]!;
  const green = REACH_STEP_WORDS[GREEN_FROM];
  const stepRules: Record<StepState, string> = {
    through: 'The task works (supported): the agent gets through this step.',
    partial: 'The task only partly works: the agent gets through sometimes.',
    passed: 'No result of its own, but a later step worked, so the agent passed it on the way.',
    reached:
      'No task result, but a report\'s furthest stage got here. The task\'s status stays "untested" (a reached stage shows only the steps before it done), yet the step is shown as reached, never as "not tested".',
    stop:
      'The agent stops here: the task is blocked or doesn\'t work, or, without a task result, the report that got furthest ended here "Blocked" or "Doesn\'t work".',
    open: 'Nobody has reported on this step yet.',
    beyond: 'Above a stop: not reached.',
  };
  return {
    ladder: FUNNEL_TASKS.map((key) => ({ key, label: TASK_LABELS[key], words: REACH_STEP_WORDS[key], level: reachLevelOf(key) })),
    loginRule:
      'Login stands beside the ladder, not on it: many shops let a guest check out. Its status is shown, and a login requirement is named when it is the reason an agent stops, but a login that fails never lowers how far the agent gets.',
    stepRules: STEP_STATES.map((state) => ({ state, symbol: STEP_STATE_SYMBOLS[state], words: STEP_STATE_WORDS[state], rule: stepRules[state] })),
    stopRule:
      'Where it stops, the sentence says why: the failure reason given most often by the reports that saw that step fail ' +
      `(${FAILURE_REASONS.filter((r) => r !== 'NONE').map((r) => `"${STOP_REASON_WORDS[r]}"`).join(', ')}), ties going to the reason listed first; ` +
      'without a reason it says only "blocked" or "doesn\'t work".',
    colours: VERDICT_COLOURS.map((colour) => ({ colour, symbol: VERDICT_SYMBOLS[colour], meaning: VERDICT_COLOUR_MEANINGS[colour] })),
    colourRule:
      `The colour says how far the agent gets, and nothing else: green once it gets through ${green}, red when it stops at ${REACH_STEP_WORDS.ACCESS} or ${REACH_STEP_WORDS[RED_UP_TO]}, ` +
      'amber anywhere between, grey when no report places it on the ladder. Each colour comes with its symbol and its sentence.',
    confidenceRule:
      'How sure a verdict is never changes its colour. It is shown apart: a solid badge at medium or high confidence, an outlined one at low ' +
      'confidence, always with the confidence in words and the evidence line. Its confidence is the lowest of the steps it rests on; a verdict ' +
      'resting only on reports without task results is low.',
    tenseRule:
      `The sentence claims no more than its evidence: the present tense ("Gets through checkout") needs at least ${GENERAL_MIN_REPORTS} reports at high confidence, ` +
      `"usually" at least ${GENERAL_MIN_REPORTS} reports at medium confidence or better; otherwise it says what the reports saw, in the past tense ("Got through checkout").`,
    evidenceRule:
      `Beside every sentence, the evidence behind it: how many approved reports, and when the newest was tested (its test date, else the day it was reported), for example "${examples[0]!.verdict.evidenceText}". ` +
      `Reports tested in the last ${RECENT_DAYS} days count as recent.`,
    greenFrom: green,
    redUpTo: REACH_STEP_WORDS[RED_UP_TO],
    picture: {
      ...pictured,
      description:
        `From the bottom: ${pictured.verdict.steps.map((s) => `${REACH_STEP_WORDS[s.task]}: ${STEP_STATE_WORDS[s.state]}`).join('; ')}. ` +
        `The verdict: ${pictured.verdict.sentence}.`,
    },
    examples,
  };
}
