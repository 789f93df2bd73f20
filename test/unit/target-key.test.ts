// The front door's key of a raw request target (cached-answer.ts targetKey) remembers the keys
// of targets with a query. Asked again, in any order and past the memo's bound, a target gets
// the key its own query makes: never one remembered for another target.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { targetKey } from '../../src/web/middleware/cached-answer.js';

describe('targetKey', () => {
  it('keys a query as its parsed, canonical form: order, repeats and escapes as the parser reads them', () => {
    expect(targetKey('/api/v1/merchants?sort=name&agent=a')).toBe(targetKey('/api/v1/merchants?agent=a&sort=name'));
    expect(targetKey('/api/v1/merchants?agent=%61')).toBe(targetKey('/api/v1/merchants?agent=a'));
    expect(targetKey('/api/v1/merchants?agent=a')).not.toBe(targetKey('/api/v1/merchants?agent=b'));
    expect(targetKey('/api/v1/merchants')).toBe('/api/v1/merchants');
    expect(targetKey('api/v1/merchants?agent=a')).toBeUndefined();
    expect(targetKey('/api/v1/merchants?agent=a#x')).toBeUndefined();
  });

  it('gives a target asked again the key it gave the first time, past the bound of what it remembers', () => {
    const query = fc.array(fc.tuple(fc.constantFrom('agent', 'sort', 'page', 'outcome', 'q'), fc.stringMatching(/^[a-z0-9%]{0,6}$/)), {
      minLength: 1,
      maxLength: 4,
    });
    const long = fc.stringMatching(/^[a-z]{600,700}$/);
    fc.assert(
      fc.property(fc.array(fc.oneof(query, long.map((text) => [['q', text]] as Array<[string, string]>)), { minLength: 1, maxLength: 60 }), (queries) => {
        const targets = queries.map((pairs) => `/api/v1/merchants?${pairs.map(([n, v]) => `${n}=${v}`).join('&')}`);
        const first = targets.map((t) => targetKey(t));
        // Again, backwards: each target's key is still its own.
        for (let i = targets.length - 1; i >= 0; i -= 1) expect(targetKey(targets[i] as string)).toBe(first[i]);
      }),
      { numRuns: 200 },
    );
  });
});
