// E-mail sign-in: a single-use link (random token, stored hashed, 15 minutes), which creates
// the account on first use. Nothing here reveals whether an account exists.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { PrismaClient } from '../../db/client.js';
import type { Mailer } from '../../mail/mailer.js';
import {
  consumeSignInToken,
  createSignInToken,
  hashToken,
  upsertAccountOnSignIn,
  type AccountRow,
} from './accounts.repository.js';

export const SIGN_IN_LINK_MINUTES = 15;

export const emailSchema = z
  .string()
  .trim()
  .toLowerCase()
  .max(254, 'is too long')
  .pipe(z.email('is not an e-mail address'));

/** A path on this site to go to after sign-in, or null: never another origin (no open redirect). */
/** Longest `next` kept: it travels in a Location header, which clients cap at 16 KB or less. */
export const MAX_NEXT_LENGTH = 2_000;

export function safeNextPath(next: unknown, baseUrl: string): string | null {
  if (typeof next !== 'string' || next.length > MAX_NEXT_LENGTH) return null;
  if (!next.startsWith('/') || next.startsWith('//') || next.includes('\\')) return null;
  try {
    const base = new URL(baseUrl);
    const url = new URL(next, base);
    if (url.origin !== base.origin) return null;
    return `${url.pathname}${url.search}${url.hash}`;
  } catch {
    return null;
  }
}

export interface SignInDeps {
  prisma: PrismaClient;
  mailer: Mailer;
  baseUrl: string;
  moderatorEmails: readonly string[];
}

export async function requestSignInLink(deps: SignInDeps, email: string, next: string | null, now: Date): Promise<void> {
  const token = randomBytes(32).toString('base64url');
  await createSignInToken(deps.prisma, {
    tokenHash: hashToken(token),
    email,
    nextPath: next,
    expiresAt: new Date(now.getTime() + SIGN_IN_LINK_MINUTES * 60_000),
    createdAt: now,
  });
  await deps.mailer.sendSignInLink(email, `${deps.baseUrl}/sign-in/verify?token=${token}`, SIGN_IN_LINK_MINUTES);
}

/** The signed-in account and where to go next, or null for an unknown, used or expired link. */
export async function completeSignIn(
  deps: SignInDeps,
  token: string,
  now: Date,
): Promise<{ account: AccountRow; next: string | null } | null> {
  const consumed = await consumeSignInToken(deps.prisma, hashToken(token), now);
  if (!consumed) return null;
  const account = await upsertAccountOnSignIn(deps.prisma, consumed.email, now, deps.moderatorEmails.includes(consumed.email));
  return { account, next: consumed.nextPath };
}
