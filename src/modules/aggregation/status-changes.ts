// Which public statuses a recomputation changed: per task and overall, between two statuses
// that both rest on observations (a first observation of a task is a new report, not a change;
// "untested" is never a side of a change). Recorded in the recomputation's transaction; the
// open-data feeds list them (modules/open-data).
import type { CapabilityStatus, TaskKey } from './constants.js';
import { TASKS } from './constants.js';

export interface StatusSnapshot {
  status: CapabilityStatus;
  capabilities?: Partial<Record<TaskKey, { status: CapabilityStatus }>>;
  versions?: { regressions?: Array<{ task: TaskKey; workedUpTo: string; failsSince: string }> };
}

export interface StatusChange {
  merchantId: string;
  agentId: string;
  /** A task key, or null for the agent's overall status on the merchant. */
  task: TaskKey | null;
  /** "status" (default), or "regression": from the version that worked to the one since which it fails. */
  kind?: 'status' | 'regression';
  fromStatus: string;
  toStatus: string;
}

const counts = (status: CapabilityStatus | undefined): status is CapabilityStatus => status !== undefined && status !== 'untested';

export function statusChanges(pair: { merchantId: string; agentId: string }, before: StatusSnapshot, after: StatusSnapshot): StatusChange[] {
  const changes: StatusChange[] = [];
  const compare = (task: TaskKey | null, from: CapabilityStatus | undefined, to: CapabilityStatus | undefined) => {
    if (counts(from) && counts(to) && from !== to) changes.push({ ...pair, task, fromStatus: from, toStatus: to });
  };
  compare(null, before.status, after.status);
  for (const task of TASKS) compare(task, before.capabilities?.[task]?.status, after.capabilities?.[task]?.status);
  // A regression is news when it is new: a task that had none, or one failing since another version.
  const known = new Set((before.versions?.regressions ?? []).map((r) => `${r.task}:${r.failsSince}`));
  for (const r of after.versions?.regressions ?? []) {
    if (!known.has(`${r.task}:${r.failsSince}`)) changes.push({ ...pair, task: r.task, kind: 'regression', fromStatus: r.workedUpTo, toStatus: r.failsSince });
  }
  return changes;
}
