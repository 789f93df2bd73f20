// Reports as moderators see them: every status, private fields included. Never used by a
// public route. Screenshot storage paths are never read here (evidence/screenshots.repository.ts).
import type { Prisma, PrismaClient } from '../../db/client.js';
import type { ReportStatus } from '../../generated/prisma/enums.js';
import { escapeLike } from '../../db/like.js';
import { AUTHOR_HANDLE_LENGTH } from './author-handle.js';
import { raised, signalWeight, SIGNAL_SCAN_LIMIT, type ReportSignals, type SignalKey } from './signals.js';
import { pendingSimilarTo, signalsOf } from './signals.repository.js';

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
  /** The author's handle (author-handle.ts): reports of the accounts with that handle. */
  author?: string;
  /**
   * Pending reports by submission, oldest first (the default) or newest first; decided ones by
   * their latest decision, newest first (the default) or oldest first.
   */
  sort?: QueueSort;
  /** Issue 37: only reports raising this signal (signals.ts). */
  signal?: SignalKey;
  /** Issue 37: the pending reports with text near-identical to this report's (a burst), and it. */
  similarTo?: string;
  page: number;
  now: Date;
}

/** oldest/newest by date; signals: most signals first (then the largest burst); account-age: newest accounts first. */
export const QUEUE_SORTS = ['oldest', 'newest', 'signals', 'account-age'] as const;
export type QueueSort = (typeof QUEUE_SORTS)[number];
/** The order a list has when none is chosen: the queue oldest first, decisions latest first. */
export const defaultSort = (status: ReportStatus): QueueSort => (status === 'PENDING' ? 'oldest' : 'newest');

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The accounts whose handle is `handle`: the same digest as authorHandle, computed by the
 * database over the accounts (no index: a moderator's filter, not a hot path).
 */
async function accountsWithHandle(prisma: PrismaClient, handle: string): Promise<string[]> {
  const rows = await prisma.$queryRaw<Array<{ id: string }>>`
    SELECT id::text AS id FROM accounts
     WHERE left(encode(sha256(convert_to(id::text, 'UTF8')), 'hex'), ${AUTHOR_HANDLE_LENGTH}) = ${handle}`;
  return rows.map((r) => r.id);
}

function queueWhere(f: QueueFilter, authors: string[] | null): Prisma.ReportWhereInput {
  const where: Prisma.ReportWhereInput = { status: f.status };
  if (authors) where.accountId = { in: authors };
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

// Pending reports by submission (the queue, oldest first unless asked); decided ones by their
// latest decision (latest first unless asked).
const queueOrder = (status: ReportStatus, sort: QueueSort): Prisma.ReportOrderByWithRelationInput[] => {
  const dir = sort === 'newest' ? 'desc' : sort === 'oldest' ? 'asc' : status === 'PENDING' ? 'asc' : 'desc';
  return status === 'PENDING'
    ? [{ createdAt: dir }, { id: dir }]
    : [{ moderatedAt: { sort: dir, nulls: 'last' } }, { createdAt: dir }, { id: 'asc' }];
};

const QUEUE_SELECT = {
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
  account: { select: { id: true } },
  _count: { select: { evidence: true, revisions: true } },
} as const;

/**
 * A page of the queue, each report with its signals (signals.ts). A signal filter or sort
 * reads the signals of the first SIGNAL_SCAN_LIMIT matching reports (in the list's own order)
 * and filters or orders those.
 */
export async function queuePage(prisma: PrismaClient, f: QueueFilter): Promise<{ total: number; rows: QueueRow[]; signals: Map<string, ReportSignals>; scanned: boolean }> {
  const authors = f.author ? await accountsWithHandle(prisma, f.author) : null;
  const where = queueWhere(f, authors);
  if (f.similarTo) where.id = { in: await pendingSimilarTo(prisma, f.similarTo) };
  const sort = f.sort ?? defaultSort(f.status);
  if (f.signal === undefined && sort !== 'signals' && sort !== 'account-age') {
    const [total, rows] = await Promise.all([
      prisma.report.count({ where }),
      prisma.report.findMany({ where, orderBy: queueOrder(f.status, sort), skip: (f.page - 1) * QUEUE_PAGE_SIZE, take: QUEUE_PAGE_SIZE, select: QUEUE_SELECT }),
    ]);
    return { total, rows, signals: await signalsOf(prisma, rows.map((r) => r.id)), scanned: false };
  }
  const candidates = await prisma.report.findMany({ where, orderBy: queueOrder(f.status, sort), take: SIGNAL_SCAN_LIMIT, select: { id: true } });
  const signals = await signalsOf(prisma, candidates.map((c) => c.id));
  let ids = candidates.map((c) => c.id).filter((id) => signals.has(id));
  if (f.signal) ids = ids.filter((id) => raised(signals.get(id)!).includes(f.signal!));
  // Array.prototype.sort is stable: ties keep the list's own order.
  if (sort === 'signals') ids.sort((a, b) => signalWeight(signals.get(b)!) - signalWeight(signals.get(a)!));
  if (sort === 'account-age') ids.sort((a, b) => signals.get(a)!.accountAgeDays - signals.get(b)!.accountAgeDays);
  const pageIds = ids.slice((f.page - 1) * QUEUE_PAGE_SIZE, f.page * QUEUE_PAGE_SIZE);
  const found = await prisma.report.findMany({ where: { id: { in: pageIds } }, select: QUEUE_SELECT });
  const byId = new Map(found.map((r) => [r.id, r]));
  const rows = pageIds.map((id) => byId.get(id)).filter((r): r is QueueRow => r !== undefined);
  return { total: ids.length, rows, signals, scanned: candidates.length >= SIGNAL_SCAN_LIMIT };
}

export type QueueRow = Prisma.ReportGetPayload<{ select: typeof QUEUE_SELECT }>;

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

/** The oldest pending report (other than `exceptId`): where a moderator goes next. */
export async function nextPendingReport(prisma: PrismaClient, exceptId?: string): Promise<string | null> {
  const next = await prisma.report.findFirst({
    where: exceptId ? { status: 'PENDING', id: { not: exceptId } } : { status: 'PENDING' },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    select: { id: true },
  });
  return next?.id ?? null;
}

/** How many reports wait for a decision: the header's "Moderation (N pending)" (index on status). */
export async function pendingCount(prisma: PrismaClient): Promise<number> {
  return prisma.report.count({ where: { status: 'PENDING' } });
}

/** What a confirmation calls a report: its merchant and agent. */
export async function reportHeading(prisma: PrismaClient, id: string): Promise<{ merchant: string; agent: string } | null> {
  const row = await prisma.report.findUnique({ where: { id }, select: { merchant: { select: { name: true } }, agent: { select: { name: true } } } });
  return row ? { merchant: row.merchant.name, agent: row.agent.name } : null;
}
