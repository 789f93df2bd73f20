// The moderators' forms, as the pages read them once (formInput, src/forms.ts): the queue's
// filter, the decisions on a report (each with the revision it reviewed), private notes and the
// bulk rejection's feedback. The services take what these give, typed.
import { z } from 'zod';
import { fieldErrorsOf, storableText, type FieldErrors } from '../../forms.js';
import { Refusal } from '../../errors.js';
import { UUID_PATTERN } from '../../text.js';
import { MODERATION_TEXT_MAX, parseRevision } from './moderation.service.js';
import { QUEUE_SORTS } from './queue.repository.js';
import { AUTHOR_HANDLE_PATTERN } from './author-handle.js';
import { SIGNAL_KEYS } from './signals.js';

const STATUSES = ['PENDING', 'APPROVED', 'REJECTED'] as const;

const blankToUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);
const days = (name: string) =>
  z.preprocess(
    blankToUndefined,
    z
      .string()
      .trim()
      .regex(/^\d+$/, `${name} must be a whole number of days`)
      .transform(Number)
      .pipe(z.number().max(3650, `${name} must be at most 3650 days`))
      .optional(),
  );

export const queueQuery = z.object({
  status: z.preprocess(blankToUndefined, z.enum(STATUSES, 'Choose pending, approved or rejected').default('PENDING')),
  agent: z.preprocess(blankToUndefined, z.string().trim().max(100, 'Too long').optional()),
  merchant: z.preprocess(blankToUndefined, z.string().trim().max(100, 'At most 100 characters').optional()),
  category: z.preprocess(blankToUndefined, z.string().trim().max(100, 'Too long').optional()),
  minAgeDays: days('Minimum age'),
  maxAgeDays: days('Maximum age'),
  author: z.preprocess(
    blankToUndefined,
    z
      .string()
      .trim()
      .toLowerCase()
      .regex(AUTHOR_HANDLE_PATTERN, 'An author handle is 10 characters, digits and the letters a to f, as the queue shows it')
      .optional(),
  ),
  sort: z.preprocess(blankToUndefined, z.enum(QUEUE_SORTS, 'Choose oldest first, newest first, most signals first or newest accounts first').optional()),
  signal: z.preprocess(blankToUndefined, z.enum(SIGNAL_KEYS, 'Choose one of the signals listed').optional()),
  similarTo: z.preprocess(blankToUndefined, z.string().trim().toLowerCase().regex(UUID_PATTERN, 'Not a report id').optional()),
  // Ticks every report of the page (a burst, after similarTo), so it is decided in one step.
  select: z.preprocess(blankToUndefined, z.enum(['all'], 'Not a selection').optional()),
  page: z.preprocess(
    blankToUndefined,
    z.string().regex(/^\d+$/, 'Not a page number').transform(Number).pipe(z.number().int().min(1).max(10_000)).default(1),
  ),
});

const text = (max: number, name: string) => z.string().trim().max(max, `${name} must be at most ${max} characters`).superRefine(storableText({ multiline: true }));
const requiredText = (max: number, name: string, missing: string) => text(max, name).min(1, missing);

const REVISION_MISSING = 'This form did not say which version of the report you reviewed. Review the report as it is now and decide again.';
/** The revision the form was rendered with (views/admin/report.ejs writes it in a hidden field). */
const revision = z.string(REVISION_MISSING).transform((value, ctx) => {
  const date = parseRevision(value);
  if (!date) {
    ctx.addIssue({ code: 'custom', message: REVISION_MISSING });
    return z.NEVER;
  }
  return date;
});

export const approveForm = z.object({ revision, feedback: text(MODERATION_TEXT_MAX, 'Feedback').optional() });
export const rejectForm = z.object({
  revision,
  feedback: requiredText(MODERATION_TEXT_MAX, 'Feedback', 'Tell the author why the report is rejected: feedback is required'),
  note: text(MODERATION_TEXT_MAX, 'The note').optional(),
});
export const withdrawForm = z.object({
  revision,
  to: z.enum(['PENDING', 'REJECTED'], 'Choose where the report goes: back to pending, or rejected'),
  reason: requiredText(MODERATION_TEXT_MAX, 'The reason', 'Give the reason: it is shown to the author and kept in the audit log'),
  note: text(MODERATION_TEXT_MAX, 'The note').optional(),
});
export const notesForm = z.object({ notes: text(MODERATION_TEXT_MAX, 'Notes') });
/** One feedback for every report of a bulk rejection: each author reads it. */
export const bulkRejectForm = z.object({
  feedback: requiredText(MODERATION_TEXT_MAX, 'Feedback', 'Tell the authors why the selected reports are rejected: feedback is required'),
});

/** What a form shows for a refusal of its fields (formInput's), or null for any other error. */
export const formRefusalErrors = (error: unknown): FieldErrors | null => (error instanceof Refusal ? fieldErrorsOf(error) : null);
