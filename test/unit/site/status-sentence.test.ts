// The sentence beside each agent's status: which task set it and why, for every status.
import { describe, expect, it } from 'vitest';
import { CAPABILITY_STATUSES, TASKS, type CapabilityStatus, type OutcomeKey, type TaskKey } from '../../../src/modules/aggregation/constants.js';
import { confidenceInWords, listOf, overallConfidenceLabel, statusSentence, type SentenceSummary } from '../../../src/modules/site/present.js';

type Cells = Partial<Record<TaskKey, CapabilityStatus | [CapabilityStatus, OutcomeKey[]]>>;

/** A summary whose tasks have these statuses (the rest untested). */
function summary(status: CapabilityStatus, statusTask: TaskKey | null, cells: Cells, total = 3): SentenceSummary {
  return {
    status,
    statusTask,
    counts: { total },
    capabilities: Object.fromEntries(
      TASKS.map((task) => {
        const cell = cells[task] ?? 'untested';
        const [taskStatus, outcomes] = Array.isArray(cell) ? cell : [cell, []];
        return [task, { status: taskStatus, recentObservations: outcomes.map((outcome) => ({ outcome })) }];
      }),
    ),
  };
}

describe('statusSentence', () => {
  it('blocked: names the blocking task and the earlier tasks that work', () => {
    expect(statusSentence(summary('blocked', 'CHECKOUT', { SEARCH: 'supported', DETAILS: 'supported', CART: 'supported', CHECKOUT: 'blocked' }))).toBe(
      'Blocked at checkout; browsing, details and adding to cart work.',
    );
    expect(statusSentence(summary('blocked', 'ACCESS', { ACCESS: 'blocked' }))).toBe('Blocked at website access, the first step.');
    expect(statusSentence(summary('blocked', 'CART', { CART: 'blocked' }))).toBe('Blocked at the cart; no earlier step confirmed yet.');
  });

  it('unsupported: "Fails at", and says why later green cells do not count', () => {
    expect(
      statusSentence(
        summary('unsupported', 'DETAILS', { ACCESS: 'supported', SEARCH: 'supported', DETAILS: 'unsupported', CART: 'supported', CHECKOUT: 'supported' }),
      ),
    ).toBe(
      'Fails at product details; website access and browsing work (adding to cart and checkout reportedly work too, but the first step that fails decides).',
    );
    expect(statusSentence(summary('unsupported', 'SEARCH', { ACCESS: 'partial', SEARCH: 'unsupported' }))).toBe(
      'Fails at browsing; website access only partly works.',
    );
  });

  it('partial: the weakest step decides', () => {
    expect(statusSentence(summary('partial', 'CART', { ACCESS: 'supported', CART: 'partial', PURCHASE: 'supported' }))).toBe(
      'Only partly works at the cart; website access works (purchase reportedly works too, but the weakest step decides).',
    );
  });

  it('supported: how far it gets and what is not confirmed yet', () => {
    expect(statusSentence(summary('supported', 'CHECKOUT', { ACCESS: 'supported', SEARCH: 'supported', CHECKOUT: 'supported', PURCHASE: 'unknown' }))).toBe(
      'Works as far as checkout; purchase not confirmed yet.',
    );
    expect(statusSentence(summary('supported', 'PURCHASE', { PURCHASE: 'supported' }))).toBe('Works all the way to the purchase: every reported step works.');
    expect(statusSentence(summary('supported', 'DETAILS', { DETAILS: 'supported', LOGIN: 'blocked' }))).toBe(
      'Works as far as product details; adding to cart, checkout and purchase not confirmed yet; login is blocked, which the status leaves aside (guest checkout).',
    );
  });

  it('a status set by login alone says so', () => {
    expect(statusSentence(summary('blocked', 'LOGIN', { LOGIN: 'blocked' }))).toBe(
      'Only login has a result so far: it is blocked; no step toward a purchase is confirmed.',
    );
    expect(statusSentence(summary('supported', 'LOGIN', { LOGIN: 'supported' }))).toMatch(/^Only login has a result so far: it works/);
  });

  it('unknown: no task confirmed, and why', () => {
    expect(statusSentence(summary('unknown', null, { ACCESS: ['unknown', ['UNSURE']], CART: ['unknown', ['UNSURE', 'UNSURE']] }))).toBe(
      'No task confirmed yet: the only reports are unsure.',
    );
    expect(statusSentence(summary('unknown', null, { ACCESS: ['unknown', ['WORKS']] }))).toBe('No task confirmed yet: the reports are too old to count.');
    expect(statusSentence(summary('unknown', null, { ACCESS: ['unknown', ['WORKS']], CART: ['unknown', ['UNSURE']] }))).toBe(
      'No task confirmed yet: the reports are unsure, or too old to count.',
    );
  });

  it('untested: with or without overall-only reports', () => {
    expect(statusSentence(summary('untested', null, {}, 0))).toBe('Not tested yet: no approved report about this agent here.');
    expect(statusSentence(summary('untested', null, {}, 2))).toBe('Not tested yet: its reports give only an overall outcome, no result for any task.');
  });

  it.each(CAPABILITY_STATUSES)('%s: one sentence, capitalised, ending in a full stop', (status) => {
    const task: TaskKey | null = status === 'unknown' || status === 'untested' ? null : 'CART';
    const sentence = statusSentence(summary(status, task, task ? { ACCESS: 'supported', CART: status } : { ACCESS: 'unknown' }));
    expect(sentence).toMatch(/^[A-Z][^.]*\.$/);
  });
});

describe('confidence in words', () => {
  it('lists and labels', () => {
    expect(listOf(['a'])).toBe('a');
    expect(listOf(['a', 'b', 'c'])).toBe('a, b and c');
    expect(overallConfidenceLabel('low')).toBe('overall: low confidence');
  });

  it('defines every level without formulas', () => {
    const words = confidenceInWords();
    expect(words.levels.map((l) => l.confidence)).toEqual(['high', 'medium', 'low']);
    for (const text of [words.intro, words.overall, words.decay, ...words.levels.map((l) => l.meaning)]) {
      expect(text).not.toMatch(/Wilson|HALF_LIFE|MIN_MASS|Otherwise|≥/);
    }
  });
});
