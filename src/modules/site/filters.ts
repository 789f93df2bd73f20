// The directory's filter form: the query string of `/`, `/categories/:slug` and `/agents/:slug`,
// read with the API's own zod schema (merchantQuery) so a filter means the same on the page and
// in GET /api/v1/merchants. Pages are lenient where a browser form is not precise: empty fields
// mean "not given" and unknown parameters (tracking tags) are ignored. Invalid values become
// friendly messages next to the form, never a 500.
import type { z } from 'zod';
import { type FieldError, Refusal, validationRefusal } from '../../errors.js';
import { agentMerchantQuery, merchantQuery, type FilterRule, type MerchantQuery } from '../merchants/merchants.schemas.js';

/** The filters that read one agent's summaries: they need an agent (the path's, or agent=). */
export const AGENT_FILTERS = ['reaches', 'task', 'taskStatus', 'minConfidence'] as const;

/** The API's rules for combinations of filters, in the form's words, by rule id. */
const RULE_MESSAGES: Readonly<Record<FilterRule, string>> = {
  reachNeedsAgent: 'Gets at least through: choose an agent too; how far an agent gets is its own.',
  confidenceNeedsAgent: 'How sure, at least: choose an agent too; the confidence is of that agent\'s reach.',
  taskNeedsAgent: 'Task: choose an agent too; a task\'s status is one agent\'s.',
  taskNeedsStatus: 'Where that task: choose which statuses to match for the task.',
  statusNeedsTask: 'Task: choose the task whose status to match.',
  notOnLadder: 'Gets at least through: choose one of the listed steps.',
  loginOffLadder: 'Gets at least through: login is not a step toward a purchase (many shops let a guest check out); filter on its status with Task instead.',
  sortReachNeedsAgent: 'Sorting by how far the agent gets needs an agent: choose one, or sort another way.',
  sortRatingNeedsAgent: 'Sorting by rating needs an agent: choose one, or sort another way.',
};

/**
 * Every filter of GET /api/v1/merchants with the form's label (for messages), in the order the
 * form shows them (page last).
 */
export const FILTER_LABELS = {
  q: 'Search',
  category: 'Category',
  agent: 'Agent',
  // What the agent's summaries say (they need an agent): how far it gets, one task's status, how sure.
  reaches: 'Gets at least through',
  task: 'Task',
  taskStatus: 'Where that task',
  minConfidence: 'How sure, at least',
  // These two match single reports, not the statuses on the badges: the labels say so.
  outcome: 'Has a report saying',
  stage: 'Has a report whose furthest stage is',
  region: 'Region',
  days: 'Reported in the last … days',
  minReports: 'Minimum number of reports',
  sort: 'Sort by',
  page: 'Page',
} as const;
export type FilterField = keyof typeof FILTER_LABELS;
const FILTER_FIELDS = Object.keys(FILTER_LABELS) as FilterField[];

export interface FilterError {
  field: FilterField | 'form';
  message: string;
}

export type Scope = { kind: 'all' } | { kind: 'category'; slug: string } | { kind: 'agent' };

export interface ParsedFilters {
  /** What the person typed or chose, for refilling the form (strings only). */
  values: Partial<Record<FilterField, string>>;
  /** The validated query, or null when any value is invalid. */
  query: MerchantQuery | null;
  errors: FilterError[];
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** A refused filter in the form's words: a combination rule's own, else the label and the API's detail. */
function messageFor(field: FilterField, error: FieldError): string {
  if (error.rule !== undefined && Object.hasOwn(RULE_MESSAGES, error.rule)) return RULE_MESSAGES[error.rule as FilterRule];
  // A value not among an enum's options (zod's invalid_value): the form lists them.
  if (error.rule === 'invalid_value') return `${FILTER_LABELS[field]}: choose one of the listed options.`;
  return `${FILTER_LABELS[field]}: ${error.detail.charAt(0).toLowerCase()}${error.detail.slice(1)}.`;
}

/** The form's message of one refused filter: beside its field, or above the form. */
function formError(error: FieldError): FilterError {
  const field = (FILTER_FIELDS as readonly string[]).includes(error.parameter ?? '') ? (error.parameter as FilterField) : null;
  return { field: field ?? 'form', message: field ? messageFor(field, error) : capitalise(error.detail) };
}

/**
 * Reads the filters of one directory page. In a scoped page (a category or an agent) the scope
 * is fixed by the path and its own field is neither read from the query nor shown in the form.
 */
export function parseFilters(raw: Record<string, unknown>, scope: Scope): ParsedFilters {
  const values: Partial<Record<FilterField, string>> = {};
  const errors: FilterError[] = [];
  for (const field of FILTER_FIELDS) {
    if (scope.kind === 'category' && field === 'category') continue;
    if (scope.kind === 'agent' && field === 'agent') continue;
    const value = raw[field];
    if (value === undefined) continue;
    if (typeof value !== 'string') {
      errors.push({ field, message: `${FILTER_LABELS[field]}: give one value only.` });
      continue;
    }
    const trimmed = value.trim();
    if (trimmed !== '') values[field] = trimmed;
  }
  if (errors.length > 0) return { values, query: null, errors };

  const input: Record<string, string> = { ...values };
  if (scope.kind === 'category') input.category = scope.slug;
  const schema: z.ZodType<MerchantQuery> = scope.kind === 'agent' ? (agentMerchantQuery as z.ZodType<MerchantQuery>) : merchantQuery;
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    for (const error of validationRefusal(parsed.error, 'query').init.errors ?? []) {
      const shown = formError(error);
      if (!errors.some((e) => e.message === shown.message)) errors.push(shown);
    }
    return { values, query: null, errors };
  }
  return { values, query: parsed.data, errors };
}

/** A filter the service refused (an unknown agent or category typed into the URL), as a form error. */
export function filterErrorsOf(error: unknown): FilterError[] | null {
  if (!(error instanceof Refusal) || error.kind !== 'invalid') return null;
  const errors = error.init.errors ?? [];
  if (errors.length === 0) return [{ field: 'form', message: error.init.detail ?? error.init.title }];
  return errors.map((e) => {
    if (e.parameter === 'agent') return { field: 'agent', message: 'Agent: there is no active agent with that name. Choose one from the list.' };
    if (e.parameter === 'category') return { field: 'category', message: 'Category: there is no such category. Choose one from the list.' };
    return formError(e);
  });
}

/** The query string of a directory page with these values, `page` replaced (1 drops it). */
export function filterQueryString(values: Partial<Record<FilterField, string>>, page?: number): string {
  const params = new URLSearchParams();
  for (const field of FILTER_FIELDS) {
    if (field === 'page') continue;
    const value = values[field];
    if (value) params.set(field, value);
  }
  if (page !== undefined && page > 1) params.set('page', String(page));
  const text = params.toString();
  return text ? `?${text}` : '';
}
