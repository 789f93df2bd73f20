// What the directory pages show, shaped from the same service output as the JSON API
// (merchantProfile, searchDirectory, recentReports): the pages never aggregate on their own.
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
  scoreBandLabel,
  STAGE_LABELS,
  TASK_LABELS,
  TASKS,
  type CapabilityStatus,
  type Confidence,
  type OutcomeKey,
  type TaskKey,
} from '../aggregation/constants.js';
import type { FunnelTaskKey } from '../aggregation/constants.js';
import { REACH_STEP_WORDS, stopWords, type ReachTone, type ReachView } from '../aggregation/reach.js';
import type { AgentSummaryView, MerchantView } from '../merchants/merchants.service.js';
import { formatDate, isoDay } from '../../dates.js';

/** A status in one or two words for a matrix cell; the full label is in the legend and the details. */
export const STATUS_SHORT_LABELS: Readonly<Record<CapabilityStatus, string>> = {
  supported: 'Supported',
  partial: 'Partial',
  blocked: 'Blocked',
  unsupported: 'Unsupported',
  unknown: 'Unknown',
  untested: 'Not tested',
};

/** A shape next to the colour, so status never depends on colour (hidden from screen readers). */
export const STATUS_SYMBOLS: Readonly<Record<CapabilityStatus, string>> = {
  supported: '✓',
  partial: '◐',
  blocked: '⊘',
  unsupported: '✕',
  unknown: '?',
  untested: '–',
};

export const SPONSORED_LABEL = 'Sponsored — advertising, not evidence that the site works';

/** Where a sponsorship places a merchant, in words (the API's `placement` values). */
export const PLACEMENT_LABELS: Readonly<Record<string, string>> = {
  'directory-top': 'first among matching results in the directory',
  'category-top': 'first among matching results in its category',
};

export const SPONSORSHIP_SOURCE_LABELS: Readonly<Record<'subscription' | 'publisher_owned', string>> = {
  subscription: 'Paid sponsorship',
  publisher_owned: "Promotion of a site owned by the directory's publisher, shown with the owner's authorization",
};


export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

// Why an agent has its status, in one sentence.

/** A task as the subject of a sentence ("browsing and details work"). */
export const TASK_NOUNS: Readonly<Record<TaskKey, string>> = {
  ACCESS: 'website access',
  SEARCH: 'browsing',
  DETAILS: 'details',
  LOGIN: 'login',
  CART: 'adding to cart',
  CHECKOUT: 'checkout',
  PURCHASE: 'purchase',
};

/** A task after "at" ("Blocked at the cart"). */
export const TASK_AT: Readonly<Record<TaskKey, string>> = {
  ACCESS: 'website access',
  SEARCH: 'browsing',
  DETAILS: 'product details',
  LOGIN: 'login',
  CART: 'the cart',
  CHECKOUT: 'checkout',
  PURCHASE: 'the purchase',
};

/** "a", "a and b", "a, b and c". */
export function listOf(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
/** "works" for one task, "work" for several. */
const works = (tasks: readonly TaskKey[]) => (tasks.length === 1 ? 'works' : 'work');

/** What a summary needs for its sentence: the API's per-agent summary has all of it. */
export interface SentenceSummary {
  status: CapabilityStatus;
  statusTask: TaskKey | null;
  counts: { total: number };
  capabilities: Partial<Record<TaskKey, { status: CapabilityStatus; recentObservations?: ReadonlyArray<{ outcome: OutcomeKey }> }>>;
}

/**
 * One sentence that says which task set an agent's status and why, from the summary and its
 * capabilities, so that a status never seems to contradict the cells beside it: the first
 * failing step along access → browsing → details → cart → checkout → purchase decides, even when
 * later steps were reported working; login stays aside unless nothing else has a result. E.g.
 * "Blocked at checkout; website access, browsing, details and adding to cart work."
 */
export function statusSentence(summary: SentenceSummary): string {
  const statusOf = (task: TaskKey): CapabilityStatus => summary.capabilities[task]?.status ?? 'untested';
  const task = summary.statusTask;
  const nouns = (tasks: readonly TaskKey[]) => listOf(tasks.map((t) => TASK_NOUNS[t]));

  if (summary.status === 'untested' || (task === null && summary.status !== 'unknown')) {
    return summary.counts.total > 0
      ? 'Not tested yet: its reports give only an overall outcome, no result for any task.'
      : 'Not tested yet: no approved report about this agent here.';
  }
  if (summary.status === 'unknown' || task === null) {
    const outcomes = TASKS.flatMap((t) => (summary.capabilities[t]?.recentObservations ?? []).map((o) => o.outcome));
    if (outcomes.length > 0 && outcomes.every((o) => o === 'UNSURE')) return 'No task confirmed yet: the only reports are unsure.';
    if (outcomes.some((o) => o === 'UNSURE')) return 'No task confirmed yet: the reports are unsure, or too old to count.';
    return 'No task confirmed yet: the reports are too old to count.';
  }

  if (task === 'LOGIN') {
    const result: Partial<Record<CapabilityStatus, string>> = {
      supported: 'it works',
      partial: 'it only partly works',
      blocked: 'it is blocked',
      unsupported: 'it fails',
    };
    return `Only login has a result so far: ${result[summary.status] ?? 'it is unclear'}; no step toward a purchase is confirmed.`;
  }

  const index = FUNNEL_TASKS.indexOf(task as (typeof FUNNEL_TASKS)[number]);
  const before = FUNNEL_TASKS.slice(0, Math.max(index, 0));
  const after = FUNNEL_TASKS.slice(index + 1);
  const login = statusOf('LOGIN');
  const loginAside = login === 'blocked' || login === 'unsupported' ? `; login ${login === 'blocked' ? 'is blocked' : 'fails'}, which the status leaves aside (guest checkout)` : '';

  if (summary.status === 'supported') {
    const open = after.filter((t) => statusOf(t) !== 'supported');
    if (open.length === 0) return `Works all the way to the purchase: every reported step works${loginAside}.`;
    return `Works as far as ${TASK_AT[task]}; ${nouns(open)} not confirmed yet${loginAside}.`;
  }

  const opening: Partial<Record<CapabilityStatus, string>> = {
    blocked: `Blocked at ${TASK_AT[task]}`,
    unsupported: `Fails at ${TASK_AT[task]}`,
    partial: `Only partly works at ${TASK_AT[task]}`,
  };
  const good = before.filter((t) => statusOf(t) === 'supported');
  const partly = before.filter((t) => statusOf(t) === 'partial');
  const earlier: string[] = [];
  if (good.length) earlier.push(`${nouns(good)} ${works(good)}`);
  if (partly.length) earlier.push(`${nouns(partly)} only partly ${works(partly)}`);
  let sentence = opening[summary.status] ?? capitalise(`${CAPABILITY_STATUS_LABELS[summary.status]} at ${TASK_AT[task]}`);
  if (earlier.length) sentence += `; ${listOf(earlier)}`;
  else if (index === 0) sentence += ', the first step';
  else sentence += '; no earlier step confirmed yet';
  const later = after.filter((t) => statusOf(t) === 'supported');
  if (later.length) {
    const rule = summary.status === 'partial' ? 'the weakest step decides' : 'the first step that fails decides';
    sentence += ` (${nouns(later)} reportedly ${works(later)} too, but ${rule})`;
  }
  return `${sentence}${loginAside}.`;
}

// Confidence, in words a person understands. The exact rules stay on /how-it-works below them.

/** The one page address that defines confidence; every badge links here. */
export const CONFIDENCE_HREF = '/how-it-works#confidence';

/** An agent's confidence on a merchant, worded so it does not seem to contradict its cells. */
export const overallConfidenceLabel = (confidence: Confidence) => `overall: ${CONFIDENCE_LABELS[confidence].toLowerCase()}`;

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
      'Each cell of a merchant\'s table has the confidence of that one task. An agent\'s overall confidence, shown beside its ' +
      'status and on the directory\'s cards, is the lowest among the tasks that decide its status and how far it gets: ' +
      'so "overall: low confidence" can stand beside cells of medium confidence.',
  };
}

export interface EvidenceEntry {
  reportId: string;
  href: string;
  /** From the capability's recent observations; absent for an older evidence reference. */
  outcomeLabel: string | null;
  kindLabel: string | null;
  observedAt: string | null;
}

export interface CellView {
  task: TaskKey;
  taskLabel: string;
  status: CapabilityStatus;
  shortLabel: string;
  fullLabel: string;
  symbol: string;
  confidenceLabel: string;
  reportCount: number;
  recentCount: number;
  conflicting: boolean;
  lastTestedAt: string | null;
  /** This task set the agent's status (the matrix marks it). */
  setsStatus: boolean;
  evidence: EvidenceEntry[];
}

export interface AgentRowView {
  agent: AgentSummaryView['agent'];
  summary: AgentSummaryView;
  status: CapabilityStatus;
  shortLabel: string;
  symbol: string;
  label: string;
  tested: boolean;
  statusTaskLabel: string | null;
  /** Which task set the status and why, in one sentence. */
  sentence: string;
  scoreBandLabel: string;
  confidenceLabel: string;
  /** "overall: low confidence", as on the directory's cards. */
  overallConfidenceLabel: string;
  counts: Array<{ outcome: OutcomeKey; label: string; count: number }>;
  cells: CellView[];
  /** How far the agent gets (the API's `reach`), and the ladder step by step. */
  reach: ReachView;
  ladder: LadderStep[];
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
 * The capability matrix: one row per agent, one cell per task. `reportHref` says where a report
 * is shown (an anchor on this page, or its public API record).
 */
export function matrixRows(merchant: MerchantView, reportHref: (reportId: string, apiUrl: string) => string): AgentRowView[] {
  return merchant.agents.map((summary) => ({
    agent: summary.agent,
    summary,
    status: summary.status,
    shortLabel: STATUS_SHORT_LABELS[summary.status],
    symbol: STATUS_SYMBOLS[summary.status],
    label: summary.label,
    reach: summary.reach,
    ladder: ladderSteps(summary.reach, summary.capabilities),
    tested: summary.status !== 'untested',
    statusTaskLabel: summary.statusTask ? TASK_LABELS[summary.statusTask] : null,
    sentence: statusSentence(summary),
    scoreBandLabel: scoreBandLabel(summary.scoreBand, summary.confidence),
    confidenceLabel: CONFIDENCE_LABELS[summary.confidence],
    overallConfidenceLabel: overallConfidenceLabel(summary.confidence),
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
      return {
        task,
        taskLabel: TASK_LABELS[task],
        status: capability.status,
        shortLabel: STATUS_SHORT_LABELS[capability.status],
        fullLabel: CAPABILITY_STATUS_LABELS[capability.status],
        symbol: STATUS_SYMBOLS[capability.status],
        confidenceLabel: CONFIDENCE_LABELS[capability.confidence],
        reportCount: capability.reportCount,
        recentCount: capability.recentCount,
        conflicting: capability.conflicting,
        lastTestedAt: capability.lastTestedAt,
        setsStatus: summary.statusTask === task && summary.status !== 'untested' && summary.status !== 'unknown',
        evidence,
      };
    }),
  }));
}

// How far an agent gets (aggregation/reach.ts), as the pages show it: the reach's own label,
// coloured by its tone, always with a symbol beside the colour and the words themselves.

/** A shape per tone beside its colour (hidden from screen readers: the label says it in words). */
export const REACH_TONE_SYMBOLS: Readonly<Record<ReachTone, string>> = { green: '✓', amber: '◐', red: '✕', grey: '–' };

/** What each colour means, for the legends. */
export const REACH_TONE_MEANINGS: Readonly<Record<ReachTone, string>> = {
  green: 'known to get at least as far as the cart (medium confidence or better)',
  amber: 'gets some way, or seen in only a few reports',
  red: 'stops before the cart (medium confidence or better)',
  grey: 'not tested yet, or no step confirmed',
};

/** The ladder's steps as short names, for the merchant page's ladders and the finders. */
export const LADDER_STEP_NAMES: Readonly<Record<FunnelTaskKey, string>> = {
  ACCESS: 'Access',
  SEARCH: 'Browsing',
  DETAILS: 'Details',
  CART: 'Cart',
  CHECKOUT: 'Checkout',
  PURCHASE: 'Purchase',
};

/** Where an agent stands on one step of the ladder, as the merchant page draws it. */
export type LadderState = 'through' | 'partial' | 'passed' | 'stop' | 'open' | 'beyond';

export const LADDER_STATE_WORDS: Readonly<Record<LadderState, string>> = {
  through: 'gets through',
  partial: 'only partly works',
  passed: 'passed on the way (not reported on its own)',
  stop: 'stops here',
  open: 'not confirmed yet',
  beyond: 'not reached',
};

export const LADDER_STATE_SYMBOLS: Readonly<Record<LadderState, string>> = {
  through: '✓',
  partial: '◐',
  passed: '✓',
  stop: '✕',
  open: '?',
  beyond: '·',
};

export interface LadderStep {
  task: FunnelTaskKey;
  name: string;
  /** The step as a sentence names it ("the cart"). */
  words: string;
  state: LadderState;
  stateWords: string;
  symbol: string;
}

/** The six steps of the ladder for one agent: how far it gets, where it stops, what is open. */
export function ladderSteps(reach: ReachView, capabilities: Partial<Record<TaskKey, { status: CapabilityStatus }>>): LadderStep[] {
  const stopLevel = reach.stop ? FUNNEL_TASKS.indexOf(reach.stop.task) + 1 : Infinity;
  return FUNNEL_TASKS.map((task, index) => {
    const level = index + 1;
    const status = capabilities[task]?.status ?? 'untested';
    let state: LadderState;
    if (reach.stop && reach.stop.task === task) state = 'stop';
    else if (level > stopLevel) state = 'beyond';
    else if (level <= reach.level) state = reach.partial.includes(task) ? 'partial' : status === 'supported' ? 'through' : 'passed';
    else state = 'open';
    const stateWords = state === 'stop' && reach.stop ? `stops here: ${stopWords(reach.stop)}` : LADDER_STATE_WORDS[state];
    return { task, name: LADDER_STEP_NAMES[task], words: REACH_STEP_WORDS[task], state, stateWords, symbol: LADDER_STATE_SYMBOLS[state] };
  });
}

/** The ladder's steps for the "gets at least through" choosers, nearest first. */
export const REACH_CHOICES: ReadonlyArray<{ task: FunnelTaskKey; words: string }> = FUNNEL_TASKS.map((task) => ({ task, words: REACH_STEP_WORDS[task] }));

/** "Gets through checkout", "Completes purchases": a count's caption on an agent's page. */
export const reachCountLabel = (task: FunnelTaskKey) => (task === 'PURCHASE' ? 'Completes purchases' : `Gets through ${REACH_STEP_WORDS[task]}`);

/** The task-status filter's choices: sets of statuses, in words, as the form offers them. */
export const TASK_STATUS_CHOICES: ReadonlyArray<{ value: string; words: string }> = [
  { value: 'supported', words: 'works' },
  { value: 'supported,partial', words: 'works or partly works' },
  { value: 'partial', words: 'only partly works' },
  { value: 'blocked,unsupported', words: "is blocked or doesn't work" },
  { value: 'blocked', words: 'is blocked' },
  { value: 'unsupported', words: "doesn't work" },
  { value: 'unknown,untested', words: 'has no verdict yet' },
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
  scoreBandLabel,
  STATUS_SHORT_LABELS,
  STATUS_SYMBOLS,
  SPONSORED_LABEL,
  SPONSORSHIP_SOURCE_LABELS,
  formatDate,
  isoDay,
  plural,
  statusSentence,
  overallConfidenceLabel,
  CONFIDENCE_HREF,
  REACH_TONE_SYMBOLS,
  REACH_TONE_MEANINGS,
  REACH_CHOICES,
  REACH_STEP_WORDS,
  LADDER_STEP_NAMES,
  LADDER_STATE_SYMBOLS,
  LADDER_STATE_WORDS,
  TASK_STATUS_CHOICES,
  taskStatusWords,
};
