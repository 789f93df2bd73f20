import { createHash } from 'node:crypto';
import type { AccountRole } from '../../generated/prisma/enums.js';
import type { Db, PrismaClient } from '../../db/client.js';
import { escapeLike } from '../../db/like.js';

export interface AccountRow {
  id: string;
  email: string;
  role: AccountRole;
  suspended: boolean;
  suspendedReason: string | null;
}

const accountSelect = { id: true, email: true, role: true, suspended: true, suspendedReason: true } as const;

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

export async function createSignInToken(
  prisma: PrismaClient,
  data: { tokenHash: string; email: string; nextPath: string | null; expiresAt: Date; createdAt: Date },
): Promise<void> {
  await prisma.signInToken.create({ data });
}

/** Consumes an unexpired, unused token atomically: two uses of one link cannot both succeed. */
export async function consumeSignInToken(
  prisma: PrismaClient,
  tokenHash: string,
  now: Date,
): Promise<{ email: string; nextPath: string | null } | null> {
  const rows = await prisma.$queryRaw<Array<{ email: string; next_path: string | null }>>`
    UPDATE sign_in_tokens SET consumed_at = ${now}
     WHERE token_hash = ${tokenHash} AND consumed_at IS NULL AND expires_at > ${now}
     RETURNING email, next_path`;
  const row = rows[0];
  return row ? { email: row.email, nextPath: row.next_path } : null;
}

export async function purgeExpiredSignInTokens(prisma: PrismaClient, now: Date): Promise<void> {
  await prisma.signInToken.deleteMany({ where: { expiresAt: { lt: new Date(now.getTime() - 24 * 3600_000) } } });
}

/** The account for this address, created on first sign-in. */
export async function upsertAccountOnSignIn(
  prisma: PrismaClient,
  email: string,
  now: Date,
  makeModerator: boolean,
): Promise<AccountRow> {
  const account = await prisma.account.upsert({
    where: { email },
    create: { email, lastSignInAt: now, role: makeModerator ? 'MODERATOR' : 'USER' },
    update: { lastSignInAt: now },
    select: accountSelect,
  });
  if (makeModerator && account.role === 'USER') {
    return prisma.account.update({ where: { id: account.id }, data: { role: 'MODERATOR' }, select: accountSelect });
  }
  return account;
}

export async function findAccountById(db: Db, id: string): Promise<AccountRow | null> {
  return db.account.findUnique({ where: { id }, select: accountSelect });
}

export async function findAccountByEmail(db: Db, email: string): Promise<AccountRow | null> {
  return db.account.findUnique({ where: { email }, select: accountSelect });
}

export async function findOrCreateAccount(prisma: PrismaClient, email: string): Promise<AccountRow> {
  return prisma.account.upsert({ where: { email }, create: { email }, update: {}, select: accountSelect });
}

export async function updateAccount(
  db: Db,
  id: string,
  data: { role?: AccountRole; suspended?: boolean; suspendedReason?: string | null; suspendedAt?: Date | null },
): Promise<AccountRow> {
  return db.account.update({ where: { id }, data, select: accountSelect });
}

export const ACCOUNT_SEARCH_LIMIT = 50;

/** Accounts whose address contains `q` (case-insensitive), exact matches first. */
export async function searchAccounts(prisma: PrismaClient, q: string) {
  const needle = q.trim().toLowerCase();
  if (!needle) return [];
  return prisma.$queryRaw<Array<{ id: string; email: string; role: AccountRole; suspended: boolean; createdAt: Date; reportCount: number }>>`
    SELECT a.id, a.email, a.role, a.suspended, a.created_at AS "createdAt",
           (SELECT count(*)::int FROM reports r WHERE r.account_id = a.id) AS "reportCount"
      FROM accounts a
     WHERE a.email LIKE ${`%${escapeLike(needle)}%`}
     ORDER BY (a.email = ${needle}) DESC, a.email
     LIMIT ${ACCOUNT_SEARCH_LIMIT}`;
}

/** An account as the moderators' account page shows it: its keys and its latest reports. */
export async function accountDetail(prisma: PrismaClient, id: string) {
  return prisma.account.findUnique({
    where: { id },
    select: {
      id: true,
      email: true,
      role: true,
      suspended: true,
      suspendedReason: true,
      suspendedAt: true,
      lastSignInAt: true,
      createdAt: true,
      agentKeys: { select: { id: true, displayPrefix: true, revokedAt: true, expiresAt: true, agent: { select: { name: true } } }, orderBy: { createdAt: 'desc' } },
      reports: {
        select: {
          id: true,
          status: true,
          outcome: true,
          createdAt: true,
          moderatedAt: true,
          merchant: { select: { name: true } },
          agent: { select: { name: true } },
        },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        take: 500,
      },
    },
  });
}
