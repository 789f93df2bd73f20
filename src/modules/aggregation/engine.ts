// The aggregation engine's pure core: approved reports in, per-agent summaries and per-task
// capability statuses out. No I/O, no clock (time arrives as `now`), no Prisma, so the JSON API,
// the HTML pages and the precomputed summary rows all get the same answer from the same rows.
// The rules and every number are documented in constants.ts and printed on /how-it-works.
import {
  BAND_OF_TASK,
  BLOCKED_SHARE,
  CONFIDENCE_LEVELS,
  CONFLICT_SIDE_SHARE,
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
  OUTCOMES,
  PARTIAL_POSITIVE_SHARE,
  RECENT_DAYS,
  SHARE_TOLERANCE,
  STAGES,
  SUPPORTED_SHARE,
  TASK_COMPLETED_FROM_STAGE,
  TASKS,
  UNSUPPORTED_SHARE,
  WILSON_Z,
  type CapabilityStatus,
  type Confidence,
  type ObservationKind,
  type OutcomeKey,
  type ScoreBand,
  type StageKey,
  type TaskKey,
} from './constants.js';

// ---------------------------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------------------------

/** One approved report of one merchant and agent, as the engine needs it. */
export interface EvidenceReport {
  /** Public report id. */
  id: string;
  /** Only used to count one account once per task; never appears in any output. */
  accountId: string;
  /** Overall outcome: counted, never turned into a task observation. */
  outcome: OutcomeKey;
  capabilityResults: Partial<Record<TaskKey, OutcomeKey>>;
  /** Furthest stage reached. */
  stage: StageKey | null;
  testedAt: Date | null;
  createdAt: Date;
}

/** What one report says about one task. */
export interface Observation {
  reportId: string;
  accountId: string;
  task: TaskKey;
  outcome: OutcomeKey;
  kind: ObservationKind;
  testedAt: Date | null;
  createdAt: Date;
}

export interface EvidenceReference {
  reportId: string;
  url: string;
}

export interface RecentObservation {
  reportId: string;
  outcome: OutcomeKey;
  kind: ObservationKind;
  /** The test date, else the report date (ISO 8601). */
  observedAt: string;
}

/** Decayed weight per outcome class; `total` is M = WORKS + PARTIAL + BLOCKED + DOES_NOT_WORK. */
export interface OutcomeWeights {
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

/** One task of a per-agent summary, as published. */
export interface TaskCapability {
  status: CapabilityStatus;
  reportCount: number;
  recentCount: number;
  explicitCount: number;
  reachedStageCount: number;
  confidence: Confidence;
  conflicting: boolean;
  lastTestedAt: string | null;
  lastReportedAt: string | null;
  latestEvidenceAt: string | null;
  recentObservations: RecentObservation[];
  evidence: EvidenceReference[];
}

export interface OutcomeCounts {
  WORKS: number;
  PARTIAL: number;
  BLOCKED: number;
  DOES_NOT_WORK: number;
  UNSURE: number;
  total: number;
}

/** The per-agent summary on a merchant. JSON-serialisable: dates are ISO strings or null. */
export interface AgentSummary {
  status: CapabilityStatus;
  /** The task whose status is `status`; null when unknown or untested. */
  statusTask: TaskKey | null;
  scoreBand: ScoreBand;
  rating: number;
  confidence: Confidence;
  counts: OutcomeCounts;
  lastTestedAt: string | null;
  lastReportedAt: string | null;
  latestEvidenceAt: string | null;
  evidence: EvidenceReference[];
  capabilities: Record<TaskKey, TaskCapability>;
}

export interface SummaryOptions {
  now: Date;
  /** The public link of a report, for evidence references. */
  reportUrl: (reportId: string) => string;
}

// ---------------------------------------------------------------------------------------------
// Ordering
// ---------------------------------------------------------------------------------------------

interface Dated {
  testedAt: Date | null;
  createdAt: Date;
}

/** When the evidence was observed: the test date, else the report date. Ages and "newest" use it. */
const observedAtMs = (item: Dated): number => (item.testedAt ?? item.createdAt).getTime();

/**
 * "Newest first" everywhere: by the test date falling back to the report date, then by the report
 * date, then by report id descending (ids are time-ordered UUIDv7, and any total order keeps the
 * output independent of the input order). Plain code-unit comparison, not locale-dependent.
 */
function compareNewestFirst(a: Dated & { id: string }, b: Dated & { id: string }): number {
  return compareByKeys(a, a.id, b, b.id);
}

const compareObservationsNewestFirst = (a: Observation, b: Observation): number => compareByKeys(a, a.reportId, b, b.reportId);

function compareByKeys(a: Dated, aId: string, b: Dated, bId: string): number {
  const byObserved = observedAtMs(b) - observedAtMs(a);
  if (byObserved !== 0) return byObserved;
  const byCreated = b.createdAt.getTime() - a.createdAt.getTime();
  if (byCreated !== 0) return byCreated;
  return aId < bId ? 1 : aId > bId ? -1 : 0;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

const maxOrNull = (values: Iterable<number>): number | null => {
  let max: number | null = null;
  for (const value of values) if (max === null || value > max) max = value;
  return max;
};

// ---------------------------------------------------------------------------------------------
// Observations
// ---------------------------------------------------------------------------------------------

const stageIndex = (stage: StageKey): number => STAGES.indexOf(stage);
const isOutcome = (value: unknown): value is OutcomeKey => (OUTCOMES as readonly unknown[]).includes(value);
const isStage = (value: unknown): value is StageKey => (STAGES as readonly unknown[]).includes(value);

/** Whether a report whose furthest stage is `stage` shows that `task` was completed. */
export function stageShowsCompleted(stage: StageKey | null, task: TaskKey): boolean {
  const from = TASK_COMPLETED_FROM_STAGE[task];
  if (stage === null || from === null || !isStage(stage)) return false;
  return stageIndex(stage) >= stageIndex(from);
}

/**
 * At most one observation per task: the explicit task result, else a WORKS observation when the
 * furthest stage shows the task completed, else none. The overall outcome is never used, so no
 * task is ever inferred to have failed (spec 2.3). Entries that are not outcome keys are ignored,
 * because capabilityResults arrives from a JSON column.
 */
export function observationsFor(report: EvidenceReport): Observation[] {
  const observations: Observation[] = [];
  for (const task of TASKS) {
    const base = { reportId: report.id, accountId: report.accountId, task, testedAt: report.testedAt, createdAt: report.createdAt };
    const explicit: unknown = report.capabilityResults[task];
    if (isOutcome(explicit)) {
      observations.push({ ...base, outcome: explicit, kind: 'explicit' });
    } else if (stageShowsCompleted(report.stage, task)) {
      observations.push({ ...base, outcome: 'WORKS', kind: 'reached_stage' });
    }
  }
  return observations;
}

/** Age in days at `now`; evidence dated in the future (a test date ahead of UTC) counts as new. */
const ageDays = (item: Dated, now: Date): number => Math.max(0, (now.getTime() - observedAtMs(item)) / MS_PER_DAY);

const isRecent = (item: Dated, now: Date): boolean => ageDays(item, now) <= RECENT_DAYS;

/** Decayed weight of an observation toward a status: halves every HALF_LIFE_DAYS; UNSURE weighs 0. */
export function observationWeight(observation: Observation, now: Date): number {
  if (observation.outcome === 'UNSURE') return 0;
  const decay = 0.5 ** (ageDays(observation, now) / HALF_LIFE_DAYS);
  return observation.kind === 'reached_stage' ? decay * IMPLIED_WEIGHT : decay;
}

/**
 * One account counts once per task: its newest observation (newest-first order) is kept, whatever
 * its outcome, because a later report from the same person supersedes their earlier view. The spec
 * allows one report per account, merchant and agent, so this only matters for imported data.
 * Returns the kept observations newest first.
 */
function onePerAccount(observations: readonly Observation[]): Observation[] {
  const sorted = [...observations].sort(compareObservationsNewestFirst);
  const seen = new Set<string>();
  return sorted.filter((observation) => {
    if (seen.has(observation.accountId)) return false;
    seen.add(observation.accountId);
    return true;
  });
}

// ---------------------------------------------------------------------------------------------
// Task status
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// Per-agent summary
// ---------------------------------------------------------------------------------------------

const hasVerdict = (status: CapabilityStatus): boolean => status !== 'unknown' && status !== 'untested';
const isNegativeStatus = (status: CapabilityStatus): boolean => status === 'blocked' || status === 'unsupported';

/**
 * The most informative single word: the weakest verdict along the funnel, earliest first among
 * equals (first blocked/unsupported task, else first partial task, else supported, then set by
 * the furthest supported task). This refines the design's "blocked if ACCESS is blocked, else the
 * furthest task with evidence": that rule let one old completed purchase hide a run of recent
 * BLOCKED cart reports (the furthest task, PURCHASE, stayed supported), and called an agent
 * "supported" while an earlier step only partly worked and the band said it reliably got nowhere.
 * ACCESS blocked still gives blocked. LOGIN sits beside the funnel (guest checkout exists), so it
 * decides only when no funnel task has a verdict.
 */
function agentStatusOf(capabilities: Record<TaskKey, TaskAssessment>): { status: CapabilityStatus; task: TaskKey | null } {
  const withVerdict = FUNNEL_TASKS.filter((task) => hasVerdict(capabilities[task].status));
  const firstWhere = (match: (status: CapabilityStatus) => boolean) => withVerdict.find((task) => match(capabilities[task].status));
  const negative = firstWhere(isNegativeStatus);
  if (negative) return { status: capabilities[negative].status, task: negative };
  const partial = firstWhere((status) => status === 'partial');
  if (partial) return { status: 'partial', task: partial };
  const furthest = withVerdict[withVerdict.length - 1];
  if (furthest) return { status: 'supported', task: furthest };
  if (hasVerdict(capabilities.LOGIN.status)) return { status: capabilities.LOGIN.status, task: 'LOGIN' };
  const observed = TASKS.some((task) => capabilities[task].status !== 'untested');
  return { status: observed ? 'unknown' : 'untested', task: null };
}

/**
 * The furthest supported funnel task with no earlier task partial, blocked or unsupported. The
 * design asked every earlier task to be supported; earlier tasks without a verdict (untested,
 * unknown) no longer cap the band, because a report may state only `PURCHASE: WORKS` without a
 * stage, and a completed purchase shows the earlier steps were passed. Returns the band and the
 * supported tasks that set it.
 */
function scoreBandOf(capabilities: Record<TaskKey, TaskAssessment>): { band: ScoreBand; tasks: TaskKey[] } {
  let band: ScoreBand = 'none';
  const tasks: TaskKey[] = [];
  for (const task of FUNNEL_TASKS) {
    const status = capabilities[task].status;
    if (status === 'supported') {
      band = BAND_OF_TASK[task];
      tasks.push(task);
    } else if (hasVerdict(status)) {
      break;
    }
  }
  return { band, tasks };
}

const lowestConfidence = (levels: readonly Confidence[]): Confidence =>
  levels.reduce<Confidence>(
    (lowest, level) => (CONFIDENCE_LEVELS.indexOf(level) < CONFIDENCE_LEVELS.indexOf(lowest) ? level : lowest),
    'high',
  );

const emptyCounts = (): OutcomeCounts => ({ WORKS: 0, PARTIAL: 0, BLOCKED: 0, DOES_NOT_WORK: 0, UNSURE: 0, total: 0 });

/**
 * The per-agent summary of one merchant from its approved reports (any order). The output holds
 * no account ids and no Date objects, so it can be stored as JSON and served as is.
 */
export function computeAgentSummary(reports: readonly EvidenceReport[], options: SummaryOptions): AgentSummary {
  const { now, reportUrl } = options;
  const byTask = new Map<TaskKey, Observation[]>(TASKS.map((task) => [task, []]));
  for (const report of reports) {
    for (const observation of observationsFor(report)) byTask.get(observation.task)?.push(observation);
  }

  const assessments = Object.fromEntries(
    TASKS.map((task) => [task, computeTaskCapability(byTask.get(task) ?? [], now)]),
  ) as Record<TaskKey, TaskAssessment>;

  const capabilities = Object.fromEntries(
    TASKS.map((task): [TaskKey, TaskCapability] => {
      const { evidenceReportIds, weights: _weights, score: _score, ...rest } = assessments[task];
      return [task, { ...rest, evidence: evidenceReportIds.map((reportId) => ({ reportId, url: reportUrl(reportId) })) }];
    }),
  ) as Record<TaskKey, TaskCapability>;

  const { status, task: statusTask } = agentStatusOf(assessments);
  const { band, tasks: bandTasks } = scoreBandOf(assessments);

  // The band's tasks plus the task behind the status: a summary reading "blocked, band cart"
  // must not claim high confidence when the blocked checkout rests on one report.
  const confidenceTasks = [...new Set<TaskKey>([...bandTasks, ...(statusTask ? [statusTask] : [])])];
  const confidence = confidenceTasks.length === 0 ? 'low' : lowestConfidence(confidenceTasks.map((task) => assessments[task].confidence));

  const weighted = TASKS.filter((task) => assessments[task].weights.total > 0);
  const rating = weighted.length === 0 ? 0 : weighted.reduce((sum, task) => sum + assessments[task].score, 0) / weighted.length;

  const counts = emptyCounts();
  for (const report of reports) {
    counts[report.outcome] += 1;
    counts.total += 1;
  }

  // Spec 2.4: an untested summary has null dates, even when reports without any task observation
  // (overall outcome only) exist; those still appear in counts and evidence.
  const untested = status === 'untested';
  const lastTestedAt = untested ? null : iso(maxOrNull(reports.flatMap((r) => (r.testedAt ? [r.testedAt.getTime()] : []))));
  const lastReportedAt = untested ? null : iso(maxOrNull(reports.map((r) => r.createdAt.getTime())));
  // Reports that gave a kept observation are exactly those behind the capabilities' dates.
  const latestEvidenceAt = untested
    ? null
    : iso(maxOrNull(TASKS.flatMap((task) => {
        const at = capabilities[task].latestEvidenceAt;
        return at === null ? [] : [Date.parse(at)];
      })));

  const evidence = [...reports]
    .sort(compareNewestFirst)
    .slice(0, MAX_EVIDENCE_REFERENCES)
    .map((report) => ({ reportId: report.id, url: reportUrl(report.id) }));

  return {
    status,
    statusTask,
    scoreBand: band,
    rating,
    confidence,
    counts,
    lastTestedAt,
    lastReportedAt,
    latestEvidenceAt,
    evidence,
    capabilities,
  };
}
