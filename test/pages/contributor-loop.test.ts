// Issue 28, the contributor's and the agent owner's side of the loop: an e-mail on every
// moderation decision (approved; rejected with the feedback; withdrawn with the reason; each
// linking to "My reports") and the account's opt-out; the moderator's feedback first on the
// edit form; the privacy declaration explained before saving; screenshots added and removed
// when editing; the region normalized to a country code (form and API alike); the sign-in page
// that says why it is shown and the page that confirms signing out; the key page that lists
// your agents first and leads to the guide and the API documentation. Real form posts over a
// real database.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { createMailer, decisionMessage, outboxDir, type DecisionNotice } from '../../src/mail/mailer.js';
import { decisionNoticesSent, registerDecisionNotices, retryDelayMs, sendDueDecisionNotices } from '../../src/modules/moderation/decision-notices.js';
import { approveReport, rejectReport, withdrawReport } from '../../src/modules/moderation/moderation.service.js';
import { issueKey } from '../../src/modules/keys/keys.service.js';
import { countryCode } from '../../src/countries.js';
import { contributionTargets } from '../factories/index.js';
import { createTestApp, scratchDataDir, TEST_BASE_URL, type TestApp } from '../setup/app.js';
import { captureMailer, csrfTokenOf, signIn } from '../setup/session.js';
import { htmlProblems } from './html-validate.js';

type Client = Awaited<ReturnType<typeof signIn>>;

// A real 1×1 PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

const decode = (html: string) => html.replace(/&#34;|&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');

describe('the contributor loop', () => {
  let t: TestApp;
  const mailer = captureMailer();
  let T: Awaited<ReturnType<typeof contributionTargets>>;
  let alice: Client;
  let aliceId: string;
  let nextMerchant = 0;

  beforeAll(async () => {
    t = await createTestApp({ mailer });
    T = await contributionTargets(t.db.prisma, 20);
    alice = await signIn(t.app, mailer, 'alice@example.org');
    aliceId = (await t.db.prisma.account.findUniqueOrThrow({ where: { email: 'alice@example.org' } })).id;
  });
  afterAll(() => t.close());

  /** The new-report form, posted as a browser does (multipart, with the page's token). */
  async function submitForm(client: Client, fields: Record<string, string>, files: Buffer[] = []) {
    const page = await client.get('/reports/new').expect(200);
    let req = client.post('/reports/new').set('Origin', TEST_BASE_URL).field('_csrf', csrfTokenOf(page.text));
    for (const [name, value] of Object.entries(fields)) req = req.field(name, value);
    files.forEach((file, i) => (req = req.attach('screenshots', file, `shot-${i}.png`)));
    return req;
  }

  /** A new report of alice's on a merchant of its own; its id. */
  async function aliceReport(files: Buffer[] = [], fields: Record<string, string> = {}): Promise<string> {
    const res = await submitForm(alice, { adId: T.merchants[nextMerchant++]!.id, agentId: T.agents[0]!.id, outcome: 'WORKS', privacy: 'on', ...fields }, files);
    expect(res.status, res.text.slice(0, 400)).toBe(303);
    return /^\/reports\/([0-9a-f-]{36})\/review$/.exec(res.headers.location!)![1]!;
  }

  /** The edit form posted as a browser does (multipart), with the form's token and version. */
  async function postEdit(id: string, fields: Record<string, string>, files: Buffer[] = []) {
    const form = await alice.get(`/reports/${id}/edit`).expect(200);
    const version = /name="version" value="([^"]+)"/.exec(form.text)![1]!;
    let req = alice.post(`/reports/${id}/edit`).set('Origin', TEST_BASE_URL).field('_csrf', csrfTokenOf(form.text)).field('version', version);
    for (const [name, value] of Object.entries(fields)) req = req.field(name, value);
    files.forEach((file, i) => (req = req.attach('screenshots', file, `new-${i}.png`)));
    return req;
  }

  const noticesTo = async (email: string) => {
    await decisionNoticesSent(t.db.prisma);
    return mailer.notices.filter((n) => n.to === email);
  };

  describe('the e-mail on every decision', () => {
    it('tells the author of an approval, a rejection with its feedback and a withdrawal with its reason, each linking to My reports', async () => {
      const approved = await aliceReport();
      const rejected = await aliceReport();
      const withdrawn = await aliceReport();
      const before = (await noticesTo('alice@example.org')).length;
      await approveReport(t.db.prisma, { reportId: approved, actorId: null, now: t.clock.now() });
      await rejectReport(t.db.prisma, { reportId: rejected, actorId: null, feedback: 'Say which page showed the CAPTCHA.', now: t.clock.now() });
      await approveReport(t.db.prisma, { reportId: withdrawn, actorId: null, now: t.clock.now() });
      await withdrawReport(t.db.prisma, { reportId: withdrawn, actorId: null, to: 'REJECTED', reason: 'The merchant showed the test date is wrong.', now: t.clock.now() });

      // Sent in the background: in any order.
      const notices = (await noticesTo('alice@example.org')).slice(before).map((n) => n.notice);
      const about = (id: string) => notices.filter((n) => n.editUrl === `${TEST_BASE_URL}/reports/${id}/edit`).map((n) => n.decision).sort();
      expect(about(approved)).toEqual(['approved']);
      expect(about(rejected)).toEqual(['rejected']);
      expect(about(withdrawn)).toEqual(['approved', 'withdrawn']);
      for (const n of notices) expect(n.myReportsUrl).toBe(`${TEST_BASE_URL}/profile/reports`);

      const message = (id: string, decision: string) =>
        decisionMessage(notices.find((n) => n.decision === decision && n.editUrl === `${TEST_BASE_URL}/reports/${id}/edit`)!);
      const [approval, rejection, withdrawal] = [message(approved, 'approved'), message(rejected, 'rejected'), message(withdrawn, 'withdrawn')];
      expect(approval!.subject).toMatch(/is approved$/);
      expect(approval!.text).toContain('A moderator approved your report');
      expect(approval!.text).toContain(`${TEST_BASE_URL}/profile/reports`);

      expect(rejection!.subject).toMatch(/was not approved$/);
      expect(rejection!.text).toContain('Feedback from the moderator:\n\nSay which page showed the CAPTCHA.');
      expect(rejection!.text).toContain(`${TEST_BASE_URL}/reports/${rejected}/edit`);
      expect(rejection!.text).toContain(`All your reports and what the moderators decided: ${TEST_BASE_URL}/profile/reports`);

      expect(withdrawal!.subject).toMatch(/was withdrawn from the directory$/);
      expect(withdrawal!.text).toContain('The reason given:\n\nThe merchant showed the test date is wrong.');
      expect(withdrawal!.text).toContain('It is now rejected.');
      expect(withdrawal!.text).toContain(`${TEST_BASE_URL}/profile/reports`);
      // Every one says how to stop them.
      for (const m of [approval!, rejection!, withdrawal!]) expect(m.text).toContain(`${TEST_BASE_URL}/profile/reports#notifications`);
    });

    it('writes the e-mail to the outbox without a mail server, as sign-in links are', async () => {
      const dataDir = scratchDataDir('outbox-');
      const real = createMailer({ smtpUrl: undefined, from: 'directory@example.org', dataDir, logger: createLogger('silent') });
      const notice: DecisionNotice = {
        decision: 'rejected',
        merchantName: 'Lamp Shop',
        agentName: 'Shopper',
        feedback: 'Which page blocked the agent?',
        myReportsUrl: `${TEST_BASE_URL}/profile/reports`,
        editUrl: `${TEST_BASE_URL}/reports/x/edit`,
      };
      await real.sendDecisionNotice('carol@example.org', notice);
      const files = readdirSync(outboxDir(dataDir)).filter((f) => f.endsWith('.eml'));
      expect(files).toHaveLength(1);
      const eml = readFileSync(path.join(outboxDir(dataDir), files[0]!), 'utf8').replace(/=\r?\n/g, '');
      expect(eml).toMatch(/^To: carol@example\.org$/m);
      expect(eml).toMatch(/^Subject: Your report on Lamp Shop was not approved$/m);
      expect(eml).toContain('Which page blocked the agent?');
      expect(eml).toContain(`${TEST_BASE_URL}/profile/reports`);
    });

    it('is not sent when the author turned it off on My reports, and is again once turned back on', async () => {
      const page = await alice.get('/profile/reports').expect(200);
      expect(page.text).toMatch(/<input type="checkbox" id="notifyDecisions" name="notifyDecisions"[^>]* checked>/);
      expect(await htmlProblems(page.text)).toEqual([]);
      // Unticked: the box is not posted.
      const off = await alice.post('/profile/notifications').set('Origin', TEST_BASE_URL).type('form').send({ _csrf: csrfTokenOf(page.text) }).expect(303);
      expect(off.headers.location).toBe('/profile/reports#notifications');
      expect((await t.db.prisma.account.findUniqueOrThrow({ where: { id: aliceId } })).notifyDecisions).toBe(false);
      const after = await alice.get('/profile/reports').expect(200);
      expect(after.text).toContain('you no longer get e-mails about moderation decisions');
      expect(after.text).not.toMatch(/id="notifyDecisions" name="notifyDecisions"[^>]* checked/);

      const quiet = await aliceReport();
      const before = (await noticesTo('alice@example.org')).length;
      await rejectReport(t.db.prisma, { reportId: quiet, actorId: null, feedback: 'Not this time.', now: t.clock.now() });
      expect(await noticesTo('alice@example.org')).toHaveLength(before);

      await alice.post('/profile/notifications').set('Origin', TEST_BASE_URL).type('form').send({ _csrf: csrfTokenOf(after.text), notifyDecisions: 'on' }).expect(303);
      expect((await t.db.prisma.account.findUniqueOrThrow({ where: { id: aliceId } })).notifyDecisions).toBe(true);
      const loud = await aliceReport();
      await approveReport(t.db.prisma, { reportId: loud, actorId: null, now: t.clock.now() });
      expect(await noticesTo('alice@example.org')).toHaveLength(before + 1);
      // The setting is a form like every other: token and sign-in required.
      await alice.post('/profile/notifications').set('Origin', TEST_BASE_URL).type('form').send({ notifyDecisions: 'on' }).expect(403);
      const stranger = request.agent(t.app);
      const signInPage = await stranger.get('/sign-in').expect(200);
      const redirected = await stranger.post('/profile/notifications').set('Origin', TEST_BASE_URL).type('form').send({ _csrf: csrfTokenOf(signInPage.text) }).expect(303);
      expect(redirected.headers.location).toBe('/sign-in?next=%2Fprofile%2Freports');
    });

    it('never fails the decision when the mail cannot be sent: the failure is logged, the notice kept and sent later', async () => {
      const warnings: unknown[] = [];
      const down = async () => Promise.reject(new Error('mail server down'));
      const failing = { sendDecisionNotice: down, sendOwnerDigest: down };
      registerDecisionNotices(t.db.prisma, { mailer: failing, baseUrl: TEST_BASE_URL, clock: t.clock, logger: { warn: (...args: unknown[]) => warnings.push(args) } as never });
      const before = (await noticesTo('alice@example.org')).length;
      try {
        const id = await aliceReport();
        const result = await approveReport(t.db.prisma, { reportId: id, actorId: null, now: t.clock.now() });
        expect(result.status).toBe('APPROVED');
        await decisionNoticesSent(t.db.prisma);
        expect((await t.db.prisma.report.findUniqueOrThrow({ where: { id } })).status).toBe('APPROVED');
        expect(warnings).toHaveLength(1);
        expect(JSON.stringify(warnings[0])).toContain('the decision notice could not be sent; it will be retried');
        // Never the address in the log.
        expect(JSON.stringify(warnings[0])).not.toContain('alice@example.org');
        // Kept in the outbox, and sent by a later pass once the mail server takes it.
        expect(await t.db.prisma.mailOutbox.count({ where: { reportId: id } })).toBe(1);
      } finally {
        registerDecisionNotices(t.db.prisma, { mailer, baseUrl: TEST_BASE_URL, clock: t.clock, logger: t.logger });
      }
      await sendDueDecisionNotices(t.db.prisma);
      expect(await noticesTo('alice@example.org')).toHaveLength(before);
      t.clock.advance(retryDelayMs(1));
      await sendDueDecisionNotices(t.db.prisma);
      expect(await noticesTo('alice@example.org')).toHaveLength(before + 1);
      expect(await t.db.prisma.mailOutbox.count()).toBe(0);
    });
  });

  describe('the edit form', () => {
    it("shows the moderator's feedback first, explains the privacy declaration, and says who sees screenshots", async () => {
      const id = await aliceReport();
      await rejectReport(t.db.prisma, { reportId: id, actorId: null, feedback: 'Please give the date of the test.\nAnd the region.', now: t.clock.now() });
      const form = await alice.get(`/reports/${id}/edit`).expect(200);
      expect(await htmlProblems(form.text)).toEqual([]);
      const html = decode(form.text);
      const feedback = html.indexOf('Why a moderator rejected this report');
      expect(feedback).toBeGreaterThan(-1);
      expect(html.indexOf('Please give the date of the test.')).toBeGreaterThan(feedback);
      expect(feedback, 'the feedback comes before the form').toBeLessThan(html.indexOf('<form method="post" action="/reports/'));
      expect(html).toContain('Before saving, tick the privacy declaration at the end of the form again');
      expect(html).toContain('Tick it again each time you save');
      expect(html).toContain('Screenshots are seen only by the moderators who check your report: they are never published');
      expect(html).toContain('enctype="multipart/form-data"');
      // The new-report form says it too.
      expect(decode((await alice.get('/reports/new').expect(200)).text)).toContain('Screenshots are seen only by the moderators');
    });

    it('adds and removes screenshots within the limits of a new report; a screenshot change alone is a change', async () => {
      const id = await aliceReport([PNG]);
      const [first] = await t.db.prisma.screenshotEvidence.findMany({ where: { reportId: id } });
      await approveReport(t.db.prisma, { reportId: id, actorId: null, now: t.clock.now() });

      // Add one, remove the first, with the same answers: saved, and back to moderation.
      const saved = await postEdit(id, { outcome: 'WORKS', privacy: 'on', [`remove_${first!.id}`]: 'on' }, [PNG]);
      expect(saved.status, saved.text.slice(0, 400)).toBe(303);
      const shots = await t.db.prisma.screenshotEvidence.findMany({ where: { reportId: id } });
      expect(shots).toHaveLength(1);
      expect(shots[0]!.id).not.toBe(first!.id);
      expect(existsSync(first!.storagePath), 'the removed file is deleted').toBe(false);
      expect(existsSync(shots[0]!.storagePath)).toBe(true);
      expect((await t.db.prisma.report.findUniqueOrThrow({ where: { id } })).status).toBe('PENDING');
      const review = await alice.get(`/reports/${id}/review`).expect(200);
      expect(review.text).toContain('1 screenshot added, 1 screenshot removed');

      // At most three in all: one kept and three more is one too many, and nothing is written.
      const tooMany = await postEdit(id, { outcome: 'WORKS', privacy: 'on' }, [PNG, PNG, PNG]);
      expect(tooMany.status).toBe(400);
      expect(decode(tooMany.text)).toContain('Attach at most 3 screenshots. 1 is already attached: remove one to add another.');
      expect(await t.db.prisma.screenshotEvidence.count({ where: { reportId: id } })).toBe(1);

      // A form that comes back with errors says that chosen files must be chosen again.
      const back = await postEdit(id, { outcome: 'WORKS' }, [PNG]);
      expect(back.status).toBe(400);
      expect(decode(back.text)).toContain('The screenshots you chose were not added, because the form came back');
      expect(await t.db.prisma.screenshotEvidence.count({ where: { reportId: id } })).toBe(1);

      // Not an image: refused by its content.
      const text = await postEdit(id, { outcome: 'WORKS', privacy: 'on' }, [Buffer.from('not an image')]);
      expect(text.status).toBe(400);
      expect(decode(text.text)).toContain('Screenshots must be PNG, JPEG or WebP images.');

      // Removing the last one, answers unchanged: saved.
      const removed = await postEdit(id, { outcome: 'WORKS', privacy: 'on', [`remove_${shots[0]!.id}`]: 'on' });
      expect(removed.status).toBe(303);
      expect(await t.db.prisma.screenshotEvidence.count({ where: { reportId: id } })).toBe(0);
    });
  });

  describe('the region', () => {
    it('is a country: names and codes are stored as the alpha-2 code, anything else is refused', () => {
      for (const [typed, code] of [
        ['Germany', 'DE'],
        ['germany', 'DE'],
        ['de', 'DE'],
        ['DE', 'DE'],
        ['DEU', 'DE'],
        ['Deutschland', 'DE'],
        ['United Kingdom', 'GB'],
        ['UK', 'GB'],
        ['United States', 'US'],
        [' france ', 'FR'],
      ] as const) {
        expect(countryCode(typed), typed).toBe(code);
      }
      for (const typed of ['Atlantis', 'EU', 'Europe', 'Berlin', 'XX', '']) expect(countryCode(typed), typed).toBeNull();
    });

    it('is normalized on the form and refused with a clear message when it is not a country', async () => {
      const id = await aliceReport([], { region: 'germany' });
      expect((await t.db.prisma.report.findUniqueOrThrow({ where: { id } })).region).toBe('DE');
      const refused = await submitForm(alice, { adId: T.merchants[nextMerchant++]!.id, agentId: T.agents[0]!.id, outcome: 'WORKS', privacy: 'on', region: 'Berlin' });
      expect(refused.status).toBe(400);
      expect(decode(refused.text)).toContain('Enter the country you tested from, by its name or its two-letter code (for example Germany or DE), or leave it empty');
      const edited = await postEdit(id, { outcome: 'WORKS', privacy: 'on', region: 'France' });
      expect(edited.status).toBe(303);
      expect((await t.db.prisma.report.findUniqueOrThrow({ where: { id } })).region).toBe('FR');
    });

    it('follows the same rule in the API: stored as the alpha-2 code, or a 400 naming region', async () => {
      const { key } = await issueKey(t.db.prisma, { accountId: aliceId, agentId: T.agents[1]!.id }, t.clock.now());
      const auth = { Authorization: `Bearer ${key}` };
      const body = (region: string) => ({ adId: T.merchants[nextMerchant++]!.id, agentId: T.agents[1]!.id, privacy: true, outcome: 'WORKS', region });
      const created = await request(t.app).post('/api/v1/reports').set(auth).send(body('Germany')).expect(201);
      expect(created.body.region ?? (await t.db.prisma.report.findUniqueOrThrow({ where: { id: created.body.id } })).region).toBe('DE');
      const lower = await request(t.app).post('/api/v1/reports').set(auth).send(body('de')).expect(201);
      expect((await t.db.prisma.report.findUniqueOrThrow({ where: { id: lower.body.id } })).region).toBe('DE');
      const refused = await request(t.app).post('/api/v1/reports').set(auth).send(body('Atlantis')).expect(400);
      expect(JSON.stringify(refused.body)).toContain('#/region');
      expect(JSON.stringify(refused.body)).toContain('must be a country');
      const doc = (await request(t.app).get('/api/v1/openapi.json').expect(200)).body;
      expect(doc.components.schemas.ReportSubmission.properties.region.description).toContain('"Germany", "de" and "DEU" all become "DE"');
    });
  });

  describe('signing in and out', () => {
    it('says why sign-in is shown when "Report a test" sent a visitor there, and returns to the form', async () => {
      const visitor = request.agent(t.app);
      const sent = await visitor.get('/reports/new').expect(303);
      expect(sent.headers.location).toBe('/sign-in?next=%2Freports%2Fnew');
      const page = await visitor.get(sent.headers.location!).expect(200);
      expect(page.text).toContain('<h1>Sign in to report a test</h1>');
      expect(page.text).toContain('you come straight back to it');
      expect(await htmlProblems(page.text)).toEqual([]);
      // A plain visit gives no reason.
      expect((await request(t.app).get('/sign-in').expect(200)).text).toContain('<h1>Sign in</h1>');
      await visitor.post('/sign-in').set('Origin', TEST_BASE_URL).type('form').send({ email: 'dave@example.org', next: '/reports/new', _csrf: csrfTokenOf(page.text) }).expect(200);
      const link = new URL(mailer.lastLinkFor('dave@example.org'));
      const back = await visitor.get(`${link.pathname}${link.search}`).expect(303);
      expect(back.headers.location).toBe('/reports/new');
    });

    it('confirms signing out on a page of its own, the same for everyone', async () => {
      const bob = await signIn(t.app, mailer, 'bob@example.org');
      const page = await bob.get('/profile/reports').expect(200);
      const out = await bob.post('/sign-out').set('Origin', TEST_BASE_URL).type('form').send({ _csrf: csrfTokenOf(page.text) }).expect(303);
      expect(out.headers.location).toBe('/sign-out/done');
      const done = await bob.get('/sign-out/done').expect(200);
      expect(done.text).toContain('You are signed out');
      expect(done.text).not.toContain('bob@example.org');
      expect(done.headers['set-cookie']).toBeUndefined();
      expect(await htmlProblems(done.text)).toEqual([]);
      // Someone signed in is not told they are signed out.
      expect((await alice.get('/sign-out/done').expect(303)).headers.location).toBe('/');
    });
  });

  describe('the key page', () => {
    it('lists the agents the account has keys for first, then the chooser, and leads to the guide and the API documentation', async () => {
      const erin = await signIn(t.app, mailer, 'erin@example.org');
      const erinId = (await t.db.prisma.account.findUniqueOrThrow({ where: { email: 'erin@example.org' } })).id;
      const empty = await erin.get('/profile/agents').expect(200);
      expect(empty.text).toContain('<h1>Keys for your agents</h1>');
      expect(empty.text).toContain('You have no keys yet');
      await issueKey(t.db.prisma, { accountId: erinId, agentId: T.agents[2]!.id }, t.clock.now());
      const page = await erin.get('/profile/agents').expect(200);
      expect(await htmlProblems(page.text)).toEqual([]);
      const html = decode(page.text);
      expect(html).toContain('href="/agent-guide"');
      expect(html).toContain('href="/api/v1/openapi.json"');
      expect(html).toContain(`${TEST_BASE_URL}/mcp`);
      const yours = html.indexOf('<h2>Your agents</h2>');
      const listed = html.indexOf(`data-agent-id="${T.agents[2]!.id}"`);
      const chooser = html.indexOf('<h2>Issue a key</h2>');
      expect(yours).toBeGreaterThan(-1);
      expect(listed).toBeGreaterThan(yours);
      expect(chooser).toBeGreaterThan(listed);
      // Other agents are not "yours": listed only in the chooser, after your own.
      expect(html).not.toContain(`data-agent-id="${T.agents[3]!.id}"`);
      const select = html.slice(html.indexOf('<select id="agentId"'), html.indexOf('</select>'));
      expect(select.indexOf('<optgroup label="Your agents">')).toBeLessThan(select.indexOf(T.agents[2]!.id));
      expect(select.indexOf(T.agents[2]!.id)).toBeLessThan(select.indexOf('<optgroup label="Other agents">'));
      expect(select.indexOf('<optgroup label="Other agents">')).toBeLessThan(select.indexOf(T.agents[3]!.id));
    });
  });
});
