// The rules of self-reported evidence and of agent versions (issue 37), said once for every text
// that tells them: /how-it-works, the agent guide, docs/decisions.md. The code that applies them
// is public-evidence.ts (SELF_REPORTED_BY), summaries.service.ts and agent-versions.ts.
import { REGRESSION_WINDOW_DAYS } from './agent-versions.js';

export const EVIDENCE_RULES = {
  selfReported:
    "A report is self-reported when its author holds a verified claim of the report's shop (its owner) or of the report's agent (its vendor). " +
    'Self-reported reports stay public and are marked as such, without saying who wrote them. Statuses, the reach, scores, the verdict, report counts and the filters ' +
    'count independent reports only; every summary shows the independent and the self-reported counts side by side, and the verdict names the others ("plus 2 reports by the vendor").',
  claimTiming:
    "Whether a report is self-reported is read from the claims whenever the summaries are recomputed, so a claim verified after its holder's reports makes those reports self-reported from then on. " +
    "A claim that lapses (its proof was not found again) keeps its holder's reports self-reported: letting a proof lapse is not a way to have one's own reports counted. " +
    "A claim a moderator revokes no longer does: the revocation says the claim was not its holder's to make.",
  filters:
    'Add independent=all to a merchant, list or report address (the API, the MCP tools and the shop page) to count every approved report, self-reported ones included; ' +
    'independent=only is the default. Filters and sorts always read the independent reports.',
  versions:
    "A report's agentVersion is trimmed. Semantic versions (1.2.3, v1.2, 2.0.0-rc.1) are compared by SemVer precedence, missing parts counting as 0 and build metadata ignored; " +
    'other strings are compared as text, and a semantic version is never compared with another string. Each shop and agent lists the versions its reports name, and per task the newest version seen working.',
  regressions:
    `A regression is flagged when, among the reports of the last ${REGRESSION_WINDOW_DAYS} days, the newest version with a result for a task failed it (Blocked or Doesn't work) and none of its reports saw it work, ` +
    'while an older version of the same kind worked. The verdict says so ("worked up to 0.7.1, fails at checkout since 0.7.3"), the feeds announce it, and the agent\'s page lists the shops.',
} as const;
