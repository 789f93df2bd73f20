// What the directory pages show, shaped from the same service output as the JSON API
// (merchantProfile, searchDirectory, recentReports): the pages never aggregate on their own, and
// what they say about an agent at a merchant is its verdict (aggregation/verdict.ts), rendered
// by views/partials/verdict.ejs, never recomposed here.
import {
  CAPABILITY_STATUS_LABELS,
  CONFIDENCE_LABELS,
  CONFIDENCE_LEVELS,
  FAILURE_REASON_LABELS,
  FUNNEL_TASKS,
  HALF_LIFE_DAYS,
  HIGH_CONFIDENCE_MIN_AGREEMENT,
  HIGH_CONFIDENCE_MIN_MASS,
  MEDIUM_CONFIDENCE_MIN_AGREEMENT,
  MEDIUM_CONFIDENCE_MIN_MASS,
  OUTCOME_LABELS,
  OUTCOMES,
  RECENT_DAYS,
  STAGE_LABELS,
  TASK_LABELS,
  TASKS,
  type CapabilityStatus,
  type Confidence,
  type FunnelTaskKey,
  type OutcomeKey,
  type TaskKey,
} from '../aggregation/constants.js';
import { REACH_STEP_WORDS } from '../aggregation/reach.js';
import {
  STEP_STATE_SYMBOLS,
  STEP_STATE_WORDS,
  taskCell,
  TASK_RESULT_WORDS,
  VERDICT_COLOUR_MEANINGS,
  VERDICT_COLOURS,
  VERDICT_SYMBOLS,
  type Verdict,
} from '../aggregation/verdict.js';
import type { AgentSummaryView, MerchantView } from '../merchants/merchants.service.js';
import { formatDate, formatMonth, isoDay } from '../../dates.js';
import { plural } from '../../text.js';
import { PAGE_PATHS } from '../../paths.js';

;

export const SPONSORED_LABEL = 'Sponsored — advertising, not evidence that the site works';

/** Where a sponsorship places a merchant, in words (the API's `placement` values). */
export const PLACEMENT_LABELS: Readonly<Record<string, string>> = {
  'directory-top': 'first among matching results in the directory',
  'category-top': 'first among matching results in its category',
};

const SPONSORSHIP_SOURCE_LABELS: Readonly<Record<'subscription' | 'publisher_owned', string>> = {
  subscription: 'Paid sponsorship',
  publisher_owned: "Promotion of a site owned by the directory's publisher, shown with the owner's authorization",
};



/** "a", "a and b", "a, b and c". */
export function listOf(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

// Confidence, in words a person understands. The exact rules stay on /how-it-works below them.

/** The one page address that defines confidence; every badge links here. */
const CONFIDENCE_HREF = `${PAGE_PATHS.howItWorks}#confidence`;

/** A verdict's confidence in words ("medium confidence"). */
const confidenceWords = (confidence: Confidence) => CONFIDENCE_LABELS[confidence].toLowerCase();

const percent = (share: number) => `${Math.round(share * 100)} %`;

/** What each confidence level means, from the constants the engine uses. */
export function confidenceInWords(): { intro: string; levels: Array<{ confidence: Confidence; label: string; meaning: string }>; overall: string; decay: string } {
  const meaning: Record<Confidence, string> = {
    high:
      `About ${HIGH_CONFIDENCE_MIN_MASS} or more reports, at least ${percent(HIGH_CONFIDENCE_MIN_AGREEMENT)} of them saying the same thing, ` +
      `and at least one from the last ${RECENT_DAYS} days.`,
    medium: `About ${MEDIUM_CONFIDENCE_MIN_MASS} or more reports, at least ${percent(MEDIUM_CONFIDENCE_MIN_AGREEMENT)} of them saying the same thing.`,
    low: 'Anything less: a single report, reports that disagree, or only old ones. A task without a result is always low.',
  };
  return {
    intro:
      'Confidence says how far to trust a status. It looks at three things: how many reports there are, how much they agree, ' +
      'and how recent they are.',
    levels: [...CONFIDENCE_LEVELS].reverse().map((confidence) => ({ confidence, label: CONFIDENCE_LABELS[confidence], meaning: meaning[confidence] })),
    decay: `Older reports count for less: a report counts half after ${HALF_LIFE_DAYS} days, a quarter after ${HALF_LIFE_DAYS * 2}.`,
    overall:
      'Each cell of a merchant\'s table has the confidence of that one task. A verdict\'s confidence, shown beside it, is the ' +
      'lowest among the steps it rests on. Confidence never changes a verdict\'s colour: a low-confidence verdict is drawn ' +
      'outlined, a medium or high one solid.',
  };
}

interface EvidenceEntry {
  reportId: string;
  href: string;
  /** From the capability's recent observations; absent for an older evidence reference. */
  outcomeLabel: string | null;
  kindLabel: string | null;
  observedAt: string | null;
}

interface CellView {
  task: TaskKey;
  taskLabel: string;
  status: CapabilityStatus;
  /** What the cell says (the task's result, or how the verdict places the step) and its symbol. */
  words: string;
  symbol: string;
  /** Why it says more than the status, when it does. */
  note: string | null;
  statusLabel: string;
  confidenceLabel: string;
  reportCount: number;
  recentCount: number;
  conflicting: boolean;
  lastTestedAt: string | null;
  evidence: EvidenceEntry[];
}

export interface AgentRowView {
  agent: AgentSummaryView['agent'];
  summary: AgentSummaryView;
  verdict: Verdict;
  counts: Array<{ outcome: OutcomeKey; label: string; count: number }>;
  cells: CellView[];
}

/** A task no report says anything about (the summaries always carry all seven; this is a guard). */
const UNTESTED_TASK: AgentSummaryView['capabilities'][string] & object = {
  status: 'untested',
  reportCount: 0,
  recentCount: 0,
  explicitCount: 0,
  reachedStageCount: 0,
  confidence: 'low',
  conflicting: false,
  lastTestedAt: null,
  lastReportedAt: null,
  latestEvidenceAt: null,
  recentObservations: [],
  evidence: [],
};

/**
 * The seven-task matrix: one row per agent (its verdict), one cell per task. `reportHref` says
 * where a report is shown (an anchor on this page, or its public API record).
 */
export function matrixRows(merchant: MerchantView, reportHref: (reportId: string, apiUrl: string) => string): AgentRowView[] {
  return merchant.agents.map((summary) => {
    const { verdict } = summary;
    return {
      agent: summary.agent,
      summary,
      verdict,
      counts: OUTCOMES.map((outcome) => ({ outcome, label: OUTCOME_LABELS[outcome], count: summary.counts[outcome] })),
      cells: TASKS.map((task) => {
        const capability = summary.capabilities[task] ?? UNTESTED_TASK;
        const urls = new Map(capability.evidence.map((ref) => [ref.reportId, ref.url]));
        const evidence: EvidenceEntry[] = capability.recentObservations.map((o) => ({
          reportId: o.reportId,
          href: reportHref(o.reportId, urls.get(o.reportId) ?? `/api/v1/reports/${o.reportId}`),
          outcomeLabel: OUTCOME_LABELS[o.outcome],
          kindLabel: o.kind === 'explicit' ? 'task result given in the report' : 'shown by the furthest stage reached (half weight)',
          observedAt: o.observedAt,
        }));
        for (const ref of capability.evidence) {
          if (evidence.some((e) => e.reportId === ref.reportId)) continue;
          evidence.push({ reportId: ref.reportId, href: reportHref(ref.reportId, ref.url), outcomeLabel: null, kindLabel: null, observedAt: null });
        }
        const state = verdict.steps.find((s) => s.task === task)?.state ?? null;
        return {
          task,
          taskLabel: TASK_LABELS[task],
          status: capability.status,
          ...taskCell(capability.status, state, verdict.stop),
          statusLabel: CAPABILITY_STATUS_LABELS[capability.status],
          confidenceLabel: CONFIDENCE_LABELS[capability.confidence],
          reportCount: capability.reportCount,
          recentCount: capability.recentCount,
          conflicting: capability.conflicting,
          lastTestedAt: capability.lastTestedAt,
          evidence,
        };
      }),
    };
  });
}

/** The ladder's steps for the "gets at least through" choosers, nearest first. */
const REACH_CHOICES: ReadonlyArray<{ task: FunnelTaskKey; words: string }> = FUNNEL_TASKS.map((task) => ({ task, words: REACH_STEP_WORDS[task] }));

/**
 * "At least as far as checkout": a count's caption, for the merchants where the agent gets
 * through the step or partly through it, with no stop before: what `reaches=<step>` lists.
 */
export const reachCountLabel = (task: FunnelTaskKey) => `At least as far as ${task === 'PURCHASE' ? 'a purchase' : REACH_STEP_WORDS[task]}`;

/** The task-status filter's choices: sets of statuses, in words, as the form offers them. */
const TASK_STATUS_CHOICES: ReadonlyArray<{ value: string; words: string }> = [
  { value: 'supported', words: 'works' },
  { value: 'supported,partial', words: 'works or partly works' },
  { value: 'partial', words: 'only partly works' },
  { value: 'blocked,unsupported', words: "is blocked or doesn't work" },
  { value: 'blocked', words: 'is blocked' },
  { value: 'unsupported', words: "doesn't work" },
  { value: 'unknown,untested', words: 'has no result yet' },
];

/** A taskStatus value in words ("blocked,unsupported" → "is blocked or doesn't work"). */
export function taskStatusWords(value: string): string {
  const known = TASK_STATUS_CHOICES.find((c) => c.value === value);
  if (known) return known.words;
  const words = value.split(',').map((s) => CAPABILITY_STATUS_LABELS[s as CapabilityStatus]?.toLowerCase() ?? s);
  return `is ${listOf(words).replace(/ and ([^ ]+)$/, ' or $1')}`;
}

/**
 * The active agents a search text names ("errand otter", "Otter", "errand-otter"): the text is
 * in the agent's name or slug (at least three characters of it), or the name is in the text.
 */
export function agentsNamed<A extends { name: string; slug: string }>(text: string | undefined, agents: readonly A[]): A[] {
  const q = (text ?? '').trim().toLowerCase().replace(/\s+/g, ' ');
  if (q.length < 3) return [];
  return agents.filter((a) => {
    const name = a.name.toLowerCase();
    return name.includes(q) || a.slug.includes(q.replace(/ /g, '-')) || q.includes(name) || q.includes(a.slug);
  });
}

/** Labels and helpers every directory template may use. */
export const viewHelpers = {
  TASKS,
  TASK_LABELS,
  OUTCOMES,
  OUTCOME_LABELS,
  STAGE_LABELS,
  FAILURE_REASON_LABELS,
  CAPABILITY_STATUS_LABELS,
  CONFIDENCE_LABELS,
  TASK_RESULT_WORDS,
  SPONSORED_LABEL,
  SPONSORSHIP_SOURCE_LABELS,
  formatDate,
  formatMonth,
  isoDay,
  plural,
  confidenceWords,
  CONFIDENCE_HREF,
  VERDICT_COLOURS,
  VERDICT_SYMBOLS,
  VERDICT_COLOUR_MEANINGS,
  STEP_STATE_SYMBOLS,
  STEP_STATE_WORDS,
  REACH_CHOICES,
  REACH_STEP_WORDS,
  TASK_STATUS_CHOICES,
  taskStatusWords,
};
