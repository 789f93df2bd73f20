// Which public statuses a recomputation changed: per task and overall, between two statuses
// that both rest on observations (a first observation of a task is a new report, not a change;
// "untested" is never a side of a change). Recorded in the recomputation's transaction; the
// open-data feeds list them (modules/open-data).
import type { CapabilityStatus, TaskKey } from './constants.js';
import { TASKS } from './constants.js';

export interface StatusSnapshot {
  status: CapabilityStatus;
  capabilities?: Partial<Record<TaskKey, { status: CapabilityStatus }>>;
}

export interface StatusChange {
  merchantId: string;
  agentId: string;
  /** A task key, or null for the agent's overall status on the merchant. */
  task: TaskKey | null;
  fromStatus: CapabilityStatus;
  toStatus: CapabilityStatus;
}

const counts = (status: CapabilityStatus | undefined): status is CapabilityStatus => status !== undefined && status !== 'untested';

export function statusChanges(pair: { merchantId: string; agentId: string }, before: StatusSnapshot, after: StatusSnapshot): StatusChange[] {
  const changes: StatusChange[] = [];
  const compare = (task: TaskKey | null, from: CapabilityStatus | undefined, to: CapabilityStatus | undefined) => {
    if (counts(from) && counts(to) && from !== to) changes.push({ ...pair, task, fromStatus: from, toStatus: to });
  };
  compare(null, before.status, after.status);
  for (const task of TASKS) compare(task, before.capabilities?.[task]?.status, after.capabilities?.[task]?.status);
  return changes;
}
