// Submitting a report (POST /api/v1/reports and the /reports/new form): validation against
// the directory, the one-report-per-account+merchant+agent rule, and the submission quotas.
// A request that fails writes nothing; an accepted one commits whole.
import type { PrismaClient } from '../../db/client.js';
import { isUniqueViolation } from '../../db/errors.js';
import { invalidField, Refusal, type LimitUsage } from '../../errors.js';
import type { Quota } from '../limits/quota.js';
import { reportAddressHash } from './address-hash.js';
import { contentOf, sameContent, type ReportContent } from './content.js';
import type { ReportSubmission } from './submission.schema.js';
import {
  findOwnReport,
  insertReport,
  isSeenVersion,
  isActiveAgent,
  isPublicMerchant,
  type OwnReportRow,
} from './submissions.repository.js';

export type Submitter = (
  | { channel: 'BROWSER'; accountId: string }
  | { channel: 'AGENT_KEY'; accountId: string; agentId: string }
) & {
  /** The client's address (req.ip): only its keyed hash is stored, for the moderators' signals (address-hash.ts). */
  address?: string;
};

export interface SubmissionDeps {
  prisma: PrismaClient;
  baseUrl: string;
  /** Counts browser submissions (shared by the API and the form) per account. */
  browserQuota: Quota;
  /** Counts changed agent submissions (POST and PUT) per account, across keys. */
  agentQuota: Quota;
  /** Keys the hash of the submitter's address (SESSION_SECRET); without it no hash is stored. */
  addressSecret?: string;
}

export type SubmissionResult =
  /** `usage`: the quota the new report counted against (for the RateLimit headers). */
  | { kind: 'created'; report: OwnReportRow; usage: LimitUsage }
  | { kind: 'unchanged'; report: OwnReportRow };

/** Extra work committed in the same transaction as the new report (the form's screenshots). */
export type WithinTransaction = (tx: Parameters<Parameters<PrismaClient['$transaction']>[0]>[0], report: OwnReportRow) => Promise<void>;

export const reviewUrl = (baseUrl: string, id: string) => `${baseUrl}/reports/${id}/review`;

/** Test dates may run a day ahead of UTC: it is already tomorrow in some time zones. */
export function isFutureTestDate(testedAt: string | null | undefined, now: Date): boolean {
  return testedAt != null && testedAt > new Date(now.getTime() + 24 * 3600_000).toISOString().slice(0, 10);
}

function assertNotFuture(testedAt: string | null | undefined, now: Date): void {
  if (isFutureTestDate(testedAt, now)) throw invalidField('testedAt', 'must not be in the future');
}

export async function checkTargets(prisma: PrismaClient, body: ReportSubmission, submitter: Submitter): Promise<void> {
  const [merchantOk, agentOk] = await Promise.all([isPublicMerchant(prisma, body.adId), isActiveAgent(prisma, body.agentId)]);
  if (!merchantOk) throw invalidField('adId', 'no public merchant has this id', 'gone');
  if (!agentOk) throw invalidField('agentId', 'no active agent has this id', 'gone');
  if (submitter.channel === 'AGENT_KEY' && submitter.agentId !== body.agentId) {
    throw new Refusal({
      kind: 'forbidden',
      code: 'agent-mismatch',
      title: 'Agent not allowed for this key',
      detail: 'This key may only report for the agent it was issued for. Do not retry with this key.',
      errors: [{ pointer: '#/agentId', detail: 'is not the agent of this key' }],
    });
  }
}

function duplicateProblem(existing: OwnReportRow, submitter: Submitter, baseUrl: string): Refusal {
  return new Refusal({
    kind: 'conflict',
    code: 'duplicate-report',
    title: 'A different report exists',
    detail:
      submitter.channel === 'AGENT_KEY'
        ? `This account already reported this merchant for this agent with different content. Update it with PUT /api/v1/automation/reports/${existing.id} and If-Match: ${existing.updatedAt.toISOString()}.`
        : 'You already reported this merchant for this agent. See your report on its review page.',
    extensions: {
      reportId: existing.id,
      updatedAt: existing.updatedAt.toISOString(),
      reviewUrl: reviewUrl(baseUrl, existing.id),
      ...(submitter.channel === 'AGENT_KEY' ? { updateUrl: `${baseUrl}/api/v1/automation/reports/${existing.id}` } : {}),
    },
  });
}

function compare(existing: OwnReportRow, content: ReportContent, submitter: Submitter, baseUrl: string): SubmissionResult {
  if (sameContent(existing.content, content)) return { kind: 'unchanged', report: existing };
  throw duplicateProblem(existing, submitter, baseUrl);
}

/**
 * Every check a submission goes through before it writes, in the same order: the date, the
 * targets, the one-report rule (an identical report is `unchanged`, a different one a 409).
 * Reads only. `existing` is the identical report already stored, if any.
 */
async function checkSubmission(deps: Pick<SubmissionDeps, 'prisma' | 'baseUrl'>, body: ReportSubmission, submitter: Submitter, now: Date) {
  assertNotFuture(body.testedAt, now);
  await checkTargets(deps.prisma, body, submitter);
  const content = contentOf(body);
  const key = { accountId: submitter.accountId, agentId: body.agentId, merchantId: body.adId };
  const found = await findOwnReport(deps.prisma, key);
  const existing = found ? compare(found, content, submitter, deps.baseUrl).report : null;
  return { content, key, existing };
}

/**
 * What a dry run says: the report as it would be stored, what the write would do (a new report,
 * an update of an existing one, or nothing as the content is the same), and notes on how the
 * body was read.
 */
export interface ValidationResult {
  kind: 'created' | 'updated' | 'unchanged';
  content: ReportContent;
  adId: string;
  agentId: string;
  /** The report the write would leave alone (unchanged) or change (updated). */
  existing?: OwnReportRow;
  notes: string[];
}

/** How the server reads what a body left to it: a derived outcome, a version it has not seen. */
export async function readingNotes(prisma: PrismaClient, agentId: string, content: ReportContent): Promise<string[]> {
  const notes: string[] = [];
  if (!content.outcomeSupplied) notes.push(`outcome is derived from capabilityResults: ${content.outcome}.`);
  if (content.agentVersion !== null && !(await isSeenVersion(prisma, agentId, content.agentVersion))) {
    notes.push(`agentVersion "${content.agentVersion}" is new for this agent: it is accepted as given and listed once a report naming it is approved.`);
  }
  if (content.failureReason === null) notes.push('failureReason is left out: read as NONE, nothing failed.');
  return notes;
}

/**
 * POST /api/v1/reports/validate and the MCP tool validate_report: everything submitReport checks,
 * with the same refusals (400 invalid field, 403 agent-mismatch, 409 duplicate-report), and
 * nothing written: no report, no quota used (the request budgets are the caller's edge's).
 */
export async function validateSubmission(
  deps: Pick<SubmissionDeps, 'prisma' | 'baseUrl'>,
  body: ReportSubmission,
  submitter: Submitter,
  now: Date,
): Promise<ValidationResult> {
  const { content, existing } = await checkSubmission(deps, body, submitter, now);
  const notes = await readingNotes(deps.prisma, body.agentId, content);
  const target = { content, adId: body.adId, agentId: body.agentId, notes };
  return existing ? { kind: 'unchanged', ...target, existing } : { kind: 'created', ...target };
}

/**
 * The answer of a dry run, for every surface: what the submission would answer (its status and
 * whether it would be `unchanged`), and the report as it would be stored and read back (the
 * fields of spec 2.1 by name, absent ones null, the overall outcome derived when left out).
 */
export function validationView(links: { baseUrl: string }, result: ValidationResult) {
  const { content } = result;
  return {
    valid: true as const,
    wouldBe: result.kind,
    submitStatus: result.kind === 'created' ? (201 as const) : (200 as const),
    notes: result.notes,
    report: {
      adId: result.adId,
      agentId: result.agentId,
      privacy: true as const,
      capabilityResults: content.capabilityResults,
      outcome: content.outcome,
      outcomeDerived: !content.outcomeSupplied,
      stage: content.stage,
      failureReason: content.failureReason,
      humanIntervention: content.humanIntervention,
      testedAt: content.testedAt,
      agentVersion: content.agentVersion,
      region: content.region,
      task: content.task,
      experience: content.experience,
    },
    ...(result.existing
      ? {
          existingReport: {
            id: result.existing.id,
            // The status the report has now (an update would make it PENDING).
            status: result.existing.status,
            updatedAt: result.existing.updatedAt.toISOString(),
            reviewUrl: reviewUrl(links.baseUrl, result.existing.id),
          },
        }
      : {}),
  };
}

export async function submitReport(
  deps: SubmissionDeps,
  body: ReportSubmission,
  submitter: Submitter,
  now: Date,
  withinTransaction?: WithinTransaction,
): Promise<SubmissionResult> {
  const { content, key, existing } = await checkSubmission(deps, body, submitter, now);
  if (existing) return { kind: 'unchanged', report: existing };

  // Only a submission that will write counts toward its quota.
  const quota = submitter.channel === 'AGENT_KEY' ? deps.agentQuota : deps.browserQuota;
  const usage = await quota.consume(submitter.accountId);
  try {
    const report = await deps.prisma.$transaction(async (tx) => {
      const created = await insertReport(tx, { ...key, channel: submitter.channel, content, now, addressHash: reportAddressHash(deps.addressSecret, submitter.address) });
      await withinTransaction?.(tx, created);
      return created;
    });
    return { kind: 'created', report, usage };
  } catch (error) {
    await quota.refund(submitter.accountId);
    // A concurrent identical request won the unique constraint: answer as its duplicate.
    if (!isUniqueViolation(error)) throw error;
    const winner = await findOwnReport(deps.prisma, key);
    if (!winner) throw error;
    return compare(winner, content, submitter, deps.baseUrl);
  }
}
