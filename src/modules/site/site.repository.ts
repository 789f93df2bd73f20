// Small reads for the public pages only: how fresh the directory is, an agent's overview and its
// categories, a category's agents, and the verdicts of a category page's table.
// Anonymous pages are cached per directory version (web/middleware/response-cache.ts), so these
// run once per render of a new version, not per request; each is one indexed query.
import type { PrismaClient } from '../../db/client.js';
import { FUNNEL_TASKS, TASKS, type FunnelTaskKey, type TaskKey } from '../aggregation/constants.js';
import { Prisma } from '../../generated/prisma/client.js';
import { IS_PUBLIC_REPORT, ofPublicMerchant } from '../aggregation/public-evidence.js';
import { statusMask } from '../aggregation/status-bits.js';
import { reachLevelOf } from '../aggregation/reach.js';
import { summaryVerdict, type StoredForVerdict, type Verdict } from '../aggregation/verdict.js';
import { REGRESSION_TOKENS } from '../aggregation/agent-versions.js';
import { summariesFor } from '../merchants/merchants.repository.js';

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
  /** Public merchants with reports about this agent (what its own list shows unfiltered). */
  merchants: number;
  /**
   * For each ladder step, the merchants where the agent gets at least that far (its reach is
   * that step or a later one): exactly what `reaches=<step>` lists.
   */
  reachCounts: Array<{ task: FunnelTaskKey; count: number }>;
  /**
   * For each task, the merchants where the agent's status on it is blocked or unsupported:
   * exactly what `task=<task>&taskStatus=blocked,unsupported` lists. Tasks with none are left out.
   */
  stuckCounts: Array<{ task: TaskKey; count: number }>;
  /** Merchants where no ladder step is confirmed (reach level 0). */
  noStep: number;
}

/** The statuses at which an agent is stuck on a task, as `taskStatus` names them. */
export const STUCK_STATUSES = ['blocked', 'unsupported'] as const;

/**
 * Reports of the last `windowDays`, and how far the agent gets on the merchants with reports
 * about it, read from the summary rows' stored reach level and status tokens (the columns the
 * directory's reach filters use, so each count is the length of the list it links to).
 */
export async function agentOverview(prisma: PrismaClient, agentId: string, now: Date, windowDays: number): Promise<AgentOverview> {
  const since = new Date(now.getTime() - windowDays * 86_400_000);
  // One pass over the agent's covering reach index gives the levels and, from the status bits,
  // the stuck counts per task (the bits and the tokens are written from the same statuses).
  const stuck = TASKS.map((task) => ({ task, mask: statusMask(task, STUCK_STATUSES) }));
  const [reports, levels] = await Promise.all([
    prisma.$queryRaw<Array<{ n: number }>>`
      SELECT count(*)::int AS n FROM reports r
       WHERE ${IS_PUBLIC_REPORT} AND r.agent_id = ${agentId}::uuid AND ${ofPublicMerchant('r')}
         AND r.created_at > ${since} AND r.created_at <= ${now}`,
    prisma.$queryRaw<Array<{ level: number; n: number; stuck: number[] }>>`
      SELECT s.reach_level::int AS level, count(*)::int AS n,
             ARRAY[${Prisma.join(stuck.map(({ mask }) => Prisma.sql`(count(*) FILTER (WHERE s.status_bits & ${mask}::bigint <> 0))::int`))}] AS stuck
        FROM merchant_agent_summaries s
       WHERE s.agent_id = ${agentId}::uuid AND s.report_count > 0 AND ${ofPublicMerchant('s')}
       GROUP BY 1`,
  ]);
  const atLeast = (level: number) => levels.filter((row) => row.level >= level).reduce((sum, row) => sum + row.n, 0);
  const stuckCounts = stuck
    .map(({ task }, i) => ({ task, count: levels.reduce((sum, row) => sum + row.stuck[i]!, 0) }))
    .filter((row) => row.count > 0);
  return {
    recentReports: reports[0]?.n ?? 0,
    windowDays,
    merchants: atLeast(0),
    reachCounts: FUNNEL_TASKS.map((task) => ({ task, count: atLeast(reachLevelOf(task)) })),
    stuckCounts,
    noStep: levels.filter((row) => row.level === 0).reduce((sum, row) => sum + row.n, 0),
  };
}

/**
 * Every active agent's verdict on these merchants (those with reports about it), for the
 * category page's merchants × agents table: the stored summaries through the one verdict every
 * surface uses, keyed by merchant id, then agent id.
 */
export async function verdictsOn(prisma: PrismaClient, merchantIds: readonly string[]): Promise<Map<string, Map<string, Verdict>>> {
  const table = new Map<string, Map<string, Verdict>>();
  for (const row of await summariesFor(prisma, merchantIds)) {
    if (!table.has(row.merchantId)) table.set(row.merchantId, new Map());
    table.get(row.merchantId)!.set(row.agentId, summaryVerdict(row.summary as StoredForVerdict));
  }
  return table;
}

/** How far one agent gets across a set of merchants: the counts each list filter gives. */
export interface ReachTally {
  /** Merchants with approved reports about the agent. */
  tested: number;
  /** Those where it gets at least as far as checkout (reaches=CHECKOUT), and as a purchase (reaches=PURCHASE). */
  checkout: number;
  purchase: number;
}

/** The ladder levels the tallies count from (reaches=CHECKOUT and reaches=PURCHASE). */
const CHECKOUT_LEVEL = reachLevelOf('CHECKOUT');
const PURCHASE_LEVEL = reachLevelOf('PURCHASE');

/**
 * For a category page: each active agent's tally over the category's public merchants,
 * sponsored ones included (they count in the category), from the stored reach levels that
 * reaches= filters on, so each count is the total of the list it links to.
 */
export async function categoryTallies(prisma: PrismaClient, categoryId: string): Promise<Map<string, ReachTally>> {
  const rows = await prisma.$queryRaw<Array<{ agentId: string; tested: number; checkout: number; purchase: number }>>`
    SELECT s.agent_id AS "agentId", count(*)::int AS tested,
           (count(*) FILTER (WHERE s.reach_level >= ${CHECKOUT_LEVEL}))::int AS checkout,
           (count(*) FILTER (WHERE s.reach_level >= ${PURCHASE_LEVEL}))::int AS purchase
      FROM merchant_agent_summaries s
      JOIN merchants m ON m.id = s.merchant_id AND m.is_public AND m.category_id = ${categoryId}::uuid
     WHERE s.report_count > 0
     GROUP BY s.agent_id`;
  return new Map(rows.map(({ agentId, ...tally }) => [agentId, tally]));
}

/** For an agent's page: its tally in each category with reports about it, by category slug. */
export async function agentCategoryTallies(prisma: PrismaClient, agentId: string): Promise<Map<string, ReachTally>> {
  const rows = await prisma.$queryRaw<Array<{ categorySlug: string; tested: number; checkout: number; purchase: number }>>`
    SELECT c.slug AS "categorySlug", count(*)::int AS tested,
           (count(*) FILTER (WHERE s.reach_level >= ${CHECKOUT_LEVEL}))::int AS checkout,
           (count(*) FILTER (WHERE s.reach_level >= ${PURCHASE_LEVEL}))::int AS purchase
      FROM merchant_agent_summaries s
      JOIN merchants m ON m.id = s.merchant_id AND m.is_public
      JOIN categories c ON c.id = m.category_id
     WHERE s.agent_id = ${agentId}::uuid AND s.report_count > 0
     GROUP BY c.slug`;
  return new Map(rows.map(({ categorySlug, ...tally }) => [categorySlug, tally]));
}

/** A shop where a newer version of the agent fails a task an older one passed (issue 37). */
export interface AgentRegressionRow {
  merchantSlug: string;
  merchantName: string;
  regressions: Array<{ task: TaskKey; workedUpTo: string; failsSince: string; newest: string }>;
}

/**
 * The public shops where the agent has a regression now, by name (at most `limit`): found
 * through the summaries' "REGRESSION:<TASK>" status tokens (GIN), then read from their JSON.
 */
export async function agentRegressions(prisma: PrismaClient, agentId: string, limit = 50): Promise<AgentRegressionRow[]> {
  // The shops with a regression first (GIN; a few in a hundred), then their names: walking the
  // merchants by name and probing each one's summary took 0.35 s at 100,000 merchants. Only the
  // page's shops have their summary's regressions read.
  const rows = await prisma.$queryRaw<Array<{ merchantSlug: string; merchantName: string; regressions: string }>>`
    WITH regressed AS MATERIALIZED (
      SELECT s.merchant_id FROM merchant_agent_summaries s
       WHERE s.agent_id = ${agentId}::uuid AND s.status_tokens && ${REGRESSION_TOKENS}::text[])
    SELECT p.slug AS "merchantSlug", p.name AS "merchantName",
           (SELECT (s.summary -> 'versions' -> 'regressions')::text FROM merchant_agent_summaries s
             WHERE s.merchant_id = p.id AND s.agent_id = ${agentId}::uuid) AS regressions
      FROM (SELECT m.id, m.slug, m.name FROM regressed g JOIN merchants m ON m.id = g.merchant_id AND m.is_public
             ORDER BY m.name, m.id LIMIT ${limit}) p
     ORDER BY p.name, p.id`;
  return rows.map((r) => ({ merchantSlug: r.merchantSlug, merchantName: r.merchantName, regressions: JSON.parse(r.regressions) as AgentRegressionRow['regressions'] }));
}
