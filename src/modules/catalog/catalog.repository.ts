// Categories and agents as the public directory sees them.
import { Prisma } from '../../generated/prisma/client.js';
import type { PrismaClient } from '../../db/client.js';
import { escapeLike } from '../../db/like.js';
import type { CachedQuery } from '../directory/counts.js';
import { isStorableText } from '../../text.js';

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

/** A page of categories with their public merchant counts (from the directory's query cache). */
export async function listCategories(prisma: PrismaClient, offset: number, limit: number, query: CachedQuery) {
  const [total, rows] = await Promise.all([
    prisma.category.count(),
    query<CategoryRow>(Prisma.sql`
      SELECT c.id, c.name, c.slug,
             (SELECT count(*)::int FROM merchants m WHERE m.category_id = c.id AND m.is_public) AS "merchantCount"
        FROM categories c
       ORDER BY c.name, c.id
      OFFSET ${offset} LIMIT ${limit}`),
  ]);
  return { total, rows };
}

/**
 * The canonical category a filter value names: a canonical slug or name, a legacy name or
 * slug, or a merchant's original category string (all case-insensitive).
 */
export async function resolveCategory(prisma: PrismaClient, value: string): Promise<CategoryRow | null> {
  // Nothing is named with control characters, and PostgreSQL cannot even compare a NUL.
  if (value.length > 200 || !isStorableText(value)) return null;
  const named = await prisma.$queryRaw<Array<Omit<CategoryRow, 'merchantCount'>>>`
    SELECT c.id, c.name, c.slug FROM categories c
     WHERE c.slug = lower(${value}) OR lower(c.name) = lower(${value})
        OR c.id IN (SELECT l.category_id FROM category_legacy_names l
                     WHERE l.slug = lower(${value}) OR lower(l.name) = lower(${value}))
     ORDER BY (c.slug = lower(${value})) DESC, (lower(c.name) = lower(${value})) DESC, c.name
     LIMIT 1`;
  // Only then a merchant's original category string: ILIKE without wildcards is a
  // case-insensitive equality that the trigram index on merchants.category answers.
  const row =
    named[0] ??
    (
      await prisma.$queryRaw<Array<Omit<CategoryRow, 'merchantCount'>>>`
        SELECT c.id, c.name, c.slug FROM categories c
         WHERE c.id IN (SELECT m.category_id FROM merchants m WHERE m.category ILIKE ${escapeLike(value)})
         ORDER BY c.name
         LIMIT 1`
    )[0];
  return row ? { ...row, merchantCount: 0 } : null;
}

const agentSelect = { id: true, slug: true, name: true, vendor: true, description: true } as const;

export async function listActiveAgents(prisma: PrismaClient): Promise<AgentRow[]> {
  return prisma.agent.findMany({ where: { active: true }, select: agentSelect, orderBy: [{ name: 'asc' }, { id: 'asc' }] });
}

export async function findActiveAgent(prisma: PrismaClient, slug: string): Promise<AgentRow | null> {
  return prisma.agent.findFirst({ where: { slug, active: true }, select: agentSelect });
}
