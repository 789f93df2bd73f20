// The mail outbox's rows (mail_outbox): decision e-mails queued in the decision's transaction
// (and owners' digests, queued by the upkeep), claimed by a sender, deleted once sent or
// rescheduled when the mail server refused them.
import type { PrismaClient } from '../../db/client.js';
import type { Prisma } from '../../generated/prisma/client.js';
import type { QueuedMailKind } from '../../mail/mailer.js';

type Db = PrismaClient | Prisma.TransactionClient;

export interface QueuedMail {
  id: string;
  kind: string;
  recipient: string;
  payload: unknown;
  reportId: string | null;
  attempts: number;
}

export async function queueMail(db: Db, mail: { kind: QueuedMailKind; recipient: string; payload: object; reportId?: string; now: Date }): Promise<void> {
  await db.mailOutbox.create({
    data: { kind: mail.kind, recipient: mail.recipient, payload: mail.payload, reportId: mail.reportId ?? null, nextAttemptAt: mail.now, createdAt: mail.now },
  });
}

/**
 * Takes up to `limit` due rows for this sender: each is counted as an attempt and leased until
 * `leaseUntil` (another sender, or this one after a crash, takes it again only then: a mail may
 * be sent twice, never lost). SKIP LOCKED: senders in other processes take other rows.
 */
export async function claimDueMail(db: Db, now: Date, leaseUntil: Date, limit: number): Promise<QueuedMail[]> {
  const rows = await db.$queryRaw<Array<{ id: string; kind: string; recipient: string; payload: unknown; report_id: string | null; attempts: number }>>`
    UPDATE mail_outbox o SET attempts = o.attempts + 1, next_attempt_at = ${leaseUntil}
     WHERE o.id IN (
       SELECT id FROM mail_outbox
        WHERE failed_at IS NULL AND next_attempt_at <= ${now}
        ORDER BY next_attempt_at, id
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED)
    RETURNING o.id, o.kind, o.recipient, o.payload, o.report_id, o.attempts`;
  return rows.map((r) => ({ id: r.id, kind: r.kind, recipient: r.recipient, payload: r.payload, reportId: r.report_id, attempts: r.attempts }));
}

export async function mailSent(db: Db, id: string): Promise<void> {
  await db.mailOutbox.deleteMany({ where: { id } });
}

export async function mailFailed(db: Db, id: string, failure: { error: string; retryAt: Date | null; now: Date }): Promise<void> {
  await db.mailOutbox.updateMany({
    where: { id },
    data: failure.retryAt ? { lastError: failure.error, nextAttemptAt: failure.retryAt } : { lastError: failure.error, failedAt: failure.now },
  });
}

/** Deletes the rows that were given up on before `before`. */
export async function pruneFailedMail(db: Db, before: Date): Promise<number> {
  return (await db.mailOutbox.deleteMany({ where: { failedAt: { lt: before } } })).count;
}
