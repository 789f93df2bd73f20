// The verdict: the one sentence and colour every surface shows for an agent at a merchant.
// - A table of the cases people meet, from real report sets through the engine.
// - Every sentence and colour the engine can produce, enumerated from the facts, in a table
//   kept beside this test (verdict-sentences.txt): a change of wording shows there.
// - Every combination of task statuses, at every confidence and report count, against an
//   independent statement of the rules.
import { describe, expect, it } from 'vitest';
import {
  CAPABILITY_STATUSES,
  CONFIDENCE_LEVELS,
  FUNNEL_TASKS,
  TASKS,
  type CapabilityStatus,
  type Confidence,
  type FailureReasonKey,
  type FunnelTaskKey,
  type OutcomeKey,
  type StageKey,
  type TaskKey,
} from '../../../src/modules/aggregation/constants.js';
import { computeAgentSummary } from '../../../src/modules/aggregation/engine.js';
import type { EvidenceReport } from '../../../src/modules/aggregation/observations.js';
import { reachLevelOf, reachOf, REACH_STEP_WORDS, type ReachInput } from '../../../src/modules/aggregation/reach.js';
import {
  computeVerdictFacts,
  GENERAL_MIN_REPORTS,
  summaryVerdict,
  taskCell,
  UNTESTED_FACTS,
  verdictOf,
  type Unplaced,
  type VerdictFacts,
  type VerdictStop,
} from '../../../src/modules/aggregation/verdict.js';

const NOW = new Date('2026-11-26T12:00:00Z');
const DAY = 86_400_000;

interface Given {
  results?: Partial<Record<TaskKey, OutcomeKey>>;
  outcome: OutcomeKey;
  stage?: StageKey;
  reason?: FailureReasonKey;
  daysAgo?: number;
}

const reportsOf = (given: readonly Given[]): EvidenceReport[] =>
  given.map((g, i) => {
    const at = new Date(NOW.getTime() - (g.daysAgo ?? 10 + i) * DAY);
    return {
      id: `00000000-0000-7000-8000-${String(i).padStart(12, '0')}`,
      accountId: `account-${i}`,
      outcome: g.outcome,
      capabilityResults: g.results ?? {},
      stage: g.stage ?? null,
      failureReason: g.reason ?? null,
      testedAt: new Date(at.toISOString().slice(0, 10)),
      createdAt: at,
    };
  });

const verdictFor = (given: readonly Given[]) => summaryVerdict(computeAgentSummary(reportsOf(given), { now: NOW, reportUrl: (id) => `/r/${id}` }));

const times = (n: number, g: Given): Given[] => Array.from({ length: n }, (_, i) => ({ ...g, daysAgo: (g.daysAgo ?? 3) + i * 5 }));
const THROUGH_CHECKOUT: Partial<Record<TaskKey, OutcomeKey>> = { ACCESS: 'WORKS', SEARCH: 'WORKS', DETAILS: 'WORKS', CART: 'WORKS', CHECKOUT: 'WORKS' };

describe('the verdict of an agent at a merchant', () => {
  it.each<[string, Given[], string, string, string, Confidence]>([
    ['no report', [], 'Not tested yet', 'grey', 'No reports yet', 'low'],
    ['6 recent completed purchases', times(6, { results: { ...THROUGH_CHECKOUT, PURCHASE: 'WORKS' }, outcome: 'WORKS', stage: 'PURCHASE' }), 'Completes purchases', 'green', '6 reports · last tested Nov 2026', 'high'],
    ['1 completed purchase', [{ results: { PURCHASE: 'WORKS' }, outcome: 'WORKS', stage: 'PURCHASE', daysAgo: 30 }], 'Completed a purchase', 'green', '1 report · last tested Oct 2026', 'low'],
    ['4 recent runs stopped on purpose at payment', times(4, { results: THROUGH_CHECKOUT, outcome: 'WORKS', stage: 'PAYMENT_APPROVAL' }), 'Usually gets through checkout', 'green', '4 reports · last tested Nov 2026', 'medium'],
    ['2 reports through checkout: past tense under 3 reports', times(2, { results: THROUGH_CHECKOUT, outcome: 'WORKS', stage: 'PAYMENT_APPROVAL' }), 'Got through checkout', 'green', '2 reports · last tested Nov 2026', 'low'],
    [
      '1 report: checkout, then the payment failed',
      [{ results: { ...THROUGH_CHECKOUT, PURCHASE: 'DOES_NOT_WORK' }, outcome: 'PARTIAL', stage: 'PAYMENT_APPROVAL', reason: 'PAYMENT' }],
      "Got through checkout, then stopped at purchase: doesn't work (a payment issue)",
      'green',
      '1 report · last tested Nov 2026',
      'low',
    ],
    [
      '2 reports: a CAPTCHA at checkout after the cart',
      times(2, { results: { ACCESS: 'WORKS', SEARCH: 'WORKS', DETAILS: 'WORKS', CART: 'WORKS', CHECKOUT: 'BLOCKED' }, outcome: 'BLOCKED', stage: 'CHECKOUT', reason: 'CAPTCHA' }),
      'Got through the cart, then stopped at checkout: blocked by a CAPTCHA',
      'amber',
      '2 reports · last tested Nov 2026',
      'low',
    ],
    ['6 recent explicit blocks at the door', times(6, { results: { ACCESS: 'BLOCKED' }, outcome: 'BLOCKED', stage: 'ACCESS', reason: 'EXPLICIT_BLOCK', daysAgo: 2 }), 'Stops at website access: the shop blocks agents', 'red', '6 reports · last tested Nov 2026', 'high'],
    ['3 recent explicit blocks at the door', times(3, { results: { ACCESS: 'BLOCKED' }, outcome: 'BLOCKED', stage: 'ACCESS', reason: 'EXPLICIT_BLOCK', daysAgo: 2 }), 'Usually stops at website access: the shop blocks agents', 'red', '3 reports · last tested Nov 2026', 'medium'],
    ['a report that names only its stage, the product page (Quill Cart at Lumen Lamps)', [{ outcome: 'WORKS', stage: 'DETAILS', daysAgo: 163 }], 'Reached product details', 'amber', '1 report · last tested Jun 2026', 'low'],
    [
      'a report without task results, overall Blocked at access (Errand Otter at Riverstone Cycles)',
      [{ outcome: 'BLOCKED', stage: 'ACCESS', reason: 'EXPLICIT_BLOCK', daysAgo: 255 }],
      'Stopped at website access: the shop blocks agents',
      'red',
      '1 report · last tested Mar 2026',
      'low',
    ],
    ['an overall result alone, no stage', [{ outcome: 'DOES_NOT_WORK' }], "No step named: the report gives only an overall result (newest: doesn't work)", 'grey', '1 report · last tested Nov 2026', 'low'],
    ['only unsure results', [{ results: { CART: 'UNSURE' }, outcome: 'UNSURE' }], 'No step confirmed yet: the report is unsure', 'grey', '1 report · last tested Nov 2026', 'low'],
    ['only login', [{ results: { LOGIN: 'DOES_NOT_WORK' }, outcome: 'DOES_NOT_WORK' }], "No shopping step reported yet; login doesn't work", 'grey', '1 report · last tested Nov 2026', 'low'],
    ['old evidence only', times(3, { results: { ACCESS: 'WORKS' }, outcome: 'WORKS', daysAgo: 900 }), 'No step confirmed yet: the reports are too old to count', 'grey', '3 reports · last tested Jun 2024', 'low'],
    [
      'checkout partly works',
      times(3, { results: { ...THROUGH_CHECKOUT, CHECKOUT: 'PARTIAL' }, outcome: 'PARTIAL', stage: 'PAYMENT_APPROVAL' }),
      'Usually gets partly through checkout',
      'amber',
      '3 reports · last tested Nov 2026',
      'medium',
    ],
    [
      'browsing partly works on the way to the cart',
      [{ results: { ACCESS: 'WORKS', SEARCH: 'PARTIAL', DETAILS: 'WORKS', CART: 'WORKS' }, outcome: 'PARTIAL', stage: 'CART' }],
      'Got through the cart; browsing only partly worked',
      'amber',
      '1 report · last tested Nov 2026',
      'low',
    ],
  ])('%s', (_name, given, sentence, colour, evidence, confidence) => {
    const verdict = verdictFor(given);
    expect(verdict.sentence).toBe(sentence);
    expect(verdict.colour).toBe(colour);
    expect(verdict.evidenceText).toBe(evidence);
    expect(verdict.confidence).toBe(confidence);
    if (given.length > 0) expect(verdict.sentence).not.toMatch(/not tested/i);
  });

  it('marks conflicting reports on the steps it rests on, and then never speaks in the present', () => {
    const given: Given[] = [
      ...times(3, { results: THROUGH_CHECKOUT, outcome: 'WORKS', stage: 'PAYMENT_APPROVAL', daysAgo: 2 }),
      ...times(3, { results: { ...THROUGH_CHECKOUT, CHECKOUT: 'BLOCKED' }, outcome: 'BLOCKED', stage: 'CHECKOUT', reason: 'CAPTCHA', daysAgo: 4 }),
    ];
    const verdict = verdictFor(given);
    expect(verdict.conflicting).toBe(true);
    expect(verdict.sentence).toMatch(/^(Got|Partly got|Usually)/);
  });

  it('says in each matrix cell how the verdict places a step the spec leaves untested', () => {
    const verdict = verdictFor([{ outcome: 'BLOCKED', stage: 'ACCESS', reason: 'EXPLICIT_BLOCK' }]);
    expect(taskCell('untested', verdict.steps[0]!.state, verdict.stop)).toMatchObject({ words: 'Stopped here: the shop blocks agents' });
    expect(taskCell('untested', verdict.steps[1]!.state, verdict.stop)).toMatchObject({ words: 'Not reached' });
    const reached = verdictFor([{ outcome: 'WORKS', stage: 'DETAILS' }]);
    expect(taskCell('untested', reached.steps[2]!.state, reached.stop)).toMatchObject({ words: 'Reached' });
    expect(taskCell('supported', reached.steps[1]!.state, reached.stop)).toMatchObject({ words: 'Works', note: null });
    expect(taskCell('untested', 'open', null)).toMatchObject({ words: 'No report yet' });
  });
});

// Every sentence the engine can produce, from the facts: each furthest step (through, partly,
// reached), each stop above it (by its status, basis and a few reasons: the reason's words are
// STOP_REASON_WORDS, one per reason), a partial step below, each tense, and each unplaced case.

const REASONS: ReadonlyArray<FailureReasonKey | null> = [null, 'EXPLICIT_BLOCK', 'CAPTCHA', 'INTERFACE'];
const TENSES: ReadonlyArray<{ reports: number; confidence: Confidence; conflicting: boolean }> = [
  { reports: 1, confidence: 'low', conflicting: false },
  { reports: 2, confidence: 'low', conflicting: false },
  { reports: 3, confidence: 'medium', conflicting: false },
  { reports: 5, confidence: 'high', conflicting: false },
];

function factsOf(part: Partial<VerdictFacts> & Pick<VerdictFacts, 'evidence' | 'confidence'>): VerdictFacts {
  const through = part.furthest && part.furthest.how === 'through' ? part.furthest.task : null;
  return { ...UNTESTED_FACTS, unplaced: null, ...part, through: part.through ?? through };
}

function everyFacts(): VerdictFacts[] {
  const all: VerdictFacts[] = [];
  for (const tense of TENSES) {
    // What rests on reports without task results (a reached step, a reported stop) is low
    // confidence; a reached step is never the purchase (a reported purchase is a completed one).
    const low = tense.confidence === 'low';
    const furthests: Array<VerdictFacts['furthest']> = [
      null,
      ...FUNNEL_TASKS.flatMap((task) => (['through', 'partly', 'reached'] as const).filter((how) => how !== 'reached' || (low && task !== 'PURCHASE')).map((how) => ({ task, how }))),
    ];
    const base = { evidence: { reports: tense.reports, recent: tense.reports, lastTestedOn: '2026-11-20' }, confidence: tense.confidence, conflicting: tense.conflicting };
    for (const furthest of furthests) {
      const level = reachLevelOf(furthest?.task ?? null);
      const stops: Array<VerdictStop | null> = [null];
      for (const task of FUNNEL_TASKS.filter((t) => reachLevelOf(t) > level)) {
        for (const status of ['blocked', 'unsupported'] as const) {
          for (const reason of REASONS.filter((r) => status === 'blocked' || r !== 'EXPLICIT_BLOCK')) {
            const bases = furthest?.how === 'reached' ? [] : low ? (['tasks', 'reported'] as const) : (['tasks'] as const);
            for (const basis of bases) stops.push({ task, status, reason, basis });
          }
        }
      }
      for (const stop of stops) {
        if (!furthest && !stop) continue;
        const partials: Array<FunnelTaskKey | null> = [null, ...(level > 1 ? [FUNNEL_TASKS[0]!] : [])];
        for (const partialBelow of partials) all.push(factsOf({ ...base, furthest, stop, partialBelow }));
      }
    }
    for (const unplaced of ['unsure', 'old', 'no-step', 'login-only'] as Unplaced[]) {
      for (const login of unplaced === 'login-only' ? (['supported', 'partial', 'blocked', 'unsupported'] as const) : (['untested'] as const)) {
        all.push(factsOf({ ...base, unplaced, login, newestOutcome: 'DOES_NOT_WORK' }));
      }
    }
  }
  all.push(UNTESTED_FACTS);
  return all;
}

describe('every sentence and colour the engine can produce', () => {
  it('is the table beside this test', async () => {
    const lines = new Map<string, string>();
    for (const facts of everyFacts()) {
      const v = verdictOf(facts);
      lines.set(`${v.colour.padEnd(5)} ${v.symbol} ${v.short.padEnd(18)} ${v.sentence}`, '');
    }
    const table = [...lines.keys()].sort().join('\n');
    await expect(`${table}\n`).toMatchFileSnapshot('./verdict-sentences.txt');
  });
});

// An independent statement of the rules, for every combination of task statuses.

const capabilitiesOf = (assignment: Record<TaskKey, CapabilityStatus>, confidence: Confidence) =>
  Object.fromEntries(
    TASKS.map((task) => [task, { status: assignment[task], confidence: assignment[task] === 'untested' || assignment[task] === 'unknown' ? 'low' : confidence, conflicting: false }]),
  ) as Record<TaskKey, ReachInput & { conflicting: boolean }>;

describe('the rules, for every combination of task statuses', () => {
  it('colours by how far only, never says "not tested" beside a report, and claims no more than the counts', () => {
    const failures: string[] = [];
    const statuses = CAPABILITY_STATUSES;
    const total = statuses.length ** TASKS.length;
    const plain = reportsOf([{ outcome: 'PARTIAL' }, { outcome: 'PARTIAL' }, { outcome: 'PARTIAL' }, { outcome: 'PARTIAL' }, { outcome: 'PARTIAL' }]);
    let checked = 0;
    for (let n = 0; n < total; n += 1) {
      const assignment = {} as Record<TaskKey, CapabilityStatus>;
      let rest = n;
      for (const task of TASKS) {
        assignment[task] = statuses[rest % statuses.length]!;
        rest = Math.floor(rest / statuses.length);
      }
      const colours = new Set<string>();
      // Two readings of each combination: one at a confidence and count that vary with it, and
      // the opposite extreme; the colour must be the same.
      const k = n % 3;
      const readings: Array<[Confidence, number]> = [[CONFIDENCE_LEVELS[k]!, [1, 3, 5][k]!], k === 2 ? ['low', 1] : ['high', 5]];
      for (const [confidence, count] of readings) {
        {
          const capabilities = capabilitiesOf(assignment, confidence);
          const reach = reachOf(capabilities, []);
          const v = verdictOf(computeVerdictFacts({ capabilities, reach, reports: plain.slice(0, count), now: NOW }));
          colours.add(v.colour);
          const wrong = (why: string) => failures.length < 20 && failures.push(`${JSON.stringify(assignment)} ${confidence} ${count}: ${why} (${v.sentence}, ${v.colour})`);

          // The colour rule, stated again: the first failing step stops; green once checkout or
          // a purchase works before it, red when it stops at access or browsing, grey with nothing.
          const stopAt = FUNNEL_TASKS.findIndex((t) => assignment[t] === 'blocked' || assignment[t] === 'unsupported');
          const before = stopAt < 0 ? FUNNEL_TASKS : FUNNEL_TASKS.slice(0, stopAt);
          const supportedLevel = Math.max(0, ...before.filter((t) => assignment[t] === 'supported').map((t) => FUNNEL_TASKS.indexOf(t) + 1));
          const placed = stopAt >= 0 || before.some((t) => assignment[t] === 'supported' || assignment[t] === 'partial');
          const expected = supportedLevel >= 5 ? 'green' : stopAt >= 0 && stopAt <= 1 ? 'red' : placed ? 'amber' : 'grey';
          if (v.colour !== expected) wrong(`colour ${expected} expected`);

          if (/not tested/i.test(v.sentence)) wrong('"not tested" beside a report');
          if (v.evidenceText !== `${count} ${count === 1 ? 'report' : 'reports'} · last tested Nov 2026`) wrong('evidence words');
          // One furthest step and at most one stop.
          const throughs = FUNNEL_TASKS.filter((t) => v.sentence.includes(`through ${REACH_STEP_WORDS[t]}`)).length;
          if (throughs > 1) wrong('two furthest steps');
          if ((v.sentence.match(/stop(s|ped) at /g) ?? []).length > 1) wrong('two stops');
          if (stopAt >= 0 && !v.sentence.includes(`at ${REACH_STEP_WORDS[FUNNEL_TASKS[stopAt]!]}`)) wrong('stop not named');
          // The present tense and "usually" only on enough agreeing reports.
          if (/^(Gets|Completes|Stops|Partly gets|Partly completes)/.test(v.sentence) && !(count >= GENERAL_MIN_REPORTS && v.confidence === 'high')) wrong('present tense');
          if (/^Usually/.test(v.sentence) && !(count >= GENERAL_MIN_REPORTS && v.confidence !== 'low')) wrong('usually');
          if (v.symbol !== { green: '✓', amber: '◐', red: '✕', grey: '–' }[v.colour]) wrong('symbol');
        }
      }
      if (colours.size !== 1 && failures.length < 20) failures.push(`${JSON.stringify(assignment)}: the colour moved with confidence or counts`);
      checked += 1;
    }
    expect(failures).toEqual([]);
    expect(checked).toBe(6 ** 7);
    // 6^7 x 2 verdicts: about 50 s alone on a loaded 2-core machine, near the default 60 s.
  }, 300_000);
});
