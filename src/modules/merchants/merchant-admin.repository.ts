// Moderators' access to merchants and what hangs on them (sponsorship, owner statement): the
// admin list, the rows behind the forms, and their writes.
import type { Db, Prisma, PrismaClient } from '../../db/client.js';
import { escapeLike } from '../../db/like.js';

export interface MerchantFields {
  name: string;
  slug: string;
  website: string;
  category: string;
  categoryId: string;
  serviceRegions: string[];
  isPublic: boolean;
  approvedCanonical: boolean;
}

export type Visibility = 'all' | 'public' | 'hidden';

/** A page of merchants for the admin list: name, slug or website containing `q`. */
export async function adminMerchantPage(prisma: PrismaClient, filter: { q: string; visibility: Visibility }, skip: number, take: number) {
  const like = escapeLike(filter.q);
  const where: Prisma.MerchantWhereInput = {
    ...(filter.q
      ? {
          OR: [
            { name: { contains: like, mode: 'insensitive' } },
            { slug: { contains: like, mode: 'insensitive' } },
            { website: { contains: like, mode: 'insensitive' } },
          ],
        }
      : {}),
    ...(filter.visibility === 'all' ? {} : { isPublic: filter.visibility === 'public' }),
  };
  const [total, merchants] = await Promise.all([
    prisma.merchant.count({ where }),
    prisma.merchant.findMany({
      where,
      orderBy: [{ name: 'asc' }, { id: 'asc' }],
      skip,
      take,
      select: {
        id: true,
        name: true,
        slug: true,
        website: true,
        isPublic: true,
        approvedCanonical: true,
        reportCount: true,
        categoryRef: { select: { name: true } },
        sponsorship: { select: { id: true } },
        ownerStatement: { select: { id: true } },
      },
    }),
  ]);
  return { total, merchants };
}

/** A merchant with what its edit page shows, and its reports counted per status. */
export async function merchantForEditing(prisma: PrismaClient, id: string) {
  const merchant = await prisma.merchant.findUnique({
    where: { id },
    include: { sponsorship: true, ownerStatement: { select: { id: true, declaredAt: true } }, categoryRef: { select: { name: true } } },
  });
  if (!merchant) return null;
  const counts = await prisma.report.groupBy({ by: ['status'], where: { merchantId: id }, _count: { _all: true } });
  return { merchant, reportCounts: Object.fromEntries(counts.map((r) => [r.status, r._count._all])) };
}

export const findMerchant = (db: Db, id: string) => db.merchant.findUnique({ where: { id } });

export const merchantWithSponsorship = (db: Db, id: string) => db.merchant.findUnique({ where: { id }, include: { sponsorship: true } });

export const merchantWithOwnerStatement = (db: Db, id: string) => db.merchant.findUnique({ where: { id }, include: { ownerStatement: true } });

/** The name of the merchant (other than `exceptId`) that has this slug. */
export async function slugOwner(db: Db, slug: string, exceptId: string | null): Promise<string | null> {
  const taken = await db.merchant.findFirst({ where: { slug, ...(exceptId ? { id: { not: exceptId } } : {}) }, select: { name: true } });
  return taken?.name ?? null;
}

export async function categoryName(db: Db, categoryId: string): Promise<string | null> {
  return (await db.category.findUnique({ where: { id: categoryId }, select: { name: true } }))?.name ?? null;
}

export const insertMerchant = (db: Db, fields: MerchantFields, now: Date) =>
  db.merchant.create({ data: { ...fields, createdAt: now, updatedAt: now } });

export const updateMerchantRow = (db: Db, id: string, fields: MerchantFields, now: Date) =>
  db.merchant.update({ where: { id }, data: { ...fields, updatedAt: now } });

export interface SponsorshipFields {
  source: 'subscription' | 'publisher_owned';
  placement: string;
  disclosure: string;
  startsAt: Date;
  endsAt: Date | null;
  billingId: string | null;
}

export interface OwnerStatementFields {
  statement: string;
  taskClaims: Record<string, string>;
  declaredAt: Date;
  ownershipEvidence: string | null;
}

/**
 * What a merchant may carry besides its record, at most one of each: read, replaced, removed
 * the same way (merchant-extras.service.ts).
 */
export const MERCHANT_EXTRAS = {
  sponsorship: {
    find: (db: Db, merchantId: string) => db.sponsorship.findUnique({ where: { merchantId } }),
    save: (db: Db, merchantId: string, fields: SponsorshipFields, now: Date) =>
      db.sponsorship.upsert({
        where: { merchantId },
        create: { merchantId, ...fields, createdAt: now, updatedAt: now },
        update: { ...fields, updatedAt: now },
      }),
    remove: (db: Db, merchantId: string) => db.sponsorship.delete({ where: { merchantId } }),
  },
  'owner-statement': {
    find: (db: Db, merchantId: string) => db.ownerStatement.findUnique({ where: { merchantId } }),
    save: (db: Db, merchantId: string, fields: OwnerStatementFields, now: Date) =>
      db.ownerStatement.upsert({
        where: { merchantId },
        create: { merchantId, ...fields, createdAt: now, updatedAt: now },
        update: { ...fields, updatedAt: now },
      }),
    remove: (db: Db, merchantId: string) => db.ownerStatement.delete({ where: { merchantId } }),
  },
} as const;
