// The report list's page boundaries (public-reports.repository.ts): how many listed reports each
// pair has per week of their report date and overall outcome, independent and self-reported
// apart. The summary writer stores it beside each summary (feed_weeks), and triggers keep its
// sums per agent in report_totals (migration report_feed_weeks), so a numbered page knows the
// week it starts in without walking the reports before it. Pure.
import type { OutcomeKey } from './constants.js';
import type { EvidenceReport } from './observations.js';

/** A week of the feed: 7 days from a Thursday 00:00 UTC (weeks since 1970-01-01, as the SQL floors epoch / 604800). */
export const FEED_WEEK_MS = 7 * 24 * 60 * 60 * 1000;

const feedWeekOf = (date: Date): number => Math.floor(date.getTime() / FEED_WEEK_MS);

/** { "<week>": { "<Outcome>": [independent, self-reported] } }, outcomes without reports left out. */
export type FeedWeeks = Record<string, Partial<Record<OutcomeKey, [number, number]>>>;

export function feedWeeks(reports: readonly EvidenceReport[]): FeedWeeks {
  const weeks: FeedWeeks = {};
  for (const report of reports) {
    const week = (weeks[feedWeekOf(report.createdAt)] ??= {});
    const counts = (week[report.outcome] ??= [0, 0]);
    counts[report.selfReported ? 1 : 0] += 1;
  }
  return weeks;
}
