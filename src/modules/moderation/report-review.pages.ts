// A report's page for moderators: its full private detail, the decisions (approve, reject,
// withdraw) and private notes. Decisions go through the moderation service: one transaction each
// with the audit row and the summary recompute, so the public API changes with the status.
// Every decision form carries the revision of the report it showed (a hidden field): a decision
// on a report changed since is refused and the page shows the current revision to review.
// Routes: http/routers/admin.ts.
import type { Request, RequestHandler, Response } from 'express';
import type { z } from 'zod';
import { formInput, type FieldErrors, type FormValues } from '../../forms.js';
import { actorOf, formValues, idParam, notFoundPage, renderAdmin, setFlash } from '../../web/admin-pages.js';
import {
  approveReport,
  ModerationConflictError,
  ModerationInputError,
  parseRevision,
  rejectReport,
  ReportChangedError,
  ReportNotFoundError,
  saveModerationNotes,
  withdrawReport,
} from './moderation.service.js';
import { nextPendingReport, reportDetail, reportHeading, type ReportDetail } from './queue.repository.js';
import { authorHandle } from './author-handle.js';
import { NEW_ACCOUNT_DAYS, raised, SIGNAL_LABELS } from './signals.js';
import { signalsOf } from './signals.repository.js';
import { contentAt, diffContent, editDiffs, type VersionContent } from './revision-diff.js';
import { approveForm, formRefusalErrors, notesForm, rejectForm, withdrawForm } from './moderation.schemas.js';
import { STATUS_LABEL, type ModerationDeps } from './moderation.pages.js';

type FormName = 'approve' | 'reject' | 'withdraw' | 'notes';
const DECISION: Record<FormName, string> = { approve: 'approval', reject: 'rejection', withdraw: 'withdrawal', notes: 'change' };
type ReportForms = Partial<Record<FormName, { values: FormValues; errors: FieldErrors }>>;

/** How a report page answers beyond the report: after a refused form, with what it says. */
interface ReportPageState {
  status?: number;
  /** The forms shown again, with what was typed and their errors. */
  forms?: ReportForms;
  /** Why the decision was not applied (the report moved under it). */
  conflict?: string | null;
  /** The revision the moderator reviewed, which the decision forms carry instead of the current one. */
  reviewed?: Date | null;
  /** After a refusal for a changed report: the revision reviewed, to show what changed since. */
  changedSince?: Date | null;
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

/**
 * The report page. Its decision forms carry `reviewed` when given (a form shown again with
 * its errors keeps the revision the moderator reviewed, so a later submit is still checked
 * against what they read, not against whatever the page shows now), else the current one.
 */
async function showReport(deps: ModerationDeps, req: Request, res: Response, id: string, state: ReportPageState = {}) {
  const { status = 200, forms = {}, conflict = null, reviewed = null, changedSince = null } = state;
  const report = await reportDetail(deps.prisma, id);
  if (!report) throw notFoundPage('Report');
  const [nextPending, signals] = await Promise.all([nextPendingReport(deps.prisma, id), signalsOf(deps.prisma, [report.id])]);
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

/** GET /admin/reports/:id: one report, its full private detail, its edits and signals, and the decision forms. */
export function reportShow(deps: ModerationDeps): RequestHandler {
  return async (req, res) => showReport(deps, req, res, idParam(req, 'Report'));
}

/**
 * After a decision: the confirmation names the report and links back to it; the next step is
 * the next pending report (the oldest, as the queue lists them), or the queue when none is left.
 */
async function decided(deps: ModerationDeps, req: Request, res: Response, id: string, message: string) {
  const [heading, next] = await Promise.all([reportHeading(deps.prisma, id), nextPendingReport(deps.prisma, id)]);
  const subject = heading ? `the report on ${heading.merchant} with ${heading.agent}` : 'the report';
  setFlash(req, 'ok', `${message.replace('{report}', () => subject)} ${next ? 'Here is the next pending report.' : 'No pending reports are left.'}`, {
    href: `/admin/reports/${id}`,
    text: 'Open the report you decided',
  });
  res.redirect(303, next ? `/admin/reports/${next}` : '/admin/reports');
}

/**
 * Reads the form `name` with `schema` and runs the decision on it; answers the page again with
 * the form's errors or the conflict, or redirects with the message `action` returns.
 */
async function decide<S extends z.ZodType>(
  deps: ModerationDeps,
  req: Request,
  res: Response,
  name: FormName,
  schema: S,
  action: (id: string, form: z.output<S>) => Promise<string>,
) {
  const id = idParam(req, 'Report');
  const values = formValues(req.body);
  try {
    const message = await action(id, formInput(schema, values));
    if (name === 'notes') {
      setFlash(req, 'ok', message);
      res.redirect(303, `/admin/reports/${id}`);
      return;
    }
    await decided(deps, req, res, id, message);
  } catch (error) {
    const errors = formRefusalErrors(error) ?? (error instanceof ModerationInputError ? { form: error.message } : null);
    if (errors) {
      await showReport(deps, req, res, id, { status: 400, forms: { [name]: { values, errors } }, reviewed: parseRevision(values.revision) });
    } else if (error instanceof ReportChangedError) {
      // The page below is the report as it is now, its forms carrying the current revision;
      // what the moderator typed stays in the form.
      await showReport(deps, req, res, id, {
        status: 409,
        forms: { [name]: { values, errors: {} } },
        conflict:
          `This report changed since you opened it${error.revision ? ` (you reviewed revision ${error.revision.toISOString()})` : ''}: its author replaced the content, or another decision moved it. ` +
          `Your ${DECISION[name]} was not applied and the report is still ${STATUS_LABEL[error.currentStatus].toLowerCase()}. ` +
          `Below is the report as it is now, revision ${error.currentRevision.toISOString()}: review it and decide again.`,
        changedSince: error.revision ?? null,
      });
    } else if (error instanceof ModerationConflictError) {
      await showReport(deps, req, res, id, {
        status: 409,
        conflict: `Already moderated: this report is now ${STATUS_LABEL[error.currentStatus].toLowerCase()}. Someone else acted on it first, so your action was not applied.`,
      });
    } else if (error instanceof ReportNotFoundError) {
      throw notFoundPage('Report');
    } else {
      throw error;
    }
  }
}

/** POST /admin/reports/:id/approve: approves the report at the revision reviewed, with optional feedback. */
export function reportApprove(deps: ModerationDeps): RequestHandler {
  return async (req, res) =>
    decide(deps, req, res, 'approve', approveForm, async (id, form) => {
      await approveReport(deps.prisma, { reportId: id, revision: form.revision, actorId: actorOf(res), feedback: form.feedback, now: deps.clock.now() });
      return 'Approved {report}: it is public now.';
    });
}

/** POST /admin/reports/:id/reject: rejects the report at the revision reviewed, with the feedback its author reads. */
export function reportReject(deps: ModerationDeps): RequestHandler {
  return async (req, res) =>
    decide(deps, req, res, 'reject', rejectForm, async (id, form) => {
      const { revision, feedback, note } = form;
      await rejectReport(deps.prisma, { reportId: id, revision, actorId: actorOf(res), feedback, note, now: deps.clock.now() });
      return 'Rejected {report}: its author can read your feedback.';
    });
}

/** POST /admin/reports/:id/withdraw: takes an approved report out of the directory, back to pending or rejected. */
export function reportWithdraw(deps: ModerationDeps): RequestHandler {
  return async (req, res) =>
    decide(deps, req, res, 'withdraw', withdrawForm, async (id, form) => {
      const { revision, to, reason, note } = form;
      await withdrawReport(deps.prisma, { reportId: id, revision, actorId: actorOf(res), to, reason, note, now: deps.clock.now() });
      return `Withdrew {report} from the directory: it is ${form.to === 'PENDING' ? 'pending again' : 'rejected'}.`;
    });
}

/** POST /admin/reports/:id/notes: saves the moderators' private notes on the report. */
export function reportNotes(deps: ModerationDeps): RequestHandler {
  return async (req, res) =>
    decide(deps, req, res, 'notes', notesForm, async (id, form) => {
      const { changed } = await saveModerationNotes(deps.prisma, { reportId: id, actorId: actorOf(res), notes: form.notes, now: deps.clock.now() });
      return changed ? 'Private notes saved.' : 'The notes were already like this: nothing changed.';
    });
}
