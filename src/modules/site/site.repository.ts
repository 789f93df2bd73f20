// Small reads for the public pages only: how fresh the directory is, and an agent's overview.
// Anonymous pages are cached per directory version (http/middleware/response-cache.ts), so these
// run once per render of a new version, not per request; each is one indexed query.
import type { PrismaClient } from '../../db/client.js';
import { CAPABILITY_STATUSES, type CapabilityStatus } from '../aggregation/constants.js';
import { IS_PUBLIC_REPORT, PUBLIC_REPORTS } from '../aggregation/public-evidence.js';

/**
 * The report date of the newest approved report on a public merchant (null when there is none):
 * merchants keep it denormalised (`last_reported_at`, index `(is_public, last_reported_at)`), so
 * this reads one index entry.
 */
export async function newestApprovedReportAt(prisma: PrismaClient): Promise<Date | null> {
  const rows = await prisma.$queryRaw<Array<{ at: Date | null }>>`
    SELECT max(last_reported_at) AS at FROM merchants WHERE is_public`;
  return rows[0]?.at ?? null;
}

export interface AgentOverview {
  /** Approved reports about public merchants made in the window. */
  recentReports: number;
  windowDays: number;
  /** Public merchants with evidence for this agent, by the agent's status there (every status, zero included). */
  statusCounts: Array<{ status: CapabilityStatus; count: number }>;
  merchants: number;
}

/** Reports of the last `windowDays` and the agent's status on each merchant with evidence. */
export async function agentOverview(prisma: PrismaClient, agentId: string, now: Date, windowDays: number): Promise<AgentOverview> {
  const since = new Date(now.getTime() - windowDays * 86_400_000);
  const [reports, statuses] = await Promise.all([
    prisma.$queryRaw<Array<{ n: number }>>`
      SELECT count(*)::int AS n FROM ${PUBLIC_REPORTS}
       WHERE ${IS_PUBLIC_REPORT} AND r.agent_id = ${agentId}::uuid AND r.created_at > ${since} AND r.created_at <= ${now}`,
    prisma.$queryRaw<Array<{ status: string; n: number }>>`
      SELECT s.summary->>'status' AS status, count(*)::int AS n
        FROM merchant_agent_summaries s JOIN merchants m ON m.id = s.merchant_id AND m.is_public
       WHERE s.agent_id = ${agentId}::uuid
       GROUP BY 1`,
  ]);
  const byStatus = new Map(statuses.map((row) => [row.status, row.n]));
  const statusCounts = CAPABILITY_STATUSES.map((status) => ({ status, count: byStatus.get(status) ?? 0 }));
  return {
    recentReports: reports[0]?.n ?? 0,
    windowDays,
    statusCounts,
    merchants: statusCounts.reduce((sum, s) => sum + s.count, 0),
  };
}
