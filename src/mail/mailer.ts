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

/** Created on first use, never at import time. */
export function createMailer(options: MailerOptions): Mailer {
  let transport: Transporter | undefined;
  const outbox = !options.smtpUrl;
  const getTransport = () =>
    (transport ??= options.smtpUrl
      ? nodemailer.createTransport(options.smtpUrl)
      : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }));

  async function send(to: string, message: { subject: string; text: string }): Promise<void> {
    const info = await getTransport().sendMail({ from: options.from, to, ...message });
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
  };
}
