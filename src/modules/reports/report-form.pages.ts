// The contribution form (/reports/new) and the author's private review page. The form uses
// the same schema and the same submission service as POST /api/v1/reports; screenshots can
// only be attached here. Routes: http/routers/pages.ts.
import type { Request, RequestHandler, Response } from 'express';
import type { Clock } from '../../clock.js';
import type { PrismaClient } from '../../db/client.js';
import { fieldErrors, Refusal } from '../../errors.js';
import { appendRateLimitHeaders, HttpProblem, problemOf } from '../../http/problem.js';
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
import { checkScreenshots, discardScreenshots, MAX_SCREENSHOTS, storeScreenshots, type StoredScreenshot } from '../evidence/screenshots.js';
import { EXPERIENCE_MAX_LENGTH, PRIVACY_CONDITIONS, reportSubmission } from './submission.schema.js';
import { isFutureTestDate, reviewUrl, submitReport, type SubmissionDeps } from './submissions.service.js';
import { insertScreenshots } from '../evidence/screenshots.repository.js';
import { merchantChoices, ownReport } from './report-form.repository.js';

export interface ReportFormDeps extends SubmissionDeps {
  prisma: PrismaClient;
  clock: Clock;
  dataDir: string;
}

type FormValues = Record<string, string>;

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

const pointerField = (pointer: string) => {
  const [field, sub] = pointer.replace(/^#\//, '').split('/');
  return field === 'capabilityResults' && sub ? `task_${sub}` : (field ?? 'form');
};

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

  async function renderForm(req: Request, res: Response, status: number, values: FormValues, errors: Record<string, string>) {
    const q = typeof req.query.q === 'string' ? req.query.q.trim().slice(0, 100) : (values.q ?? '');
    const [merchants, agents] = await Promise.all([merchantChoices(deps.prisma, q, values.adId), listActiveAgents(deps.prisma)]);
    res.status(status).render('pages/report-new', { title: 'Report an agent test', ...options, q, merchants, agents, values, errors });
  }

  const form: RequestHandler = async (req, res) => {
    const values: FormValues = {};
    for (const key of ['adId', 'agentId'] as const) if (typeof req.query[key] === 'string') values[key] = req.query[key];
    await renderForm(req, res, 200, values, {});
  };

  const submit: RequestHandler = async (req, res) => {
    const account = res.locals.account!;
    const values = Object.fromEntries(
      Object.entries((req.body ?? {}) as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string'),
    );
    if (account.suspended) {
      await renderForm(req, res, 403, values, { form: 'This account is suspended and cannot contribute.' });
      return;
    }
    const errors: Record<string, string> = {};
    const parsed = reportSubmission.safeParse(bodyFromForm(values));
    if (!parsed.success) {
      for (const error of fieldErrors(parsed.error, 'body')) errors[pointerField(error.pointer ?? '')] ??= error.detail;
    }
    if (isFutureTestDate(values.testedAt || undefined, deps.clock.now())) errors.testedAt ??= 'must not be in the future';
    const uploadError = res.locals.uploadError as string | undefined;
    const files = ((req.files as Record<string, Express.Multer.File[]> | undefined)?.screenshots ?? []).filter((f) => f.size > 0);
    const checked = uploadError ? { ok: false as const, error: uploadError } : checkScreenshots(files);
    if (!checked.ok) errors.screenshots = checked.error;
    if (!parsed.success || !checked.ok || Object.keys(errors).length > 0) {
      await renderForm(req, res, 400, values, errors);
      return;
    }

    let stored: StoredScreenshot[] = [];
    try {
      const result = await submitReport(
        deps,
        parsed.data,
        { channel: 'BROWSER', accountId: account.id },
        deps.clock.now(),
        async (tx, report) => {
          stored = await storeScreenshots(deps.dataDir, checked.screenshots);
          await insertScreenshots(tx, report.id, stored);
        },
      );
      if (result.kind === 'created') appendRateLimitHeaders(res, result.usage);
      else await discardScreenshots(stored);
      res.redirect(303, reviewUrl('', result.report.id));
    } catch (error) {
      await discardScreenshots(stored);
      // A refusal (a duplicate, a quota, a target that went away) goes back to the form.
      if (!(error instanceof Refusal)) throw error;
      const problem = problemOf(error);
      const field = problem.errors?.[0]?.pointer;
      for (const [name, value] of Object.entries(problem.headers ?? {})) res.setHeader(name, value);
      await renderForm(req, res, problem.status, values, { [field ? pointerField(field) : 'form']: problem.detail ?? problem.title });
    }
  };

  const review: RequestHandler<{ id: string }> = async (req, res) => {
    const report = await ownReport(deps.prisma, res.locals.account!.id, req.params.id);
    if (!report) throw new HttpProblem({ status: 404, code: 'not-found', title: 'Report not found', detail: 'You have no report at this address.' });
    res.set('Cache-Control', 'no-store').render('pages/report-review', {
      title: 'Your report',
      report,
      taskLabels: TASK_LABELS,
      outcomeLabels: OUTCOME_LABELS,
      stageLabels: STAGE_LABELS,
      failureReasonLabels: FAILURE_REASON_LABELS,
      reviewUrl: reviewUrl(deps.baseUrl, report.id),
    });
  };

  return { form, submit, review };
}
