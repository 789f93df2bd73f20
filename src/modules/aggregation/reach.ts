// How far an agent gets at a merchant by its task statuses (task-status.ts) and the reports'
// failure reasons, here and nowhere else: what the reach filters and sort=reach compare, and
// what the verdict (verdict.ts) builds its words and colour on. Pure, like the engine.
//
// The ladder is the shopping funnel in spec order without LOGIN: ACCESS → SEARCH → DETAILS →
// CART → CHECKOUT → PURCHASE. LOGIN stands beside it (many shops let a guest check out): its
// status is reported (`login`), and a login requirement is named when reports give it as the
// reason a step failed (AUTHENTICATION), but LOGIN's own status never caps the reach. Walking up the ladder:
//   - supported: the agent gets through this step; the reach moves up to it;
//   - partial: it gets through sometimes; the reach moves up, and the step is named as one
//     that only partly works (the reach is as far as the agent has been seen to get);
//   - unknown or untested: no verdict; the walk goes on (a completed purchase shows the
//     earlier steps were passed, and a shop is not worse for a step nobody tested);
//   - blocked or unsupported: the agent stops here; the reach is the last step before it.
import {
  CONFIDENCE_LEVELS,
  FAILURE_REASONS,
  FUNNEL_TASKS,
  type CapabilityStatus,
  type Confidence,
  type FailureReasonKey,
  type FunnelTaskKey,
  type TaskKey,
} from './constants.js';
import { compareNewestFirst, type EvidenceReport } from './observations.js';

/** Statuses at which an agent stops on the ladder. */
type StopStatus = 'blocked' | 'unsupported';

export interface Reach {
  /** The furthest ladder step the agent is known to get through; null when none. */
  task: FunnelTaskKey | null;
  /** That step's place on the ladder, 1 (ACCESS) to 6 (PURCHASE); 0 for none: for sorting and filters. */
  level: number;
  /** Where the agent stops (the first blocked or unsupported step), and the most reported reason. */
  stop: { task: FunnelTaskKey; status: StopStatus; reason: FailureReasonKey | null } | null;
  /** Steps at or below the reach that only partly work. */
  partial: FunnelTaskKey[];
  /** The next ladder step nobody has a verdict on yet, when the agent does not stop: what to test next. */
  untestedNext: FunnelTaskKey | null;
  /** Tasks (of all seven, LOGIN included) with at least one observation. */
  tested: number;
  /** How sure the reach is: the lowest confidence of the steps that set it and of the stop. */
  confidence: Confidence;
  /** LOGIN's status, beside the ladder. */
  login: CapabilityStatus;
}

export interface ReachInput {
  status: CapabilityStatus;
  confidence: Confidence;
}

const isStop = (status: CapabilityStatus): status is StopStatus => status === 'blocked' || status === 'unsupported';
const hasVerdict = (status: CapabilityStatus) => status !== 'unknown' && status !== 'untested';

const lowest = (levels: readonly Confidence[]): Confidence =>
  levels.length === 0
    ? 'low'
    : levels.reduce<Confidence>((low, level) => (CONFIDENCE_LEVELS.indexOf(level) < CONFIDENCE_LEVELS.indexOf(low) ? level : low), 'high');

/** The ladder's place of a step: 1 for ACCESS up to 6 for PURCHASE. */
export const reachLevelOf = (task: FunnelTaskKey | null): number => (task === null ? 0 : FUNNEL_TASKS.indexOf(task) + 1);

/**
 * The failure reason most reported by the reports that saw `task` fail (blocked, doesn't work or
 * partly works, explicitly), each account counted once (its newest report of the task, as the
 * task statuses count it), ties broken by the spec's order of reasons; null when none gave one.
 */
export function mostReportedReason(reports: readonly EvidenceReport[], task: TaskKey): FailureReasonKey | null {
  const counts = new Map<FailureReasonKey, number>();
  const seen = new Set<string>();
  for (const report of [...reports].sort(compareNewestFirst)) {
    const outcome = report.capabilityResults[task];
    if (outcome === undefined || seen.has(report.accountId)) continue;
    seen.add(report.accountId);
    const reason = report.failureReason;
    if (!reason || reason === 'NONE') continue;
    if (outcome !== 'BLOCKED' && outcome !== 'DOES_NOT_WORK' && outcome !== 'PARTIAL') continue;
    counts.set(reason, (counts.get(reason) ?? 0) + 1);
  }
  let best: FailureReasonKey | null = null;
  for (const reason of FAILURE_REASONS) {
    const n = counts.get(reason) ?? 0;
    if (n > 0 && (best === null || n > counts.get(best)!)) best = reason;
  }
  return best;
}

/** The reach of one agent at one merchant from its task statuses and approved reports. */
export function reachOf(capabilities: Readonly<Record<TaskKey, ReachInput>>, reports: readonly EvidenceReport[]): Reach {
  let task: FunnelTaskKey | null = null;
  let stop: Reach['stop'] = null;
  const partial: FunnelTaskKey[] = [];
  const setBy: Confidence[] = [];
  for (const step of FUNNEL_TASKS) {
    const { status, confidence } = capabilities[step];
    if (isStop(status)) {
      stop = { task: step, status, reason: mostReportedReason(reports, step) };
      setBy.push(confidence);
      break;
    }
    if (status === 'supported' || status === 'partial') {
      task = step;
      setBy.push(confidence);
      if (status === 'partial') partial.push(step);
    }
  }
  // Untested steps below the reach do not count against it; the next one above it does.
  const above = FUNNEL_TASKS.slice(reachLevelOf(task));
  const untestedNext = stop ? null : (above.find((step) => !hasVerdict(capabilities[step].status)) ?? null);
  const tested = Object.values(capabilities).filter((c) => c.status !== 'untested').length;
  return {
    task,
    level: reachLevelOf(task),
    stop,
    partial,
    untestedNext,
    tested,
    confidence: lowest(setBy),
    login: capabilities.LOGIN.status,
  };
}

/** A stored token naming one task's status ("CART:blocked"): what the task-status filter matches. */
export const statusToken = (task: TaskKey, status: CapabilityStatus): string => `${task}:${status}`;

/** The ladder's steps in words, as a sentence names them. */
export const REACH_STEP_WORDS: Readonly<Record<FunnelTaskKey, string>> = {
  ACCESS: 'website access',
  SEARCH: 'browsing',
  DETAILS: 'product details',
  CART: 'the cart',
  CHECKOUT: 'checkout',
  PURCHASE: 'purchase',
};

/** Why an agent stops, as "blocked by …" names it. */
export const STOP_REASON_WORDS: Readonly<Record<FailureReasonKey, string>> = {
  NONE: 'no reason given',
  EXPLICIT_BLOCK: 'an explicit block of agents',
  CAPTCHA: 'a CAPTCHA',
  INTERFACE: 'an interface it cannot use',
  AUTHENTICATION: 'a login requirement',
  PAYMENT: 'a payment issue',
  OTHER: 'another limitation',
};

/** "blocked by a CAPTCHA", "the shop blocks agents", "doesn't work (an interface it cannot use)". */
export function stopWords(stop: NonNullable<Reach['stop']>): string {
  if (stop.status === 'blocked' && stop.reason === 'EXPLICIT_BLOCK') return 'the shop blocks agents';
  const reason = stop.reason && stop.reason !== 'NONE' ? STOP_REASON_WORDS[stop.reason] : null;
  if (stop.status === 'blocked') return reason ? `blocked by ${reason}` : 'blocked';
  return reason ? `doesn't work (${reason})` : "doesn't work";
}
