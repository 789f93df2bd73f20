// The one write path for changes of public evidence. Whoever approves, withdraws, edits an
// approved report, hides or shows a merchant, or (de)activates an agent calls evidenceChanged
// inside the transaction of that change: it takes the locks in the one order every writer of
// the directory uses and recomputes the affected summaries, so the public directory changes
// exactly when the change commits, and two writers never deadlock or race.
//
// The lock order, for every writer of summaries, background jobs included:
//   0. background jobs only, outside any transaction: the job's advisory lock (the upkeep's
//      UPKEEP_LOCK_KEY in src/upkeep.ts), so a periodic job runs in one instance at a time;
//   1. the directory version row (lockMerchants; statement triggers take it on any write to
//      the directory's tables, so it also comes before any row those writes lock);
//   2. merchant rows in id order (lockMerchants);
//   3. only then read the reports and summaries, and write the summaries.
// A change's own report rows (a decision's status) may be written before 1: no summary writer
// locks report rows. The summary refresh and the bulk recompute (summaries.service.ts) take
// 1 and 2 at the start of each of their short transactions and read under them, so a decision
// either waits for a batch or the batch reads after it; none writes a summary read before a
// decision that committed.
import type { Tx } from '../../db/client.js';
import { announceChanged, claimHolderPairs, lockMerchants, pairsOfMerchants } from './summaries.repository.js';
import { recomputeSummaries, type Pair } from './summaries.service.js';

export type EvidenceScope =
  /** These merchant+agent pairs (a report's decision or edit, an agent's merchants). */
  | { pairs: readonly Pair[] }
  /** Every pair of these merchants (a merchant hidden or shown). */
  | { merchantIds: readonly string[] };

export async function evidenceChanged(tx: Tx, scope: EvidenceScope, now: Date): Promise<void> {
  const merchantIds = 'pairs' in scope ? scope.pairs.map((p) => p.merchantId) : scope.merchantIds;
  await lockMerchants(tx, merchantIds);
  // Read under the lock: no decision on these merchants can slip in between.
  const pairs = 'pairs' in scope ? scope.pairs : await pairsOfMerchants(tx, merchantIds);
  await recomputeSummaries(tx, pairs, now);
  // Announced whatever the summaries did: a published report's own fields are public too, and
  // caches must drop these merchants' answers when this commits.
  await announceChanged(tx, merchantIds);
}

/**
 * A claim's status changed (verified, lapsed, revoked or reinstated; issue 37): its holder's
 * approved reports on the claimed merchant or with the claimed agent may have become, or
 * stopped being, self-reported, so their summaries are recomputed through the one write path,
 * in the claim change's transaction. Whether a report is self-reported is read from the claims
 * at recomputation (public-evidence.ts SELF_REPORTED_BY), never stored on the report.
 */
export async function claimChanged(
  tx: Tx,
  claim: { accountId: string; merchantId: string | null; agentId: string | null },
  now: Date,
): Promise<void> {
  const pairs = await claimHolderPairs(tx, claim);
  if (pairs.length > 0) await evidenceChanged(tx, { pairs }, now);
}

export { lockMerchants };
