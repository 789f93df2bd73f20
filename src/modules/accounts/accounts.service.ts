// Operator account management: moderator role and suspension, by e-mail address.
// Used by the operator CLI; every function reports whether it changed anything, so that
// repeating a command is harmless and says so.
import type { PrismaClient } from '../../db/client.js';
import { findAccountByEmail, updateAccount, type AccountRow } from './accounts.repository.js';

export class AccountNotFoundError extends Error {
  readonly code = 'account-not-found';
  constructor(readonly email: string) {
    super(`no account with e-mail ${email}`);
    this.name = 'AccountNotFoundError';
  }
}

/** A role change the operator commands refuse: demoting an ADMIN. */
export class AccountRoleError extends Error {
  readonly code = 'account-role-refused';
  constructor(message: string) {
    super(message);
    this.name = 'AccountRoleError';
  }
}

export interface AccountChange {
  account: AccountRow;
  /** False when the account already was in the requested state. */
  changed: boolean;
}

/** Addresses are stored trimmed and lower-cased (sign-in does the same). */
export const normaliseEmail = (email: string) => email.trim().toLowerCase();

async function requireAccount(prisma: PrismaClient, email: string): Promise<AccountRow> {
  const normalised = normaliseEmail(email);
  const account = await findAccountByEmail(prisma, normalised);
  if (!account) throw new AccountNotFoundError(normalised);
  return account;
}

/** USER -> MODERATOR. A MODERATOR or ADMIN is left as it is. */
export async function grantModerator(prisma: PrismaClient, email: string): Promise<AccountChange> {
  const account = await requireAccount(prisma, email);
  if (account.role !== 'USER') return { account, changed: false };
  return { account: await updateAccount(prisma, account.id, { role: 'MODERATOR' }), changed: true };
}

/** MODERATOR -> USER. An ADMIN is refused: that is not a demotion to make by accident. */
export async function revokeModerator(prisma: PrismaClient, email: string): Promise<AccountChange> {
  const account = await requireAccount(prisma, email);
  if (account.role === 'ADMIN') {
    throw new AccountRoleError(`${account.email} is an ADMIN; revoke-moderator does not demote admins`);
  }
  if (account.role === 'USER') return { account, changed: false };
  return { account: await updateAccount(prisma, account.id, { role: 'USER' }), changed: true };
}

/**
 * Suspends the account (the spec answers a suspended account with 403). Suspending a suspended
 * account keeps the original suspension time and replaces the reason when one is given.
 */
export async function suspendAccount(
  prisma: PrismaClient,
  email: string,
  reason: string | null | undefined,
  now: Date,
): Promise<AccountChange> {
  const account = await requireAccount(prisma, email);
  const text = reason?.trim() || null;
  if (account.suspended && (text === null || text === account.suspendedReason)) return { account, changed: false };
  const updated = await updateAccount(prisma, account.id, {
    suspended: true,
    suspendedReason: text ?? account.suspendedReason,
    ...(account.suspended ? {} : { suspendedAt: now }),
  });
  return { account: updated, changed: true };
}

export async function unsuspendAccount(prisma: PrismaClient, email: string): Promise<AccountChange> {
  const account = await requireAccount(prisma, email);
  if (!account.suspended) return { account, changed: false };
  const updated = await updateAccount(prisma, account.id, { suspended: false, suspendedReason: null, suspendedAt: null });
  return { account: updated, changed: true };
}
