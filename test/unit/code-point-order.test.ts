// The in-memory listing orders names as PostgreSQL's C collation does: by code point, which is
// the order of the UTF-8 bytes, and not JavaScript's UTF-16 order (they differ above the
// surrogates, for U+E000-U+FFFF against the astral planes).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codePointCompare } from '../../src/modules/directory/listing.js';

const sign = (n: number) => Math.sign(n);

describe('code point order', () => {
  it('agrees with the order of the UTF-8 bytes for any two strings', () => {
    const text = fc.string({ unit: 'binary', maxLength: 8 });
    fc.assert(
      fc.property(text, text, (a, b) => {
        expect(sign(codePointCompare(a, b))).toBe(sign(Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'))));
      }),
      { numRuns: 2_000 },
    );
  });

  it('puts a character of an astral plane after one just below them, where UTF-16 puts it before', () => {
    expect(codePointCompare('𝔸', 'ｚ')).toBeGreaterThan(0);
    expect('𝔸' < 'ｚ').toBe(true);
    expect(codePointCompare('B', 'a')).toBeLessThan(0);
    expect(codePointCompare('ab', 'a')).toBeGreaterThan(0);
    expect(codePointCompare('é', 'é')).toBe(0);
  });
});
