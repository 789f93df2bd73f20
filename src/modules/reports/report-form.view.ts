// The contribution form's page, new and edit (template pages/report-new): the choices it
// offers, the merchant search, and everything the template reads.
import type { PrismaClient } from '../../db/client.js';
import type { FieldErrors, FormValues } from '../../forms.js';
import { PAGE_PATHS } from '../../paths.js';
import { FAILURE_REASONS, FAILURE_REASON_LABELS, OUTCOMES, OUTCOME_LABELS, STAGES, STAGE_LABELS, TASKS, TASK_LABELS } from '../aggregation/constants.js';
import { listActiveAgents } from '../catalog/catalog.repository.js';
import { MAX_SCREENSHOTS } from '../evidence/screenshots.js';
import { editPath, STATUS_LABELS } from './author-view.js';
import { summaryItems, type SummaryItem } from './form-messages.js';
import type { PendingScreenshot } from './pending-screenshots.js';
import { MERCHANT_CHOICES, merchantChoices, type OwnReportDetail } from './report-form.repository.js';
import { EXPERIENCE_MAX_LENGTH, PRIVACY_CONDITIONS } from './submission.schema.js';

const OPTIONS = {
  tasks: TASKS.map((key) => ({ key, label: TASK_LABELS[key] })),
  outcomes: OUTCOMES.map((key) => ({ key, label: OUTCOME_LABELS[key] })),
  stages: STAGES.map((key) => ({ key, label: STAGE_LABELS[key] })),
  failureReasons: FAILURE_REASONS.map((key) => ({ key, label: FAILURE_REASON_LABELS[key] })),
  privacyConditions: PRIVACY_CONDITIONS,
  experienceMax: EXPERIENCE_MAX_LENGTH,
  maxScreenshots: MAX_SCREENSHOTS,
};

/** One showing of the form: which form, the answers, and what to say about them. */
export interface FormView {
  mode: 'new' | 'edit';
  values: FormValues;
  errors?: FieldErrors;
  links?: SummaryItem['links'];
  searched?: boolean;
  pending?: PendingScreenshot[];
  report?: OwnReportDetail;
  version?: string;
}

/**
 * The merchants to offer. After a search (`searched`), a single match is chosen, and the
 * status line says what was found; focus goes to the choice (or back to the search box).
 */
async function merchantsFor(prisma: PrismaClient, values: FormValues, searched: boolean) {
  const q = (values.q ?? '').trim().slice(0, 100);
  const { matches, more, choices } = await merchantChoices(prisma, q, values.adId);
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

/** What the form's template reads. */
export async function formLocals(prisma: PrismaClient, view: FormView) {
  const errors = view.errors ?? {};
  const summary = summaryItems(errors, view.links);
  const [search, agents] = await Promise.all([
    view.mode === 'new' ? merchantsFor(prisma, view.values, view.searched ?? false) : Promise.resolve(null),
    listActiveAgents(prisma),
  ]);
  return {
    title: view.mode === 'new' ? 'Report an agent test' : 'Change your report',
    hasErrors: summary.length > 0,
    ...OPTIONS,
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
  };
}
