// Issue 28, the moderators' side: the header's "Moderation (N pending)" link for moderators
// only (never in a shared anonymous page), /moderation, a confirmation after every decision
// with the next pending report as the next step, the queue by author handle, age and order,
// what changed between a report's versions, decision buttons told apart, and screenshots that
// open in a new tab.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorHandle } from '../../src/modules/moderation/author-handle.js';
import { diffContent, wordDiff } from '../../src/modules/moderation/revision-diff.js';
import { TEST_BASE_URL, type TestApp } from '../setup/app.js';
import { accountWithKey } from '../setup/actors.js';
import { csrfTokenOf } from '../setup/session.js';
import { htmlProblems } from '../pages/html-validate.js';
import { adminTestApp, decideOnPage, MODERATOR, postForm, reportPicker, revisionIn, USER, type Client } from './helpers.js';

const headerLink = /<a href="\/admin" class="moderation-link"[^>]*>Moderation \((\d+) pending\)<\/a>/;
const idsIn = (html: string) => [...html.matchAll(/data-report-id="([^"]+)"/g)].map((m) => m[1]!);

describe('the moderators’ loop (issue 28)', () => {
  let t: TestApp;
  let as: (email: string) => Promise<Client>;
  let moderator: Client;
  let user: Client;
  let pick: ReturnType<typeof reportPicker>;

  beforeAll(async () => {
    ({ t, as } = await adminTestApp());
    moderator = await as(MODERATOR);
    user = await as(USER);
    pick = reportPicker(t);
  });
  afterAll(() => t.close());

  const pendingNow = () => t.db.prisma.report.count({ where: { status: 'PENDING' } });
  const oldestPendingExcept = async (id: string) =>
    (await t.db.prisma.report.findFirst({ where: { status: 'PENDING', id: { not: id } }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] }))?.id ?? null;

  describe('the header link', () => {
    it('shows moderators "Moderation (N pending)" on every page, N the pending reports now', async () => {
      for (const path of ['/', '/how-it-works', '/profile/reports', '/admin', '/admin/reports']) {
        const res = await moderator.get(path).expect(200);
        const match = headerLink.exec(res.text);
        expect(match, path).not.toBeNull();
        expect(Number(match![1]), path).toBe(await pendingNow());
      }
      // It is the current section on the moderation pages.
      expect((await moderator.get('/admin/reports').expect(200)).text).toMatch(/class="moderation-link" aria-current="page"/);
    });

    it('is never shown to other people, and never in a shared anonymous page', async () => {
      for (const path of ['/', '/how-it-works', '/profile/reports']) {
        expect((await user.get(path).expect(200)).text, path).not.toContain('Moderation (');
      }
      // A moderator's view of the home page is built for them alone (their cookie bypasses the
      // shared cache); the anonymous answers, built and then served from the cache, have no link.
      await moderator.get('/').expect(200);
      const first = await request(t.app).get('/').expect(200);
      const second = await request(t.app).get('/').expect(200);
      expect(second.headers['x-cache']).toBe('HIT');
      for (const res of [first, second]) {
        expect(res.text).not.toContain('moderation-link');
        expect(res.text).not.toContain('Moderation (');
      }
      // A suspended moderator is refused by the gate; the header does not offer the door either.
      const suspended = await as('suspended-mod@example.org');
      await t.db.prisma.account.update({ where: { email: 'suspended-mod@example.org' }, data: { role: 'MODERATOR', suspended: true, suspendedReason: 'test' } });
      expect((await suspended.get('/').expect(200)).text).not.toContain('moderation-link');
    });

    it('sends /moderation to /admin', async () => {
      const anonymous = await request(t.app).get('/moderation').expect(302);
      expect(anonymous.headers.location).toBe('/admin');
      const signedIn = await moderator.get('/moderation').expect(302);
      expect(signedIn.headers.location).toBe('/admin');
    });
  });

  describe('decisions', () => {
    it('tells apart Approve (primary) and Reject (destructive), and opens screenshots in a new tab', async () => {
      const r = await pick('PENDING');
      await t.db.prisma.screenshotEvidence.create({
        data: { reportId: r.id, storagePath: `issue28-${r.id}.png`, mediaType: 'image/png', sizeBytes: 68, sha256: 'a'.repeat(64) },
      });
      const page = await moderator.get(`/admin/reports/${r.id}`).expect(200);
      expect(page.text).toContain('<button type="submit" class="approve">Approve</button>');
      expect(page.text).toContain('<button type="submit" class="danger">Reject</button>');
      const links = [...page.text.matchAll(/<a href="\/admin\/evidence\/[^"]+"([^>]*)>/g)].map((m) => m[1]);
      expect(links.length).toBeGreaterThanOrEqual(2);
      for (const attributes of links) expect(attributes).toContain('target="_blank" rel="noopener"');
      expect(await htmlProblems(page.text)).toEqual([]);

      const approved = await pick('APPROVED');
      const withdrawPage = await moderator.get(`/admin/reports/${approved.id}`).expect(200);
      expect(withdrawPage.text).toContain('<button type="submit" class="danger">Withdraw</button>');
    });

    it('rejects, then confirms on the next pending report with a link back', async () => {
      const r = await pick('PENDING');
      const report = await t.db.prisma.report.findUniqueOrThrow({ where: { id: r.id }, include: { merchant: true, agent: true } });
      const res = await decideOnPage(moderator, r.id, 'reject', { feedback: 'Which step failed?' });
      expect(res.status).toBe(303);
      const next = await oldestPendingExcept(r.id);
      expect(next).not.toBeNull();
      expect(res.headers.location).toBe(`/admin/reports/${next}`);
      const page = await moderator.get(res.headers.location as string).expect(200);
      const flash = /<p class="notice notice-ok" role="status" id="flash">([\s\S]*?)<\/p>/.exec(page.text)?.[1] ?? '';
      expect(flash).toContain(`Rejected the report on ${report.merchant.name} with ${report.agent.name}: its author can read your feedback.`);
      expect(flash).toContain('Here is the next pending report.');
      expect(flash).toContain(`<a href="/admin/reports/${r.id}">Open the report you decided</a>`);
      // The message is shown once.
      expect((await moderator.get(res.headers.location as string).expect(200)).text).not.toContain('id="flash"');
    });

    it('approves and withdraws with a confirmation each, and bulk approval links to the next pending report', async () => {
      const r = await pick('PENDING');
      const approve = await decideOnPage(moderator, r.id, 'approve');
      expect(approve.headers.location).toBe(`/admin/reports/${await oldestPendingExcept(r.id)}`);
      expect((await moderator.get(approve.headers.location as string)).text).toContain('Approved the report on');

      const withdraw = await decideOnPage(moderator, r.id, 'withdraw', { to: 'PENDING', reason: 'Checking again.' });
      expect(withdraw.headers.location).toBe(`/admin/reports/${await oldestPendingExcept(r.id)}`);
      expect((await moderator.get(withdraw.headers.location as string)).text).toContain('from the directory: it is pending again. Here is the next pending report.');

      const b = await pick('PENDING');
      const { updatedAt } = await t.db.prisma.report.findUniqueOrThrow({ where: { id: b.id } });
      const bulk = await postForm(moderator, '/admin/reports/bulk-approve', { 'ids[]': [`${b.id}@${updatedAt.toISOString()}`], return: '/admin/reports' });
      expect(bulk.status).toBe(303);
      expect(bulk.headers.location).toBe('/admin/reports');
      const list = await moderator.get('/admin/reports').expect(200);
      expect(list.text).toContain('Approved 1 report.');
      expect(list.text).toContain(`<a href="/admin/reports/${await oldestPendingExcept(b.id)}">Open the next pending report</a>`);
    });
  });

  describe('the queue', () => {
    it('shows authors by handle, never by address, and filters by handle', async () => {
      const [row] = await t.db.pool.query<{ account_id: string; n: string }>(
        `SELECT account_id, count(*) AS n FROM reports WHERE status = 'PENDING' GROUP BY account_id ORDER BY count(*) DESC, account_id LIMIT 1`,
      ).then((r) => r.rows);
      const accountId = row!.account_id;
      const handle = authorHandle(accountId);
      const { email } = await t.db.prisma.account.findUniqueOrThrow({ where: { id: accountId } });

      const all = await moderator.get('/admin/reports').expect(200);
      expect(all.text).not.toContain(email);

      const mine = await t.db.prisma.report.findMany({ where: { status: 'PENDING', accountId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
      for (const query of [handle, handle.toUpperCase(), ` ${handle} `]) {
        const res = await moderator.get(`/admin/reports?author=${encodeURIComponent(query)}`).expect(200);
        expect(idsIn(res.text)).toEqual(mine.slice(0, 50).map((r) => r.id));
        expect(res.text).toContain(`<strong>${mine.length}</strong> pending report${mine.length === 1 ? '' : 's'} match`);
        expect(res.text).toContain(`<code>${handle}</code>`);
        expect(res.text).not.toContain(email);
      }
      // Combined with the age filter: only this author's reports submitted at least N days ago.
      const days = Math.floor((t.clock.now().getTime() - mine[0]!.createdAt.getTime()) / 86_400_000);
      const older = await moderator.get(`/admin/reports?author=${handle}&minAgeDays=${days}`).expect(200);
      const expected = mine.filter((r) => r.createdAt.getTime() <= t.clock.now().getTime() - days * 86_400_000).map((r) => r.id);
      expect(idsIn(older.text)).toEqual(expected);
      expect(expected).toContain(mine[0]!.id);

      // The account page (the only one with the address) names the handle and links to the queue.
      const account = await moderator.get(`/admin/accounts/${accountId}`).expect(200);
      expect(account.text).toContain(`<code id="author-handle">${handle}</code>`);
      expect(account.text).toContain(`href="/admin/reports?status=PENDING&amp;author=${handle}"`);

      const unknown = await moderator.get('/admin/reports?author=0000000000').expect(200);
      expect(idsIn(unknown.text)).toEqual([]);
      const bad = await moderator.get('/admin/reports?author=someone%40example.org').expect(400);
      expect(bad.text).toContain('An author handle is 10 characters');
      expect(bad.text).toMatch(/id="f-author"[^>]*aria-invalid="true"/);
      expect(await htmlProblems(bad.text)).toEqual([]);
    });

    it('sorts oldest first by default, newest first on request, and keeps the order across pages', async () => {
      const pending = await t.db.prisma.report.findMany({ where: { status: 'PENDING' }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], select: { id: true } });
      const oldest = await moderator.get('/admin/reports').expect(200);
      expect(idsIn(oldest.text)).toEqual(pending.slice(0, 50).map((r) => r.id));
      expect(oldest.text).toContain('oldest first.');
      const newest = await moderator.get('/admin/reports?sort=newest').expect(200);
      const newestFirst = [...pending].reverse();
      expect(idsIn(newest.text)).toEqual(newestFirst.slice(0, 50).map((r) => r.id));
      expect(newest.text).toContain('newest first.');
      expect(newest.text).toMatch(/<option value="newest" selected>/);
      if (pending.length > 50) {
        expect(newest.text).toContain('href="/admin/reports?sort=newest&amp;page=2"');
        const two = await moderator.get('/admin/reports?sort=newest&page=2').expect(200);
        expect(idsIn(two.text)).toEqual(newestFirst.slice(50, 100).map((r) => r.id));
      }
      // Decided reports: latest decision first unless asked otherwise.
      const decided = await t.db.prisma.report.findMany({
        where: { status: 'APPROVED' },
        orderBy: [{ moderatedAt: { sort: 'asc', nulls: 'last' } }, { createdAt: 'asc' }, { id: 'asc' }],
        select: { id: true },
      });
      const earliest = await moderator.get('/admin/reports?status=APPROVED&sort=oldest').expect(200);
      expect(idsIn(earliest.text)).toEqual(decided.slice(0, 50).map((r) => r.id));
      expect(earliest.text).toContain('earliest decision first.');
      const bad = await moderator.get('/admin/reports?sort=random').expect(400);
      expect(bad.text).toContain('Choose oldest first, newest first, most signals first or newest accounts first');
    });
  });

  describe('what changed between versions', () => {
    it('compares words and fields', () => {
      const words = wordDiff('the cart page blocked us', 'the cart page let us in')!;
      expect(words.before.map((p) => p.text).join('')).toBe('the cart page blocked us');
      expect(words.after.map((p) => p.text).join('')).toBe('the cart page let us in');
      expect(words.before.filter((p) => p.kind === 'removed').map((p) => p.text.trim())).toEqual(['blocked']);
      expect(words.after.filter((p) => p.kind === 'added').map((p) => p.text.trim())).toEqual(['let', 'in']);
      expect(words.before.every((p) => p.kind !== 'added') && words.after.every((p) => p.kind !== 'removed')).toBe(true);
      // Spaces between two changed words join them into one change.
      expect(wordDiff('BENIGN A', 'SWAPPED B')).toEqual({ before: [{ kind: 'removed', text: 'BENIGN A' }], after: [{ kind: 'added', text: 'SWAPPED B' }] });
      const fields = diffContent(
        { capabilityResults: { ACCESS: 'WORKS' }, outcome: 'WORKS', stage: 'CART', region: 'DE' },
        { capabilityResults: { ACCESS: 'WORKS', CART: 'BLOCKED' }, outcome: 'PARTIAL', stage: 'CART', region: 'DE' },
      );
      expect(fields.filter((f) => f.changed).map((f) => f.key)).toEqual(['task:CART', 'outcome']);
    });

    it('marks the changed fields of each edit on the report page, and what changed since the revision a refused decision named', async () => {
      const target = await pick('PENDING');
      const { auth } = await accountWithKey(t, 'diff.author@example.org', target.agentId);
      const body = { adId: target.merchantId, agentId: target.agentId, privacy: true, outcome: 'WORKS', stage: 'CART', region: 'DE', experience: 'The cart page blocked us at once.' };
      const created = await request(t.app).post('/api/v1/reports').set(auth).send(body).expect(201);
      const id = created.body.id as string;

      const reviewed = await moderator.get(`/admin/reports/${id}`).expect(200);
      expect(reviewed.text).toContain('This report has not been edited.');

      t.clock.advance(1000);
      await request(t.app)
        .put(`/api/v1/automation/reports/${id}`)
        .set(auth)
        .set('If-Match', `"${created.body.updatedAt as string}"`)
        .send({ ...body, stage: 'CHECKOUT', experience: 'The cart page let us in at once.' })
        .expect(200);

      const page = await moderator.get(`/admin/reports/${id}`).expect(200);
      expect(page.text).toContain('The author replaced this report\'s content 1 time.');
      expect(page.text).toMatch(/Edited <time[^>]*>[^<]*<\/time>: 2 fields changed/);
      const changed = [...page.text.matchAll(/<tr class="changed" data-field="([^"]+)">/g)].map((m) => m[1]);
      expect(changed).toEqual(['stage', 'experience']);
      expect(page.text).toContain('<del>blocked</del>');
      expect(page.text).toContain('<ins>let</ins>');
      expect(page.text).toMatch(/<th scope="row">Furthest stage <span class="diff-mark">Changed<\/span><\/th>/);
      expect(page.text).toMatch(/<th scope="row">Region<\/th>\s*<td class="prewrap">DE<\/td><td class="muted">Same<\/td>/);
      expect(await htmlProblems(page.text)).toEqual([]);

      // An approval of the revision read before the edit is refused, and says what changed since.
      const refused = await moderator
        .post(`/admin/reports/${id}/approve`)
        .set('Origin', TEST_BASE_URL)
        .type('form')
        .send({ _csrf: csrfTokenOf(reviewed.text), revision: revisionIn(reviewed.text) });
      expect(refused.status).toBe(409);
      const since = /<div class="notice" id="reviewed-changes">([\s\S]*?)<\/div>\s*<\/div>/.exec(refused.text)?.[1] ?? '';
      expect(since).toContain('What the author changed since the revision you reviewed');
      expect([...since.matchAll(/<tr class="changed" data-field="([^"]+)">/g)].map((m) => m[1])).toEqual(['stage', 'experience']);
      expect(await htmlProblems(refused.text)).toEqual([]);
    });
  });

  it('leads to the queue when no pending report is left', async () => {
    const r = await pick('PENDING');
    // Every other pending report decided elsewhere (no public output changes: they stay unapproved).
    await t.db.prisma.report.updateMany({ where: { status: 'PENDING', id: { not: r.id } }, data: { status: 'REJECTED' } });
    const res = await decideOnPage(moderator, r.id, 'reject', { feedback: 'Not enough detail.' });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/admin/reports');
    const queue = await moderator.get('/admin/reports').expect(200);
    expect(queue.text).toContain('No pending reports are left.');
    expect(queue.text).toContain(`<a href="/admin/reports/${r.id}">Open the report you decided</a>`);
    expect(headerLink.exec(queue.text)?.[1]).toBe('0');
  });
});
