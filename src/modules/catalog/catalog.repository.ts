// Categories and agents as the public directory sees them.
import type { PrismaClient } from '../../db/client.js';

export interface CategoryRow {
  id: string;
  name: string;
  slug: string;
  merchantCount: number;
}

export interface AgentRow {
  id: string;
  slug: string;
  name: string;
  vendor: string;
  description: string | null;
}

export async function listCategories(prisma: PrismaClient, offset: number, limit: number) {
  const [total, rows] = await Promise.all([
    prisma.category.count(),
    prisma.$queryRaw<CategoryRow[]>`
      SELECT c.id, c.name, c.slug,
             (SELECT count(*)::int FROM merchants m WHERE m.category_id = c.id AND m.is_public) AS "merchantCount"
        FROM categories c
       ORDER BY c.name, c.id
      OFFSET ${offset} LIMIT ${limit}`,
  ]);
  return { total, rows };
}

/**
 * The canonical category a filter value names: a canonical slug or name, a legacy name or
 * slug, or a merchant's original category string (all case-insensitive).
 */
export async function resolveCategory(prisma: PrismaClient, value: string): Promise<CategoryRow | null> {
  const rows = await prisma.$queryRaw<Array<Omit<CategoryRow, 'merchantCount'>>>`
    SELECT c.id, c.name, c.slug FROM categories c
     WHERE c.slug = lower(${value}) OR lower(c.name) = lower(${value})
        OR c.id IN (SELECT l.category_id FROM category_legacy_names l
                     WHERE l.slug = lower(${value}) OR lower(l.name) = lower(${value}))
        OR c.id IN (SELECT m.category_id FROM merchants m
                     WHERE lower(m.category) = lower(${value}) AND m.category_id IS NOT NULL)
     ORDER BY (c.slug = lower(${value})) DESC, (lower(c.name) = lower(${value})) DESC, c.name
     LIMIT 1`;
  const row = rows[0];
  return row ? { ...row, merchantCount: 0 } : null;
}

const agentSelect = { id: true, slug: true, name: true, vendor: true, description: true } as const;

export async function listActiveAgents(prisma: PrismaClient): Promise<AgentRow[]> {
  return prisma.agent.findMany({ where: { active: true }, select: agentSelect, orderBy: [{ name: 'asc' }, { id: 'asc' }] });
}

export async function findActiveAgent(prisma: PrismaClient, slug: string): Promise<AgentRow | null> {
  return prisma.agent.findFirst({ where: { slug, active: true }, select: agentSelect });
}
