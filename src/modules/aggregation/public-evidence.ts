// What counts as public evidence, said once: an approved report of a public merchant and an
// active agent. Summaries are stored only for such evidence (recomputed whenever any part of
// it changes), so their rows inherit it; the agent join on summaries keeps a deactivated
// agent out even before its recomputation commits.
import { Prisma } from '../../generated/prisma/client.js';

/** `FROM` clause of the public reports: `r` the report, `m` its merchant, `a` its agent. */
export const PUBLIC_REPORTS = Prisma.sql`reports r
  JOIN merchants m ON m.id = r.merchant_id AND m.is_public
  JOIN agents a ON a.id = r.agent_id AND a.active`;

/** The condition on `r` that goes with PUBLIC_REPORTS. */
export const IS_PUBLIC_REPORT = Prisma.sql`r.status = 'APPROVED'`;

/** `FROM` clause of the summaries of public evidence: `s` the summary, `a` its agent. */
export const PUBLIC_SUMMARIES = Prisma.sql`merchant_agent_summaries s JOIN agents a ON a.id = s.agent_id AND a.active`;
