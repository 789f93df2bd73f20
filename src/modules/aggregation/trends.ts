// Trends: is a merchant getting better or worse for an agent? For each agent with approved
// reports on a merchant, the statuses computed by the same engine from the last TREND_DAYS
// days of reports only (next to the all-time statuses of the summary), and the overall
// outcomes per month for a sparkline. Computed when a merchant's profile is read (one query
// over that merchant's public reports).
import type { Db } from '../../db/client.js';
import { OUTCOMES, TASKS, type CapabilityStatus, type OutcomeKey, type TaskKey } from './constants.js';
import type { EvidenceReport } from './observations.js';
import { loadEvidence } from './summaries.repository.js';
import { summarize } from './summaries.service.js';

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
  const summary = summarize([...recent], now);
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

/** The trend of every given agent on one merchant (agents without public reports: none). */
export async function merchantTrends(db: Db, merchantId: string, agentIds: readonly string[], now: Date): Promise<Map<string, AgentTrend>> {
  const evidence = await loadEvidence(db, agentIds.map((agentId) => ({ merchantId, agentId })));
  const trends = new Map<string, AgentTrend>();
  for (const agentId of agentIds) {
    const reports = evidence.get(`${merchantId}:${agentId}`);
    if (reports?.length) trends.set(agentId, trendOf(reports, now));
  }
  return trends;
}
