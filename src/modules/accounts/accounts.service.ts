// Changing accounts: the moderator role (operator command line) and suspension (command line
// and the moderators' account page). Each change is one transaction with its audit row, by
// whoever made it: a moderator, or the operator (no account). Every function reports whether
// it changed anything, so that repeating a command is harmless and says so.
import { z } from 'zod';
import type { PrismaClient, Tx } from '../../db/client.js';
import { notFound, Refusal } from '../../errors.js';
import { checkbox, fieldRefusal, nameField } from '../../forms.js';
import type { AccountRole } from '../../generated/prisma/enums.js';
import { insertAuditEntry } from '../audit/audit.repository.js';
import { findAccountByEmail, findAccountById, updateAccount, type AccountRow } from './accounts.repository.js';

/** Who changes an account: a signed-in moderator, or the operator at the command line. */
export type AccountActor = { id: string; role: AccountRole } | 'operator';

/** The account changed: by id (the admin pages) or by address (the command line). */
export type AccountRef = { id: string } | { email: string };

export interface AccountChange {
  account: AccountRow;
  /** False when the account already was in the requested state. */
  changed: boolean;
}

/** Addresses are stored trimmed and lower-cased (sign-in does the same). */
const normaliseEmail = (email: string) => email.trim().toLowerCase();

async function requireAccount(tx: Tx, ref: AccountRef): Promise<AccountRow> {
  if ('id' in ref) {
    const account = await findAccountById(tx, ref.id);
    if (!account) throw notFound('There is no account at this address.', 'Account not found');
    return account;
  }
  const email = normaliseEmail(ref.email);
  const account = await findAccountByEmail(tx, email);
  if (!account) throw notFound(`no account with e-mail ${email}`, 'Account not found');
  return account;
}

const actorId = (actor: AccountActor) => (actor === 'operator' ? null : actor.id);

/** Sets the role; the audit row records the change. */
async function changeRole(prisma: PrismaClient, ref: AccountRef, decide: (account: AccountRow) => AccountRole, now: Date): Promise<AccountChange> {
  return prisma.$transaction(async (tx) => {
    const account = await requireAccount(tx, ref);
    const role = decide(account);
    if (role === account.role) return { account, changed: false };
    const updated = await updateAccount(tx, account.id, { role });
    const details = { from: account.role, to: role };
    await insertAuditEntry(tx, { actorId: null, action: 'account.role', targetType: 'account', targetId: account.id, details, now });
    return { account: updated, changed: true };
  });
}

/** USER -> MODERATOR. A MODERATOR or ADMIN is left as it is. */
export const grantModerator = (prisma: PrismaClient, ref: AccountRef, now: Date) =>
  changeRole(prisma, ref, (account) => (account.role === 'USER' ? 'MODERATOR' : account.role), now);

/** MODERATOR -> USER. An ADMIN is refused: that is not a demotion to make by accident. */
export const revokeModerator = (prisma: PrismaClient, ref: AccountRef, now: Date) =>
  changeRole(
    prisma,
    ref,
    (account) => {
      if (account.role === 'ADMIN') {
        throw new Refusal({
          kind: 'conflict',
          code: 'account-role-refused',
          title: 'Admins are not demoted here',
          detail: `${account.email} is an ADMIN; revoke-moderator does not demote admins`,
        });
      }
      return 'USER';
    },
    now,
  );

/** The suspension form: why (private, required). */
export const suspendForm = z.object({
  reason: nameField(500, 'Give the reason for the suspension', { multiline: true }),
});

/**
 * Suspends an account: its contributions and agent keys are refused (403). The reason is
 * required and private. Suspending a suspended account keeps its start and replaces the
 * reason. A moderator cannot suspend their own account, and only an admin suspends an admin.
 */
export async function suspendAccount(
  prisma: PrismaClient,
  actor: AccountActor,
  ref: AccountRef,
  { reason }: z.output<typeof suspendForm>,
  now: Date,
): Promise<AccountChange> {
  return prisma.$transaction(async (tx) => {
    const before = await requireAccount(tx, ref);
    if (actor !== 'operator') {
      if (before.id === actor.id) throw fieldRefusal({ field: 'reason', rule: 'ownAccount', detail: 'You cannot suspend your own account' });
      if (before.role === 'ADMIN' && actor.role !== 'ADMIN') throw fieldRefusal({ field: 'reason', rule: 'adminOnly', detail: 'Only an admin can suspend an admin' });
    }
    if (before.suspended && before.suspendedReason === reason) return { account: before, changed: false };
    const account = await updateAccount(tx, before.id, {
      suspended: true,
      suspendedReason: reason,
      ...(before.suspended ? {} : { suspendedAt: now }),
    });
    await insertAuditEntry(tx, {
      actorId: actorId(actor),
      action: before.suspended ? 'account.suspension-reason' : 'account.suspend',
      targetType: 'account',
      targetId: before.id,
      reason,
      details: { previousReason: before.suspendedReason },
      now,
    });
    return { account, changed: true };
  });
}

export async function unsuspendAccount(prisma: PrismaClient, actor: AccountActor, ref: AccountRef, now: Date): Promise<AccountChange> {
  return prisma.$transaction(async (tx) => {
    const before = await requireAccount(tx, ref);
    if (!before.suspended) return { account: before, changed: false };
    const account = await updateAccount(tx, before.id, { suspended: false, suspendedReason: null, suspendedAt: null });
    await insertAuditEntry(tx, {
      actorId: actorId(actor),
      action: 'account.unsuspend',
      targetType: 'account',
      targetId: before.id,
      details: { previousReason: before.suspendedReason },
      now,
    });
    return { account, changed: true };
  });
}

/** The author's choice about decision e-mails (modules/moderation/decision-notices.ts), as posted on "My reports". */
/** The decision e-mails form of one's own account: a checkbox (unticked is not posted: off). */
export const decisionNoticesForm = z.object({ notifyDecisions: checkbox }).strip();

/** Whether the account is e-mailed on every moderation decision on its reports. */
export async function decisionNoticesOn(prisma: PrismaClient, accountId: string): Promise<boolean> {
  const row = await prisma.account.findUnique({ where: { id: accountId }, select: { notifyDecisions: true } });
  if (!row) throw notFound('No such account.');
  return row.notifyDecisions;
}

/** Turns the decision e-mails of one's own account on or off; reports whether anything changed. */
export async function setDecisionNotices(prisma: PrismaClient, accountId: string, on: boolean): Promise<{ on: boolean; changed: boolean }> {
  const { count } = await prisma.account.updateMany({ where: { id: accountId, notifyDecisions: !on }, data: { notifyDecisions: on } });
  if (count === 0 && !(await prisma.account.findUnique({ where: { id: accountId }, select: { id: true } }))) throw notFound('No such account.');
  return { on, changed: count === 1 };
}
