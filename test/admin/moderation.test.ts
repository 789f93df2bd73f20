// Moderating reports through the admin pages: approve, reject, bulk approve and withdraw
// change the public API within the same request; feedback reaches the author and notes
// nobody else; every decision is in the audit log; two moderators at once never both win.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../setup/app.js';
import { accountWithKey } from '../setup/actors.js';
import { adminTestApp, MODERATOR, MODERATOR_2, postForm, publicCounts, redirectedTo, reportPicker, type Client, type ReportRef } from './helpers.js';

describe('moderating reports on /admin', () => {
  let t: TestApp;
  let as: (email: string) => Promise<Client>;
  let moderator: Client;
  let moderator2: Client;
  let pick: ReturnType<typeof reportPicker>;
  let moderatorId: string;

  beforeAll(async () => {
    ({ t, as } = await adminTestApp());
    moderator = await as(MODERATOR);
    moderator2 = await as(MODERATOR_2);
    moderatorId = (await t.db.prisma.account.findUniqueOrThrow({ where: { email: MODERATOR } })).id;
    pick = reportPicker(t);
  });
  afterAll(() => t.close());

  const status = async (id: string) => (await t.db.prisma.report.findUniqueOrThrow({ where: { id } })).status;
  const audit = (reportId: string) => t.db.prisma.moderationAuditLog.findMany({ where: { reportId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });

  /** Signs in as the report's author (the demo author's address). */
  async function author(r: ReportRef): Promise<Client> {
    const account = await t.db.prisma.account.findUniqueOrThrow({ where: { id: r.accountId } });
    return as(account.email);
  }

  it('lists pending reports oldest first with counts, and filters them', async () => {
    const res = await moderator.get('/admin/reports').expect(200);
    const pending = await t.db.prisma.report.findMany({ where: { status: 'PENDING' }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
    expect(pending.length).toBeGreaterThan(2);
    expect(res.text).toContain(`<strong>${pending.length}</strong> pending reports match`);
    const ids = [...res.text.matchAll(/data-report-id="([^"]+)"/g)].map((m) => m[1]);
    expect(ids).toEqual(pending.slice(0, 50).map((r) => r.id));

    const first = await t.db.prisma.report.findFirstOrThrow({
      where: { status: 'PENDING' },
      include: { agent: true, merchant: { include: { categoryRef: true } } },
    });
    const byAgent = await moderator.get(`/admin/reports?agent=${first.agent.slug}`).expect(200);
    const agentIds = [...byAgent.text.matchAll(/data-report-id="([^"]+)"/g)].map((m) => m[1]);
    expect(agentIds).toContain(first.id);
    const agentPending = pending.filter((r) => r.agentId === first.agentId).length;
    expect(byAgent.text).toContain(`<strong>${agentPending}</strong>`);

    const byMerchant = await moderator.get(`/admin/reports?merchant=${encodeURIComponent(first.merchant.name)}`).expect(200);
    expect(byMerchant.text).toContain(`data-report-id="${first.id}"`);
    const byCategory = await moderator.get(`/admin/reports?category=${first.merchant.categoryRef!.slug}`).expect(200);
    expect(byCategory.text).toContain(`data-report-id="${first.id}"`);
    const ageDays = Math.floor((t.clock.now().getTime() - first.createdAt.getTime()) / 86_400_000);
    const older = await moderator.get(`/admin/reports?minAgeDays=${ageDays + 1}`).expect(200);
    expect(older.text).not.toContain(`data-report-id="${first.id}"`);
    const young = await moderator.get(`/admin/reports?minAgeDays=${ageDays}`).expect(200);
    expect(young.text).toContain(`data-report-id="${first.id}"`);

    const bad = await moderator.get('/admin/reports?minAgeDays=soon&status=LOST');
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Minimum age must be a whole number of days');
    expect(bad.text).toContain('value="soon"');
  });

  it('shows a report with its private fields, escaping the experience text', async () => {
    const r = await pick('PENDING');
    const html = '<script>alert(1)</script> & <b>bold</b>';
    await t.db.prisma.report.update({ where: { id: r.id }, data: { experience: html, stage: 'CART', failureReason: 'CAPTCHA' } });
    await t.db.prisma.reportRevision.create({
      data: { reportId: r.id, status: 'REJECTED', content: { outcome: 'BLOCKED', capabilityResults: { ACCESS: 'BLOCKED' }, experience: 'the old text' } },
    });
    const authorEmail = (await t.db.prisma.account.findUniqueOrThrow({ where: { id: r.accountId } })).email;
    const res = await moderator.get(`/admin/reports/${r.id}`).expect(200);
    expect(res.text).toContain(authorEmail);
    expect(res.text).toContain('Add to cart');
    expect(res.text).toContain('CAPTCHA / human verification');
    expect(res.text).not.toContain('<script>alert(1)</script>');
    expect(res.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;');
    expect(res.text).toContain('Earlier versions');
    expect(res.text).toContain('the old text');
    expect(res.text).toMatch(/id="task-results"/);
  });

  it('approves: the public summary counts the report in the same request, with an audit row', async () => {
    const r = await pick('PENDING');
    const before = await publicCounts(request(t.app), r);
    const res = await postForm(moderator, `/admin/reports/${r.id}/approve`, { feedback: 'Clear, thanks.' });
    redirectedTo(res, `/admin/reports/${r.id}`);
    const after = await publicCounts(request(t.app), r);
    expect(after).toEqual({ merchant: before.merchant + 1, agent: before.agent + 1 });
    expect(await status(r.id)).toBe('APPROVED');
    await request(t.app).get(`/api/v1/reports/${r.id}`).expect(200);
    expect(await audit(r.id)).toMatchObject([{ actorId: moderatorId, action: 'approve', fromStatus: 'PENDING', toStatus: 'APPROVED' }]);
    const page = await moderator.get(`/admin/reports/${r.id}`).expect(200);
    expect(page.text).toContain('Report approved');
    expect(page.text).toContain('Withdraw from the directory');
  });

  it('rejects only with feedback; the author reads the feedback, nobody but moderators the note', async () => {
    const r = await pick('PENDING');
    const missing = await postForm(moderator, `/admin/reports/${r.id}/reject`, { feedback: '   ', note: 'typed note stays' });
    expect(missing.status).toBe(400);
    expect(missing.text).toContain('feedback is required');
    expect(missing.text).toContain('typed note stays');
    expect(missing.text).toMatch(/id="reject-feedback"[^>]*aria-invalid="true"/);
    expect(await status(r.id)).toBe('PENDING');

    const before = await publicCounts(request(t.app), r);
    const res = await postForm(moderator, `/admin/reports/${r.id}/reject`, {
      feedback: 'Please add the step where it failed.',
      note: 'SECRET-NOTE-4711 looks like a duplicate account',
    });
    redirectedTo(res, `/admin/reports/${r.id}`);
    expect(await status(r.id)).toBe('REJECTED');
    expect(await publicCounts(request(t.app), r)).toEqual(before);

    const writer = await author(r);
    const review = await writer.get(`/reports/${r.id}/review`).expect(200);
    expect(review.text).toContain('Please add the step where it failed.');
    expect(review.text).not.toContain('SECRET-NOTE-4711');
    const publicReports = await request(t.app).get(`/api/v1/reports?merchant=${r.merchantId}`).expect(200);
    expect(publicReports.text).not.toContain('SECRET-NOTE-4711');
    expect(publicReports.text).not.toContain('Please add the step');
    await request(t.app).get(`/api/v1/reports/${r.id}`).expect(404);
    const moderatorView = await moderator2.get(`/admin/reports/${r.id}`).expect(200);
    expect(moderatorView.text).toContain('SECRET-NOTE-4711');
    expect(await audit(r.id)).toMatchObject([
      { action: 'reject', fromStatus: 'PENDING', toStatus: 'REJECTED', reason: 'Please add the step where it failed.' },
    ]);
  });

  it('keeps private notes, audited, without moving the author’s version', async () => {
    const r = await pick('PENDING');
    const { updatedAt } = await t.db.prisma.report.findUniqueOrThrow({ where: { id: r.id } });
    redirectedTo(await postForm(moderator, `/admin/reports/${r.id}/notes`, { notes: 'PRIVATE-NOTE-0815 check again' }), `/admin/reports/${r.id}`);
    const stored = await t.db.prisma.report.findUniqueOrThrow({ where: { id: r.id } });
    expect(stored.moderationNotes).toBe('PRIVATE-NOTE-0815 check again');
    expect(stored.updatedAt).toEqual(updatedAt);
    expect(stored.status).toBe('PENDING');
    expect(await audit(r.id)).toMatchObject([{ action: 'note', fromStatus: null, toStatus: null }]);
    const writer = await author(r);
    expect((await writer.get(`/reports/${r.id}/review`).expect(200)).text).not.toContain('PRIVATE-NOTE-0815');
    expect((await moderator.get(`/admin/reports/${r.id}`).expect(200)).text).toContain('PRIVATE-NOTE-0815');
    const tooLong = await postForm(moderator, `/admin/reports/${r.id}/notes`, { notes: 'x'.repeat(4001) });
    expect(tooLong.status).toBe(400);
    expect(tooLong.text).toContain('at most 4000 characters');
  });

  it('bulk-approves the selected reports, each counted publicly at once; already moderated ones are reported', async () => {
    const a = await pick('PENDING');
    const b = await pick('PENDING');
    const done = await pick('APPROVED');
    const before = await Promise.all([a, b].map((r) => publicCounts(request(t.app), r)));
    const res = await postForm(moderator, '/admin/reports/bulk-approve', { 'ids[]': [a.id, b.id, done.id], return: '/admin/reports?status=PENDING' });
    redirectedTo(res, '/admin/reports?status=PENDING');
    expect(await status(a.id)).toBe('APPROVED');
    expect(await status(b.id)).toBe('APPROVED');
    const after = await Promise.all([a, b].map((r) => publicCounts(request(t.app), r)));
    expect(after.map((c) => c.agent)).toEqual(before.map((c) => c.agent + 1));
    const page = await moderator.get('/admin/reports?status=PENDING').expect(200);
    expect(page.text).toContain('Approved 2 reports.');
    expect(page.text).toContain(`1 already moderated by someone else and left as they are: ${done.id} (approved)`);
    expect(await audit(done.id)).toEqual([]);

    const none = await postForm(moderator, '/admin/reports/bulk-approve', { return: '/admin/reports' });
    expect(none.status).toBe(400);
    expect(none.text).toContain('Select at least one report to approve.');
    const elsewhere = await postForm(moderator, '/admin/reports/bulk-approve', { ids: [a.id], return: 'https://evil.example/' });
    redirectedTo(elsewhere, '/admin/reports');
  });

  it('withdraws an approved report to pending or rejected, with a required reason', async () => {
    const toPending = await pick('APPROVED');
    const toRejected = await pick('APPROVED');
    const noReason = await postForm(moderator, `/admin/reports/${toPending.id}/withdraw`, { to: 'PENDING', reason: '', note: 'kept' });
    expect(noReason.status).toBe(400);
    expect(noReason.text).toContain('Give the reason');
    expect(noReason.text).toContain('>kept</textarea>');
    const badTarget = await postForm(moderator, `/admin/reports/${toPending.id}/withdraw`, { to: 'APPROVED', reason: 'x' });
    expect(badTarget.status).toBe(400);
    expect(await status(toPending.id)).toBe('APPROVED');

    for (const [r, to] of [
      [toPending, 'PENDING'],
      [toRejected, 'REJECTED'],
    ] as const) {
      const before = await publicCounts(request(t.app), r);
      redirectedTo(
        await postForm(moderator, `/admin/reports/${r.id}/withdraw`, { to, reason: 'The screenshots show a different shop.' }),
        `/admin/reports/${r.id}`,
      );
      expect(await status(r.id)).toBe(to);
      const after = await publicCounts(request(t.app), r);
      expect(after).toEqual({ merchant: before.merchant - 1, agent: before.agent - 1 });
      await request(t.app).get(`/api/v1/reports/${r.id}`).expect(404);
      expect(await audit(r.id)).toMatchObject([{ action: 'withdraw', fromStatus: 'APPROVED', toStatus: to, reason: 'The screenshots show a different shop.' }]);
      const review = await (await author(r)).get(`/reports/${r.id}/review`).expect(200);
      expect(review.text).toContain('The screenshots show a different shop.');
    }
  });

  it('lets exactly one of two simultaneous moderators decide; the other is told it is already moderated', async () => {
    const r = await pick('PENDING');
    const before = await publicCounts(request(t.app), r);
    const [page1, page2] = await Promise.all([moderator.get('/admin'), moderator2.get('/admin')]);
    const token = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)![1]!;
    const results = await Promise.all([
      moderator.post(`/admin/reports/${r.id}/approve`).set('Origin', 'http://directory.test').type('form').send({ _csrf: token(page1.text) }),
      moderator2
        .post(`/admin/reports/${r.id}/reject`)
        .set('Origin', 'http://directory.test')
        .type('form')
        .send({ _csrf: token(page2.text), feedback: 'Not enough detail.' }),
    ]);
    const statuses = results.map((res) => res.status).sort();
    expect(statuses).toEqual([303, 409]);
    const loser = results.find((res) => res.status === 409)!;
    expect(loser.text).toContain('Already moderated');
    const entries = await audit(r.id);
    expect(entries).toHaveLength(1);
    const final = await status(r.id);
    expect(entries[0]!.toStatus).toBe(final);
    const after = await publicCounts(request(t.app), r);
    expect(after.agent).toBe(before.agent + (final === 'APPROVED' ? 1 : 0));

    // The same race with two approvals: one approval, one audit row, counted once.
    const r2 = await pick('PENDING');
    const before2 = await publicCounts(request(t.app), r2);
    const twice = await Promise.all(
      [moderator, moderator2].map(async (client) => {
        const page = await client.get('/admin');
        return client.post(`/admin/reports/${r2.id}/approve`).set('Origin', 'http://directory.test').type('form').send({ _csrf: token(page.text) });
      }),
    );
    expect(twice.map((res) => res.status).sort()).toEqual([303, 409]);
    expect(await audit(r2.id)).toHaveLength(1);
    expect((await publicCounts(request(t.app), r2)).agent).toBe(before2.agent + 1);
  });

  it('lists every decision in the audit log, newest first, with who and what', async () => {
    const res = await moderator.get('/admin/audit').expect(200);
    const entries = await t.db.prisma.moderationAuditLog.findMany({ orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: 50 });
    expect(entries.length).toBeGreaterThan(5);
    const ids = [...res.text.matchAll(/data-audit-id="([^"]+)"/g)].map((m) => m[1]);
    expect(ids).toEqual(entries.map((e) => e.id));
    expect(res.text).toContain(MODERATOR);
    expect(res.text).toContain('withdraw');
    expect(res.text).toContain('Approved → Pending');
    const rejects = await moderator.get('/admin/audit?action=reject').expect(200);
    expect(rejects.text).not.toContain('<td>withdraw</td>');
    expect(rejects.text).toContain('<td>reject</td>');
  });

  it('shows an author’s rejected feedback in the automation own-report list, never the notes', async () => {
    const r = await pick('PENDING');
    await postForm(moderator, `/admin/reports/${r.id}/reject`, { feedback: 'FEEDBACK-FOR-AGENT', note: 'NOTE-NOT-FOR-AGENT' });
    const account = await t.db.prisma.account.findUniqueOrThrow({ where: { id: r.accountId } });
    const { auth } = await accountWithKey(t, account.email, r.agentId);
    const res = await request(t.app).get(`/api/v1/automation/reports?merchant=${r.merchantId}`).set(auth);
    expect(res.status).toBe(200);
    expect(res.text).toContain('FEEDBACK-FOR-AGENT');
    expect(res.text).not.toContain('NOTE-NOT-FOR-AGENT');
  });
});
