// Outgoing mail behind intent-named functions. With SMTP_URL: nodemailer over SMTP. Without
// it (the embedded default): each message is written as an .eml file to DATA_DIR/outbox/,
// and sign-in links are logged, so a person running `npm start` can sign in without a server.
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Logger } from '../logger.js';

export interface Mailer {
  sendSignInLink(to: string, link: string, expiresInMinutes: number): Promise<void>;
  /** Tells a report's author what a moderator decided (modules/moderation/decision-notices.ts). */
  sendDecisionNotice(to: string, notice: DecisionNotice): Promise<void>;
  /** Tells a verified owner (or vendor) of newly approved reports (modules/claims/owner-digest.ts). */
  sendOwnerDigest(to: string, digest: OwnerDigest): Promise<void>;
}

/** A day's newly approved reports about what one account owns, as its digest tells them. */
export interface OwnerDigest {
  reports: Array<{
    /** The shop (or, for a vendor, the agent) the report is about, and the other side. */
    merchantName: string;
    agentName: string;
    /** "Blocked (furthest stage: Navigate checkout)": the report's outcome and stage, in words. */
    result: string;
    /** The report on the merchant's page, absolute. */
    url: string;
    /** Where the owner replies to it, absolute. */
    replyUrl: string;
  }>;
  /** The owner's page (claims, the digest setting), absolute. */
  ownerPageUrl: string;
}

/** One moderation decision, as its author is told about it. */
export interface DecisionNotice {
  decision: 'approved' | 'rejected' | 'withdrawn';
  /** Withdrawn only: where the report went (back to moderation, or rejected). */
  to?: 'PENDING' | 'REJECTED';
  merchantName: string;
  agentName: string;
  /** The moderator's feedback (approved, rejected) or reason (withdrawn), shown to the author. */
  feedback: string | null;
  /** The author's "My reports" page, absolute. */
  myReportsUrl: string;
  /** The report's edit form, absolute. */
  editUrl: string;
}

export interface MailerOptions {
  smtpUrl: string | undefined;
  from: string;
  dataDir: string;
  logger: Logger;
}

export const outboxDir = (dataDir: string) => path.join(dataDir, 'outbox');

function signInMessage(link: string, minutes: number) {
  return {
    subject: 'Your sign-in link for the Agent-Compatibility Directory',
    text: [
      'Use this link to sign in to the Agent-Compatibility Directory:',
      '',
      link,
      '',
      `It works once and expires in ${minutes} minutes. If you did not ask to sign in, ignore this message.`,
    ].join('\n'),
  };
}

export function decisionMessage(n: DecisionNotice) {
  const report = `your report on ${n.merchantName} (tested with ${n.agentName})`;
  const lines: string[] = [];
  let subject: string;
  if (n.decision === 'approved') {
    subject = `Your report on ${n.merchantName} is approved`;
    lines.push(`A moderator approved ${report}. It is now part of the public directory.`);
    if (n.feedback) lines.push('', 'Feedback from the moderator:', '', n.feedback);
  } else if (n.decision === 'rejected') {
    subject = `Your report on ${n.merchantName} was not approved`;
    lines.push(`A moderator did not approve ${report}, so it is not part of the directory.`, '', 'Feedback from the moderator:', '', n.feedback ?? '');
    lines.push('', `You can change the report and send it to moderation again: ${n.editUrl}`);
  } else {
    subject = `Your report on ${n.merchantName} was withdrawn from the directory`;
    lines.push(
      `A moderator withdrew ${report} from the public directory. ${
        n.to === 'PENDING' ? 'It is waiting for moderation again.' : 'It is now rejected.'
      }`,
      '',
      'The reason given:',
      '',
      n.feedback ?? '',
      '',
      `You can change the report and send it to moderation again: ${n.editUrl}`,
    );
  }
  lines.push(
    '',
    `All your reports and what the moderators decided: ${n.myReportsUrl}`,
    '',
    `You get this e-mail because you sent the report. To stop these e-mails, untick "E-mail me" on My reports: ${n.myReportsUrl}#notifications`,
  );
  return { subject, text: lines.join('\n') };
}

export function ownerDigestMessage(d: OwnerDigest) {
  const count = d.reports.length === 1 ? 'A new report' : `${d.reports.length} new reports`;
  const names = [...new Set(d.reports.map((r) => r.merchantName))];
  const subject = `${count} about ${names.length === 1 ? names[0] : `${names.length} of your listings`} in the Agent-Compatibility Directory`;
  const lines = [`Moderators approved ${d.reports.length === 1 ? 'a report' : `${d.reports.length} reports`} about what you own in the Agent-Compatibility Directory:`, ''];
  for (const r of d.reports) lines.push(`- ${r.merchantName}, tested with ${r.agentName}: ${r.result}`, `  ${r.url}`, `  Reply to it: ${r.replyUrl}`, '');
  lines.push(
    'A reply is published under the report once a moderator approves it; it never changes the report.',
    '',
    `You get this e-mail because you have a verified claim. To stop these e-mails, untick "E-mail me a daily digest" on your owner's page: ${d.ownerPageUrl}#digest`,
  );
  return { subject, text: lines.join('\n') };
}

/** The kinds of mail the outbox holds, each with the mailer function that sends it. */
export type QueuedMailKind = 'decision' | 'owner-digest';

/** Sends one message the outbox held, by its kind. */
export function sendQueued(mailer: Pick<Mailer, 'sendDecisionNotice' | 'sendOwnerDigest'>, kind: string, to: string, payload: unknown): Promise<void> {
  if (kind === 'owner-digest') return mailer.sendOwnerDigest(to, payload as OwnerDigest);
  return mailer.sendDecisionNotice(to, payload as DecisionNotice);
}

/**
 * The mail server could not take a message: refused, did not answer, or too slow. A sign-in
 * answers 503 saying so (the link was not sent); a decision notice is retried from the outbox.
 */
export class MailUnavailableError extends Error {
  override name = 'MailUnavailableError';
  readonly code: string | undefined;
  readonly responseCode: number | undefined;
  constructor(cause: unknown) {
    super('the mail server could not take the message', { cause });
    const c = cause as { code?: unknown; responseCode?: unknown };
    this.code = typeof c?.code === 'string' ? c.code : undefined;
    this.responseCode = typeof c?.responseCode === 'number' ? c.responseCode : undefined;
  }
}

/**
 * SMTP connections: pooled, so that a bulk approval of 100 reports sends its 100 notices over at
 * most SMTP_POOL_CONNECTIONS connections rather than opening one each; and bounded, so that a
 * server that is down or hangs fails a message within seconds rather than the socket defaults
 * (a sign-in waited 10 s and was told the database was resting; the CLI 37.8 s).
 */
export const SMTP_POOL_CONNECTIONS = 3;
const SMTP_TIMEOUTS = { connectionTimeout: 5_000, greetingTimeout: 5_000, socketTimeout: 15_000 } as const;
/** The longest one message may take, whatever the server does: a sign-in waits this at most. */
const MAIL_SEND_TIMEOUT_MS = 7_000;

/** Created on first use, never at import time. */
export function createMailer(options: MailerOptions): Mailer & { close(): void } {
  let transport: Transporter | undefined;
  const outbox = !options.smtpUrl;
  const getTransport = () =>
    (transport ??= options.smtpUrl
      ? nodemailer.createTransport({ url: options.smtpUrl, pool: true, maxConnections: SMTP_POOL_CONNECTIONS, maxMessages: 100, ...SMTP_TIMEOUTS })
      : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }));

  async function send(to: string, message: { subject: string; text: string }): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const info = await Promise.race([
      getTransport().sendMail({ from: options.from, to, ...message }),
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(Object.assign(new Error('the mail server did not answer in time'), { code: 'ETIMEDOUT' })), MAIL_SEND_TIMEOUT_MS);
        timer.unref();
      }),
    ])
      .catch((error: unknown) => {
        throw new MailUnavailableError(error);
      })
      .finally(() => clearTimeout(timer));
    if (outbox) {
      const dir = outboxDir(options.dataDir);
      await mkdir(dir, { recursive: true });
      const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.eml`;
      await writeFile(path.join(dir, name), (info as unknown as { message: Buffer }).message, { mode: 0o600 });
    }
  }

  return {
    async sendSignInLink(to, link, minutes) {
      await send(to, signInMessage(link, minutes));
      // Only without a mail server: the operator running it locally is the recipient.
      if (outbox) options.logger.info({ link }, 'sign-in link written to the outbox');
    },
    async sendDecisionNotice(to, notice) {
      await send(to, decisionMessage(notice));
    },
    async sendOwnerDigest(to, digest) {
      await send(to, ownerDigestMessage(digest));
    },
    close() {
      transport?.close();
      transport = undefined;
    },
  };
}
