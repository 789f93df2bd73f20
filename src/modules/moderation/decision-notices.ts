// The e-mail to a report's author on every moderation decision (approved, rejected with the
// feedback, withdrawn with the reason), unless the author turned them off on "My reports"
// (accounts.notify_decisions). Durable: the notice is queued in the decision's own transaction
// (the mail_outbox table), so a decision that committed has its e-mail, whatever happens to the
// process afterwards; it is sent after the commit, never in the decision's way, and retried with
// growing waits while the mail server refuses it or does not answer (about a day), then kept as
// failed. The app registers a sender per database client (registerDecisionNotices), so
// moderation.service.ts needs no mailer in its signatures; without one registered (most tests)
// decisions queue nothing. The operator CLI registers one that only queues: the running
// service sends (its retry pass runs every RETRY_PASS_MS).
import type { PrismaClient } from '../../db/client.js';
import type { Prisma } from '../../generated/prisma/client.js';
import type { Clock } from '../../clock.js';
import type { Logger } from '../../logger.js';
import { sendQueued, type DecisionNotice, type Mailer } from '../../mail/mailer.js';
import { claimDueMail, mailFailed, mailSent, pruneFailedMail, queueMail } from './decision-notices.repository.js';
import { PAGE_PATHS } from '../../paths.js';

type Db = PrismaClient | Prisma.TransactionClient;

/** "My reports". */
const MY_REPORTS_PATH = PAGE_PATHS.myReports;

/** How often a running service looks for notices due for a retry (or queued by the CLI). */
const RETRY_PASS_MS = 15_000;
/** Attempts before a notice is given up on: waits of 30 s doubling to at most an hour, about a day in all. */
const MAX_ATTEMPTS = 30;
/** The wait after the n-th failed attempt. */
export const retryDelayMs = (attempts: number) => Math.min(3_600_000, 30_000 * 2 ** Math.max(0, attempts - 1));
/** A claimed notice is another sender's again after this (its sender died mid-send). */
const LEASE_MS = 5 * 60_000;
/** Notices claimed at once; the transport's pool bounds the connections they use. */
const BATCH = 20;
/** Given-up notices are kept this long for the operator, then deleted. */
const KEEP_FAILED_MS = 30 * 86_400_000;

export interface DecisionNoticeDeps {
  /** Sends what the outbox holds: decision notices, and owners' digests (claims/owner-digest.ts). */
  mailer: Pick<Mailer, 'sendDecisionNotice' | 'sendOwnerDigest'>;
  baseUrl: string;
  logger: Pick<Logger, 'warn' | 'error'>;
  /** Default: the system clock. */
  clock?: Clock;
  /** false: queue only, never send from this process (the operator CLI). Default true. */
  deliver?: boolean;
}

export interface DecidedReport {
  reportId: string;
  action: 'approve' | 'reject' | 'withdraw';
  to: 'PENDING' | 'APPROVED' | 'REJECTED';
  /** Feedback or reason, as the decision stored it for the author. */
  feedback: string | null;
}

interface Registration {
  deps: DecisionNoticeDeps;
  /** The delivery pass running now, if any, and whether another must follow it. */
  running: Promise<void> | null;
  again: boolean;
}

const registrations = new WeakMap<PrismaClient, Registration>();
const nowOf = (deps: DecisionNoticeDeps) => (deps.clock ? deps.clock.now() : new Date());

/** Decisions made through `prisma` queue (and, unless `deliver` is false, send) their authors' notices from now on. */
export function registerDecisionNotices(prisma: PrismaClient, deps: DecisionNoticeDeps): void {
  registrations.set(prisma, { deps, running: null, again: false });
}

/** Resolves when the delivery passes started so far through `prisma` are done (tests, shutdown). */
export async function decisionNoticesSent(prisma: PrismaClient): Promise<void> {
  const registration = registrations.get(prisma);
  while (registration?.running) await registration.running;
}

/** The notice for one decision, or null when the author turned notices off (or the report is gone). */
async function decisionNoticeFor(db: Db, baseUrl: string, decided: DecidedReport): Promise<{ to: string; notice: DecisionNotice } | null> {
  const report = await db.report.findUnique({
    where: { id: decided.reportId },
    select: {
      id: true,
      account: { select: { email: true, notifyDecisions: true } },
      merchant: { select: { name: true } },
      agent: { select: { name: true } },
    },
  });
  if (!report || !report.account.notifyDecisions) return null;
  const base = baseUrl.replace(/\/+$/, '');
  const decision = decided.action === 'approve' ? 'approved' : decided.action === 'reject' ? 'rejected' : 'withdrawn';
  return {
    to: report.account.email,
    notice: {
      decision,
      ...(decision === 'withdrawn' && decided.to !== 'APPROVED' ? { to: decided.to } : {}),
      merchantName: report.merchant.name,
      agentName: report.agent.name,
      feedback: decided.feedback,
      myReportsUrl: `${base}${MY_REPORTS_PATH}`,
      editUrl: `${base}/reports/${report.id}/edit`,
    },
  };
}

/**
 * Queues the author's notice of a decision, inside the decision's transaction `tx`, due at once
 * by the sender's own clock (a caller may name another moment as the decision's).
 */
export async function queueDecisionNotice(prisma: PrismaClient, tx: Db, decided: DecidedReport): Promise<void> {
  const registration = registrations.get(prisma);
  if (!registration) return;
  const message = await decisionNoticeFor(tx, registration.deps.baseUrl, decided);
  if (message) await queueMail(tx, { kind: 'decision', recipient: message.to, payload: message.notice, reportId: decided.reportId, now: nowOf(registration.deps) });
}

/** Sends what is due now and resolves when done (the retry pass; tests). */
export async function sendDueDecisionNotices(prisma: PrismaClient): Promise<void> {
  deliverSoon(prisma);
  await decisionNoticesSent(prisma);
}

/** After a decision committed: send what is due now, in the background (nothing here throws). */
export function notifyDecision(prisma: PrismaClient): void {
  deliverSoon(prisma);
}

function deliverSoon(prisma: PrismaClient): void {
  const registration = registrations.get(prisma);
  if (!registration || registration.deps.deliver === false) return;
  if (registration.running) {
    registration.again = true;
    return;
  }
  registration.running = (async () => {
    do {
      registration.again = false;
      await deliverDueNotices(prisma, registration.deps).catch((error: unknown) =>
        registration.deps.logger.error({ err: error }, 'decision notices could not be read from the outbox'),
      );
    } while (registration.again);
  })().finally(() => {
    registration.running = null;
  });
}

/** What a failure says in the log and the outbox: the mail server's code, never its text (it may quote the address). */
function failureOf(error: unknown): string {
  const e = error as { code?: unknown; responseCode?: unknown; name?: unknown };
  return [typeof e.name === 'string' ? e.name : 'Error', typeof e.code === 'string' ? e.code : null, typeof e.responseCode === 'number' ? String(e.responseCode) : null]
    .filter(Boolean)
    .join(' ');
}

/**
 * Sends every notice due now (at `deps.clock`'s time), a batch at a time: each sent one is
 * deleted; each refused one waits retryDelayMs(attempts) and is given up after MAX_ATTEMPTS.
 */
async function deliverDueNotices(prisma: PrismaClient, deps: DecisionNoticeDeps): Promise<{ sent: number; failed: number }> {
  let sent = 0;
  let failed = 0;
  for (;;) {
    const now = nowOf(deps);
    const batch = await claimDueMail(prisma, now, new Date(now.getTime() + LEASE_MS), BATCH);
    if (batch.length === 0) break;
    await Promise.all(
      batch.map(async (mail) => {
        try {
          await sendQueued(deps.mailer, mail.kind, mail.recipient, mail.payload);
          sent += 1;
          await mailSent(prisma, mail.id);
        } catch (error) {
          failed += 1;
          const failure = failureOf(error);
          const at = nowOf(deps);
          const retryAt = mail.attempts < MAX_ATTEMPTS ? new Date(at.getTime() + retryDelayMs(mail.attempts)) : null;
          await mailFailed(prisma, mail.id, { error: failure, retryAt, now: at });
          // Never the address (or the server's text, which may quote it): the report names it.
          const what = mail.kind === 'owner-digest' ? 'the owner digest' : 'the decision notice';
          if (retryAt) deps.logger.warn({ mailId: mail.id, reportId: mail.reportId, attempts: mail.attempts, retryAt, failure }, `${what} could not be sent; it will be retried`);
          else deps.logger.error({ mailId: mail.id, reportId: mail.reportId, attempts: mail.attempts, failure }, `${what} could not be sent; given up`);
        }
      }),
    );
    if (batch.length < BATCH) break;
  }
  await pruneFailedMail(prisma, new Date(nowOf(deps).getTime() - KEEP_FAILED_MS));
  return { sent, failed };
}

/**
 * The running service's retry pass: every RETRY_PASS_MS it sends the notices that are due (a
 * retry, or one queued by the operator CLI). stop() ends it and waits for the pass in flight.
 */
export function startDecisionNoticeRetries(prisma: PrismaClient, intervalMs = RETRY_PASS_MS): { stop(): Promise<void> } {
  deliverSoon(prisma);
  const timer = setInterval(() => deliverSoon(prisma), intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await decisionNoticesSent(prisma);
    },
  };
}
