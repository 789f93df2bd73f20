// The moderators' queue of reports (filtered, sorted and paged, with each report's signals) and
// the bulk decisions on the reports selected in it: approve, or reject with one feedback. Each
// selected report carries the revision the list showed it at: one changed since is not decided
// and is listed back. Decisions go through the moderation service: one transaction each with
// the audit row and the summary recompute. Routes: http/routers/admin.ts.
import type { Request, RequestHandler, Response } from 'express';
import { formInput, type FieldErrors, type FormValues } from '../../forms.js';
import { actorOf, formList, formValues, renderAdmin, setFlash } from '../../web/admin-pages.js';
import { UUID_PATTERN } from '../../text.js';
import { approveReports, BULK_APPROVE_MAX, parseRevision, rejectReports, type BulkApproveResult, type BulkRejectResult } from './moderation.service.js';
import { defaultSort, filterChoices, nextPendingReport, QUEUE_PAGE_SIZE, queueCounts, queuePage, type QueueFilter } from './queue.repository.js';
import { authorHandle } from './author-handle.js';
import { raised, SIGNAL_KEYS, SIGNAL_LABELS, SIGNAL_SCAN_LIMIT } from './signals.js';
import { bulkRejectForm, formRefusalErrors, queueQuery } from './moderation.schemas.js';
import { STATUS_LABEL, type ModerationDeps } from './moderation.pages.js';

type BulkKind = 'approve' | 'reject';
/** A report selected in a list, and the revision the list showed it at (null: the form did not say). */
type Selected = { reportId: string; revision: Date | null };

/** Only a queue URL may be returned to after a bulk approval. */
function safeQueueReturn(value: string | undefined): string {
  return value && /^\/admin\/reports(\?[^\s#]*)?$/.test(value) && !value.includes('//') ? value : '/admin/reports';
}

function queueSearch(query: Record<string, unknown>): FormValues {
  const values: FormValues = {};
  for (const name of ['status', 'agent', 'merchant', 'category', 'minAgeDays', 'maxAgeDays', 'author', 'sort', 'signal', 'similarTo', 'select', 'page']) {
    const v = query[name];
    if (typeof v === 'string') values[name] = v;
  }
  return values;
}

/** The filter the search asks for; when the search is wrong, the pending queue's first page and what is wrong. */
function queueFilter(search: FormValues, now: Date): { filter: QueueFilter; errors: FieldErrors | null } {
  try {
    return { filter: { ...formInput(queueQuery, search), now }, errors: null };
  } catch (error) {
    const errors = formRefusalErrors(error);
    if (!errors) throw error;
    return { filter: { status: 'PENDING', page: 1, now }, errors };
  }
}

async function showQueue(deps: ModerationDeps, req: Request, res: Response, search: FormValues, status = 200, bulkError: string | null = null) {
  const { filter, errors } = queueFilter(search, deps.clock.now());
  const [{ total, rows, signals, scanned }, counts, choices] = await Promise.all([queuePage(deps.prisma, filter), queueCounts(deps.prisma), filterChoices(deps.prisma)]);
  const pageUrl = (page: number) => {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(search)) if (k !== 'page' && v) params.set(k, v);
    if (page > 1) params.set('page', String(page));
    const qs = params.toString();
    return `/admin/reports${qs ? `?${qs}` : ''}`;
  };
  renderAdmin(
    req,
    res,
    'reports',
    {
      title: `${STATUS_LABEL[filter.status]} reports`,
      section: 'reports',
      values: search,
      errors: errors ?? {},
      filter,
      rows,
      total,
      counts,
      choices,
      sort: filter.sort ?? defaultSort(filter.status),
      authorHandle,
      page: filter.page,
      pages: Math.max(1, Math.ceil(total / QUEUE_PAGE_SIZE)),
      pageUrl,
      returnUrl: pageUrl(filter.page),
      bulkError,
      bulkMax: BULK_APPROVE_MAX,
      now: deps.clock.now(),
      // Issue 37: each report's signals, never public.
      signals,
      scanned,
      scanLimit: SIGNAL_SCAN_LIMIT,
      signalKeys: SIGNAL_KEYS,
      signalLabels: SIGNAL_LABELS,
      raised,
    },
    errors ? 400 : status,
  );
}

/** GET /admin/reports: the queue, filtered by its search (pending reports, oldest first, by default). */
export function reportQueue(deps: ModerationDeps): RequestHandler {
  return async (req, res) => showQueue(deps, req, res, queueSearch(req.query as Record<string, unknown>));
}

/**
 * The reports selected in a list, each with the revision it was shown at. Checkboxes are named
 * ids[] (one name shared by many controls); plain ids works too. Each value is
 * "<id>@<revision>": the report and the revision the list showed it at.
 */
function selectedReports(body: unknown): Selected[] {
  const entries = [...formList(body, 'ids[]'), ...formList(body, 'ids')];
  return entries.map((entry) => {
    const at = entry.lastIndexOf('@');
    const reportId = at < 0 ? entry : entry.slice(0, at);
    return { reportId, revision: at < 0 ? null : parseRevision(entry.slice(at + 1)) };
  });
}

/** What is wrong with a selection, as the list shows it, or null. */
function selectionProblem(selected: Selected[], kind: BulkKind): string | null {
  if (selected.length === 0) return `Select at least one report to ${kind}.`;
  if (selected.length > BULK_APPROVE_MAX || selected.some((s) => !UUID_PATTERN.test(s.reportId))) return `Select at most ${BULK_APPROVE_MAX} reports from this list.`;
  if (selected.some((s) => s.revision === null)) return 'The selection did not say which version of each report you reviewed. Here is the list as it is now: select again.';
  return null;
}

/** The message after a bulk decision: how many were decided, and each left as it was and why. */
function bulkSummary(kind: BulkKind, result: BulkApproveResult | BulkRejectResult): string[] {
  const done = 'approved' in result ? result.approved : result.rejected;
  const verb = kind === 'approve' ? 'Approved' : 'Rejected';
  const parts = [`${verb} ${done.length} report${done.length === 1 ? '' : 's'}.`];
  if (result.alreadyModerated.length) {
    parts.push(
      `${result.alreadyModerated.length} already moderated by someone else and left as they are: ${result.alreadyModerated
        .map((r) => `${r.id} (${STATUS_LABEL[r.status].toLowerCase()})`)
        .join(', ')}.`,
    );
  }
  if (result.changed.length) {
    parts.push(
      `${result.changed.length} changed by ${result.changed.length === 1 ? 'its author' : 'their authors'} since the list was shown, so not ${kind === 'approve' ? 'approved' : 'rejected'}: ${result.changed
        .map((r) => `${r.id} (now the revision of ${r.revision.toISOString()})`)
        .join(', ')}. Open ${result.changed.length === 1 ? 'it' : 'each'} to review the new content.`,
    );
  }
  if (result.notFound.length) parts.push(`${result.notFound.length} not found.`);
  return parts;
}

/**
 * Approves or rejects the selected reports of a list in one step (issue 37: a burst is
 * rejected with one feedback). Each report is decided at the revision the list showed it at,
 * in its own transaction with its audit row; the others are listed back.
 */
async function bulkDecide(deps: ModerationDeps, req: Request, res: Response, kind: BulkKind) {
  const values = formValues(req.body);
  const returnUrl = safeQueueReturn(values.return);
  const selected = selectedReports(req.body);
  let problem = selectionProblem(selected, kind);
  let feedback = '';
  if (!problem && kind === 'reject') {
    try {
      feedback = formInput(bulkRejectForm, { feedback: values.feedback ?? '' }).feedback;
    } catch (error) {
      const errors = formRefusalErrors(error);
      if (!errors) throw error;
      problem = errors.feedback ?? 'Give the feedback the authors will read.';
    }
  }
  if (problem) {
    await showQueue(deps, req, res, queueSearch(Object.fromEntries(new URL(returnUrl, 'http://x').searchParams)), 400, problem);
    return;
  }
  const reports = selected.map((s) => ({ reportId: s.reportId, revision: s.revision! }));
  const result =
    kind === 'approve'
      ? await approveReports(deps.prisma, { reports, actorId: actorOf(res), now: deps.clock.now() })
      : await rejectReports(deps.prisma, { reports, actorId: actorOf(res), feedback, now: deps.clock.now() });
  const parts = bulkSummary(kind, result);
  // The list stays the next step (what is left of it is on the page); the link opens the
  // next pending report, as after a single decision.
  const next = await nextPendingReport(deps.prisma);
  if (!next) parts.push('No pending reports are left.');
  setFlash(
    req,
    result.alreadyModerated.length || result.changed.length || result.notFound.length ? 'error' : 'ok',
    parts.join(' '),
    next ? { href: `/admin/reports/${next}`, text: 'Open the next pending report' } : undefined,
  );
  res.redirect(303, returnUrl);
}

/** POST /admin/reports/bulk-approve: approves the reports selected in the queue. */
export function reportsBulkApprove(deps: ModerationDeps): RequestHandler {
  return async (req, res) => bulkDecide(deps, req, res, 'approve');
}

/** POST /admin/reports/bulk-reject: rejects the reports selected in the queue, with one feedback. */
export function reportsBulkReject(deps: ModerationDeps): RequestHandler {
  return async (req, res) => bulkDecide(deps, req, res, 'reject');
}
