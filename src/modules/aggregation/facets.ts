// Report facets: which overall outcomes and furthest stages a merchant's (or a merchant+agent
// pair's) approved reports have, each with the creation time of its newest report. Stored
// beside the precomputed summaries (jsonb, GIN-indexed) so the directory's outcome, stage and
// days filters read one row per merchant instead of scanning its reports.
//
// Tokens: "WORKS" (an overall outcome), "@CART" (a furthest stage), "WORKS@CART" (both on the
// same report). Values are ISO 8601 UTC instants of the same length, so the newest of two is
// also the greater string.
import type { OutcomeKey, StageKey } from './constants.js';

export type Facets = Record<string, string>;

interface FacetSource {
  outcome: OutcomeKey;
  stage: StageKey | null;
  createdAt: Date;
}

/** The token that selects reports with this outcome and/or this exact furthest stage. */
export function facetToken(outcome: OutcomeKey | undefined, stage: StageKey | undefined): string | null {
  if (!outcome && !stage) return null;
  return `${outcome ?? ''}${stage ? `@${stage}` : ''}`;
}

/** Every token the reports carry, each with its newest report's creation time. */
export function reportFacets(reports: readonly FacetSource[]): Facets {
  const facets: Facets = {};
  for (const report of reports) {
    const at = report.createdAt.toISOString();
    const tokens = [report.outcome, ...(report.stage ? [`@${report.stage}`, `${report.outcome}@${report.stage}`] : [])];
    for (const token of tokens) {
      const known = facets[token];
      if (known === undefined || known < at) facets[token] = at;
    }
  }
  // Sorted keys: the same reports always give the same stored value.
  return Object.fromEntries(Object.entries(facets).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
