// The status changes the feeds list: only of public merchants and active agents.
import { Prisma } from '../../generated/prisma/client.js';
import type { PrismaClient } from '../../db/client.js';
import type { CapabilityStatus, TaskKey } from '../aggregation/constants.js';

export interface StatusChangeRow {
  id: string;
  merchantId: string;
  merchantSlug: string;
  merchantName: string;
  agentSlug: string;
  agentName: string;
  task: TaskKey | null;
  fromStatus: CapabilityStatus;
  toStatus: CapabilityStatus;
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
    SELECT c.id, c.merchant_id AS "merchantId", m.slug AS "merchantSlug", m.name AS "merchantName",
           a.slug AS "agentSlug", a.name AS "agentName", c.task, c.from_status AS "fromStatus",
           c.to_status AS "toStatus", c.changed_at AS "changedAt"
      FROM status_changes c
      JOIN merchants m ON m.id = c.merchant_id AND m.is_public
      JOIN agents a ON a.id = c.agent_id AND a.active
     WHERE ${Prisma.join(list, ' AND ')}
     ORDER BY c.changed_at DESC, c.id DESC LIMIT ${limit}`;
}
