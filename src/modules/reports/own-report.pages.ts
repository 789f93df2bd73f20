// The author's own report: its private review page, its screenshots, and its edit form
// (/reports/:id/edit), which shares the contribution form's page and fields
// (report-form.pages.ts) and replaces the report through the same service as the API's PUT
// (replaceOwnReport). One function per use case. Routes: http/routers/pages.ts.
import { unlink } from 'node:fs/promises';
import type { Request, RequestHandler, Response } from 'express';
import type { PrismaClient } from '../../db/client.js';
import { formatDate, isoDay } from '../../dates.js';
import { notFound, Refusal } from '../../errors.js';
import { redirectWhenSaved, setPageFlash, takePageFlash, type FieldErrors } from '../../forms.js';
import { cacheControl } from '../../web/cache-control.js';
import { appendRateLimitHeaders, problemOf } from '../../web/problem.js';
import { FAILURE_REASON_LABELS, OUTCOME_LABELS, STAGE_LABELS, TASKS, TASK_LABELS } from '../aggregation/constants.js';
import { sendScreenshot } from '../evidence/screenshot.pages.js';
import { deleteScreenshots, insertScreenshots } from '../evidence/screenshots.repository.js';
import { discardScreenshots, storeScreenshots, type StoredScreenshot } from '../evidence/screenshots.js';
import { editPath, reviewPath, STATUS_LABELS } from './author-view.js';
import { formErrorsOf, MESSAGES, type SummaryItem } from './form-messages.js';
import { replaceOwnReport, type ReplacementResult } from './replacement.service.js';
import { bodyFromForm, checkUploads, extraChecks, formFromReport, postedValues, refusalErrors, uploadedFiles } from './report-form.fields.js';
import { renderForm, type ReportFormDeps } from './report-form.pages.js';
import { ownReport, ownScreenshotFile, type OwnReportDetail } from './report-form.repository.js';
import { reportSubmission, type ReportSubmission } from './submission.schema.js';
import type { Submitter } from './submissions.service.js';

/** The signed-in account's report at this address, or a 404. */
async function ownOr404(deps: { prisma: PrismaClient }, req: Request<{ id: string }>, res: Response): Promise<OwnReportDetail> {
  const report = await ownReport(deps.prisma, res.locals.account!.id, req.params.id);
  if (!report) throw notFound('You have no report at this address.', 'Report not found');
  return report;
}

/** GET /reports/:id/edit: the form, filled in as the report stands. */
export function editReportPage(deps: ReportFormDeps): RequestHandler<{ id: string }> {
  return async (req, res) => {
    const report = await ownOr404(deps, req, res);
    await renderForm(deps, res, 200, { mode: 'edit', values: formFromReport(report), report, version: report.updatedAt.toISOString() });
  };
}

/** The replacement, with the screenshots it adds (already stored) and removes; the removed files go once it is committed. */
async function replaceWithScreenshots(
  deps: ReportFormDeps,
  submitter: Submitter,
  report: OwnReportDetail,
  change: { body: ReportSubmission; version: string; stored: StoredScreenshot[]; removeIds: string[]; now: Date },
): Promise<ReplacementResult> {
  const named = new Date(change.version);
  let removedFiles: string[] = [];
  const result = await replaceOwnReport({ prisma: deps.prisma, quota: deps.browserQuota, addressSecret: deps.addressSecret }, submitter, {
    id: report.id,
    version: Number.isNaN(named.getTime()) ? null : named,
    body: change.body,
    evidence: {
      changed: change.stored.length > 0 || change.removeIds.length > 0,
      apply: async (tx, reportId) => {
        removedFiles = await deleteScreenshots(tx, reportId, change.removeIds);
        await insertScreenshots(tx, reportId, change.stored);
      },
    },
    now: change.now,
  });
  // The rows are gone with the commit: their files follow.
  await Promise.all(removedFiles.map((file) => unlink(file).catch(() => undefined)));
  return result;
}

/** What the review page says after a save. */
function savedMessage(result: ReplacementResult, added: number, removed: number): string {
  const shots = [added ? `${added} screenshot${added === 1 ? '' : 's'} added` : '', removed ? `${removed} screenshot${removed === 1 ? '' : 's'} removed` : ''].filter(Boolean);
  return result.unchanged
    ? `Nothing changed: your answers are the same as before, so the report keeps its status (${STATUS_LABELS[result.status].toLowerCase()}).`
    : `Your changes are saved${shots.length ? ` (${shots.join(', ')})` : ''}. The report is waiting for moderation again; until a moderator approves it, it is not part of the directory.`;
}

/**
 * POST /reports/:id/edit: a complete replacement, as the API's PUT (the version travels in the
 * form), and the screenshots to add (new files) or remove (remove_<id> ticked), within the
 * limits of a new report. A change of screenshots alone is a change too: the report goes back
 * to moderation, since moderators see its screenshots. Files chosen do not survive a form that
 * comes back with errors (the form says so).
 */
export function editReportPost(deps: ReportFormDeps): RequestHandler<{ id: string }> {
  return async (req, res) => {
    const account = res.locals.account!;
    const report = await ownOr404(deps, req, res);
    const now = deps.clock.now();
    const values = postedValues(req.body);
    const version = values.version ?? '';
    const uploadError = res.locals.uploadError as string | undefined;
    const files = uploadedFiles(req);
    const removeIds = report.evidence.filter((e) => values[`remove_${e.id}`] === 'on').map((e) => e.id);
    const uploads = uploadError ? { accepted: [], error: uploadError } : await checkUploads(files, report.evidence.length - removeIds.length);
    const chosen = files.length > 0 || Boolean(uploadError);
    const again = (status: number, errors: FieldErrors, links: SummaryItem['links'] = [], newVersion = version) =>
      renderForm(deps, res, status, {
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

    const stored = await storeScreenshots(deps.dataDir, uploads.accepted);
    try {
      const submitter: Submitter = { channel: 'BROWSER', accountId: account.id, address: req.ip };
      const result = await replaceWithScreenshots(deps, submitter, report, { body: parsed.data, version, stored, removeIds, now });
      if (result.usage) appendRateLimitHeaders(res, result.usage);
      setPageFlash(req.session, savedMessage(result, stored.length, removeIds.length));
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
}

/** GET /reports/:id/review: the author's private page of one report. */
export function reportReviewPage(deps: { prisma: PrismaClient }): RequestHandler<{ id: string }> {
  return async (req, res) => {
    const report = await ownOr404(deps, req, res);
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
}

/** GET /reports/:id/screenshots/:screenshotId: the author's own screenshot. */
export function reportScreenshot(deps: { prisma: PrismaClient; dataDir: string }): RequestHandler<{ id: string; screenshotId: string }> {
  return async (req, res) => {
    const file = await ownScreenshotFile(deps.prisma, res.locals.account!.id, req.params.id, req.params.screenshotId);
    if (!file || !(await sendScreenshot(res, deps.dataDir, req.params.screenshotId.toLowerCase(), file))) {
      throw notFound('You have no screenshot at this address.', 'Screenshot not found');
    }
  };
}
