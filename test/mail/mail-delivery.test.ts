// Mail as it behaves when the mail server does not (issue 33, defects 6 and 7), against a real
// SMTP server: a sign-in says the e-mail could not be sent (never a 500, never the database's
// outage page); a decision's e-mail is queued with the decision and sent, or retried until the
// server takes it; a bulk approval shares a few pooled connections; the operator CLI queues and
// never waits for the mail server.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMTP_POOL_CONNECTIONS } from '../../src/mail/mailer.js';
import { approveReport, approveReports } from '../../src/modules/moderation/moderation.service.js';
import { retryDelayMs, sendDueDecisionNotices } from '../../src/modules/moderation/decision-notices.js';
import { freePort } from '../../src/net.js';
import { aReport, contributionTargets, anAccount } from '../factories/index.js';
import { createTestApp, scratchDataDir, TEST_BASE_URL, type TestApp } from '../setup/app.js';
import { csrfTokenOf } from '../setup/session.js';
import { startSilentServer, startSmtp, type TestSmtp } from '../setup/smtp.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');

async function signInAnswer(t: TestApp) {
  const agent = request.agent(t.app);
  const page = await agent.get('/sign-in').expect(200);
  return agent.post('/sign-in').set('Origin', TEST_BASE_URL).type('form').send({ email: 'someone@example.org', _csrf: csrfTokenOf(page.text) });
}

describe('sign-in while the mail server is down', () => {
  it('answers 503 saying the e-mail could not be sent when the server refuses connections', async () => {
    const t = await createTestApp({ env: { SMTP_URL: `smtp://127.0.0.1:${await freePort()}` } });
    try {
      const res = await signInAnswer(t);
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('60');
      expect(res.text).toContain('The sign-in e-mail could not be sent');
      expect(res.text).not.toMatch(/resting|database/i);
    } finally {
      await t.close();
    }
  });

  it('answers 503 saying the e-mail could not be sent when the server never answers, before the database deadline', async () => {
    const silent = await startSilentServer();
    // A deadline far beyond the mail bound, so that only the mail bound can answer.
    const t = await createTestApp({ env: { SMTP_URL: silent.url, DATABASE_TIMEOUT_MS: '60000' } });
    try {
      const res = await signInAnswer(t);
      expect(res.status).toBe(503);
      expect(res.text).toContain('The sign-in e-mail could not be sent');
      expect(res.text).not.toMatch(/resting/i);
      expect(silent.connections()).toBeGreaterThan(0);
    } finally {
      await t.close();
      await silent.close();
    }
  });
});

describe('decision e-mails', () => {
  let t: TestApp;
  let smtpPort: number;
  let smtp: TestSmtp | undefined;
  let T: Awaited<ReturnType<typeof contributionTargets>>;
  beforeAll(async () => {
    smtpPort = await freePort();
    t = await createTestApp({ env: { SMTP_URL: `smtp://127.0.0.1:${smtpPort}` } });
    T = await contributionTargets(t.db.prisma, 40);
  });
  afterAll(async () => {
    await t.close();
    await smtp?.close();
  });

  const pendingReport = async (i: number) => {
    const author = await anAccount(t.db.prisma, { email: `author-${i}@example.org` });
    return aReport(t.db.prisma, { merchantId: T.merchants[i]!.id, agentId: T.agents[0]!.id, accountId: author.id, status: 'PENDING' });
  };

  it('are queued with the decision and sent once the mail server is back, without the address in any log', async () => {
    const report = await pendingReport(0);
    await approveReport(t.db.prisma, { reportId: report.id, actorId: null, now: t.clock.now() });
    await sendDueDecisionNotices(t.db.prisma);
    // The server is down: the e-mail waits in the outbox, committed with the decision.
    const queued = await t.db.prisma.mailOutbox.findMany();
    expect(queued).toHaveLength(1);
    expect(queued[0]).toMatchObject({ recipient: 'author-0@example.org', reportId: report.id, attempts: 1 });
    expect(queued[0]!.lastError).not.toContain('author-0@example.org');

    smtp = await startSmtp(smtpPort);
    // Not before its retry is due.
    await sendDueDecisionNotices(t.db.prisma);
    expect(smtp.received).toHaveLength(0);
    t.clock.advance(retryDelayMs(1));
    await sendDueDecisionNotices(t.db.prisma);
    expect(smtp.received).toHaveLength(1);
    expect(smtp.received[0]!.to).toEqual(['author-0@example.org']);
    expect(smtp.received[0]!.data).toContain('is approved');
    expect(await t.db.prisma.mailOutbox.count()).toBe(0);
  });

  it('of a bulk approval share a few pooled connections', async () => {
    smtp ??= await startSmtp(smtpPort);
    const before = smtp.connections().total;
    const received = smtp.received.length;
    const reports = await Promise.all(Array.from({ length: 30 }, (_, i) => pendingReport(i + 1)));
    const result = await approveReports(t.db.prisma, {
      reports: reports.map((r) => ({ reportId: r.id, revision: r.updatedAt })),
      actorId: null,
      now: t.clock.now(),
    });
    expect(result.approved).toHaveLength(30);
    await sendDueDecisionNotices(t.db.prisma);
    expect(smtp.received.length - received).toBe(30);
    expect(smtp.connections().total - before).toBeLessThanOrEqual(SMTP_POOL_CONNECTIONS);
    expect(await t.db.prisma.mailOutbox.count()).toBe(0);
  });
});

describe('npm run admin approve', () => {
  it('queues the author\'s e-mail with the decision and never waits for a mail server that hangs', async () => {
    const t = await createTestApp();
    const silent = await startSilentServer();
    try {
      const T = await contributionTargets(t.db.prisma, 1);
      const author = await anAccount(t.db.prisma, { email: 'cli-author@example.org' });
      const report = await aReport(t.db.prisma, { merchantId: T.merchants[0]!.id, agentId: T.agents[0]!.id, accountId: author.id, status: 'PENDING' });
      const { stdout } = await run(process.execPath, ['--import', 'tsx', 'src/cli/admin.ts', 'approve', report.id, '--revision', report.updatedAt.toISOString()], {
        cwd: ROOT,
        env: { PATH: process.env.PATH, DATABASE_URL: t.db.url, DATA_DIR: scratchDataDir(), SMTP_URL: silent.url, LOG_LEVEL: 'silent', BASE_URL: TEST_BASE_URL },
      });
      expect(stdout).toMatch(/approved/i);
      expect((await t.db.prisma.report.findUniqueOrThrow({ where: { id: report.id } })).status).toBe('APPROVED');
      // Queued for the service, and the CLI never even connected to the mail server.
      expect(await t.db.prisma.mailOutbox.findMany({ select: { recipient: true, attempts: true } })).toEqual([{ recipient: 'cli-author@example.org', attempts: 0 }]);
      expect(silent.connections()).toBe(0);
    } finally {
      await silent.close();
      await t.close();
    }
  });
});
