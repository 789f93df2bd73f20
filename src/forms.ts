// Forms posted by moderators and people: the values as they were typed, and what is wrong with
// them, field by field. The page (the edge) validates a form once (formInput) and hands the
// service the typed value; a service refuses fields with a Refusal (fieldRefusal), and the page
// shows any such refusal beside the form (fieldErrorsOf).
import type { Request, Response } from 'express';
import { z } from 'zod';
import { SLUG_PATTERN, textProblem } from './text.js';
import { EARLIEST_DAY, isCalendarDay } from './dates.js';
import { invalidInput, type Refusal, validationRefusal } from './errors.js';

export type FormValues = Record<string, string>;
export type FieldErrors = Record<string, string>;

/**
 * A form's values as `schema` reads them, or a Refusal naming each wrong field (with its rule):
 * the page, the edge, validates once and hands the service the typed value.
 */
export function formInput<S extends z.ZodType>(schema: S, values: unknown): z.output<S> {
  const parsed = schema.safeParse(values);
  if (!parsed.success) throw validationRefusal(parsed.error, 'body');
  return parsed.data;
}

/** A service's refusal of a form's fields (a slug already used): each field with its rule's id and words. */
export const fieldRefusal = (...errors: Array<{ field: string; rule: string; detail: string }>): Refusal =>
  invalidInput(
    errors.map(({ field, rule, detail }) => ({ pointer: `#/${field}`, detail, rule })),
    'body',
  );

/**
 * A refusal as a form shows it: the first message of each top-level field ('form' for the form
 * as a whole), or null when it names no field (the edge then answers it as any other refusal).
 */
export function fieldErrorsOf(refusal: Refusal): FieldErrors | null {
  if (refusal.kind !== 'invalid' || !refusal.init.errors?.length) return null;
  const errors: FieldErrors = {};
  for (const error of refusal.init.errors) {
    const field = error.pointer?.slice(2).split('/')[0] || error.parameter || 'form';
    errors[field] ??= error.detail;
  }
  return errors;
}

/** A checkbox: checked when posted as on, true or 1. */
export const checkbox = z.preprocess((v) => v === 'on' || v === 'true' || v === '1', z.boolean());

/** A slug field; empty means "make one from the name". */
export const slugField = (what: string) =>
  z
    .string()
    .trim()
    .toLowerCase()
    .max(100, `The slug must be at most 100 characters`)
    .refine((s) => s === '' || SLUG_PATTERN.test(s), `Use lowercase letters, digits and single hyphens for the ${what} slug, such as "garden-shop"`);

/**
 * Refuses text the directory cannot store or show as sent (text.ts): a control character in an
 * agent's name made its badge ill-formed SVG. `multiline` allows tabs and line breaks (textareas).
 */
export const storableText =
  (options: { multiline?: boolean } = {}) =>
  (value: string, ctx: z.RefinementCtx) => {
    const problem = textProblem(value, options);
    if (problem) ctx.addIssue({ code: 'custom', message: `This text ${problem}` });
  };

/** A required text of at most `max` characters: one line, or with `multiline` a textarea's. */
export const nameField = (max: number, missing: string, options: { multiline?: boolean } = {}) =>
  z.string().trim().min(1, missing).max(max, `At most ${max} characters`).superRefine(storableText(options));

/** An optional text of at most `max` characters (empty when not given). */
export const optionalText = (max: number, options: { multiline?: boolean } = {}) =>
  z.string().trim().max(max, `At most ${max} characters`).superRefine(storableText(options)).default('');

/** A day written YYYY-MM-DD. */
export const dayField = (missing: string) =>
  z
    .string()
    .trim()
    .min(1, missing)
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'Enter a date as YYYY-MM-DD')
    .refine(isCalendarDay, 'Not a real date')
    .refine((s) => s >= EARLIEST_DAY, `Enter a date from ${EARLIEST_DAY} on`);

/** A one-time message for the next page a person sees, after a form post redirected there. */
export interface PageFlash {
  text: string;
}

declare module 'express-session' {
  interface SessionData {
    /** A message for the next page view of a person's own pages (Post/Redirect/Get). */
    pageFlash: PageFlash;
  }
}

/** Keeps `text` for the next page view of this session. */
export function setPageFlash(session: { pageFlash?: PageFlash }, text: string): void {
  session.pageFlash = { text };
}

/** The message waiting for this page view, once: taking it removes it. */
export function takePageFlash(session: { pageFlash?: PageFlash } | undefined): string | null {
  const flash = session?.pageFlash;
  if (!flash) return null;
  delete session.pageFlash;
  return flash.text;
}

/**
 * Redirects (303) once the session is stored. express-session sends a response's headers before
 * its own save finishes, so a browser following the redirect at once could read the session
 * as it was, without the message (or the key) meant for the next page.
 */
export async function redirectWhenSaved(req: Request, res: Response, location: string): Promise<void> {
  await new Promise<void>((resolve, reject) => req.session.save((error) => (error ? reject(error) : resolve())));
  res.redirect(303, location);
}
