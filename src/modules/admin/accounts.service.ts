// Accounts for moderators: search by e-mail, an account's reports, suspension. Suspension
// follows the operator CLI's rules (accounts.service.ts) but runs in one transaction with its
// audit row; a suspended account's contributions and keys are refused (403).
import { z } from 'zod';
import type { PrismaClient } from '../../db/client.js';
import type { AccountRole } from '../../generated/prisma/enums.js';
import { insertAuditEntry } from '../moderation/moderation.repository.js';
import { zodFieldErrors, type FormResult, type FormValues } from './admin.http.js';
import { NotFoundError } from './directory.service.js';
import { escapeLike } from '../../db/like.js';

export const ACCOUNT_SEARCH_LIMIT = 50;

/** Accounts whose address contains `q` (case-insensitive), exact matches first. */
export async function searchAccounts(prisma: PrismaClient, q: string) {
  const needle = q.trim().toLowerCase();
  if (!needle) return [];
  return prisma.$queryRaw<
    Array<{ id: string; email: string; role: AccountRole; suspended: boolean; createdAt: Date; reportCount: number }>
  >`
    SELECT a.id, a.email, a.role, a.suspended, a.created_at AS "createdAt",
           (SELECT count(*)::int FROM reports r WHERE r.account_id = a.id) AS "reportCount"
      FROM accounts a
     WHERE a.email LIKE ${`%${escapeLike(needle)}%`}
     ORDER BY (a.email = ${needle}) DESC, a.email
     LIMIT ${ACCOUNT_SEARCH_LIMIT}`;
}

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

export class AccountActionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AccountActionError';
  }
}

const suspendForm = z.object({
  reason: z.string().trim().min(1, 'Give the reason for the suspension').max(500, 'At most 500 characters'),
});

export async function suspendAccountById(
  prisma: PrismaClient,
  actor: { id: string; role: string },
  id: string,
  values: FormValues,
  now: Date,
): Promise<FormResult<{ changed: boolean }>> {
  const parsed = suspendForm.safeParse(values);
  if (!parsed.success) return { ok: false, errors: zodFieldErrors(parsed.error) };
  const { reason } = parsed.data;
  return prisma.$transaction(async (tx) => {
    const before = await tx.account.findUnique({ where: { id }, select: { id: true, role: true, suspended: true, suspendedReason: true } });
    if (!before) throw new NotFoundError('Account');
    if (before.id === actor.id) return { ok: false as const, errors: { reason: 'You cannot suspend your own account' } };
    if (before.role === 'ADMIN' && actor.role !== 'ADMIN') return { ok: false as const, errors: { reason: 'Only an admin can suspend an admin' } };
    if (before.suspended && before.suspendedReason === reason) return { ok: true as const, value: { changed: false } };
    await tx.account.update({
      where: { id },
      // A suspension that continues keeps its start; only the reason changes.
      data: { suspended: true, suspendedReason: reason, ...(before.suspended ? {} : { suspendedAt: now }) },
    });
    await insertAuditEntry(tx, {
      actorId: actor.id,
      action: before.suspended ? 'account.suspension-reason' : 'account.suspend',
      targetType: 'account',
      targetId: id,
      reason,
      details: { previousReason: before.suspendedReason },
      now,
    });
    return { ok: true as const, value: { changed: true } };
  });
}

export async function unsuspendAccountById(prisma: PrismaClient, actorId: string, id: string, now: Date): Promise<{ changed: boolean }> {
  return prisma.$transaction(async (tx) => {
    const before = await tx.account.findUnique({ where: { id }, select: { suspended: true, suspendedReason: true } });
    if (!before) throw new NotFoundError('Account');
    if (!before.suspended) return { changed: false };
    await tx.account.update({ where: { id }, data: { suspended: false, suspendedReason: null, suspendedAt: null } });
    await insertAuditEntry(tx, {
      actorId,
      action: 'account.unsuspend',
      targetType: 'account',
      targetId: id,
      details: { previousReason: before.suspendedReason },
      now,
    });
    return { changed: true };
  });
}
