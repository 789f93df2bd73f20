// The facts behind the moderators' signals (signals.ts), read from what the service already
// holds: accounts, reports (their keyed address hashes, their texts through pg_trgm's trigram
// index), claims and the stored summaries. Private: only the moderators' pages read this.
import { Prisma } from '../../generated/prisma/client.js';
import type { PrismaClient } from '../../db/client.js';
import type { CapabilityStatus, Confidence, OutcomeKey, TaskKey } from '../aggregation/constants.js';
import { SELF_REPORTED_BY } from '../aggregation/public-evidence.js';
import { ADDRESS_HASH_DAYS } from '../reports/address-hash.js';
import {
  BURST_WINDOW_HOURS,
  contradictions,
  NEAR_DUPLICATE_MIN_LENGTH,
  NEAR_DUPLICATE_SIMILARITY,
  NEAR_DUPLICATE_WINDOW_DAYS,
  type ReportSignals,
} from './signals.js';

interface SignalRow {
  id: string;
  account_age_days: number;
  author_approved: number;
  author_rejected: number;
  same_account: number;
  same_address: number;
  same_address_accounts: number;
  near_duplicates: number;
  near_duplicate_accounts: number;
  self_reported: 'owner' | 'vendor' | null;
  merchant_id: string;
  agent_id: string;
  capability_results: Partial<Record<TaskKey, OutcomeKey>> | null;
}

/** Runs `fn` with pg_trgm's `%` meaning "at least NEAR_DUPLICATE_SIMILARITY alike", so the trigram index serves it. */
function withSimilarity<T>(prisma: PrismaClient, fn: (tx: Prisma.TransactionClient) => Promise<T>): Promise<T> {
  return prisma.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT set_config('pg_trgm.similarity_threshold', ${String(NEAR_DUPLICATE_SIMILARITY)}, true)`;
    return fn(tx);
  });
}

/** The signals of these reports (any status), keyed by report id. */
export async function signalsOf(prisma: PrismaClient, reportIds: readonly string[]): Promise<Map<string, ReportSignals>> {
  if (reportIds.length === 0) return new Map();
  const burst = Prisma.sql`make_interval(hours => ${BURST_WINDOW_HOURS})`;
  const near = Prisma.sql`make_interval(days => ${NEAR_DUPLICATE_WINDOW_DAYS})`;
  const rows = await withSimilarity(
    prisma,
    (tx) => tx.$queryRaw<SignalRow[]>`
      SELECT r.id, r.merchant_id, r.agent_id, r.capability_results,
             floor(extract(epoch FROM (r.created_at - a.created_at)) / 86400)::int AS account_age_days,
             (SELECT count(*) FROM reports x WHERE x.account_id = r.account_id AND x.id <> r.id AND x.status = 'APPROVED')::int AS author_approved,
             (SELECT count(*) FROM reports x WHERE x.account_id = r.account_id AND x.id <> r.id AND x.status = 'REJECTED')::int AS author_rejected,
             (SELECT count(*) FROM reports x WHERE x.account_id = r.account_id AND x.id <> r.id
                 AND x.created_at BETWEEN r.created_at - ${burst} AND r.created_at + ${burst})::int AS same_account,
             coalesce(sa.n, 0) AS same_address, coalesce(sa.accounts, 0) AS same_address_accounts,
             coalesce(nd.n, 0) AS near_duplicates, coalesce(nd.accounts, 0) AS near_duplicate_accounts,
             ${SELF_REPORTED_BY} AS self_reported
        FROM reports r
        JOIN accounts a ON a.id = r.account_id
        LEFT JOIN LATERAL (
          SELECT count(*)::int AS n, count(DISTINCT x.account_id) FILTER (WHERE x.account_id <> r.account_id)::int AS accounts
            FROM reports x
           WHERE r.address_hash IS NOT NULL AND x.address_hash = r.address_hash AND x.id <> r.id
             AND x.created_at BETWEEN r.created_at - ${burst} AND r.created_at + ${burst}
        ) sa ON true
        LEFT JOIN LATERAL (
          SELECT count(*)::int AS n, count(DISTINCT x.account_id)::int AS accounts
            FROM reports x
           WHERE length(r.experience) >= ${NEAR_DUPLICATE_MIN_LENGTH}
             AND x.experience % r.experience AND x.account_id <> r.account_id
             AND length(x.experience) >= ${NEAR_DUPLICATE_MIN_LENGTH}
             AND x.created_at BETWEEN r.created_at - ${near} AND r.created_at + ${near}
        ) nd ON true
       WHERE r.id = ANY(${[...reportIds]}::uuid[])`,
  );
  const pairs = [...new Map(rows.map((r) => [`${r.merchant_id}:${r.agent_id}`, { merchantId: r.merchant_id, agentId: r.agent_id }])).values()];
  const held = await pairCapabilities(prisma, pairs);
  return new Map(
    rows.map((r) => [
      r.id,
      {
        reportId: r.id,
        accountAgeDays: r.account_age_days,
        authorApproved: r.author_approved,
        authorRejected: r.author_rejected,
        sameAccount: r.same_account,
        sameAddress: r.same_address,
        sameAddressAccounts: r.same_address_accounts,
        nearDuplicates: r.near_duplicates,
        nearDuplicateAccounts: r.near_duplicate_accounts,
        selfReported: r.self_reported,
        contradicts: contradictions(r.capability_results ?? {}, held.get(`${r.merchant_id}:${r.agent_id}`)),
      },
    ]),
  );
}

type Capabilities = Partial<Record<TaskKey, { status: CapabilityStatus; confidence: Confidence }>>;

/** The stored task statuses (independent evidence) of these pairs. */
async function pairCapabilities(prisma: PrismaClient, pairs: ReadonlyArray<{ merchantId: string; agentId: string }>): Promise<Map<string, Capabilities>> {
  if (pairs.length === 0) return new Map();
  const rows = await prisma.$queryRaw<Array<{ merchant_id: string; agent_id: string; capabilities: string | null }>>`
    SELECT s.merchant_id, s.agent_id, (s.summary -> 'capabilities')::text AS capabilities
      FROM merchant_agent_summaries s
      JOIN unnest(${pairs.map((p) => p.merchantId)}::uuid[], ${pairs.map((p) => p.agentId)}::uuid[]) AS p(merchant_id, agent_id)
        ON p.merchant_id = s.merchant_id AND p.agent_id = s.agent_id`;
  return new Map(rows.map((r) => [`${r.merchant_id}:${r.agent_id}`, r.capabilities ? (JSON.parse(r.capabilities) as Capabilities) : {}]));
}

/**
 * A burst of near-identical text: the pending reports whose text is at least
 * NEAR_DUPLICATE_SIMILARITY alike the given report's (by other accounts or not), the report
 * itself included when it is pending. Empty when the report has no text long enough.
 */
export async function pendingSimilarTo(prisma: PrismaClient, reportId: string): Promise<string[]> {
  const rows = await withSimilarity(
    prisma,
    (tx) => tx.$queryRaw<Array<{ id: string }>>`
      SELECT x.id FROM reports r JOIN reports x ON x.experience % r.experience
       WHERE r.id = ${reportId}::uuid AND x.status = 'PENDING'
         AND length(r.experience) >= ${NEAR_DUPLICATE_MIN_LENGTH} AND length(x.experience) >= ${NEAR_DUPLICATE_MIN_LENGTH}
      UNION
      SELECT id FROM reports WHERE id = ${reportId}::uuid AND status = 'PENDING'`,
  );
  return rows.map((r) => r.id);
}

/** Clears the address hashes of reports not submitted again for ADDRESS_HASH_DAYS (the upkeep); returns how many. */
export async function clearOldAddressHashes(prisma: PrismaClient, now: Date): Promise<number> {
  const before = new Date(now.getTime() - ADDRESS_HASH_DAYS * 86_400_000);
  return prisma.$executeRaw`UPDATE reports SET address_hash = NULL WHERE address_hash IS NOT NULL AND updated_at < ${before}`;
}
