// The contribution form (/reports/new), which is also the merchant search without JavaScript.
// It uses the same schema and the same service as the API (submitReport for POST
// /api/v1/reports); screenshots can only be attached here, and a form that comes back keeps
// them as its draft (pending-screenshots.ts). The author's edit form shares its page and fields
// (own-report.pages.ts). One function per use case. Routes: http/routers/pages.ts.
import type { Request, RequestHandler, Response } from 'express';
import type { Clock } from '../../clock.js';
import type { PrismaClient } from '../../db/client.js';
import { Refusal } from '../../errors.js';
import { setPageFlash, type FieldErrors, type FormValues } from '../../forms.js';
import { redirectToSignIn } from '../../web/middleware/auth.js';
import { cacheControl } from '../../web/cache-control.js';
import { appendRateLimitHeaders, problemOf } from '../../web/problem.js';
import { insertScreenshots } from '../evidence/screenshots.repository.js';
import { discardScreenshots, storeScreenshots, type StoredScreenshot } from '../evidence/screenshots.js';
import { reviewPath } from './author-view.js';
import { saveSession, sweepNowAndThen, withDraft } from './draft-session.js';
import { formErrorsOf, type SummaryItem } from './form-messages.js';
import {
  adoptPending,
  discardPending,
  existingPending,
  pendingOf,
  setPending,
  storeDraft,
  type PendingLimits,
  type PendingScreenshot,
} from './pending-screenshots.js';
import { bodyFromForm, checkUploads, extraChecks, postedValues, refusalErrors, uploadedFiles, type CheckedUploads } from './report-form.fields.js';
import { formLocals, type FormView } from './report-form.view.js';
import { reportSubmission, type ReportSubmission } from './submission.schema.js';
import { submitReport, type SubmissionDeps } from './submissions.service.js';

export interface ReportFormDeps extends SubmissionDeps {
  prisma: PrismaClient;
  clock: Clock;
  dataDir: string;
  /** Bounds of the pending-screenshot store (default PENDING_LIMITS). */
  pendingLimits?: PendingLimits;
}

/** The form's page (new or edit), never stored by a cache. */
export async function renderForm(deps: ReportFormDeps, res: Response, status: number, view: FormView): Promise<void> {
  const locals = await formLocals(deps.prisma, view);
  cacheControl(res, 'no-store');
  res.status(status).render('pages/report-new', locals);
}

/** GET /reports/new: a fresh form (a draft's screenshots are dropped), or a search from a link. */
export function newReportPage(deps: ReportFormDeps): RequestHandler {
  return async (req, res) => {
    const values: FormValues = {};
    for (const key of ['adId', 'agentId', 'q'] as const) if (typeof req.query[key] === 'string') values[key] = req.query[key];
    await sweepNowAndThen(deps, req);
    if ((req.session.pendingScreenshots ?? []).length > 0) {
      await withDraft(deps.dataDir, req, res.locals.account!.id, async () => {
        const stale = req.session.pendingScreenshots ?? [];
        if (stale.length === 0) return;
        setPending(req.session, []);
        await saveSession(req);
        await discardPending(deps.dataDir, stale);
      });
    }
    await renderForm(deps, res, 200, { mode: 'new', values, searched: Boolean(values.q?.trim()) });
  };
}

/** One sending of the new-report form, under the account's draft lock. */
interface Sending {
  deps: ReportFormDeps;
  req: Request;
  res: Response;
  accountId: string;
  now: Date;
  /** The draft's screenshots kept from earlier round trips. */
  kept: PendingScreenshot[];
  uploads: CheckedUploads;
  /** The keep_ boxes ticked for screenshots no longer there. */
  lost: string[];
  /** What the form will say: filled on the way. */
  errors: FieldErrors;
}

type Outcome =
  | { kind: 'form'; status: number; errors: FieldErrors; links: SummaryItem['links']; pending: PendingScreenshot[] }
  | { kind: 'saved'; location: string };

/**
 * Screenshots: those kept from earlier round trips (still there: another draft of the account
 * may have made room), and the new uploads. Those not kept go at once.
 */
async function openSending(deps: ReportFormDeps, req: Request, res: Response, values: FormValues, now: Date): Promise<Sending> {
  const uploadError = res.locals.uploadError as string | undefined;
  const files = uploadedFiles(req);
  const earlier = await existingPending(deps.dataDir, pendingOf(req.session, now));
  const kept = earlier.filter((p) => values[`keep_${p.id}`] === 'on');
  await discardPending(deps.dataDir, (req.session.pendingScreenshots ?? []).filter((p) => !kept.includes(p)));
  const errors: FieldErrors = {};
  const uploads: CheckedUploads = uploadError ? { accepted: [], error: uploadError } : await checkUploads(files, kept.length);
  if (uploads.error) errors.screenshots = uploads.error;
  const lost = Object.keys(values).filter((name) => name.startsWith('keep_') && values[name] === 'on' && !kept.some((p) => `keep_${p.id}` === name));
  return { deps, req, res, accountId: res.locals.account!.id, now, kept, uploads, lost, errors };
}

/** Back to the form with every answer, the new acceptable screenshots kept as pending (within the store's bounds). */
async function backToForm(sending: Sending, status: number, more: FieldErrors = {}, links: SummaryItem['links'] = []): Promise<Outcome> {
  const { deps, req, kept, lost, errors } = sending;
  const draft = await storeDraft({ dataDir: deps.dataDir, accountId: sending.accountId, keep: kept, add: sending.uploads.accepted, now: sending.now, limits: deps.pendingLimits });
  if (draft.refused) errors.screenshots ??= draft.refused;
  if (lost.length > 0) {
    const [what, pronoun] = lost.length === 1 ? ['A screenshot you kept is', 'it'] : [`${lost.length} screenshots you kept are`, 'them'];
    errors.screenshots ??= `${what} no longer attached: kept screenshots wait at most a day, and only for the form you sent last (from this or another browser). Attach ${pronoun} again.`;
  }
  const pending = [...kept, ...draft.added];
  setPending(req.session, pending);
  await saveSession(req);
  return { kind: 'form', status, errors: { ...errors, ...more }, links, pending };
}

/** The report, written with its screenshots (or found already sent, without them); a refusal goes back to the form. */
async function sendReport(sending: Sending, body: ReportSubmission): Promise<Outcome> {
  const { deps, req, res, kept, uploads } = sending;
  // Files written or moved for the report, undone when it is not written.
  const written: { stored: StoredScreenshot[]; adopted: Awaited<ReturnType<typeof adoptPending>> | null } = { stored: [], adopted: null };
  const undoFiles = async () => {
    await written.adopted?.undo();
    await discardScreenshots(written.stored);
  };
  try {
    const result = await submitReport(deps, body, { channel: 'BROWSER', accountId: sending.accountId, address: req.ip }, sending.now, async (tx, report) => {
      written.adopted = await adoptPending(deps.dataDir, kept);
      written.stored = await storeScreenshots(deps.dataDir, uploads.accepted);
      await insertScreenshots(tx, report.id, [...written.adopted.stored, ...written.stored]);
    });
    if (result.kind === 'created') {
      appendRateLimitHeaders(res, result.usage);
      setPageFlash(req.session, 'Thank you: your report is sent. A moderator checks it before it appears in the directory; this page shows its status.');
    } else {
      // An identical report exists: nothing was written, and screenshots go only with a new report.
      await undoFiles();
      await discardPending(deps.dataDir, kept);
      const attached = kept.length + uploads.accepted.length > 0;
      setPageFlash(
        req.session,
        `You had already sent exactly this report: nothing changed, and it keeps its status.${attached ? ' The screenshots you attached now were not added.' : ''}`,
      );
    }
    setPending(req.session, []);
    // Saved before the redirect: the review page reads the message (forms.ts, redirectWhenSaved).
    await saveSession(req);
    return { kind: 'saved', location: reviewPath(result.report.id) };
  } catch (error) {
    await undoFiles();
    // A refusal (a duplicate, a quota, a target that went away) goes back to the form.
    if (!(error instanceof Refusal)) throw error;
    const problem = problemOf(error);
    for (const [name, value] of Object.entries(problem.headers ?? {})) res.setHeader(name, value);
    const { errors: more, links } = refusalErrors(error, { editing: false });
    return backToForm(sending, problem.status, more, links);
  }
}

/** POST /reports/new: a search (the Find button, and Enter without JavaScript) or the submission. */
export function newReportPost(deps: ReportFormDeps): RequestHandler {
  return async (req, res) => {
    const account = res.locals.account!;
    const now = deps.clock.now();
    const values = postedValues(req.body);
    const searching = values.find !== undefined;
    await sweepNowAndThen(deps, req);

    const outcome = await withDraft(deps.dataDir, req, account.id, async (): Promise<Outcome> => {
      const sending = await openSending(deps, req, res, values, now);
      if (account.suspended) return backToForm(sending, 403, { form: 'This account is suspended and cannot contribute.' });
      if (searching) return backToForm(sending, 200);

      const { errors } = sending;
      const parsed = reportSubmission.safeParse(bodyFromForm(values));
      if (!parsed.success) Object.assign(errors, { ...formErrorsOf(parsed.error, values), ...errors });
      Object.assign(errors, { ...extraChecks(values, now), ...errors });
      if (!parsed.success || Object.keys(errors).length > 0) return backToForm(sending, 400);
      return sendReport(sending, parsed.data);
    });

    if (!outcome) return redirectToSignIn(res, req.originalUrl);
    if (outcome.kind === 'saved') return res.redirect(303, outcome.location);
    await renderForm(deps, res, outcome.status, { mode: 'new', values, errors: outcome.errors, links: outcome.links, searched: searching, pending: outcome.pending });
  };
}
