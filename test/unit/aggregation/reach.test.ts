// The reach: how far an agent gets along the ladder by its task statuses, where it stops and
// why. A table of the cases people meet, and every combination of task statuses the engine can
// produce checked against an independent oracle. (The words and colours are the verdict's:
// verdict.test.ts.)
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
import { mostReportedReason, reachLevelOf, reachOf, type ReachInput } from '../../../src/modules/aggregation/reach.js';

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
  it.each<[string, Partial<Record<TaskKey, CapabilityStatus>>, Confidence, number, TaskKey | null, TaskKey[]]>([
    ['nothing observed', {}, 'low', 0, null, []],
    ['only an unknown step', { CART: 'unknown' }, 'low', 0, null, []],
    ['only access and browsing tested', { ACCESS: 'supported', SEARCH: 'supported' }, 'high', 2, null, []],
    ['browsing only partly works, cart and checkout supported', { ACCESS: 'supported', SEARCH: 'partial', CART: 'supported', CHECKOUT: 'supported' }, 'medium', 5, null, ['SEARCH']],
    ['blocked at browsing after access worked', { ACCESS: 'supported', SEARCH: 'blocked' }, 'high', 1, 'SEARCH', []],
    ['blocked at the door', { ACCESS: 'blocked' }, 'medium', 0, 'ACCESS', []],
    ['a completed purchase alone', { PURCHASE: 'supported' }, 'high', 6, null, []],
    ['through the cart, checkout unsupported', { ACCESS: 'supported', CART: 'supported', CHECKOUT: 'unsupported' }, 'high', 4, 'CHECKOUT', []],
    ['login blocked beside the ladder does not cap it', { LOGIN: 'blocked', ACCESS: 'supported', SEARCH: 'supported', DETAILS: 'supported', CART: 'supported' }, 'high', 4, null, []],
    ['a later success does not hide an earlier block', { ACCESS: 'blocked', PURCHASE: 'supported' }, 'high', 0, 'ACCESS', []],
  ])('%s', (_name, statuses, confidence, level, stop, partial) => {
    const reach = reachOf(capabilitiesOf(statuses, confidence), []);
    expect(reach.level).toBe(level);
    expect(reach.stop?.task ?? null).toBe(stop);
    expect(reach.partial).toEqual(partial);
    expect(reach.confidence).toBe(Object.keys(statuses).length === 0 || level + (stop ? 1 : 0) === 0 ? 'low' : confidence);
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

  it('places every combination of task statuses as the ladder rule says', () => {
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

      const stopAt = FUNNEL_TASKS.findIndex((task) => assignment[task] === 'blocked' || assignment[task] === 'unsupported');
      const below = stopAt < 0 ? FUNNEL_TASKS : FUNNEL_TASKS.slice(0, stopAt);
      const furthest = [...below].reverse().find((task) => assignment[task] === 'supported' || assignment[task] === 'partial') ?? null;
      const tested = TASKS.filter((task) => assignment[task] !== 'untested').length;

      // Plain checks collected, one assertion at the end: 279,936 combinations.
      const wrong = (why: string) => failures.length < 20 && failures.push(`${JSON.stringify(assignment)} ${confidence}: ${why}`);
      if (reach.level !== reachLevelOf(furthest)) wrong('level');
      if ((reach.stop?.task ?? null) !== (stopAt < 0 ? null : FUNNEL_TASKS[stopAt])) wrong('stop');
      if (reach.tested !== tested) wrong('tested');
      const partial = below.filter((task) => assignment[task] === 'partial' && reachLevelOf(task) <= reach.level);
      if (JSON.stringify(reach.partial) !== JSON.stringify(partial)) wrong('partial');
      combinations += 1;
    }
    expect(failures).toEqual([]);
    expect(combinations).toBe(6 ** 7);
  });
});
