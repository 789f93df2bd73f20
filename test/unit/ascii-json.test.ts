// asciiJson: the same JSON value, every character past ASCII written as a \u escape.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asciiJson } from '../../src/raw-json.js';

describe('asciiJson', () => {
  it('is the same JSON value, in ASCII only, for any value and any text in it', () => {
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: fc.oneof(fc.constant('binary'), fc.constant('grapheme'), fc.constant('grapheme-ascii')) }), (value) => {
        const json = JSON.stringify(value);
        const ascii = asciiJson(json);
        expect([...ascii].every((c) => c.charCodeAt(0) < 0x7f)).toBe(true);
        expect(JSON.parse(ascii)).toEqual(JSON.parse(json));
        // Applied again, nothing changes; and text already ASCII is left as it is.
        expect(asciiJson(ascii)).toBe(ascii);
      }),
      { numRuns: 300 },
    );
  });

  it('writes a symbol, DEL, a Latin-1 letter and an astral character as JSON.parse reads them', () => {
    const json = JSON.stringify({ s: '✓ ◐ \u007f é 😀 "q"' });
    expect(asciiJson(json)).toBe('{"s":"\\u2713 \\u25d0 \\u007f \\u00e9 \\ud83d\\ude00 \\"q\\""}');
    expect(JSON.parse(asciiJson(json))).toEqual(JSON.parse(json));
  });
});
