// One agent's stored summary as the API shows it (everything but the agent it is about), and
// the list's part of it written once, when the summary is: a list without an agent carries
// every agent's summary of 24 merchants (about 850 KB at 100,000 merchants), and building it
// on each read (parsing the stored documents, the views, printing them) was most of its cost.
import { createHash } from 'node:crypto';
import { TASKS } from './constants.js';
import type { AgentSummary } from './engine.js';
import { reachOf } from './reach.js';
import { summaryVerdict } from './verdict.js';
import type { VersionFacts } from './agent-versions.js';
import type { Independent } from '../directory/query.js';
import { asciiJson } from '../../raw-json.js';

/** How many of a pair's approved reports are independent, and how many self-reported (by the shop's owner or the agent's vendor). */
export interface EvidenceSources {
  independent: number;
  selfReported: number;
  byOwner: number;
  byVendor: number;
}

/** A summary as stored (summaries.service.ts summaryDocument); older rows may lack the issue-37 parts. */
export type StoredSummaryDocument = AgentSummary & { sources?: EvidenceSources; withSelfReported?: AgentSummary | null; versions?: VersionFacts };

// How much of each per-agent summary a response carries:
// - detail: everything (the merchant's own URL);
// - list: every field too, but each task lists only its newest observation and evidence
//   reference (the detail has up to five): the repeated blocks are most of a list's weight;
// - compact (`view=compact`, merchants.service.ts): status and confidence per agent and task.

/** Items of a capability's observation and evidence lists in a list response. */
const LIST_ITEMS_PER_TASK = 1;

const NO_VERSIONS: VersionFacts = { seen: [], tasks: {}, regressions: [] };

const roundRating = (rating: number) => Math.round(rating * 10_000) / 10_000;

/**
 * A stored summary's verdict, and its reach carrying the verdict's sentence and colour as
 * `label` and `tone`: one answer, whichever field a client reads.
 */
export function verdictAndReach(summary: AgentSummary) {
  const verdict = summaryVerdict(summary);
  const reach = summary.reach ?? reachOf(summary.capabilities, []);
  return { verdict, reach: { ...reach, label: verdict.sentence, tone: verdict.colour } };
}

/**
 * The summary a reader asked for: made from the independent reports (the default), or from all
 * of them (independent=all), which differs only where some are self-reported; and the two
 * counts side by side.
 */
export function summaryFor(stored: StoredSummaryDocument, independent: Independent = 'only') {
  const summary = independent === 'all' && stored.withSelfReported ? stored.withSelfReported : stored;
  const sources: EvidenceSources = stored.sources ?? { independent: stored.counts.total, selfReported: 0, byOwner: 0, byVendor: 0 };
  return { summary, sources, versions: summary.versions ?? NO_VERSIONS };
}

/** Everything of an agent's summary view but the agent: the merchant's detail, a list, the export. */
export function summaryBody(baseUrl: string, stored: StoredSummaryDocument, shape: 'detail' | 'list' = 'detail', independent: Independent = 'only') {
  const { summary, sources, versions } = summaryFor(stored, independent);
  const absolute = <T extends { url: string }>(refs: T[]) => refs.map((ref) => ({ ...ref, url: ref.url.startsWith('/') ? `${baseUrl}${ref.url}` : ref.url }));
  const items = shape === 'list' ? LIST_ITEMS_PER_TASK : Infinity;
  // Stored as jsonb, which does not keep key order: rebuild the tasks in the spec's order.
  const capabilities = Object.fromEntries(
    TASKS.map((task) => {
      const capability = summary.capabilities[task];
      return [
        task,
        {
          ...capability,
          recentObservations: capability.recentObservations.slice(0, items),
          evidence: absolute(capability.evidence.slice(0, items)),
        },
      ];
    }),
  );
  const { verdict, reach } = verdictAndReach(summary);
  return {
    independent,
    // Independent and self-reported reports side by side (issue 37).
    sources,
    versions,
    // The verdict every surface shows (aggregation/verdict.ts); its sentence is the label.
    label: verdict.sentence,
    verdict,
    reach,
    status: summary.status,
    statusTask: summary.statusTask,
    scoreBand: summary.scoreBand,
    rating: roundRating(summary.rating),
    confidence: summary.confidence,
    counts: summary.counts,
    lastTestedAt: summary.lastTestedAt,
    lastReportedAt: summary.lastReportedAt,
    latestEvidenceAt: summary.latestEvidenceAt,
    evidence: absolute(summary.evidence),
    capabilities,
  };
}

/**
 * The list's body of a summary (independent reports only) as JSON, with its evidence links as
 * paths and every character past ASCII escaped (asciiJson): what the summary writer stores
 * beside the summary (`list_json`), and what a list joins instead of building it (listBodyJson).
 */
export const listFragment = (document: StoredSummaryDocument): string =>
  storedListFragment(inJsonbOrder(JSON.parse(JSON.stringify(document))) as StoredSummaryDocument);

/** listFragment of a document as PostgreSQL gives it back (summary_text, parsed): already in jsonb's order. */
export const storedListFragment = (stored: StoredSummaryDocument): string => asciiJson(JSON.stringify(summaryBody('', stored, 'list', 'only')));

/** Anything but printable ASCII (a summary's keys are all printable ASCII). */
const NOT_PRINTABLE_ASCII = /[^\x20-\x7e]/;

/**
 * jsonb's order of an object's keys: the shorter first (in UTF-8 bytes), then byte by byte. For
 * printable ASCII keys those are the string's length and order.
 */
const jsonbKeyOrder = (a: string, b: string) =>
  !NOT_PRINTABLE_ASCII.test(a) && !NOT_PRINTABLE_ASCII.test(b)
    ? a.length - b.length || (a < b ? -1 : a > b ? 1 : 0)
    : Buffer.byteLength(a) - Buffer.byteLength(b) || Buffer.compare(Buffer.from(a), Buffer.from(b));

/**
 * A parsed JSON value with its objects' members in the order PostgreSQL gives them back from
 * jsonb: a fragment is printed from the document as the list would read it (summary_text), so
 * a body built from the document and one joined from the fragment are the same bytes.
 */
function inJsonbOrder(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(inJsonbOrder);
  if (value === null || typeof value !== 'object') return value;
  const members = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(members)
      .sort(jsonbKeyOrder)
      .map((key) => [key, inJsonbOrder(members[key])]),
  );
}

/**
 * A stored fragment as `asciiJson(JSON.stringify(summaryBody(baseUrl, …, 'list', 'only')))`
 * prints it: its evidence links made absolute. Every `"url":"/` of the fragment is one: JSON
 * escapes every quotation mark inside a string, so the sequence only occurs as a member, and
 * the only members named `url` in a summary's body are its evidence references (a test compares
 * the two over the demo directory and generated summaries).
 */
export function listBodyJson(baseUrl: string, fragment: string): string {
  return baseUrl === '' ? fragment : fragment.replaceAll('"url":"/', `"url":"${asciiJson(JSON.stringify(baseUrl).slice(1, -1))}/`);
}

/** The stamp of the code that prints fragments: a hash of the fragments it prints for a fixed corpus (summaries.service.ts listStamp). */
export function fragmentsStamp(corpus: readonly StoredSummaryDocument[]): string {
  const hash = createHash('sha256');
  for (const document of corpus) hash.update(listFragment(document)).update('\n');
  return hash.digest('base64url').slice(0, 16);
}
