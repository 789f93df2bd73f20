// Report moderation, shared by the operator CLI and the admin pages: approve or reject a
// pending report, or withdraw an approved one. Each decision is one transaction that moves
// the status only from the expected state, writes the audit log and recomputes the
// merchant+agent summary, so the public directory changes exactly when the status does.
import type { PrismaClient } from '../../db/client.js';
import type { ReportStatus } from '../../generated/prisma/enums.js';
import { evidenceChanged } from '../aggregation/evidence.js';
import { insertAuditEntry } from '../audit/audit.repository.js';
import {
  findReportStatus,
  replaceModerationNotes,
  transitionReport,
  type TransitionedReport,
} from './moderation.repository.js';
import { UUID_PATTERN } from '../../text.js';

/** Longest feedback, note or reason accepted (the report's own free text allows 4,000). */
export const MODERATION_TEXT_MAX = 4000;

export class ReportNotFoundError extends Error {
  readonly code = 'report-not-found';
  constructor(readonly reportId: string) {
    super(`no report with id ${reportId}`);
    this.name = 'ReportNotFoundError';
  }
}

/** The report is not in the state the action starts from: someone else moderated it first. */
export class ModerationConflictError extends Error {
  readonly code = 'already-moderated';
  constructor(
    readonly reportId: string,
    readonly currentStatus: ReportStatus,
    readonly expectedStatus: ReportStatus,
  ) {
    super(
      expectedStatus === 'PENDING'
        ? `report ${reportId} is already moderated: its status is ${currentStatus}`
        : `report ${reportId} cannot be withdrawn: its status is ${currentStatus}, not ${expectedStatus}`,
    );
    this.name = 'ModerationConflictError';
  }
}

/** Missing or invalid feedback, note, reason or target state. */
export class ModerationInputError extends Error {
  readonly code = 'invalid-moderation-input';
  constructor(message: string) {
    super(message);
    this.name = 'ModerationInputError';
  }
}

export interface ModerationResult {
  id: string;
  status: ReportStatus;
  fromStatus: ReportStatus;
}

export interface ApproveInput {
  reportId: string;
  actorId: string | null;
  /** Shown to the author. */
  feedback?: string;
  now: Date;
}

export interface RejectInput {
  reportId: string;
  actorId: string | null;
  /** Shown to the author: why the report was not published. Required. */
  feedback: string;
  /** Private to moderators. */
  note?: string;
  now: Date;
}

export interface WithdrawInput {
  reportId: string;
  actorId: string | null;
  to: 'PENDING' | 'REJECTED';
  /** Shown to the author (it replaces the approval's feedback) and kept in the audit log. */
  reason: string;
  /** Private to moderators. */
  note?: string;
  now: Date;
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

interface Transition {
  action: 'approve' | 'reject' | 'withdraw';
  reportId: string;
  actorId: string | null;
  from: ReportStatus;
  to: ReportStatus;
  feedback: string | null;
  note: string | null;
  /** The audit log's reason column. */
  reason: string | null;
  now: Date;
}

async function moderate(prisma: PrismaClient, t: Transition): Promise<ModerationResult> {
  // Not a UUID: no report can have this id, and PostgreSQL would reject the cast.
  if (!UUID_PATTERN.test(t.reportId)) throw new ReportNotFoundError(t.reportId);
  return prisma.$transaction(async (tx) => {
    const report: TransitionedReport | null = await transitionReport(tx, {
      reportId: t.reportId,
      from: t.from,
      to: t.to,
      actorId: t.actorId,
      feedback: t.feedback,
      note: t.note,
      now: t.now,
    });
    if (!report) {
      const current = await findReportStatus(tx, t.reportId);
      if (current === null) throw new ReportNotFoundError(t.reportId);
      throw new ModerationConflictError(t.reportId, current, t.from);
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
    return { id: report.id, status: t.to, fromStatus: t.from };
  });
}

/** PENDING -> APPROVED: the report becomes public evidence. */
export async function approveReport(prisma: PrismaClient, input: ApproveInput): Promise<ModerationResult> {
  const feedback = optionalText(input.feedback, 'feedback');
  return moderate(prisma, {
    action: 'approve',
    reportId: input.reportId,
    actorId: input.actorId,
    from: 'PENDING',
    to: 'APPROVED',
    feedback,
    note: null,
    reason: feedback,
    now: input.now,
  });
}

/** PENDING -> REJECTED, with feedback that tells the author why. */
export async function rejectReport(prisma: PrismaClient, input: RejectInput): Promise<ModerationResult> {
  const feedback = requiredText(input.feedback, 'feedback');
  return moderate(prisma, {
    action: 'reject',
    reportId: input.reportId,
    actorId: input.actorId,
    from: 'PENDING',
    to: 'REJECTED',
    feedback,
    note: optionalText(input.note, 'note'),
    reason: feedback,
    now: input.now,
  });
}

/** APPROVED -> PENDING (review again) or REJECTED: takes a published report off the directory. */
export async function withdrawReport(prisma: PrismaClient, input: WithdrawInput): Promise<ModerationResult> {
  if (input.to !== 'PENDING' && input.to !== 'REJECTED') {
    throw new ModerationInputError(`a withdrawn report goes to PENDING or REJECTED, not ${String(input.to)}`);
  }
  const reason = requiredText(input.reason, 'reason');
  return moderate(prisma, {
    action: 'withdraw',
    reportId: input.reportId,
    actorId: input.actorId,
    from: 'APPROVED',
    to: input.to,
    feedback: reason,
    note: optionalText(input.note, 'note'),
    reason,
    now: input.now,
  });
}

/** Most reports one bulk approval takes (one queue page holds fewer). */
export const BULK_APPROVE_MAX = 100;

export interface BulkApproveInput {
  reportIds: readonly string[];
  actorId: string | null;
  feedback?: string;
  now: Date;
}

export interface BulkApproveResult {
  approved: string[];
  /** Moderated by someone else first (or no longer pending): left as they are. */
  alreadyModerated: Array<{ id: string; status: ReportStatus }>;
  notFound: string[];
}

/**
 * Approves each selected report, each in its own transaction (status, audit row, summary):
 * one that someone else moderated first is reported back and does not undo the others.
 */
export async function approveReports(prisma: PrismaClient, input: BulkApproveInput): Promise<BulkApproveResult> {
  const ids = [...new Set(input.reportIds.map((id) => id.trim().toLowerCase()).filter(Boolean))];
  if (ids.length === 0) throw new ModerationInputError('select at least one report');
  if (ids.length > BULK_APPROVE_MAX) throw new ModerationInputError(`select at most ${BULK_APPROVE_MAX} reports at once`);
  const feedback = optionalText(input.feedback, 'feedback') ?? undefined;
  const result: BulkApproveResult = { approved: [], alreadyModerated: [], notFound: [] };
  for (const reportId of ids) {
    try {
      await approveReport(prisma, { reportId, actorId: input.actorId, feedback, now: input.now });
      result.approved.push(reportId);
    } catch (error) {
      if (error instanceof ModerationConflictError) result.alreadyModerated.push({ id: reportId, status: error.currentStatus });
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
