// Moderating reports through the admin pages: approve, reject, bulk approve and withdraw
// change the public API within the same request; feedback reaches the author and notes
// nobody else; every decision is in the audit log; two moderators at once never both win; and a
// decision applies only to the revision of the report the moderator reviewed (issue 23).
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_BASE_URL, type TestApp } from '../setup/app.js';
import { accountWithKey } from '../setup/actors.js';
import { csrfTokenOf } from '../setup/session.js';
import { htmlProblems } from '../pages/html-validate.js';
import { authorHandle } from '../../src/modules/moderation/author-handle.js';
import {
  adminTestApp,
  decideOnPage,
  MODERATOR,
  MODERATOR_2,
  postForm,
  publicCounts,
  redirectedTo,
  reportPicker,
  revisionIn,
  type Client,
  type ReportRef,
} from './helpers.js';

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

  /** A bulk-approval checkbox's value: the report and the revision the list showed it at. */
  const selection = async (id: string) => `${id}@${(await t.db.prisma.report.findUniqueOrThrow({ where: { id } })).updatedAt.toISOString()}`;

  /**
   * A decision's answer (issue 28): a redirect to the next pending report (the oldest other than
   * the one decided), or to the queue when none is left.
   */
  async function decidedThenNext(res: request.Response, decidedId: string): Promise<string> {
    const next = await t.db.prisma.report.findFirst({
      where: { status: 'PENDING', id: { not: decidedId } },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      select: { id: true },
    });
    const location = next ? `/admin/reports/${next.id}` : '/admin/reports';
    redirectedTo(res, location);
    return location;
  }

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
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
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
    // The author by handle, the address only on the account page (issue 28).
    expect(res.text).not.toContain(authorEmail);
    expect(res.text).toContain(`<code id="author-handle">${authorHandle(r.accountId)}</code>`);
    expect(res.text).toContain(`href="/admin/accounts/${r.accountId}">Open the account</a>`);
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
    const res = await decideOnPage(moderator, r.id, 'approve', { feedback: 'Clear, thanks.' });
    const next = await decidedThenNext(res, r.id);
    const after = await publicCounts(request(t.app), r);
    expect(after).toEqual({ merchant: before.merchant + 1, agent: before.agent + 1 });
    expect(await status(r.id)).toBe('APPROVED');
    await request(t.app).get(`/api/v1/reports/${r.id}`).expect(200);
    expect(await audit(r.id)).toMatchObject([{ actorId: moderatorId, action: 'approve', fromStatus: 'PENDING', toStatus: 'APPROVED' }]);
    const confirmed = await moderator.get(next).expect(200);
    expect(confirmed.text).toContain('Approved the report on');
    const page = await moderator.get(`/admin/reports/${r.id}`).expect(200);
    expect(page.text).toContain('Withdraw from the directory');
  });

  it('rejects only with feedback; the author reads the feedback, nobody but moderators the note', async () => {
    const r = await pick('PENDING');
    const missing = await decideOnPage(moderator, r.id, 'reject', { feedback: '   ', note: 'typed note stays' });
    expect(missing.status).toBe(400);
    expect(missing.text).toContain('feedback is required');
    expect(missing.text).toContain('typed note stays');
    expect(missing.text).toMatch(/id="reject-feedback"[^>]*aria-invalid="true"/);
    expect(await status(r.id)).toBe('PENDING');

    const before = await publicCounts(request(t.app), r);
    const res = await decideOnPage(moderator, r.id, 'reject', {
      feedback: 'Please add the step where it failed.',
      note: 'SECRET-NOTE-4711 looks like a duplicate account',
    });
    await decidedThenNext(res, r.id);
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
    const selected = await Promise.all([a, b, done].map((r) => selection(r.id)));
    const res = await postForm(moderator, '/admin/reports/bulk-approve', { 'ids[]': selected, return: '/admin/reports?status=PENDING' });
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
    const elsewhere = await postForm(moderator, '/admin/reports/bulk-approve', { ids: [selected[0]!], return: 'https://evil.example/' });
    redirectedTo(elsewhere, '/admin/reports');
  });

  it('withdraws an approved report to pending or rejected, with a required reason', async () => {
    const toPending = await pick('APPROVED');
    const toRejected = await pick('APPROVED');
    const noReason = await decideOnPage(moderator, toPending.id, 'withdraw', { to: 'PENDING', reason: '', note: 'kept' });
    expect(noReason.status).toBe(400);
    expect(noReason.text).toContain('Give the reason');
    expect(noReason.text).toContain('>kept</textarea>');
    const badTarget = await decideOnPage(moderator, toPending.id, 'withdraw', { to: 'APPROVED', reason: 'x' });
    expect(badTarget.status).toBe(400);
    expect(await status(toPending.id)).toBe('APPROVED');

    for (const [r, to] of [
      [toPending, 'PENDING'],
      [toRejected, 'REJECTED'],
    ] as const) {
      const before = await publicCounts(request(t.app), r);
      await decidedThenNext(await decideOnPage(moderator, r.id, 'withdraw', { to, reason: 'The screenshots show a different shop.' }), r.id);
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
    // Both read the same revision of the report, then decide at once.
    const [page1, page2] = await Promise.all([moderator.get(`/admin/reports/${r.id}`), moderator2.get(`/admin/reports/${r.id}`)]);
    const form = (html: string) => ({ _csrf: csrfTokenOf(html), revision: revisionIn(html) });
    const results = await Promise.all([
      moderator.post(`/admin/reports/${r.id}/approve`).set('Origin', TEST_BASE_URL).type('form').send(form(page1.text)),
      moderator2
        .post(`/admin/reports/${r.id}/reject`)
        .set('Origin', TEST_BASE_URL)
        .type('form')
        .send({ ...form(page2.text), feedback: 'Not enough detail.' }),
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
        const page = await client.get(`/admin/reports/${r2.id}`);
        return client.post(`/admin/reports/${r2.id}/approve`).set('Origin', TEST_BASE_URL).type('form').send(form(page.text));
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
    await decideOnPage(moderator, r.id, 'reject', { feedback: 'FEEDBACK-FOR-AGENT', note: 'NOTE-NOT-FOR-AGENT' });
    const account = await t.db.prisma.account.findUniqueOrThrow({ where: { id: r.accountId } });
    const { auth } = await accountWithKey(t, account.email, r.agentId);
    const res = await request(t.app).get(`/api/v1/automation/reports?merchant=${r.merchantId}`).set(auth);
    expect(res.status).toBe(200);
    expect(res.text).toContain('FEEDBACK-FOR-AGENT');
    expect(res.text).not.toContain('NOTE-NOT-FOR-AGENT');
  });
  describe('a decision names the revision it was made on (issue 23)', () => {
    let authorN = 0;
    /** An agent's author with a key, and a PENDING report it POSTed about a merchant no other test uses. */
    async function bearerReport(experience: string) {
      const target = await pick('PENDING');
      const { auth } = await accountWithKey(t, `swap.author.${++authorN}@example.org`, target.agentId);
      const body = { adId: target.merchantId, agentId: target.agentId, privacy: true, outcome: 'WORKS', stage: 'CART', experience };
      const created = await request(t.app).post('/api/v1/reports').set(auth).send(body).expect(201);
      const id = created.body.id as string;
      /** The author replaces the report (PUT with If-Match), as the API documents. */
      const replace = async (ifMatch: string, text: string) => {
        t.clock.advance(1000);
        const res = await request(t.app)
          .put(`/api/v1/automation/reports/${id}`)
          .set(auth)
          .set('If-Match', `"${ifMatch}"`)
          .send({ ...body, experience: text })
          .expect(200);
        expect(res.body).toMatchObject({ status: 'PENDING', unchanged: false });
        return res.body.updatedAt as string;
      };
      return { ...target, id, version: created.body.updatedAt as string, replace };
    }
    const stored = (id: string) => t.db.prisma.report.findUniqueOrThrow({ where: { id } });

    it('refuses an approval of a revision the author has replaced, showing the current one, and approves that one', async () => {
      const r = await bearerReport('BENIGN A');
      const before = await publicCounts(request(t.app), r);

      // The moderator opens the report: BENIGN A, and the revision its forms carry.
      const reviewed = await moderator.get(`/admin/reports/${r.id}`).expect(200);
      expect(reviewed.text).toContain('BENIGN A');
      const reviewedRevision = revisionIn(reviewed.text);
      expect(reviewedRevision).toBe(r.version);

      // The author swaps the content while it is still pending.
      const swapped = await r.replace(r.version, 'SWAPPED B');
      expect(swapped).not.toBe(r.version);
      expect((await stored(r.id)).status).toBe('PENDING');

      // The moderator clicks Approve on the page they read: refused.
      const refused = await moderator
        .post(`/admin/reports/${r.id}/approve`)
        .set('Origin', TEST_BASE_URL)
        .type('form')
        .send({ _csrf: csrfTokenOf(reviewed.text), revision: reviewedRevision, feedback: 'Looks fine' });
      expect(refused.status).toBe(409);
      expect(refused.text).toContain('This report changed since you opened it');
      expect(refused.text).toContain(`you reviewed revision ${reviewedRevision}`);
      expect(refused.text).toContain('Your approval was not applied and the report is still pending');
      // The page is the report as it is now: the swapped content, the current revision in its
      // forms, the old content among the earlier versions, and the feedback as typed.
      expect(refused.text).toMatch(/id="experience">SWAPPED B</);
      expect(refused.text).toContain(`<code id="revision">${swapped}</code>`);
      expect(revisionIn(refused.text)).toBe(swapped);
      expect(refused.text).toContain('BENIGN A');
      expect(refused.text).toContain('>Looks fine</textarea>');
      expect(await htmlProblems(refused.text)).toEqual([]);

      expect(await stored(r.id)).toMatchObject({ status: 'PENDING', moderatedAt: null, experience: 'SWAPPED B' });
      expect(await audit(r.id)).toEqual([]);
      await request(t.app).get(`/api/v1/reports/${r.id}`).expect(404);
      expect(await publicCounts(request(t.app), r)).toEqual(before);

      // Approving what the refusal page showed works, and it is that content that is public.
      const approved = await moderator
        .post(`/admin/reports/${r.id}/approve`)
        .set('Origin', TEST_BASE_URL)
        .type('form')
        .send({ _csrf: csrfTokenOf(refused.text), revision: revisionIn(refused.text) });
      await decidedThenNext(approved, r.id);
      expect((await stored(r.id)).status).toBe('APPROVED');
      const published = await request(t.app).get(`/api/v1/reports/${r.id}`).expect(200);
      expect(published.text).toContain('SWAPPED B');
      expect(published.text).not.toContain('BENIGN A');
      expect(await publicCounts(request(t.app), r)).toEqual({ merchant: before.merchant + 1, agent: before.agent + 1 });
      expect(await audit(r.id)).toMatchObject([{ action: 'approve', fromStatus: 'PENDING', toStatus: 'APPROVED' }]);
    });

    it('refuses a rejection and a withdrawal of a revision the moderator did not see', async () => {
      const r = await bearerReport('first words');
      const reviewed = await moderator.get(`/admin/reports/${r.id}`).expect(200);
      await r.replace(r.version, 'second words');
      // A form shown again for its own errors keeps the revision the moderator reviewed ...
      const noFeedback = await moderator
        .post(`/admin/reports/${r.id}/reject`)
        .set('Origin', TEST_BASE_URL)
        .type('form')
        .send({ _csrf: csrfTokenOf(reviewed.text), revision: revisionIn(reviewed.text), feedback: '' });
      expect(noFeedback.status).toBe(400);
      expect(revisionIn(noFeedback.text)).toBe(r.version);
      // ... so the rejection typed next, about the first words, is still refused.
      const rejected = await moderator
        .post(`/admin/reports/${r.id}/reject`)
        .set('Origin', TEST_BASE_URL)
        .type('form')
        .send({ _csrf: csrfTokenOf(noFeedback.text), revision: revisionIn(noFeedback.text), feedback: 'Your first words are wrong' });
      expect(rejected.status).toBe(409);
      expect(rejected.text).toContain('Your rejection was not applied');
      expect(rejected.text).toContain('>Your first words are wrong</textarea>');
      expect((await stored(r.id)).status).toBe('PENDING');

      // Approved at what is current now; the author changes it and another moderator approves
      // that: a withdrawal written against the first approved text is refused.
      await decidedThenNext(await decideOnPage(moderator, r.id, 'approve'), r.id);
      const approvedPage = await moderator.get(`/admin/reports/${r.id}`).expect(200);
      await r.replace(revisionIn(approvedPage.text), 'third words');
      await decidedThenNext(await decideOnPage(moderator2, r.id, 'approve'), r.id);
      const withdrawn = await moderator
        .post(`/admin/reports/${r.id}/withdraw`)
        .set('Origin', TEST_BASE_URL)
        .type('form')
        .send({ _csrf: csrfTokenOf(approvedPage.text), revision: revisionIn(approvedPage.text), to: 'REJECTED', reason: 'The second words are wrong' });
      expect(withdrawn.status).toBe(409);
      expect(withdrawn.text).toContain('Your withdrawal was not applied and the report is still approved');
      expect((await stored(r.id)).status).toBe('APPROVED');
    });

    it('refuses a decision whose form names no revision, or not one, changing nothing', async () => {
      const r = await pick('PENDING');
      for (const fields of [{}, { revision: '' }, { revision: 'yesterday' }, { revision: '2026-11-22' }] as Array<Record<string, string>>) {
        const res = await postForm(moderator, `/admin/reports/${r.id}/approve`, fields);
        expect(res.status, JSON.stringify(fields)).toBe(400);
        expect(res.text).toContain('This form did not say which version of the report you reviewed');
        expect(revisionIn(res.text)).toBe((await stored(r.id)).updatedAt.toISOString());
        expect(await htmlProblems(res.text)).toEqual([]);
      }
      expect((await stored(r.id)).status).toBe('PENDING');
      expect(await audit(r.id)).toEqual([]);
    });

    it('bulk-approves each report only at the revision the list showed, naming the ones changed since', async () => {
      const kept = await bearerReport('BULK KEPT');
      const changed = await bearerReport('BULK BENIGN');
      // The list carries each report's revision in its checkbox.
      const listed = async (r: { id: string; merchantSlug: string }) => {
        const list = await moderator.get(`/admin/reports?merchant=${r.merchantSlug}`).expect(200);
        return { value: new RegExp(`name="ids\\[\\]" value="(${r.id}@[^"]+)"`).exec(list.text)?.[1], token: csrfTokenOf(list.text) };
      };
      const listedKept = await listed(kept);
      const listedChanged = (await listed(changed)).value;
      expect(listedKept.value).toBe(`${kept.id}@${kept.version}`);
      expect(listedChanged).toBe(`${changed.id}@${changed.version}`);

      const now = await changed.replace(changed.version, 'BULK SWAPPED');
      const res = await moderator
        .post('/admin/reports/bulk-approve')
        .set('Origin', TEST_BASE_URL)
        .type('form')
        .send({ _csrf: listedKept.token, 'ids[]': [listedKept.value!, listedChanged!], return: '/admin/reports' });
      redirectedTo(res, '/admin/reports');
      expect((await stored(kept.id)).status).toBe('APPROVED');
      expect(await stored(changed.id)).toMatchObject({ status: 'PENDING', moderatedAt: null });
      await request(t.app).get(`/api/v1/reports/${changed.id}`).expect(404);
      const page = await moderator.get('/admin/reports').expect(200);
      expect(page.text).toContain('Approved 1 report.');
      expect(page.text).toContain(`1 changed by its author since the list was shown, so not approved: ${changed.id} (now the revision of ${now})`);
      expect((await listed(changed)).value).toBe(`${changed.id}@${now}`);

      // A selection without revisions (a list from before revisions were carried) is refused whole.
      const bare = await postForm(moderator, '/admin/reports/bulk-approve', { 'ids[]': [changed.id], return: '/admin/reports' });
      expect(bare.status).toBe(400);
      expect(bare.text).toContain('did not say which version of each report you reviewed');
      expect((await stored(changed.id)).status).toBe('PENDING');
    });
  });
});
