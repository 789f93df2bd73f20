// A person's own reports in the browser: "My reports" (/profile/reports), the edit form that
// replaces a report as the API's PUT does, the review page with its screenshots, the form's
// round trips that keep every answer and screenshot, and the one-time messages of the agent
// keys page. Real form posts (session, CSRF token, Origin) over a real database.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveReport, rejectReport } from '../../src/modules/moderation/moderation.service.js';
import { issueKey } from '../../src/modules/keys/keys.service.js';
import { TASK_LABELS, TASKS } from '../../src/modules/aggregation/constants.js';
import { aReport, contributionTargets } from '../factories/index.js';
import { createTestApp, TEST_BASE_URL, type TestApp } from '../setup/app.js';
import { captureMailer, csrfTokenOf, signIn } from '../setup/session.js';
import { htmlProblems } from './html-validate.js';

type Client = Awaited<ReturnType<typeof signIn>>;

// A real 1×1 PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

async function valid(html: string, where: string) {
  expect(await htmlProblems(html), where).toEqual([]);
  // The CSP allows no inline script, handler or style: none is written.
  expect(html, where).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
  expect(html, where).not.toMatch(/<[a-z][^>]*\s(style|on[a-z]+)=/i);
}

const decode = (html: string) => html.replace(/&#34;|&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');

describe('my reports and editing them', () => {
  let t: TestApp;
  const mailer = captureMailer();
  let T: Awaited<ReturnType<typeof contributionTargets>>;
  let alice: Client;
  let bob: Client;
  let aliceId: string;

  beforeAll(async () => {
    t = await createTestApp({ mailer });
    T = await contributionTargets(t.db.prisma, 12);
    alice = await signIn(t.app, mailer, 'alice@example.org');
    bob = await signIn(t.app, mailer, 'bob@example.org');
    aliceId = (await t.db.prisma.account.findUniqueOrThrow({ where: { email: 'alice@example.org' } })).id;
  });
  afterAll(() => t.close());

  /** The new-report form, posted as a browser does (multipart, with the page's token). */
  async function submitForm(client: Client, fields: Record<string, string>, files: Array<{ buffer: Buffer; name: string }> = []) {
    const page = await client.get('/reports/new').expect(200);
    let req = client.post('/reports/new').set('Origin', TEST_BASE_URL).field('_csrf', csrfTokenOf(page.text));
    for (const [name, value] of Object.entries(fields)) req = req.field(name, value);
    for (const file of files) req = req.attach('screenshots', file.buffer, file.name);
    return req;
  }

  /** Another post of the same form page (after a round trip): the page's own token and fields. */
  function postAgain(client: Client, html: string, fields: Record<string, string>, files: Array<{ buffer: Buffer; name: string }> = []) {
    let req = client.post('/reports/new').set('Origin', TEST_BASE_URL).field('_csrf', csrfTokenOf(html));
    for (const [name, value] of Object.entries(fields)) req = req.field(name, value);
    for (const file of files) req = req.attach('screenshots', file.buffer, file.name);
    return req;
  }

  async function postEdit(client: Client, id: string, fields: Record<string, string>, origin = TEST_BASE_URL) {
    const page = await client.get('/profile/reports').expect(200);
    return client.post(`/reports/${id}/edit`).set('Origin', origin).type('form').send({ _csrf: csrfTokenOf(page.text), ...fields });
  }

  const versionOf = (html: string) => /name="version" value="([^"]+)"/.exec(html)![1]!;

  async function created(res: request.Response): Promise<string> {
    expect(res.status, res.text.slice(0, 500)).toBe(303);
    return /^\/reports\/([0-9a-f-]{36})\/review$/.exec(res.headers.location!)![1]!;
  }

  describe('/profile/reports', () => {
    it('sends people who are signed out to sign in and back; /reports leads there', async () => {
      const res = await request(t.app).get('/profile/reports').expect(303);
      expect(res.headers.location).toBe('/sign-in?next=%2Fprofile%2Freports');
      expect((await request(t.app).get('/reports').expect(302)).headers.location).toBe('/profile/reports');
    });

    it('is where sign-in lands without a next page, with a welcome shown once', async () => {
      const agent = request.agent(t.app);
      const form = await agent.get('/sign-in').expect(200);
      await agent.post('/sign-in').set('Origin', TEST_BASE_URL).type('form').send({ email: 'newcomer@example.org', _csrf: csrfTokenOf(form.text) }).expect(200);
      const link = new URL(mailer.lastLinkFor('newcomer@example.org'));
      const landed = await agent.get(`${link.pathname}${link.search}`).expect(303);
      expect(landed.headers.location).toBe('/profile/reports');
      const page = await agent.get('/profile/reports').expect(200);
      expect(page.text).toContain('Welcome. You are signed in as newcomer@example.org.');
      expect(page.text).toContain('You have not reported a test yet.');
      expect(page.text).toContain('<a href="/profile/reports" aria-current="page">My reports</a>');
      await valid(page.text, 'my reports, empty');
      expect((await agent.get('/profile/reports').expect(200)).text).not.toContain('Welcome.');
    });

    it("lists every report of the account (any agent, form or key) with state, feedback and links, and nobody else's", async () => {
      const formReport = await created(
        await submitForm(alice, { adId: T.merchants[0]!.id, agentId: T.agents[0]!.id, task_ACCESS: 'WORKS', privacy: 'on' }),
      );
      // One sent by an agent with a key, for another agent: the person sees it too.
      const { key } = await issueKey(t.db.prisma, { accountId: aliceId, agentId: T.agents[1]!.id }, t.clock.now());
      const keyReport = await request(t.app)
        .post('/api/v1/reports')
        .set('Authorization', `Bearer ${key}`)
        .send({ adId: T.merchants[1]!.id, agentId: T.agents[1]!.id, privacy: true, outcome: 'BLOCKED' })
        .expect(201);
      await rejectReport(t.db.prisma, { reportId: keyReport.body.id, actorId: null, feedback: 'Please say which page blocked the agent.', now: t.clock.now() });
      const bobReport = await created(await submitForm(bob, { adId: T.merchants[2]!.id, agentId: T.agents[0]!.id, outcome: 'WORKS', privacy: 'on' }));

      const page = await alice.get('/profile/reports').expect(200);
      expect(page.headers['cache-control']).toBe('no-store');
      await valid(page.text, 'my reports');
      for (const id of [formReport, keyReport.body.id as string]) {
        expect(page.text).toContain(`href="/reports/${id}/review"`);
        expect(page.text).toContain(`href="/reports/${id}/edit"`);
      }
      expect(page.text).not.toContain(bobReport);
      expect(page.text).toContain(`${T.merchants[0]!.name} <span class="with-agent">with ${T.agents[0]!.name}</span>`);
      expect(page.text).toContain('Waiting for moderation');
      expect(page.text).toContain('Rejected');
      expect(page.text).toContain('Please say which page blocked the agent.');
      expect(page.text).toContain('Sent <time datetime="2026-11-22T12:00:00.000Z">22 Nov 2026</time>');
      // The most recently changed first: the rejected one was decided last.
      expect(page.text.indexOf(keyReport.body.id)).toBeLessThan(page.text.indexOf(formReport));
    });
  });

  it('pages through many reports, 24 at a time', async () => {
    const many = await signIn(t.app, mailer, 'many@example.org');
    const accountId = (await t.db.prisma.account.findUniqueOrThrow({ where: { email: 'many@example.org' } })).id;
    for (let i = 0; i < 25; i += 1) {
      await aReport(t.db.prisma, { merchantId: T.merchants[i % 12]!.id, agentId: T.agents[Math.floor(i / 12)]!.id, accountId }, new Date(Date.UTC(2026, 10, 1, 0, i)));
    }
    const cards = (html: string) => html.split('class="my-report"').length - 1;
    const first = await many.get('/profile/reports').expect(200);
    expect(cards(first.text)).toBe(24);
    expect(first.text).toContain('<a href="/profile/reports?page=2" rel="next">Next page</a>');
    await valid(first.text, 'my reports, page 1');
    const second = await many.get('/profile/reports?page=2').expect(200);
    expect(cards(second.text)).toBe(1);
    expect(second.text).toContain('<a href="/profile/reports" rel="prev">Previous page</a>');
    // Past the end, or not a page number: the last page, or the first.
    expect(cards((await many.get('/profile/reports?page=99').expect(200)).text)).toBe(1);
    expect(cards((await many.get('/profile/reports?page=x').expect(200)).text)).toBe(24);
  });

  describe('the review page', () => {
    it('shows every answer in task order, the screenshots through the owner route, the site date format', async () => {
      const id = await created(
        await submitForm(
          alice,
          {
            adId: T.merchants[3]!.id, agentId: T.agents[0]!.id, task_CART: 'BLOCKED', task_ACCESS: 'WORKS', stage: 'CART',
            humanIntervention: 'no', testedAt: '2026-11-20', agentVersion: '2.1', region: 'DE', task: 'Buy a lamp', privacy: 'on',
          },
          [{ buffer: PNG, name: 'cart.png' }],
        ),
      );
      const review = await alice.get(`/reports/${id}/review`).expect(200);
      await valid(review.text, 'review page');
      expect(review.text).toContain('Thank you: your report is sent.');
      const order = TASKS.map((task) => review.text.indexOf(`<th scope="row">${TASK_LABELS[task].replace(/&/g, '&amp;')}</th>`));
      expect(order.every((at) => at > 0)).toBe(true);
      expect([...order].sort((a, b) => a - b)).toEqual(order);
      expect(review.text).toMatch(/Website access<\/th><td>Works<\/td>/);
      expect(review.text).toMatch(/Add to cart<\/th><td>Blocked<\/td>/);
      expect(review.text).toMatch(/Agent checkout<\/th><td><span class="muted">Not attempted<\/span>/);
      for (const text of ['Partially works', '(worked out from the task results)', 'Add to cart', '>No<', '2.1', '>DE<', 'Buy a lamp']) expect(review.text).toContain(text);
      expect(review.text).toContain('<time datetime="2026-11-20">20 Nov 2026</time>');
      expect(review.text).not.toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}/);
      // Shown once.
      expect((await alice.get(`/reports/${id}/review`).expect(200)).text).not.toContain('Thank you');

      const shot = await t.db.prisma.screenshotEvidence.findFirstOrThrow({ where: { reportId: id } });
      const src = `/reports/${id}/screenshots/${shot.id}`;
      expect(review.text).toContain(`<img src="${src}" alt="Screenshot 1 of your report">`);
      const image = await alice.get(src).buffer(true).expect(200);
      expect(image.headers['content-type']).toBe('image/png');
      expect(image.headers['cache-control']).toBe('no-store');
      expect(Buffer.from(image.body as Buffer)).toEqual(PNG);
      await bob.get(src).expect(404);
      await bob.get(`/reports/${id}/review`).expect(404);
      await alice.get(`/reports/${id}/screenshots/00000000-0000-7000-8000-000000000000`).expect(404);
      await alice.get(`/reports/${id}/screenshots/not-an-id`).expect(404);
      expect((await request(t.app).get(src).expect(303)).headers.location).toBe(`/sign-in?next=${encodeURIComponent(src)}`);
    });
  });

  describe('the edit form', () => {
    it('is the form prefilled like the report, merchant and agent fixed, for the author only', async () => {
      const id = await created(
        await submitForm(alice, {
          adId: T.merchants[4]!.id, agentId: T.agents[0]!.id, task_SEARCH: 'PARTIAL', failureReason: 'CAPTCHA', humanIntervention: 'yes',
          testedAt: '2026-11-19', experience: 'Line one\nline <two>', privacy: 'on',
        }),
      );
      const page = await alice.get(`/reports/${id}/edit`).expect(200);
      await valid(page.text, 'edit form');
      expect(page.headers['cache-control']).toBe('no-store');
      expect(page.text).toContain('<h1>Change your report</h1>');
      expect(page.text).toContain(`action="/reports/${id}/edit"`);
      expect(page.text).not.toContain('name="adId"');
      expect(page.text).not.toContain('name="agentId"');
      // Screenshots can be added when editing (issue 28), and the form says who sees them.
      expect(page.text).toContain('<input id="screenshots" name="screenshots" type="file"');
      expect(page.text).toContain('Screenshots are seen only by the moderators');
      expect(page.text).toMatch(/<option value="PARTIAL" selected>/);
      expect(page.text).toMatch(/<option value="CAPTCHA" selected>/);
      expect(page.text).toMatch(/<option value="yes" selected>/);
      expect(page.text).toContain('value="2026-11-19"');
      expect(page.text).toContain('>Line one\nline &lt;two&gt;</textarea>');
      // The privacy check is confirmed again on every save.
      expect(page.text).not.toMatch(/id="privacy" name="privacy" checked/);
      const report = await t.db.prisma.report.findUniqueOrThrow({ where: { id } });
      expect(versionOf(page.text)).toBe(report.updatedAt.toISOString());

      await bob.get(`/reports/${id}/edit`).expect(404);
      await alice.get('/reports/00000000-0000-7000-8000-000000000000/edit').expect(404);
      await alice.get('/reports/nope/edit').expect(404);
      expect((await request(t.app).get(`/reports/${id}/edit`).expect(303)).headers.location).toBe(`/sign-in?next=${encodeURIComponent(`/reports/${id}/edit`)}`);
    });

    it('replaces a report as the API does: back to PENDING when changed (screenshots kept, revision kept, summary recomputed), unchanged when identical', async () => {
      const id = await created(
        await submitForm(alice, { adId: T.merchants[5]!.id, agentId: T.agents[2]!.id, task_ACCESS: 'WORKS', task_CART: 'WORKS', privacy: 'on' }, [
          { buffer: PNG, name: 'one.png' },
          { buffer: PNG, name: 'two.png' },
        ]),
      );
      await approveReport(t.db.prisma, { reportId: id, actorId: null, feedback: 'Thanks, clear report.', now: t.clock.now() });
      const summary = () => t.db.prisma.merchantAgentSummary.findFirst({ where: { merchantId: T.merchants[5]!.id, agentId: T.agents[2]!.id } });
      expect((await summary())?.reportCount).toBe(1);
      t.clock.advance(60_000);

      // The same answers: nothing is written, the status stays.
      let form = await alice.get(`/reports/${id}/edit`).expect(200);
      const before = await t.db.prisma.report.findUniqueOrThrow({ where: { id } });
      const same = await postEdit(alice, id, { version: versionOf(form.text), task_ACCESS: 'WORKS', task_CART: 'WORKS', privacy: 'on' });
      expect(same.status).toBe(303);
      expect(same.headers.location).toBe(`/reports/${id}/review`);
      const untouched = await t.db.prisma.report.findUniqueOrThrow({ where: { id } });
      expect(untouched.status).toBe('APPROVED');
      expect(untouched.updatedAt).toEqual(before.updatedAt);
      expect((await alice.get(same.headers.location!).expect(200)).text).toContain('Nothing changed: your answers are the same as before, so the report keeps its status (approved and public).');

      // Different answers: pending again, screenshots kept, the old content a revision, the directory recomputed.
      form = await alice.get(`/reports/${id}/edit`).expect(200);
      const changed = await postEdit(alice, id, {
        version: versionOf(form.text), task_ACCESS: 'WORKS', task_CART: 'PARTIAL', experience: 'The cart needed two tries.', privacy: 'on',
      });
      expect(changed.status).toBe(303);
      const after = await t.db.prisma.report.findUniqueOrThrow({ where: { id }, include: { _count: { select: { evidence: true } } } });
      expect(after.status).toBe('PENDING');
      expect(after.capabilityResults).toEqual({ ACCESS: 'WORKS', CART: 'PARTIAL' });
      expect(after.experience).toBe('The cart needed two tries.');
      expect(after._count.evidence).toBe(2);
      expect(after.updatedAt.getTime()).toBeGreaterThan(before.updatedAt.getTime());
      expect(await t.db.prisma.reportRevision.count({ where: { reportId: id } })).toBe(1);
      expect((await summary())?.reportCount ?? 0).toBe(0);
      const review = await alice.get(`/reports/${id}/review`).expect(200);
      expect(review.text).toContain('Your changes are saved. The report is waiting for moderation again');
      expect(review.text).toContain('Waiting for moderation');
      const list = await alice.get('/profile/reports').expect(200);
      expect(list.text.slice(list.text.indexOf(`data-report-id="${id}"`)).slice(0, 600)).toContain('Waiting for moderation');
    });

    it('edits a report an agent sent with a key, whichever agent', async () => {
      const { key } = await issueKey(t.db.prisma, { accountId: aliceId, agentId: T.agents[3]!.id }, t.clock.now());
      const sent = await request(t.app)
        .post('/api/v1/reports')
        .set('Authorization', `Bearer ${key}`)
        .send({ adId: T.merchants[6]!.id, agentId: T.agents[3]!.id, privacy: true, capabilityResults: { ACCESS: 'BLOCKED' } })
        .expect(201);
      const form = await alice.get(`/reports/${sent.body.id}/edit`).expect(200);
      const res = await postEdit(alice, sent.body.id, { version: versionOf(form.text), task_ACCESS: 'BLOCKED', failureReason: 'EXPLICIT_BLOCK', privacy: 'on' });
      expect(res.status).toBe(303);
      expect((await t.db.prisma.report.findUniqueOrThrow({ where: { id: sent.body.id } })).failureReason).toBe('EXPLICIT_BLOCK');
    });

    it('says plainly what is wrong, keeps the answers, and writes nothing', async () => {
      const id = await created(await submitForm(alice, { adId: T.merchants[7]!.id, agentId: T.agents[0]!.id, outcome: 'WORKS', privacy: 'on' }));
      const form = await alice.get(`/reports/${id}/edit`).expect(200);
      const before = await t.db.prisma.report.findUniqueOrThrow({ where: { id } });
      const res = await postEdit(alice, id, { version: versionOf(form.text), region: 'FR', testedAt: '2099-01-01' });
      expect(res.status).toBe(400);
      await valid(res.text, 'edit form with errors');
      expect(res.text).toContain('<title>Error: Change your report');
      expect(res.text).toMatch(/role="alert" tabindex="-1" autofocus/);
      expect(res.text).toContain('<a href="#task_ACCESS">Say how at least one task went, or give an overall result</a>');
      expect(res.text).toContain('<a href="#testedAt">The date of the test cannot be in the future</a>');
      expect(res.text).toContain('<a href="#privacy">Confirm that the report contains no private or payment data');
      expect(res.text).toContain('value="FR"');
      expect(await t.db.prisma.report.findUniqueOrThrow({ where: { id } })).toEqual(before);
    });

    it('refuses text the database cannot keep, or too long, in plain words', async () => {
      const id = await created(await submitForm(alice, { adId: T.merchants[7]!.id, agentId: T.agents[1]!.id, outcome: 'WORKS', privacy: 'on' }));
      const form = await alice.get(`/reports/${id}/edit`).expect(200);
      const res = await postEdit(alice, id, {
        version: versionOf(form.text), outcome: 'WORKS', privacy: 'on', region: 'a\u0000b', experience: 'bell\u0007', agentVersion: 'v'.repeat(101),
      });
      expect(res.status).toBe(400);
      await valid(res.text, 'edit form with hostile text');
      expect(res.text).toContain('<a href="#region">Remove the invisible control characters from the region');
      expect(res.text).toContain('<a href="#experience">Remove the invisible control characters from your experience');
      expect(res.text).toContain('<a href="#agentVersion">Shorten the agent version to 100 characters or fewer (it has 101)</a>');
    });

    it('refuses a stale version with the answers kept; saving again then replaces the report', async () => {
      const id = await created(await submitForm(alice, { adId: T.merchants[8]!.id, agentId: T.agents[0]!.id, outcome: 'WORKS', privacy: 'on' }));
      const form = await alice.get(`/reports/${id}/edit`).expect(200);
      // Meanwhile a moderator decides on it.
      t.clock.advance(1000);
      await rejectReport(t.db.prisma, { reportId: id, actorId: null, feedback: 'Add the date of the test.', now: t.clock.now() });
      const stale = await postEdit(alice, id, { version: versionOf(form.text), outcome: 'PARTIAL', testedAt: '2026-11-18', privacy: 'on' });
      expect(stale.status).toBe(409);
      await valid(stale.text, 'edit form, stale');
      expect(stale.text).toContain('This report changed after you opened it');
      expect(stale.text).toContain(`<a href="/reports/${id}/review">See the report as it is now</a>`);
      expect(stale.text).toContain('value="2026-11-18"');
      const current = await t.db.prisma.report.findUniqueOrThrow({ where: { id } });
      expect(current.status).toBe('REJECTED');
      expect(versionOf(stale.text)).toBe(current.updatedAt.toISOString());

      const again = await postEdit(alice, id, { version: versionOf(stale.text), outcome: 'PARTIAL', testedAt: '2026-11-18', privacy: 'on' });
      expect(again.status).toBe(303);
      expect((await t.db.prisma.report.findUniqueOrThrow({ where: { id } })).status).toBe('PENDING');
    });

    it("answers 404 for another account's report (and unknown ids), changing nothing", async () => {
      const id = await created(await submitForm(bob, { adId: T.merchants[9]!.id, agentId: T.agents[0]!.id, outcome: 'WORKS', privacy: 'on' }));
      const before = await t.db.prisma.report.findUniqueOrThrow({ where: { id } });
      for (const target of [id, '00000000-0000-7000-8000-000000000000', 'nope']) {
        const res = await postEdit(alice, target, { version: before.updatedAt.toISOString(), outcome: 'BLOCKED', privacy: 'on' });
        expect(res.status).toBe(404);
        expect(res.text).toContain('Report not found');
      }
      expect(await t.db.prisma.report.findUniqueOrThrow({ where: { id } })).toEqual(before);
    });

    it('follows the rules of every form: CSRF token, Origin, signed in (multipart only for its screenshots)', async () => {
      const id = await created(await submitForm(alice, { adId: T.merchants[10]!.id, agentId: T.agents[0]!.id, outcome: 'WORKS', privacy: 'on' }));
      const before = await t.db.prisma.report.findUniqueOrThrow({ where: { id } });
      const page = await alice.get(`/reports/${id}/edit`).expect(200);
      const fields = { version: versionOf(page.text), outcome: 'BLOCKED', privacy: 'on' };
      await alice.post(`/reports/${id}/edit`).set('Origin', TEST_BASE_URL).type('form').send(fields).expect(403);
      await alice.post(`/reports/${id}/edit`).set('Origin', TEST_BASE_URL).type('form').send({ ...fields, _csrf: 'x'.repeat(43) }).expect(403);
      await alice.post(`/reports/${id}/edit`).set('Origin', 'https://evil.example').type('form').send({ ...fields, _csrf: csrfTokenOf(page.text) }).expect(403);
      await alice.post(`/reports/${id}/edit`).type('form').send({ ...fields, _csrf: csrfTokenOf(page.text) }).expect(403);
      // The edit form takes screenshots, so it reads multipart bodies (after the Origin check), token checked after.
      await alice.post(`/reports/${id}/edit`).set('Origin', TEST_BASE_URL).field('_csrf', 'x'.repeat(43)).field('outcome', 'BLOCKED').expect(403);
      await alice.post(`/reports/${id}/edit`).set('Origin', TEST_BASE_URL).field('_csrf', csrfTokenOf(page.text)).field('outcome', 'BLOCKED').expect(400);
      // Signed out (a session with a form's token, no account): to sign-in, then back to the list.
      const stranger = request.agent(t.app);
      const signInPage = await stranger.get('/sign-in').expect(200);
      const signedOut = await stranger.post(`/reports/${id}/edit`).set('Origin', TEST_BASE_URL).type('form').send({ ...fields, _csrf: csrfTokenOf(signInPage.text) }).expect(303);
      expect(signedOut.headers.location).toBe('/sign-in?next=%2Fprofile%2Freports');
      expect(await t.db.prisma.report.findUniqueOrThrow({ where: { id } })).toEqual(before);
    });
  });

  describe('the contribution form', () => {
    it('summarises errors in plain words at the top, each linked to its field', async () => {
      const res = await submitForm(alice, {});
      expect(res.status).toBe(400);
      await valid(res.text, 'empty form');
      const summary = res.text.slice(res.text.indexOf('id="error-summary"'), res.text.indexOf('<h1>'));
      expect(res.text.indexOf('id="error-summary"')).toBeLessThan(res.text.indexOf('<h1>'));
      expect(res.text).toMatch(/<div class="notice error-summary form-error-summary" role="alert" tabindex="-1" autofocus/);
      for (const [href, text] of [
        ['#adId', 'Choose the merchant you tested'],
        ['#agentId', 'Choose the agent you tested'],
        ['#task_ACCESS', 'Say how at least one task went, or give an overall result'],
        ['#privacy', 'Confirm that the report contains no private or payment data'],
      ]) {
        expect(summary).toContain(`<a href="${href}">${text}`);
        expect(res.text).toContain(`id="${href!.slice(1)}"`);
      }
      expect(decode(res.text)).not.toMatch(/must be|capabilityResults|merchant id/);
    });

    it('keeps every answer and the screenshot through a merchant search without JavaScript, choosing a single match', async () => {
      const target = T.merchants[11]!;
      const first = await submitForm(
        alice,
        { q: 'no-such-shop', find: '1', agentId: T.agents[1]!.id, task_CART: 'PARTIAL', region: 'NL', experience: 'kept', privacy: 'on' },
        [{ buffer: PNG, name: 'kept.png' }],
      );
      expect(first.status).toBe(200);
      await valid(first.text, 'form after a search');
      expect(first.text).toContain('No merchant matches “no-such-shop”.');
      expect(first.text).toMatch(/id="q" name="q" type="search" value="no-such-shop"[^>]*autofocus/);
      expect(first.text).toMatch(new RegExp(`value="${T.agents[1]!.id}" selected`));
      expect(first.text).toMatch(/<option value="PARTIAL" selected>/);
      expect(first.text).toContain('value="NL"');
      expect(first.text).toContain('>kept</textarea>');
      expect(first.text).toMatch(/id="privacy" name="privacy" checked/);
      const keep = /name="(keep_[A-Za-z0-9_-]+)" checked><label[^>]*>Keep kept\.png/.exec(first.text)![1]!;

      const second = await postAgain(alice, first.text, {
        q: target.name, find: '1', agentId: T.agents[1]!.id, task_CART: 'PARTIAL', region: 'NL', experience: 'kept', privacy: 'on', [keep]: 'on',
      });
      expect(second.status).toBe(200);
      expect(second.text).toContain(`One merchant matches “${target.name}”: ${target.name} is chosen.`);
      expect(second.text).toMatch(new RegExp(`value="${target.id}" selected`));
      expect(second.text).toMatch(/id="adId" name="adId" required autofocus/);
      expect(second.text).toContain(`name="${keep}" checked`);

      const id = await created(
        await postAgain(alice, second.text, {
          adId: target.id, agentId: T.agents[1]!.id, task_CART: 'PARTIAL', region: 'NL', experience: 'kept', privacy: 'on', [keep]: 'on',
        }),
      );
      const report = await t.db.prisma.report.findUniqueOrThrow({ where: { id }, include: { evidence: true } });
      expect(report.region).toBe('NL');
      expect(report.evidence).toHaveLength(1);
      expect(report.evidence[0]!.sizeBytes).toBe(PNG.length);
    });

    it('keeps an attached screenshot when the form comes back with errors', async () => {
      const res = await submitForm(alice, { agentId: T.agents[2]!.id, outcome: 'WORKS', privacy: 'on' }, [{ buffer: PNG, name: 'evidence.png' }]);
      expect(res.status).toBe(400);
      expect(res.text).toContain('Attached to this report so far');
      expect(res.text).toMatch(/Keep evidence\.png <span class="hint">\(1 KB\)<\/span>/);
      // Unticked, it goes: the report is sent without it.
      const id = await created(await postAgain(alice, res.text, { adId: T.merchants[0]!.id, agentId: T.agents[2]!.id, outcome: 'WORKS', privacy: 'on' }));
      expect(await t.db.prisma.screenshotEvidence.count({ where: { reportId: id } })).toBe(0);
    });

    it('links the existing report from the duplicate message', async () => {
      const id = await created(await submitForm(alice, { adId: T.merchants[1]!.id, agentId: T.agents[2]!.id, outcome: 'WORKS', privacy: 'on' }));
      const res = await submitForm(alice, { adId: T.merchants[1]!.id, agentId: T.agents[2]!.id, outcome: 'BLOCKED', privacy: 'on' });
      expect(res.status).toBe(409);
      await valid(res.text, 'form, duplicate');
      expect(res.text).toContain('You already reported this merchant for this agent');
      expect(res.text).toContain(`<a href="/reports/${id}/edit">Change your existing report</a>`);
      expect(res.text).toContain(`<a href="/reports/${id}/review">See it on its review page</a>`);
    });
  });

  describe('agent keys', () => {
    it('asks before revoking or replacing, and says what happened afterwards', async () => {
      const { record } = await issueKey(t.db.prisma, { accountId: aliceId, agentId: T.agents[0]!.id }, t.clock.now());
      const page = await alice.get('/profile/agents').expect(200);
      await valid(page.text, 'keys page');
      const row = page.text.slice(page.text.indexOf(`data-key-id="${record.id}"`));
      // The buttons that act are inside a disclosure: a first click only asks.
      expect(row).toMatch(/<details class="confirm-action">\s*<summary>Revoke/);
      expect(row).toMatch(/Yes, revoke key acd_/);
      expect(row).toMatch(/Yes, replace key acd_/);

      const replaced = await alice.post(`/profile/agents/keys/${record.id}/replace`).set('Origin', TEST_BASE_URL).type('form').send({ _csrf: csrfTokenOf(page.text) });
      expect(replaced.status).toBe(303);
      const after = await alice.get('/profile/agents').expect(200);
      expect(after.text).toContain(`Key ${record.displayPrefix}… is replaced: it no longer works. Your new key is below.`);
      const fresh = await t.db.prisma.agentKey.findFirstOrThrow({ where: { accountId: aliceId, agentId: T.agents[0]!.id, revokedAt: null } });

      const revoked = await alice.post(`/profile/agents/keys/${fresh.id}/revoke`).set('Origin', TEST_BASE_URL).type('form').send({ _csrf: csrfTokenOf(after.text) });
      expect(revoked.status).toBe(303);
      expect(revoked.headers.location).toBe('/profile/agents');
      const told = await alice.get('/profile/agents').expect(200);
      await valid(told.text, 'keys page after revoking');
      expect(told.text).toContain(`<p class="notice flash-message" role="status">Key ${fresh.displayPrefix}… is revoked. Requests that use it are refused from now on.</p>`);
      expect((await alice.get('/profile/agents').expect(200)).text).not.toContain('is revoked.');
      await alice.post(`/profile/agents/keys/${fresh.id}/revoke`).set('Origin', TEST_BASE_URL).type('form').send({ _csrf: csrfTokenOf(told.text) }).expect(303);
      expect((await alice.get('/profile/agents').expect(200)).text).toContain('was already revoked: nothing changed.');
    });
  });
});

describe('edits count against the browser submissions limit', () => {
  let t: TestApp;
  const mailer = captureMailer();
  beforeAll(async () => {
    t = await createTestApp({ mailer, env: { LIMIT_BROWSER_SUBMISSIONS_PER_HOUR: '1' } });
  });
  afterAll(() => t.close());

  it('counts a changed edit, not an identical one, and says when to come back', async () => {
    const T = await contributionTargets(t.db.prisma, 1);
    const person = await signIn(t.app, mailer, 'limited@example.org');
    const form = await person.get('/reports/new').expect(200);
    const sent = await person
      .post('/reports/new')
      .set('Origin', TEST_BASE_URL)
      .field('_csrf', csrfTokenOf(form.text))
      .field('adId', T.merchants[0]!.id)
      .field('agentId', T.agents[0]!.id)
      .field('outcome', 'WORKS')
      .field('privacy', 'on')
      .expect(303);
    const id = /\/reports\/([0-9a-f-]{36})\/review/.exec(sent.headers.location!)![1]!;
    const edit = await person.get(`/reports/${id}/edit`).expect(200);
    const version = /name="version" value="([^"]+)"/.exec(edit.text)![1]!;
    const post = (fields: Record<string, string>) =>
      person.post(`/reports/${id}/edit`).set('Origin', TEST_BASE_URL).type('form').send({ _csrf: csrfTokenOf(edit.text), version, privacy: 'on', ...fields });
    await post({ outcome: 'WORKS' }).expect(303);
    const limited = await post({ outcome: 'BLOCKED' }).expect(429);
    expect(limited.headers['retry-after']).toBeDefined();
    expect(limited.text).toContain('You have reached the limit of 1 report an hour');
    expect(limited.text).toMatch(/<option value="BLOCKED" selected>/);
    expect((await t.db.prisma.report.findUniqueOrThrow({ where: { id } })).outcome).toBe('WORKS');
  });
});
