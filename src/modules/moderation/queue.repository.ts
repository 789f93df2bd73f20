// Reports as moderators see them: every status, private fields included. Never used by a
// public route. Screenshot storage paths are never read here (evidence/screenshots.repository.ts).
import type { Prisma, PrismaClient } from '../../db/client.js';
import type { ReportStatus } from '../../generated/prisma/enums.js';
import { escapeLike } from '../../db/like.js';

export const QUEUE_PAGE_SIZE = 50;

export interface QueueFilter {
  status: ReportStatus;
  /** Agent slug (active or not). */
  agent?: string;
  /** Part of the merchant's name, slug or website. */
  merchant?: string;
  /** Canonical category slug. */
  category?: string;
  /** Waiting (submitted) at least this many days ago. */
  minAgeDays?: number;
  /** Submitted at most this many days ago. */
  maxAgeDays?: number;
  page: number;
  now: Date;
}

const DAY_MS = 24 * 60 * 60 * 1000;

function queueWhere(f: QueueFilter): Prisma.ReportWhereInput {
  const where: Prisma.ReportWhereInput = { status: f.status };
  if (f.agent) where.agent = { slug: f.agent };
  const merchant: Prisma.MerchantWhereInput[] = [];
  if (f.merchant) {
    merchant.push({
      OR: [
        { name: { contains: escapeLike(f.merchant), mode: 'insensitive' } },
        { slug: { contains: escapeLike(f.merchant), mode: 'insensitive' } },
        { website: { contains: escapeLike(f.merchant), mode: 'insensitive' } },
      ],
    });
  }
  if (f.category) merchant.push({ categoryRef: { slug: f.category } });
  if (merchant.length) where.merchant = { AND: merchant };
  const createdAt: Prisma.DateTimeFilter = {};
  if (f.minAgeDays !== undefined) createdAt.lte = new Date(f.now.getTime() - f.minAgeDays * DAY_MS);
  if (f.maxAgeDays !== undefined) createdAt.gte = new Date(f.now.getTime() - f.maxAgeDays * DAY_MS);
  if (Object.keys(createdAt).length) where.createdAt = createdAt;
  return where;
}

// Pending reports oldest first (the queue); decided ones by their latest decision.
const queueOrder = (status: ReportStatus): Prisma.ReportOrderByWithRelationInput[] =>
  status === 'PENDING'
    ? [{ createdAt: 'asc' }, { id: 'asc' }]
    : [{ moderatedAt: { sort: 'desc', nulls: 'last' } }, { createdAt: 'desc' }, { id: 'asc' }];

export async function queuePage(prisma: PrismaClient, f: QueueFilter) {
  const where = queueWhere(f);
  const [total, rows] = await Promise.all([
    prisma.report.count({ where }),
    prisma.report.findMany({
      where,
      orderBy: queueOrder(f.status),
      skip: (f.page - 1) * QUEUE_PAGE_SIZE,
      take: QUEUE_PAGE_SIZE,
      select: {
        id: true,
        status: true,
        channel: true,
        outcome: true,
        stage: true,
        experience: true,
        createdAt: true,
        updatedAt: true,
        moderatedAt: true,
        merchant: { select: { id: true, name: true, slug: true, isPublic: true, categoryRef: { select: { name: true } } } },
        agent: { select: { name: true, slug: true, active: true } },
        account: { select: { id: true, email: true } },
        _count: { select: { evidence: true, revisions: true } },
      },
    }),
  ]);
  return { total, rows };
}

/** How many reports are in each status, and pending ones per agent. */
export async function queueCounts(prisma: PrismaClient) {
  const [byStatus, pendingByAgent] = await Promise.all([
    prisma.report.groupBy({ by: ['status'], _count: { _all: true } }),
    prisma.report.groupBy({ by: ['agentId'], where: { status: 'PENDING' }, _count: { _all: true } }),
  ]);
  const status: Record<ReportStatus, number> = { PENDING: 0, APPROVED: 0, REJECTED: 0 };
  for (const row of byStatus) status[row.status] = row._count._all;
  return { status, pendingByAgent: new Map(pendingByAgent.map((r) => [r.agentId, r._count._all])) };
}

export async function oldestPending(prisma: PrismaClient): Promise<Date | null> {
  const row = await prisma.report.findFirst({ where: { status: 'PENDING' }, orderBy: { createdAt: 'asc' }, select: { createdAt: true } });
  return row?.createdAt ?? null;
}

export async function filterChoices(prisma: PrismaClient) {
  const [agents, categories] = await Promise.all([
    prisma.agent.findMany({ select: { id: true, slug: true, name: true, active: true }, orderBy: [{ name: 'asc' }, { id: 'asc' }] }),
    prisma.category.findMany({ select: { id: true, slug: true, name: true }, orderBy: [{ name: 'asc' }, { id: 'asc' }] }),
  ]);
  return { agents, categories };
}

/** Everything about one report for its moderator page; screenshots without their paths. */
export async function reportDetail(prisma: PrismaClient, id: string) {
  return prisma.report.findUnique({
    where: { id },
    include: {
      merchant: {
        select: { id: true, name: true, slug: true, website: true, isPublic: true, categoryRef: { select: { name: true, slug: true } } },
      },
      agent: { select: { id: true, name: true, slug: true, vendor: true, active: true } },
      account: { select: { id: true, email: true, role: true, suspended: true, _count: { select: { reports: true } } } },
      moderatedBy: { select: { email: true } },
      evidence: { select: { id: true, mediaType: true, sizeBytes: true, sha256: true, createdAt: true }, orderBy: { createdAt: 'asc' } },
      revisions: { select: { id: true, content: true, status: true, createdAt: true }, orderBy: { createdAt: 'desc' } },
      auditLog: {
        select: { id: true, action: true, fromStatus: true, toStatus: true, reason: true, details: true, createdAt: true, actor: { select: { email: true } } },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      },
    },
  });
}

export type ReportDetail = NonNullable<Awaited<ReturnType<typeof reportDetail>>>;

/** The oldest pending report other than `exceptId`: where a moderator goes next. */
export async function nextPendingReport(prisma: PrismaClient, exceptId: string): Promise<string | null> {
  const next = await prisma.report.findFirst({
    where: { status: 'PENDING', id: { not: exceptId } },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    select: { id: true },
  });
  return next?.id ?? null;
}
