// Keeps the precomputed merchant+agent summaries equal to a fresh computation.
// Callers that change approved evidence (moderation, updates, hiding a merchant,
// deactivating an agent) call recomputeSummaries inside their own transaction.
import type { PrismaClient, Db } from '../../db/client.js';
import { computeAgentSummary, type AgentSummary } from './engine.js';
import { reportFacets } from './facets.js';
import { statusChanges, type StatusChange } from './status-changes.js';
import { trendOf } from './trends.js';
import {
  loadEvidence,
  merchantIdPage,
  pairsOfMerchants,
  refreshMerchantTotals,
  replaceSummaries,
  recordStatusChanges,
  staleSummaryPairs,
  storedSummaries,
  type SummaryRow,
} from './summaries.repository.js';

/** Stored evidence links are paths; the API makes them absolute with BASE_URL. */
export const reportPath = (id: string) => `/api/v1/reports/${id}`;

/** Rows older than this are recomputed, because recency decay moves statuses with time. */
export const SUMMARY_MAX_AGE_MS = 24 * 60 * 60 * 1000;

const RECOMPUTE_PAGE_MERCHANTS = 250;
/** Bulk pages may take seconds on a loaded machine; Prisma's default transaction limit is 5 s. */
const BULK_TRANSACTION = { timeout: 120_000, maxWait: 30_000 } as const;

export type Pair = { merchantId: string; agentId: string };

export function summarize(reports: Parameters<typeof computeAgentSummary>[0], now: Date): AgentSummary {
  return computeAgentSummary(reports, { now, reportUrl: reportPath });
}

/** The document stored for a pair: its summary, and beside it its 90-day trend (the merchant detail shows it). */
export function summaryDocument(reports: Parameters<typeof computeAgentSummary>[0], now: Date) {
  return { ...summarize(reports, now), trend: trendOf(reports, now) };
}

/** Recomputes the given pairs' summaries and their merchants' totals, in `db`'s transaction. */
export async function recomputeSummaries(db: Db, pairs: readonly Pair[], now: Date): Promise<void> {
  const unique = [...new Map(pairs.map((p) => [`${p.merchantId}:${p.agentId}`, p])).values()];
  if (unique.length === 0) return;
  const [evidence, before] = await Promise.all([loadEvidence(db, unique), storedSummaries(db, unique)]);
  const rows: SummaryRow[] = [];
  const changes: StatusChange[] = [];
  for (const pair of unique) {
    const reports = evidence.get(`${pair.merchantId}:${pair.agentId}`);
    if (!reports?.length) continue;
    const summary = summaryDocument(reports, now);
    const previous = before.get(`${pair.merchantId}:${pair.agentId}`);
    if (previous) changes.push(...statusChanges(pair, previous, summary));
    rows.push({
      ...pair,
      summary,
      rating: summary.rating,
      reportCount: summary.counts.total,
      // Sorting by "recent" wants the newest report even when it gave no task observation
      // (the summary's dates are null while untested).
      lastReportedAt: new Date(Math.max(...reports.map((r) => r.createdAt.getTime()))),
      facets: reportFacets(reports),
    });
  }
  await replaceSummaries(db, unique, rows, now);
  await recordStatusChanges(db, changes, now);
  await refreshMerchantTotals(db, unique.map((p) => p.merchantId));
}

/** Recomputes every summary, a page of merchants per transaction (after a bulk load). */
export async function recomputeAllSummaries(
  prisma: PrismaClient,
  now: Date,
  onProgress?: (done: number) => void,
): Promise<number> {
  let after: string | null = null;
  let merchants = 0;
  for (;;) {
    const ids = await merchantIdPage(prisma, after, RECOMPUTE_PAGE_MERCHANTS);
    if (ids.length === 0) return merchants;
    await prisma.$transaction(async (tx) => {
      await recomputeSummaries(tx, await pairsOfMerchants(tx, ids), now);
      await refreshMerchantTotals(tx, ids);
    }, BULK_TRANSACTION);
    merchants += ids.length;
    after = ids[ids.length - 1]!;
    onProgress?.(merchants);
  }
}

/**
 * Recomputes summaries computed more than SUMMARY_MAX_AGE_MS ago, a batch per transaction;
 * returns how many. Stops between batches once `signal` is aborted (shutdown).
 */
export async function refreshStaleSummaries(
  prisma: PrismaClient,
  now: Date,
  options: { batch?: number; signal?: AbortSignal } = {},
): Promise<number> {
  const batch = options.batch ?? 500;
  let total = 0;
  while (!options.signal?.aborted) {
    const pairs = await staleSummaryPairs(prisma, new Date(now.getTime() - SUMMARY_MAX_AGE_MS), batch);
    if (pairs.length === 0) break;
    await prisma.$transaction((tx) => recomputeSummaries(tx, pairs, now), BULK_TRANSACTION);
    total += pairs.length;
  }
  return total;
}
