// Signing in as a person does, through the link that the mailer sends.
import request from 'supertest';
import type { Express } from 'express';
import type { DecisionNotice, Mailer, OwnerDigest } from '../../src/mail/mailer.js';
import { TEST_BASE_URL } from './app.js';

export interface CapturedMail {
  to: string;
  link: string;
}

/** A mailer that keeps the sign-in links it was asked to send. */
export function captureMailer(): Mailer & {
  sent: CapturedMail[];
  notices: Array<{ to: string; notice: DecisionNotice }>;
  digests: Array<{ to: string; digest: OwnerDigest }>;
  lastLinkFor(to: string): string;
} {
  const sent: CapturedMail[] = [];
  const notices: Array<{ to: string; notice: DecisionNotice }> = [];
  const digests: Array<{ to: string; digest: OwnerDigest }> = [];
  return {
    sent,
    notices,
    digests,
    async sendOwnerDigest(to, digest) {
      digests.push({ to, digest });
    },
    async sendSignInLink(to, link) {
      sent.push({ to, link });
    },
    async sendDecisionNotice(to, notice) {
      notices.push({ to, notice });
    },
    lastLinkFor(to) {
      const mail = sent.filter((m) => m.to === to).at(-1);
      if (!mail) throw new Error(`no sign-in link was sent to ${to}`);
      return mail.link;
    },
  };
}

/** The hidden CSRF token of a rendered form. */
export function csrfTokenOf(html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!match) throw new Error('no CSRF token in the page');
  return match[1]!;
}

/** A cookie-keeping client signed in as `email`. */
export async function signIn(app: Express, mailer: ReturnType<typeof captureMailer>, email: string) {
  const agent = request.agent(app);
  const page = await agent.get('/sign-in').expect(200);
  await agent
    .post('/sign-in')
    .set('Origin', TEST_BASE_URL)
    .type('form')
    .send({ email, _csrf: csrfTokenOf(page.text) })
    .expect(200);
  const link = new URL(mailer.lastLinkFor(email.toLowerCase()));
  await agent.get(`${link.pathname}${link.search}`).expect(303);
  return agent;
}
