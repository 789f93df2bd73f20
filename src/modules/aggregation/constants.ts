// Every key list, label, threshold, window and weight of the aggregation engine, in one place.
// The engine reads only these; the methodology page (/how-it-works) prints them through
// methodology(), so what visitors read is what the code does. Change a number here and both
// move together. Pure data: no Prisma client import, so the engine stays usable anywhere.

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
  /** Each score band in words, by confidence: the table the pages and the API's `label` use. */
  scoreBands: Array<{ key: ScoreBand; labels: Record<Confidence, string> }>;
  /** The confidence columns of that table, highest first. */
  bandConfidences: Array<{ confidence: Confidence; label: string }>;
  summaryLabelRule: string;
  summaryLabelExamples: Array<{ status: CapabilityStatus; scoreBand: ScoreBand; confidence: Confidence; label: string }>;
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
    summaryLabelRule:
      'A summary\'s label is its status, then how far it gets in words that match its confidence: "reliably" only at high ' +
      'confidence, "usually" or "consistently" at medium, "so far" or "yet" at low (few, old or divided reports). ' +
      `An agent without task observations reads "${UNTESTED_SUMMARY_LABEL}".`,
    summaryLabelExamples: [...CONFIDENCE_LEVELS].reverse().map((confidence) => ({
      status: 'supported' as const,
      scoreBand: 'checkout' as const,
      confidence,
      label: summaryLabel('supported', 'checkout', confidence),
    })),
  };
}
