// The private automation reads (the queue, the account's reports for one agent).
import { Prisma } from '../../generated/prisma/client.js';
import type { PrismaClient } from '../../db/client.js';
import { ownSelect, toOwnReport, type OwnReportRow } from '../reports/submissions.repository.js';

export interface QueueRow {
  id: string;
  slug: string;
  name: string;
  website: string;
  categoryName: string | null;
  categorySlug: string | null;
  reportId: string | null;
  reportStatus: 'PENDING' | 'APPROVED' | 'REJECTED' | null;
  reportUpdatedAt: Date | null;
}

/**
 * Approved canonical public merchants after `afterId` (id order) that this account has not
 * reported for this agent, or (with retestBefore) reported last before that moment; with
 * retestOnly, only the latter.
 * A NOT EXISTS anti-join probing the (account, agent, merchant) unique index while walking
 * merchants in id order, so a page stops after `limit` hits; nothing is loaded in bulk.
 * Conditions are only added when used: generic "$1 IS NULL OR …" predicates hide the
 * anti-join from the planner.
 */
/** Which merchants a queue pass lists (whatever the page): public, canonical, the filters. */
interface QueueFilters {
  accountId: string;
  agentId: string;
  categoryId: string | null;
  retestBefore: Date | null;
  /** Only merchants reported before retestBefore (the retest-only queue); needs retestBefore. */
  retestOnly?: boolean;
}

function queueConditions(q: QueueFilters): Prisma.Sql[] {
  const conditions = [Prisma.sql`m.approved_canonical`, Prisma.sql`m.is_public`];
  if (q.categoryId) conditions.push(Prisma.sql`m.category_id = ${q.categoryId}::uuid`);
  if (q.retestOnly && q.retestBefore) {
    // Due for a retest: this account's report of it for this agent was last changed before then.
    conditions.push(Prisma.sql`EXISTS (
      SELECT 1 FROM reports x
       WHERE x.account_id = ${q.accountId}::uuid AND x.agent_id = ${q.agentId}::uuid AND x.merchant_id = m.id
         AND x.updated_at < ${q.retestBefore}::timestamptz)`);
  } else {
    const recent = q.retestBefore ? Prisma.sql`AND x.updated_at >= ${q.retestBefore}::timestamptz` : Prisma.empty;
    conditions.push(Prisma.sql`NOT EXISTS (
      SELECT 1 FROM reports x
       WHERE x.account_id = ${q.accountId}::uuid AND x.agent_id = ${q.agentId}::uuid AND x.merchant_id = m.id ${recent})`);
  }
  return conditions;
}

export async function queuePage(prisma: PrismaClient, q: QueueFilters & { afterId: string | null; limit: number }): Promise<QueueRow[]> {
  const conditions = queueConditions(q);
  if (q.afterId) conditions.push(Prisma.sql`m.id > ${q.afterId}::uuid`);
  return prisma.$queryRaw<QueueRow[]>`
    SELECT m.id, m.slug, m.name, m.website, c.name AS "categoryName", c.slug AS "categorySlug",
           r.id AS "reportId", r.status::text AS "reportStatus", r.updated_at AS "reportUpdatedAt"
      FROM (SELECT m.* FROM merchants m WHERE ${Prisma.join(conditions, ' AND ')} ORDER BY m.id LIMIT ${q.limit}) m
      LEFT JOIN categories c ON c.id = m.category_id
      LEFT JOIN reports r
        ON r.account_id = ${q.accountId}::uuid AND r.agent_id = ${q.agentId}::uuid AND r.merchant_id = m.id
     ORDER BY m.id`;
}

/** How many merchants the pass's filters match now, and how many of them come after `afterId` (null: none listed yet). */
export async function queueCounts(prisma: PrismaClient, q: QueueFilters & { afterId: string | null }): Promise<{ total: number; remaining: number }> {
  const after = q.afterId ? Prisma.sql`m.id > ${q.afterId}::uuid` : Prisma.sql`true`;
  const [row] = await prisma.$queryRaw<{ total: number; remaining: number }[]>`
    SELECT count(*)::int AS total, count(*) FILTER (WHERE ${after})::int AS remaining
      FROM merchants m WHERE ${Prisma.join(queueConditions(q), ' AND ')}`;
  return row ?? { total: 0, remaining: 0 };
}

export async function canonicalCategoryId(prisma: PrismaClient, slug: string): Promise<string | null> {
  return (await prisma.category.findUnique({ where: { slug }, select: { id: true } }))?.id ?? null;
}

const listSelect = {
  ...ownSelect,
  createdAt: true,
  moderationFeedback: true,
  merchant: { select: { id: true, slug: true, name: true, categoryRef: { select: { name: true, slug: true } } } },
  _count: { select: { evidence: true } },
} as const;

export type OwnListedReport = OwnReportRow & {
  createdAt: Date;
  moderationFeedback: string | null;
  merchant: { id: string; slug: string; name: string; category: { name: string; slug: string } | null };
  screenshotCount: number;
};

const toListed = (r: Prisma.ReportGetPayload<{ select: typeof listSelect }>): OwnListedReport => ({
  ...toOwnReport(r),
  createdAt: r.createdAt,
  moderationFeedback: r.moderationFeedback,
  merchant: { id: r.merchant.id, slug: r.merchant.slug, name: r.merchant.name, category: r.merchant.categoryRef },
  screenshotCount: r._count.evidence,
});

/** The account's reports for one agent, newest first (ids are time-ordered), after `beforeId`. */
export async function ownReportsPage(
  prisma: PrismaClient,
  q: { accountId: string; agentId: string; beforeId: string | null; merchantId: string | null; limit: number },
): Promise<OwnListedReport[]> {
  const rows = await prisma.report.findMany({
    where: {
      accountId: q.accountId,
      agentId: q.agentId,
      ...(q.merchantId ? { merchantId: q.merchantId } : {}),
      ...(q.beforeId ? { id: { lt: q.beforeId } } : {}),
    },
    orderBy: { id: 'desc' },
    take: q.limit,
    select: listSelect,
  });
  return rows.map(toListed);
}

export async function ownReport(prisma: PrismaClient, q: { accountId: string; agentId: string; id: string }) {
  const row = await prisma.report.findFirst({ where: { id: q.id, accountId: q.accountId, agentId: q.agentId }, select: listSelect });
  return row ? toListed(row) : null;
}
