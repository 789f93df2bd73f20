// Agent keys as rows. A row holds the SHA-256 of a key (never the key) and its display prefix.
import type { Db } from '../../db/client.js';

export interface KeyRow {
  id: string;
  displayPrefix: string;
  accountId: string;
  agentId: string;
  createdAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
}

export interface KeyListRow extends Omit<KeyRow, 'accountId'> {
  agent: { id: string; slug: string; name: string; active: boolean };
}

/** What authentication needs: the row, its hash, the agent and whether the account is suspended. */
export interface KeyAuthRow extends KeyRow {
  keyHash: string;
  agent: { slug: string; active: boolean };
  account: { suspended: boolean };
}

const keySelect = {
  id: true,
  displayPrefix: true,
  accountId: true,
  agentId: true,
  createdAt: true,
  expiresAt: true,
  revokedAt: true,
  lastUsedAt: true,
} as const;

export async function findActiveAgentById(db: Db, id: string): Promise<{ id: string; slug: string; name: string } | null> {
  return db.agent.findFirst({ where: { id, active: true }, select: { id: true, slug: true, name: true } });
}

export async function findAccountSuspension(db: Db, id: string): Promise<{ suspended: boolean } | null> {
  return db.account.findUnique({ where: { id }, select: { suspended: true } });
}

export async function insertKey(
  db: Db,
  data: { keyHash: string; displayPrefix: string; accountId: string; agentId: string; createdAt: Date; expiresAt: Date },
): Promise<KeyRow> {
  return db.agentKey.create({ data, select: keySelect });
}

/** The account's own key, or null (someone else's key is as absent as an unknown one). */
export async function findOwnKey(db: Db, accountId: string, keyId: string): Promise<KeyRow | null> {
  return db.agentKey.findFirst({ where: { id: keyId, accountId }, select: keySelect });
}

/**
 * Revokes the account's key unless it is already revoked. Returns whether this call revoked it;
 * the conditional update makes concurrent revocations (and replacements) revoke it exactly once.
 */
export async function revokeOwnKey(db: Db, accountId: string, keyId: string, now: Date): Promise<boolean> {
  const { count } = await db.agentKey.updateMany({
    where: { id: keyId, accountId, revokedAt: null },
    data: { revokedAt: now },
  });
  return count === 1;
}

export async function listKeysOfAccount(db: Db, accountId: string): Promise<KeyListRow[]> {
  return db.agentKey.findMany({
    where: { accountId },
    select: {
      id: true,
      displayPrefix: true,
      agentId: true,
      createdAt: true,
      expiresAt: true,
      revokedAt: true,
      lastUsedAt: true,
      agent: { select: { id: true, slug: true, name: true, active: true } },
    },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
  });
}

/** Lookup through the unique index on key_hash. */
export async function findKeyByHash(db: Db, keyHash: string): Promise<KeyAuthRow | null> {
  return db.agentKey.findUnique({
    where: { keyHash },
    select: {
      ...keySelect,
      keyHash: true,
      agent: { select: { slug: true, active: true } },
      account: { select: { suspended: true } },
    },
  });
}

/** A key's last use is written at most once per this interval. */
const TOUCH_INTERVAL_SECONDS = 60;

/**
 * Records a use at most once per TOUCH_INTERVAL_SECONDS: no write at all while last_used_at
 * is fresher than that. Returns whether a row was written.
 */
export async function touchKeyRow(db: Db, keyId: string, now: Date): Promise<boolean> {
  const written = await db.$executeRaw`
    UPDATE agent_keys SET last_used_at = ${now}::timestamptz
     WHERE id = ${keyId}::uuid
       AND (last_used_at IS NULL OR last_used_at < ${now}::timestamptz - make_interval(secs => ${TOUCH_INTERVAL_SECONDS}))`;
  return written === 1;
}
