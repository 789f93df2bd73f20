import { describe, expect, it } from 'vitest';
import {
  CAPABILITY_STATUSES,
  HALF_LIFE_DAYS,
  MAX_EVIDENCE_REFERENCES,
  MAX_RECENT_OBSERVATIONS,
  MIN_MASS,
  STAGES,
  TASKS,
  TASK_COMPLETED_FROM_STAGE,
  TASK_LABELS,
  type OutcomeKey,
  type ScoreBand,
  type StageKey,
  type TaskKey,
} from '../../../src/modules/aggregation/constants.js';
import { computeAgentSummary } from '../../../src/modules/aggregation/engine.js';
import { methodology } from '../../../src/modules/aggregation/methodology.js';
import { observationWeight, observationsFor, type EvidenceReport, type Observation } from '../../../src/modules/aggregation/observations.js';
import { computeTaskCapability, wilsonLowerBound } from '../../../src/modules/aggregation/task-status.js';

const NOW = new Date('2025-06-01T12:00:00.000Z');
const DAY = 86_400_000;
const daysAgo = (days: number) => new Date(NOW.getTime() - days * DAY);
const reportUrl = (id: string) => `/api/v1/reports/${id}`;
const summarize = (reports: EvidenceReport[]) => computeAgentSummary(reports, { now: NOW, reportUrl });

let sequence = 0;
const nextId = (prefix: string) => `${prefix}-${String(++sequence).padStart(4, '0')}`;

/** A report tested and created `days` ago; a fresh account unless one is given. */
function report(options: {
  id?: string;
  account?: string;
  outcome?: OutcomeKey;
  results?: Partial<Record<TaskKey, OutcomeKey>>;
  stage?: StageKey | null;
  days?: number;
  testedDays?: number | null;
}): EvidenceReport {
  const days = options.days ?? 1;
  const testedDays = options.testedDays === undefined ? days : options.testedDays;
  return {
    id: options.id ?? nextId('report'),
    accountId: options.account ?? nextId('account'),
    outcome: options.outcome ?? 'WORKS',
    capabilityResults: options.results ?? {},
    stage: options.stage ?? null,
    testedAt: testedDays === null ? null : daysAgo(testedDays),
    createdAt: daysAgo(days),
  };
}

/** An observation of ACCESS `days` old, from a fresh account unless one is given. */
function obs(outcome: OutcomeKey, days = 1, extra: Partial<Observation> = {}): Observation {
  return {
    reportId: nextId('report'),
    accountId: nextId('account'),
    task: 'ACCESS',
    outcome,
    kind: 'explicit',
    testedAt: daysAgo(days),
    createdAt: daysAgo(days),
    ...extra,
  };
}

const many = (count: number, make: (i: number) => Observation) => Array.from({ length: count }, (_, i) => make(i));
const task = (observations: Observation[]) => computeTaskCapability(observations, NOW);

describe('constants', () => {
  it('lists the spec keys in spec order with the spec labels', () => {
    expect(TASKS).toEqual(['ACCESS', 'SEARCH', 'DETAILS', 'LOGIN', 'CART', 'CHECKOUT', 'PURCHASE']);
    expect(TASK_LABELS.SEARCH).toBe('Product / content browsing');
    expect(CAPABILITY_STATUSES).toEqual(['supported', 'partial', 'blocked', 'unsupported', 'unknown', 'untested']);
  });

  it('describes the methodology as plain JSON', () => {
    const description = methodology();
    expect(JSON.parse(JSON.stringify(description))).toEqual(description);
    expect(description.constants.find((c) => c.name === 'HALF_LIFE_DAYS')?.value).toBe(HALF_LIFE_DAYS);
    expect(description.taskCompletedFromStage).toHaveLength(TASKS.length);
    expect(description.taskCompletedFromStage.find((row) => row.task === 'LOGIN')?.completedFromStage).toBeNull();
    for (const constant of description.constants) expect(constant.explanation.length).toBeGreaterThan(10);
  });
});

describe('observations from a report', () => {
  const completedBy: Record<StageKey, TaskKey[]> = {
    ACCESS: [],
    BROWSE: ['ACCESS'],
    DETAILS: ['ACCESS', 'SEARCH'],
    CONFIGURE: ['ACCESS', 'SEARCH', 'DETAILS'],
    CART: ['ACCESS', 'SEARCH', 'DETAILS'],
    CHECKOUT: ['ACCESS', 'SEARCH', 'DETAILS', 'CART'],
    SHIPPING: ['ACCESS', 'SEARCH', 'DETAILS', 'CART'],
    PAYMENT_APPROVAL: ['ACCESS', 'SEARCH', 'DETAILS', 'CART', 'CHECKOUT'],
    PURCHASE: ['ACCESS', 'SEARCH', 'DETAILS', 'CART', 'CHECKOUT', 'PURCHASE'],
  };

  it.each(STAGES.map((stage) => [stage, completedBy[stage]] as const))(
    'a furthest stage of %s shows %j completed, as WORKS reached-stage observations',
    (stage, tasks) => {
      const observations = observationsFor(report({ stage, outcome: 'BLOCKED' }));
      expect(observations.map((o) => o.task)).toEqual(tasks);
      for (const observation of observations) {
        expect(observation.outcome).toBe('WORKS');
        expect(observation.kind).toBe('reached_stage');
      }
    },
  );

  it('matches the mapping table row by row', () => {
    for (const t of TASKS) {
      const from = TASK_COMPLETED_FROM_STAGE[t];
      for (const stage of STAGES) {
        const implied = observationsFor(report({ stage })).some((o) => o.task === t);
        expect(implied).toBe(from !== null && STAGES.indexOf(stage) >= STAGES.indexOf(from));
      }
    }
  });

  it('does not take a furthest stage of CART as evidence that adding to the cart worked', () => {
    expect(observationsFor(report({ stage: 'CART' })).some((o) => o.task === 'CART')).toBe(false);
  });

  it('never implies LOGIN', () => {
    for (const stage of STAGES) expect(observationsFor(report({ stage })).some((o) => o.task === 'LOGIN')).toBe(false);
  });

  it('takes an explicit result over the stage, and only one observation per task', () => {
    const observations = observationsFor(report({ stage: 'PURCHASE', results: { CART: 'BLOCKED', LOGIN: 'WORKS' } }));
    expect(observations).toHaveLength(7);
    expect(observations.find((o) => o.task === 'CART')).toMatchObject({ outcome: 'BLOCKED', kind: 'explicit' });
    expect(observations.find((o) => o.task === 'LOGIN')).toMatchObject({ outcome: 'WORKS', kind: 'explicit' });
    expect(observations.find((o) => o.task === 'PURCHASE')).toMatchObject({ outcome: 'WORKS', kind: 'reached_stage' });
  });

  it('never turns the overall outcome into an observation', () => {
    for (const outcome of ['WORKS', 'BLOCKED', 'DOES_NOT_WORK', 'PARTIAL', 'UNSURE'] as const) {
      expect(observationsFor(report({ outcome }))).toEqual([]);
    }
  });

  it('ignores capabilityResults values that are not outcome keys (the column is JSON)', () => {
    const junk = { ACCESS: 'YES', SEARCH: null } as unknown as Partial<Record<TaskKey, OutcomeKey>>;
    expect(observationsFor(report({ results: junk, stage: 'BROWSE' }))).toMatchObject([{ task: 'ACCESS', kind: 'reached_stage' }]);
  });
});

describe('weights', () => {
  it('halve every HALF_LIFE_DAYS', () => {
    expect(observationWeight(obs('WORKS', 0), NOW)).toBeCloseTo(1, 12);
    expect(observationWeight(obs('WORKS', HALF_LIFE_DAYS), NOW)).toBeCloseTo(0.5, 12);
    expect(observationWeight(obs('BLOCKED', 2 * HALF_LIFE_DAYS), NOW)).toBeCloseTo(0.25, 12);
  });

  it('halve for a reached stage, and are zero for UNSURE', () => {
    expect(observationWeight(obs('WORKS', 0, { kind: 'reached_stage' }), NOW)).toBeCloseTo(0.5, 12);
    expect(observationWeight(obs('UNSURE', 0), NOW)).toBe(0);
  });

  it('age from the test date, falling back to the report date, never below zero', () => {
    expect(observationWeight(obs('WORKS', 0, { testedAt: null, createdAt: daysAgo(HALF_LIFE_DAYS) }), NOW)).toBeCloseTo(0.5, 12);
    expect(observationWeight(obs('WORKS', 0, { testedAt: daysAgo(-2) }), NOW)).toBe(1);
  });

  it('move a status with time: two WORKS one half-life old tie with one BLOCKED today', () => {
    const blockedToday = obs('BLOCKED', 0);
    // W = 2 × 0.5 = 1 = B: BLOCKED reaches half the weight.
    expect(task([blockedToday, obs('WORKS', HALF_LIFE_DAYS), obs('WORKS', HALF_LIFE_DAYS)]).status).toBe('blocked');
    // A day fresher and the WORKS side outweighs it.
    expect(task([blockedToday, obs('WORKS', HALF_LIFE_DAYS - 1), obs('WORKS', HALF_LIFE_DAYS - 1)]).status).toBe('partial');
  });
});

describe('task status table', () => {
  it.each<[string, Observation[], string]>([
    ['untested: no observation', [], 'untested'],
    ['unknown: only UNSURE', [obs('UNSURE'), obs('UNSURE', 3)], 'unknown'],
    ['unknown: M < MIN_MASS, an explicit WORKS 400 days old (0.21)', [obs('WORKS', 400)], 'unknown'],
    ['unknown: M < MIN_MASS, a reached stage 200 days old (0.23)', [obs('WORKS', 200, { kind: 'reached_stage' })], 'unknown'],
    ['supported: all WORKS', [obs('WORKS'), obs('WORKS', 10)], 'supported'],
    ['supported: exactly 75 % WORKS', [obs('WORKS', 0), obs('WORKS', 0), obs('WORKS', 0), obs('BLOCKED', 0)], 'supported'],
    ['blocked: exactly 50 % BLOCKED', [obs('WORKS', 0), obs('BLOCKED', 0)], 'blocked'],
    ['blocked: BLOCKED ties DOES_NOT_WORK', [obs('BLOCKED', 0), obs('DOES_NOT_WORK', 0)], 'blocked'],
    ['unsupported: 50 % DOES_NOT_WORK', [obs('WORKS', 0), obs('DOES_NOT_WORK', 0)], 'unsupported'],
    ['unsupported: DOES_NOT_WORK outweighs BLOCKED', [obs('BLOCKED', 0), obs('DOES_NOT_WORK', 0), obs('DOES_NOT_WORK', 0)], 'unsupported'],
    ['partial: PARTIAL dominant', [obs('PARTIAL'), obs('PARTIAL'), obs('WORKS')], 'partial'],
    ['partial: a mix', [obs('WORKS'), obs('WORKS'), obs('BLOCKED'), obs('DOES_NOT_WORK')], 'partial'],
    ['partial: 2/3 WORKS is not supported', [obs('WORKS', 0), obs('WORKS', 0), obs('PARTIAL', 0)], 'partial'],
  ])('%s', (_name, observations, expected) => {
    expect(task(observations).status).toBe(expected);
  });

  it('asks blocked and unsupported for MIN_MASS of negative weight (refinement)', () => {
    // A 14-month-old BLOCKED alone is too little to judge...
    const oldBlocked = obs('BLOCKED', 420);
    expect(observationWeight(oldBlocked, NOW)).toBeLessThan(MIN_MASS);
    expect(task([oldBlocked]).status).toBe('unknown');
    // ...and adding an even older WORKS report must not make it look blocked.
    const ancientWorks = obs('WORKS', 720);
    expect(task([oldBlocked, ancientWorks]).status).toBe('partial');
    expect(task([obs('DOES_NOT_WORK', 420), ancientWorks]).status).toBe('partial');
  });

  it('does not let one stray negative report flip a well-evidenced supported task', () => {
    const works = many(8, (i) => obs('WORKS', 5 + i * 7));
    const result = task([...works, obs('BLOCKED', 0)]);
    expect(result.status).toBe('supported');
    expect(result.conflicting).toBe(false);
  });

  it('shows a recent regression: several recent BLOCKED after old WORKS', () => {
    const oldWorks = many(10, (i) => obs('WORKS', 360 + i));
    const before = task(oldWorks);
    expect(before.status).toBe('supported');
    const after = task([...oldWorks, obs('BLOCKED', 1), obs('BLOCKED', 3), obs('BLOCKED', 6)]);
    expect(after.status).toBe('blocked');
    // Old praise against new complaints is a regression, not a disagreement.
    expect(after.conflicting).toBe(false);
  });

  it('leans an even split toward the newer side, and flags it as conflicting', () => {
    // A failure newer than the success tips the scale: a regression shows at once.
    const newerFailure = task([obs('WORKS', 3), obs('DOES_NOT_WORK', 2)]);
    expect(newerFailure).toMatchObject({ status: 'unsupported', conflicting: true });
    // A success newer than the failure leaves a mix.
    const newerSuccess = task([obs('WORKS', 2), obs('DOES_NOT_WORK', 3)]);
    expect(newerSuccess).toMatchObject({ status: 'partial', conflicting: true });
  });

  it('counts one account once per task, keeping its newest observation', () => {
    const result = task([obs('WORKS', 30, { accountId: 'same' }), obs('BLOCKED', 2, { accountId: 'same' })]);
    expect(result.reportCount).toBe(1);
    expect(result.status).toBe('blocked');
    expect(result.recentObservations.map((o) => o.outcome)).toEqual(['BLOCKED']);
  });
});

describe('conflicting', () => {
  it.each<[string, Observation[], boolean]>([
    ['recent WORKS and recent BLOCKED', [obs('WORKS', 5), obs('BLOCKED', 10)], true],
    ['PARTIAL counts half on the positive side', [obs('PARTIAL', 5), obs('PARTIAL', 5), obs('BLOCKED', 10)], true],
    ['the positive side is not recent', [obs('WORKS', 200), obs('WORKS', 200), obs('BLOCKED', 10)], false],
    ['the negative side is not recent', [obs('WORKS', 2), obs('DOES_NOT_WORK', 120)], false],
    ['one side under 25 % of the weight', [...many(4, () => obs('WORKS', 3)), obs('BLOCKED', 1), obs('WORKS', 3)], false],
    ['only negative reports', [obs('BLOCKED', 1), obs('DOES_NOT_WORK', 1)], false],
    ['only UNSURE reports', [obs('UNSURE', 1)], false],
  ])('%s → %s', (_name, observations, expected) => {
    expect(task(observations).conflicting).toBe(expected);
  });

  it('is shown beside the status, never replacing it', () => {
    const result = task([obs('WORKS', 10), obs('BLOCKED', 5)]);
    expect(result.status).toBe('blocked');
    expect(result.conflicting).toBe(true);
  });
});

describe('confidence', () => {
  it.each<[string, Observation[], string]>([
    ['high: six recent agreeing reports (effective n ≥ 5)', many(6, (i) => obs('WORKS', i)), 'high'],
    ['high: n = 5 and agreement exactly 80 %', [...many(4, () => obs('WORKS', 0)), obs('BLOCKED', 0)], 'high'],
    ['medium: five agreeing reports over 40 days weigh less than 5', many(5, (i) => obs('WORKS', i * 10)), 'medium'],
    ['medium: 80 % agreement but the newest is older than RECENT_DAYS', many(8, (i) => obs('WORKS', 100 + i)), 'medium'],
    ['medium: n ≥ 5 but agreement 75 %', [...many(6, () => obs('WORKS', 1)), ...many(2, () => obs('BLOCKED', 1))], 'medium'],
    ['medium: two agreeing reports of today', [obs('WORKS', 0), obs('WORKS', 0)], 'medium'],
    ['low: two agreeing reports of last week weigh under 2', [obs('WORKS', 6), obs('WORKS', 7)], 'low'],
    ['low: one report', [obs('WORKS', 1)], 'low'],
    ['low: two reports disagreeing', [obs('WORKS', 1), obs('WORKS', 1), obs('BLOCKED', 1), obs('BLOCKED', 1)], 'low'],
    ['low: two reached stages weigh one report', [obs('WORKS', 0, { kind: 'reached_stage' }), obs('WORKS', 0, { kind: 'reached_stage' })], 'low'],
    ['low: always for unknown', many(10, () => obs('UNSURE', 1)), 'low'],
    ['low: untested', [], 'low'],
  ])('%s', (_name, observations, expected) => {
    expect(task(observations).confidence).toBe(expected);
  });

  it('judges recency by the newest weighted observation, not a fresh UNSURE', () => {
    const old = many(8, (i) => obs('WORKS', 100 + i));
    expect(task([...old, obs('UNSURE', 0)]).confidence).toBe('medium');
  });
});

describe('task counts, dates and evidence', () => {
  it('counts observations, recent ones, explicit and reached-stage ones', () => {
    const result = task([
      obs('WORKS', 10),
      obs('UNSURE', 20),
      obs('WORKS', 100, { kind: 'reached_stage' }),
      obs('BLOCKED', 300),
    ]);
    expect(result).toMatchObject({ reportCount: 4, recentCount: 2, explicitCount: 3, reachedStageCount: 1 });
  });

  it('counts RECENT_DAYS inclusively', () => {
    expect(task([obs('WORKS', 90), obs('WORKS', 90.001)]).recentCount).toBe(1);
  });

  it('lists the newest observations first, tie-broken by report id, at most MAX_RECENT_OBSERVATIONS', () => {
    const observations = [
      obs('WORKS', 3, { reportId: 'r-a' }),
      obs('BLOCKED', 3, { reportId: 'r-c' }),
      obs('WORKS', 3, { reportId: 'r-b' }),
      ...many(6, (i) => obs('PARTIAL', 10 + i, { reportId: `r-old-${i}` })),
    ];
    const result = task(observations);
    expect(result.recentObservations).toHaveLength(MAX_RECENT_OBSERVATIONS);
    expect(result.recentObservations.map((o) => o.reportId)).toEqual(['r-c', 'r-b', 'r-a', 'r-old-0', 'r-old-1']);
    expect(result.recentObservations[0]).toEqual({ reportId: 'r-c', outcome: 'BLOCKED', kind: 'explicit', observedAt: daysAgo(3).toISOString() });
    expect(result.evidenceReportIds).toEqual(['r-c', 'r-b', 'r-a', 'r-old-0', 'r-old-1']);
  });

  it('dates the task from its observations; null when untested', () => {
    const created = daysAgo(2);
    const result = task([obs('WORKS', 5), obs('WORKS', 9, { testedAt: daysAgo(9), createdAt: created })]);
    expect(result.lastTestedAt).toBe(daysAgo(5).toISOString());
    expect(result.lastReportedAt).toBe(created.toISOString());
    expect(result.latestEvidenceAt).toBe(created.toISOString());
    expect(task([])).toMatchObject({ lastTestedAt: null, lastReportedAt: null, latestEvidenceAt: null });
  });
});

describe('wilsonLowerBound', () => {
  it('is 0 without evidence and grows with agreeing evidence', () => {
    expect(wilsonLowerBound(0, 0)).toBe(0);
    expect(wilsonLowerBound(1, 1)).toBeCloseTo(0.2065, 3);
    expect(wilsonLowerBound(10, 10)).toBeCloseTo(0.7225, 3);
    expect(wilsonLowerBound(10, 10)).toBeGreaterThan(wilsonLowerBound(1, 1));
    expect(wilsonLowerBound(5, 10)).toBeCloseTo(0.2366, 3);
  });

  it('accepts fractional weights and stays within [0, 1]', () => {
    expect(wilsonLowerBound(0.5, 0.5)).toBeGreaterThan(0);
    expect(wilsonLowerBound(0.5, 0.5)).toBeLessThan(wilsonLowerBound(1, 1));
    expect(wilsonLowerBound(2.0000000001, 2)).toBeLessThanOrEqual(1);
    expect(wilsonLowerBound(0, 3)).toBe(0);
  });
});

describe('per-agent summary', () => {
  it('is untested with zero counts, rating 0, null dates and no evidence without reports', () => {
    const summary = summarize([]);
    expect(summary).toMatchObject({
      status: 'untested',
      statusTask: null,
      scoreBand: 'none',
      rating: 0,
      confidence: 'low',
      counts: { WORKS: 0, PARTIAL: 0, BLOCKED: 0, DOES_NOT_WORK: 0, UNSURE: 0, total: 0 },
      lastTestedAt: null,
      lastReportedAt: null,
      latestEvidenceAt: null,
      evidence: [],
    });
    expect(Object.keys(summary.capabilities)).toEqual([...TASKS]);
    for (const t of TASKS) expect(summary.capabilities[t].status).toBe('untested');
  });

  it('is untested with null dates when reports carry only an overall outcome, and still counts them', () => {
    const summary = summarize([report({ outcome: 'BLOCKED' }), report({ outcome: 'DOES_NOT_WORK', stage: 'ACCESS' })]);
    expect(summary.status).toBe('untested');
    expect(summary.counts).toEqual({ WORKS: 0, PARTIAL: 0, BLOCKED: 1, DOES_NOT_WORK: 1, UNSURE: 0, total: 2 });
    expect([summary.lastTestedAt, summary.lastReportedAt, summary.latestEvidenceAt]).toEqual([null, null, null]);
    expect(summary.evidence).toHaveLength(2);
  });

  it('is unknown when tasks have only UNSURE observations', () => {
    expect(summarize([report({ outcome: 'UNSURE', results: { ACCESS: 'UNSURE' } })]).status).toBe('unknown');
  });

  it.each<[string, EvidenceReport[], string, TaskKey | null]>([
    ['blocked when ACCESS is blocked, whatever comes later', [report({ results: { ACCESS: 'BLOCKED' } }), report({ results: { PURCHASE: 'WORKS' } })], 'blocked', 'ACCESS'],
    ['supported when every task with a verdict is supported', [report({ stage: 'PURCHASE' }), report({ stage: 'PURCHASE' })], 'supported', 'PURCHASE'],
    ['the furthest supported task sets a supported status', [report({ stage: 'CHECKOUT' }), report({ stage: 'CHECKOUT' })], 'supported', 'CART'],
    ['partial at the furthest task', [report({ stage: 'PAYMENT_APPROVAL', results: { PURCHASE: 'PARTIAL' } })], 'partial', 'PURCHASE'],
    ['partial at an earlier task is not hidden by a later success', [report({ stage: 'PURCHASE', results: { SEARCH: 'PARTIAL' } })], 'partial', 'SEARCH'],
    ['a negative task wins over an earlier partial one', [report({ results: { ACCESS: 'PARTIAL', CART: 'DOES_NOT_WORK' } })], 'unsupported', 'CART'],
    ['LOGIN decides only without funnel verdicts', [report({ results: { LOGIN: 'BLOCKED' } })], 'blocked', 'LOGIN'],
    ['LOGIN blocked beside a completed purchase (guest checkout)', [report({ stage: 'PURCHASE', results: { LOGIN: 'BLOCKED' } })], 'supported', 'PURCHASE'],
  ])('status: %s', (_name, reports, status, statusTask) => {
    const summary = summarize(reports);
    expect(summary.status).toBe(status);
    expect(summary.statusTask).toBe(statusTask);
  });

  it('shows a cart regression even though an older report completed a purchase (refinement)', () => {
    const summary = summarize([
      report({ stage: 'PURCHASE', days: 60 }),
      ...Array.from({ length: 4 }, (_, i) => report({ outcome: 'BLOCKED', stage: 'CART', results: { CART: 'BLOCKED' }, days: 1 + i })),
    ]);
    expect(summary.capabilities.PURCHASE.status).toBe('supported');
    expect(summary.capabilities.CART.status).toBe('blocked');
    expect(summary.status).toBe('blocked');
    expect(summary.statusTask).toBe('CART');
    expect(summary.scoreBand).toBe('details');
  });

  it('does not average a completed purchase and a cart block into a middle band ("one Platinum plus one Silver is not Gold")', () => {
    // Per report: one reached "purchase", one stopped at "details". The mean would be "cart".
    const summary = summarize([report({ stage: 'PURCHASE' }), report({ outcome: 'BLOCKED', stage: 'CART', results: { CART: 'BLOCKED' } })]);
    expect(summary.capabilities.CART).toMatchObject({ status: 'blocked', conflicting: true });
    expect(summary.scoreBand).toBe('details');
    expect(summary.status).toBe('blocked');
  });

  it('does not average a full purchase and an access block into a middle band', () => {
    const summary = summarize([report({ stage: 'PURCHASE' }), report({ outcome: 'BLOCKED', results: { ACCESS: 'BLOCKED' } })]);
    expect(summary.capabilities.ACCESS.status).toBe('blocked');
    expect(summary.scoreBand).toBe('none');
    expect(summary.status).toBe('blocked');
  });

  const bandOfStage: Record<StageKey, ScoreBand> = {
    ACCESS: 'none',
    BROWSE: 'access',
    DETAILS: 'browse',
    CONFIGURE: 'details',
    CART: 'details',
    CHECKOUT: 'cart',
    SHIPPING: 'cart',
    PAYMENT_APPROVAL: 'checkout',
    PURCHASE: 'purchase',
  };

  it.each(STAGES.map((stage) => [stage, bandOfStage[stage]] as const))('score band: two reports reaching %s → %s', (stage, band) => {
    expect(summarize([report({ stage }), report({ stage })]).scoreBand).toBe(band);
  });

  it('score band stops before the first task that is not supported', () => {
    expect(summarize([report({ stage: 'PURCHASE', results: { DETAILS: 'PARTIAL' } })]).scoreBand).toBe('browse');
    expect(summarize([report({ stage: 'PURCHASE', results: { ACCESS: 'BLOCKED' } })]).scoreBand).toBe('none');
  });

  it('score band is not capped by earlier tasks without a verdict (refinement)', () => {
    expect(summarize([report({ results: { PURCHASE: 'WORKS' } })]).scoreBand).toBe('purchase');
    expect(summarize([report({ results: { ACCESS: 'UNSURE', CART: 'WORKS' } })]).scoreBand).toBe('cart');
  });

  it('keeps LOGIN beside the band', () => {
    expect(summarize([report({ stage: 'CHECKOUT', results: { LOGIN: 'BLOCKED' } })]).scoreBand).toBe('cart');
    expect(summarize([report({ results: { LOGIN: 'WORKS' } })]).scoreBand).toBe('none');
  });

  it('confidence is the lowest among the tasks that set the band and the status', () => {
    const strong = Array.from({ length: 6 }, () => report({ results: { ACCESS: 'WORKS', SEARCH: 'WORKS' } }));
    expect(summarize(strong).confidence).toBe('high');
    // Two more reports with DETAILS: band details, but DETAILS rests on two reports.
    const details = [report({ results: { DETAILS: 'WORKS' }, days: 0 }), report({ results: { DETAILS: 'WORKS' }, days: 0 })];
    expect(summarize([...strong, ...details]).confidence).toBe('medium');
    // A blocked CART on one report beyond the band lowers it to low.
    const summary = summarize([...strong, ...details, report({ results: { CART: 'BLOCKED' } })]);
    expect(summary).toMatchObject({ scoreBand: 'details', status: 'blocked', statusTask: 'CART', confidence: 'low' });
    expect(summarize([report({ results: { ACCESS: 'UNSURE' } })]).confidence).toBe('low');
  });

  it('rating: mean Wilson lower bound over tasks with evidence, to four decimals, higher with more agreeing evidence', () => {
    const one = summarize([report({ results: { ACCESS: 'WORKS' } })]);
    const bound = wilsonLowerBound(observationWeight(obs('WORKS', 1), NOW), observationWeight(obs('WORKS', 1), NOW));
    expect(one.rating).toBe(Math.round(bound * 10_000) / 10_000);
    const ten = summarize(Array.from({ length: 10 }, () => report({ results: { ACCESS: 'WORKS' } })));
    expect(ten.rating).toBeGreaterThan(one.rating);
    const mixed = summarize([
      ...Array.from({ length: 10 }, () => report({ results: { ACCESS: 'WORKS' } })),
      ...Array.from({ length: 10 }, () => report({ results: { CART: 'BLOCKED' } })),
    ]);
    expect(mixed.rating).toBeCloseTo(ten.rating / 2, 4);
    // UNSURE-only tasks carry no weight and do not dilute the mean.
    expect(summarize([report({ results: { ACCESS: 'WORKS', CART: 'UNSURE' } })]).rating).toBeCloseTo(one.rating, 12);
  });

  it('counts reports by overall outcome', () => {
    const outcomes: OutcomeKey[] = ['WORKS', 'WORKS', 'PARTIAL', 'BLOCKED', 'DOES_NOT_WORK', 'UNSURE', 'UNSURE', 'UNSURE'];
    expect(summarize(outcomes.map((outcome) => report({ outcome, stage: 'BROWSE' }))).counts).toEqual({
      WORKS: 2,
      PARTIAL: 1,
      BLOCKED: 1,
      DOES_NOT_WORK: 1,
      UNSURE: 3,
      total: 8,
    });
  });

  it('dates: newest test date, newest report date, newest of the two over reports with observations', () => {
    const summary = summarize([
      report({ stage: 'BROWSE', days: 20, testedDays: 25 }),
      report({ days: 3, testedDays: 4 }), // overall outcome only: no observation
      report({ stage: 'BROWSE', days: 10, testedDays: null }),
    ]);
    expect(summary.lastTestedAt).toBe(daysAgo(4).toISOString());
    expect(summary.lastReportedAt).toBe(daysAgo(3).toISOString());
    expect(summary.latestEvidenceAt).toBe(daysAgo(10).toISOString());
  });

  it('links at most five evidence reports, newest first (test date, else report date, then id)', () => {
    const reports = [
      report({ id: 'r-1', stage: 'BROWSE', days: 50 }),
      report({ id: 'r-2', stage: 'BROWSE', days: 1, testedDays: 40 }),
      report({ id: 'r-3', stage: 'BROWSE', days: 30, testedDays: null }),
      report({ id: 'r-4', stage: 'BROWSE', days: 10 }),
      report({ id: 'r-5', stage: 'BROWSE', days: 10 }),
      report({ id: 'r-6', stage: 'BROWSE', days: 60 }),
      report({ id: 'r-7', stage: 'BROWSE', days: 70 }),
    ];
    const summary = summarize(reports);
    const expected = ['r-5', 'r-4', 'r-3', 'r-2', 'r-1'];
    expect(summary.evidence).toEqual(expected.map((reportId) => ({ reportId, url: `/api/v1/reports/${reportId}` })));
    expect(summary.evidence).toHaveLength(MAX_EVIDENCE_REFERENCES);
    expect(summary.capabilities.ACCESS.evidence.map((e) => e.reportId)).toEqual(expected);
    expect(summary.capabilities.ACCESS.reportCount).toBe(7);
  });

  it('publishes each capability with the spec fields and no internals', () => {
    const capability = summarize([report({ stage: 'CHECKOUT', results: { CART: 'WORKS' } })]).capabilities.CART;
    expect(Object.keys(capability).sort()).toEqual(
      [
        'status',
        'reportCount',
        'recentCount',
        'explicitCount',
        'reachedStageCount',
        'confidence',
        'conflicting',
        'lastTestedAt',
        'lastReportedAt',
        'latestEvidenceAt',
        'recentObservations',
        'evidence',
      ].sort(),
    );
    expect(capability).toMatchObject({ explicitCount: 1, reachedStageCount: 0, status: 'supported' });
  });

  it('is plain JSON and never contains an account id', () => {
    const reports = [
      report({ account: 'acct-secret-1', stage: 'PURCHASE', results: { LOGIN: 'WORKS' } }),
      report({ account: 'acct-secret-2', outcome: 'BLOCKED', results: { CART: 'BLOCKED' } }),
      report({ account: 'acct-secret-1', outcome: 'UNSURE', results: { ACCESS: 'UNSURE' }, days: 0 }),
    ];
    const summary = summarize(reports);
    const json = JSON.stringify(summary);
    expect(json).not.toContain('acct-secret');
    expect(json).not.toContain('accountId');
    expect(JSON.parse(json)).toEqual(summary);
  });
});
