// Categories and agents as the public directory sees them.
import { Prisma } from '../../generated/prisma/client.js';
import type { PrismaClient } from '../../db/client.js';
import { escapeLike } from '../../db/like.js';
import type { CachedQuery } from '../directory/counts.js';
import { isStorableText } from '../../text.js';
import { IS_PUBLIC_REPORT, ofPublicMerchant } from '../aggregation/public-evidence.js';

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
  vendorWebsite: string | null;
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

const agentSelect = { id: true, slug: true, name: true, vendor: true, description: true, vendorWebsite: true } as const;

export async function listActiveAgents(prisma: PrismaClient): Promise<AgentRow[]> {
  return prisma.agent.findMany({ where: { active: true }, select: agentSelect, orderBy: [{ name: 'asc' }, { id: 'asc' }] });
}

/**
 * The active agents, as listActiveAgents reads them, through a request's cached queries
 * (directory/counts.ts): read once per directory version (a change to an agent is a new
 * version), and shared by the requests of that version, so not to be modified. The lists read
 * them on every request: through Prisma, 1.4 ms of the main thread and a round trip each.
 */
export async function activeAgentsOfVersion(query: CachedQuery): Promise<readonly AgentRow[]> {
  return query<AgentRow>(
    Prisma.sql`SELECT id, slug, name, vendor, description, vendor_website AS "vendorWebsite" FROM agents WHERE active ORDER BY name, id`,
  );
}

/** The active agent with this slug among activeAgentsOfVersion's (shared: not to be modified), or null. */
export async function activeAgentOfVersion(query: CachedQuery, slug: string): Promise<AgentRow | null> {
  return (await activeAgentsOfVersion(query)).find((agent) => agent.slug === slug) ?? null;
}

export async function findActiveAgent(prisma: PrismaClient, slug: string): Promise<AgentRow | null> {
  return prisma.agent.findFirst({ where: { slug, active: true }, select: agentSelect });
}

/** Versions listed per agent in the registry: the newest this many. */
export const MAX_AGENT_VERSIONS = 20;

export interface AgentVersionRow {
  agentId: string;
  version: string;
  reportCount: number;
  lastSeenAt: Date;
}

/**
 * The agentVersion values of the public reports (approved, public merchant, active agent) of
 * these agents, newest first: by the newest observation naming the version (its test date, else
 * its report date, as "newest" is judged everywhere), then the most reported, then the version
 * text descending. Versions are the vendors' own strings, trimmed (issue 37;
 * aggregation/agent-versions.ts), compared exactly.
 *
 * Each version's count is kept by triggers on the summaries (agent_version_totals, from each
 * pair's version_counts); when it was last observed is the first entry of the reports' index on
 * (agent, version, approved, observed time) that is of a public merchant: a probe per version
 * instead of grouping every report (1.9 s at 2,000,000 reports).
 */
export async function agentVersions(prisma: PrismaClient, agentIds: readonly string[]): Promise<Map<string, AgentVersionRow[]>> {
  const byAgent = new Map<string, AgentVersionRow[]>();
  if (agentIds.length === 0) return byAgent;
  const rows = await prisma.$queryRaw<AgentVersionRow[]>`
    SELECT v."agentId", v.version, v."reportCount", v."lastSeenAt" FROM (
      SELECT t.agent_id AS "agentId", t.version, t.reports AS "reportCount", seen.at AS "lastSeenAt",
             row_number() OVER (PARTITION BY t.agent_id ORDER BY seen.at DESC, t.reports DESC, t.version DESC) AS rank
        FROM agent_version_totals t
       CROSS JOIN LATERAL (
             SELECT r.observed_at AS at FROM reports r
              WHERE r.agent_id = t.agent_id AND r.version_key = t.version AND ${IS_PUBLIC_REPORT}
                AND ${ofPublicMerchant('r')}
              ORDER BY r.observed_at DESC LIMIT 1) seen
       WHERE t.agent_id = ANY(${[...agentIds]}::uuid[]) AND t.reports > 0) v
     WHERE v.rank <= ${MAX_AGENT_VERSIONS}
     ORDER BY v."agentId", v.rank`;
  for (const row of rows) byAgent.set(row.agentId, [...(byAgent.get(row.agentId) ?? []), row]);
  return byAgent;
}

/** The verified vendors' statements of these agents (a statement shows only while its claim is verified). */
export async function vendorStatements(prisma: PrismaClient, agentIds: readonly string[]) {
  if (agentIds.length === 0) return new Map<string, { statement: string; declaredAt: Date }>();
  const rows = await prisma.vendorStatement.findMany({
    where: { agentId: { in: [...agentIds] }, claim: { status: { in: ['VERIFIED', 'GRACE'] } } },
    select: { agentId: true, statement: true, declaredAt: true },
  });
  return new Map(rows.map((r) => [r.agentId, { statement: r.statement, declaredAt: r.declaredAt }]));
}
