// The aggregation engine, part 1: what approved reports say about each task. A report gives at
// most one observation per task (explicit, or implied by the stage it reached); observations
// decay with age, and one account counts once per task. Pure: no I/O, time arrives as `now`.
import {
  HALF_LIFE_DAYS,
  IMPLIED_WEIGHT,
  MS_PER_DAY,
  OUTCOMES,
  RECENT_DAYS,
  STAGES,
  TASK_COMPLETED_FROM_STAGE,
  TASKS,
  type FailureReasonKey,
  type ObservationKind,
  type OutcomeKey,
  type StageKey,
  type TaskKey,
} from './constants.js';

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
  /** The failure reason the report gave, if any: names why an agent stops (reach.ts). */
  failureReason?: FailureReasonKey | null;
  /** The agent version the report names, as stored (agent-versions.ts trims and orders it). */
  agentVersion?: string | null;
  /**
   * Written by a verified owner of the merchant ('owner') or vendor of the agent ('vendor'):
   * self-reported evidence, kept out of the community's statuses (summaries.service.ts).
   */
  selfReported?: SelfReportedBy | null;
}

/** Who wrote a self-reported report: the merchant's owner or the agent's vendor (never who in person). */
export type SelfReportedBy = 'owner' | 'vendor';

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

interface Dated {
  testedAt: Date | null;
  createdAt: Date;
}

/** When the evidence was observed: the test date, else the report date. Ages and "newest" use it. */
export const observedAtMs = (item: Dated): number => (item.testedAt ?? item.createdAt).getTime();

/**
 * "Newest first" everywhere: by the test date falling back to the report date, then by the report
 * date, then by report id descending (ids are time-ordered UUIDv7, and any total order keeps the
 * output independent of the input order). Plain code-unit comparison, not locale-dependent.
 */
export function compareNewestFirst(a: Dated & { id: string }, b: Dated & { id: string }): number {
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

export const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export const maxOrNull = (values: Iterable<number>): number | null => {
  let max: number | null = null;
  for (const value of values) if (max === null || value > max) max = value;
  return max;
};

const stageIndex = (stage: StageKey): number => STAGES.indexOf(stage);
const isOutcome = (value: unknown): value is OutcomeKey => (OUTCOMES as readonly unknown[]).includes(value);
const isStage = (value: unknown): value is StageKey => (STAGES as readonly unknown[]).includes(value);

/** Whether a report whose furthest stage is `stage` shows that `task` was completed. */
function stageShowsCompleted(stage: StageKey | null, task: TaskKey): boolean {
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

export const isRecent = (item: Dated, now: Date): boolean => ageDays(item, now) <= RECENT_DAYS;

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
export function onePerAccount(observations: readonly Observation[]): Observation[] {
  const sorted = [...observations].sort(compareObservationsNewestFirst);
  const seen = new Set<string>();
  return sorted.filter((observation) => {
    if (seen.has(observation.accountId)) return false;
    seen.add(observation.accountId);
    return true;
  });
}
