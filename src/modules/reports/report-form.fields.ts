// The contribution form's fields (new and edit): to and from a submission body, the checks the
// schema cannot make, the form's words for the services' refusals, and the screenshots posted.
import type { Request } from 'express';
import { Refusal } from '../../errors.js';
import type { FieldErrors, FormValues } from '../../forms.js';
import { TASKS } from '../aggregation/constants.js';
import { MAX_SCREENSHOTS, sniffImageFile, type CheckedScreenshot } from '../evidence/screenshots.js';
import { editPath, reviewPath } from './author-view.js';
import { MESSAGES, serviceFieldMessage, type SummaryItem } from './form-messages.js';
import { displayName } from './pending-screenshots.js';
import type { OwnReportDetail } from './report-form.repository.js';
import { isFutureTestDate } from './submissions.service.js';

const TEXT_FIELDS = ['experience', 'testedAt', 'agentVersion', 'region', 'task'] as const;

/** The form's fields as a submission body (empty choices mean "not given"). */
export function bodyFromForm(form: FormValues): Record<string, unknown> {
  const capabilityResults: Record<string, string> = {};
  for (const task of TASKS) {
    const value = form[`task_${task}`];
    if (value) capabilityResults[task] = value;
  }
  const body: Record<string, unknown> = {
    adId: form.adId || undefined,
    agentId: form.agentId || undefined,
    privacy: form.privacy === 'on',
    ...(Object.keys(capabilityResults).length ? { capabilityResults } : {}),
  };
  for (const field of ['outcome', 'stage', 'failureReason'] as const) if (form[field]) body[field] = form[field];
  for (const field of TEXT_FIELDS) if (form[field]?.trim()) body[field] = form[field];
  if (form.humanIntervention === 'yes') body.humanIntervention = true;
  if (form.humanIntervention === 'no') body.humanIntervention = false;
  return body;
}

/** A stored report as the form's fields (the edit form's starting point). */
export function formFromReport(report: { content: OwnReportDetail['content'] }): FormValues {
  const c = report.content;
  const values: FormValues = {};
  for (const task of TASKS) if (c.capabilityResults[task]) values[`task_${task}`] = c.capabilityResults[task]!;
  // A derived overall result stays derived: the form shows "Work it out from the task results".
  if (c.outcomeSupplied) values.outcome = c.outcome;
  if (c.stage) values.stage = c.stage;
  if (c.failureReason) values.failureReason = c.failureReason;
  if (c.humanIntervention !== null) values.humanIntervention = c.humanIntervention ? 'yes' : 'no';
  for (const field of TEXT_FIELDS) if (c[field]) values[field] = c[field]!;
  return values;
}

/** The posted fields that are text (a repeated field, or a file, is not a value of ours). */
export const postedValues = (body: unknown): FormValues =>
  Object.fromEntries(Object.entries((body ?? {}) as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string'));

/** The form's message for a refusal of the submission or replacement services. */
export function refusalErrors(error: Refusal, context: { editing: boolean }): { errors: FieldErrors; links: SummaryItem['links'] } {
  const init = error.init;
  if (init.code === 'duplicate-report') {
    const id = String(init.extensions?.reportId ?? '');
    return {
      errors: {
        form: 'You already reported this merchant for this agent, with different answers. An account keeps one report per merchant and agent: change that report instead.',
      },
      links: id ? [{ href: editPath(id), text: 'Change your existing report' }, { href: reviewPath(id), text: 'See it on its review page' }] : [],
    };
  }
  if (init.kind === 'rate-limited' && init.usage) {
    const minutes = Math.max(1, Math.ceil(init.usage.resetSeconds / 60));
    return {
      errors: {
        form: `You have reached the limit of ${init.usage.limit} report${init.usage.limit === 1 ? '' : 's'} an hour (at most ${init.usage.limit} per ${Math.round(init.usage.windowSeconds / 60)} minutes, new reports and changes together). Your answers are kept: send the form again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
      },
      links: [],
    };
  }
  if (init.kind === 'forbidden') return { errors: { form: init.detail ?? init.title }, links: [] };
  const errors: FieldErrors = {};
  for (const fieldError of init.errors ?? []) {
    const field = (fieldError.pointer ?? '').replace(/^#\//, '').split('/')[0] ?? '';
    const message = serviceFieldMessage(field, fieldError);
    // The edit form shows the merchant and agent as fixed text: their problems concern the whole report.
    if (context.editing && (field === 'adId' || field === 'agentId')) {
      errors.form ??= `${message.replace(/: choose another one$/, '')}, so this report cannot be changed.`;
    } else {
      errors[field || 'form'] ??= message;
    }
  }
  if (Object.keys(errors).length === 0) errors.form = init.detail ?? init.title;
  return { errors, links: [] };
}

/**
 * What the schema does not say when other fields already failed (its result rule runs only on
 * an otherwise valid body), and what it cannot know (the clock): everything at once, so a
 * person fixes the form in one go.
 */
export function extraChecks(values: FormValues, now: Date): FieldErrors {
  const errors: FieldErrors = {};
  if (!values.outcome && !TASKS.some((task) => values[`task_${task}`])) errors.results = MESSAGES.result;
  if (isFutureTestDate(values.testedAt || undefined, now)) errors.testedAt = MESSAGES.testedAtFuture;
  return errors;
}

/** The screenshot files the form posted (empty file parts left out). */
export const uploadedFiles = (req: Request) => ((req.files as Record<string, Express.Multer.File[]> | undefined)?.screenshots ?? []).filter((f) => f.size > 0);

/** What checkUploads found. */
export interface CheckedUploads {
  accepted: Array<CheckedScreenshot & { name: string }>;
  error: string | null;
}

/** Uploaded files: the acceptable ones, and what to say about the others. */
export async function checkUploads(files: ReadonlyArray<{ path: string; size: number; originalname: string }>, alreadyAttached: number): Promise<CheckedUploads> {
  if (alreadyAttached + files.length > MAX_SCREENSHOTS) {
    return {
      accepted: [],
      error:
        alreadyAttached > 0
          ? `Attach at most ${MAX_SCREENSHOTS} screenshots. ${alreadyAttached} ${alreadyAttached === 1 ? 'is' : 'are'} already attached: remove one to add another.`
          : `Attach at most ${MAX_SCREENSHOTS} screenshots.`,
    };
  }
  const accepted: Array<CheckedScreenshot & { name: string }> = [];
  const refused: string[] = [];
  for (const file of files) {
    const mediaType = await sniffImageFile(file.path);
    if (mediaType) accepted.push({ file: file.path, size: file.size, mediaType, name: file.originalname });
    else refused.push(displayName(file.originalname));
  }
  if (refused.length === 0) return { accepted, error: null };
  const names = refused.map((n) => `“${n}”`).join(', ');
  return { accepted, error: `${names} ${refused.length === 1 ? 'was' : 'were'} not attached. Screenshots must be PNG, JPEG or WebP images.` };
}
