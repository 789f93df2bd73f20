// Agent keys (spec section 5): bound to one account and one agent, valid for 90 days, shown
// once at issue, stored only as a SHA-256 hash. Every rule takes the time as `now`.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { PrismaClient, Db } from '../../db/client.js';
import { notFound, Refusal } from '../../errors.js';
import {
  findAccountSuspension,
  findActiveAgentById,
  findKeyByHash,
  findOwnKey,
  insertKey,
  listKeysOfAccount,
  revokeOwnKey,
  touchKeyRow,

} from './keys.repository.js';
import { UUID_PATTERN } from '../../text.js';

export const KEY_PREFIX = 'acd_';

/** Query parameter names that carry credentials (compared case-insensitively): refused in any URL. */
export const KEY_PARAMETER_NAMES: ReadonlySet<string> = new Set(['key', 'api_key', 'apikey', 'access_token']);
export const KEY_LIFETIME_DAYS = 90;
/** Characters of the key kept to tell keys apart: the prefix and 8 random characters. */
export const DISPLAY_PREFIX_LENGTH = 12;
/** Random bytes behind a key (43 base64url characters). */
export const KEY_RANDOM_BYTES = 32;
/** A well-formed key; anything else is unknown without a database lookup. */
const KEY_PATTERN = /^acd_[A-Za-z0-9_-]{43}$/;

const DAY_MS = 24 * 60 * 60 * 1000;

const hashKey = (key: string): string => createHash('sha256').update(key).digest('hex');

function generateKey(): string {
  return KEY_PREFIX + randomBytes(KEY_RANDOM_BYTES).toString('base64url');
}

const keyExpiry = (createdAt: Date): Date => new Date(createdAt.getTime() + KEY_LIFETIME_DAYS * DAY_MS);

export interface IssuedKey {
  /** The whole key: returned once, never stored. */
  key: string;
  record: { id: string; displayPrefix: string; agentId: string; expiresAt: Date };
}

const agentUnavailable = () =>
  new Refusal({
    kind: 'invalid',
    code: 'agent-unavailable',
    title: 'Agent not available',
    detail: 'Keys can be issued only for an active agent of the directory. Choose one of the listed agents.',
  });

const accountSuspended = () =>
  new Refusal({
    kind: 'forbidden',
    code: 'account-suspended',
    title: 'Account suspended',
    detail: 'A suspended account cannot be given agent keys.',
  });

async function createKey(db: Db, accountId: string, agentId: string, now: Date): Promise<IssuedKey> {
  const key = generateKey();
  const row = await insertKey(db, {
    keyHash: hashKey(key),
    displayPrefix: key.slice(0, DISPLAY_PREFIX_LENGTH),
    accountId,
    agentId,
    createdAt: now,
    expiresAt: keyExpiry(now),
  });
  return { key, record: { id: row.id, displayPrefix: row.displayPrefix, agentId: row.agentId, expiresAt: row.expiresAt } };
}

async function assertMayHoldKeys(db: Db, accountId: string): Promise<void> {
  const account = UUID_PATTERN.test(accountId) ? await findAccountSuspension(db, accountId) : null;
  if (!account) throw notFound('No such account.');
  if (account.suspended) throw accountSuspended();
}

/**
 * A new key for one account and one active agent. Throws a Refusal: invalid for an agent
 * that is unknown or inactive, forbidden for a suspended account, not found for an unknown one.
 */
export async function issueKey(
  prisma: PrismaClient,
  input: { accountId: string; agentId: string },
  now: Date,
): Promise<IssuedKey> {
  await assertMayHoldKeys(prisma, input.accountId);
  const agent = UUID_PATTERN.test(input.agentId) ? await findActiveAgentById(prisma, input.agentId) : null;
  if (!agent) throw agentUnavailable();
  return createKey(prisma, input.accountId, agent.id, now);
}

/**
 * Revokes one of the account's own keys. True when the key is the account's (revoked now or
 * already revoked: idempotent); false for an unknown key or another account's key.
 */
export async function revokeKey(prisma: PrismaClient, input: { accountId: string; keyId: string }, now: Date): Promise<boolean> {
  if (!UUID_PATTERN.test(input.keyId)) return false;
  if (await revokeOwnKey(prisma, input.accountId, input.keyId, now)) return true;
  return (await findOwnKey(prisma, input.accountId, input.keyId)) !== null;
}

/**
 * A new key for the same agent, with the old key revoked in the same transaction. An expired
 * key may be replaced; a revoked one may not (409): it was withdrawn on purpose, and a
 * replacement would otherwise be possible twice for one key. 404 for a key that is not the
 * account's, 400 when the agent is no longer active, 403 for a suspended account.
 */
export async function replaceKey(
  prisma: PrismaClient,
  input: { accountId: string; keyId: string },
  now: Date,
): Promise<IssuedKey> {
  if (!UUID_PATTERN.test(input.keyId)) throw notFound('No such key on this account.');
  return prisma.$transaction(async (tx) => {
    await assertMayHoldKeys(tx, input.accountId);
    const old = await findOwnKey(tx, input.accountId, input.keyId);
    if (!old) throw notFound('No such key on this account.');
    const agent = await findActiveAgentById(tx, old.agentId);
    if (!agent) throw agentUnavailable();
    // Conditional: of two concurrent replacements of one key, only one gets past this.
    if (!(await revokeOwnKey(tx, input.accountId, input.keyId, now))) {
      throw new Refusal({
        kind: 'conflict',
        code: 'key-revoked',
        title: 'Key already revoked',
        detail: 'This key was revoked and cannot be replaced. Issue a new key instead.',
      });
    }
    return createKey(tx, input.accountId, old.agentId, now);
  });
}

type KeyState = 'active' | 'expired' | 'revoked';

const keyState = (key: { revokedAt: Date | null; expiresAt: Date }, now: Date): KeyState =>
  key.revokedAt ? 'revoked' : key.expiresAt.getTime() <= now.getTime() ? 'expired' : 'active';

export interface KeyListItem {
  id: string;
  displayPrefix: string;
  agent: { id: string; slug: string; name: string; active: boolean };
  createdAt: Date;
  expiresAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  state: KeyState;
}

/** The account's keys, newest first; never a hash. `now` decides which ones have expired. */
export async function listKeys(prisma: PrismaClient, accountId: string, now: Date): Promise<KeyListItem[]> {
  if (!UUID_PATTERN.test(accountId)) return [];
  const rows = await listKeysOfAccount(prisma, accountId);
  return rows.map((row) => ({
    id: row.id,
    displayPrefix: row.displayPrefix,
    agent: row.agent,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
    lastUsedAt: row.lastUsedAt,
    revokedAt: row.revokedAt,
    state: keyState(row, now),
  }));
}

export type KeyRejection = 'unknown' | 'revoked' | 'expired' | 'agent-inactive';

interface AuthenticatedKey {
  keyId: string;
  accountId: string;
  agentId: string;
  agentSlug: string;
  accountSuspended: boolean;
}

export type KeyAuthentication = ({ ok: true } & AuthenticatedKey) | { ok: false; reason: KeyRejection };

/** Who a presented key speaks for, or why it is refused. */
export async function authenticateKey(prisma: PrismaClient, rawKey: string, now: Date): Promise<KeyAuthentication> {
  if (!KEY_PATTERN.test(rawKey)) return { ok: false, reason: 'unknown' };
  const hash = hashKey(rawKey);
  const row = await findKeyByHash(prisma, hash);
  const stored = Buffer.from(row?.keyHash ?? '', 'hex');
  const given = Buffer.from(hash, 'hex');
  if (!row || stored.length !== given.length || !timingSafeEqual(stored, given)) return { ok: false, reason: 'unknown' };
  if (row.revokedAt) return { ok: false, reason: 'revoked' };
  if (row.expiresAt.getTime() <= now.getTime()) return { ok: false, reason: 'expired' };
  if (!row.agent.active) return { ok: false, reason: 'agent-inactive' };
  return {
    ok: true,
    keyId: row.id,
    accountId: row.accountId,
    agentId: row.agentId,
    agentSlug: row.agent.slug,
    accountSuspended: row.account.suspended,
  };
}

/** Records the key's use, writing at most once a minute per key. Returns whether it wrote. */
export async function touchKey(prisma: PrismaClient, keyId: string, now: Date): Promise<boolean> {
  return touchKeyRow(prisma, keyId, now);
}
