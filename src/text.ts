// Text a person or an agent may send us: PostgreSQL must be able to store it, and it must read
// back exactly as sent. A NUL character cannot be stored at all, and a lone UTF-16 surrogate
// comes back as U+FFFD, so an identical retry would no longer be identical. Control characters
// other than tab and line breaks are never meant in our fields.
import { z } from 'zod';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// eslint-disable-next-line no-control-regex
const CONTROL_EXCEPT_LINES = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;
// eslint-disable-next-line no-control-regex
const ANY_CONTROL = /[\u0000-\u001F\u007F]/;

/** Why `value` cannot be taken as text (the rule's id and its words), or null when it can. */
function textIssue(value: string, options: { multiline?: boolean }): { rule: 'brokenUnicode' | 'controlCharacters'; message: string } | null {
  if (LONE_SURROGATE.test(value)) return { rule: 'brokenUnicode', message: 'must be valid Unicode (it contains half of a surrogate pair)' };
  if ((options.multiline ? CONTROL_EXCEPT_LINES : ANY_CONTROL).test(value)) {
    const message = options.multiline ? 'must not contain control characters other than tabs and line breaks' : 'must not contain control characters';
    return { rule: 'controlCharacters', message };
  }
  return null;
}

/** Why `value` cannot be taken as text, or null when it can. */
export const textProblem = (value: string, options: { multiline?: boolean } = {}): string | null => textIssue(value, options)?.message ?? null;

export const isStorableText = (value: string, options: { multiline?: boolean } = {}) => textProblem(value, options) === null;

/** A zod check refusing what textProblem refuses (one line, unless `multiline`): `.superRefine(storable())`. */
export function storable(options: { multiline?: boolean } = {}) {
  return (value: string, ctx: z.RefinementCtx) => {
    const problem = textIssue(value, options);
    if (problem) ctx.addIssue({ code: 'custom', message: problem.message, params: { rule: problem.rule } });
  };
}

/** "1 report", "3 reports": a count with its noun, never a vague word. */
export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

// eslint-disable-next-line no-control-regex
const LINE_BREAKS_AND_TABS = /[\u0009-\u000D]+/g;
// eslint-disable-next-line no-control-regex
const OTHER_CONTROL = /[\u0000-\u0008\u000E-\u001F\u007F]/g;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/**
 * Stored text as one printable line, for outputs that cannot carry control characters (a badge's
 * SVG is XML): line breaks and tabs become a space, other control characters go, and half a
 * surrogate pair becomes U+FFFD. Text stored before the forms refused them can still hold them.
 */
export const printableLine = (text: string): string =>
  text.replace(LINE_BREAKS_AND_TABS, ' ').replace(OTHER_CONTROL, '').replace(LONE_SURROGATES, '\uFFFD');

/** A slug from a name: lower case ASCII letters and digits joined by single hyphens. */
export function slugify(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 100)
    .replace(/-+$/, '');
}

/** A slug as every slug here is made: lowercase letters and digits joined by single hyphens. */
export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** An id as PostgreSQL writes a UUID (either case). */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
