// Public merchant reads. Every query here returns public data only: public merchants,
// approved reports of active agents, and no private column.
import type pg from 'pg';
import { Prisma } from '../../generated/prisma/client.js';
import type { PrismaClient } from '../../db/client.js';
import { facetToken } from '../aggregation/facets.js';
import { statusTokensOf } from '../aggregation/status-bits.js';
import { PUBLIC_SUMMARIES } from '../aggregation/public-evidence.js';
import { uncachedCounter, type Counter } from '../directory/counts.js';
import { pageIdentity, type Listing, type ListingSearch } from '../directory/listing.js';
import { escapeLike } from '../../db/like.js';

/** A search as SQL reads it: the listing's search, and how. */
export interface MerchantSearch extends ListingSearch {
  /** Also count the sponsored listings among the matches (the pages say "19 shops + 4 sponsored"). */
  countSponsored?: boolean;
  /** Searches with at most this many matches are gathered whole and sorted (default GATHER_AT_MOST; tests set 0 or Infinity). */
  gatherAtMost?: number;
}

/**
 * A search matching at most this many merchants is answered by gathering every match through
 * its filter, then sorting them (`gatherPage`); a broader one walks its sort order's index
 * (`searchMerchants`), where matches are dense enough to fill a page after a short walk.
 * Walking a sort index for a selective filter (`task=ACCESS&taskStatus=untested`, a few hundred
 * of 100,000 merchants) read most of the index to fill one page: 300-700 ms.
 */
const GATHER_AT_MOST = 2_000;

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
  /** Whether the statement was written by the owner under a verified claim (else a moderator entered it). */
  ownerByClaim: boolean;
  /** The merchant's verified claim (the earliest): how, and when, its owner proved it. */
  claimMethod: 'DNS' | 'FILE' | 'META' | null;
  claimVerifiedAt: Date | null;
}

export interface SummaryRow {
  merchantId: string;
  agentId: string;
  summary: unknown;
}

// The columns of MerchantRow; the sponsorship only while it runs at `now`; the owner's statement
// only while the claim it was written under is verified (or in grace), or when a moderator
// entered it (no claim); the earliest verified claim.
const merchantColumns = (now: Date) => Prisma.sql`
  m.id, m.slug, m.name, m.website, m.category,
  c.name AS "categoryName", c.slug AS "categorySlug",
  m.service_regions AS "serviceRegions",
  m.report_count AS "reportCount", m.last_reported_at AS "lastReportedAt",
  sp.source::text AS "sponsorshipSource", sp.placement AS "sponsorshipPlacement",
  sp.disclosure AS "sponsorshipDisclosure",
  os.statement AS "ownerStatement", os.task_claims AS "ownerTaskClaims", os.declared_at AS "ownerDeclaredAt",
  (os.claim_id IS NOT NULL) AS "ownerByClaim",
  vc.method::text AS "claimMethod", vc.verified_at AS "claimVerifiedAt"
  FROM merchants m
  LEFT JOIN categories c ON c.id = m.category_id
  LEFT JOIN sponsorships sp ON sp.merchant_id = m.id
        AND sp.starts_at <= ${now} AND (sp.ends_at IS NULL OR sp.ends_at > ${now})
  LEFT JOIN owner_statements os ON os.merchant_id = m.id
        AND (os.claim_id IS NULL OR EXISTS (SELECT 1 FROM claims oc WHERE oc.id = os.claim_id AND oc.status IN ('VERIFIED', 'GRACE')))
  LEFT JOIN LATERAL (
    SELECT cl.method, cl.verified_at FROM claims cl
     WHERE cl.merchant_id = m.id AND cl.status IN ('VERIFIED', 'GRACE') AND cl.verified_at IS NOT NULL
     ORDER BY cl.verified_at, cl.id LIMIT 1
  ) vc ON true`;

function searchConditions(s: MerchantSearch): Prisma.Sql {
  const conditions: Prisma.Sql[] = [Prisma.sql`m.is_public`];
  if (s.q) {
    const pattern = `%${escapeLike(s.q)}%`;
    conditions.push(Prisma.sql`(m.name ILIKE ${pattern} OR m.slug ILIKE ${pattern} OR m.website ILIKE ${pattern})`);
  }
  if (s.categoryId) conditions.push(Prisma.sql`m.category_id = ${s.categoryId}::uuid`);
  if (s.region) conditions.push(Prisma.sql`(${s.region} = ANY(m.service_regions) OR 'GLOBAL' = ANY(m.service_regions))`);

  // outcome, stage and days (with the agent, when given) select merchants that have one
  // approved report of an active agent meeting all of them together: the report facets
  // (aggregation/facets.ts) hold each outcome/stage token with its newest report's date, per
  // merchant and per merchant+agent summary, so no report is read. The agent alone is the
  // summary join: a summary row exists exactly when there are such reports.
  const facets = s.agentId ? Prisma.sql`sa.facets` : Prisma.sql`m.report_facets`;
  const token = facetToken(s.outcome, s.stage);
  const since = s.days ? new Date(s.now.getTime() - s.days * 86_400_000) : null;
  if (token) {
    conditions.push(Prisma.sql`${facets} ? ${token}`);
    if (since) conditions.push(Prisma.sql`(${facets} ->> ${token})::timestamptz >= ${since}`);
  } else if (since) {
    conditions.push(s.agentId ? Prisma.sql`sa.last_reported_at >= ${since}` : Prisma.sql`m.last_reported_at >= ${since}`);
  }
  if (s.minReports && !s.agentId) conditions.push(Prisma.sql`m.report_count >= ${s.minReports}`);
  conditions.push(...summaryConditions(s));
  return Prisma.join(conditions, ' AND ');
}

/**
 * The conditions on the agent's summary row alone (its stored columns, no JSON): what the
 * summaries say about the agent at the merchant. The reach filters need the agent; the schema
 * refuses them without one, and so does this.
 */
function summaryConditions(s: MerchantSearch): Prisma.Sql[] {
  const reach = s.reachLevel !== undefined || s.statusMask !== undefined || s.minConfidence !== undefined || s.sort === 'reach';
  if (!s.agentId) {
    if (reach) throw new Error('the reach filters and sort=reach need an agent');
    return [];
  }
  const conditions: Prisma.Sql[] = [];
  if (s.minReports) conditions.push(Prisma.sql`sa.report_count >= ${s.minReports}`);
  if (s.reachLevel !== undefined && s.reachLevel > 0) conditions.push(Prisma.sql`sa.reach_level >= ${s.reachLevel}`);
  if (s.minConfidence !== undefined && s.minConfidence > 0) conditions.push(Prisma.sql`sa.reach_confidence >= ${s.minConfidence}`);
  // Evaluated on the covering reach index (status_bits is its last column), never on the rows.
  if (s.statusMask !== undefined) conditions.push(Prisma.sql`(sa.status_bits & ${s.statusMask}::bigint) <> 0`);
  return conditions;
}

// Merchants with a sponsorship running now. EXISTS rather than `m.id IN (...)`: negated, NOT IN
// cannot become an anti-join (NULL semantics), and the hashed subplan it becomes is costed
// once per probed merchant, which made the planner walk an agent's index in parallel workers
// (40-50 ms at 100,000 merchants for a page NOT EXISTS answers in 1 ms with index probes).
const sponsoredNow = (now: Date) => Prisma.sql`EXISTS (
  SELECT 1 FROM sponsorships sp WHERE sp.merchant_id = m.id AND sp.starts_at <= ${now} AND (sp.ends_at IS NULL OR sp.ends_at > ${now}))`;

/** The merchants (and, for an agent, its summaries) that a search reads from. */
const searchFrom = (s: MerchantSearch) =>
  s.agentId
    ? Prisma.sql`merchant_agent_summaries sa JOIN merchants m ON m.id = sa.merchant_id
                   AND sa.agent_id = ${s.agentId}::uuid AND sa.report_count > 0`
    : Prisma.sql`merchants m`;

/**
 * The chosen order, then name and id so pages are stable. "recent" puts merchants without
 * reports last; it is split in two segments (with and without a last report) so that each
 * can walk an index instead of sorting the directory.
 */
/** A sort key: a column and its direction (nulls where PostgreSQL puts them by default). */
type SortKey = [column: Prisma.Sql, direction: 'ASC' | 'DESC'];
const asc = (column: Prisma.Sql): SortKey => [column, 'ASC'];
const desc = (column: Prisma.Sql): SortKey => [column, 'DESC'];

/**
 * An ORDER BY of these keys, or of their exact reverse: each direction flipped, which flips
 * where nulls go too (DESC puts them first, ASC last), so an index is walked backwards.
 */
const orderBy = (keys: SortKey[], reversed = false): Prisma.Sql =>
  Prisma.join(
    keys.map(([column, direction]) => Prisma.sql`${column} ${Prisma.raw((direction === 'DESC') !== reversed ? 'DESC' : 'ASC')}`),
    ', ',
  );

function orderSegments(s: MerchantSearch): Array<{ where: Prisma.Sql; order: SortKey[] }> {
  const count = s.agentId ? Prisma.sql`sa.report_count` : Prisma.sql`m.report_count`;
  const last = s.agentId ? Prisma.sql`sa.last_reported_at` : Prisma.sql`m.last_reported_at`;
  const byName = [asc(Prisma.sql`m.name`), asc(Prisma.sql`m.id`)];
  switch (s.sort) {
    case 'name':
      return [{ where: Prisma.sql`true`, order: byName }];
    case 'popular':
      return [{ where: Prisma.sql`true`, order: [desc(count), ...byName] }];
    case 'rating':
      return [{ where: Prisma.sql`true`, order: [desc(Prisma.sql`sa.rating`), desc(count), ...byName] }];
    case 'reach':
      // Walks the (agent, reach_level DESC, reach_confidence DESC, last_reported_at DESC, ...)
      // index. last_reported_at is never null on a listed row (report_count > 0 means a last
      // report), so its DESC here (nulls first, as the index has it) is the documented "nulls
      // last"; written NULLS LAST, the index would order only the first two keys.
      return [
        {
          where: Prisma.sql`true`,
          order: [desc(Prisma.sql`sa.reach_level`), desc(Prisma.sql`sa.reach_confidence`), desc(Prisma.sql`sa.last_reported_at`), ...byName],
        },
      ];
    case 'recent':
      return [
        { where: Prisma.sql`${last} IS NOT NULL`, order: [desc(last), ...byName] },
        { where: Prisma.sql`${last} IS NULL`, order: byName },
      ];
  }
}

async function idsOf(prisma: PrismaClient, sql: Prisma.Sql): Promise<string[]> {
  return (await prisma.$queryRaw<Array<{ id: string }>>(sql)).map((r) => r.id);
}

const countQuery = (from: Prisma.Sql, where: Prisma.Sql) => Prisma.sql`SELECT count(*)::int AS n FROM ${from} WHERE ${where}`;

/**
 * The search's matches with a sponsorship running now, counted from the sponsorships (a few
 * hundred at most) into the search: through the search's tables, the planner walked every
 * summary of an agent to test each one (0.7 s at 100,000 merchants).
 */
const sponsoredCountQuery = (now: Date, from: Prisma.Sql, where: Prisma.Sql) => Prisma.sql`
  SELECT count(*)::int AS n FROM sponsorships running JOIN ${from} ON m.id = running.merchant_id
   WHERE running.starts_at <= ${now} AND (running.ends_at IS NULL OR running.ends_at > ${now}) AND ${where}`;

/**
 * One page of a search with few matches: every match is read through the filter (a MATERIALIZED
 * CTE, so that the planner reads them by the index that leads with the filter instead of walking
 * a sort order), with its sort keys and whether it is sponsored now, then sorted as
 * `orderSegments` and the sponsored-first rule order them, in memory.
 */
function gatherQuery(s: MerchantSearch, from: Prisma.Sql, where: Prisma.Sql, sponsored: Prisma.Sql): Prisma.Sql {
  const count = s.agentId ? Prisma.sql`sa.report_count` : Prisma.sql`m.report_count`;
  const last = s.agentId ? Prisma.sql`sa.last_reported_at` : Prisma.sql`m.last_reported_at`;
  const agentColumns = s.agentId ? Prisma.sql`, sa.rating, sa.reach_level, sa.reach_confidence` : Prisma.empty;
  const order = {
    name: Prisma.sql`name, id`,
    popular: Prisma.sql`n DESC, name, id`,
    rating: Prisma.sql`rating DESC, n DESC, name, id`,
    reach: Prisma.sql`reach_level DESC, reach_confidence DESC, last DESC, name, id`,
    // With a last report first, newest first; then those without, by name.
    recent: Prisma.sql`last IS NULL, last DESC, name, id`,
  }[s.sort];
  // The task-status mask again as the tokens it stands for (the same statuses, written together):
  // the planner has statistics for the tokens, and a GIN index, where it takes the bitwise test
  // to match nearly every row, and chose a hash join over every merchant (400 ms for 395 matches).
  const tokens = s.statusMask !== undefined ? statusTokensOf(s.statusMask) : [];
  const hint = tokens.length > 0 ? Prisma.sql` AND sa.status_tokens && ${tokens}::text[]` : Prisma.empty;
  return Prisma.sql`
    WITH hits AS MATERIALIZED (
      SELECT m.id, m.name, ${count} AS n, ${last} AS last${agentColumns}, ${sponsored} AS sponsored
        FROM ${from} WHERE ${where}${hint})
    SELECT id FROM hits ORDER BY sponsored DESC, ${order} OFFSET ${s.offset} LIMIT ${s.limit}`;
}

/**
 * One page of the directory: sponsored listings running now come first (in the chosen order),
 * then everyone else. The in-memory listing (directory/listing.ts) names the page's merchants
 * when the request has one as new as its version; otherwise PostgreSQL does (`searchIds`).
 */
export async function searchMerchants<T = undefined>(
  prisma: PrismaClient,
  s: MerchantSearch,
  count: Counter = uncachedCounter(prisma),
  listing: Listing | null = null,
  /** A read of the page's merchants made at the same time as their rows (their summaries). */
  alongside?: (ids: readonly string[]) => Promise<T>,
): Promise<{ total: number; sponsored: number | null; rows: MerchantRow[]; page: string | null; alongside: T | undefined }> {
  const listed = listing?.search(s);
  const { total, sponsored, ids } = listed ?? (await searchIds(prisma, s, count));
  const sponsoredShown = s.countSponsored ? sponsored : null;
  // The listing's page can be found again (a cached list is kept while it is the same); SQL's is not.
  const page = listed ? pageIdentity(listed) : null;
  const [rows, extra] = await Promise.all([
    ids.length === 0 ? [] : prisma.$queryRaw<MerchantRow[]>`SELECT ${merchantColumns(s.now)} WHERE m.id = ANY(${ids}::uuid[])`,
    alongside?.(ids),
  ]);
  const byId = new Map(rows.map((row) => [row.id, row]));
  return {
    total,
    sponsored: sponsoredShown,
    rows: ids.map((id) => byId.get(id)).filter((row): row is MerchantRow => row !== undefined),
    page,
    alongside: extra,
  };
}

/**
 * The page's merchant ids, its matches and its sponsored matches, asked of PostgreSQL. The
 * search's count and its sponsored count (both cached per directory version) say which of the
 * two groups the page falls in: a group of few matches is gathered and sorted, a larger one
 * walked segment by segment along an index with its own OFFSET (from the nearer end); a segment
 * is counted only when the range starts past its end. A page past the sponsored listings never
 * walks the sort order looking for them.
 */
async function searchIds(prisma: PrismaClient, s: MerchantSearch, count: Counter): Promise<{ total: number; sponsored: number; ids: string[] }> {
  const from = searchFrom(s);
  const where = searchConditions(s);
  const sponsored = sponsoredNow(s.now);
  const segments = orderSegments(s);
  // Through the merchants even when only the summary is filtered: a merchant hidden keeps its
  // summaries (counting them alone counted hidden merchants that no page lists).
  const countAll = () => count(countQuery(from, where));
  const gatherAtMost = s.gatherAtMost ?? GATHER_AT_MOST;
  /**
   * Rows [first, first + take) of one group of the matches (the sponsored ones, or the rest;
   * `size` of them): gathered and sorted when the group is small, else walked segment by segment
   * with an OFFSET; a range in the second half of the group walks from the end instead (each
   * segment's order reversed, the segments in reverse order, the offset counted from the end,
   * the rows turned round), so that the last pages cost what the first ones do.
   */
  const readGroup = async (condition: Prisma.Sql, size: number, first: number, take: number): Promise<string[]> => {
    if (take <= 0) return [];
    const groupWhere = Prisma.sql`${where} AND ${condition}`;
    if (size <= gatherAtMost) return idsOf(prisma, gatherQuery({ ...s, offset: first, limit: take }, from, groupWhere, sponsored));
    const fromEnd = first > size - first - take;
    const parts = segments.map((g) => ({ where: Prisma.sql`${groupWhere} AND ${g.where}`, order: g.order }));
    const ids: string[] = [];
    let skip = fromEnd ? size - first - take : first;
    for (const part of fromEnd ? parts.reverse() : parts) {
      if (ids.length >= take) break;
      const page = await idsOf(
        prisma,
        Prisma.sql`SELECT m.id FROM ${from} WHERE ${part.where} ORDER BY ${orderBy(part.order, fromEnd)} OFFSET ${skip} LIMIT ${take - ids.length}`,
      );
      ids.push(...page);
      // An empty answer with an offset means the range starts past this segment: carry the
      // rest of the offset into the next one.
      skip = page.length === 0 && skip > 0 ? Math.max(0, skip - (await count(countQuery(from, part.where)))) : 0;
    }
    return fromEnd ? ids.reverse() : ids;
  };
  // Both counts come first (each is cached per directory version): they say which group the page
  // falls in and which way it is read. The sponsored one is driven from the running
  // sponsorships, through the search's own conditions; a page past them never walks for them.
  const [total, sponsoredTotal] = await Promise.all([countAll(), count(sponsoredCountQuery(s.now, from, where))]);
  const end = Math.min(total, s.offset + s.limit);
  const ids =
    total === 0 || s.offset >= total
      ? []
      : total <= gatherAtMost
        ? await idsOf(prisma, gatherQuery(s, from, where, sponsored))
        : [
            ...(await readGroup(sponsored, sponsoredTotal, s.offset, Math.min(end, sponsoredTotal) - s.offset)),
            ...(await readGroup(Prisma.sql`NOT ${sponsored}`, total - sponsoredTotal, Math.max(0, s.offset - sponsoredTotal), end - Math.max(s.offset, sponsoredTotal))),
          ];
  return { total, sponsored: sponsoredTotal, ids };
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

/**
 * Stored summaries of active agents for these merchants (all agents, or one). The stored
 * 90-day trend comes only when asked for (the merchant detail): lists never show it, and
 * leaving it in the database saves parsing it on every list page.
 */
export async function summariesFor(
  prisma: PrismaClient,
  merchantIds: readonly string[],
  agentId?: string,
  options: { trend?: boolean } = {},
): Promise<SummaryRow[]> {
  if (merchantIds.length === 0) return [];
  const rows = await prisma.$queryRaw<Array<{ merchantId: string; agentId: string; summary: string }>>(summariesQuery(merchantIds, agentId, options));
  return rows.map((row) => ({ ...row, summary: JSON.parse(row.summary) as unknown }));
}

/**
 * summariesFor (without the trend) through pg itself, for the compact list: through Prisma, the
 * ~190 stored texts of a page without an agent (about 1 MB) cost a deep page up to 70-100 ms
 * (the same as listSummariesFor found for the list fragments).
 */
export async function summaryTextsFor(pool: pg.Pool, merchantIds: readonly string[], agentId?: string): Promise<SummaryRow[]> {
  if (merchantIds.length === 0) return [];
  const query = summariesQuery(merchantIds, agentId, {});
  const { rows } = await pool.query<{ merchantId: string; agentId: string; summary: string }>(query.text, query.values);
  return rows.map((row) => ({ ...row, summary: JSON.parse(row.summary) as unknown }));
}

function summariesQuery(merchantIds: readonly string[], agentId: string | undefined, options: { trend?: boolean }): Prisma.Sql {
  // As text, parsed here: Prisma's own decoding of jsonb values took twice as long as the query.
  // Without the trend, the stored text (summary_text): printing the jsonb took longer still.
  const document = options.trend ? Prisma.sql`s.summary::text` : Prisma.sql`s.summary_text`;
  return Prisma.sql`
    SELECT s.merchant_id AS "merchantId", s.agent_id AS "agentId", ${document} AS summary
      FROM ${PUBLIC_SUMMARIES}
     WHERE s.merchant_id = ANY(${merchantIds}::uuid[])
       ${agentId ? Prisma.sql`AND s.agent_id = ${agentId}::uuid` : Prisma.empty}
       AND (s.report_count > 0 OR s.self_reported_count > 0)`;
}

/** Public merchants after `afterId` in id order (the bulk export walks them with this). */
export async function publicMerchantPage(prisma: PrismaClient, afterId: string | null, limit: number, now: Date): Promise<MerchantRow[]> {
  return prisma.$queryRaw<MerchantRow[]>`
    SELECT ${merchantColumns(now)}
     WHERE m.is_public ${afterId ? Prisma.sql`AND m.id > ${afterId}::uuid` : Prisma.empty}
     ORDER BY m.id LIMIT ${limit}`;
}

/** A summary as a list reads it: its stored list fragment when printed by this code's stamp, else the document to build it from. */
export interface ListSummaryRow {
  merchantId: string;
  agentId: string;
  fragment: string | null;
  summary: unknown;
}

/**
 * The list bodies of active agents' summaries for these merchants (all agents, or one): each
 * summary's stored fragment where its stamp is `stamp`, else its document (summary_text,
 * parsed). Only the one that is used is read from its TOAST chunks.
 *
 * Read through pg itself, not Prisma's $queryRaw: a page of every agent is about 120 texts,
 * 620 KB, and through Prisma those strings outlived the young generation. The same query on the
 * same 150 pages: 6-12 collections taking 139-220 ms (one or two full) through Prisma, 3-5 taking
 * 39-77 ms (none full) through pg (docs/decisions.md, issue 38).
 */
export async function listSummariesFor(pool: pg.Pool, merchantIds: readonly string[], agentId: string | undefined, stamp: string): Promise<ListSummaryRow[]> {
  if (merchantIds.length === 0) return [];
  const query = Prisma.sql`
    SELECT s.merchant_id AS "merchantId", s.agent_id AS "agentId",
           CASE WHEN s.list_stamp = ${stamp} THEN s.list_json END AS fragment,
           CASE WHEN s.list_stamp = ${stamp} AND s.list_json IS NOT NULL THEN NULL ELSE s.summary_text END AS summary
      FROM ${PUBLIC_SUMMARIES}
     WHERE s.merchant_id = ANY(${merchantIds}::uuid[])
       ${agentId ? Prisma.sql`AND s.agent_id = ${agentId}::uuid` : Prisma.empty}
       AND (s.report_count > 0 OR s.self_reported_count > 0)`;
  const { rows } = await pool.query<{ merchantId: string; agentId: string; fragment: string | null; summary: string | null }>(query.text, query.values);
  return rows.map((row) => ({ ...row, summary: row.summary === null ? null : (JSON.parse(row.summary) as unknown) }));
}
