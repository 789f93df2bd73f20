// Claims of merchants' and agents' websites, their private check log, and the public facts a
// verified claim gives readers. The only place the claims feature talks to Prisma.
import type { Db, PrismaClient } from '../../db/client.js';
import type { ClaimMethod, ClaimStatus, OwnerSide } from '../../generated/prisma/enums.js';

export interface ClaimRow {
  id: string;
  accountId: string;
  side: OwnerSide;
  merchantId: string | null;
  agentId: string | null;
  host: string;
  pageUrl: string;
  sharedHost: boolean;
  token: string;
  status: ClaimStatus;
  method: ClaimMethod | null;
  verifiedAt: Date | null;
  checkedAt: Date | null;
  graceUntil: Date | null;
  digestUntil: Date | null;
  createdAt: Date;
}

/** The subject a claim names, as its pages and API show it. */
export interface ClaimSubject {
  side: OwnerSide;
  id: string;
  slug: string;
  name: string;
  /** The website the claim proves: a merchant's, or an agent vendor's. */
  website: string | null;
}

const CLAIM_SELECT = {
  id: true,
  accountId: true,
  side: true,
  merchantId: true,
  agentId: true,
  host: true,
  pageUrl: true,
  sharedHost: true,
  token: true,
  status: true,
  method: true,
  verifiedAt: true,
  checkedAt: true,
  graceUntil: true,
  digestUntil: true,
  createdAt: true,
} as const;

/** A public merchant by slug or id. */
export async function findClaimableMerchant(prisma: PrismaClient, key: { id: string } | { slug: string }): Promise<ClaimSubject | null> {
  const row = await prisma.merchant.findFirst({ where: { ...key, isPublic: true }, select: { id: true, slug: true, name: true, website: true } });
  return row ? { side: 'MERCHANT', ...row } : null;
}

/** An active agent by slug or id, with its vendor's website. */
export async function findClaimableAgent(prisma: PrismaClient, key: { id: string } | { slug: string }): Promise<ClaimSubject | null> {
  const row = await prisma.agent.findFirst({ where: { ...key, active: true }, select: { id: true, slug: true, name: true, vendorWebsite: true } });
  return row ? { side: 'AGENT', id: row.id, slug: row.slug, name: row.name, website: row.vendorWebsite } : null;
}

export async function findOwnClaimOf(db: Db, accountId: string, subject: ClaimSubject): Promise<ClaimRow | null> {
  return db.claim.findFirst({
    where: { accountId, ...(subject.side === 'MERCHANT' ? { merchantId: subject.id } : { agentId: subject.id }) },
    select: CLAIM_SELECT,
  });
}

export async function insertClaim(
  db: Db,
  data: { accountId: string; subject: ClaimSubject; host: string; pageUrl: string; sharedHost: boolean; token: string; now: Date },
): Promise<ClaimRow> {
  const { subject } = data;
  return db.claim.create({
    data: {
      accountId: data.accountId,
      side: subject.side,
      merchantId: subject.side === 'MERCHANT' ? subject.id : null,
      agentId: subject.side === 'AGENT' ? subject.id : null,
      host: data.host,
      pageUrl: data.pageUrl,
      sharedHost: data.sharedHost,
      token: data.token,
      createdAt: data.now,
    },
    select: CLAIM_SELECT,
  });
}

export async function findClaim(db: Db, id: string): Promise<ClaimRow | null> {
  return db.claim.findUnique({ where: { id }, select: CLAIM_SELECT });
}

/** The claim's subject as it is now (a merchant hidden, or an agent deactivated, is none). */
export async function subjectOf(prisma: PrismaClient, claim: Pick<ClaimRow, 'merchantId' | 'agentId'>): Promise<ClaimSubject | null> {
  if (claim.merchantId) return findClaimableMerchant(prisma, { id: claim.merchantId });
  if (claim.agentId) return findClaimableAgent(prisma, { id: claim.agentId });
  return null;
}

export async function listClaimsOf(prisma: PrismaClient, accountId: string): Promise<ClaimRow[]> {
  return prisma.claim.findMany({ where: { accountId }, select: CLAIM_SELECT, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
}

export async function subjectsOf(prisma: PrismaClient, claims: ReadonlyArray<Pick<ClaimRow, 'merchantId' | 'agentId'>>) {
  const merchantIds = claims.flatMap((c) => (c.merchantId ? [c.merchantId] : []));
  const agentIds = claims.flatMap((c) => (c.agentId ? [c.agentId] : []));
  const [merchants, agents] = await Promise.all([
    prisma.merchant.findMany({ where: { id: { in: merchantIds } }, select: { id: true, slug: true, name: true, website: true, isPublic: true } }),
    prisma.agent.findMany({ where: { id: { in: agentIds } }, select: { id: true, slug: true, name: true, vendorWebsite: true, active: true } }),
  ]);
  return { merchants: new Map(merchants.map((m) => [m.id, m])), agents: new Map(agents.map((a) => [a.id, a])) };
}

export async function updateClaim(
  db: Db,
  id: string,
  data: Partial<Pick<ClaimRow, 'status' | 'method' | 'verifiedAt' | 'checkedAt' | 'graceUntil' | 'digestUntil'>>,
): Promise<ClaimRow> {
  return db.claim.update({ where: { id }, data, select: CLAIM_SELECT });
}

export async function insertCheck(
  db: Db,
  check: { claimId: string; method: ClaimMethod; outcome: string; reason: string | null; detail: string; scheduled: boolean; now: Date },
): Promise<void> {
  await db.claimCheck.create({
    data: { claimId: check.claimId, method: check.method, outcome: check.outcome, reason: check.reason, detail: check.detail, scheduled: check.scheduled, checkedAt: check.now },
  });
}

export async function latestChecks(prisma: PrismaClient, claimId: string, limit: number) {
  return prisma.claimCheck.findMany({ where: { claimId }, orderBy: [{ checkedAt: 'desc' }, { id: 'desc' }], take: limit });
}

/** Verified claims checked before `before` and claims in grace checked before `graceBefore`: what the upkeep re-checks. */
export async function dueClaims(prisma: PrismaClient, before: Date, graceBefore: Date, limit: number): Promise<ClaimRow[]> {
  return prisma.claim.findMany({
    where: {
      OR: [
        { status: 'VERIFIED', OR: [{ checkedAt: null }, { checkedAt: { lte: before } }] },
        { status: 'GRACE', OR: [{ checkedAt: null }, { checkedAt: { lte: graceBefore } }] },
      ],
    },
    select: CLAIM_SELECT,
    orderBy: [{ checkedAt: 'asc' }, { id: 'asc' }],
    take: limit,
  });
}

/** Claims for the moderators' list, newest first, optionally of one status. */
export async function listClaimsForModerators(prisma: PrismaClient, status: ClaimStatus | undefined, limit: number) {
  return prisma.claim.findMany({
    where: status ? { status } : {},
    select: { ...CLAIM_SELECT, account: { select: { email: true } } },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: limit,
  });
}

/** Statuses under which a claim counts as verified for readers (grace is a verified claim being re-checked). */
export const VERIFIED_STATUSES: readonly ClaimStatus[] = ['VERIFIED', 'GRACE'];

/** The public fact of a verified claim: by which method, verified when (the earliest such claim). */
export interface PublicClaim {
  method: ClaimMethod;
  verifiedAt: Date;
}

/** The verified claim of each of these merchants (or agents), keyed by its id. */
export async function publicClaims(db: Db, side: OwnerSide, ids: readonly string[]): Promise<Map<string, PublicClaim>> {
  if (ids.length === 0) return new Map();
  const rows = await db.claim.findMany({
    where: { ...(side === 'MERCHANT' ? { merchantId: { in: [...ids] } } : { agentId: { in: [...ids] } }), status: { in: [...VERIFIED_STATUSES] }, verifiedAt: { not: null }, method: { not: null } },
    select: { merchantId: true, agentId: true, method: true, verifiedAt: true },
    orderBy: [{ verifiedAt: 'asc' }, { id: 'asc' }],
  });
  const byId = new Map<string, PublicClaim>();
  for (const row of rows) {
    const id = (side === 'MERCHANT' ? row.merchantId : row.agentId)!;
    if (!byId.has(id)) byId.set(id, { method: row.method!, verifiedAt: row.verifiedAt! });
  }
  return byId;
}

/**
 * Announces a change readers see: of these merchants' records (their answers are dropped at
 * once), or of everything (an agent's record shows in every list), through the one version
 * mechanism (modules/directory/version.ts).
 */
export async function announceChange(db: Db, merchantIds: readonly string[] | 'everything'): Promise<void> {
  if (merchantIds === 'everything') {
    await db.$executeRaw`UPDATE directory_version SET version = version + 1, changed_at = clock_timestamp() WHERE id = 1`;
    await db.$executeRaw`SELECT directory_version_announce(NULL, true)`;
    return;
  }
  if (merchantIds.length > 0) await db.$executeRaw`SELECT directory_version_changed(${[...new Set(merchantIds)]}::uuid[])`;
}
