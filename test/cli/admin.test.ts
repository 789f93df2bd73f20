// The operator CLI: every command through runAdmin against a test database, and the real
// script once for --help.
import { createHash, randomUUID } from 'node:crypto';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import { loadDemoData } from '../../src/demo/load.js';
import { recomputeAllSummaries } from '../../src/modules/aggregation/summaries.service.js';
import { createTestDatabase, type TestDatabase } from '../setup/database.js';

const NOW = new Date('2026-11-22T12:00:00.000Z');
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const COMMANDS = ['grant-moderator', 'revoke-moderator', 'suspend', 'unsuspend', 'issue-key', 'show', 'approve', 'reject', 'withdraw'];

describe('npm run admin', () => {
  let db: TestDatabase;
  let out: string[];
  let err: string[];
  const sql = <T>(text: string, values: unknown[] = []) => db.pool.query(text, values).then((r) => r.rows as T[]);
  const admin = (...argv: string[]) =>
    runAdmin(argv, { prisma: db.prisma, now: () => NOW, out: (line) => out.push(line), err: (line) => err.push(line) });
  const account = async (email: string) =>
    (await sql<{ id: string; role: string; suspended: boolean; suspended_reason: string | null; suspended_at: Date | null }>(
      'SELECT id, role, suspended, suspended_reason, suspended_at FROM accounts WHERE email = $1',
      [email],
    ))[0];
  const reportStatus = async (id: string) => (await sql<{ status: string }>('SELECT status FROM reports WHERE id = $1', [id]))[0]?.status;
  /** A report's revision as `show` prints it (its updated_at). */
  const revision = async (id: string) => (await sql<{ updated_at: Date }>('SELECT updated_at FROM reports WHERE id = $1', [id]))[0]!.updated_at.toISOString();
  /** What an author's edit does to the row: new content, PENDING, updated_at moved (submissions.repository.ts). */
  const authorEdits = (id: string, experience: string) =>
    sql(`UPDATE reports SET experience = $2, status = 'PENDING', updated_at = updated_at + interval '1 second' WHERE id = $1`, [id, experience]);
  const pendingReports = () => sql<{ id: string }>(`SELECT id FROM reports WHERE status = 'PENDING' ORDER BY id`);

  /** Exit code 1 and exactly one error line matching `pattern`, nothing on stdout. */
  const expectFailure = (code: number, pattern: RegExp) => {
    expect(code).toBe(1);
    expect(out).toEqual([]);
    expect(err).toHaveLength(1);
    expect(err[0]).toMatch(pattern);
    expect(err[0]).not.toContain('\n');
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    await loadDemoData(db.pool, { now: NOW });
    await recomputeAllSummaries(db.prisma, NOW);
    await db.prisma.account.createMany({
      data: [
        { email: 'carol@example.com' },
        { email: 'root@example.com', role: 'ADMIN' },
        { email: 'dave@example.com' },
      ],
    });
  });
  afterAll(() => db.drop());
  beforeEach(() => {
    out = [];
    err = [];
  });

  describe('--help', () => {
    it('lists every command and exits 0', async () => {
      expect(await admin('--help')).toBe(0);
      const help = out.join('\n');
      for (const command of COMMANDS) expect(help).toContain(command);
      expect(err).toEqual([]);
    });

    it("shows one command's help after the command", async () => {
      expect(await admin('reject', '--help')).toBe(0);
      expect(out.join('\n')).toContain('reject <report-id> --revision REV --feedback TEXT');
    });

    it('fails without a command or with an unknown one', async () => {
      expectFailure(await admin(), /name a command.*--help/);
      err = [];
      expectFailure(await admin('promote', 'carol@example.com'), /unknown command "promote"/);
    });
  });

  describe('moderator role', () => {
    it('grants and revokes, normalising the address, and says when nothing changed', async () => {
      expect(await admin('grant-moderator', '  Carol@Example.COM ')).toBe(0);
      expect(out).toEqual(['carol@example.com is now a MODERATOR']);
      expect((await account('carol@example.com'))?.role).toBe('MODERATOR');

      out = [];
      expect(await admin('grant-moderator', 'carol@example.com')).toBe(0);
      expect(out).toEqual(['carol@example.com is already MODERATOR (no change)']);

      out = [];
      expect(await admin('revoke-moderator', 'carol@example.com')).toBe(0);
      expect(out).toEqual(['carol@example.com is now a USER']);
      expect((await account('carol@example.com'))?.role).toBe('USER');

      out = [];
      expect(await admin('revoke-moderator', 'carol@example.com')).toBe(0);
      expect(out).toEqual(['carol@example.com is not a moderator (no change)']);
      // Two changes, two audit rows by the operator; the repeats wrote none.
      const rows = await sql<{ details: unknown; actor_id: string | null }>(
        `SELECT l.details, l.actor_id FROM moderation_audit_log l JOIN accounts a ON a.id::text = l.target_id
          WHERE l.action = 'account.role' AND a.email = 'carol@example.com' ORDER BY l.created_at, l.id`,
      );
      expect(rows).toEqual([
        { details: { from: 'USER', to: 'MODERATOR' }, actor_id: null },
        { details: { from: 'MODERATOR', to: 'USER' }, actor_id: null },
      ]);
    });

    it('leaves an ADMIN an ADMIN and refuses to demote one', async () => {
      expect(await admin('grant-moderator', 'root@example.com')).toBe(0);
      expect(out).toEqual(['root@example.com is already ADMIN (no change)']);
      out = [];
      expectFailure(await admin('revoke-moderator', 'root@example.com'), /^admin revoke-moderator: root@example\.com is an ADMIN/);
      expect((await account('root@example.com'))?.role).toBe('ADMIN');
    });

    it('fails with exit code 1 for an unknown or malformed address', async () => {
      expectFailure(await admin('grant-moderator', 'nobody@example.com'), /no account with e-mail nobody@example\.com/);
      err = [];
      expectFailure(await admin('revoke-moderator', 'nobody@example.com'), /no account with e-mail nobody@example\.com/);
      err = [];
      expectFailure(await admin('grant-moderator', 'not-an-address'), /"not-an-address" is not an e-mail address/);
    });
  });

  describe('suspension', () => {
    const auditRows = async (email: string) =>
      sql<{ action: string; actor_id: string | null; reason: string | null }>(
        `SELECT l.action, l.actor_id, l.reason FROM moderation_audit_log l JOIN accounts a ON a.id::text = l.target_id
          WHERE l.target_type = 'account' AND l.action <> 'account.role' AND a.email = $1 ORDER BY l.created_at, l.id`,
        [email],
      );

    it('suspends with a reason and lifts the suspension, each change in the audit log as the operator', async () => {
      expect(await admin('suspend', 'DAVE@example.com', '--reason', 'spam reports')).toBe(0);
      expect(out).toEqual(['suspended dave@example.com (reason: spam reports)']);
      expect(await account('dave@example.com')).toMatchObject({ suspended: true, suspended_reason: 'spam reports', suspended_at: NOW });

      out = [];
      expect(await admin('suspend', 'dave@example.com', '--reason', 'spam reports')).toBe(0);
      expect(out[0]).toMatch(/already suspended/);

      out = [];
      expect(await admin('unsuspend', 'dave@example.com')).toBe(0);
      expect(out).toEqual(['dave@example.com is no longer suspended']);
      expect(await account('dave@example.com')).toMatchObject({ suspended: false, suspended_reason: null, suspended_at: null });
      // One suspension rule for the command line and the moderators' page: both write the row.
      expect(await auditRows('dave@example.com')).toEqual([
        { action: 'account.suspend', actor_id: null, reason: 'spam reports' },
        { action: 'account.unsuspend', actor_id: null, reason: null },
      ]);
    });

    it('refuses a suspension without a reason and changes nothing', async () => {
      expectFailure(await admin('suspend', 'carol@example.com'), /suspend needs --reason: give the reason for the suspension/);
      err = [];
      expectFailure(await admin('suspend', 'carol@example.com', '--reason', '   '), /suspend needs --reason/);
      expect(await account('carol@example.com')).toMatchObject({ suspended: false, suspended_reason: null });
      expect(await auditRows('carol@example.com')).toEqual([]);
    });

    it('fails with exit code 1 for an unknown address or a missing one', async () => {
      expectFailure(await admin('suspend', 'ghost@example.com', '--reason', 'x'), /no account with e-mail ghost@example\.com/);
      err = [];
      expectFailure(await admin('unsuspend', 'ghost@example.com'), /no account with e-mail ghost@example\.com/);
      err = [];
      expectFailure(await admin('suspend'), /suspend takes <email>, got 0/);
    });
  });

  describe('issue-key', () => {
    it('creates the account, prints the key once with its header and expiry, and stores only its hash', async () => {
      expect(await admin('issue-key', 'New.Agent.Owner@Example.com', 'basket-pilot')).toBe(0);
      expect(err).toEqual([]);
      const printed = out.join('\n');
      const keys = printed.match(/acd_[A-Za-z0-9_-]+/g) ?? [];
      const key = keys.find((k) => k.length > 20);
      expect(key).toBeDefined();
      expect(key!.startsWith('acd_')).toBe(true);
      expect(printed.split(key!)).toHaveLength(2); // the whole key appears exactly once
      expect(out).toContain(`Authorization: Bearer ${key}`);

      const owner = await account('new.agent.owner@example.com');
      expect(owner).toBeDefined();
      const [row] = await sql<{ account_id: string; slug: string; key_hash: string; display_prefix: string; expires_at: Date }>(
        `SELECT k.account_id, a.slug, k.key_hash, k.display_prefix, k.expires_at
           FROM agent_keys k JOIN agents a ON a.id = k.agent_id WHERE k.account_id = $1`,
        [owner!.id],
      );
      expect(row).toMatchObject({ account_id: owner!.id, slug: 'basket-pilot' });
      expect(row!.key_hash).toBe(createHash('sha256').update(key!).digest('hex'));
      expect(key!.startsWith(row!.display_prefix)).toBe(true);
      expect(row!.display_prefix.length).toBeLessThan(key!.length);
      expect(row!.expires_at).toEqual(new Date(NOW.getTime() + 90 * 24 * 3600_000));
      expect(printed).toContain(row!.expires_at.toISOString());
      const [{ stored }] = (await sql<{ stored: number }>(
        `SELECT count(*)::int AS stored FROM agent_keys WHERE $1 IN (key_hash, display_prefix, id::text)`,
        [key],
      )) as [{ stored: number }];
      expect(stored).toBe(0);
    });

    it('issues a key for an existing account without creating another', async () => {
      const before = await sql<{ n: number }>('SELECT count(*)::int AS n FROM accounts');
      expect(await admin('issue-key', 'carol@example.com', 'errand-otter')).toBe(0);
      expect(await sql<{ n: number }>('SELECT count(*)::int AS n FROM accounts')).toEqual(before);
    });

    it('fails for an unknown or inactive agent without creating the account', async () => {
      expectFailure(await admin('issue-key', 'typo@example.com', 'no-such-agent'), /no active agent with slug "no-such-agent"/);
      err = [];
      expectFailure(await admin('issue-key', 'typo@example.com', 'ledger-lark'), /no active agent with slug "ledger-lark"/);
      expect(await account('typo@example.com')).toBeUndefined();
    });

    it('fails for a malformed address, a suspended account and a missing argument', async () => {
      expectFailure(await admin('issue-key', 'nope', 'basket-pilot'), /is not an e-mail address/);
      err = [];
      await db.prisma.account.create({ data: { email: 'banned@example.com', suspended: true } });
      expectFailure(await admin('issue-key', 'banned@example.com', 'basket-pilot'), /banned@example\.com is suspended/);
      expect(await sql('SELECT 1 FROM agent_keys k JOIN accounts a ON a.id = k.account_id WHERE a.email = $1', ['banned@example.com'])).toEqual([]);
      err = [];
      expectFailure(await admin('issue-key', 'carol@example.com'), /issue-key takes <email> <agent-slug>, got 1/);
    });
  });

  describe('report moderation', () => {
    it('shows a report with the revision a decision names, and its content', async () => {
      const [report] = await pendingReports();
      await sql('UPDATE reports SET experience = $2 WHERE id = $1', [report!.id, 'Checkout worked.\nThen \u001b[31mred']);
      expect(await admin('show', report!.id.toUpperCase())).toBe(0);
      expect(err).toEqual([]);
      expect(out[0]).toBe(`report ${report!.id}`);
      expect(out).toContain(`revision       ${await revision(report!.id)}`);
      expect(out).toContain('status         PENDING');
      expect(out.join('\n')).toMatch(/^merchant {7}.+\(.+\)/m);
      expect(out.slice(-3)).toEqual(['experience', '  | Checkout worked.', '  | Then \\u001b[31mred']);
      // Text from an author never drives the operator's terminal.
      expect(out).toContain('  | Then \\u001b[31mred');
      err = [];
      out = [];
      const id = randomUUID();
      expectFailure(await admin('show', id), new RegExp(`^admin show: no report with id ${id}$`));
    });

    it('approves a pending report at the revision reviewed and refuses to approve it twice', async () => {
      const [report] = await pendingReports();
      const reviewed = await revision(report!.id);
      expect(await admin('approve', report!.id, '--revision', reviewed, '--feedback', 'Clear, thanks')).toBe(0);
      const now = await revision(report!.id);
      expect(out).toEqual([`approved report ${report!.id} at revision ${reviewed} (was PENDING); its revision is now ${now}`]);
      expect(await reportStatus(report!.id)).toBe('APPROVED');
      const entries = await sql<{ actor_id: string | null; action: string }>(
        'SELECT actor_id, action FROM moderation_audit_log WHERE report_id = $1',
        [report!.id],
      );
      expect(entries).toEqual([{ actor_id: null, action: 'approve' }]);

      out = [];
      expectFailure(await admin('approve', report!.id, '--revision', now), /already moderated: its status is APPROVED/);
    });

    it('refuses an approval of a revision the author has replaced, printing the current one; approves that one', async () => {
      const [report] = await pendingReports();
      const reviewed = await revision(report!.id);
      await authorEdits(report!.id, 'SWAPPED B');
      const current = await revision(report!.id);
      expectFailure(
        await admin('approve', report!.id, '--revision', reviewed),
        new RegExp(
          `^admin approve: report ${report!.id} changed since revision ${reviewed}.*its current revision is ${current} \\(status PENDING\\).*npm run admin -- show ${report!.id}$`,
        ),
      );
      expect(await reportStatus(report!.id)).toBe('PENDING');
      expect(await sql('SELECT 1 FROM moderation_audit_log WHERE report_id = $1', [report!.id])).toEqual([]);

      err = [];
      expect(await admin('show', report!.id)).toBe(0);
      expect(out).toContain(`revision       ${current}`);
      expect(out).toContain('  | SWAPPED B');
      out = [];
      expect(await admin('approve', report!.id, '--revision', `"${current}"`)).toBe(0);
      expect(await reportStatus(report!.id)).toBe('APPROVED');
    });

    it('needs --revision on every decision, in the form show prints', async () => {
      const [report] = await pendingReports();
      expectFailure(await admin('approve', report!.id), new RegExp(`approve needs --revision.*npm run admin -- show ${report!.id}`));
      err = [];
      expectFailure(await admin('approve', report!.id, '--revision', 'yesterday'), /--revision must be a revision as `show` prints it.*got "yesterday"/);
      err = [];
      expectFailure(await admin('reject', report!.id, '--feedback', 'x'), /reject needs --revision/);
      err = [];
      expectFailure(await admin('withdraw', report!.id, '--reason', 'x'), /withdraw needs --revision/);
      expect(await reportStatus(report!.id)).toBe('PENDING');
    });

    it('rejects only with feedback, at the revision reviewed', async () => {
      const [report] = await pendingReports();
      const reviewed = await revision(report!.id);
      expectFailure(await admin('reject', report!.id, '--revision', reviewed), /reject needs --feedback/);
      err = [];
      expectFailure(await admin('reject', report!.id, '--revision', reviewed, '--feedback'), /argument missing/);
      expect(await reportStatus(report!.id)).toBe('PENDING');

      err = [];
      await authorEdits(report!.id, 'changed');
      expectFailure(await admin('reject', report!.id, '--revision', reviewed, '--feedback', 'x'), /changed since revision/);
      err = [];
      const current = await revision(report!.id);
      expect(await admin('reject', report!.id, '--revision', current, '--feedback', 'Not an authorized test', '--note', 'private')).toBe(0);
      expect(out).toEqual([`rejected report ${report!.id} at revision ${current} (was PENDING); its revision is now ${await revision(report!.id)}`]);
      const [row] = await sql('SELECT status, moderation_feedback, moderation_notes FROM reports WHERE id = $1', [report!.id]);
      expect(row).toEqual({ status: 'REJECTED', moderation_feedback: 'Not an authorized test', moderation_notes: 'private' });
    });

    it('withdraws an approved report at the revision reviewed', async () => {
      const [report] = await sql<{ id: string }>(`SELECT id FROM reports WHERE status = 'APPROVED' ORDER BY id LIMIT 1`);
      const reviewed = await revision(report!.id);
      expectFailure(await admin('withdraw', report!.id, '--revision', reviewed, '--reason', 'x', '--to', 'approved'), /--to must be pending or rejected/);
      err = [];
      expect(await admin('withdraw', report!.id, '--revision', reviewed, '--reason', 'Merchant dispute', '--to', 'rejected')).toBe(0);
      expect(out).toEqual([`withdrew report ${report!.id} at revision ${reviewed}: APPROVED -> REJECTED; its revision is now ${await revision(report!.id)}`]);
      expect(await reportStatus(report!.id)).toBe('REJECTED');
    });

    it('fails with exit code 1 for an unknown report', async () => {
      const id = randomUUID();
      const rev = '2026-11-22T12:00:00.000Z';
      expectFailure(await admin('approve', id, '--revision', rev), new RegExp(`^admin approve: no report with id ${id}$`));
      err = [];
      expectFailure(await admin('reject', 'garbage', '--revision', rev, '--feedback', 'x'), /no report with id garbage/);
      err = [];
      expectFailure(await admin('withdraw', id, '--revision', rev, '--reason', 'x'), /no report with id/);
    });

    it('fails with exit code 1 for bad arguments', async () => {
      const [report] = await pendingReports();
      expectFailure(await admin('approve'), /approve takes <report-id>, got 0/);
      err = [];
      expectFailure(await admin('approve', report!.id, 'extra'), /approve takes <report-id>, got 2/);
      err = [];
      expectFailure(await admin('approve', report!.id, '--fedback', 'typo'), /Unknown option '--fedback'/);
      expect(await reportStatus(report!.id)).toBe('PENDING');
    });
  });

  it('runs as a script: --help exits 0 and lists the commands', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/cli/admin.ts', '--help'], {
      cwd: ROOT,
      timeout: 20_000,
    });
    for (const command of COMMANDS) expect(stdout).toContain(command);
  });
});
