// The reach: how far an agent gets along the ladder, where it stops and why, and the one label
// and colour every surface shows for it. A table of the cases people meet, and every
// combination of task statuses the engine can produce checked against an independent oracle.
import { describe, expect, it } from 'vitest';
import {
  CAPABILITY_STATUSES,
  CONFIDENCE_LEVELS,
  FUNNEL_TASKS,
  TASKS,
  type CapabilityStatus,
  type Confidence,
  type TaskKey,
} from '../../../src/modules/aggregation/constants.js';
import { computeAgentSummary } from '../../../src/modules/aggregation/engine.js';
import type { EvidenceReport } from '../../../src/modules/aggregation/observations.js';
import {
  GREEN_FROM,
  mostReportedReason,
  reachLabel,
  reachLevelOf,
  reachOf,
  reachTone,
  REACH_STEP_WORDS,
  type ReachInput,
} from '../../../src/modules/aggregation/reach.js';

const capabilitiesOf = (statuses: Partial<Record<TaskKey, CapabilityStatus>>, confidence: Confidence = 'high') =>
  Object.fromEntries(TASKS.map((task) => [task, { status: statuses[task] ?? 'untested', confidence }])) as Record<TaskKey, ReachInput>;

const report = (id: string, capabilityResults: EvidenceReport['capabilityResults'], failureReason: EvidenceReport['failureReason'] = null): EvidenceReport => ({
  id,
  accountId: `account-${id}`,
  outcome: 'PARTIAL',
  capabilityResults,
  stage: null,
  testedAt: null,
  createdAt: new Date('2026-11-01T00:00:00Z'),
  failureReason,
});

describe('the reach of an agent', () => {
  it.each<[string, Partial<Record<TaskKey, CapabilityStatus>>, Confidence, string, string]>([
    ['nothing observed', {}, 'low', 'Not tested', 'grey'],
    ['only an unknown step', { CART: 'unknown' }, 'low', 'No step confirmed yet', 'grey'],
    ['only access and browsing tested (Lather Lab)', { ACCESS: 'supported', SEARCH: 'supported' }, 'high', 'Only browsing confirmed so far', 'amber'],
    [
      'browsing only partly works, cart and checkout supported (Pantry Owl)',
      { ACCESS: 'supported', SEARCH: 'partial', CART: 'supported', CHECKOUT: 'supported' },
      'medium',
      'Usually gets through checkout; browsing only partly works; purchase not confirmed yet',
      'green',
    ],
    ['blocked at browsing after access worked', { ACCESS: 'supported', SEARCH: 'blocked' }, 'high', 'Stops at browsing: blocked', 'red'],
    ['blocked at the door', { ACCESS: 'blocked' }, 'medium', 'Usually stops at website access: blocked', 'red'],
    ['through checkout at high confidence', { ACCESS: 'supported', SEARCH: 'supported', DETAILS: 'supported', CART: 'supported', CHECKOUT: 'supported' }, 'high', 'Gets through checkout; purchase not confirmed yet', 'green'],
    ['stopped before the cart on one report', { ACCESS: 'supported', SEARCH: 'blocked' }, 'low', 'Stopped at browsing in few reports: blocked', 'amber'],
    ['through the cart then stopped, on one report', { ACCESS: 'supported', CART: 'supported', CHECKOUT: 'blocked' }, 'low', 'Got through the cart in few reports; stopped at checkout: blocked', 'amber'],
    ['through checkout on one report', { ACCESS: 'supported', CART: 'supported', CHECKOUT: 'supported' }, 'low', 'Got through checkout in few reports; purchase not confirmed yet', 'amber'],
    ['a completed purchase alone', { PURCHASE: 'supported' }, 'high', 'Completes purchases', 'green'],
    [
      'through the cart, checkout unsupported',
      { ACCESS: 'supported', CART: 'supported', CHECKOUT: 'unsupported' },
      'high',
      "Gets through the cart; stops at checkout: doesn't work",
      'green',
    ],
    ['login blocked beside the ladder does not cap it', { LOGIN: 'blocked', ACCESS: 'supported', SEARCH: 'supported', DETAILS: 'supported', CART: 'supported' }, 'high', 'Gets through the cart; checkout not confirmed yet', 'green'],
    ['a later success does not hide an earlier block', { ACCESS: 'blocked', PURCHASE: 'supported' }, 'high', 'Stops at website access: blocked', 'red'],
  ])('%s', (_name, statuses, confidence, label, tone) => {
    const reach = reachOf(capabilitiesOf(statuses, confidence), []);
    expect(reachLabel(reach)).toBe(label);
    expect(reachTone(reach)).toBe(tone);
  });

  it('names the reason most reported by the reports that saw the stopping step fail', () => {
    const reports = [
      report('a', { CART: 'BLOCKED' }, 'CAPTCHA'),
      report('b', { CART: 'BLOCKED' }, 'CAPTCHA'),
      report('c', { CART: 'DOES_NOT_WORK' }, 'INTERFACE'),
      report('d', { CART: 'WORKS' }, 'PAYMENT'), // a success names no reason
      report('e', { CHECKOUT: 'BLOCKED' }, 'PAYMENT'), // another step
      report('f', { CART: 'BLOCKED' }, 'NONE'),
      // One account counts once: its newest report of the task.
      { ...report('g', { CART: 'BLOCKED' }, 'INTERFACE'), accountId: 'account-c', createdAt: new Date('2026-10-01T00:00:00Z') },
      { ...report('h', { CART: 'BLOCKED' }, 'INTERFACE'), accountId: 'account-c', createdAt: new Date('2026-09-01T00:00:00Z') },
    ];
    expect(mostReportedReason(reports, 'CART')).toBe('CAPTCHA');
    expect(mostReportedReason(reports, 'DETAILS')).toBeNull();
    // Ties go to the spec's order of reasons.
    expect(mostReportedReason([report('g', { CART: 'BLOCKED' }, 'INTERFACE'), report('h', { CART: 'BLOCKED' }, 'CAPTCHA')], 'CART')).toBe('CAPTCHA');
    const reach = reachOf(capabilitiesOf({ ACCESS: 'supported', SEARCH: 'supported', CART: 'blocked' }), reports);
    expect(reach.stop).toEqual({ task: 'CART', status: 'blocked', reason: 'CAPTCHA' });
    expect(reachLabel(reach)).toBe('Stops at the cart: blocked by a CAPTCHA');
  });

  it('is part of the engine\'s summary, from the same reports', () => {
    const now = new Date('2026-11-22T12:00:00Z');
    const reports: EvidenceReport[] = [1, 2, 3].map((n) => ({
      ...report(`r${n}`, { ACCESS: 'WORKS', SEARCH: 'WORKS', CART: 'BLOCKED' }, 'CAPTCHA'),
      createdAt: now,
      testedAt: now,
    }));
    const summary = computeAgentSummary(reports, { now, reportUrl: (id) => `/api/v1/reports/${id}` });
    expect(summary.reach).toMatchObject({ task: 'SEARCH', level: 2, stop: { task: 'CART', status: 'blocked', reason: 'CAPTCHA' }, tested: 3 });
  });

  it('gives every combination of task statuses a label and a colour that claim no more than the statuses', () => {
    // An independent statement of the ladder rule: the first blocked or unsupported step stops
    // the agent; below it, the furthest supported or partial step is the reach.
    let combinations = 0;
    const failures: string[] = [];
    const statuses = CAPABILITY_STATUSES;
    const total = statuses.length ** TASKS.length;
    for (let n = 0; n < total; n += 1) {
      const assignment = {} as Record<TaskKey, CapabilityStatus>;
      let rest = n;
      for (const task of TASKS) {
        assignment[task] = statuses[rest % statuses.length]!;
        rest = Math.floor(rest / statuses.length);
      }
      const confidence = CONFIDENCE_LEVELS[n % CONFIDENCE_LEVELS.length]!;
      const reach = reachOf(capabilitiesOf(assignment, confidence), []);
      const label = reachLabel(reach);
      const tone = reachTone(reach);

      const stopAt = FUNNEL_TASKS.findIndex((task) => assignment[task] === 'blocked' || assignment[task] === 'unsupported');
      const below = stopAt < 0 ? FUNNEL_TASKS : FUNNEL_TASKS.slice(0, stopAt);
      const furthest = [...below].reverse().find((task) => assignment[task] === 'supported' || assignment[task] === 'partial') ?? null;
      const tested = TASKS.filter((task) => assignment[task] !== 'untested').length;

      // Plain checks collected, one assertion at the end: 279,936 combinations.
      const wrong = (why: string) => failures.length < 20 && failures.push(`${JSON.stringify(assignment)} ${confidence}: ${why} (${label}, ${tone})`);
      if (reach.level !== reachLevelOf(furthest)) wrong('level');
      if ((reach.stop?.task ?? null) !== (stopAt < 0 ? null : FUNNEL_TASKS[stopAt])) wrong('stop');
      if (reach.tested !== tested) wrong('tested');
      if (label.length === 0) wrong('empty label');
      // Green only where the agent is known to get at least as far as the cart, and not on thin evidence.
      if (tone === 'green' && (reach.level < reachLevelOf(GREEN_FROM) || confidence === 'low')) wrong('green');
      if (tone === 'red' && !(stopAt >= 0 && reach.level < reachLevelOf(GREEN_FROM) && confidence !== 'low')) wrong('red');
      if (tone === 'grey' && !(tested === 0 || (furthest === null && stopAt < 0))) wrong('grey');
      // The label never claims a step past the reach, and names the stop.
      for (const task of FUNNEL_TASKS) {
        if (reachLevelOf(task) > reach.level && label.includes(`through ${REACH_STEP_WORDS[task]}`)) wrong(`claims ${task}`);
      }
      if (reach.stop && !label.toLowerCase().includes(`at ${REACH_STEP_WORDS[reach.stop.task]}`)) wrong('stop not named');
      if (tested === 0 && label !== 'Not tested') wrong('untested');
      // "Gets"/"Completes"/"Stops" without a hedge only at high confidence.
      if (confidence !== 'high' && /^(Gets|Completes|Stops)/.test(label)) wrong('unhedged');
      combinations += 1;
    }
    expect(failures).toEqual([]);
    expect(combinations).toBe(6 ** 7);
  });
});
