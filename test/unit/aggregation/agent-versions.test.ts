// Agent versions (issue 37): the comparison rule and the regression flag, as tables.
import { describe, expect, it } from 'vitest';
import {
  compareVersions,
  compareVersionsNewestFirst,
  normalizeVersion,
  REGRESSION_WINDOW_DAYS,
  versionFacts,
} from '../../../src/modules/aggregation/agent-versions.js';
import type { OutcomeKey, StageKey, TaskKey } from '../../../src/modules/aggregation/constants.js';
import type { EvidenceReport } from '../../../src/modules/aggregation/observations.js';
import { computeVerdictFacts, verdictOf } from '../../../src/modules/aggregation/verdict.js';
import { computeAgentSummary } from '../../../src/modules/aggregation/engine.js';

const NOW = new Date('2026-11-22T12:00:00Z');
const DAY = 86_400_000;

describe('normalizeVersion', () => {
  it.each([
    ['0.7.1', '0.7.1'],
    ['  0.7.1 ', '0.7.1'],
    ['\tv2.0\n', 'v2.0'],
    ['', null],
    ['   ', null],
    [null, null],
    [undefined, null],
    ['build 2026-11-02', 'build 2026-11-02'],
  ])('%j → %j', (input, expected) => {
    expect(normalizeVersion(input)).toBe(expected);
  });
});

describe('compareVersions: semantic versions as such, other strings as text, the two kinds never together', () => {
  it.each([
    // a, b, sign of a - b (null: not comparable)
    ['0.7.1', '0.7.3', -1],
    ['0.7.3', '0.7.1', 1],
    ['0.10.0', '0.9.9', 1],
    ['1.10.0', '1.9.0', 1],
    ['2.0.0', '10.0.0', -1],
    ['1.0.0', '1.0.0', 0],
    ['v1.2.3', '1.2.3', 0],
    ['1.2', '1.2.0', 0],
    ['1', '1.0.0', 0],
    ['1.0.0-alpha', '1.0.0', -1],
    ['1.0.0-alpha', '1.0.0-alpha.1', -1],
    ['1.0.0-alpha.1', '1.0.0-alpha.beta', -1],
    ['1.0.0-alpha.beta', '1.0.0-beta', -1],
    ['1.0.0-beta.2', '1.0.0-beta.11', -1],
    ['1.0.0-beta.11', '1.0.0-rc.1', -1],
    ['1.0.0-rc.1', '1.0.0', -1],
    ['1.0.0+build.1', '1.0.0+build.2', 0],
    ['build-a', 'build-b', -1],
    ['2026-11-02', '2026-10-30', 1],
    ['nightly', 'Nightly', 1],
    ['1.0.0', 'nightly', null],
    ['nightly', '0.1', null],
    ['01.2.3', '1.2.3', null],
  ])('%s vs %s → %s', (a, b, expected) => {
    const result = compareVersions(a, b);
    expect(result === null ? null : Math.sign(result)).toBe(expected);
  });

  it('lists semantic versions first, newest first, then the others', () => {
    const list = ['nightly', '0.9.0', 'beta-x', '0.10.0', '0.10.0-rc.1', '1.0'];
    expect([...list].sort(compareVersionsNewestFirst)).toEqual(['1.0', '0.10.0', '0.10.0-rc.1', '0.9.0', 'nightly', 'beta-x']);
  });
});

let n = 0;
function report(version: string | null, results: Partial<Record<TaskKey, OutcomeKey>>, daysAgo: number, extra: { stage?: StageKey; account?: string } = {}): EvidenceReport {
  n += 1;
  const at = new Date(NOW.getTime() - daysAgo * DAY);
  return {
    id: `00000000-0000-7000-8000-${String(n).padStart(12, '0')}`,
    accountId: extra.account ?? `account-${n}`,
    outcome: Object.values(results)[0] ?? 'WORKS',
    capabilityResults: results,
    stage: extra.stage ?? null,
    testedAt: at,
    createdAt: at,
    agentVersion: version,
  };
}

describe('the regression flag', () => {
  const W = 'WORKS';
  const B = 'BLOCKED';
  const D = 'DOES_NOT_WORK';
  const P = 'PARTIAL';
  type Row = [string, EvidenceReport[], { task: TaskKey; workedUpTo: string; failsSince: string } | null];
  const rows: Row[] = [
    ['newer version fails what an older one passed', [report('0.7.1', { CHECKOUT: W }, 20), report('0.7.3', { CHECKOUT: B }, 5)], { task: 'CHECKOUT', workedUpTo: '0.7.1', failsSince: '0.7.3' }],
    ['fails since the first failing version after the last working one', [report('0.7.0', { CHECKOUT: W }, 30), report('0.7.1', { CHECKOUT: W }, 25), report('0.7.2', { CHECKOUT: D }, 10), report('0.7.3', { CHECKOUT: B }, 2)], { task: 'CHECKOUT', workedUpTo: '0.7.1', failsSince: '0.7.2' }],
    ['compares as semver, not as text (0.10 is newer than 0.9)', [report('0.9.0', { CART: W }, 20), report('0.10.0', { CART: B }, 3)], { task: 'CART', workedUpTo: '0.9.0', failsSince: '0.10.0' }],
    ['no regression when the newest version works', [report('0.7.1', { CHECKOUT: B }, 20), report('0.7.3', { CHECKOUT: W }, 5)], null],
    ['no regression when the newest version both works and fails', [report('0.7.1', { CHECKOUT: W }, 20), report('0.7.3', { CHECKOUT: W }, 5), report('0.7.3', { CHECKOUT: B }, 4)], null],
    ['no regression when only an older version failed', [report('0.7.1', { CHECKOUT: B }, 20), report('0.7.1', { CHECKOUT: W }, 19), report('0.7.3', { CHECKOUT: W }, 5)], null],
    ['PARTIAL and UNSURE are neither working nor failing', [report('0.7.1', { CHECKOUT: W }, 20), report('0.7.3', { CHECKOUT: P }, 5), report('0.7.4', { CHECKOUT: 'UNSURE' }, 4)], null],
    ['a stage reached past the task counts as working', [report('1.0.0', {}, 20, { stage: 'PAYMENT_APPROVAL' }), report('1.1.0', { CHECKOUT: B }, 5)], { task: 'CHECKOUT', workedUpTo: '1.0.0', failsSince: '1.1.0' }],
    ['outside the window, the working run does not count', [report('0.7.1', { CHECKOUT: W }, REGRESSION_WINDOW_DAYS + 1), report('0.7.3', { CHECKOUT: B }, 5)], null],
    ['inside the window, on its last day, it does', [report('0.7.1', { CHECKOUT: W }, REGRESSION_WINDOW_DAYS), report('0.7.3', { CHECKOUT: B }, 5)], { task: 'CHECKOUT', workedUpTo: '0.7.1', failsSince: '0.7.3' }],
    ['reports without a version say nothing', [report(null, { CHECKOUT: W }, 20), report('0.7.3', { CHECKOUT: B }, 5)], null],
    ['a semantic and a text version are never compared', [report('nightly-1', { CHECKOUT: W }, 20), report('0.7.3', { CHECKOUT: B }, 5)], null],
    ['text versions are compared as text', [report('build-a', { CART: W }, 20), report('build-b', { CART: D }, 5)], { task: 'CART', workedUpTo: 'build-a', failsSince: 'build-b' }],
    ['equal versions in precedence are one step (0.7 and 0.7.0)', [report('0.7', { CHECKOUT: W }, 20), report('0.7.0', { CHECKOUT: B }, 5)], null],
    ['the order the reports arrive in does not matter', [report('0.7.3', { CHECKOUT: B }, 5), report('0.7.1', { CHECKOUT: W }, 20)], { task: 'CHECKOUT', workedUpTo: '0.7.1', failsSince: '0.7.3' }],
    ['versions are trimmed', [report(' 0.7.1 ', { CHECKOUT: W }, 20), report('0.7.3\t', { CHECKOUT: B }, 5)], { task: 'CHECKOUT', workedUpTo: '0.7.1', failsSince: '0.7.3' }],
  ];
  it.each(rows)('%s', (_name, reports, expected) => {
    const facts = versionFacts(reports, NOW);
    const first = facts.regressions[0] ?? null;
    expect(first ? { task: first.task, workedUpTo: first.workedUpTo, failsSince: first.failsSince } : null).toEqual(expected);
    if (first) {
      expect(first.evidence.working.length).toBeGreaterThan(0);
      expect(first.evidence.failing.length).toBeGreaterThan(0);
      for (const id of [...first.evidence.working, ...first.evidence.failing]) expect(reports.some((r) => r.id === id)).toBe(true);
    }
  });

  it('lists the versions seen and, per task, the last version seen working', () => {
    const facts = versionFacts([report('0.7.1', { CHECKOUT: W, CART: W }, 20), report('0.7.3', { CHECKOUT: B, CART: W }, 5), report('0.7.3', { CART: W }, 4)], NOW);
    expect(facts.seen.map((v) => [v.version, v.reports])).toEqual([['0.7.3', 2], ['0.7.1', 1]]);
    expect(facts.tasks.CHECKOUT?.lastWorking?.version).toBe('0.7.1');
    expect(facts.tasks.CART?.lastWorking?.version).toBe('0.7.3');
  });

  it('puts the regression into the verdict sentence', () => {
    const summary = computeAgentSummary([report('0.7.1', { ACCESS: W, SEARCH: W, CART: W, CHECKOUT: W }, 20), report('0.7.3', { ACCESS: W, SEARCH: W, CART: W, CHECKOUT: B }, 5)], {
      now: NOW,
      reportUrl: (id) => `/r/${id}`,
    });
    const verdict = verdictOf(summary.verdict);
    expect(verdict.regression).toEqual({ task: 'CHECKOUT', workedUpTo: '0.7.1', failsSince: '0.7.3' });
    expect(verdict.sentence).toMatch(/; worked up to 0\.7\.1, fails at checkout since 0\.7\.3$/);
  });

  it('names self-reported reports in the sentence, counted or not', () => {
    const reports = [report('1.0.0', { ACCESS: W }, 3)];
    const base = { capabilities: computeAgentSummary(reports, { now: NOW, reportUrl: String }).capabilities, reach: computeAgentSummary(reports, { now: NOW, reportUrl: String }).reach, reports, now: NOW };
    expect(verdictOf(computeVerdictFacts({ ...base, selfReported: { owner: 0, vendor: 2, counted: false } })).sentence).toMatch(/; plus 2 reports by the vendor$/);
    expect(verdictOf(computeVerdictFacts({ ...base, selfReported: { owner: 1, vendor: 2, counted: true } })).sentence).toMatch(/; including 1 report by the shop's owner and 2 by the vendor$/);
    expect(verdictOf(computeVerdictFacts({ ...base, selfReported: { owner: 0, vendor: 0, counted: false } })).sentence).not.toMatch(/plus|including/);
    const none = computeAgentSummary([], { now: NOW, reportUrl: String, selfReported: { owner: 0, vendor: 2, counted: false } });
    expect(verdictOf(none.verdict).sentence).toBe('No independent report yet; only 2 reports by the vendor');
  });
});
