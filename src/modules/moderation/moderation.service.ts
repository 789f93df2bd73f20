// Report moderation, shared by the operator CLI and the admin pages: approve or reject a
// pending report, or withdraw an approved one. Each decision is one transaction that moves
// the status only from the expected state and only at the revision the moderator reviewed,
// writes the audit log and recomputes the merchant+agent summary, so the public directory
// changes exactly when the status does, and only ever with content a moderator has seen.
//
// A report's revision is its updatedAt, the same version the automation API calls ETag and
// If-Match: every content replacement and every decision moves it (private notes do not).
import type { PrismaClient } from '../../db/client.js';
import { parseVersion } from '../reports/versions.js';
import { Refusal } from '../../errors.js';
import type { ReportStatus } from '../../generated/prisma/enums.js';
import { evidenceChanged } from '../aggregation/evidence.js';
import { insertAuditEntry } from '../audit/audit.repository.js';
import {
  findReportVersion,
  replaceModerationNotes,
  transitionReport,
  type TransitionedReport,
} from './moderation.repository.js';
import { reportDetail, type ReportDetail } from './queue.repository.js';
import { UUID_PATTERN } from '../../text.js';
import { notifyDecision, queueDecisionNotice } from './decision-notices.js';

/** Longest feedback, note or reason accepted (the report's own free text allows 4,000). */
export const MODERATION_TEXT_MAX = 4000;

// The refusals below are Refusals (one idiom for every service); the classes give the edges
// the facts they show (the current status and revision) without parsing messages. Their codes
// are the public ones that mean the same thing: a moderator-only code would otherwise be
// listed for agents in the agent guide.

export class ReportNotFoundError extends Refusal {
  constructor(readonly reportId: string) {
    super({ kind: 'not-found', code: 'not-found', title: 'Report not found', detail: `no report with id ${reportId}` });
    this.name = 'ReportNotFoundError';
  }
}

/** The report is not in the state the action starts from: someone else moderated it first. */
export class ModerationConflictError extends Refusal {
  constructor(
    readonly reportId: string,
    readonly currentStatus: ReportStatus,
    readonly expectedStatus: ReportStatus,
    /** The report's revision now, when known. */
    readonly currentRevision?: Date,
  ) {
    super({
      kind: 'conflict',
      code: 'stale-version',
      title: expectedStatus === 'PENDING' ? 'Already moderated' : 'Not approved',
      detail:
        expectedStatus === 'PENDING'
          ? `report ${reportId} is already moderated: its status is ${currentStatus}`
          : `report ${reportId} cannot be withdrawn: its status is ${currentStatus}, not ${expectedStatus}`,
      extensions: { status: currentStatus, ...(currentRevision ? { updatedAt: currentRevision.toISOString() } : {}) },
    });
    this.name = 'ModerationConflictError';
  }
}

/**
 * The report is still in the state the decision starts from, but it is no longer the revision
 * the moderator reviewed: the author replaced its content (or another decision moved it and
 * back) since. Nothing was changed; the moderator reviews the current revision and decides again.
 */
export class ReportChangedError extends Refusal {
  constructor(
    readonly reportId: string,
    /** The revision the decision named (null: it named none, and the report moved under it). */
    readonly revision: Date | null,
    readonly currentRevision: Date,
    readonly currentStatus: ReportStatus,
  ) {
    super({
      kind: 'conflict',
      code: 'stale-version',
      title: 'The report has changed',
      detail:
        `report ${reportId} changed since ${revision ? `revision ${revision.toISOString()}, the one the decision names` : 'the decision began'}: ` +
        `its current revision is ${currentRevision.toISOString()} (status ${currentStatus}). Nothing was changed; review the current revision and decide again.`,
      extensions: { updatedAt: currentRevision.toISOString(), status: currentStatus },
    });
    this.name = 'ReportChangedError';
  }
}

/** Missing or invalid feedback, note, reason, revision or target state. */
export class ModerationInputError extends Refusal {
  constructor(message: string) {
    super({ kind: 'invalid', code: 'validation-failed', title: 'The decision is not valid', detail: message });
    this.name = 'ModerationInputError';
  }
}

/**
 * A revision as written on a form, on the command line or in an ETag: the ISO 8601 instant of
 * the report's updatedAt, quoted (as the ETag carries it) or not. Null when it is not one: a
 * typo must never match by accident, so only the full UTC form is read.
 */
export function parseRevision(value: string | undefined): Date | null {
  const text = value?.trim().replace(/^"(.*)"$/, '$1');
  return text ? parseVersion(text) : null;
}

/** A report's revision as the edges write it (and parseRevision reads it). */
export const revisionOf = (report: { updatedAt: Date }): string => report.updatedAt.toISOString();

/** Everything a moderator reviews before deciding, its revision (updatedAt) included. */
export async function reportForReview(prisma: PrismaClient, reportId: string): Promise<ReportDetail> {
  const report = UUID_PATTERN.test(reportId) ? await reportDetail(prisma, reportId.toLowerCase()) : null;
  if (!report) throw new ReportNotFoundError(reportId);
  return report;
}

export interface ModerationResult {
  id: string;
  status: ReportStatus;
  fromStatus: ReportStatus;
  /** The report's revision after the decision (a decision moves it too). */
  revision: Date;
}

/**
 * The report a decision is made on, by whom, when, and at which revision. Every edge that decides for a person (the admin pages,
 * the CLI) must pass the revision that person reviewed, and the decision is refused with
 * ReportChangedError when the report is no longer at it. Left out, the decision applies to
 * whatever the report is now: only for programmatic callers that have just written or read
 * the report themselves (tests), never for a person's decision.
 */
interface DecisionOn {
  reportId: string;
  revision?: Date;
  actorId: string | null;
  now: Date;
}

export interface ApproveInput extends DecisionOn {
  /** Shown to the author. */
  feedback?: string;
}

export interface RejectInput extends DecisionOn {
  /** Shown to the author: why the report was not published. Required. */
  feedback: string;
  /** Private to moderators. */
  note?: string;
}

export interface WithdrawInput extends DecisionOn {
  to: 'PENDING' | 'REJECTED';
  /** Shown to the author (it replaces the approval's feedback) and kept in the audit log. */
  reason: string;
  /** Private to moderators. */
  note?: string;
}

/** Trimmed text, or null when absent or blank; too long is an error. */
function optionalText(value: string | undefined, name: string): string | null {
  const text = value?.trim();
  if (!text) return null;
  if (text.length > MODERATION_TEXT_MAX) throw new ModerationInputError(`${name} must be at most ${MODERATION_TEXT_MAX} characters`);
  return text;
}

function requiredText(value: string | undefined, name: string): string {
  const text = optionalText(value, name);
  if (text === null) throw new ModerationInputError(`${name} is required`);
  return text;
}

/** What a decision does: the step, the author's feedback, the moderators' note, the audit log's reason. */
interface Step {
  action: 'approve' | 'reject' | 'withdraw';
  from: ReportStatus;
  to: ReportStatus;
  feedback: string | null;
  note: string | null;
  /** The audit log's reason column. */
  reason: string | null;
}

async function moderate(prisma: PrismaClient, on: DecisionOn, step: Step): Promise<ModerationResult> {
  const t = { reportId: on.reportId, revision: on.revision, actorId: on.actorId, now: on.now, ...step };
  // Not a UUID: no report can have this id, and PostgreSQL would reject the cast.
  if (!UUID_PATTERN.test(t.reportId)) throw new ReportNotFoundError(t.reportId);
  const result = await prisma.$transaction(async (tx) => {
    const report: TransitionedReport | null = await transitionReport(tx, {
      reportId: t.reportId,
      from: t.from,
      to: t.to,
      revision: t.revision ?? null,
      actorId: t.actorId,
      feedback: t.feedback,
      note: t.note,
      now: t.now,
    });
    if (!report) {
      // Only to explain the refusal: nothing was written, whatever the row says now.
      const current = await findReportVersion(tx, t.reportId);
      if (current === null) throw new ReportNotFoundError(t.reportId);
      if (current.status !== t.from) throw new ModerationConflictError(t.reportId, current.status, t.from, current.updatedAt);
      // In the expected state but at another revision; or (updated_at only moves forward, so
      // only without a named revision) moved away and back between the update and this read.
      throw new ReportChangedError(t.reportId, t.revision ?? null, current.updatedAt, current.status);
    }
    await insertAuditEntry(tx, {
      actorId: t.actorId,
      action: t.action,
      targetType: 'report',
      targetId: report.id,
      reportId: report.id,
      fromStatus: t.from,
      toStatus: t.to,
      reason: t.reason,
      details: t.note === null ? null : { note: t.note },
      now: t.now,
    });
    await evidenceChanged(tx, { pairs: [{ merchantId: report.merchantId, agentId: report.agentId }] }, t.now);
    // The author's e-mail is queued with the decision: it commits (or not) with it.
    await queueDecisionNotice(prisma, tx, { reportId: report.id, action: t.action, to: t.to, feedback: t.feedback });
    return { id: report.id, status: t.to, fromStatus: t.from, revision: report.updatedAt };
  });
  // Sent after the commit, in the background: a mail failure is retried and never undoes the decision.
  notifyDecision(prisma);
  return result;
}

/** PENDING -> APPROVED: the report becomes public evidence. */
export async function approveReport(prisma: PrismaClient, input: ApproveInput): Promise<ModerationResult> {
  const feedback = optionalText(input.feedback, 'feedback');
  return moderate(prisma, input, { action: 'approve', from: 'PENDING', to: 'APPROVED', feedback, note: null, reason: feedback });
}

/** PENDING -> REJECTED, with feedback that tells the author why. */
export async function rejectReport(prisma: PrismaClient, input: RejectInput): Promise<ModerationResult> {
  const feedback = requiredText(input.feedback, 'feedback');
  const note = optionalText(input.note, 'note');
  return moderate(prisma, input, { action: 'reject', from: 'PENDING', to: 'REJECTED', feedback, note, reason: feedback });
}

/** APPROVED -> PENDING (review again) or REJECTED: takes a published report off the directory. */
export async function withdrawReport(prisma: PrismaClient, input: WithdrawInput): Promise<ModerationResult> {
  if (input.to !== 'PENDING' && input.to !== 'REJECTED') {
    throw new ModerationInputError(`a withdrawn report goes to PENDING or REJECTED, not ${String(input.to)}`);
  }
  const reason = requiredText(input.reason, 'reason');
  const note = optionalText(input.note, 'note');
  return moderate(prisma, input, { action: 'withdraw', from: 'APPROVED', to: input.to, feedback: reason, note, reason });
}

/** Most reports one bulk approval takes (one queue page holds fewer). */
export const BULK_APPROVE_MAX = 100;

/** One selected report and the revision the moderator saw it at (required: a person decides). */
interface BulkSelection {
  reportId: string;
  revision: Date;
}

export interface BulkApproveInput {
  reports: readonly BulkSelection[];
  actorId: string | null;
  feedback?: string;
  now: Date;
}

/** The selected reports a bulk decision left as they are, and why. */
interface BulkLeftAlone {
  /** Moderated by someone else first (or no longer pending): left as they are. */
  alreadyModerated: Array<{ id: string; status: ReportStatus }>;
  /** Still pending, but changed since the revision selected: left pending, to be reviewed again. */
  changed: Array<{ id: string; revision: Date }>;
  notFound: string[];
}

export interface BulkApproveResult extends BulkLeftAlone {
  approved: string[];
}

/**
 * Approves each selected report at the revision it was selected at, each in its own
 * transaction (status, audit row, summary): one that someone else moderated first, or that its
 * author changed since, is reported back and does not undo the others. A report selected twice
 * counts once, at the first revision named.
 */
export async function approveReports(prisma: PrismaClient, input: BulkApproveInput): Promise<BulkApproveResult> {
  const selected = selectedOnce(input.reports);
  const feedback = optionalText(input.feedback, 'feedback') ?? undefined;
  const { done, ...rest } = await decideEach(selected, (reportId, revision) =>
    approveReport(prisma, { reportId, revision, actorId: input.actorId, feedback, now: input.now }),
  );
  return { approved: done, ...rest };
}

export interface BulkRejectInput {
  reports: readonly BulkSelection[];
  actorId: string | null;
  /** Required: every author reads why (the same feedback for each, as one decision on a burst). */
  feedback: string;
  note?: string;
  now: Date;
}

export interface BulkRejectResult extends BulkLeftAlone {
  rejected: string[];
}

/**
 * Rejects each selected report at the revision it was selected at, with one feedback (issue 37:
 * a moderator acts on a burst in one step). Each is its own transaction, as a single rejection
 * is (status, audit row, the author's notice); one that someone else moderated first, or that
 * its author changed since, is reported back and does not undo the others.
 */
export async function rejectReports(prisma: PrismaClient, input: BulkRejectInput): Promise<BulkRejectResult> {
  const feedback = requiredText(input.feedback, 'feedback');
  const selected = selectedOnce(input.reports);
  const { done, ...rest } = await decideEach(selected, (reportId, revision) =>
    rejectReport(prisma, { reportId, revision, actorId: input.actorId, feedback, note: input.note, now: input.now }),
  );
  return { rejected: done, ...rest };
}

/** The selected reports, each once at the first revision named; refused when none or too many. */
function selectedOnce(reports: readonly BulkSelection[]): Map<string, Date> {
  const selected = new Map<string, Date>();
  for (const { reportId, revision } of reports) {
    const id = reportId.trim().toLowerCase();
    if (id && !selected.has(id)) selected.set(id, revision);
  }
  if (selected.size === 0) throw new ModerationInputError('select at least one report');
  if (selected.size > BULK_APPROVE_MAX) throw new ModerationInputError(`select at most ${BULK_APPROVE_MAX} reports at once`);
  return selected;
}

/**
 * Decides each selected report in its own transaction (`decide`): one that someone else
 * moderated first, that its author changed since, or that is gone is reported back and does
 * not undo the others.
 */
async function decideEach(selected: Map<string, Date>, decide: (reportId: string, revision: Date) => Promise<unknown>) {
  const result: BulkLeftAlone & { done: string[] } = { done: [], alreadyModerated: [], changed: [], notFound: [] };
  for (const [reportId, revision] of selected) {
    try {
      await decide(reportId, revision);
      result.done.push(reportId);
    } catch (error) {
      if (error instanceof ModerationConflictError) result.alreadyModerated.push({ id: reportId, status: error.currentStatus });
      else if (error instanceof ReportChangedError) result.changed.push({ id: reportId, revision: error.currentRevision });
      else if (error instanceof ReportNotFoundError) result.notFound.push(reportId);
      else throw error;
    }
  }
  return result;
}

export interface NotesInput {
  reportId: string;
  actorId: string | null;
  /** The whole private notes text; blank clears it. */
  notes: string;
  now: Date;
}

/**
 * Replaces a report's private moderator notes (never shown to the author or the public) and
 * records the change in the audit log. The status, the feedback and the If-Match version stay.
 */
export async function saveModerationNotes(prisma: PrismaClient, input: NotesInput): Promise<{ changed: boolean }> {
  if (!UUID_PATTERN.test(input.reportId)) throw new ReportNotFoundError(input.reportId);
  const notes = optionalText(input.notes, 'notes');
  return prisma.$transaction(async (tx) => {
    const before = await replaceModerationNotes(tx, input.reportId, notes);
    if (!before) throw new ReportNotFoundError(input.reportId);
    if (before.previous === notes) return { changed: false };
    await insertAuditEntry(tx, {
      actorId: input.actorId,
      action: 'note',
      targetType: 'report',
      targetId: input.reportId,
      reportId: input.reportId,
      details: { before: before.previous, after: notes },
      now: input.now,
    });
    return { changed: true };
  });
}
