// The contribution form (/reports/new), the author's edit form (/reports/:id/edit), the
// private review page and the author's screenshots. The forms use the same schema and the same
// services as the API (submitReport for POST /api/v1/reports, replaceOwnReport for its PUT);
// screenshots can only be attached here. Routes: http/routers/pages.ts.
import { unlink } from 'node:fs/promises';
import type { Request, RequestHandler, Response } from 'express';
import type { Clock } from '../../clock.js';
import type { PrismaClient } from '../../db/client.js';
import { formatDate, isoDay } from '../../dates.js';
import { notFound, Refusal } from '../../errors.js';
import { redirectWhenSaved, setPageFlash, takePageFlash, type FieldErrors, type FormValues } from '../../forms.js';
import { redirectToSignIn } from '../../web/middleware/auth.js';
import { appendRateLimitHeaders, problemOf } from '../../web/problem.js';
import {
  FAILURE_REASONS,
  FAILURE_REASON_LABELS,
  OUTCOMES,
  OUTCOME_LABELS,
  STAGES,
  STAGE_LABELS,
  TASKS,
  TASK_LABELS,
} from '../aggregation/constants.js';
import { listActiveAgents } from '../catalog/catalog.repository.js';
import { sendScreenshot } from '../evidence/screenshot-response.js';
import { deleteScreenshots, insertScreenshots } from '../evidence/screenshots.repository.js';
import {
  discardScreenshots,
  MAX_SCREENSHOTS,
  sniffImageFile,
  storeScreenshots,
  type CheckedScreenshot,
  type StoredScreenshot,
} from '../evidence/screenshots.js';
import { formErrorsOf, MESSAGES, serviceFieldMessage, summaryItems, type SummaryItem } from './form-messages.js';
import {
  adoptPending,
  discardPending,
  displayName,
  DraftLockTimeout,
  existingPending,
  pendingOf,
  setPending,
  storeDraft,
  sweepPendingNowAndThen,
  withDraftLock,
  type PendingLimits,
  type PendingScreenshot,
} from './pending-screenshots.js';
import { replaceOwnReport } from './replacement.service.js';
import { MERCHANT_CHOICES, merchantChoices, ownReport, ownScreenshotFile, type OwnReportDetail } from './report-form.repository.js';
import { EXPERIENCE_MAX_LENGTH, PRIVACY_CONDITIONS, reportSubmission } from './submission.schema.js';
import { isFutureTestDate, submitReport, type SubmissionDeps } from './submissions.service.js';
import { cacheControl } from '../../web/cache-control.js';
import { PAGE_PATHS } from '../../paths.js';

export interface ReportFormDeps extends SubmissionDeps {
  prisma: PrismaClient;
  clock: Clock;
  dataDir: string;
  /** Bounds of the pending-screenshot store (default PENDING_LIMITS). */
  pendingLimits?: PendingLimits;
}

/** Moderation states as the author reads them. */
export const STATUS_LABELS = { PENDING: 'Waiting for moderation', APPROVED: 'Approved and public', REJECTED: 'Rejected' } as const;

export const reviewPath = (id: string) => `/reports/${id}/review`;
export const editPath = (id: string) => `/reports/${id}/edit`;

const TEXT_FIELDS = ['experience', 'testedAt', 'agentVersion', 'region', 'task'] as const;

/** The form's fields as a submission body (empty choices mean "not given"). */
function bodyFromForm(form: FormValues): Record<string, unknown> {
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
function formFromReport(report: { content: OwnReportDetail['content'] }): FormValues {
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
const postedValues = (body: unknown): FormValues =>
  Object.fromEntries(Object.entries((body ?? {}) as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string'));

/** The form's message for a refusal of the submission or replacement services. */
function refusalErrors(error: Refusal, context: { editing: boolean }): { errors: FieldErrors; links: SummaryItem['links'] } {
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
    const message = serviceFieldMessage(field, fieldError.detail);
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
function extraChecks(values: FormValues, now: Date): FieldErrors {
  const errors: FieldErrors = {};
  if (!values.outcome && !TASKS.some((task) => values[`task_${task}`])) errors.results = MESSAGES.result;
  if (isFutureTestDate(values.testedAt || undefined, now)) errors.testedAt = MESSAGES.testedAtFuture;
  return errors;
}

/** Uploaded files: the acceptable ones, and what to say about the others. */
async function checkUploads(
  files: ReadonlyArray<{ path: string; size: number; originalname: string }>,
  alreadyAttached: number,
): Promise<{ accepted: Array<CheckedScreenshot & { name: string }>; error: string | null }> {
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

export function reportFormHandlers(deps: ReportFormDeps) {
  const options = {
    tasks: TASKS.map((key) => ({ key, label: TASK_LABELS[key] })),
    outcomes: OUTCOMES.map((key) => ({ key, label: OUTCOME_LABELS[key] })),
    stages: STAGES.map((key) => ({ key, label: STAGE_LABELS[key] })),
    failureReasons: FAILURE_REASONS.map((key) => ({ key, label: FAILURE_REASON_LABELS[key] })),
    privacyConditions: PRIVACY_CONDITIONS,
    experienceMax: EXPERIENCE_MAX_LENGTH,
    maxScreenshots: MAX_SCREENSHOTS,
  };

  /**
   * The merchants to offer. After a search (`searched`), a single match is chosen, and the
   * status line says what was found; focus goes to the choice (or back to the search box).
   */
  async function merchantsFor(values: FormValues, searched: boolean) {
    const q = (values.q ?? '').trim().slice(0, 100);
    const { matches, more, choices } = await merchantChoices(deps.prisma, q, values.adId);
    if (!searched || !q) return { q, merchants: choices, status: null, focus: null };
    if (matches.length === 1) values.adId = matches[0]!.id;
    const quoted = `“${q}”`;
    const status =
      matches.length === 0
        ? `No merchant matches ${quoted}. Check the spelling, or try part of the name or the website.`
        : matches.length === 1
          ? `One merchant matches ${quoted}: ${matches[0]!.name} is chosen.`
          : more
            ? `More than ${MERCHANT_CHOICES} merchants match ${quoted}: the first ${MERCHANT_CHOICES} are listed. Type more of the name to see fewer.`
            : `${matches.length} merchants match ${quoted}: choose one from the list.`;
    return { q, merchants: matches.length === 1 ? matches : choices, status, focus: matches.length === 0 ? 'q' : 'adId' };
  }

  async function renderForm(
    res: Response,
    status: number,
    view: {
      mode: 'new' | 'edit';
      values: FormValues;
      errors?: FieldErrors;
      links?: SummaryItem['links'];
      searched?: boolean;
      pending?: PendingScreenshot[];
      report?: OwnReportDetail;
      version?: string;
    },
  ): Promise<void> {
    const errors = view.errors ?? {};
    const summary = summaryItems(errors, view.links);
    const [search, agents] = await Promise.all([
      view.mode === 'new' ? merchantsFor(view.values, view.searched ?? false) : Promise.resolve(null),
      listActiveAgents(deps.prisma),
    ]);
    const title = view.mode === 'new' ? 'Report an agent test' : 'Change your report';
    cacheControl(res, 'no-store');
    res.status(status).render('pages/report-new', {
      title,
      hasErrors: summary.length > 0,
      ...options,
      mode: view.mode,
      action: view.mode === 'new' ? PAGE_PATHS.newReport : editPath(view.report!.id),
      summary,
      values: view.values,
      errors,
      q: search?.q ?? '',
      merchants: search?.merchants ?? [],
      searchStatus: search?.status ?? null,
      focus: summary.length > 0 ? null : (search?.focus ?? null),
      agents,
      pending: (view.pending ?? []).map((p) => ({ id: p.id, name: p.name, size: `${Math.max(1, Math.round(p.sizeBytes / 1024))} KB` })),
      report: view.report ?? null,
      statusLabels: STATUS_LABELS,
      version: view.version ?? '',
    });
  }

  /** The session as stored now (another request of this person may have changed it since this one began); false when it ended meanwhile. */
  const reloadSession = (req: Request) =>
    new Promise<boolean>((resolve, reject) =>
      req.session.reload((error?: unknown) => {
        if (!error) resolve(true);
        else if (error instanceof Error && error.message === 'failed to load session') resolve(false);
        else reject(error);
      }),
    );
  const saveSession = (req: Request) => new Promise<void>((resolve, reject) => req.session.save((error) => (error ? reject(error) : resolve())));

  /**
   * Runs `work` as the only change to the account's drafts, on the session as stored now; `work`
   * saves the session before it returns, so the next request of this person reads what it left
   * (express-session then has nothing left to save: no later save of a stale draft). Null when
   * the session ended meanwhile.
   */
  async function withDraft<T>(req: Request, accountId: string, work: () => Promise<T>): Promise<T | null> {
    try {
      return await withDraftLock(deps.dataDir, accountId, async () => ((await reloadSession(req)) ? work() : null));
    } catch (error) {
      if (!(error instanceof DraftLockTimeout)) throw error;
      throw new Refusal({
        kind: 'unavailable',
        code: 'service-unavailable',
        title: 'Try again in a moment',
        detail: 'Another form of yours is still being sent. Go back, and send this one again in a moment.',
        retryAfterSeconds: 5,
      });
    }
  }

  /** Drafts of sessions that ended, now and then (the sweep is cheap, and bounded to once a minute). */
  const sweepNowAndThen = (req: Request) =>
    sweepPendingNowAndThen(deps.prisma, deps.dataDir, deps.clock.now()).catch((error: unknown) =>
      req.log?.warn({ err: error }, 'sweeping pending screenshots failed'),
    );

  /** GET /reports/new: a fresh form (a draft's screenshots are dropped), or a search from a link. */
  const form: RequestHandler = async (req, res) => {
    const values: FormValues = {};
    for (const key of ['adId', 'agentId', 'q'] as const) if (typeof req.query[key] === 'string') values[key] = req.query[key];
    await sweepNowAndThen(req);
    if ((req.session.pendingScreenshots ?? []).length > 0) {
      await withDraft(req, res.locals.account!.id, async () => {
        const stale = req.session.pendingScreenshots ?? [];
        if (stale.length === 0) return;
        setPending(req.session, []);
        await saveSession(req);
        await discardPending(deps.dataDir, stale);
      });
    }
    await renderForm(res, 200, { mode: 'new', values, searched: Boolean(values.q?.trim()) });
  };

  type Outcome =
    | { kind: 'form'; status: number; errors: FieldErrors; links: SummaryItem['links']; pending: PendingScreenshot[] }
    | { kind: 'saved'; location: string };

  /** POST /reports/new: a search (the Find button, and Enter without JavaScript) or the submission. */
  const submit: RequestHandler = async (req, res) => {
    const account = res.locals.account!;
    const now = deps.clock.now();
    const values = postedValues(req.body);
    const searching = values.find !== undefined;
    const uploadError = res.locals.uploadError as string | undefined;
    const files = ((req.files as Record<string, Express.Multer.File[]> | undefined)?.screenshots ?? []).filter((f) => f.size > 0);
    await sweepNowAndThen(req);

    const outcome = await withDraft(req, account.id, async (): Promise<Outcome> => {
      // Screenshots: those kept from earlier round trips (still there: another draft of the
      // account may have made room), and the new uploads. Those not kept go at once.
      const earlier = await existingPending(deps.dataDir, pendingOf(req.session, now));
      const kept = earlier.filter((p) => values[`keep_${p.id}`] === 'on');
      await discardPending(deps.dataDir, (req.session.pendingScreenshots ?? []).filter((p) => !kept.includes(p)));
      const errors: FieldErrors = {};
      const uploads = uploadError ? { accepted: [], error: uploadError } : await checkUploads(files, kept.length);
      if (uploads.error) errors.screenshots = uploads.error;
      const lost = Object.keys(values).filter((name) => name.startsWith('keep_') && values[name] === 'on' && !kept.some((p) => `keep_${p.id}` === name));

      /** Back to the form with every answer, the new acceptable screenshots kept as pending (within the store's bounds). */
      const again = async (status: number, more: FieldErrors = {}, links: SummaryItem['links'] = []): Promise<Outcome> => {
        const draft = await storeDraft({ dataDir: deps.dataDir, accountId: account.id, keep: kept, add: uploads.accepted, now, limits: deps.pendingLimits });
        if (draft.refused) errors.screenshots ??= draft.refused;
        if (lost.length > 0) {
          const [what, pronoun] = lost.length === 1 ? ['A screenshot you kept is', 'it'] : [`${lost.length} screenshots you kept are`, 'them'];
          errors.screenshots ??= `${what} no longer attached: kept screenshots wait at most a day, and only for the form you sent last (from this or another browser). Attach ${pronoun} again.`;
        }
        const pending = [...kept, ...draft.added];
        setPending(req.session, pending);
        await saveSession(req);
        return { kind: 'form', status, errors: { ...errors, ...more }, links, pending };
      };

      if (account.suspended) return again(403, { form: 'This account is suspended and cannot contribute.' });
      if (searching) return again(200);

      const parsed = reportSubmission.safeParse(bodyFromForm(values));
      if (!parsed.success) Object.assign(errors, { ...formErrorsOf(parsed.error, values), ...errors });
      Object.assign(errors, { ...extraChecks(values, now), ...errors });
      if (!parsed.success || Object.keys(errors).length > 0) return again(400);

      // Files written or moved for the report, undone when it is not written.
      const written: { stored: StoredScreenshot[]; adopted: Awaited<ReturnType<typeof adoptPending>> | null } = { stored: [], adopted: null };
      const undoFiles = async () => {
        await written.adopted?.undo();
        await discardScreenshots(written.stored);
      };
      try {
        const result = await submitReport(deps, parsed.data, { channel: 'BROWSER', accountId: account.id, address: req.ip }, now, async (tx, report) => {
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
        return again(problem.status, more, links);
      }
    });

    if (!outcome) return redirectToSignIn(res, req.originalUrl);
    if (outcome.kind === 'saved') return res.redirect(303, outcome.location);
    await renderForm(res, outcome.status, { mode: 'new', values, errors: outcome.errors, links: outcome.links, searched: searching, pending: outcome.pending });
  };

  async function ownOr404(req: Request<{ id: string }>, res: Response): Promise<OwnReportDetail> {
    const report = await ownReport(deps.prisma, res.locals.account!.id, req.params.id);
    if (!report) throw notFound('You have no report at this address.', 'Report not found');
    return report;
  }

  /** GET /reports/:id/edit: the form, filled in as the report stands. */
  const editForm: RequestHandler<{ id: string }> = async (req, res) => {
    const report = await ownOr404(req, res);
    await renderForm(res, 200, { mode: 'edit', values: formFromReport(report), report, version: report.updatedAt.toISOString() });
  };

  /**
   * POST /reports/:id/edit: a complete replacement, as the API's PUT (the version travels in the
   * form), and the screenshots to add (new files) or remove (remove_<id> ticked), within the
   * limits of a new report. A change of screenshots alone is a change too: the report goes back
   * to moderation, since moderators see its screenshots. Files chosen do not survive a form that
   * comes back with errors (the form says so).
   */
  const saveEdit: RequestHandler<{ id: string }> = async (req, res) => {
    const account = res.locals.account!;
    const report = await ownOr404(req, res);
    const now = deps.clock.now();
    const values = postedValues(req.body);
    const version = values.version ?? '';
    const uploadError = res.locals.uploadError as string | undefined;
    const files = ((req.files as Record<string, Express.Multer.File[]> | undefined)?.screenshots ?? []).filter((f) => f.size > 0);
    const removeIds = report.evidence.filter((e) => values[`remove_${e.id}`] === 'on').map((e) => e.id);
    const uploads = uploadError ? { accepted: [], error: uploadError } : await checkUploads(files, report.evidence.length - removeIds.length);
    const chosen = files.length > 0 || Boolean(uploadError);
    const again = (status: number, errors: FieldErrors, links: SummaryItem['links'] = [], newVersion = version) =>
      renderForm(res, status, {
        mode: 'edit',
        values,
        errors: chosen && !errors.screenshots ? { ...errors, screenshots: MESSAGES.screenshotsChooseAgain } : errors,
        links,
        report,
        version: newVersion,
      });
    if (account.suspended) return again(403, { form: 'This account is suspended and cannot change its reports.' });

    const parsed = reportSubmission.safeParse(bodyFromForm({ ...values, adId: report.merchantId, agentId: report.agentId }));
    const errors: FieldErrors = { ...extraChecks(values, now), ...(parsed.success ? {} : formErrorsOf(parsed.error, values)) };
    if (uploads.error) errors.screenshots = uploads.error;
    if (!parsed.success || Object.keys(errors).length > 0) return again(400, errors);

    const named = new Date(version);
    const stored = await storeScreenshots(deps.dataDir, uploads.accepted);
    let removedFiles: string[] = [];
    try {
      const result = await replaceOwnReport(
        { prisma: deps.prisma, quota: deps.browserQuota, addressSecret: deps.addressSecret },
        { channel: 'BROWSER', accountId: account.id, address: req.ip },
        {
          id: report.id,
          version: Number.isNaN(named.getTime()) ? null : named,
          body: parsed.data,
          evidence: {
            changed: stored.length > 0 || removeIds.length > 0,
            apply: async (tx, reportId) => {
              removedFiles = await deleteScreenshots(tx, reportId, removeIds);
              await insertScreenshots(tx, reportId, stored);
            },
          },
          now,
        },
      );
      // The rows are gone with the commit: their files follow.
      await Promise.all(removedFiles.map((file) => unlink(file).catch(() => undefined)));
      if (result.usage) appendRateLimitHeaders(res, result.usage);
      const shots = [
        stored.length ? `${stored.length} screenshot${stored.length === 1 ? '' : 's'} added` : '',
        removeIds.length ? `${removeIds.length} screenshot${removeIds.length === 1 ? '' : 's'} removed` : '',
      ].filter(Boolean);
      setPageFlash(
        req.session,
        result.unchanged
          ? `Nothing changed: your answers are the same as before, so the report keeps its status (${STATUS_LABELS[result.status].toLowerCase()}).`
          : `Your changes are saved${shots.length ? ` (${shots.join(', ')})` : ''}. The report is waiting for moderation again; until a moderator approves it, it is not part of the directory.`,
      );
      await redirectWhenSaved(req, res, reviewPath(report.id));
    } catch (error) {
      await discardScreenshots(stored);
      if (!(error instanceof Refusal)) throw error;
      if (error.kind === 'not-found') throw notFound('You have no report at this address.', 'Report not found');
      const problem = problemOf(error);
      for (const [name, value] of Object.entries(problem.headers ?? {})) res.setHeader(name, value);
      if (error.init.code === 'stale-version') {
        // Saving again replaces the report as it is now: the form carries the current version.
        const current = String(error.init.extensions?.updatedAt ?? '');
        return again(
          409,
          {
            form: 'This report changed after you opened it: a moderator decided on it, or one of your agents updated it. Your answers below are not saved yet. Check the report as it is now; saving this form again replaces it with these answers.',
          },
          [{ href: reviewPath(report.id), text: 'See the report as it is now' }],
          current,
        );
      }
      const { errors: more, links } = refusalErrors(error, { editing: true });
      return again(problem.status, more, links);
    }
  };

  /** GET /reports/:id/review: the author's private page of one report. */
  const review: RequestHandler<{ id: string }> = async (req, res) => {
    const report = await ownOr404(req, res);
    const c = report.content;
    cacheControl(res, 'no-store').render('pages/report-review', {
      title: `Your report on ${report.merchant.name}`,
      pageFlash: takePageFlash(req.session),
      report,
      statusLabel: STATUS_LABELS[report.status],
      tasks: TASKS.map((key) => ({ key, label: TASK_LABELS[key], outcome: c.capabilityResults[key] ? OUTCOME_LABELS[c.capabilityResults[key]!] : null })),
      outcome: OUTCOME_LABELS[c.outcome],
      stage: c.stage ? STAGE_LABELS[c.stage] : null,
      failureReason: c.failureReason ? FAILURE_REASON_LABELS[c.failureReason] : null,
      formatDate,
      isoDay,
      editUrl: editPath(report.id),
    });
  };

  /** GET /reports/:id/screenshots/:screenshotId: the author's own screenshot. */
  const screenshot: RequestHandler<{ id: string; screenshotId: string }> = async (req, res) => {
    const file = await ownScreenshotFile(deps.prisma, res.locals.account!.id, req.params.id, req.params.screenshotId);
    if (!file || !(await sendScreenshot(res, deps.dataDir, req.params.screenshotId.toLowerCase(), file))) {
      throw notFound('You have no screenshot at this address.', 'Screenshot not found');
    }
  };

  return { form, submit, editForm, saveEdit, review, screenshot };
}
