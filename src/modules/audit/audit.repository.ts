// The audit log: one row for every moderation decision and every change a moderator makes to
// the directory or to an account, written in the transaction of the change it records.
import type { Db, Prisma, PrismaClient, Tx } from '../../db/client.js';
import type { ReportStatus } from '../../generated/prisma/enums.js';

export const AUDIT_TARGET_TYPES = ['report', 'merchant', 'category', 'agent', 'account', 'claim', 'reply', 'correction'] as const;
export type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number];

/** A moderator's change to the directory: where, by whom, when. Every audited change takes it. */
export interface ChangeContext {
  prisma: PrismaClient;
  actorId: string;
  now: Date;
}

export interface AuditEntry {
  actorId: string | null;
  /** What happened, e.g. "approve", "merchant.update", "agent.deactivate". */
  action: string;
  targetType: AuditTargetType;
  targetId: string;
  reportId?: string | null;
  fromStatus?: ReportStatus | null;
  toStatus?: ReportStatus | null;
  reason?: string | null;
  details?: Prisma.InputJsonValue | null;
  now: Date;
}

export async function insertAuditEntry(tx: Tx | Db, entry: AuditEntry): Promise<void> {
  await tx.moderationAuditLog.create({
    data: {
      actorId: entry.actorId,
      action: entry.action,
      reportId: entry.reportId ?? null,
      targetType: entry.targetType,
      targetId: entry.targetId,
      fromStatus: entry.fromStatus ?? null,
      toStatus: entry.toStatus ?? null,
      reason: entry.reason ?? null,
      ...(entry.details === null || entry.details === undefined ? {} : { details: entry.details }),
      createdAt: entry.now,
    },
  });
}

/** Field-by-field differences, for an audit row's details. */
export function auditChanges(before: Record<string, unknown>, after: Record<string, unknown>): Record<string, { from: unknown; to: unknown }> {
  const plain = (v: unknown) => (v instanceof Date ? v.toISOString() : v);
  const diff: Record<string, { from: unknown; to: unknown }> = {};
  for (const [key, to] of Object.entries(after)) {
    const from = before[key];
    if (JSON.stringify(plain(from)) !== JSON.stringify(plain(to))) diff[key] = { from: plain(from) ?? null, to: plain(to) ?? null };
  }
  return diff;
}

/** Details as the audit column stores them (plain JSON). */
export const auditJson = (value: unknown) => JSON.parse(JSON.stringify(value)) as Prisma.InputJsonValue;

const withActor = { actor: { select: { email: true } } } as const;
const newestFirst = [{ createdAt: 'desc' as const }, { id: 'desc' as const }];

export function recentAuditEntries(prisma: PrismaClient, take: number) {
  return prisma.moderationAuditLog.findMany({ orderBy: newestFirst, take, include: withActor });
}

export async function auditPage(prisma: PrismaClient, filter: { targetType?: string; action?: string }, skip: number, take: number) {
  const where = { ...(filter.targetType ? { targetType: filter.targetType } : {}), ...(filter.action ? { action: filter.action } : {}) };
  const [total, entries, actions] = await Promise.all([
    prisma.moderationAuditLog.count({ where }),
    prisma.moderationAuditLog.findMany({ where, orderBy: newestFirst, skip, take, include: withActor }),
    prisma.moderationAuditLog.findMany({ distinct: ['action'], select: { action: true }, orderBy: { action: 'asc' } }),
  ]);
  return { total, entries, actions: actions.map((a) => a.action) };
}
