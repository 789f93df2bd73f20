// What the contribution form and the author's review page read: merchants to choose from,
// and the author's own report.
import type { PrismaClient } from '../../db/client.js';
import { escapeLike } from '../../db/like.js';
import { UUID_PATTERN } from '../../text.js';

const choice = { id: true, name: true, website: true } as const;

/** Up to 20 public merchants whose name or slug contains `q`, and the selected one first. */
export async function merchantChoices(prisma: PrismaClient, q: string, selectedId: string | undefined) {
  const byName = q
    ? await prisma.merchant.findMany({
        where: { isPublic: true, OR: [{ name: { contains: escapeLike(q), mode: 'insensitive' } }, { slug: { contains: escapeLike(q.toLowerCase()) } }] },
        select: choice,
        orderBy: { name: 'asc' },
        take: 20,
      })
    : [];
  const selected =
    selectedId && UUID_PATTERN.test(selectedId) && !byName.some((m) => m.id === selectedId)
      ? await prisma.merchant.findFirst({ where: { id: selectedId, isPublic: true }, select: choice })
      : null;
  return selected ? [selected, ...byName] : byName;
}

/** One of the account's own reports, in any status, for its review page. */
export async function ownReport(prisma: PrismaClient, accountId: string, id: string) {
  if (!UUID_PATTERN.test(id)) return null;
  return prisma.report.findFirst({
    where: { id: id.toLowerCase(), accountId },
    include: { merchant: { select: { name: true, slug: true } }, agent: { select: { name: true } }, _count: { select: { evidence: true } } },
  });
}
