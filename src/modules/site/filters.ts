// The directory's filter form: the query string of `/`, `/categories/:slug` and `/agents/:slug`,
// read with the API's own zod schema (merchantQuery) so a filter means the same on the page and
// in GET /api/v1/merchants. Pages are lenient where a browser form is not precise: empty fields
// mean "not given" and unknown parameters (tracking tags) are ignored. Invalid values become
// friendly messages next to the form, never a 500.
import type { z } from 'zod';
import { Refusal } from '../../errors.js';
import { agentMerchantQuery, FILTER_RULES, merchantQuery, type MerchantQuery } from '../merchants/merchants.schemas.js';

/** The filters that read one agent's summaries: they need an agent (the path's, or agent=). */
export const AGENT_FILTERS = ['reaches', 'task', 'taskStatus', 'minConfidence'] as const;

/** The API's rules for combinations of filters, in the form's words. */
const RULE_MESSAGES: ReadonlyMap<string, string> = new Map([
  [FILTER_RULES.reachNeedsAgent, 'Gets at least through: choose an agent too; how far an agent gets is its own.'],
  [FILTER_RULES.confidenceNeedsAgent, 'How sure, at least: choose an agent too; the confidence is of that agent\'s reach.'],
  [FILTER_RULES.taskNeedsAgent, 'Task: choose an agent too; a task\'s status is one agent\'s.'],
  [FILTER_RULES.taskNeedsStatus, 'Where that task: choose which statuses to match for the task.'],
  [FILTER_RULES.statusNeedsTask, 'Task: choose the task whose status to match.'],
  [FILTER_RULES.notOnLadder, 'Gets at least through: choose one of the listed steps.'],
  [FILTER_RULES.loginOffLadder, 'Gets at least through: login is not a step toward a purchase (many shops let a guest check out); filter on its status with Task instead.'],
  [FILTER_RULES.sortReachNeedsAgent, 'Sorting by how far the agent gets needs an agent: choose one, or sort another way.'],
  [FILTER_RULES.sortRatingNeedsAgent, 'Sorting by rating needs an agent: choose one, or sort another way.'],
]);

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

function messageFor(field: FilterField, detail: string): string {
  const rule = RULE_MESSAGES.get(detail);
  if (rule) return rule;
  if (field === 'sort' && /rating/.test(detail)) return 'Sorting by rating needs an agent: choose one, or sort another way.';
  if (detail.startsWith('Invalid option')) return `${FILTER_LABELS[field]}: choose one of the listed options.`;
  return `${FILTER_LABELS[field]}: ${detail.charAt(0).toLowerCase()}${detail.slice(1)}.`;
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
    for (const issue of parsed.error.issues) {
      const field = (FILTER_FIELDS as readonly string[]).includes(String(issue.path[0])) ? (issue.path[0] as FilterField) : null;
      const message = field ? messageFor(field, issue.message) : capitalise(issue.message);
      if (!errors.some((e) => e.message === message)) errors.push({ field: field ?? 'form', message });
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
    const field = (FILTER_FIELDS as readonly string[]).includes(e.parameter ?? '') ? (e.parameter as FilterField) : null;
    if (field === 'agent') return { field, message: 'Agent: there is no active agent with that name. Choose one from the list.' };
    if (field === 'category') return { field, message: 'Category: there is no such category. Choose one from the list.' };
    return { field: field ?? 'form', message: field ? messageFor(field, e.detail) : capitalise(e.detail) };
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
