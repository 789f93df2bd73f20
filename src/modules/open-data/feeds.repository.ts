// The status changes the feeds list (only of public merchants and active agents), and the
// current verdict of the merchant and agent pairs their entries name.
import { Prisma } from '../../generated/prisma/client.js';
import type { PrismaClient } from '../../db/client.js';
import type { TaskKey } from '../aggregation/constants.js';
import { PAIR_NAMES, PUBLIC_SUMMARIES, type PairNames } from '../aggregation/public-evidence.js';
import type { StoredForVerdict } from '../aggregation/verdict.js';

export interface StatusChangeRow extends PairNames {
  id: string;
  task: TaskKey | null;
  /** "status": fromStatus and toStatus are statuses; "regression" (issue 37): the version that worked and the one since which it fails. */
  kind: 'status' | 'regression';
  fromStatus: string;
  toStatus: string;
  changedAt: Date;
}

export async function latestStatusChanges(
  prisma: PrismaClient,
  scope: { merchantId?: string; agentId?: string; categoryId?: string },
  limit: number,
): Promise<StatusChangeRow[]> {
  const list = [Prisma.sql`TRUE`];
  if (scope.merchantId) list.push(Prisma.sql`c.merchant_id = ${scope.merchantId}::uuid`);
  if (scope.agentId) list.push(Prisma.sql`c.agent_id = ${scope.agentId}::uuid`);
  if (scope.categoryId) list.push(Prisma.sql`m.category_id = ${scope.categoryId}::uuid`);
  return prisma.$queryRaw<StatusChangeRow[]>`
    SELECT c.id, ${PAIR_NAMES}, c.task, c.kind, c.from_status AS "fromStatus",
           c.to_status AS "toStatus", c.changed_at AS "changedAt"
      FROM status_changes c
      JOIN merchants m ON m.id = c.merchant_id AND m.is_public
      JOIN agents a ON a.id = c.agent_id AND a.active
     WHERE ${Prisma.join(list, ' AND ')}
     ORDER BY c.changed_at DESC, c.id DESC LIMIT ${limit}`;
}

/** What a verdict is read from (verdict.ts summaryVerdict): its facts, or for a summary stored before them, its reach, task statuses and counts. */
export type StoredVerdict = StoredForVerdict;

/**
 * The public summaries of these merchant and agent pairs (only the parts a verdict is read from),
 * keyed `merchantId:agentId`; a pair without approved reports is absent.
 */
export async function currentVerdicts(
  prisma: PrismaClient,
  pairs: ReadonlyArray<{ merchantId: string; agentId: string }>,
): Promise<Map<string, StoredVerdict>> {
  if (pairs.length === 0) return new Map();
  // As text, parsed here, like the directory's summary reads.
  const rows = await prisma.$queryRaw<Array<{ merchantId: string; agentId: string; summary: string }>>`
    SELECT s.merchant_id AS "merchantId", s.agent_id AS "agentId",
           jsonb_build_object('verdict', s.summary -> 'verdict', 'reach', s.summary -> 'reach', 'capabilities', s.summary -> 'capabilities',
                              'counts', s.summary -> 'counts', 'lastTestedAt', s.summary -> 'lastTestedAt',
                              'lastReportedAt', s.summary -> 'lastReportedAt')::text AS summary
      FROM ${PUBLIC_SUMMARIES}
      JOIN unnest(${pairs.map((p) => p.merchantId)}::uuid[], ${pairs.map((p) => p.agentId)}::uuid[]) AS p(merchant_id, agent_id)
        ON p.merchant_id = s.merchant_id AND p.agent_id = s.agent_id
     WHERE (s.report_count > 0 OR s.self_reported_count > 0)`;
  return new Map(
    rows.map((row) => {
      // jsonb_build_object keeps absent keys as null; the verdict reads absent as undefined.
      const stored = Object.fromEntries(Object.entries(JSON.parse(row.summary) as Record<string, unknown>).filter(([, v]) => v !== null));
      return [`${row.merchantId}:${row.agentId}`, stored as unknown as StoredVerdict];
    }),
  );
}
