// What the contribution form and a person's own report pages read: merchants to choose from,
// the author's reports (the list, one report, one screenshot).
import type { PrismaClient } from '../../db/client.js';
import { escapeLike } from '../../db/like.js';
import { UUID_PATTERN } from '../../text.js';
import { ownSelect, toOwnReport } from './submissions.repository.js';

const choice = { id: true, name: true, website: true } as const;

/** As many merchants as one page of the API's search (the form's live search uses the API). */
export const MERCHANT_CHOICES = 24;

/**
 * Public merchants whose name, slug or website contains `q` (the API's search, in name order;
 * `more` when there are more than a page of them), and the selected one, first, when it is not
 * among them.
 */
export async function merchantChoices(prisma: PrismaClient, q: string, selectedId: string | undefined) {
  const pattern = escapeLike(q);
  const found = q
    ? await prisma.merchant.findMany({
        where: {
          isPublic: true,
          OR: [
            { name: { contains: pattern, mode: 'insensitive' } },
            { slug: { contains: pattern, mode: 'insensitive' } },
            { website: { contains: pattern, mode: 'insensitive' } },
          ],
        },
        select: choice,
        orderBy: [{ name: 'asc' }, { id: 'asc' }],
        take: MERCHANT_CHOICES + 1,
      })
    : [];
  const more = found.length > MERCHANT_CHOICES;
  const matches = found.slice(0, MERCHANT_CHOICES);
  const selected =
    selectedId && UUID_PATTERN.test(selectedId) && !matches.some((m) => m.id === selectedId.toLowerCase())
      ? await prisma.merchant.findFirst({ where: { id: selectedId.toLowerCase(), isPublic: true }, select: choice })
      : null;
  return { matches, more, choices: selected ? [selected, ...matches] : matches };
}

const detailSelect = {
  ...ownSelect,
  createdAt: true,
  moderationFeedback: true,
  merchant: { select: { name: true, slug: true, website: true, isPublic: true } },
  agent: { select: { name: true, vendor: true } },
  evidence: { select: { id: true, mediaType: true, sizeBytes: true }, orderBy: { createdAt: 'asc' } },
} as const;

/** One of the account's own reports, in any status and for any agent, with what its pages show. */
export async function ownReport(prisma: PrismaClient, accountId: string, id: string) {
  if (!UUID_PATTERN.test(id)) return null;
  const row = await prisma.report.findFirst({ where: { id: id.toLowerCase(), accountId }, select: detailSelect });
  if (!row) return null;
  const { merchant, agent, evidence, createdAt, moderationFeedback } = row;
  return { ...toOwnReport(row), createdAt, moderationFeedback, merchant, agent, evidence };
}

export type OwnReportDetail = NonNullable<Awaited<ReturnType<typeof ownReport>>>;

/** One page of the account's reports, the most recently changed first, and how many there are by status. */
export async function ownReportsPage(prisma: PrismaClient, accountId: string, page: number, pageSize: number) {
  const [rows, byStatus] = await Promise.all([
    prisma.report.findMany({
      where: { accountId },
      orderBy: [{ updatedAt: 'desc' }, { id: 'desc' }],
      skip: (page - 1) * pageSize,
      take: pageSize,
      select: {
        id: true,
        status: true,
        outcome: true,
        moderationFeedback: true,
        createdAt: true,
        updatedAt: true,
        testedAt: true,
        merchant: { select: { name: true, slug: true, isPublic: true } },
        agent: { select: { name: true } },
        _count: { select: { evidence: true } },
      },
    }),
    prisma.report.groupBy({ by: ['status'], where: { accountId }, _count: { _all: true } }),
  ]);
  const counts = { PENDING: 0, APPROVED: 0, REJECTED: 0 };
  for (const group of byStatus) counts[group.status] = group._count._all;
  return { rows, counts, total: counts.PENDING + counts.APPROVED + counts.REJECTED };
}

/** A screenshot of one of the account's own reports (its author's screenshot route). */
export async function ownScreenshotFile(prisma: PrismaClient, accountId: string, reportId: string, id: string) {
  if (!UUID_PATTERN.test(reportId) || !UUID_PATTERN.test(id)) return null;
  return prisma.screenshotEvidence.findFirst({
    where: { id: id.toLowerCase(), reportId: reportId.toLowerCase(), report: { accountId } },
    select: { storagePath: true, mediaType: true },
  });
}
