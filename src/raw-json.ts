// A value already written as JSON: the app's `res.json` (web/json-body.ts) sends its text as it
// is, and JSON.stringify writes the same (its toJSON parses the text), so any other reader of
// the value sees what it stands for.
export class RawJson {
  constructor(readonly json: string) {}

  toJSON(): unknown {
    return JSON.parse(this.json) as unknown;
  }
}

const NON_ASCII = /[\u007f-\uffff]/;
const NON_ASCII_ALL = /[\u007f-\uffff]/g;
const escaped = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * JSON text with every character past ASCII (and DEL) written as a `\u` escape, an astral one as
 * its two surrogates: the same JSON value, in text that V8 keeps one byte a character. The
 * lists' stored fragments are written so (issue 38): a page of them is 830,000 characters, and
 * with one "◐" or "✓" in each, PostgreSQL's answer decoded into two-byte strings, twice the
 * memory and copies of that size at every join and at the UTF-8 encoding.
 */
export function asciiJson(json: string): string {
  return NON_ASCII.test(json) ? json.replace(NON_ASCII_ALL, escaped) : json;
}
