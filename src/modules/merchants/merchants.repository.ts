// Public merchant reads. Every query here returns public data only: public merchants,
// approved reports of active agents, and no private column.
import { Prisma } from '../../generated/prisma/client.js';
import type { PrismaClient } from '../../db/client.js';
import type { OutcomeKey, StageKey } from '../aggregation/constants.js';

export type MerchantSort = 'recent' | 'popular' | 'name' | 'rating';

export interface MerchantSearch {
  q?: string;
  categoryId?: string;
  agentId?: string;
  outcome?: OutcomeKey;
  stage?: StageKey;
  region?: string;
  days?: number;
  minReports?: number;
  sort: MerchantSort;
  offset: number;
  limit: number;
  now: Date;
}

/** A public merchant row with its public satellite data (never a private column). */
export interface MerchantRow {
  id: string;
  slug: string;
  name: string;
  website: string;
  category: string;
  categoryName: string | null;
  categorySlug: string | null;
  serviceRegions: string[];
  reportCount: number;
  lastReportedAt: Date | null;
  sponsorshipSource: 'subscription' | 'publisher_owned' | null;
  sponsorshipPlacement: string | null;
  sponsorshipDisclosure: string | null;
  ownerStatement: string | null;
  ownerTaskClaims: Record<string, string> | null;
  ownerDeclaredAt: Date | null;
}

export interface SummaryRow {
  merchantId: string;
  agentId: string;
  summary: unknown;
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

// The columns of MerchantRow; the sponsorship only while it runs at `now`.
const merchantColumns = (now: Date) => Prisma.sql`
  m.id, m.slug, m.name, m.website, m.category,
  c.name AS "categoryName", c.slug AS "categorySlug",
  m.service_regions AS "serviceRegions",
  m.report_count AS "reportCount", m.last_reported_at AS "lastReportedAt",
  sp.source::text AS "sponsorshipSource", sp.placement AS "sponsorshipPlacement",
  sp.disclosure AS "sponsorshipDisclosure",
  os.statement AS "ownerStatement", os.task_claims AS "ownerTaskClaims", os.declared_at AS "ownerDeclaredAt"
  FROM merchants m
  LEFT JOIN categories c ON c.id = m.category_id
  LEFT JOIN sponsorships sp ON sp.merchant_id = m.id
        AND sp.starts_at <= ${now} AND (sp.ends_at IS NULL OR sp.ends_at > ${now})
  LEFT JOIN owner_statements os ON os.merchant_id = m.id`;

function searchConditions(s: MerchantSearch): Prisma.Sql {
  const conditions: Prisma.Sql[] = [Prisma.sql`m.is_public`];
  if (s.q) {
    const pattern = `%${escapeLike(s.q)}%`;
    conditions.push(Prisma.sql`(m.name ILIKE ${pattern} OR m.slug ILIKE ${pattern} OR m.website ILIKE ${pattern})`);
  }
  if (s.categoryId) conditions.push(Prisma.sql`m.category_id = ${s.categoryId}::uuid`);
  if (s.region) conditions.push(Prisma.sql`(${s.region} = ANY(m.service_regions) OR 'GLOBAL' = ANY(m.service_regions))`);

  // agent, outcome, stage and days select merchants that have one approved report (of an
  // active agent) meeting all of them together.
  if (s.agentId || s.outcome || s.stage || s.days) {
    const report: Prisma.Sql[] = [Prisma.sql`r.merchant_id = m.id`, Prisma.sql`r.status = 'APPROVED'`];
    if (s.agentId) report.push(Prisma.sql`r.agent_id = ${s.agentId}::uuid`);
    if (s.outcome) report.push(Prisma.sql`r.outcome = ${s.outcome}::"Outcome"`);
    if (s.stage) report.push(Prisma.sql`r.stage = ${s.stage}::"Stage"`);
    if (s.days) report.push(Prisma.sql`r.created_at >= ${new Date(s.now.getTime() - s.days * 86_400_000)}`);
    conditions.push(Prisma.sql`EXISTS (SELECT 1 FROM reports r JOIN agents a ON a.id = r.agent_id AND a.active
                                        WHERE ${Prisma.join(report, ' AND ')})`);
  }
  if (s.minReports) {
    conditions.push(
      s.agentId
        ? Prisma.sql`coalesce(sa.report_count, 0) >= ${s.minReports}`
        : Prisma.sql`m.report_count >= ${s.minReports}`,
    );
  }
  return Prisma.join(conditions, ' AND ');
}

// Sponsored listings first, then the chosen order, then id so pages are stable.
function searchOrder(s: MerchantSearch): Prisma.Sql {
  const sponsoredFirst = Prisma.sql`(sp.id IS NULL)`;
  const count = s.agentId ? Prisma.sql`coalesce(sa.report_count, 0)` : Prisma.sql`m.report_count`;
  const last = s.agentId ? Prisma.sql`sa.last_reported_at` : Prisma.sql`m.last_reported_at`;
  switch (s.sort) {
    case 'name':
      return Prisma.sql`${sponsoredFirst}, m.name, m.id`;
    case 'popular':
      return Prisma.sql`${sponsoredFirst}, ${count} DESC, m.name, m.id`;
    case 'rating':
      return Prisma.sql`${sponsoredFirst}, sa.rating DESC NULLS LAST, ${count} DESC, m.name, m.id`;
    case 'recent':
      return Prisma.sql`${sponsoredFirst}, ${last} DESC NULLS LAST, m.name, m.id`;
  }
}

const agentSummaryJoin = (s: MerchantSearch) =>
  s.agentId
    ? Prisma.sql`LEFT JOIN merchant_agent_summaries sa ON sa.merchant_id = m.id AND sa.agent_id = ${s.agentId}::uuid`
    : Prisma.empty;

export async function searchMerchants(
  prisma: PrismaClient,
  s: MerchantSearch,
): Promise<{ total: number; rows: MerchantRow[] }> {
  const where = searchConditions(s);
  const join = agentSummaryJoin(s);
  const [rows, counted] = await Promise.all([
    prisma.$queryRaw<MerchantRow[]>`
      SELECT ${merchantColumns(s.now)} ${join}
       WHERE ${where}
       ORDER BY ${searchOrder(s)}
      OFFSET ${s.offset} LIMIT ${s.limit}`,
    prisma.$queryRaw<Array<{ total: number }>>`
      SELECT count(*)::int AS total FROM merchants m ${join} WHERE ${where}`,
  ]);
  return { total: counted[0]?.total ?? 0, rows };
}

/** A public merchant by id (UUID) or slug. */
export async function findPublicMerchant(
  prisma: PrismaClient,
  key: { id: string } | { slug: string },
  now: Date,
): Promise<MerchantRow | null> {
  const match = 'id' in key ? Prisma.sql`m.id = ${key.id}::uuid` : Prisma.sql`m.slug = ${key.slug}`;
  const rows = await prisma.$queryRaw<MerchantRow[]>`
    SELECT ${merchantColumns(now)} WHERE m.is_public AND ${match}`;
  return rows[0] ?? null;
}

/** Stored summaries of active agents for these merchants (all agents, or one). */
export async function summariesFor(
  prisma: PrismaClient,
  merchantIds: readonly string[],
  agentId?: string,
): Promise<SummaryRow[]> {
  if (merchantIds.length === 0) return [];
  return prisma.$queryRaw<SummaryRow[]>`
    SELECT s.merchant_id AS "merchantId", s.agent_id AS "agentId", s.summary
      FROM merchant_agent_summaries s JOIN agents a ON a.id = s.agent_id AND a.active
     WHERE s.merchant_id = ANY(${merchantIds}::uuid[])
       ${agentId ? Prisma.sql`AND s.agent_id = ${agentId}::uuid` : Prisma.empty}
       AND s.report_count > 0`;
}
