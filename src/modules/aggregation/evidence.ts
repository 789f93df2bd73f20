// The one write path for changes of public evidence. Whoever approves, withdraws, edits an
// approved report, hides or shows a merchant, or (de)activates an agent calls evidenceChanged
// inside the transaction of that change: it takes the locks in the one order every writer of
// the directory uses (the directory version row, then merchant rows in id order) and
// recomputes the affected summaries, so the public directory changes exactly when the change
// commits, and two writers never deadlock or race.
import type { Tx } from '../../db/client.js';
import { lockMerchants, pairsOfMerchants } from './summaries.repository.js';
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
}

export { lockMerchants };
