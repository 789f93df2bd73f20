// Approved reports as the public sees them: public merchants, active agents, public columns only.
import { Prisma } from '../../generated/prisma/client.js';
import type { PrismaClient } from '../../db/client.js';
import { uncachedCounter, uncachedQuery, type CachedQuery, type Counter } from '../directory/counts.js';
import type { FailureReasonKey, OutcomeKey, StageKey, TaskKey } from '../aggregation/constants.js';
import { IS_PUBLIC_REPORT, LISTED_SETS, listedReport, PAIR_NAMES, PUBLIC_REPORTS, SELF_REPORTED_BY, type ListedSets, type PairNames } from '../aggregation/public-evidence.js';
import { countMerchantReports, publicReportWeeks, type WeekCount } from '../aggregation/summaries.repository.js';
import { FEED_WEEK_MS } from '../aggregation/feed-weeks.js';

export interface PublicReportRow extends PairNames {
  id: string;
  outcome: OutcomeKey;
  capabilityResults: Partial<Record<TaskKey, OutcomeKey>>;
  stage: StageKey | null;
  failureReason: FailureReasonKey | null;
  humanIntervention: boolean | null;
  testedAt: Date | null;
  agentVersion: string | null;
  region: string | null;
  task: string | null;
  experience: string | null;
  createdAt: Date;
  /** Written by a verified owner of the merchant or vendor of the agent (issue 37); null when independent. */
  selfReportedBy: 'owner' | 'vendor' | null;
  /** The owners' and vendors' approved replies under it, oldest first (modules/claims). */
  replies: Array<{ side: 'MERCHANT' | 'AGENT'; body: string; at: string }>;
}

export interface PublicReportFilter {
  agentId?: string;
  merchantId?: string;
  outcome?: OutcomeKey;
  /** only: independent reports alone (the default); all: self-reported ones too. */
  independent?: 'only' | 'all';
  offset: number;
  limit: number;
}

const publicColumns = Prisma.sql`
  r.id, ${PAIR_NAMES},
  r.outcome::text AS outcome, r.capability_results AS "capabilityResults", r.stage::text AS stage,
  r.failure_reason::text AS "failureReason", r.human_intervention AS "humanIntervention",
  r.tested_at AS "testedAt", r.agent_version AS "agentVersion", r.region, r.task, r.experience,
  r.created_at AS "createdAt", ${SELF_REPORTED_BY} AS "selfReportedBy",
  COALESCE((SELECT json_agg(json_build_object('side', rr.side, 'body', rr.body, 'at', COALESCE(rr.moderated_at, rr.created_at)) ORDER BY rr.created_at, rr.id)
              FROM report_replies rr WHERE rr.report_id = r.id AND rr.status = 'APPROVED'), '[]'::json) AS replies
  FROM ${PUBLIC_REPORTS}`;

/** The list's conditions on `r` alone (`listedReport`), so that a page walks an index of the feed. */
function conditions(f: PublicReportFilter, sets: ListedSets): Prisma.Sql {
  const list = [listedReport(f.independent === 'all', sets)];
  if (f.agentId) list.push(Prisma.sql`r.agent_id = ${f.agentId}::uuid`);
  if (f.merchantId) list.push(Prisma.sql`r.merchant_id = ${f.merchantId}::uuid`);
  if (f.outcome) list.push(Prisma.sql`r.outcome = ${f.outcome}::"Outcome"`);
  return Prisma.join(list, ' AND ');
}

/** How many match, per week (newest first) when the list is not one merchant's. */
async function counted(f: PublicReportFilter, count: Counter, query: CachedQuery): Promise<{ total: number; weeks: WeekCount[] | null }> {
  if (f.merchantId) return { total: await countMerchantReports(count, f.merchantId, f), weeks: null };
  const weeks = await publicReportWeeks(query, f);
  return { total: weeks.reduce((sum, w) => sum + w.n, 0), weeks };
}

/** The week, of `weeks` in the walk's order, holding the match `skip` of the walk, and how many come before it. */
function startingWeek(weeks: readonly WeekCount[], skip: number): { week: number; before: number } | null {
  let before = 0;
  for (const w of weeks) {
    if (before + w.n > skip) return { week: w.week, before };
    before += w.n;
  }
  return null;
}

/**
 * A page of the list, newest first, and how many match. The page's reports are found on
 * an index of the feed (reports by status, by agent or by outcome, newest first, covering the
 * columns the conditions read: the planner takes the one the filter leads with), and only those
 * are joined for their columns. The counts come first (from the count cache): a page in the
 * older half walks from the oldest end, and, without a merchant, the counts per week say in
 * which week the page starts, so the walk starts at that week's edge and skips at most a week's
 * matches instead of every match before the page (up to 240,000 at page 10,000: 114-145 ms at
 * 2,000,000 reports). A merchant's list walks that merchant's reports alone.
 */
export async function listPublicReports(
  prisma: PrismaClient,
  f: PublicReportFilter,
  count: Counter = uncachedCounter(prisma),
  query: CachedQuery = uncachedQuery(prisma),
) {
  const [{ total, weeks }, [sets]] = await Promise.all([counted(f, count, query), query<ListedSets>(LISTED_SETS)]);
  const left = total - f.offset;
  if (left <= 0) return { total, rows: [] };
  const fromEnd = f.offset > left;
  // How many matches the walk skips from its end, and the week it may start at.
  let skip = fromEnd ? Math.max(0, left - f.limit) : f.offset;
  let from = Prisma.empty;
  const start = weeks && startingWeek(fromEnd ? [...weeks].reverse() : weeks, skip);
  if (start) {
    skip -= start.before;
    from = fromEnd
      ? Prisma.sql`AND r.created_at >= ${new Date(start.week * FEED_WEEK_MS)}::timestamptz`
      : Prisma.sql`AND r.created_at < ${new Date((start.week + 1) * FEED_WEEK_MS)}::timestamptz`;
  }
  const walk = fromEnd
    ? Prisma.sql`ORDER BY r.created_at, r.id OFFSET ${skip} LIMIT ${Math.min(f.limit, left)}`
    : Prisma.sql`ORDER BY r.created_at DESC, r.id DESC OFFSET ${skip} LIMIT ${f.limit}`;
  const rows = await prisma.$queryRaw<PublicReportRow[]>`
    SELECT ${publicColumns}
     WHERE r.id IN (SELECT r.id FROM reports r WHERE ${conditions(f, sets!)} ${from} ${walk})
     ORDER BY r.created_at DESC, r.id DESC`;
  return { total, rows };
}

export async function findPublicReport(prisma: PrismaClient, id: string): Promise<PublicReportRow | null> {
  const rows = await prisma.$queryRaw<PublicReportRow[]>`
    SELECT ${publicColumns} WHERE ${IS_PUBLIC_REPORT} AND r.id = ${id}::uuid`;
  return rows[0] ?? null;
}

export async function publicMerchantExists(prisma: PrismaClient, id: string): Promise<boolean> {
  return (await prisma.merchant.count({ where: { id, isPublic: true } })) > 0;
}

/** Public reports after `afterId` in id order (the bulk export walks them with this). */
export async function publicReportPage(prisma: PrismaClient, afterId: string | null, limit: number): Promise<PublicReportRow[]> {
  return prisma.$queryRaw<PublicReportRow[]>`
    SELECT ${publicColumns} WHERE ${IS_PUBLIC_REPORT} ${afterId ? Prisma.sql`AND r.id > ${afterId}::uuid` : Prisma.empty}
     ORDER BY r.id LIMIT ${limit}`;
}

/** The newest approvals (by the moderator's decision), optionally of one merchant, agent or category. */
export async function latestApprovedReports(
  prisma: PrismaClient,
  scope: { merchantId?: string; agentId?: string; categoryId?: string },
  limit: number,
): Promise<Array<PublicReportRow & { approvedAt: Date }>> {
  const list = [IS_PUBLIC_REPORT, Prisma.sql`r.moderated_at IS NOT NULL`];
  if (scope.merchantId) list.push(Prisma.sql`r.merchant_id = ${scope.merchantId}::uuid`);
  if (scope.agentId) list.push(Prisma.sql`r.agent_id = ${scope.agentId}::uuid`);
  if (scope.categoryId) list.push(Prisma.sql`m.category_id = ${scope.categoryId}::uuid`);
  return prisma.$queryRaw<Array<PublicReportRow & { approvedAt: Date }>>`
    SELECT r.moderated_at AS "approvedAt", ${publicColumns} WHERE ${Prisma.join(list, ' AND ')}
     ORDER BY r.moderated_at DESC, r.id DESC LIMIT ${limit}`;
}
