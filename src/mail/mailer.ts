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
  };
}
