// The verdict: the one answer people and agents read about an agent at a merchant. How far it
// gets, where it stops and why, the evidence behind it (how many reports, how recent), how sure
// it is, one sentence and one colour. Made here from the task statuses (task-status.ts), the
// reach (reach.ts) and the reports themselves; every surface (API `label` and `verdict`, MCP,
// cards, the merchant page, the category table, agent pages, badges, feeds, the dump) renders
// what verdictOf() returns and never recomposes it. Pure, like the rest of the engine.
//
// Two parts: the facts (computeVerdictFacts, stored with each summary, because they need the
// reports) and the words and colour (verdictOf, from the facts alone, so a change of wording
// needs no recomputation). The rules, each written once:
//   - How far comes from the task statuses first (the reach). Above the reach, where no task has
//     a verdict, a report's furthest stage still counts as what it is: the agent *reached* that
//     step, or, when that report's overall outcome is Blocked or Doesn't work, it *stopped* there
//     (the spec's conservative statuses stay `untested`; the words must not deny the report).
//   - The colour follows how far the agent gets, never the confidence: green once it gets
//     through checkout (CHECKOUT or PURCHASE works), red when it stops at website access or
//     browsing, amber anywhere between, grey when no report places it on the ladder.
//   - Confidence is shown apart (solid or outlined, and words), and decides only the tense: the
//     present ("Gets through checkout") needs at least GENERAL_MIN_REPORTS reports at high
//     confidence, "usually" at least as many at medium or better; otherwise the past tense says
//     what the reports saw ("Got through checkout").
//   - One furthest step and at most one stop per sentence. Numbers, never vague words: counts
//     are said as "1 report", "3 reports", in the evidence line beside the sentence.
//   - A pair with approved reports never reads "not tested".
import { formatMonth } from '../../dates.js';
import { plural } from '../../text.js';
import {
  FUNNEL_TASKS,
  MS_PER_DAY,
  RECENT_DAYS,
  STAGE_STEP,
  STAGES,
} from './constants.js';
import type { CapabilityStatus, Confidence, FailureReasonKey, FunnelTaskKey, OutcomeKey, StageKey, TaskKey } from './constants.js';
import { compareNewestFirst, observedAtMs, type EvidenceReport } from './observations.js';
import { reachLevelOf, reachOf, REACH_STEP_WORDS, stopWords, type Reach } from './reach.js';

/** The verdict's colours, by how far the agent gets (never by confidence). */
export const VERDICT_COLOURS = ['green', 'amber', 'red', 'grey'] as const;
export type VerdictColour = (typeof VERDICT_COLOURS)[number];

/** The step from which a verdict is green: the agent gets through checkout. */
export const GREEN_FROM: FunnelTaskKey = 'CHECKOUT';
/** The last step at which a stop is red: stopped at website access or browsing. */
export const RED_UP_TO: FunnelTaskKey = 'SEARCH';

/**
 * Reports a sentence needs before it speaks in the present tense ("Gets through checkout", at
 * high confidence) or says "usually" (at medium or better). Below it, the past tense says what
 * the reports saw: one or two reports are an observation, not a rule.
 */
export const GENERAL_MIN_REPORTS = 3;

/** A symbol beside each colour, so that colour is never the only signal. */
export const VERDICT_SYMBOLS: Readonly<Record<VerdictColour, string>> = { green: '✓', amber: '◐', red: '✕', grey: '–' };

/** What each colour means, for every legend. */
export const VERDICT_COLOUR_MEANINGS: Readonly<Record<VerdictColour, string>> = {
  green: 'gets through checkout, or completes a purchase',
  amber: 'gets part of the way: further than browsing, not through checkout',
  red: 'stops at website access or browsing',
  grey: 'no report places it on the way to a purchase yet',
};

/** Where an agent stands on one step of the ladder. */
export const STEP_STATES = ['through', 'partial', 'passed', 'reached', 'stop', 'open', 'beyond'] as const;
export type StepState = (typeof STEP_STATES)[number];

/** Each step state in words: the ladder and the matrix print these. */
export const STEP_STATE_WORDS: Readonly<Record<StepState, string>> = {
  through: 'gets through',
  partial: 'only partly works',
  passed: 'passed on the way (no result of its own)',
  reached: 'reached (a report got this far; no task result)',
  stop: 'stops here',
  open: 'no report yet',
  beyond: 'not reached',
};

export const STEP_STATE_SYMBOLS: Readonly<Record<StepState, string>> = {
  through: '✓',
  partial: '◐',
  passed: '✓',
  reached: '→',
  stop: '✕',
  open: '?',
  beyond: '·',
};

/** How a stop is known: from the task statuses, or only from a report's overall outcome at its furthest stage. */
type StopBasis = 'tasks' | 'reported';

export interface VerdictStop {
  task: FunnelTaskKey;
  status: 'blocked' | 'unsupported';
  reason: FailureReasonKey | null;
  basis: StopBasis;
}

/** Why no step is placed, when none is. */
export type Unplaced = 'untested' | 'unsure' | 'old' | 'no-step' | 'login-only';

/** What the verdict is made of: stored with each summary. JSON-serialisable. */
export interface VerdictFacts {
  /** The furthest step: got through it (supported), partly (partial), or only reached it (a report's furthest stage). */
  furthest: { task: FunnelTaskKey; how: 'through' | 'partly' | 'reached' } | null;
  /** The furthest step it got fully through (supported), for the colour; null when none. */
  through: FunnelTaskKey | null;
  stop: VerdictStop | null;
  /** A step below the furthest that only partly works (the first), named in the sentence. */
  partialBelow: FunnelTaskKey | null;
  steps: Array<{ task: FunnelTaskKey; state: StepState }>;
  /** Why nothing is placed, when furthest and stop are both null. */
  unplaced: Unplaced | null;
  confidence: Confidence;
  conflicting: boolean;
  login: CapabilityStatus;
  /** The newest report's overall outcome (what an unplaced verdict quotes). */
  newestOutcome: OutcomeKey | null;
  evidence: { reports: number; recent: number; lastTestedOn: string | null };
  /**
   * Reports by a verified owner of the shop or vendor of the agent (issue 37), and whether this
   * verdict counts them (`independent=all`) or only names them beside the community's evidence.
   * Absent on facts stored before it: none.
   */
  selfReported?: SelfReportedFacts;
  /** A newer agent version fails a step an older one passed (agent-versions.ts); absent or null: none. */
  regression?: RegressionFacts | null;
}

export interface SelfReportedFacts {
  owner: number;
  vendor: number;
  counted: boolean;
}

interface RegressionFacts {
  task: TaskKey;
  workedUpTo: string;
  failsSince: string;
}

/** The verdict as every surface shows it. */
export interface Verdict extends VerdictFacts {
  colour: VerdictColour;
  symbol: string;
  sentence: string;
  /** The few words a badge shows ("checkout", "stops at access"). */
  short: string;
  /** "3 reports · last tested Apr 2026" (or "No reports yet"). */
  evidenceText: string;
}

export interface VerdictInput {
  capabilities: Readonly<Record<TaskKey, { status: CapabilityStatus; conflicting?: boolean }>>;
  reach: Reach;
  reports: readonly EvidenceReport[];
  now: Date;
  selfReported?: SelfReportedFacts;
  regression?: RegressionFacts | null;
}

const isStage = (value: unknown): value is StageKey => (STAGES as readonly unknown[]).includes(value);
const hasVerdict = (status: CapabilityStatus) => status !== 'unknown' && status !== 'untested';
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The report evidence above the reach: the furthest step a report's stage got to, and how that run ended. */
function reportedAbove(reach: Reach, reports: readonly EvidenceReport[]): { task: FunnelTaskKey; stop: VerdictStop | null } | null {
  let best: { level: number; report: EvidenceReport } | null = null;
  for (const report of [...reports].sort(compareNewestFirst)) {
    if (!isStage(report.stage)) continue;
    const level = reachLevelOf(STAGE_STEP[report.stage]);
    // Newest first: among reports at the same furthest step, the newest says how the run ended.
    if (level > reach.level && (best === null || level > best.level)) best = { level, report };
  }
  if (!best) return null;
  const task = FUNNEL_TASKS[best.level - 1]!;
  const { outcome, failureReason } = best.report;
  const negative = outcome === 'BLOCKED' || outcome === 'DOES_NOT_WORK';
  const reason = failureReason && failureReason !== 'NONE' ? failureReason : null;
  return {
    task,
    stop: negative ? { task, status: outcome === 'BLOCKED' ? 'blocked' : 'unsupported', reason, basis: 'reported' } : null,
  };
}

function unplacedWhy(input: VerdictInput): Unplaced {
  if (input.reports.length === 0) return 'untested';
  if (FUNNEL_TASKS.some((task) => input.capabilities[task].status === 'unknown')) {
    const sure = input.reports.some((r) => r.outcome !== 'UNSURE' || Object.values(r.capabilityResults).some((o) => o !== 'UNSURE'));
    return sure ? 'old' : 'unsure';
  }
  if (hasVerdict(input.capabilities.LOGIN.status)) return 'login-only';
  return 'no-step';
}

/** The facts of a verdict, from a pair's task statuses, reach and approved reports. */
export function computeVerdictFacts(input: VerdictInput): VerdictFacts {
  const { capabilities, reach, reports, now } = input;
  const statusOf = (task: FunnelTaskKey) => capabilities[task].status;

  let stop: VerdictStop | null = reach.stop ? { ...reach.stop, basis: 'tasks' } : null;
  let furthest: VerdictFacts['furthest'] = reach.task ? { task: reach.task, how: statusOf(reach.task) === 'partial' ? 'partly' : 'through' } : null;
  if (!stop) {
    const reported = reportedAbove(reach, reports);
    if (reported?.stop) stop = reported.stop;
    else if (reported) furthest = { task: reported.task, how: 'reached' };
  }

  const stopLevel = stop ? reachLevelOf(stop.task) : Infinity;
  const throughSteps = FUNNEL_TASKS.filter((task) => reachLevelOf(task) < stopLevel && statusOf(task) === 'supported');
  const through = throughSteps[throughSteps.length - 1] ?? null;
  const furthestLevel = reachLevelOf(furthest?.task ?? null);
  const partialBelow = FUNNEL_TASKS.find((task) => reachLevelOf(task) < furthestLevel && statusOf(task) === 'partial') ?? null;

  const steps = FUNNEL_TASKS.map((task) => {
    const level = reachLevelOf(task);
    let state: StepState;
    if (stop?.task === task) state = 'stop';
    else if (level > stopLevel) state = 'beyond';
    else if (statusOf(task) === 'supported') state = 'through';
    else if (statusOf(task) === 'partial') state = 'partial';
    else if (furthest?.how === 'reached' && furthest.task === task) state = 'reached';
    else if (level < Math.max(furthestLevel, stop ? stopLevel : 0)) state = 'passed';
    else state = 'open';
    return { task, state };
  });

  // Conflict on the steps the verdict rests on: up to the stop, or up to the furthest step.
  const restsOn = FUNNEL_TASKS.filter((task) => reachLevelOf(task) <= Math.max(furthestLevel, stop ? stopLevel : 0));
  const conflicting = restsOn.some((task) => capabilities[task].conflicting === true);

  const sorted = [...reports].sort(compareNewestFirst);
  const newest = sorted[0];
  const recentFrom = now.getTime() - RECENT_DAYS * MS_PER_DAY;
  return {
    furthest,
    through,
    stop,
    partialBelow,
    steps,
    unplaced: furthest || stop ? null : unplacedWhy(input),
    // Evidence from overall outcomes alone is never more than low confidence.
    confidence: stop?.basis === 'reported' || furthest?.how === 'reached' ? 'low' : reach.confidence,
    conflicting,
    login: capabilities.LOGIN.status,
    newestOutcome: newest?.outcome ?? null,
    evidence: {
      reports: reports.length,
      recent: reports.filter((r) => observedAtMs(r) >= recentFrom).length,
      lastTestedOn: newest ? dayOf(observedAtMs(newest)) : null,
    },
    ...(input.selfReported && input.selfReported.owner + input.selfReported.vendor > 0 ? { selfReported: input.selfReported } : {}),
    ...(input.regression ? { regression: input.regression } : {}),
  };
}

// The words and the colour, from the facts alone.

/** The colour: how far the agent gets, nothing else. */
function verdictColour(facts: Pick<VerdictFacts, 'through' | 'stop' | 'furthest'>): VerdictColour {
  if (facts.through && reachLevelOf(facts.through) >= reachLevelOf(GREEN_FROM)) return 'green';
  if (facts.stop && reachLevelOf(facts.stop.task) <= reachLevelOf(RED_UP_TO)) return 'red';
  if (facts.furthest || facts.stop) return 'amber';
  return 'grey';
}

/** How sure the sentence may sound: what the reports saw, what usually happens, or what happens. */
type Tense = 'past' | 'usually' | 'present';

function tenseOf(facts: Pick<VerdictFacts, 'confidence' | 'conflicting' | 'evidence'>): Tense {
  if (facts.evidence.reports < GENERAL_MIN_REPORTS || facts.confidence === 'low') return 'past';
  return facts.confidence === 'high' && !facts.conflicting ? 'present' : 'usually';
}

const upperFirst = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** The short names of the steps, as a badge says them. */
const STEP_SHORT_WORDS: Readonly<Record<FunnelTaskKey, string>> = {
  ACCESS: 'access',
  SEARCH: 'browsing',
  DETAILS: 'details',
  CART: 'cart',
  CHECKOUT: 'checkout',
  PURCHASE: 'purchase',
};

const LOGIN_WORDS: Partial<Record<CapabilityStatus, string>> = {
  supported: 'login works',
  partial: 'login only partly works',
  blocked: 'login is blocked',
  unsupported: "login doesn't work",
};

const OUTCOME_QUOTES: Readonly<Record<OutcomeKey, string>> = {
  WORKS: 'works',
  PARTIAL: 'partly works',
  BLOCKED: 'blocked',
  DOES_NOT_WORK: "doesn't work",
  UNSURE: 'unsure',
};

function unplacedSentence(facts: VerdictFacts): string {
  const n = facts.evidence.reports;
  switch (facts.unplaced) {
    case 'unsure':
      return `No step confirmed yet: ${n === 1 ? 'the report is' : 'the reports are'} unsure`;
    case 'old':
      return 'No step confirmed yet: the reports are too old to count';
    case 'login-only':
      return `No shopping step reported yet; ${LOGIN_WORDS[facts.login] ?? 'login is unclear'}`;
    case 'no-step':
      return `No step named: ${n === 1 ? 'the report gives' : `the ${n} reports give`} only an overall result (newest: ${OUTCOME_QUOTES[facts.newestOutcome ?? 'UNSURE']})`;
    default:
      return 'Not tested yet';
  }
}

/** The words of a task in a regression: the ladder's step words, and login. */
const taskWords = (task: TaskKey) => (task === 'LOGIN' ? 'login' : REACH_STEP_WORDS[task]);

/** "; worked up to 0.7.1, fails at checkout since 0.7.3": a newer version fails what an older one passed. */
function regressionWords(regression: RegressionFacts): string {
  return `worked up to ${regression.workedUpTo}, fails at ${taskWords(regression.task)} since ${regression.failsSince}`;
}

/** "2 reports by the vendor", "1 report by the shop's owner and 2 by the vendor". */
function selfReportedWords(self: SelfReportedFacts): string {
  const owner = self.owner > 0 ? `${plural(self.owner, 'report')} by the shop's owner` : '';
  const vendor = self.vendor > 0 ? (owner ? `${self.vendor} by the vendor` : `${plural(self.vendor, 'report')} by the vendor`) : '';
  return [owner, vendor].filter(Boolean).join(' and ');
}

/**
 * The one sentence: how far first, then where it stops and why; then a regression between
 * agent versions, and the reports by the shop's owner or the agent's vendor, when there are.
 */
function verdictSentence(facts: VerdictFacts): string {
  const self = facts.selfReported && facts.selfReported.owner + facts.selfReported.vendor > 0 ? facts.selfReported : null;
  if (self && !self.counted && facts.evidence.reports === 0) {
    return `No independent report yet; only ${selfReportedWords(self)}`;
  }
  const regression = facts.regression ? `; ${regressionWords(facts.regression)}` : '';
  const selfWords = self ? `; ${self.counted ? 'including' : 'plus'} ${selfReportedWords(self)}` : '';
  return `${communitySentence(facts)}${regression}${selfWords}`;
}

function communitySentence(facts: VerdictFacts): string {
  const tense = tenseOf(facts);
  const say = (past: string, usually: string, present: string) => (tense === 'past' ? past : tense === 'usually' ? usually : present);
  const { furthest, stop } = facts;
  const partly = facts.partialBelow
    ? `; ${REACH_STEP_WORDS[facts.partialBelow]} only partly ${tense === 'past' ? 'worked' : 'works'}`
    : '';
  if (stop) {
    const at = REACH_STEP_WORDS[stop.task];
    const why = stopWords(stop);
    if (!furthest) return `${say(`Stopped at ${at}`, `Usually stops at ${at}`, `Stops at ${at}`)}: ${why}`;
    const step = REACH_STEP_WORDS[furthest.task];
    const got =
      furthest.how === 'partly'
        ? say(`Partly got through ${step}`, `Usually gets partly through ${step}`, `Gets partly through ${step}`)
        : say(`Got through ${step}`, `Usually gets through ${step}`, `Gets through ${step}`);
    return `${got}, then ${say('stopped', 'stops', 'stops')} at ${at}: ${why}${partly}`;
  }
  if (!furthest) return unplacedSentence(facts);
  const step = REACH_STEP_WORDS[furthest.task];
  if (furthest.how === 'reached') return `Reached ${step}${partly}`;
  if (furthest.task === 'PURCHASE') {
    const purchase =
      furthest.how === 'partly'
        ? say('Partly completed a purchase', 'Usually partly completes purchases', 'Partly completes purchases')
        : say(facts.evidence.reports === 1 ? 'Completed a purchase' : 'Completed purchases', 'Usually completes purchases', 'Completes purchases');
    return `${purchase}${partly}`;
  }
  const got =
    furthest.how === 'partly'
      ? say(`Partly got through ${step}`, `Usually gets partly through ${step}`, `Gets partly through ${step}`)
      : say(`Got through ${step}`, `Usually gets through ${step}`, `Gets through ${step}`);
  return `${got}${partly}`;
}

/** The badge's few words: the furthest step, or where it stops. */
function verdictShort(facts: VerdictFacts): string {
  const colour = verdictColour(facts);
  if (colour === 'green') return STEP_SHORT_WORDS[facts.through!];
  if (facts.stop) return `stops at ${STEP_SHORT_WORDS[facts.stop.task]}`;
  if (facts.furthest) return facts.furthest.how === 'reached' ? `reached ${STEP_SHORT_WORDS[facts.furthest.task]}` : `up to ${STEP_SHORT_WORDS[facts.furthest.task]}`;
  return facts.unplaced === 'untested' ? 'not tested' : 'no step yet';
}

/** "3 reports · last tested Apr 2026", or "No reports yet". */
function evidenceText(evidence: VerdictFacts['evidence']): string {
  if (evidence.reports === 0) return 'No reports yet';
  return `${plural(evidence.reports, 'report')} · last tested ${formatMonth(evidence.lastTestedOn)}`;
}

/** The verdict from its facts: the words and the colour every surface shows. */
export function verdictOf(facts: VerdictFacts): Verdict {
  const colour = verdictColour(facts);
  return {
    ...facts,
    colour,
    symbol: VERDICT_SYMBOLS[colour],
    sentence: upperFirst(verdictSentence(facts)),
    short: verdictShort(facts),
    evidenceText: evidenceText(facts.evidence),
  };
}

/** The verdict's fields a compact list carries: all but the steps and what only the detail needs. */
export const COMPACT_VERDICT_FIELDS = ['colour', 'symbol', 'sentence', 'short', 'evidenceText', 'furthest', 'through', 'stop', 'confidence', 'conflicting', 'evidence'] as const;
export type CompactVerdict = Pick<Verdict, (typeof COMPACT_VERDICT_FIELDS)[number]>;

/** The compact selection of a verdict (the same values, fewer fields). */
export const compactVerdict = (verdict: Verdict): CompactVerdict =>
  Object.fromEntries(COMPACT_VERDICT_FIELDS.map((field) => [field, verdict[field]])) as CompactVerdict;

/** The verdict of a pair without any approved report. */
export const UNTESTED_FACTS: VerdictFacts = {
  furthest: null,
  through: null,
  stop: null,
  partialBelow: null,
  steps: FUNNEL_TASKS.map((task) => ({ task, state: 'open' as const })),
  unplaced: 'untested',
  confidence: 'low',
  conflicting: false,
  login: 'untested',
  newestOutcome: null,
  evidence: { reports: 0, recent: 0, lastTestedOn: null },
};

/** What a stored summary holds that its verdict needs. */
export interface StoredForVerdict {
  verdict?: VerdictFacts;
  reach?: Reach;
  capabilities: Readonly<Record<TaskKey, { status: CapabilityStatus; confidence: Confidence; conflicting?: boolean }>>;
  counts?: { total: number };
  lastTestedAt?: string | null;
  lastReportedAt?: string | null;
}

/**
 * A stored summary's verdict. A summary stored before verdicts existed (read until the upkeep's
 * refresh recomputes it, right after start) gets one from its task statuses and counts, without
 * the reports' stages: it may say less, never something else.
 */
export function summaryVerdict(summary: StoredForVerdict): Verdict {
  if (summary.verdict) return verdictOf(summary.verdict);
  const reports = summary.counts?.total ?? 0;
  if (reports === 0) return verdictOf(UNTESTED_FACTS);
  const reach = summary.reach ?? reachOf(summary.capabilities, []);
  const last = summary.lastTestedAt ?? summary.lastReportedAt ?? null;
  const facts = computeVerdictFacts({ capabilities: summary.capabilities, reach, reports: [], now: new Date(0) });
  return verdictOf({
    ...facts,
    unplaced: facts.unplaced === 'untested' ? 'no-step' : facts.unplaced,
    evidence: { reports, recent: 0, lastTestedOn: last ? last.slice(0, 10) : null },
  });
}

// One task of one agent, as the seven-task matrix says it: its status in people's words, and,
// where the verdict places the step differently from the spec's conservative status (a step a
// report reached, or stopped at, without a task result), the difference in plain words.

/** A task's status in people's words and its symbol (the matrix has no colours: those are the verdict's). */
export const TASK_RESULT_WORDS: Readonly<Record<CapabilityStatus, { words: string; symbol: string }>> = {
  supported: { words: 'Works', symbol: '✓' },
  partial: { words: 'Partly works', symbol: '◐' },
  blocked: { words: 'Blocked', symbol: '⊘' },
  unsupported: { words: "Doesn't work", symbol: '✕' },
  unknown: { words: 'Unclear', symbol: '?' },
  untested: { words: 'No report yet', symbol: '–' },
};

export interface TaskCell {
  words: string;
  symbol: string;
  /** Why the cell says more than its status, when it does. */
  note: string | null;
}

/** The matrix cell of a task, from its status and (for a ladder step) the verdict's state of that step. */
export function taskCell(status: CapabilityStatus, state: StepState | null, stop: VerdictStop | null): TaskCell {
  if (status === 'untested' || status === 'unknown') {
    const unclear = status === 'unknown' ? ' The reports on it are unsure or too old.' : '';
    if (state === 'reached') return { words: 'Reached', symbol: STEP_STATE_SYMBOLS.reached, note: `A report got this far, without a result for this task.${unclear}` };
    if (state === 'stop' && stop?.basis === 'reported') {
      return { words: `Stopped here: ${stopWords(stop)}`, symbol: STEP_STATE_SYMBOLS.stop, note: `The report that got furthest ended here, by its overall result; it gives no result for this task.${unclear}` };
    }
    if (state === 'passed') return { words: 'Passed on the way', symbol: STEP_STATE_SYMBOLS.passed, note: `No result of its own: a later step worked.${unclear}` };
    if (state === 'beyond') return { words: 'Not reached', symbol: STEP_STATE_SYMBOLS.beyond, note: 'The agent stops before this step.' };
  }
  return { ...TASK_RESULT_WORDS[status], note: null };
}
