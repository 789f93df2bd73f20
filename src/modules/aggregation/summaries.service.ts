// Keeps the precomputed merchant+agent summaries equal to a fresh computation.
// Callers that change approved evidence (moderation, updates, hiding a merchant,
// deactivating an agent) call recomputeSummaries inside their own transaction.
import { isDeepStrictEqual } from 'node:util';
import type { PrismaClient, Db } from '../../db/client.js';
import { computeAgentSummary, type AgentSummary, type OutcomeCounts } from './engine.js';
import type { EvidenceReport } from './observations.js';
import { reportFacets } from './facets.js';
import { CONFIDENCE_LEVELS, FAILURE_REASONS, OUTCOMES, STAGES, TASKS } from './constants.js';
import { fragmentsStamp, listFragment, storedListFragment, type EvidenceSources, type StoredSummaryDocument } from './summary-view.js';
import { statusToken } from './reach.js';
import { regressionToken, versionCounts } from './agent-versions.js';
import { statusBitsOf } from './status-bits.js';
import { statusChanges, type StatusChange } from './status-changes.js';
import { trendOf } from './trends.js';
import { feedWeeks } from './feed-weeks.js';
import {
  fragmentPage,
  loadEvidence,
  lockMerchants,
  merchantIdPage,
  pairsOfMerchants,
  refreshMerchantTotals,
  replaceSummaries,
  recordStatusChanges,
  staleSummaryPairs,
  stillStale,
  storedSummaries,
  storeFragments,
  touchSummaries,
  type StoredSummary,
  type SummaryRow,
} from './summaries.repository.js';

/** Stored evidence links are paths; the API makes them absolute with BASE_URL. */
export const reportPath = (id: string) => `/api/v1/reports/${id}`;

/** Rows older than this are recomputed, because recency decay moves statuses with time. */
export const SUMMARY_MAX_AGE_MS = 24 * 60 * 60 * 1000;

/**
 * Merchants per bulk transaction and pairs per refresh transaction. Each holds the directory
 * version row to its end, so every live decision waits for the one in progress: kept to well
 * under a second on an idle machine (about 1.5 s and 0.3 s with 40 reports a merchant on a
 * loaded 2-core one), for about the throughput of larger ones.
 */
const RECOMPUTE_PAGE_MERCHANTS = 100;
const REFRESH_BATCH_PAIRS = 50;
/** Bulk pages may take seconds on a loaded machine; Prisma's default transaction limit is 5 s. */
const BULK_TRANSACTION = { timeout: 120_000, maxWait: 30_000 } as const;

export type Pair = { merchantId: string; agentId: string };

export function summarize(reports: Parameters<typeof computeAgentSummary>[0], now: Date): AgentSummary {
  return computeAgentSummary(reports, { now, reportUrl: reportPath });
}

const outcomeCounts = (reports: readonly EvidenceReport[]): OutcomeCounts => {
  const counts: OutcomeCounts = { WORKS: 0, PARTIAL: 0, BLOCKED: 0, DOES_NOT_WORK: 0, UNSURE: 0, total: 0 };
  for (const report of reports) {
    counts[report.outcome] += 1;
    counts.total += 1;
  }
  return counts;
};

/**
 * The document stored for a pair. Its summary (statuses, reach, score, verdict, versions) is
 * made from the independent reports alone: reports by a verified owner of the merchant or
 * vendor of the agent (issue 37) are counted beside it (`sources`, `selfReportedCounts`) and
 * named in the verdict's sentence, never counted in it. `withSelfReported` is the same summary
 * made from all the approved reports (what `independent=all` shows), present only when some
 * are self-reported. Beside it, the 90-day trend of the independent reports (the merchant
 * detail shows it).
 */
export function summaryDocument(reports: readonly EvidenceReport[], now: Date) {
  const independent = reports.filter((r) => !r.selfReported);
  const self = reports.filter((r) => r.selfReported);
  const owner = self.filter((r) => r.selfReported === 'owner').length;
  const sources: EvidenceSources = { independent: independent.length, selfReported: self.length, byOwner: owner, byVendor: self.length - owner };
  const selfReported = { owner, vendor: self.length - owner };
  return {
    ...computeAgentSummary(independent, { now, reportUrl: reportPath, selfReported: { ...selfReported, counted: false } }),
    sources,
    selfReportedCounts: outcomeCounts(self),
    withSelfReported:
      self.length > 0 ? computeAgentSummary(reports, { now, reportUrl: reportPath, selfReported: { ...selfReported, counted: true } }) : null,
    trend: trendOf(independent, now),
  };
}

/**
 * Summaries of fixed reports of every outcome, stage, failure reason, version and source, some
 * old and some without a task result: the corpus whose list fragments make listStamp.
 */
function stampCorpus(): StoredSummaryDocument[] {
  const now = new Date('2026-06-01T00:00:00.000Z');
  const corpus: StoredSummaryDocument[] = [summaryDocument([], now)];
  for (let set = 0; set < 24; set += 1) {
    const reports: EvidenceReport[] = [];
    for (let n = 0; n <= set % 7; n += 1) {
      const k = set * 7 + n;
      const createdAt = new Date(now.getTime() - ((k * 37) % 400) * 86_400_000);
      reports.push({
        id: `00000000-0000-7000-8000-${String(k).padStart(12, '0')}`,
        accountId: `account-${k % 5}`,
        outcome: OUTCOMES[k % OUTCOMES.length]!,
        capabilityResults: Object.fromEntries(
          TASKS.filter((_, t) => (k + t) % 3 !== 0).map((task, t) => [task, OUTCOMES[(k + t * 2) % OUTCOMES.length]!]),
        ),
        stage: k % 4 === 0 ? null : STAGES[k % STAGES.length]!,
        testedAt: k % 3 === 0 ? null : createdAt,
        createdAt,
        failureReason: FAILURE_REASONS[k % FAILURE_REASONS.length]!,
        agentVersion: k % 2 === 0 ? `1.${k % 4}.0` : null,
        selfReported: k % 9 === 0 ? 'owner' : k % 11 === 0 ? 'vendor' : null,
      });
    }
    corpus.push(summaryDocument(reports, now));
  }
  return corpus;
}

let stamp: string | undefined;

/**
 * The stamp of this code's list fragments (stored as `list_stamp`): a hash of the fragments it
 * prints for a fixed corpus. Code that prints a summary's list body otherwise (its view, the
 * verdict's words, the engine) gets another stamp, and a fragment stored by other code is not
 * used: the list builds that body itself until the upkeep has printed it again.
 */
export function listStamp(): string {
  stamp ??= fragmentsStamp(stampCorpus());
  return stamp;
}

/**
 * A test seam of the background recomputations: called inside the transaction once the
 * evidence of `pairs` has been read and before their summaries are written, so a test can hold
 * the transaction there while a moderation decision runs on another connection.
 */
export type AfterRead = (pairs: readonly Pair[]) => Promise<void> | void;

/**
 * Whether a stored row already says what a recomputation found, as PostgreSQL stores it (the
 * document through JSON, the date to the millisecond): then nothing public would change.
 */
function sameSummary(stored: StoredSummary, row: Omit<SummaryRow, 'listJson' | 'listStamp'>): boolean {
  return (
    stored.rating === row.rating &&
    stored.reportCount === row.reportCount &&
    stored.selfReportedCount === row.selfReportedCount &&
    (stored.lastReportedAt?.getTime() ?? null) === (row.lastReportedAt?.getTime() ?? null) &&
    stored.reachLevel === row.reachLevel &&
    stored.reachConfidence === row.reachConfidence &&
    stored.statusBits === row.statusBits &&
    isDeepStrictEqual(stored.feedWeeks, row.feedWeeks) &&
    isDeepStrictEqual(stored.versionCounts, row.versionCounts) &&
    isDeepStrictEqual(stored.statusTokens, row.statusTokens) &&
    isDeepStrictEqual(stored.facets, JSON.parse(JSON.stringify(row.facets))) &&
    isDeepStrictEqual(stored.summary, JSON.parse(JSON.stringify(row.summary)))
  );
}

/**
 * Recomputes the given pairs' summaries and their merchants' totals, in `db`'s transaction.
 * The caller holds the merchants' locks (evidenceChanged, or the background jobs below). A
 * pair whose summary comes out as stored is only marked as computed now: no public row is
 * written, so no directory version moves, no status change is recorded and no cached answer
 * is dropped (the hourly refresh mostly finds such pairs).
 */
export async function recomputeSummaries(db: Db, pairs: readonly Pair[], now: Date, afterRead?: AfterRead): Promise<void> {
  const unique = [...new Map(pairs.map((p) => [`${p.merchantId}:${p.agentId}`, p])).values()];
  if (unique.length === 0) return;
  const [evidence, before] = await Promise.all([loadEvidence(db, unique), storedSummaries(db, unique)]);
  await afterRead?.(unique);
  const rows: SummaryRow[] = [];
  const changed: Pair[] = [];
  const unchanged: Array<Pair & { listJson?: string; listStamp?: string }> = [];
  const changes: StatusChange[] = [];
  for (const pair of unique) {
    const reports = evidence.get(`${pair.merchantId}:${pair.agentId}`);
    const previous = before.get(`${pair.merchantId}:${pair.agentId}`);
    if (!reports?.length) {
      // No public evidence left: its row, if any, goes.
      if (previous) changed.push(pair);
      continue;
    }
    const summary = summaryDocument(reports, now);
    // The filters and sorts read the independent reports only, as the statuses do.
    const independent = reports.filter((r) => !r.selfReported);
    const row: Omit<SummaryRow, 'listJson' | 'listStamp'> = {
      ...pair,
      summary,
      rating: summary.rating,
      reportCount: summary.counts.total,
      selfReportedCount: summary.sources.selfReported,
      // Sorting by "recent" wants the newest report even when it gave no task observation
      // (the summary's dates are null while untested).
      lastReportedAt: independent.length ? new Date(Math.max(...independent.map((r) => r.createdAt.getTime()))) : null,
      facets: reportFacets(independent),
      reachLevel: summary.reach.level,
      reachConfidence: CONFIDENCE_LEVELS.indexOf(summary.reach.confidence),
      // Plus "REGRESSION:<TASK>" for each regression (issue 37): the agent page lists those shops through the GIN index.
      statusTokens: [
        ...TASKS.map((task) => statusToken(task, summary.capabilities[task].status)),
        ...summary.versions.regressions.map((r) => regressionToken(r.task)),
      ],
      statusBits: statusBitsOf(summary.capabilities),
      // Every listed report, self-reported ones apart: the report list's totals and page boundaries.
      feedWeeks: feedWeeks(reports),
      // Every listed report naming a version: the agents' version lists.
      versionCounts: versionCounts(reports),
    };
    // Printed only where it is written: most pairs of the hourly refresh come out unchanged.
    const fragment = () => ({ listJson: listFragment(summary), listStamp: listStamp() });
    if (previous && sameSummary(previous, row)) {
      // Its list fragment printed by other code (another stamp) is printed again.
      unchanged.push(previous.listStamp === listStamp() ? pair : { ...pair, ...fragment() });
      continue;
    }
    if (previous) changes.push(...statusChanges(pair, previous.summary, summary));
    changed.push(pair);
    rows.push({ ...row, ...fragment() });
  }
  await touchSummaries(db, unchanged, now);
  await replaceSummaries(db, changed, rows, now);
  await recordStatusChanges(db, changes, now);
  await refreshMerchantTotals(db, changed.map((p) => p.merchantId));
}

export interface RecomputeAllOptions {
  /** Called after each page with the number of merchants done so far. */
  onProgress?: (done: number) => void;
  afterRead?: AfterRead;
}

/**
 * Recomputes every summary, a page of merchants per transaction. It runs after a bulk load
 * (the demo on an empty database, `npm run seed`, which with --force may replace the directory
 * of a running service), so each page takes its merchants' locks like any writer of public
 * evidence (the order is in evidence.ts): a decision made meanwhile is either waited for or
 * waits, and is never overwritten by a summary read before it.
 */
export async function recomputeAllSummaries(prisma: PrismaClient, now: Date, options: RecomputeAllOptions = {}): Promise<number> {
  let after: string | null = null;
  let merchants = 0;
  for (;;) {
    const ids = await merchantIdPage(prisma, after, RECOMPUTE_PAGE_MERCHANTS);
    if (ids.length === 0) return merchants;
    await prisma.$transaction(async (tx) => {
      await lockMerchants(tx, ids);
      await recomputeSummaries(tx, await pairsOfMerchants(tx, ids), now, options.afterRead);
      // Merchants without any pair left get their totals emptied too.
      await refreshMerchantTotals(tx, ids);
    }, BULK_TRANSACTION);
    merchants += ids.length;
    after = ids[ids.length - 1]!;
    options.onProgress?.(merchants);
  }
}

/**
 * Recomputes summaries computed more than SUMMARY_MAX_AGE_MS ago, a small batch per
 * transaction; returns how many. Each batch locks its merchants like any writer of public
 * evidence (the order is in evidence.ts), then re-reads which of its pairs are still stale:
 * a decision that committed since the first read already recomputed its pair, and one that
 * comes during the batch waits for it. Batches stay small because a live decision waits for
 * the batch holding its merchant (and the directory version row). Stops between batches once
 * `signal` is aborted (shutdown).
 */
export async function refreshStaleSummaries(
  prisma: PrismaClient,
  now: Date,
  options: { batch?: number; signal?: AbortSignal; afterRead?: AfterRead } = {},
): Promise<number> {
  const batch = options.batch ?? REFRESH_BATCH_PAIRS;
  const before = new Date(now.getTime() - SUMMARY_MAX_AGE_MS);
  let total = 0;
  while (!options.signal?.aborted) {
    const candidates = await staleSummaryPairs(prisma, before, batch);
    if (candidates.length === 0) break;
    total += await prisma.$transaction(async (tx) => {
      await lockMerchants(tx, candidates.map((p) => p.merchantId));
      const pairs = await stillStale(tx, candidates, before);
      await recomputeSummaries(tx, pairs, now, options.afterRead);
      return pairs.length;
    }, BULK_TRANSACTION);
  }
  return total;
}

/** Summaries looked at per page when printing list fragments again. */
const FRAGMENT_PAGE = 500;

/**
 * Prints again every list fragment stored by other code (another stamp, or none: rows written
 * before fragments existed), walking the summaries in key order; returns how many. Until then
 * a list builds those bodies itself, so this runs in the first upkeep pass after a start (the
 * only time the stamp can change). A row replaced meanwhile keeps what its writer stored (the
 * update is of the row version read).
 */
export async function printListFragments(prisma: PrismaClient, options: { signal?: AbortSignal } = {}): Promise<number> {
  const stamp = listStamp();
  let after: Pair | null = null;
  let printed = 0;
  while (!options.signal?.aborted) {
    const page = await fragmentPage(prisma, after, FRAGMENT_PAGE, stamp);
    if (page.keys.length === 0) break;
    after = page.keys[page.keys.length - 1]!;
    if (page.stale.length === 0) continue;
    printed += await storeFragments(
      prisma,
      page.stale.map((row) => ({ ...row, listJson: storedListFragment(JSON.parse(row.summary) as StoredSummaryDocument), listStamp: stamp })),
    );
  }
  return printed;
}
