// Moderation decisions: conditional transitions, the audit log, and summaries that change in
// the same transaction as the status.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemoData } from '../../src/demo/load.js';
import { recomputeAllSummaries, recomputeSummaries } from '../../src/modules/aggregation/summaries.service.js';
import {
  approveReport,
  ModerationConflictError,
  ModerationInputError,
  parseRevision,
  rejectReport,
  ReportChangedError,
  ReportNotFoundError,
  withdrawReport,
} from '../../src/modules/moderation/moderation.service.js';
import { Refusal } from '../../src/errors.js';
import { createTestDatabase, type TestDatabase } from '../setup/database.js';

const LOADED_AT = new Date('2026-11-22T12:00:00.000Z');
let tick = 0;
/** A distinct moment per action, so computed_at shows which transaction wrote a summary. */
const nextNow = () => new Date(LOADED_AT.getTime() + ++tick * 60_000);

interface ReportRef {
  id: string;
  merchant_id: string;
  agent_id: string;
}

describe('moderation service', () => {
  let db: TestDatabase;
  const sql = <T>(text: string, values: unknown[] = []) => db.pool.query(text, values).then((r) => r.rows as T[]);
  const one = async <T>(text: string, values: unknown[] = []) => {
    const [row] = await sql<T>(text, values);
    if (!row) throw new Error(`no row: ${text}`);
    return row;
  };
  const used = new Set<string>();

  /** A report in `status` for a public merchant and an active agent, not used by another test. */
  async function pickReport(status: 'PENDING' | 'APPROVED'): Promise<ReportRef> {
    const rows = await sql<ReportRef>(
      `SELECT r.id, r.merchant_id, r.agent_id FROM reports r
         JOIN merchants m ON m.id = r.merchant_id AND m.is_public
         JOIN agents a ON a.id = r.agent_id AND a.active
        WHERE r.status = $1 ORDER BY r.id`,
      [status],
    );
    const row = rows.find((r) => !used.has(r.id) && !used.has(r.merchant_id));
    if (!row) throw new Error(`no unused ${status} report`);
    used.add(row.id);
    used.add(row.merchant_id);
    return row;
  }

  const counts = async (r: ReportRef) => {
    const summary = await sql<{ report_count: number; computed_at: Date }>(
      'SELECT report_count, computed_at FROM merchant_agent_summaries WHERE merchant_id = $1 AND agent_id = $2',
      [r.merchant_id, r.agent_id],
    );
    const merchant = await one<{ report_count: number }>('SELECT report_count FROM merchants WHERE id = $1', [r.merchant_id]);
    return { pair: summary[0]?.report_count ?? 0, computedAt: summary[0]?.computed_at ?? null, merchant: merchant.report_count };
  };

  const report = (id: string) =>
    one<{
      status: string;
      moderated_at: Date | null;
      moderated_by_id: string | null;
      moderation_feedback: string | null;
      moderation_notes: string | null;
      updated_at: Date;
    }>(
      'SELECT status, moderated_at, moderated_by_id, moderation_feedback, moderation_notes, updated_at FROM reports WHERE id = $1',
      [id],
    );

  const audit = (id: string) =>
    sql<{
      actor_id: string | null;
      action: string;
      target_type: string;
      target_id: string;
      from_status: string;
      to_status: string;
      reason: string | null;
      details: unknown;
      created_at: Date;
    }>(
      `SELECT actor_id, action, target_type, target_id, from_status, to_status, reason, details, created_at
         FROM moderation_audit_log WHERE report_id = $1 ORDER BY created_at, id`,
      [id],
    );

  beforeAll(async () => {
    db = await createTestDatabase();
    await loadDemoData(db.pool, { now: LOADED_AT });
    await recomputeAllSummaries(db.prisma, LOADED_AT);
  });
  afterAll(() => db.drop());

  it('approves a pending report: status, audit row and a summary counting it, at once', async () => {
    const r = await pickReport('PENDING');
    const moderator = await db.prisma.account.create({ data: { email: 'mod-approve@example.com', role: 'MODERATOR' } });
    const before = await counts(r);
    const now = nextNow();

    const result = await approveReport(db.prisma, { reportId: r.id, actorId: moderator.id, feedback: '  Thanks, clear evidence.  ', now });

    expect(result).toEqual({ id: r.id, status: 'APPROVED', fromStatus: 'PENDING', revision: now });
    expect(await report(r.id)).toMatchObject({
      status: 'APPROVED',
      moderated_at: now,
      moderated_by_id: moderator.id,
      moderation_feedback: 'Thanks, clear evidence.',
      updated_at: now,
    });
    expect(await audit(r.id)).toEqual([
      {
        actor_id: moderator.id,
        action: 'approve',
        target_type: 'report',
        target_id: r.id,
        from_status: 'PENDING',
        to_status: 'APPROVED',
        reason: 'Thanks, clear evidence.',
        details: null,
        created_at: now,
      },
    ]);
    const after = await counts(r);
    expect(after.pair).toBe(before.pair + 1);
    expect(after.merchant).toBe(before.merchant + 1);
    expect(after.computedAt).toEqual(now);
  });

  it('approves without feedback and clears feedback left by an earlier decision', async () => {
    const r = await pickReport('PENDING');
    await sql('UPDATE reports SET moderation_feedback = $2 WHERE id = $1', [r.id, 'Please add the date']);

    await approveReport(db.prisma, { reportId: r.id, actorId: null, now: nextNow() });

    expect(await report(r.id)).toMatchObject({ status: 'APPROVED', moderated_by_id: null, moderation_feedback: null });
    expect((await audit(r.id))[0]).toMatchObject({ actor_id: null, action: 'approve', reason: null });
  });

  it('rejects a pending report with author feedback and a private note, recomputing its summary', async () => {
    const r = await pickReport('PENDING');
    const before = await counts(r);
    const now = nextNow();

    const result = await rejectReport(db.prisma, {
      reportId: r.id,
      actorId: null,
      feedback: 'The screenshots show a different site.',
      note: 'Third report from this account this week.',
      now,
    });

    expect(result).toEqual({ id: r.id, status: 'REJECTED', fromStatus: 'PENDING', revision: now });
    expect(await report(r.id)).toMatchObject({
      status: 'REJECTED',
      moderated_at: now,
      moderation_feedback: 'The screenshots show a different site.',
      moderation_notes: 'Third report from this account this week.',
    });
    expect(await audit(r.id)).toEqual([
      expect.objectContaining({
        action: 'reject',
        from_status: 'PENDING',
        to_status: 'REJECTED',
        reason: 'The screenshots show a different site.',
        details: { note: 'Third report from this account this week.' },
      }),
    ]);
    const after = await counts(r);
    expect(after.pair).toBe(before.pair);
    expect(after.merchant).toBe(before.merchant);
    if (before.pair > 0) expect(after.computedAt).toEqual(now);
  });

  it('refuses to reject without feedback, changing nothing', async () => {
    const r = await pickReport('PENDING');
    for (const feedback of ['', '   ', undefined as unknown as string]) {
      await expect(rejectReport(db.prisma, { reportId: r.id, actorId: null, feedback, now: nextNow() })).rejects.toBeInstanceOf(
        ModerationInputError,
      );
    }
    expect((await report(r.id)).status).toBe('PENDING');
    expect(await audit(r.id)).toEqual([]);
  });

  it('withdraws an approved report back to PENDING, taking it out of the summary', async () => {
    const r = await pickReport('APPROVED');
    const before = await counts(r);
    const now = nextNow();

    const result = await withdrawReport(db.prisma, { reportId: r.id, actorId: null, to: 'PENDING', reason: 'Merchant disputes the test date', now });

    expect(result).toEqual({ id: r.id, status: 'PENDING', fromStatus: 'APPROVED', revision: now });
    expect(await report(r.id)).toMatchObject({ status: 'PENDING', moderation_feedback: 'Merchant disputes the test date' });
    expect(await audit(r.id)).toEqual([
      expect.objectContaining({ action: 'withdraw', from_status: 'APPROVED', to_status: 'PENDING', reason: 'Merchant disputes the test date' }),
    ]);
    const after = await counts(r);
    expect(after.pair).toBe(before.pair - 1);
    expect(after.merchant).toBe(before.merchant - 1);
  });

  it('withdraws an approved report to REJECTED', async () => {
    const r = await pickReport('APPROVED');
    const before = await counts(r);

    await withdrawReport(db.prisma, { reportId: r.id, actorId: null, to: 'REJECTED', reason: 'Contains bypass instructions', now: nextNow() });

    expect((await report(r.id)).status).toBe('REJECTED');
    expect((await counts(r)).pair).toBe(before.pair - 1);
  });

  it('moves a report only from the expected state', async () => {
    const approved = await pickReport('APPROVED');
    const pending = await pickReport('PENDING');
    const approve = approveReport(db.prisma, { reportId: approved.id, actorId: null, now: nextNow() });
    await expect(approve).rejects.toBeInstanceOf(ModerationConflictError);
    await expect(approve).rejects.toMatchObject({ currentStatus: 'APPROVED', message: expect.stringContaining('already moderated') });
    await expect(
      withdrawReport(db.prisma, { reportId: pending.id, actorId: null, to: 'REJECTED', reason: 'x', now: nextNow() }),
    ).rejects.toMatchObject({ name: 'ModerationConflictError', currentStatus: 'PENDING' });
    expect(await audit(approved.id)).toEqual([]);
    expect(await audit(pending.id)).toEqual([]);
  });

  it('lets exactly one of a simultaneous approval and rejection win', async () => {
    const r = await pickReport('PENDING');
    const before = await counts(r);
    const now = nextNow();

    const [approval, rejection] = await Promise.allSettled([
      approveReport(db.prisma, { reportId: r.id, actorId: null, now }),
      rejectReport(db.prisma, { reportId: r.id, actorId: null, feedback: 'Not reproducible', now }),
    ]);

    const outcomes = [approval, rejection];
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const loser = outcomes.find((o) => o.status === 'rejected');
    expect(loser?.reason).toBeInstanceOf(ModerationConflictError);
    const entries = await audit(r.id);
    expect(entries).toHaveLength(1);
    const stored = await report(r.id);
    expect(stored.status).toBe(approval.status === 'fulfilled' ? 'APPROVED' : 'REJECTED');
    expect(entries[0]!.to_status).toBe(stored.status);
    expect((loser?.reason as ModerationConflictError).currentStatus).toBe(stored.status);
    expect((await counts(r)).pair).toBe(before.pair + (stored.status === 'APPROVED' ? 1 : 0));
  });

  it('counts every one of simultaneous approvals of one merchant, for one agent and for two', async () => {
    // Three approved reports of one merchant, two of them for the same agent, made pending again.
    const [row] = await sql<{ merchant_id: string; ids: string[]; agents: string[] }>(
      `SELECT r.merchant_id, array_agg(r.id ORDER BY r.agent_id, r.id) AS ids, array_agg(r.agent_id::text ORDER BY r.agent_id, r.id) AS agents
         FROM reports r JOIN merchants m ON m.id = r.merchant_id AND m.is_public
         JOIN agents a ON a.id = r.agent_id AND a.active
        WHERE r.status = 'APPROVED'
        GROUP BY r.merchant_id
       HAVING count(DISTINCT r.agent_id) >= 2 AND count(*) > count(DISTINCT r.agent_id)
        ORDER BY r.merchant_id LIMIT 1`,
    );
    expect(row).toBeDefined();
    const { merchant_id: merchantId, ids, agents } = row!;
    const dup = agents.findIndex((agent, i) => agents[i + 1] === agent);
    const other = agents.findIndex((agent) => agent !== agents[dup]);
    const chosen = [ids[dup]!, ids[dup + 1]!, ids[other]!];
    const pairs = [{ merchantId, agentId: agents[dup]! }, { merchantId, agentId: agents[other]! }];
    const before = await counts({ id: '', merchant_id: merchantId, agent_id: agents[dup]! });
    await db.prisma.$transaction(async (tx) => {
      await tx.report.updateMany({ where: { id: { in: chosen } }, data: { status: 'PENDING' } });
      await recomputeSummaries(tx, pairs, LOADED_AT);
    });
    const lowered = await counts({ id: '', merchant_id: merchantId, agent_id: agents[dup]! });
    expect(lowered.pair).toBe(before.pair - 2);
    expect(lowered.merchant).toBe(before.merchant - 3);

    const now = nextNow();
    await Promise.all(chosen.map((reportId) => approveReport(db.prisma, { reportId, actorId: null, now })));

    expect(await counts({ id: '', merchant_id: merchantId, agent_id: agents[dup]! })).toMatchObject({
      pair: before.pair,
      merchant: before.merchant,
    });
  });

  it('does not deadlock with a directory edit that writes the merchant later in its transaction', async () => {
    const r = await pickReport('PENDING');
    const editor = await db.pool.connect();
    try {
      await editor.query('BEGIN');
      // Takes the directory version first (statement trigger), then, after a pause, the merchant.
      await editor.query(`UPDATE categories SET updated_at = updated_at WHERE false`);
      const approval = approveReport(db.prisma, { reportId: r.id, actorId: null, now: nextNow() });
      await new Promise((resolve) => setTimeout(resolve, 300));
      await editor.query(`UPDATE merchants SET updated_at = now() WHERE id = $1`, [r.merchant_id]);
      await editor.query('COMMIT');
      await expect(approval).resolves.toMatchObject({ status: 'APPROVED' });
    } finally {
      editor.release();
    }
    expect((await counts(r)).pair).toBeGreaterThan(0);
  });

  it('reports an unknown report id as ReportNotFoundError', async () => {
    for (const reportId of [randomUUID(), 'not-a-uuid', '']) {
      await expect(approveReport(db.prisma, { reportId, actorId: null, now: nextNow() })).rejects.toBeInstanceOf(ReportNotFoundError);
      await expect(
        rejectReport(db.prisma, { reportId, actorId: null, feedback: 'x', now: nextNow() }),
      ).rejects.toBeInstanceOf(ReportNotFoundError);
      await expect(
        withdrawReport(db.prisma, { reportId, actorId: null, to: 'PENDING', reason: 'x', now: nextNow() }),
      ).rejects.toBeInstanceOf(ReportNotFoundError);
    }
  });
  describe('the revision a decision names', () => {
    /** What an author's edit does to the row: new content, PENDING, updated_at moved (submissions.repository.ts). */
    const EDIT = `UPDATE reports SET experience = $2, status = 'PENDING', updated_at = greatest($3::timestamptz, updated_at + interval '1 millisecond') WHERE id = $1`;
    const edit = (id: string, experience: string) => sql(EDIT, [id, experience, nextNow()]);

    it('approves, rejects and withdraws at the current revision', async () => {
      const a = await pickReport('PENDING');
      const approved = await approveReport(db.prisma, { reportId: a.id, revision: (await report(a.id)).updated_at, actorId: null, now: nextNow() });
      expect(approved.revision).toEqual((await report(a.id)).updated_at);
      await withdrawReport(db.prisma, { reportId: a.id, revision: approved.revision, actorId: null, to: 'PENDING', reason: 'again', now: nextNow() });
      const r = await pickReport('PENDING');
      await rejectReport(db.prisma, { reportId: r.id, revision: (await report(r.id)).updated_at, actorId: null, feedback: 'No', now: nextNow() });
      expect((await report(a.id)).status).toBe('PENDING');
      expect((await report(r.id)).status).toBe('REJECTED');
    });

    it('refuses a decision on a revision the report has left, writing nothing, and names the current one', async () => {
      const r = await pickReport('PENDING');
      const reviewed = (await report(r.id)).updated_at;
      await edit(r.id, 'SWAPPED B');
      const current = (await report(r.id)).updated_at;
      const before = await counts(r);

      for (const decide of [
        () => approveReport(db.prisma, { reportId: r.id, revision: reviewed, actorId: null, now: nextNow() }),
        () => rejectReport(db.prisma, { reportId: r.id, revision: reviewed, actorId: null, feedback: 'About text I never saw', now: nextNow() }),
      ]) {
        const refusal = await decide().then(
          () => expect.unreachable('a stale decision was applied'),
          (error: unknown) => error,
        );
        expect(refusal).toBeInstanceOf(ReportChangedError);
        expect(refusal).toBeInstanceOf(Refusal);
        expect(refusal).toMatchObject({ revision: reviewed, currentRevision: current, currentStatus: 'PENDING', kind: 'conflict' });
        expect((refusal as ReportChangedError).init).toMatchObject({ code: 'stale-version', extensions: { updatedAt: current.toISOString(), status: 'PENDING' } });
        expect((refusal as Error).message).toContain(current.toISOString());
      }
      expect(await report(r.id)).toMatchObject({ status: 'PENDING', updated_at: current, moderated_at: null });
      expect(await audit(r.id)).toEqual([]);
      expect(await counts(r)).toEqual(before);

      await approveReport(db.prisma, { reportId: r.id, revision: current, actorId: null, now: nextNow() });
      expect((await report(r.id)).status).toBe('APPROVED');
    });

    it('refuses a withdrawal of an approved report that was changed and approved again since', async () => {
      const r = await pickReport('APPROVED');
      const reviewed = (await report(r.id)).updated_at;
      await edit(r.id, 'replaced');
      await approveReport(db.prisma, { reportId: r.id, actorId: null, now: nextNow() });
      await expect(
        withdrawReport(db.prisma, { reportId: r.id, revision: reviewed, actorId: null, to: 'REJECTED', reason: 'About the old text', now: nextNow() }),
      ).rejects.toBeInstanceOf(ReportChangedError);
      expect((await report(r.id)).status).toBe('APPROVED');
    });

    it('still says "already moderated" when the status moved, whatever the revision', async () => {
      const r = await pickReport('PENDING');
      const reviewed = (await report(r.id)).updated_at;
      await approveReport(db.prisma, { reportId: r.id, revision: reviewed, actorId: null, now: nextNow() });
      await expect(approveReport(db.prisma, { reportId: r.id, revision: reviewed, actorId: null, now: nextNow() })).rejects.toMatchObject({
        name: 'ModerationConflictError',
        currentStatus: 'APPROVED',
        currentRevision: (await report(r.id)).updated_at,
      });
    });

    it('checks the revision in the same statement as the decision: an edit committed while the approval waits wins', async () => {
      const r = await pickReport('PENDING');
      const reviewed = (await report(r.id)).updated_at;
      const author = await db.pool.connect();
      try {
        // The author's edit holds the row; the approval (of the revision as it was) waits for it.
        await author.query('BEGIN');
        await author.query(EDIT, [r.id, 'SWAPPED B', nextNow()]);
        const approval = approveReport(db.prisma, { reportId: r.id, revision: reviewed, actorId: null, now: nextNow() });
        await new Promise((resolve) => setTimeout(resolve, 300));
        await author.query('COMMIT');
        await expect(approval).rejects.toBeInstanceOf(ReportChangedError);
      } finally {
        author.release();
      }
      expect(await report(r.id)).toMatchObject({ status: 'PENDING', moderated_at: null });
      expect(await audit(r.id)).toEqual([]);
    });

    it('reads a revision only in the form it is written', () => {
      expect(parseRevision('2026-11-22T12:00:00.123Z')).toEqual(new Date('2026-11-22T12:00:00.123Z'));
      expect(parseRevision(' "2026-11-22T12:00:00.123Z" ')).toEqual(new Date('2026-11-22T12:00:00.123Z'));
      expect(parseRevision('2026-11-22T12:00:00Z')).toEqual(new Date('2026-11-22T12:00:00.000Z'));
      for (const bad of [undefined, '', 'now', '2026-11-22', '2026-11-22T12:00:00.123456Z', '2026-11-22T12:00:00+01:00', 'W/"2026-11-22T12:00:00.123Z"', '2026-13-40T12:00:00.000Z']) {
        expect(parseRevision(bad), String(bad)).toBeNull();
      }
    });
  });
});
