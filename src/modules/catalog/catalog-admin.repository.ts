// Moderators' access to categories (with their legacy names) and agents: the rows behind the
// admin pages and their writes.
import type { Db, PrismaClient } from '../../db/client.js';

export interface NamedRow {
  id: string;
  name: string;
  slug: string;
}

export interface LegacyRow extends NamedRow {
  category_id: string;
  category_name: string;
}

export interface AgentFields {
  name: string;
  vendor: string;
  description: string | null;
  vendorWebsite: string | null;
}

// Categories

/** Every category, for a merchant form's choice. */
export const categoryChoices = (db: Db) => db.category.findMany({ select: { id: true, name: true }, orderBy: [{ name: 'asc' }, { id: 'asc' }] });

export const categoriesForAdmin = (prisma: PrismaClient) =>
  prisma.category.findMany({
    orderBy: [{ name: 'asc' }, { id: 'asc' }],
    include: { legacyNames: { select: { name: true, slug: true }, orderBy: { name: 'asc' } }, _count: { select: { merchants: true } } },
  });

export const categoryForAdmin = (prisma: PrismaClient, id: string) =>
  prisma.category.findUnique({ where: { id }, include: { legacyNames: { orderBy: { name: 'asc' } }, _count: { select: { merchants: true } } } });

export const findCategory = (db: Db, id: string) => db.category.findUnique({ where: { id } });

/** Categories and legacy names whose name or slug equals `name` or `slug` (case-insensitively). */
export async function categoryNameRivals(db: Db, name: string, slug: string): Promise<{ categories: NamedRow[]; legacy: LegacyRow[] }> {
  const [categories, legacy] = await Promise.all([
    db.$queryRaw<NamedRow[]>`
      SELECT id, name, slug FROM categories
       WHERE (lower(name) IN (lower(${name}), lower(${slug})) OR slug IN (lower(${name}), lower(${slug})))`,
    db.$queryRaw<LegacyRow[]>`
      SELECT l.id, l.name, l.slug, l.category_id, c.name AS category_name
        FROM category_legacy_names l JOIN categories c ON c.id = l.category_id
       WHERE (lower(l.name) IN (lower(${name}), lower(${slug})) OR l.slug IN (lower(${name}), lower(${slug})))`,
  ]);
  return { categories, legacy };
}

export const insertCategory = (db: Db, fields: { name: string; slug: string }, now: Date) =>
  db.category.create({ data: { ...fields, createdAt: now, updatedAt: now } });

export const updateCategoryRow = (db: Db, id: string, fields: { name: string; slug: string }, now: Date) =>
  db.category.update({ where: { id }, data: { ...fields, updatedAt: now } });

/** Drops the legacy names of a category that its new canonical name or slug now covers. */
export const dropCoveredLegacyNames = (db: Db, categoryId: string, fields: { name: string; slug: string }) =>
  db.categoryLegacyName.deleteMany({
    where: { categoryId, OR: [{ slug: fields.slug }, { name: { equals: fields.name, mode: 'insensitive' } }] },
  });

/** A legacy name (of any category) that holds this name or slug. */
export const legacyNameHolding = (db: Db, fields: { name: string; slug: string }) =>
  db.categoryLegacyName.findFirst({ where: { OR: [{ slug: fields.slug }, { name: { equals: fields.name, mode: 'insensitive' } }] } });

export const insertLegacyName = (db: Db, categoryId: string, fields: { name: string; slug: string }, now: Date) =>
  db.categoryLegacyName.create({ data: { ...fields, categoryId, createdAt: now } });

export const findLegacyName = (db: Db, categoryId: string, id: string) => db.categoryLegacyName.findFirst({ where: { id, categoryId } });

export const deleteLegacyName = (db: Db, id: string) => db.categoryLegacyName.delete({ where: { id } });

// Agents

export const agentsForAdmin = (prisma: PrismaClient) =>
  prisma.agent.findMany({ orderBy: [{ name: 'asc' }, { id: 'asc' }], include: { _count: { select: { reports: true, agentKeys: true } } } });

export const agentForAdmin = (prisma: PrismaClient, id: string) =>
  prisma.agent.findUnique({ where: { id }, include: { _count: { select: { reports: true, agentKeys: true, summaries: true } } } });

export const findAgent = (db: Db, id: string) => db.agent.findUnique({ where: { id } });

export const agentWithSlug = (db: Db, slug: string) => db.agent.findUnique({ where: { slug }, select: { id: true } });

/** Whether an agent other than `exceptId` has this name (case-insensitively). */
export async function agentNameTaken(db: Db, name: string, exceptId: string | null): Promise<boolean> {
  const other = await db.agent.findFirst({
    where: { name: { equals: name, mode: 'insensitive' }, ...(exceptId ? { id: { not: exceptId } } : {}) },
    select: { id: true },
  });
  return other !== null;
}

export const insertAgent = (db: Db, fields: AgentFields & { slug: string }, now: Date) =>
  db.agent.create({ data: { ...fields, active: true, createdAt: now, updatedAt: now } });

export const updateAgentRow = (db: Db, id: string, fields: AgentFields, now: Date) => db.agent.update({ where: { id }, data: { ...fields, updatedAt: now } });

/** Sets `active` when it differs; whether it did. */
export async function flipAgentActive(db: Db, id: string, active: boolean, now: Date): Promise<boolean> {
  const updated = await db.$queryRaw<Array<{ id: string }>>`
    UPDATE agents SET active = ${active}, updated_at = ${now}
     WHERE id = ${id}::uuid AND active = ${!active} RETURNING id`;
  return updated.length > 0;
}

/** Every merchant with a report of this agent in any status, or a summary of it. */
export async function merchantsOfAgent(db: Db, agentId: string): Promise<string[]> {
  const rows = await db.$queryRaw<Array<{ merchant_id: string }>>`
    SELECT DISTINCT merchant_id FROM reports WHERE agent_id = ${agentId}::uuid
    UNION
    SELECT merchant_id FROM merchant_agent_summaries WHERE agent_id = ${agentId}::uuid`;
  return rows.map((r) => r.merchant_id);
}
