// What counts as public evidence, said once: an approved report of a public merchant and an
// active agent. Summaries are stored only for such evidence (recomputed whenever any part of
// it changes), so their rows inherit it; the agent join on summaries keeps a deactivated
// agent out even before its recomputation commits.
import { Prisma } from '../../generated/prisma/client.js';

/** `FROM` clause of the public reports: `r` the report, `m` its merchant, `a` its agent. */
export const PUBLIC_REPORTS = Prisma.sql`reports r
  JOIN merchants m ON m.id = r.merchant_id AND m.is_public
  JOIN agents a ON a.id = r.agent_id AND a.active`;

/** The merchant and agent a public row is about, by id, slug and name (PAIR_NAMES). */
export interface PairNames {
  merchantId: string;
  merchantSlug: string;
  merchantName: string;
  agentId: string;
  agentSlug: string;
  agentName: string;
}

/** The columns of PairNames, from `m` the merchant and `a` the agent. */
export const PAIR_NAMES = Prisma.sql`m.id AS "merchantId", m.slug AS "merchantSlug", m.name AS "merchantName",
  a.id AS "agentId", a.slug AS "agentSlug", a.name AS "agentName"`;

/** The condition on `r` that goes with PUBLIC_REPORTS. */
export const IS_PUBLIC_REPORT = Prisma.sql`r.status = 'APPROVED'`;

/**
 * The row `alias` (a report or a summary) is about a public merchant, as a condition on the row
 * alone: the hidden merchants, few, read once per query and hashed (`NOT IN`; ids are never
 * NULL), so that a walk or count over an index of the rows needs no join with the merchants.
 */
export const ofPublicMerchant = (alias: 'r' | 's') => Prisma.sql`${Prisma.raw(alias)}.merchant_id NOT IN (SELECT id FROM merchants WHERE NOT is_public)`;

/** `FROM` clause of the summaries of public evidence: `s` the summary, `a` its agent. */
export const PUBLIC_SUMMARIES = Prisma.sql`merchant_agent_summaries s JOIN agents a ON a.id = s.agent_id AND a.active`;

/** A claim that makes its holder's reports self-reported (`sc`): verified, in grace, or lapsed. */
const COUNTED_CLAIM = Prisma.sql`sc.status IN ('VERIFIED', 'GRACE', 'LAPSED') AND sc.verified_at IS NOT NULL`;

/**
 * Who wrote report `r`, when it is self-reported (issue 37): 'owner' when its author holds a
 * claim of the report's merchant, 'vendor' when of the report's agent, else NULL. A claim counts
 * once it has been verified and for as long as it is not revoked: verified, in grace, or lapsed.
 * A lapse does not hand an owner's reports back to the community's count (letting a proof lapse
 * must not be a way to have one's own reports counted); a moderator's revocation says the claim
 * was not the holder's to make, so it does. Said once: the summaries, the public reports and the
 * moderators' signals all read it.
 */
export const SELF_REPORTED_BY = Prisma.sql`(CASE
  WHEN EXISTS (SELECT 1 FROM claims sc WHERE sc.account_id = r.account_id AND sc.merchant_id = r.merchant_id
                  AND ${COUNTED_CLAIM}) THEN 'owner'
  WHEN EXISTS (SELECT 1 FROM claims sc WHERE sc.account_id = r.account_id AND sc.agent_id = r.agent_id
                  AND ${COUNTED_CLAIM}) THEN 'vendor'
END)`;

/**
 * The few agents and authors the report list's walk leaves out, read once per directory version
 * (public-reports.repository.ts): the inactive agents, and the authors holding a counted claim.
 */
export interface ListedSets {
  inactiveAgents: string[];
  claimants: string[];
}

export const LISTED_SETS = Prisma.sql`SELECT
  (SELECT coalesce(array_agg(id::text), '{}') FROM agents WHERE NOT active) AS "inactiveAgents",
  (SELECT coalesce(array_agg(DISTINCT sc.account_id::text), '{}') FROM claims sc WHERE ${COUNTED_CLAIM}) AS claimants`;

/**
 * The report list's walk (public-reports.repository.ts): `r` approved, of a public merchant and an
 * active agent, and, unless `withSelfReported`, independent (`SELF_REPORTED_BY IS NULL`), written
 * as conditions on `r` alone, so that a page walks an index in its order and tests each entry in
 * memory: the hidden merchants are read once and hashed (`NOT IN`; ids are never NULL), the
 * inactive agents and the claimants come as array parameters (`sets`), which a query planned
 * with its parameters sees as constants, hashes, and estimates from. Only a claimant's reports
 * are tested against the claims themselves. Joins (and a `CASE … IS NULL`, which the planner
 * guesses at 0.5 % of the rows) made PostgreSQL sort every public report for a deep page, 10 s at
 * 2,000,000 reports; with every set a subquery, it guessed 2.5 % and, given an index per filter,
 * sorted one of those instead of walking. (The hidden merchants as an array too cost 13 ms of
 * planning at 4,000 of them: the planner estimates each element.)
 */
export function listedReport(withSelfReported: boolean, sets: ListedSets): Prisma.Sql {
  return Prisma.sql`r.status = 'APPROVED'
    AND ${ofPublicMerchant('r')}
    AND r.agent_id <> ALL(${sets.inactiveAgents}::uuid[])
    ${withSelfReported ? Prisma.empty : Prisma.sql`AND (r.account_id <> ALL(${sets.claimants}::uuid[]) OR ${SELF_REPORTED_BY} IS NULL)`}`;
}
