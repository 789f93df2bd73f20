// The moderators' report pages: the overview, the queue, a report's full private detail, the
// decisions (approve, reject, bulk approve, withdraw), private notes, and screenshots streamed
// to moderators only. Decisions go through the moderation service: one transaction each with
// the audit row and the summary recompute, so the public API changes with the status.
// Every decision form carries the revision of the report it showed (a hidden field, one per
// selected report in the bulk form): a decision on a report changed since is refused and the
// page shows the current revision to review. Routes: http/routers/admin.ts.
import type { Request, RequestHandler, Response } from 'express';
import { z } from 'zod';
import type { Clock } from '../../clock.js';
import type { PrismaClient } from '../../db/client.js';
import type { ReportStatus } from '../../generated/prisma/enums.js';
import { screenshotFile } from '../evidence/screenshots.repository.js';
import { sendScreenshot } from '../evidence/screenshot-response.js';
import {
  approveReport,
  approveReports,
  BULK_APPROVE_MAX,
  rejectReports,
  MODERATION_TEXT_MAX,
  ModerationConflictError,
  ModerationInputError,
  parseRevision,
  rejectReport,
  ReportChangedError,
  ReportNotFoundError,
  saveModerationNotes,
  withdrawReport,
} from './moderation.service.js';
import { storableText, zodFieldErrors, type FieldErrors, type FormValues } from '../../forms.js';
import { actorOf, formList, formValues, idParam, notFoundPage, renderAdmin, setFlash } from '../../web/admin-pages.js';
import { UUID_PATTERN } from '../../text.js';
import { recentAuditEntries } from '../audit/audit.repository.js';
import { auditTargetUrl } from '../audit/audit.pages.js';
import {
  defaultSort,
  filterChoices,
  nextPendingReport,
  oldestPending,
  QUEUE_PAGE_SIZE,
  QUEUE_SORTS,
  queueCounts,
  queuePage,
  reportDetail,
  reportHeading,
  type QueueFilter,
  type ReportDetail,
} from './queue.repository.js';
import { AUTHOR_HANDLE_PATTERN, authorHandle } from './author-handle.js';
import { NEW_ACCOUNT_DAYS, raised, SIGNAL_KEYS, SIGNAL_LABELS, SIGNAL_SCAN_LIMIT } from './signals.js';
import { signalsOf } from './signals.repository.js';
import { contentAt, diffContent, editDiffs, type VersionContent } from './revision-diff.js';

const STATUSES = ['PENDING', 'APPROVED', 'REJECTED'] as const;
const STATUS_LABEL: Record<ReportStatus, string> = { PENDING: 'Pending', APPROVED: 'Approved', REJECTED: 'Rejected' };

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

const queueQuery = z.object({
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

const approveForm = z.object({ revision, feedback: text(MODERATION_TEXT_MAX, 'Feedback').optional() });
const rejectForm = z.object({
  revision,
  feedback: requiredText(MODERATION_TEXT_MAX, 'Feedback', 'Tell the author why the report is rejected: feedback is required'),
  note: text(MODERATION_TEXT_MAX, 'The note').optional(),
});
const withdrawForm = z.object({
  revision,
  to: z.enum(['PENDING', 'REJECTED'], 'Choose where the report goes: back to pending, or rejected'),
  reason: requiredText(MODERATION_TEXT_MAX, 'The reason', 'Give the reason: it is shown to the author and kept in the audit log'),
  note: text(MODERATION_TEXT_MAX, 'The note').optional(),
});
const notesForm = z.object({ notes: text(MODERATION_TEXT_MAX, 'Notes') });
/** One feedback for every report of a bulk rejection: each author reads it. */
const bulkRejectForm = z.object({
  feedback: requiredText(MODERATION_TEXT_MAX, 'Feedback', 'Tell the authors why the selected reports are rejected: feedback is required'),
});

type FormName = 'approve' | 'reject' | 'withdraw' | 'notes';
const DECISION: Record<FormName, string> = { approve: 'approval', reject: 'rejection', withdraw: 'withdrawal', notes: 'change' };
type ReportForms = Partial<Record<FormName, { values: FormValues; errors: FieldErrors }>>;

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

export function moderationHandlers(deps: { prisma: PrismaClient; clock: Clock; dataDir: string }) {
  const { prisma } = deps;

  async function showQueue(req: Request, res: Response, search: FormValues, status = 200, bulkError: string | null = null) {
    const parsed = queueQuery.safeParse(search);
    const errors: FieldErrors = parsed.success ? {} : zodFieldErrors(parsed.error);
    const filter: QueueFilter = parsed.success
      ? { ...parsed.data, now: deps.clock.now() }
      : { status: 'PENDING', page: 1, now: deps.clock.now() };
    const [{ total, rows, signals, scanned }, counts, choices] = await Promise.all([queuePage(prisma, filter), queueCounts(prisma), filterChoices(prisma)]);
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
        errors,
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
      parsed.success ? status : 400,
    );
  }

  /**
   * The report page. Its decision forms carry `reviewed` when given (a form shown again with
   * its errors keeps the revision the moderator reviewed, so a later submit is still checked
   * against what they read, not against whatever the page shows now), else the current one.
   */
  async function showReport(
    req: Request,
    res: Response,
    id: string,
    status = 200,
    forms: ReportForms = {},
    conflict: string | null = null,
    reviewed: Date | null = null,
    changedSince: Date | null = null,
  ) {
    const report = await reportDetail(prisma, id);
    if (!report) throw notFoundPage('Report');
    const [nextPending, signals] = await Promise.all([nextPendingReport(prisma, id), signalsOf(prisma, [report.id])]);
    const current = currentContent(report);
    // After a refusal for a changed report: what changed between the revision the moderator
    // reviewed and the one shown now (only fields that changed; none when only a decision moved it).
    const reviewedChanges = changedSince ? diffContent(contentAt(current, report.revisions, changedSince), current).filter((f) => f.changed) : null;
    const form = (name: FormName, defaults: FormValues = {}) => forms[name] ?? { values: defaults, errors: {} };
    renderAdmin(
      req,
      res,
      'report',
      {
        title: `Report on ${report.merchant.name}`,
        section: 'reports',
        report,
        revision: (reviewed ?? report.updatedAt).toISOString(),
        nextPending,
        conflict,
        reviewedChanges,
        edits: editDiffs(current, report.revisions),
        handle: authorHandle(report.account.id),
        signals: signals.get(report.id) ?? null,
        signalLabels: SIGNAL_LABELS,
        raised,
        newAccountDays: NEW_ACCOUNT_DAYS,
        forms: {
          approve: form('approve'),
          reject: form('reject'),
          withdraw: form('withdraw', { to: 'PENDING' }),
          notes: form('notes', { notes: report.moderationNotes ?? '' }),
        },
      },
      status,
    );
  }

  /** Runs a decision; answers the page again with the error, or redirects with a message. */
  async function decide(req: Request, res: Response, name: FormName, action: (id: string, values: FormValues) => Promise<string>) {
    const id = idParam(req, 'Report');
    const values = formValues(req.body);
    try {
      const message = await action(id, values);
      if (name === 'notes') {
        setFlash(req, 'ok', message);
        res.redirect(303, `/admin/reports/${id}`);
        return;
      }
      // A decision: the confirmation names the report and links back to it; the next step is
      // the next pending report (the oldest, as the queue lists them), or the queue when none is left.
      const [heading, next] = await Promise.all([reportHeading(prisma, id), nextPendingReport(prisma, id)]);
      const subject = heading ? `the report on ${heading.merchant} with ${heading.agent}` : 'the report';
      setFlash(req, 'ok', `${message.replace('{report}', () => subject)} ${next ? 'Here is the next pending report.' : 'No pending reports are left.'}`, {
        href: `/admin/reports/${id}`,
        text: 'Open the report you decided',
      });
      res.redirect(303, next ? `/admin/reports/${next}` : '/admin/reports');
    } catch (error) {
      if (error instanceof FormError) {
        await showReport(req, res, id, 400, { [name]: { values, errors: error.errors } }, null, parseRevision(values.revision));
      } else if (error instanceof ModerationInputError) {
        await showReport(req, res, id, 400, { [name]: { values, errors: { form: error.message } } }, null, parseRevision(values.revision));
      } else if (error instanceof ReportChangedError) {
        // The page below is the report as it is now, its forms carrying the current revision;
        // what the moderator typed stays in the form.
        await showReport(
          req,
          res,
          id,
          409,
          { [name]: { values, errors: {} } },
          `This report changed since you opened it${error.revision ? ` (you reviewed revision ${error.revision.toISOString()})` : ''}: its author replaced the content, or another decision moved it. ` +
            `Your ${DECISION[name]} was not applied and the report is still ${STATUS_LABEL[error.currentStatus].toLowerCase()}. ` +
            `Below is the report as it is now, revision ${error.currentRevision.toISOString()}: review it and decide again.`,
          null,
          error.revision ?? null,
        );
      } else if (error instanceof ModerationConflictError) {
        await showReport(
          req,
          res,
          id,
          409,
          {},
          `Already moderated: this report is now ${STATUS_LABEL[error.currentStatus].toLowerCase()}. Someone else acted on it first, so your action was not applied.`,
        );
      } else if (error instanceof ReportNotFoundError) {
        throw notFoundPage('Report');
      } else {
        throw error;
      }
    }
  }

  /**
   * Approves or rejects the selected reports of a list in one step (issue 37: a burst is
   * rejected with one feedback). Each report is decided at the revision the list showed it at,
   * in its own transaction with its audit row; the others are listed back.
   */
  async function bulkDecide(req: Request, res: Response, kind: 'approve' | 'reject') {
    const values = formValues(req.body);
    const returnUrl = safeQueueReturn(values.return);
    const search = queueSearch(Object.fromEntries(new URL(returnUrl, 'http://x').searchParams));
    // Checkboxes are named ids[] (one name shared by many controls); plain ids works too. Each
    // value is "<id>@<revision>": the report and the revision the list showed it at.
    const entries = [...formList(req.body, 'ids[]'), ...formList(req.body, 'ids')];
    const selected = entries.map((entry) => {
      const at = entry.lastIndexOf('@');
      const reportId = at < 0 ? entry : entry.slice(0, at);
      return { reportId, revision: at < 0 ? null : parseRevision(entry.slice(at + 1)) };
    });
    const feedback = kind === 'reject' ? bulkRejectForm.safeParse({ feedback: values.feedback ?? '' }) : null;
    const problem =
      selected.length === 0
        ? `Select at least one report to ${kind}.`
        : selected.length > BULK_APPROVE_MAX || selected.some((s) => !UUID_PATTERN.test(s.reportId))
          ? `Select at most ${BULK_APPROVE_MAX} reports from this list.`
          : selected.some((s) => s.revision === null)
            ? 'The selection did not say which version of each report you reviewed. Here is the list as it is now: select again.'
            : feedback && !feedback.success
              ? (zodFieldErrors(feedback.error).feedback ?? 'Give the feedback the authors will read.')
              : null;
    if (problem) {
      await showQueue(req, res, search, 400, problem);
      return;
    }
    const reports = selected.map((s) => ({ reportId: s.reportId, revision: s.revision! }));
    const result =
      kind === 'approve'
        ? await approveReports(prisma, { reports, actorId: actorOf(res), now: deps.clock.now() })
        : await rejectReports(prisma, { reports, actorId: actorOf(res), feedback: feedback!.data!.feedback, now: deps.clock.now() });
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
    // The list stays the next step (what is left of it is on the page); the link opens the
    // next pending report, as after a single decision.
    const next = await nextPendingReport(prisma);
    if (!next) parts.push('No pending reports are left.');
    setFlash(
      req,
      result.alreadyModerated.length || result.changed.length || result.notFound.length ? 'error' : 'ok',
      parts.join(' '),
      next ? { href: `/admin/reports/${next}`, text: 'Open the next pending report' } : undefined,
    );
    res.redirect(303, returnUrl);
  }

  return {
    overview: (async (req, res) => {
      const [counts, oldest, recent] = await Promise.all([queueCounts(prisma), oldestPending(prisma), recentAuditEntries(prisma, 10)]);
      renderAdmin(req, res, 'index', { title: 'Moderation', section: 'overview', counts, oldest, recent, auditTargetUrl, now: deps.clock.now() });
    }) as RequestHandler,

    queue: (async (req, res) => showQueue(req, res, queueSearch(req.query as Record<string, unknown>))) as RequestHandler,

    bulkApprove: (async (req, res) => bulkDecide(req, res, 'approve')) as RequestHandler,
    bulkReject: (async (req, res) => bulkDecide(req, res, 'reject')) as RequestHandler,

    report: (async (req, res) => showReport(req, res, idParam(req, 'Report'))) as RequestHandler,

    approve: ((req, res) =>
      decide(req, res, 'approve', async (id, values) => {
        const form = formOrThrow(approveForm, values);
        await approveReport(prisma, { reportId: id, revision: form.revision, actorId: actorOf(res), feedback: form.feedback, now: deps.clock.now() });
        return 'Approved {report}: it is public now.';
      })) as RequestHandler,

    reject: ((req, res) =>
      decide(req, res, 'reject', async (id, values) => {
        const form = formOrThrow(rejectForm, values);
        await rejectReport(prisma, {
          reportId: id,
          revision: form.revision,
          actorId: actorOf(res),
          feedback: form.feedback,
          note: form.note,
          now: deps.clock.now(),
        });
        return 'Rejected {report}: its author can read your feedback.';
      })) as RequestHandler,

    withdraw: ((req, res) =>
      decide(req, res, 'withdraw', async (id, values) => {
        const form = formOrThrow(withdrawForm, values);
        await withdrawReport(prisma, {
          reportId: id,
          revision: form.revision,
          actorId: actorOf(res),
          to: form.to,
          reason: form.reason,
          note: form.note,
          now: deps.clock.now(),
        });
        return `Withdrew {report} from the directory: it is ${form.to === 'PENDING' ? 'pending again' : 'rejected'}.`;
      })) as RequestHandler,

    notes: ((req, res) =>
      decide(req, res, 'notes', async (id, values) => {
        const form = formOrThrow(notesForm, values);
        const { changed } = await saveModerationNotes(prisma, { reportId: id, actorId: actorOf(res), notes: form.notes, now: deps.clock.now() });
        return changed ? 'Private notes saved.' : 'The notes were already like this: nothing changed.';
      })) as RequestHandler,

    // Screenshots: only through this route (or the author's own), only for moderators (the
    // gate runs first), never from a static path (evidence/screenshot-response.ts).
    screenshot: (async (req, res) => {
      const id = idParam(req, 'Screenshot');
      const file = await screenshotFile(prisma, id);
      if (!file || !(await sendScreenshot(res, deps.dataDir, id, file))) throw notFoundPage('Screenshot');
    }) as RequestHandler,
  };
}

/** The report's content as it is now, in the shape of a revision's (revision-diff.ts). */
function currentContent(report: ReportDetail): VersionContent {
  return {
    capabilityResults: (report.capabilityResults ?? {}) as Record<string, unknown>,
    outcome: report.outcome,
    stage: report.stage,
    failureReason: report.failureReason,
    testedAt: report.testedAt,
    agentVersion: report.agentVersion,
    region: report.region,
    task: report.task,
    humanIntervention: report.humanIntervention,
    experience: report.experience,
  };
}

class FormError extends Error {
  constructor(readonly errors: FieldErrors) {
    super('invalid form');
  }
}

/** The form's values, or a FormError that `decide` shows beside the form. */
function formOrThrow<T extends z.ZodType>(schema: T, values: FormValues): z.infer<T> {
  const parsed = schema.safeParse(values);
  if (!parsed.success) throw new FormError(zodFieldErrors(parsed.error));
  return parsed.data;
}
