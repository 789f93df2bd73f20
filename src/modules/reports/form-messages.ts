// What the contribution form says when something is wrong: one plain sentence per field, in
// the words of the form (the JSON API keeps its own messages, which name fields by their JSON
// names). Validation itself stays the submission schema's; this only words its findings.
import type { z } from 'zod';
import type { FieldErrors } from '../../forms.js';
import { TASK_LABELS, TASKS, type TaskKey } from '../aggregation/constants.js';
import { issueRule, type FieldError } from '../../errors.js';
import { EARLIEST_TEST_DATE, EXPERIENCE_MAX_LENGTH } from './submission.schema.js';

/** The form's fields in page order, with the words the summary uses for them. */
const FORM_FIELDS: ReadonlyArray<{ name: string; id: string; label: string }> = [
  { name: 'q', id: 'q', label: 'Find the merchant' },
  { name: 'adId', id: 'adId', label: 'Merchant' },
  { name: 'agentId', id: 'agentId', label: 'Agent' },
  // The result rule: at least one task result or an overall result.
  { name: 'results', id: 'task_ACCESS', label: 'Results' },
  ...TASKS.map((task) => ({ name: `task_${task}`, id: `task_${task}`, label: TASK_LABELS[task] })),
  { name: 'outcome', id: 'outcome', label: 'Overall result' },
  { name: 'stage', id: 'stage', label: 'Furthest stage reached' },
  { name: 'failureReason', id: 'failureReason', label: 'Failure reason' },
  { name: 'humanIntervention', id: 'humanIntervention', label: 'Did a person have to step in?' },
  { name: 'testedAt', id: 'testedAt', label: 'Date of the test' },
  { name: 'agentVersion', id: 'agentVersion', label: 'Agent version' },
  { name: 'region', id: 'region', label: 'Region' },
  { name: 'task', id: 'task', label: 'What the agent was asked to do' },
  { name: 'experience', id: 'experience', label: 'Your experience' },
  { name: 'screenshots', id: 'screenshots', label: 'Screenshots' },
  { name: 'privacy', id: 'privacy', label: 'Privacy' },
];

const TEXT_NAMES: Record<string, string> = {
  experience: 'your experience',
  agentVersion: 'the agent version',
  region: 'the region',
  task: 'what the agent was asked to do',
};

export const MESSAGES = {
  adId: 'Choose the merchant you tested',
  adIdGone: 'This merchant is no longer listed in the directory: choose another one',
  agentId: 'Choose the agent you tested',
  agentIdGone: 'This agent is no longer listed: choose another one',
  result: 'Say how at least one task went, or give an overall result',
  outcome: 'Choose an overall result from the list',
  privacy: 'Confirm that the report contains no private or payment data, describes a real, authorised test and has no bypass instructions',
  stage: 'Choose the furthest stage reached from the list',
  failureReason: 'Choose a failure reason from the list',
  testedAtFormat: 'Enter the date of the test as a date, for example 2026-11-20',
  testedAtReal: 'Enter a date that exists, for example 2026-11-20',
  testedAtEarly: `Enter a test date in ${EARLIEST_TEST_DATE.slice(0, 4)} or later`,
  testedAtFuture: 'The date of the test cannot be in the future',
  taskResult: (task: TaskKey) => `Choose a result for “${TASK_LABELS[task]}” from the list`,
  tooLong: (field: string, max: number, length?: number) =>
    `Shorten ${TEXT_NAMES[field] ?? field} to ${max.toLocaleString('en')} characters or fewer${length !== undefined ? ` (it has ${length.toLocaleString('en')})` : ''}`,
  controlCharacters: (field: string) =>
    `Remove the invisible control characters from ${TEXT_NAMES[field] ?? field} (they can come with a copy and paste)`,
  brokenText: (field: string) => `Type ${TEXT_NAMES[field] ?? field} again: part of a character is missing`,
  region: 'Enter the country you tested from, by its name or its two-letter code (for example Germany or DE), or leave it empty',
  leaveEmpty: (field: string) => `Leave ${TEXT_NAMES[field] ?? field} empty when you do not know it (never “unknown” or “n/a”)`,
  screenshotsChooseAgain: 'The screenshots you chose were not added, because the form came back: choose them again before saving.',
} as const;

/** Why the test date is wrong, in the form's words (the value is a non-empty string). */
function testedAtMessage(value: string | undefined): string {
  if (!value || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return MESSAGES.testedAtFormat;
  const date = new Date(`${value}T00:00:00Z`);
  if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value) return MESSAGES.testedAtReal;
  return MESSAGES.testedAtEarly;
}

/**
 * The form's messages for a submission schema failure, keyed by form field name (the task
 * results are task_<KEY>). `values` are the posted fields (for lengths and the date).
 */
export function formErrorsOf(error: z.ZodError, values: Record<string, string>): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of error.issues) {
    const [top, sub] = issue.path.map(String);
    if (!top) continue;
    if (top === 'capabilityResults') {
      if (sub && (TASKS as readonly string[]).includes(sub)) errors[`task_${sub}`] ??= MESSAGES.taskResult(sub as TaskKey);
      continue;
    }
    let message: string;
    switch (top) {
      case 'adId':
        message = MESSAGES.adId;
        break;
      case 'agentId':
        message = MESSAGES.agentId;
        break;
      case 'privacy':
        message = MESSAGES.privacy;
        break;
      case 'outcome':
        // The schema reports the result rule on outcome: the form shows it above the task results.
        if (issue.code === 'custom') {
          errors.results ??= MESSAGES.result;
          continue;
        }
        message = MESSAGES.outcome;
        break;
      case 'stage':
        message = MESSAGES.stage;
        break;
      case 'failureReason':
        message = MESSAGES.failureReason;
        break;
      case 'testedAt':
        message = testedAtMessage(values.testedAt);
        break;
      case 'experience':
      case 'agentVersion':
      case 'region':
      case 'task':
        switch (issueRule(issue)) {
          case 'country':
            message = MESSAGES.region;
            break;
          case 'placeholder':
            message = MESSAGES.leaveEmpty(top);
            break;
          case 'too_big':
            message = MESSAGES.tooLong(top, top === 'experience' ? EXPERIENCE_MAX_LENGTH : Number((issue as { maximum?: number | bigint }).maximum), values[top]?.length);
            break;
          case 'brokenUnicode':
            message = MESSAGES.brokenText(top);
            break;
          default:
            message = MESSAGES.controlCharacters(top);
        }
        break;
      default:
        message = `Check ${top}: ${issue.message}`;
    }
    errors[top] ??= message;
  }
  return errors;
}

/** A field's message from the submission service (a target that went away, a future date). */
export function serviceFieldMessage(field: string, error: FieldError): string {
  if (field === 'adId') return error.rule === 'gone' ? MESSAGES.adIdGone : MESSAGES.adId;
  if (field === 'agentId') return error.rule === 'gone' ? MESSAGES.agentIdGone : MESSAGES.agentId;
  if (field === 'testedAt') return MESSAGES.testedAtFuture;
  return error.detail;
}

export interface SummaryItem {
  text: string;
  /** `#field-id` of the field to fix; none for a problem with the whole form. */
  href?: string;
  /** Further links (e.g. to an existing report's pages). */
  links?: Array<{ href: string; text: string }>;
}

/** The errors as the summary lists them: the whole form's first, then the fields in page order. */
export function summaryItems(errors: FieldErrors, formLinks: SummaryItem['links'] = []): SummaryItem[] {
  const items: SummaryItem[] = [];
  if (errors.form) items.push({ text: errors.form, ...(formLinks.length ? { links: formLinks } : {}) });
  const known = new Set(['form']);
  for (const field of FORM_FIELDS) {
    known.add(field.name);
    if (errors[field.name]) items.push({ text: errors[field.name]!, href: `#${field.id}` });
  }
  for (const [name, text] of Object.entries(errors)) if (!known.has(name)) items.push({ text });
  return items;
}
