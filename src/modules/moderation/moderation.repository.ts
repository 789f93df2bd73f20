// Report moderation's database access: conditional status transitions and private notes.
import type { Tx } from '../../db/client.js';
import type { ReportStatus } from '../../generated/prisma/enums.js';

export interface TransitionedReport {
  id: string;
  merchantId: string;
  agentId: string;
  /** The new revision (updated_at) the decision gave it. */
  updatedAt: Date;
}

export interface TransitionInput {
  reportId: string;
  from: ReportStatus;
  to: ReportStatus;
  /** The updated_at the decision was made on; null: any (only for callers that name none). */
  revision: Date | null;
  actorId: string | null;
  /** Author-visible; replaces the previous decision's feedback (null clears it). */
  feedback: string | null;
  /** Private to moderators; null keeps the notes already stored. */
  note: string | null;
  now: Date;
}

/**
 * Moves a report from `from` to `to`, or does nothing when it is not (or no longer) in
 * `from` or not (or no longer) at `revision`. The check and the write are one statement:
 * under READ COMMITTED a second transaction waiting on the same row re-checks the status and
 * updated_at after the first commits, so only one of two simultaneous moderators wins, and a
 * decision racing the author's edit (which moves updated_at in the same way) either lands on
 * the revision it names or not at all.
 * updated_at moves too: it is the automation API's If-Match version, and status and
 * feedback are part of what the author's private read returns.
 */
export async function transitionReport(tx: Tx, input: TransitionInput): Promise<TransitionedReport | null> {
  const rows = await tx.$queryRaw<Array<{ id: string; merchant_id: string; agent_id: string; updated_at: Date }>>`
    UPDATE reports
       SET status = ${input.to}::"ReportStatus",
           moderated_at = ${input.now},
           moderated_by_id = ${input.actorId}::uuid,
           moderation_feedback = ${input.feedback}::text,
           moderation_notes = COALESCE(${input.note}::text, moderation_notes),
           updated_at = greatest(${input.now}::timestamptz, updated_at + interval '1 millisecond')
     WHERE id = ${input.reportId}::uuid AND status = ${input.from}::"ReportStatus"
       AND (${input.revision}::timestamptz IS NULL OR updated_at = ${input.revision}::timestamptz)
     RETURNING id, merchant_id, agent_id, updated_at`;
  const row = rows[0];
  return row ? { id: row.id, merchantId: row.merchant_id, agentId: row.agent_id, updatedAt: row.updated_at } : null;
}

/** A report's status and revision (updated_at), or null when there is no such report. */
export async function findReportVersion(tx: Tx, reportId: string): Promise<{ status: ReportStatus; updatedAt: Date } | null> {
  return tx.report.findUnique({ where: { id: reportId }, select: { status: true, updatedAt: true } });
}

/**
 * Replaces a report's private moderator notes. Leaves updated_at alone: notes are not part of
 * what the author reads, so the automation API's If-Match version must not move.
 * Returns the previous notes, or undefined when the report does not exist.
 */
export async function replaceModerationNotes(
  tx: Tx,
  reportId: string,
  notes: string | null,
): Promise<{ previous: string | null; status: ReportStatus } | undefined> {
  const before = await tx.$queryRaw<Array<{ moderation_notes: string | null; status: ReportStatus }>>`
    SELECT moderation_notes, status FROM reports WHERE id = ${reportId}::uuid FOR UPDATE`;
  const row = before[0];
  if (!row) return undefined;
  await tx.$executeRaw`UPDATE reports SET moderation_notes = ${notes}::text WHERE id = ${reportId}::uuid`;
  return { previous: row.moderation_notes, status: row.status };
}
