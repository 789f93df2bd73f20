// The aggregation engine, part 2: one task's status, confidence and conflict from its
// observations (observations.ts). Pure: no I/O, time arrives as `now`. The thresholds are in
// constants.ts and printed on /how-it-works.
import {
  BLOCKED_SHARE,
  CONFLICT_SIDE_SHARE,
  HIGH_CONFIDENCE_MIN_AGREEMENT,
  HIGH_CONFIDENCE_MIN_MASS,
  MAX_EVIDENCE_REFERENCES,
  MAX_RECENT_OBSERVATIONS,
  MEDIUM_CONFIDENCE_MIN_AGREEMENT,
  MEDIUM_CONFIDENCE_MIN_MASS,
  MIN_MASS,
  PARTIAL_POSITIVE_SHARE,
  SHARE_TOLERANCE,
  SUPPORTED_SHARE,
  UNSUPPORTED_SHARE,
  WILSON_Z,
  type CapabilityStatus,
  type Confidence,
  type ObservationKind,
  type OutcomeKey,
} from './constants.js';
import { iso, isRecent, maxOrNull, observationWeight, observedAtMs, onePerAccount, type Observation } from './observations.js';

export interface RecentObservation {
  reportId: string;
  outcome: OutcomeKey;
  kind: ObservationKind;
  /** The test date, else the report date (ISO 8601). */
  observedAt: string;
}

/** Decayed weight per outcome class; `total` is M = WORKS + PARTIAL + BLOCKED + DOES_NOT_WORK. */
interface OutcomeWeights {
  WORKS: number;
  PARTIAL: number;
  BLOCKED: number;
  DOES_NOT_WORK: number;
  total: number;
}

/** Everything computeTaskCapability decides about one task, before evidence becomes links. */
export interface TaskAssessment {
  status: CapabilityStatus;
  confidence: Confidence;
  conflicting: boolean;
  /** Observations counted (one per account), UNSURE included. */
  reportCount: number;
  /** Of those, observed within RECENT_DAYS of `now`. */
  recentCount: number;
  explicitCount: number;
  reachedStageCount: number;
  lastTestedAt: string | null;
  lastReportedAt: string | null;
  latestEvidenceAt: string | null;
  recentObservations: RecentObservation[];
  /** Ids of the newest reports behind the observations, newest first. */
  evidenceReportIds: string[];
  weights: OutcomeWeights;
  /** Wilson lower bound of WORKS / M; 0 without weighted evidence. */
  score: number;
}

/** Wilson score lower bound of `successes / n`; weights may be fractional. 0 when n is 0. */
export function wilsonLowerBound(successes: number, n: number, z: number = WILSON_Z): number {
  if (!(n > 0)) return 0;
  const p = Math.min(1, Math.max(0, successes / n));
  const z2 = z * z;
  const centre = p + z2 / (2 * n);
  const margin = z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return Math.min(1, Math.max(0, (centre - margin) / (1 + z2 / n)));
}

const atLeast = (share: number, threshold: number): boolean => share >= threshold - SHARE_TOLERANCE;

/**
 * The status table of the design, first matching row wins. One refinement: blocked and
 * unsupported also need their own weight to reach MIN_MASS. Without it, an old BLOCKED report
 * alone (weight just under MIN_MASS, so `unknown`) turned `blocked` when a very old WORKS report
 * was added and lifted the total over MIN_MASS: a WORKS report must never make a task look
 * blocked. Such a thin negative majority falls through to `partial`.
 */
function statusOf(weights: OutcomeWeights, observationCount: number): CapabilityStatus {
  if (observationCount === 0) return 'untested';
  const { WORKS: w, BLOCKED: b, DOES_NOT_WORK: d, total: m } = weights;
  if (m <= 0 || m < MIN_MASS) return 'unknown';
  if (atLeast(w / m, SUPPORTED_SHARE)) return 'supported';
  if (atLeast(b / m, BLOCKED_SHARE) && b >= d && b >= MIN_MASS) return 'blocked';
  if (atLeast(d / m, UNSUPPORTED_SHARE) && d >= MIN_MASS) return 'unsupported';
  return 'partial';
}

const isPositive = (outcome: OutcomeKey) => outcome === 'WORKS' || outcome === 'PARTIAL';
const isNegative = (outcome: OutcomeKey) => outcome === 'BLOCKED' || outcome === 'DOES_NOT_WORK';

/**
 * Disagreement worth showing: both sides hold a real share of the weight and both are current. A
 * PARTIAL observation sits on the positive side (at PARTIAL_POSITIVE_SHARE of its weight) and so
 * also counts as a recent positive report. Old praise against new complaints is a regression, not
 * a conflict, hence the recency condition.
 */
function conflictingOf(weights: OutcomeWeights, kept: readonly Observation[], now: Date): boolean {
  const m = weights.total;
  if (m <= 0) return false;
  const positive = weights.WORKS + PARTIAL_POSITIVE_SHARE * weights.PARTIAL;
  const negative = weights.BLOCKED + weights.DOES_NOT_WORK;
  if (!atLeast(positive / m, CONFLICT_SIDE_SHARE) || !atLeast(negative / m, CONFLICT_SIDE_SHARE)) return false;
  const recent = kept.filter((observation) => isRecent(observation, now));
  return recent.some((o) => isPositive(o.outcome)) && recent.some((o) => isNegative(o.outcome));
}

/**
 * n is the effective number of reports (M), a the dominant class's share. "The newest observation"
 * of the high rule is the newest weighted one: a fresh UNSURE says nothing about whether old
 * evidence still holds.
 */
function confidenceOf(status: CapabilityStatus, weights: OutcomeWeights, kept: readonly Observation[], now: Date): Confidence {
  if (status === 'unknown' || status === 'untested') return 'low';
  const m = weights.total;
  const agreement = Math.max(weights.WORKS, weights.PARTIAL, weights.BLOCKED, weights.DOES_NOT_WORK) / m;
  const newestWeighted = kept.find((observation) => observation.outcome !== 'UNSURE');
  const newestIsRecent = newestWeighted !== undefined && isRecent(newestWeighted, now);
  if (atLeast(m, HIGH_CONFIDENCE_MIN_MASS) && atLeast(agreement, HIGH_CONFIDENCE_MIN_AGREEMENT) && newestIsRecent) return 'high';
  if (atLeast(m, MEDIUM_CONFIDENCE_MIN_MASS) && atLeast(agreement, MEDIUM_CONFIDENCE_MIN_AGREEMENT)) return 'medium';
  return 'low';
}

/**
 * Assesses one task from its observations (all of the same task, any order). Sums run over the
 * observations in newest-first order, so the floating-point result does not depend on input order.
 */
export function computeTaskCapability(observations: readonly Observation[], now: Date): TaskAssessment {
  const kept = onePerAccount(observations);
  const weights: OutcomeWeights = { WORKS: 0, PARTIAL: 0, BLOCKED: 0, DOES_NOT_WORK: 0, total: 0 };
  for (const observation of kept) {
    if (observation.outcome === 'UNSURE') continue;
    const weight = observationWeight(observation, now);
    weights[observation.outcome] += weight;
    weights.total += weight;
  }
  const status = statusOf(weights, kept.length);
  const lastTested = maxOrNull(kept.flatMap((o) => (o.testedAt ? [o.testedAt.getTime()] : [])));
  const lastReported = maxOrNull(kept.map((o) => o.createdAt.getTime()));
  return {
    status,
    confidence: confidenceOf(status, weights, kept, now),
    conflicting: conflictingOf(weights, kept, now),
    reportCount: kept.length,
    recentCount: kept.filter((o) => isRecent(o, now)).length,
    explicitCount: kept.filter((o) => o.kind === 'explicit').length,
    reachedStageCount: kept.filter((o) => o.kind === 'reached_stage').length,
    lastTestedAt: iso(lastTested),
    lastReportedAt: iso(lastReported),
    latestEvidenceAt: iso(maxOrNull([lastTested, lastReported].filter((ms): ms is number => ms !== null))),
    recentObservations: kept.slice(0, MAX_RECENT_OBSERVATIONS).map((o) => ({
      reportId: o.reportId,
      outcome: o.outcome,
      kind: o.kind,
      observedAt: new Date(observedAtMs(o)).toISOString(),
    })),
    evidenceReportIds: kept.slice(0, MAX_EVIDENCE_REFERENCES).map((o) => o.reportId),
    weights,
    score: wilsonLowerBound(weights.WORKS, weights.total),
  };
}
