// The e-mail to a report's author on every moderation decision (approved, rejected with the
// feedback, withdrawn with the reason), unless the author turned them off on "My reports"
// (accounts.notify_decisions). Sent after the decision has committed, never inside its
// transaction, and never in its way: a mail that cannot be sent is logged, and the decision
// stands. The app registers a sender per database client (registerDecisionNotices), so
// moderation.service.ts needs no mailer in its signatures; without one registered (the
// operator CLI, most tests) decisions send nothing.
import type { PrismaClient } from '../../db/client.js';
import type { Logger } from '../../logger.js';
import type { DecisionNotice, Mailer } from '../../mail/mailer.js';

/** "My reports" (reports/my-reports.pages.ts MY_REPORTS_PATH; not imported: the pages import much of the app). */
const MY_REPORTS_PATH = '/profile/reports';

export interface DecisionNoticeDeps {
  mailer: Pick<Mailer, 'sendDecisionNotice'>;
  baseUrl: string;
  logger: Pick<Logger, 'warn'>;
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
  /** Notices still being sent (tests wait for them: decisionNoticesSent). */
  inFlight: Set<Promise<void>>;
}

const registrations = new WeakMap<PrismaClient, Registration>();

/** Decisions made through `prisma` notify their authors through `deps.mailer` from now on. */
export function registerDecisionNotices(prisma: PrismaClient, deps: DecisionNoticeDeps): void {
  registrations.set(prisma, { deps, inFlight: new Set() });
}

/** Resolves when every notice started so far through `prisma` has been sent (or has failed and been logged). */
export async function decisionNoticesSent(prisma: PrismaClient): Promise<void> {
  const registration = registrations.get(prisma);
  while (registration && registration.inFlight.size > 0) await Promise.all([...registration.inFlight]);
}

/** The notice for one decision, or null when the author turned notices off (or the report is gone). */
export async function decisionNoticeFor(
  prisma: PrismaClient,
  baseUrl: string,
  decided: DecidedReport,
): Promise<{ to: string; notice: DecisionNotice } | null> {
  const report = await prisma.report.findUnique({
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
 * Sends the author's notice of a committed decision, in the background: the decision's caller
 * does not wait for the mail server, and nothing here throws.
 */
export function notifyDecision(prisma: PrismaClient, decided: DecidedReport): void {
  const registration = registrations.get(prisma);
  if (!registration) return;
  const { deps, inFlight } = registration;
  const sending = (async () => {
    const message = await decisionNoticeFor(prisma, deps.baseUrl, decided);
    if (message) await deps.mailer.sendDecisionNotice(message.to, message.notice);
  })()
    .catch((error: unknown) => deps.logger.warn({ err: error, reportId: decided.reportId }, 'the decision notice could not be sent'))
    .finally(() => inFlight.delete(sending));
  inFlight.add(sending);
}
