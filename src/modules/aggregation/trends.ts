// Trends: is a merchant getting better or worse for an agent? For each agent with approved
// reports on a merchant, the statuses computed by the same engine from the last TREND_DAYS
// days of reports only (next to the all-time statuses of the summary), and the overall
// outcomes per month for a sparkline. Computed with the summary and stored beside it (the
// daily refresh moves the window), so reading a profile never reads the reports table.
import { OUTCOMES, TASKS, type CapabilityStatus, type OutcomeKey, type TaskKey } from './constants.js';
import { computeAgentSummary } from './engine.js';
import type { EvidenceReport } from './observations.js';

/** The window of a trend, in days. */
export const TREND_DAYS = 90;
/** Months in a sparkline, the current one included. */
export const TREND_MONTHS = 12;

export interface AgentTrend {
  windowDays: number;
  /** Reports of the window (by the date tested, or reported when no test date was given). */
  reportCount: number;
  status: CapabilityStatus;
  capabilities: Record<TaskKey, CapabilityStatus>;
  /** Oldest first: the overall outcomes of the reports of each month (UTC). */
  months: Array<{ month: string } & Record<OutcomeKey, number>>;
}

const DAY_MS = 86_400_000;
const when = (r: EvidenceReport) => r.testedAt ?? r.createdAt;
const monthOf = (d: Date) => d.toISOString().slice(0, 7);

function monthsBack(now: Date): string[] {
  const months: string[] = [];
  for (let i = TREND_MONTHS - 1; i >= 0; i -= 1) {
    months.push(monthOf(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - i, 1))));
  }
  return months;
}

export function trendOf(reports: readonly EvidenceReport[], now: Date): AgentTrend {
  const since = now.getTime() - TREND_DAYS * DAY_MS;
  const recent = reports.filter((r) => when(r).getTime() >= since);
  // Only the statuses are kept, so the evidence links' form does not matter.
  const summary = computeAgentSummary([...recent], { now, reportUrl: (id) => id });
  const counts = new Map(monthsBack(now).map((m) => [m, Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<OutcomeKey, number>]));
  for (const report of reports) {
    const month = counts.get(monthOf(when(report)));
    if (month) month[report.outcome] += 1;
  }
  return {
    windowDays: TREND_DAYS,
    reportCount: recent.length,
    status: summary.status,
    capabilities: Object.fromEntries(TASKS.map((t) => [t, summary.capabilities[t].status])) as Record<TaskKey, CapabilityStatus>,
    months: [...counts].map(([month, c]) => ({ month, ...c })),
  };
}
