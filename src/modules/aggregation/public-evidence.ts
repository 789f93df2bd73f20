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
 * The report list's walk (public-reports.repository.ts): `r` approved, of a public merchant and an
 * active agent, and, unless `withSelfReported`, independent (`SELF_REPORTED_BY IS NULL`), written
 * as conditions on `r` alone. The few hidden merchants, active agents and counted claims are
 * each read once and hashed, so that a page walks the feed's index in its order testing each
 * entry in memory. Joins (and a `CASE … IS NULL`, which the planner guesses at 0.5 % of the rows)
 * made PostgreSQL sort every public report for a deep page: 10 s at 2,000,000 reports.
 * (account_id, merchant_id and agent_id are never NULL, so NOT IN is NOT EXISTS here.)
 */
export function listedReport(withSelfReported: boolean): Prisma.Sql {
  const independent = Prisma.sql`
    AND (r.account_id, r.merchant_id) NOT IN (SELECT sc.account_id, sc.merchant_id FROM claims sc WHERE sc.merchant_id IS NOT NULL AND ${COUNTED_CLAIM})
    AND (r.account_id, r.agent_id) NOT IN (SELECT sc.account_id, sc.agent_id FROM claims sc WHERE sc.agent_id IS NOT NULL AND ${COUNTED_CLAIM})`;
  return Prisma.sql`r.status = 'APPROVED'
    AND r.merchant_id NOT IN (SELECT id FROM merchants WHERE NOT is_public)
    AND r.agent_id = ANY(ARRAY(SELECT id FROM agents WHERE active))
    ${withSelfReported ? Prisma.empty : independent}`;
}
