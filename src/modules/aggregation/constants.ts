// Every key list, label, threshold, window and weight of the aggregation engine, in one place.
// The engine reads only these; the methodology page (/how-it-works) prints them through
// methodology(), so what visitors read is what the code does. Change a number here and both
// move together. Pure data: no Prisma client import, so the engine stays usable anywhere.
import type { EvidenceReport } from './observations.js';
// reach.ts reads these constants only inside its functions, so this import cycle is safe:
// methodology() calls reach.ts to print the labels and colours the code gives.
import {
  GREEN_FROM,
  reachLabel,
  reachLevelOf,
  reachOf,
  reachTone,
  REACH_STEP_WORDS,
  STOP_REASON_WORDS,
  stopWords,
  type Reach,
  type ReachInput,
  type ReachTone,
} from './reach.js';

// Enumerations of the interface spec (2.2), in spec order, with the spec's labels verbatim.

export const TASKS = ['ACCESS', 'SEARCH', 'DETAILS', 'LOGIN', 'CART', 'CHECKOUT', 'PURCHASE'] as const;
export type TaskKey = (typeof TASKS)[number];

export const TASK_LABELS: Readonly<Record<TaskKey, string>> = {
  ACCESS: 'Website access',
  SEARCH: 'Product / content browsing',
  DETAILS: 'Product / service details',
  LOGIN: 'AI agent login',
  CART: 'Add to cart',
  CHECKOUT: 'Agent checkout',
  PURCHASE: 'Transaction completion',
};

export const OUTCOMES = ['WORKS', 'PARTIAL', 'BLOCKED', 'DOES_NOT_WORK', 'UNSURE'] as const;
export type OutcomeKey = (typeof OUTCOMES)[number];

export const OUTCOME_LABELS: Readonly<Record<OutcomeKey, string>> = {
  WORKS: 'Works',
  PARTIAL: 'Partially works',
  BLOCKED: 'Blocked',
  DOES_NOT_WORK: "Doesn't work",
  UNSURE: 'Unsure',
};

export const STAGES = ['ACCESS', 'BROWSE', 'DETAILS', 'CONFIGURE', 'CART', 'CHECKOUT', 'SHIPPING', 'PAYMENT_APPROVAL', 'PURCHASE'] as const;
export type StageKey = (typeof STAGES)[number];

export const STAGE_LABELS: Readonly<Record<StageKey, string>> = {
  ACCESS: 'Access website',
  BROWSE: 'Browse or search',
  DETAILS: 'Open product/service details',
  CONFIGURE: 'Configure product or service',
  CART: 'Add to cart',
  CHECKOUT: 'Navigate checkout',
  SHIPPING: 'Enter shipping/billing details',
  PAYMENT_APPROVAL: 'Reach payment approval',
  PURCHASE: 'Complete purchase (a reported completed purchase)',
};

export const FAILURE_REASONS = ['NONE', 'EXPLICIT_BLOCK', 'CAPTCHA', 'INTERFACE', 'AUTHENTICATION', 'PAYMENT', 'OTHER'] as const;
export type FailureReasonKey = (typeof FAILURE_REASONS)[number];

export const FAILURE_REASON_LABELS: Readonly<Record<FailureReasonKey, string>> = {
  NONE: 'No failure reported',
  EXPLICIT_BLOCK: 'Explicit agent block',
  CAPTCHA: 'CAPTCHA / human verification',
  INTERFACE: 'Unsupported interface',
  AUTHENTICATION: 'Authentication requirement',
  PAYMENT: 'Payment issue',
  OTHER: 'Other limitation',
};

// Values the engine produces.

/** Capability status values of spec 2.2, in the order the methodology page lists them. */
export const CAPABILITY_STATUSES = ['supported', 'partial', 'blocked', 'unsupported', 'unknown', 'untested'] as const;
export type CapabilityStatus = (typeof CAPABILITY_STATUSES)[number];

export const CAPABILITY_STATUS_LABELS: Readonly<Record<CapabilityStatus, string>> = {
  supported: 'Supported',
  partial: 'Partially supported',
  blocked: 'Blocked',
  unsupported: 'Unsupported (reported failures)',
  unknown: 'Unknown (insufficient evidence)',
  untested: 'Untested (no task observations)',
};

/** How far along the shopping funnel an agent gets, lowest first. */
export const SCORE_BANDS = ['none', 'access', 'browse', 'details', 'cart', 'checkout', 'purchase'] as const;
export type ScoreBand = (typeof SCORE_BANDS)[number];

/**
 * The shopping funnel behind the score band and the per-agent status, in order. LOGIN is not in
 * it: many merchants allow guest checkout, so login is shown beside the band, not inside it.
 */
export const FUNNEL_TASKS = ['ACCESS', 'SEARCH', 'DETAILS', 'CART', 'CHECKOUT', 'PURCHASE'] as const satisfies readonly TaskKey[];
export type FunnelTaskKey = (typeof FUNNEL_TASKS)[number];

/** The band an agent earns once every funnel task up to this one is supported. */
export const BAND_OF_TASK: Readonly<Record<FunnelTaskKey, Exclude<ScoreBand, 'none'>>> = {
  ACCESS: 'access',
  SEARCH: 'browse',
  DETAILS: 'details',
  CART: 'cart',
  CHECKOUT: 'checkout',
  PURCHASE: 'purchase',
};

/** Confidence levels, lowest first (the per-agent confidence is a minimum over tasks). */
export const CONFIDENCE_LEVELS = ['low', 'medium', 'high'] as const;
export type Confidence = (typeof CONFIDENCE_LEVELS)[number];

export const CONFIDENCE_LABELS: Readonly<Record<Confidence, string>> = {
  low: 'Low confidence',
  medium: 'Medium confidence',
  high: 'High confidence',
};

// Words of a per-agent summary. A label claims no more than the confidence behind it:
// "reliably" only at high confidence, "usually" at medium, "so far" / "yet" at low. The API's
// `label`, the pages and the methodology page all take their words from here.

/** A score band in words, by the confidence of the summary that reached it. */
export const SCORE_BAND_LABELS_BY_CONFIDENCE: Readonly<Record<ScoreBand, Readonly<Record<Confidence, string>>>> = {
  none: { high: 'No task reliably works', medium: 'No task works consistently', low: 'No task confirmed yet' },
  access: { high: 'Reliably reaches the website', medium: 'Usually reaches the website', low: 'Website access worked so far' },
  browse: { high: 'Reliably browses', medium: 'Usually browses', low: 'Browsing worked so far' },
  details: { high: 'Reliably opens details', medium: 'Usually opens details', low: 'Opening details worked so far' },
  cart: { high: 'Reliably adds to cart', medium: 'Usually adds to cart', low: 'Adding to cart worked so far' },
  checkout: { high: 'Reliably gets through checkout', medium: 'Usually gets through checkout', low: 'Checkout worked so far' },
  purchase: { high: 'Reliably completes purchases', medium: 'Usually completes purchases', low: 'Purchasing worked so far' },
};

/** The label of an agent without any task observation (whatever its overall-outcome-only reports). */
export const UNTESTED_SUMMARY_LABEL = 'Not tested';

/** How far an agent gets, in words that match the confidence (e.g. "Usually adds to cart"). */
export function scoreBandLabel(band: ScoreBand, confidence: Confidence): string {
  return SCORE_BAND_LABELS_BY_CONFIDENCE[band][confidence];
}

const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1);

/**
 * The one-line label of a per-agent summary: its status, then how far it gets in words that
 * match the confidence, e.g. "Supported; checkout worked so far" at low confidence and
 * "Supported; reliably gets through checkout" at high. "Not tested" when untested.
 */
export function summaryLabel(status: CapabilityStatus, band: ScoreBand, confidence: Confidence): string {
  if (status === 'untested') return UNTESTED_SUMMARY_LABEL;
  return `${CAPABILITY_STATUS_LABELS[status]}; ${lowerFirst(scoreBandLabel(band, confidence))}`;
}

/** How an observation of a task was obtained from a report. */
export const OBSERVATION_KINDS = ['explicit', 'reached_stage'] as const;
export type ObservationKind = (typeof OBSERVATION_KINDS)[number];

// Stage evidence.

/**
 * For each task, the earliest furthest-stage that shows the task was completed. Reaching a stage
 * says nothing about the step at that stage (a furthest stage of CART does not show adding to the
 * cart worked), so each task needs a stage strictly past its own last step. Login has no stage,
 * so it is never implied. A reached stage only ever yields a WORKS observation.
 */
export const TASK_COMPLETED_FROM_STAGE: Readonly<Record<TaskKey, StageKey | null>> = {
  ACCESS: 'BROWSE',
  SEARCH: 'DETAILS',
  DETAILS: 'CONFIGURE',
  LOGIN: null,
  CART: 'CHECKOUT',
  CHECKOUT: 'PAYMENT_APPROVAL',
  PURCHASE: 'PURCHASE',
};

// Weights, thresholds and windows.

/** Days after which an observation weighs half as much: old evidence fades but never vanishes. */
export const HALF_LIFE_DAYS = 180;

/** Weight of a WORKS observation implied by a reached stage, relative to an explicit one. */
export const IMPLIED_WEIGHT = 0.5;

/**
 * Below this total weight a task is `unknown` (everything is very old). A `blocked` or
 * `unsupported` verdict also needs this much negative weight on its own, so that a new WORKS
 * report can never turn an `unknown` task negative.
 */
export const MIN_MASS = 0.25;

/** Share of WORKS weight from which a task is `supported`. */
export const SUPPORTED_SHARE = 0.75;

/** Share of BLOCKED weight from which a task is `blocked` (when BLOCKED outweighs DOES_NOT_WORK). */
export const BLOCKED_SHARE = 0.5;

/** Share of DOES_NOT_WORK weight from which a task is `unsupported`. */
export const UNSUPPORTED_SHARE = 0.5;

/** Share of the total weight each side (positive and negative) needs for a task to be `conflicting`. */
export const CONFLICT_SIDE_SHARE = 0.25;

/** Weight of a PARTIAL observation on the positive side when judging conflict. */
export const PARTIAL_POSITIVE_SHARE = 0.5;

/** Observations at most this many days old are recent (recent count, conflict, high confidence). */
export const RECENT_DAYS = 90;

/** Effective number of reports (decayed weight) a task needs for `high` confidence. */
export const HIGH_CONFIDENCE_MIN_MASS = 5;

/** Share of the dominant outcome a task needs for `high` confidence. */
export const HIGH_CONFIDENCE_MIN_AGREEMENT = 0.8;

/** Effective number of reports (decayed weight) a task needs for `medium` confidence. */
export const MEDIUM_CONFIDENCE_MIN_MASS = 2;

/** Share of the dominant outcome a task needs for `medium` confidence. */
export const MEDIUM_CONFIDENCE_MIN_AGREEMENT = 0.6;

/** z of the Wilson score interval behind the rating (95 % two-sided). */
export const WILSON_Z = 1.96;

/** Evidence references per capability and per agent (spec section 8). */
export const MAX_EVIDENCE_REFERENCES = 5;

/** Newest observations listed per capability. */
export const MAX_RECENT_OBSERVATIONS = 5;

/**
 * Floating-point tolerance of share comparisons, so that an exact boundary (3 WORKS out of 4
 * equally weighted reports is 0.75) is judged as the rule reads, not by the last bit of a sum.
 */
export const SHARE_TOLERANCE = 1e-9;

export const MS_PER_DAY = 86_400_000;

// The methodology, as plain JSON for /how-it-works.

export interface MethodologyConstant {
  name: string;
  value: number;
  explanation: string;
}

export interface Methodology {
  constants: MethodologyConstant[];
  taskCompletedFromStage: Array<{
    task: TaskKey;
    taskLabel: string;
    completedFromStage: StageKey | null;
    stageLabel: string | null;
  }>;
  observationRules: string[];
  statusRules: Array<{ status: CapabilityStatus; label: string; when: string }>;
  conflictRule: string;
  confidenceRules: Array<{ confidence: Confidence; label: string; when: string }>;
  agentSummaryRules: { status: string; scoreBand: string; confidence: string; rating: string; dates: string };
  tasks: Array<{ key: TaskKey; label: string }>;
  outcomes: Array<{ key: OutcomeKey; label: string }>;
  stages: Array<{ key: StageKey; label: string }>;
  /** Each score band in words, by confidence (the API's `scoreBand`, stricter than the reach). */
  scoreBands: Array<{ key: ScoreBand; labels: Record<Confidence, string> }>;
  /** The confidence columns of that table, highest first. */
  bandConfidences: Array<{ confidence: Confidence; label: string }>;
  /** How far an agent gets (reach.ts): the rule, the label, the colours, a picture and examples. */
  reach: ReachMethodology;
}

/** A step of the ladder picture: what its status does to the walk up the ladder. */
export type ReachStepState = 'passed' | 'partial' | 'no-verdict' | 'stop' | 'not-reached';

/** One worked case of the reach rule: task statuses in, the label and colour the code gives out. */
export interface ReachExample {
  /** The task statuses (and confidence, and stop reason) the example starts from, in words. */
  given: string;
  statuses: Record<TaskKey, CapabilityStatus>;
  confidence: Confidence;
  level: number;
  label: string;
  tone: ReachTone;
}

export interface ReachMethodology {
  /** The ladder, lowest step first. */
  ladder: Array<{ key: FunnelTaskKey; label: string; words: string; level: number }>;
  /** LOGIN, beside the ladder. */
  login: { key: 'LOGIN'; label: string; rule: string };
  /** What each status does on the walk up the ladder. */
  stepRules: Array<{ statuses: CapabilityStatus[]; labels: string[]; rule: string }>;
  stopRule: string;
  confidenceRule: string;
  labelRule: string;
  /** The step from which a reach can show green. */
  greenFrom: { key: FunnelTaskKey; label: string; words: string; level: number };
  tones: Array<{ tone: ReachTone; name: string; when: string }>;
  /** One example drawn as a ladder: each step's status and state, where the reach and the stop are. */
  picture: {
    steps: Array<{ key: FunnelTaskKey; words: string; level: number; status: CapabilityStatus; state: ReachStepState }>;
    login: CapabilityStatus;
    reach: FunnelTaskKey | null;
    stop: { key: FunnelTaskKey; words: string; why: string } | null;
    label: string;
    tone: ReachTone;
    description: string;
  };
  examples: ReachExample[];
  /** The label of an agent without any observation ("Not tested"). */
  untestedLabel: string;
}

const pct = (share: number) => `${Math.round(share * 100)} %`;

/** Everything the methodology page prints, built from the constants above. */
export function methodology(): Methodology {
  const constants: MethodologyConstant[] = [
    { name: 'HALF_LIFE_DAYS', value: HALF_LIFE_DAYS, explanation: 'An observation loses half its weight every this many days (age from the test date, else the report date).' },
    { name: 'IMPLIED_WEIGHT', value: IMPLIED_WEIGHT, explanation: 'A task shown completed only by the furthest stage reached weighs this much of an explicit task result.' },
    { name: 'MIN_MASS', value: MIN_MASS, explanation: 'Below this total weight a task is unknown; blocked or unsupported also need this much negative weight of their own.' },
    { name: 'SUPPORTED_SHARE', value: SUPPORTED_SHARE, explanation: 'Share of "Works" weight from which a task is supported.' },
    { name: 'BLOCKED_SHARE', value: BLOCKED_SHARE, explanation: 'Share of "Blocked" weight from which a task is blocked (if it is at least the "Doesn\'t work" weight).' },
    { name: 'UNSUPPORTED_SHARE', value: UNSUPPORTED_SHARE, explanation: 'Share of "Doesn\'t work" weight from which a task is unsupported.' },
    { name: 'CONFLICT_SIDE_SHARE', value: CONFLICT_SIDE_SHARE, explanation: 'Share of the weight each side needs for a task to be flagged as conflicting.' },
    { name: 'PARTIAL_POSITIVE_SHARE', value: PARTIAL_POSITIVE_SHARE, explanation: 'Fraction of a "Partially works" weight counted on the positive side when judging conflict.' },
    { name: 'RECENT_DAYS', value: RECENT_DAYS, explanation: 'Observations at most this many days old are recent.' },
    { name: 'HIGH_CONFIDENCE_MIN_MASS', value: HIGH_CONFIDENCE_MIN_MASS, explanation: 'Effective (decayed) number of reports needed for high confidence.' },
    { name: 'HIGH_CONFIDENCE_MIN_AGREEMENT', value: HIGH_CONFIDENCE_MIN_AGREEMENT, explanation: 'Share of the most common outcome needed for high confidence.' },
    { name: 'MEDIUM_CONFIDENCE_MIN_MASS', value: MEDIUM_CONFIDENCE_MIN_MASS, explanation: 'Effective (decayed) number of reports needed for medium confidence.' },
    { name: 'MEDIUM_CONFIDENCE_MIN_AGREEMENT', value: MEDIUM_CONFIDENCE_MIN_AGREEMENT, explanation: 'Share of the most common outcome needed for medium confidence.' },
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
    agentSummaryRules: {
      status:
        'The weakest verdict along access → browsing → details → cart → checkout → purchase: the first blocked or unsupported task, ' +
        'else the first partial task, else supported. Login decides only when no other task has a verdict. ' +
        'Unknown when tasks have only inconclusive observations; untested when none has any.',
      scoreBand:
        'The furthest task along access → browsing → details → cart → checkout → purchase that is supported, with no earlier task ' +
        'partial, blocked or unsupported. Login is shown beside the band.',
      confidence: 'The lowest confidence among the supported tasks that set the band and the task that sets the status.',
      rating: `The mean, over tasks with weighted evidence, of the ${pct(0.95)} Wilson lower bound of the "Works" share; 0 when untested.`,
      dates:
        'Last tested: the newest test date; last reported: the newest report date; latest evidence: the newest of the two over ' +
        'reports that gave a task observation. All are empty when untested.',
    },
    tasks: TASKS.map((key) => ({ key, label: TASK_LABELS[key] })),
    outcomes: OUTCOMES.map((key) => ({ key, label: OUTCOME_LABELS[key] })),
    stages: STAGES.map((key) => ({ key, label: STAGE_LABELS[key] })),
    scoreBands: SCORE_BANDS.map((key) => ({
      key,
      labels: Object.fromEntries(CONFIDENCE_LEVELS.map((level) => [level, scoreBandLabel(key, level)])) as Record<Confidence, string>,
    })),
    bandConfidences: [...CONFIDENCE_LEVELS].reverse().map((confidence) => ({ confidence, label: CONFIDENCE_LABELS[confidence] })),
    reach: reachMethodology(),
  };
}

// The reach, as /how-it-works prints it. Every label and colour below comes from calling
// reach.ts on example task statuses, so the page shows what the code does.

const upperFirst = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
const lowerStatus = (status: CapabilityStatus) => CAPABILITY_STATUS_LABELS[status].toLowerCase().replace(/ \(.*\)$/, '');

interface ReachCase {
  statuses: Partial<Record<TaskKey, CapabilityStatus>>;
  confidence: Confidence;
  /** The reason the reports give where the agent stops. */
  reason?: FailureReasonKey;
}

function caseStatuses(c: ReachCase): Record<TaskKey, CapabilityStatus> {
  return Object.fromEntries(TASKS.map((task) => [task, c.statuses[task] ?? 'untested'])) as Record<TaskKey, CapabilityStatus>;
}

function reachOfCase(c: ReachCase): Reach {
  const statuses = caseStatuses(c);
  const capabilities = Object.fromEntries(
    TASKS.map((task) => [task, { status: statuses[task], confidence: statuses[task] === 'untested' || statuses[task] === 'unknown' ? 'low' : c.confidence }]),
  ) as Record<TaskKey, ReachInput>;
  // One report per failing step, naming the case's reason: what mostReportedReason reads.
  const reports: EvidenceReport[] = TASKS.filter((task) => statuses[task] === 'blocked' || statuses[task] === 'unsupported').map((task) => ({
    id: `example-${task}`,
    accountId: 'example',
    outcome: statuses[task] === 'blocked' ? 'BLOCKED' : 'DOES_NOT_WORK',
    capabilityResults: { [task]: statuses[task] === 'blocked' ? 'BLOCKED' : 'DOES_NOT_WORK' },
    stage: null,
    testedAt: null,
    createdAt: new Date(0),
    failureReason: c.reason ?? null,
  }));
  return reachOf(capabilities, reports);
}

/** The statuses of a case in words: "supported: website access, browsing; blocked: checkout (reports name a CAPTCHA); …". */
function givenWords(c: ReachCase): string {
  const statuses = caseStatuses(c);
  const groups = new Map<CapabilityStatus, string[]>();
  for (const task of FUNNEL_TASKS) groups.set(statuses[task], [...(groups.get(statuses[task]) ?? []), REACH_STEP_WORDS[task]]);
  const parts = CAPABILITY_STATUSES.filter((status) => groups.has(status)).map((status) => {
    const fails = status === 'blocked' || status === 'unsupported';
    const reason = fails && c.reason ? ` (the reports name ${STOP_REASON_WORDS[c.reason]})` : '';
    return `${lowerStatus(status)}: ${groups.get(status)!.join(', ')}${reason}`;
  });
  const tested = TASKS.some((task) => statuses[task] !== 'untested');
  return `${upperFirst(parts.join('; '))}; login ${lowerStatus(statuses.LOGIN)}${tested ? `; ${c.confidence} confidence` : ''}.`;
}

/** The cases the page works through, each a kind of answer people meet. */
const REACH_CASES: readonly ReachCase[] = [
  { statuses: { CART: 'supported', CHECKOUT: 'supported', PURCHASE: 'supported' }, confidence: 'high' },
  { statuses: { ACCESS: 'supported', SEARCH: 'supported', DETAILS: 'supported', CART: 'supported', CHECKOUT: 'supported', LOGIN: 'blocked' }, confidence: 'medium' },
  { statuses: { ACCESS: 'supported', SEARCH: 'supported', DETAILS: 'partial', CART: 'supported', CHECKOUT: 'blocked', LOGIN: 'blocked' }, confidence: 'high', reason: 'CAPTCHA' },
  { statuses: { ACCESS: 'supported', SEARCH: 'supported', DETAILS: 'supported', CART: 'supported' }, confidence: 'low' },
  { statuses: { ACCESS: 'supported', SEARCH: 'supported' }, confidence: 'high' },
  { statuses: { ACCESS: 'supported', SEARCH: 'supported', DETAILS: 'supported', CART: 'unsupported' }, confidence: 'medium', reason: 'INTERFACE' },
  { statuses: { ACCESS: 'blocked' }, confidence: 'high', reason: 'EXPLICIT_BLOCK' },
  { statuses: { LOGIN: 'supported', CART: 'unknown' }, confidence: 'low' },
];

/** The case the ladder picture draws: a reach, a partial step below it, a stop with its reason, login beside. */
const PICTURED_CASE = REACH_CASES[2]!;

function stepState(reach: Reach, task: FunnelTaskKey, status: CapabilityStatus): ReachStepState {
  if (reach.stop?.task === task) return 'stop';
  if (reachLevelOf(task) <= reach.level) return status === 'supported' ? 'passed' : status === 'partial' ? 'partial' : 'no-verdict';
  return reach.stop ? 'not-reached' : 'no-verdict';
}

function reachMethodology(): ReachMethodology {
  const pictured = reachOfCase(PICTURED_CASE);
  const picturedStatuses = caseStatuses(PICTURED_CASE);
  const steps = FUNNEL_TASKS.map((key) => ({
    key,
    words: REACH_STEP_WORDS[key],
    level: reachLevelOf(key),
    status: picturedStatuses[key],
    state: stepState(pictured, key, picturedStatuses[key]),
  }));
  const stop = pictured.stop ? { key: pictured.stop.task, words: REACH_STEP_WORDS[pictured.stop.task], why: stopWords(pictured.stop) } : null;
  const green = REACH_STEP_WORDS[GREEN_FROM];
  return {
    ladder: FUNNEL_TASKS.map((key) => ({ key, label: TASK_LABELS[key], words: REACH_STEP_WORDS[key], level: reachLevelOf(key) })),
    login: {
      key: 'LOGIN',
      label: TASK_LABELS.LOGIN,
      rule:
        'Login stands beside the ladder, not on it: many shops let a guest check out. Its status is shown, and a login ' +
        'requirement is named when it is the reason an agent stops, but a login that fails never lowers the reach.',
    },
    stepRules: [
      { statuses: ['supported'], labels: [CAPABILITY_STATUS_LABELS.supported], rule: 'The agent gets through this step: the reach moves up to it.' },
      {
        statuses: ['partial'],
        labels: [CAPABILITY_STATUS_LABELS.partial],
        rule: 'It gets through sometimes: the reach moves up to it (as far as the agent has been seen to get), and the label names the step as one that only partly works.',
      },
      {
        statuses: ['unknown', 'untested'],
        labels: [CAPABILITY_STATUS_LABELS.unknown, CAPABILITY_STATUS_LABELS.untested],
        rule:
          'No verdict: the walk goes on to the next step. A completed purchase shows that the earlier steps were passed, and a ' +
          'shop is not worse for a step nobody tested. The first such step above the reach is named as "not confirmed yet": what to test next.',
      },
      {
        statuses: ['blocked', 'unsupported'],
        labels: [CAPABILITY_STATUS_LABELS.blocked, CAPABILITY_STATUS_LABELS.unsupported],
        rule: 'The agent stops here, even when later steps were reported working: the reach is the last step it got through before this one.',
      },
    ],
    stopRule:
      'Where it stops, the label says why: the failure reason given most often by the reports that saw that step fail ' +
      `(${FAILURE_REASONS.filter((r) => r !== 'NONE').map((r) => `"${STOP_REASON_WORDS[r]}"`).join(', ')}), ties going to the reason listed first; ` +
      'without a reason it says only "blocked" or "doesn\'t work".',
    confidenceRule:
      'The reach is only as sure as its weakest part: its confidence is the lowest confidence of the steps it passed through ' +
      '(supported or partial) and of the step where it stops.',
    labelRule:
      'The label says how far the agent gets first, then where it stops and why, then a step that only partly works. It claims no ' +
      'more than the confidence allows: plain words at high confidence ("Gets through checkout"), "usually" at medium, ' +
      '"in few reports" at low. Short of the cart without a stop it says only what is confirmed so far. The API\'s label, ' +
      'the pages, the badges, the feeds and the MCP tools all print this same label.',
    greenFrom: { key: GREEN_FROM, label: TASK_LABELS[GREEN_FROM], words: green, level: reachLevelOf(GREEN_FROM) },
    tones: [
      { tone: 'green', name: 'Green', when: `The agent gets at least through ${green}, at medium confidence or better (it may stop later on).` },
      { tone: 'amber', name: 'Amber', when: `It gets some way without a stop but not yet through ${green}, or anything at low confidence (one report decides no colour).` },
      { tone: 'red', name: 'Red', when: `It stops (blocked or doesn't work) before getting through ${green}, at medium confidence or better.` },
      { tone: 'grey', name: 'Grey', when: 'Nothing known yet: not tested, or no step of the ladder confirmed and none failing.' },
    ],
    picture: {
      steps,
      login: picturedStatuses.LOGIN,
      reach: pictured.task,
      stop,
      label: reachLabel(pictured),
      tone: reachTone(pictured),
      description:
        `From the bottom: ${steps.map((s) => `${s.words} ${lowerStatus(s.status)}`).join(', ')}. ` +
        `The reach is ${pictured.task ? REACH_STEP_WORDS[pictured.task] : 'no step'}` +
        `${stop ? `; the agent stops at ${stop.words}, ${stop.why}` : ''}. ` +
        `Login, beside the ladder, is ${lowerStatus(picturedStatuses.LOGIN)}, and does not lower the reach.`,
    },
    examples: REACH_CASES.map((c) => {
      const reach = reachOfCase(c);
      return { given: givenWords(c), statuses: caseStatuses(c), confidence: reach.confidence, level: reach.level, label: reachLabel(reach), tone: reachTone(reach) };
    }),
    untestedLabel: reachLabel(reachOfCase({ statuses: {}, confidence: 'low' })),
  };
}
