// A report's version is its updatedAt, written as an ISO 8601 UTC instant; an ETag carries it
// quoted (a strong entity tag). This module reads the If-Match header that names it (RFC 9110
// 13.1.1): `*`, or a list of entity tags compared strongly, plus one leniency the spec itself
// asks for: the bare updatedAt, unquoted, as read from a JSON body.
import { invalidInput, type Refusal } from '../../errors.js';

/** A version as an ETag carries it: quoted, a strong entity tag. */
export const versionTag = (updatedAt: string) => `"${updatedAt}"`;

/** The only form of a version that can ever match: a typo must never match by accident. */
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;

/**
 * One entity tag (etagc: %x21 / %x23-7E / obs-text) and the comma or end after it; empty list
 * elements before it are allowed, as RFC 9110 5.6.1 asks of recipients.
 */
const LIST_MEMBER = /[ \t,]*(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"[ \t]*(?:,|$)/y;
const LIST_END = /^[ \t,]*$/;

/**
 * What a precondition names: any current version (`*`), some versions (an If-Match list, or
 * the one an edit form carries), or none that can match (null).
 */
export type VersionCondition = '*' | Date | readonly Date[] | null;

/** Whether the condition names the report's current version. */
export function namesVersion(condition: VersionCondition, current: Date): boolean {
  if (condition === '*') return true;
  if (condition === null) return false;
  const named = condition instanceof Date ? [condition] : condition;
  return named.some((version) => version.getTime() === current.getTime());
}

/** A version as written on a form, on the command line or in an ETag value; null when it is not one. */
export function parseVersion(text: string): Date | null {
  if (!INSTANT.test(text)) return null;
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** The longest If-Match header read (a version is 26 characters quoted; a list of some 30 fits). */
export const IF_MATCH_MAX_LENGTH = 1_024;

export interface IfMatch {
  condition: VersionCondition;
  /** Weak tags named (never matched: If-Match compares strongly). */
  weak: number;
  /**
   * The 400 naming the format, when the header is none of the forms above. Raised only once the
   * report is known to exist (RFC 9110 13.2.1: a 404 comes before any precondition).
   */
  malformed?: Refusal;
}

const MALFORMED_DETAIL =
  'must be the report\'s updatedAt as an entity tag ("2026-01-31T12:00:00.000Z", as the ETag header gives it), a comma-separated list of them, or *; the bare updatedAt unquoted is accepted too';

/**
 * Reads an If-Match header: undefined when it is absent or empty (the request names no version),
 * `malformed` when it is not `*`, a list of entity tags or a bare updatedAt.
 */
export function parseIfMatch(header: string | undefined): IfMatch | undefined {
  const text = header?.trim();
  if (!text) return undefined;
  if (text.length > IF_MATCH_MAX_LENGTH) {
    return { condition: null, weak: 0, malformed: invalidInput([{ parameter: 'If-Match', detail: `must be at most ${IF_MATCH_MAX_LENGTH} characters` }], 'header') };
  }
  if (text === '*') return { condition: '*', weak: 0 };
  const bare = parseVersion(text);
  if (bare) return { condition: [bare], weak: 0 };
  const named: Date[] = [];
  let weak = 0;
  LIST_MEMBER.lastIndex = 0;
  while (!LIST_END.test(text.slice(LIST_MEMBER.lastIndex))) {
    const start = LIST_MEMBER.lastIndex;
    const member = LIST_MEMBER.exec(text);
    if (!member || LIST_MEMBER.lastIndex === start) {
      return { condition: null, weak: 0, malformed: invalidInput([{ parameter: 'If-Match', detail: MALFORMED_DETAIL }], 'header') };
    }
    if (member[1]) weak += 1;
    else {
      // A well-formed tag that is not a version is simply not the current one.
      const version = parseVersion(member[2]!);
      if (version) named.push(version);
    }
  }
  return { condition: named, weak };
}
