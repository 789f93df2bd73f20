// Loads the evidence the aggregation engine needs and stores its precomputed results.
// The only place where aggregation talks to the database.
import { Prisma } from '../../generated/prisma/client.js';
import type { Db } from '../../db/client.js';
import { IS_PUBLIC_REPORT, PUBLIC_REPORTS, SELF_REPORTED_BY } from './public-evidence.js';
import type { EvidenceReport, SelfReportedBy } from './observations.js';
import type { Facets } from './facets.js';
import type { FeedWeeks } from './feed-weeks.js';
import type { FailureReasonKey, OutcomeKey, StageKey, TaskKey } from './constants.js';
import type { StatusChange, StatusSnapshot } from './status-changes.js';


export interface SummaryRow {
  merchantId: string;
  agentId: string;
  summary: unknown;
  rating: number;
  /** Independent reports (the community's); self-reported ones are counted apart. */
  reportCount: number;
  selfReportedCount: number;
  lastReportedAt: Date | null;
  facets: Facets;
  /** The reach's ladder level (0-6) and confidence rank (0 low, 1 medium, 2 high), for filters and sort=reach. */
  reachLevel: number;
  reachConfidence: number;
  /** "TASK:status" for every task: the task-status filter's GIN-indexed tokens. */
  statusTokens: string[];
  /** The same statuses as bits (status-bits.ts), in the covering reach index: what the filter reads. */
  statusBits: number;
  /** The pair's listed reports per week and outcome (feed-weeks.ts), which report_totals sums. */
  feedWeeks: FeedWeeks;
  /** The pair's listed reports per version named (agent-versions.ts versionCounts), which agent_version_totals sums. */
  versionCounts: Record<string, number>;
  /** The list's body of the summary, printed once (summary-view.ts listFragment), and the stamp of the code that printed it. */
  listJson: string;
  listStamp: string;
}

interface EvidenceRow {
  id: string;
  account_id: string;
  merchant_id: string;
  agent_id: string;
  outcome: OutcomeKey;
  capability_results: Partial<Record<TaskKey, OutcomeKey>>;
  stage: StageKey | null;
  failure_reason: FailureReasonKey | null;
  tested_at: Date | null;
  created_at: Date;
  agent_version: string | null;
  self_reported: SelfReportedBy | null;
}

const toEvidence = (row: EvidenceRow): EvidenceReport => ({
  id: row.id,
  accountId: row.account_id,
  outcome: row.outcome,
  capabilityResults: row.capability_results ?? {},
  stage: row.stage,
  failureReason: row.failure_reason,
  testedAt: row.tested_at,
  createdAt: row.created_at,
  agentVersion: row.agent_version,
  selfReported: row.self_reported,
});

/**
 * Approved reports of the given merchant+agent pairs that may feed the directory: the
 * merchant is public and the agent active. Grouped by "merchantId:agentId".
 */
export async function loadEvidence(
  db: Db,
  pairs: ReadonlyArray<{ merchantId: string; agentId: string }>,
): Promise<Map<string, EvidenceReport[]>> {
  const grouped = new Map<string, EvidenceReport[]>();
  if (pairs.length === 0) return grouped;
  const rows = await db.$queryRaw<EvidenceRow[]>`
    SELECT r.id, r.account_id, r.merchant_id, r.agent_id, r.outcome::text AS outcome,
           r.capability_results, r.stage::text AS stage,
           r.failure_reason::text AS failure_reason, r.tested_at, r.created_at,
           r.agent_version, ${SELF_REPORTED_BY} AS self_reported
      FROM ${PUBLIC_REPORTS}
      JOIN unnest(${pairs.map((p) => p.merchantId)}::uuid[], ${pairs.map((p) => p.agentId)}::uuid[])
           AS pair(merchant_id, agent_id)
        ON r.merchant_id = pair.merchant_id AND r.agent_id = pair.agent_id
     WHERE ${IS_PUBLIC_REPORT}`;
  for (const row of rows) {
    const key = `${row.merchant_id}:${row.agent_id}`;
    const list = grouped.get(key) ?? [];
    list.push(toEvidence(row));
    grouped.set(key, list);
  }
  return grouped;
}

/** Replaces the summary rows of the given pairs; pairs without evidence lose their row. */
export async function replaceSummaries(
  db: Db,
  pairs: ReadonlyArray<{ merchantId: string; agentId: string }>,
  rows: readonly SummaryRow[],
  computedAt: Date,
): Promise<void> {
  if (pairs.length === 0) return;
  await db.$executeRaw`
    DELETE FROM merchant_agent_summaries s
     USING unnest(${pairs.map((p) => p.merchantId)}::uuid[], ${pairs.map((p) => p.agentId)}::uuid[])
           AS pair(merchant_id, agent_id)
     WHERE s.merchant_id = pair.merchant_id AND s.agent_id = pair.agent_id`;
  if (rows.length === 0) return;
  // One jsonb document for all rows: PostgreSQL parses it once, where arrays of JSON texts
  // would be escaped element by element by the driver and parsed twice by the server.
  const document = JSON.stringify(
    rows.map((r) => ({
      m: r.merchantId,
      a: r.agentId,
      s: r.summary,
      r: r.rating,
      n: r.reportCount,
      sr: r.selfReportedCount,
      l: r.lastReportedAt?.toISOString() ?? null,
      f: r.facets,
      rl: r.reachLevel,
      rc: r.reachConfidence,
      t: r.statusTokens,
      b: r.statusBits,
      w: r.feedWeeks,
      v: r.versionCounts,
      lj: r.listJson,
      ls: r.listStamp,
    })),
  );
  await db.$executeRaw`
    INSERT INTO merchant_agent_summaries
           (merchant_id, agent_id, summary, rating, report_count, self_reported_count, last_reported_at, facets,
            reach_level, reach_confidence, status_tokens, status_bits, feed_weeks, version_counts, list_json, list_stamp, computed_at)
    SELECT (e->>'m')::uuid, (e->>'a')::uuid, e->'s', (e->>'r')::float8, (e->>'n')::int, (e->>'sr')::int,
           (e->>'l')::timestamptz, e->'f', (e->>'rl')::smallint, (e->>'rc')::smallint,
           ARRAY(SELECT jsonb_array_elements_text(e->'t')), (e->>'b')::bigint, e->'w', e->'v', e->>'lj', e->>'ls', ${computedAt}::timestamptz
      FROM jsonb_array_elements(${document}::jsonb) AS e`;
}

/**
 * Recomputes the merchants' denormalised report count, last report date and report facets
 * (each token's newest date over all agents) from their summaries.
 */
export async function refreshMerchantTotals(db: Db, merchantIds: readonly string[]): Promise<void> {
  if (merchantIds.length === 0) return;
  await db.$executeRaw`
    UPDATE merchants m
       SET report_count = coalesce(t.report_count, 0),
           last_reported_at = t.last_reported_at,
           report_facets = coalesce(f.facets, '{}'::jsonb)
      FROM unnest(${[...new Set(merchantIds)]}::uuid[]) AS ids(id)
      LEFT JOIN LATERAL (
        SELECT sum(s.report_count)::int AS report_count, max(s.last_reported_at) AS last_reported_at
          FROM merchant_agent_summaries s
         WHERE s.merchant_id = ids.id
      ) t ON true
      LEFT JOIN LATERAL (
        SELECT jsonb_object_agg(token, newest) AS facets
          FROM (SELECT e.key AS token, max(e.value #>> '{}') AS newest
                  FROM merchant_agent_summaries s, jsonb_each(s.facets) e
                 WHERE s.merchant_id = ids.id
                 GROUP BY e.key) tokens
      ) f ON true
     WHERE m.id = ids.id`;
}

/** A page of merchant ids in id order, after the given id. */
export async function merchantIdPage(db: Db, afterMerchantId: string | null, limit: number): Promise<string[]> {
  const rows = await db.$queryRaw<Array<{ id: string }>>`
    SELECT id FROM merchants
     WHERE ${afterMerchantId}::uuid IS NULL OR id > ${afterMerchantId}::uuid
     ORDER BY id
     LIMIT ${limit}`;
  return rows.map((r) => r.id);
}

/**
 * The merchant+agent pairs of these merchants that may have public evidence (approved
 * reports, whatever the merchant's and agent's state now) or have a summary row: recomputing
 * them all keeps exactly the pairs with public evidence.
 */
export async function pairsOfMerchants(
  db: Db,
  merchantIds: readonly string[],
): Promise<Array<{ merchantId: string; agentId: string }>> {
  if (merchantIds.length === 0) return [];
  const rows = await db.$queryRaw<Array<{ merchant_id: string; agent_id: string }>>`
    SELECT merchant_id, agent_id FROM reports
     WHERE merchant_id = ANY(${merchantIds}::uuid[]) AND status = 'APPROVED'
    UNION
    SELECT merchant_id, agent_id FROM merchant_agent_summaries
     WHERE merchant_id = ANY(${merchantIds}::uuid[])`;
  return rows.map((r) => ({ merchantId: r.merchant_id, agentId: r.agent_id }));
}

/**
 * Locks merchants (and so their summaries) in id order, so that two transactions locking
 * overlapping sets (an agent's deactivation and a moderator's decision) cannot deadlock.
 * The directory version row comes first: every write to the directory's tables takes it
 * (statement triggers) before any row lock, and this must keep that order. Every writer of
 * summaries, the background ones included, takes these locks first: the order is written
 * down in evidence.ts.
 */
export async function lockMerchants(db: Db, merchantIds: readonly string[]): Promise<void> {
  if (merchantIds.length === 0) return;
  await db.$queryRaw`SELECT id FROM directory_version WHERE id = 1 FOR NO KEY UPDATE`;
  await db.$queryRaw`
    SELECT id FROM merchants WHERE id = ANY(${[...new Set(merchantIds)]}::uuid[]) ORDER BY id FOR NO KEY UPDATE`;
}

/** The report list's filter, as its counts read it. */
interface ReportCountFilter {
  agentId?: string;
  outcome?: OutcomeKey;
  independent?: 'only' | 'all';
}

/**
 * How many public reports of one merchant match, from its summaries' counts per overall outcome
 * (a summary row exists per public merchant and active agent with approved reports): counting
 * the report rows themselves would cost as much as the merchant has reports.
 */
export function countMerchantReports(count: (query: Prisma.Sql) => Promise<number>, merchantId: string, f: ReportCountFilter): Promise<number> {
  // Independent reports by default; with independent=all the self-reported ones too (counted apart).
  const all = f.independent === 'all';
  const filters: Prisma.Sql[] = [Prisma.sql`s.merchant_id = ${merchantId}::uuid`];
  if (f.agentId) filters.push(Prisma.sql`s.agent_id = ${f.agentId}::uuid`);
  const counted = f.outcome
    ? all
      ? Prisma.sql`((s.summary->'counts'->>${f.outcome})::int + coalesce((s.summary->'selfReportedCounts'->>${f.outcome})::int, 0))`
      : Prisma.sql`((s.summary->'counts'->>${f.outcome})::int)`
    : all
      ? Prisma.sql`(s.report_count + s.self_reported_count)`
      : Prisma.sql`s.report_count`;
  return count(Prisma.sql`
    SELECT coalesce(sum(${counted}), 0)::int AS n FROM merchant_agent_summaries s
     WHERE ${Prisma.join(filters, ' AND ')}`);
}

/** How many public reports match in one week of their report date (feed-weeks.ts). */
export interface WeekCount {
  week: number;
  n: number;
}

/**
 * How many public reports match per week, newest week first (weeks without any left out), for
 * the whole list or one agent's or outcome's: from their sums per agent, outcome and week
 * (report_totals, kept by triggers on the summaries), a few hundred rows. Summing every
 * summary's counts cost 6 s at 100,000 merchants; the weeks tell a deep page where it starts.
 */
export function publicReportWeeks(query: <T>(query: Prisma.Sql) => Promise<T[]>, f: ReportCountFilter): Promise<WeekCount[]> {
  const counted = f.independent === 'all' ? Prisma.sql`t.reports + t.self_reported` : Prisma.sql`t.reports`;
  const filters: Prisma.Sql[] = [Prisma.sql`true`];
  if (f.agentId) filters.push(Prisma.sql`t.agent_id = ${f.agentId}::uuid`);
  if (f.outcome) filters.push(Prisma.sql`t.outcome = ${f.outcome}::"Outcome"`);
  return query<WeekCount>(Prisma.sql`
    SELECT t.week, sum(${counted})::int AS n FROM report_totals t
     WHERE ${Prisma.join(filters, ' AND ')}
     GROUP BY t.week HAVING sum(${counted}) > 0 ORDER BY t.week DESC`);
}

/** Pairs whose stored summary was computed before `before` (recency decay moves on). */
export async function staleSummaryPairs(
  db: Db,
  before: Date,
  limit: number,
): Promise<Array<{ merchantId: string; agentId: string }>> {
  const rows = await db.$queryRaw<Array<{ merchant_id: string; agent_id: string }>>`
    SELECT merchant_id, agent_id FROM merchant_agent_summaries
     WHERE computed_at < ${before}::timestamptz
     ORDER BY computed_at
     LIMIT ${limit}`;
  return rows.map((r) => ({ merchantId: r.merchant_id, agentId: r.agent_id }));
}

/** Those of these pairs whose stored summary is still older than `before` (read again under the merchants' locks). */
export async function stillStale(
  db: Db,
  pairs: ReadonlyArray<{ merchantId: string; agentId: string }>,
  before: Date,
): Promise<Array<{ merchantId: string; agentId: string }>> {
  if (pairs.length === 0) return [];
  const rows = await db.$queryRaw<Array<{ merchant_id: string; agent_id: string }>>`
    SELECT s.merchant_id, s.agent_id
      FROM merchant_agent_summaries s
      JOIN unnest(${pairs.map((p) => p.merchantId)}::uuid[], ${pairs.map((p) => p.agentId)}::uuid[])
           AS pair(merchant_id, agent_id)
        ON s.merchant_id = pair.merchant_id AND s.agent_id = pair.agent_id
     WHERE s.computed_at < ${before}::timestamptz`;
  return rows.map((r) => ({ merchantId: r.merchant_id, agentId: r.agent_id }));
}

/** The stored summaries of these pairs (before a recomputation replaces them). */
/**
 * Bumps the directory version and announces these merchants as changed (migration
 * "directory_change_scope"), for a change of their public evidence that no summary shows. The
 * caller holds the version row (lockMerchants).
 */
export async function announceChanged(db: Db, merchantIds: readonly string[]): Promise<void> {
  if (merchantIds.length === 0) return;
  await db.$executeRaw`SELECT directory_version_changed(${[...new Set(merchantIds)]}::uuid[])`;
}

/** A pair's stored summary row, as the recomputation compares it with a new one. */
export type StoredSummary = Omit<SummaryRow, 'merchantId' | 'agentId' | 'listJson' | 'listStamp'> & { summary: StatusSnapshot; listStamp: string | null };

export async function storedSummaries(
  db: Db,
  pairs: ReadonlyArray<{ merchantId: string; agentId: string }>,
): Promise<Map<string, StoredSummary>> {
  if (pairs.length === 0) return new Map();
  const rows = await db.$queryRaw<
    Array<{
      merchant_id: string;
      agent_id: string;
      summary: StatusSnapshot;
      rating: number;
      report_count: number;
      self_reported_count: number;
      last_reported_at: Date | null;
      facets: Facets;
      reach_level: number;
      reach_confidence: number;
      status_tokens: string[];
      status_bits: bigint;
      feed_weeks: FeedWeeks;
      version_counts: Record<string, number>;
      list_stamp: string | null;
    }>
  >`
    SELECT s.merchant_id, s.agent_id, s.summary, s.rating, s.report_count, s.self_reported_count, s.last_reported_at, s.facets,
           s.reach_level, s.reach_confidence, s.status_tokens, s.status_bits, s.feed_weeks, s.version_counts, s.list_stamp
      FROM merchant_agent_summaries s
      JOIN unnest(${pairs.map((p) => p.merchantId)}::uuid[], ${pairs.map((p) => p.agentId)}::uuid[])
           AS pair(merchant_id, agent_id)
        ON s.merchant_id = pair.merchant_id AND s.agent_id = pair.agent_id`;
  return new Map(
    rows.map((r) => [
      `${r.merchant_id}:${r.agent_id}`,
      {
        summary: r.summary,
        rating: r.rating,
        reportCount: r.report_count,
        selfReportedCount: r.self_reported_count,
        lastReportedAt: r.last_reported_at,
        facets: r.facets,
        reachLevel: r.reach_level,
        reachConfidence: r.reach_confidence,
        statusTokens: r.status_tokens,
        statusBits: Number(r.status_bits),
        feedWeeks: r.feed_weeks,
        versionCounts: r.version_counts,
        listStamp: r.list_stamp,
      },
    ]),
  );
}

/**
 * Marks these pairs' summaries as computed now without changing them: an UPDATE of
 * `computed_at` alone, which no directory trigger watches (migration
 * "directory_change_scope"), so it bumps no version and no cached answer is dropped. A pair
 * given a list fragment gets it too (printed again by this code: the same public answer).
 */
export async function touchSummaries(
  db: Db,
  pairs: ReadonlyArray<{ merchantId: string; agentId: string; listJson?: string; listStamp?: string }>,
  computedAt: Date,
): Promise<void> {
  if (pairs.length === 0) return;
  await db.$executeRaw`
    UPDATE merchant_agent_summaries s
       SET computed_at = ${computedAt}::timestamptz,
           list_json = coalesce(pair.list_json, s.list_json),
           list_stamp = coalesce(pair.list_stamp, s.list_stamp)
      FROM unnest(${pairs.map((p) => p.merchantId)}::uuid[], ${pairs.map((p) => p.agentId)}::uuid[],
                  ${pairs.map((p) => p.listJson ?? null)}::text[], ${pairs.map((p) => p.listStamp ?? null)}::text[])
           AS pair(merchant_id, agent_id, list_json, list_stamp)
     WHERE s.merchant_id = pair.merchant_id AND s.agent_id = pair.agent_id`;
}

export async function recordStatusChanges(db: Db, changes: readonly StatusChange[], at: Date): Promise<void> {
  if (changes.length === 0) return;
  await db.statusChange.createMany({ data: changes.map((c) => ({ ...c, kind: c.kind ?? 'status', changedAt: at })) });
}

/**
 * The merchant+agent pairs a claim's holder has approved reports on: of the claimed merchant,
 * or with the claimed agent. Their summaries change when the claim starts or stops making those
 * reports self-reported.
 */
export async function claimHolderPairs(
  db: Db,
  claim: { accountId: string; merchantId: string | null; agentId: string | null },
): Promise<Array<{ merchantId: string; agentId: string }>> {
  const subject = claim.merchantId
    ? Prisma.sql`merchant_id = ${claim.merchantId}::uuid`
    : claim.agentId
      ? Prisma.sql`agent_id = ${claim.agentId}::uuid`
      : Prisma.sql`false`;
  const rows = await db.$queryRaw<Array<{ merchant_id: string; agent_id: string }>>`
    SELECT DISTINCT merchant_id, agent_id FROM reports
     WHERE account_id = ${claim.accountId}::uuid AND status = 'APPROVED' AND ${subject}`;
  return rows.map((r) => ({ merchantId: r.merchant_id, agentId: r.agent_id }));
}

/**
 * A page of summary keys after `after` in key order, and of those the ones whose list fragment
 * is not of `stamp`: their document (summary_text) and row version (xmin).
 */
export async function fragmentPage(
  db: Db,
  after: { merchantId: string; agentId: string } | null,
  limit: number,
  stamp: string,
): Promise<{ keys: Array<{ merchantId: string; agentId: string }>; stale: Array<{ merchantId: string; agentId: string; version: string; summary: string }> }> {
  const rows = await db.$queryRaw<Array<{ merchantId: string; agentId: string; version: string | null; summary: string | null }>>`
    SELECT s.merchant_id AS "merchantId", s.agent_id AS "agentId",
           CASE WHEN s.list_stamp IS DISTINCT FROM ${stamp} THEN s.xmin::text END AS version,
           CASE WHEN s.list_stamp IS DISTINCT FROM ${stamp} THEN s.summary_text END AS summary
      FROM merchant_agent_summaries s
     ${after ? Prisma.sql`WHERE (s.merchant_id, s.agent_id) > (${after.merchantId}::uuid, ${after.agentId}::uuid)` : Prisma.empty}
     ORDER BY s.merchant_id, s.agent_id
     LIMIT ${limit}`;
  return {
    keys: rows.map(({ merchantId, agentId }) => ({ merchantId, agentId })),
    stale: rows.flatMap(({ merchantId, agentId, version, summary }) => (version !== null && summary !== null ? [{ merchantId, agentId, version, summary }] : [])),
  };
}

/**
 * Stores list fragments on the rows still at the version read (a row replaced or updated since
 * keeps its own): an update of list_json and list_stamp alone, which moves no directory version.
 * Returns how many rows took theirs.
 */
export async function storeFragments(
  db: Db,
  rows: ReadonlyArray<{ merchantId: string; agentId: string; version: string; listJson: string; listStamp: string }>,
): Promise<number> {
  if (rows.length === 0) return 0;
  return db.$executeRaw`
    UPDATE merchant_agent_summaries s SET list_json = f.list_json, list_stamp = f.list_stamp
      FROM unnest(${rows.map((r) => r.merchantId)}::uuid[], ${rows.map((r) => r.agentId)}::uuid[], ${rows.map((r) => r.version)}::text[],
                  ${rows.map((r) => r.listJson)}::text[], ${rows.map((r) => r.listStamp)}::text[])
           AS f(merchant_id, agent_id, version, list_json, list_stamp)
     WHERE s.merchant_id = f.merchant_id AND s.agent_id = f.agent_id AND s.xmin::text = f.version`;
}
