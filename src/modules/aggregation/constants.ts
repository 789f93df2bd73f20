// Every key list, label, threshold, window and weight of the aggregation engine, in one place.
// The engine reads only these; the methodology page (/how-it-works) prints them through
// methodology.ts, so what visitors read is what the code does. Change a number here and both
// move together. Pure data: it imports nothing.

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

/** The ladder step a furthest stage reached (PAYMENT_APPROVAL is still checkout; PURCHASE is the purchase). */
export const STAGE_STEP: Readonly<Record<StageKey, FunnelTaskKey>> = {
  ACCESS: 'ACCESS',
  BROWSE: 'SEARCH',
  DETAILS: 'DETAILS',
  CONFIGURE: 'DETAILS',
  CART: 'CART',
  CHECKOUT: 'CHECKOUT',
  SHIPPING: 'CHECKOUT',
  PAYMENT_APPROVAL: 'CHECKOUT',
  PURCHASE: 'PURCHASE',
};

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
