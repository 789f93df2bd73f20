import { existsSync, readdirSync, readFileSync } from 'node:fs';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evidenceDir } from '../../src/modules/evidence/screenshots.js';
import { TEST_BASE_URL, type TestApp, createTestApp } from '../setup/app.js';
import { captureMailer, csrfTokenOf, signIn } from '../setup/session.js';
import { contributionTargets } from '../factories/index.js';

// A real 1×1 PNG, and a "PNG" that is really text.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);
const FAKE = Buffer.from('<?php echo "not an image"; ?>');

describe('the /reports/new form', () => {
  let t: TestApp;
  let T: Awaited<ReturnType<typeof contributionTargets>>;
  const mailer = captureMailer();
  let browser: request.Agent;
  beforeAll(async () => {
    t = await createTestApp({ mailer, env: { LIMIT_BROWSER_SUBMISSIONS_PER_HOUR: '3' } });
    T = await contributionTargets(t.db.prisma);
    browser = await signIn(t.app, mailer, 'former@example.org');
  });
  afterAll(() => t.close());

  const evidenceFiles = () => (existsSync(evidenceDir(t.config.dataDir)) ? readdirSync(evidenceDir(t.config.dataDir)) : []);

  function submit(fields: Record<string, string>, files: Array<{ buffer: Buffer; name: string }> = [], agent = browser) {
    const send = async () => {
      const page = await agent.get(`/reports/new?adId=${fields.adId ?? ''}`).expect(200);
      let req = agent.post('/reports/new').set('Origin', TEST_BASE_URL).field('_csrf', csrfTokenOf(page.text));
      for (const [name, value] of Object.entries(fields)) req = req.field(name, value);
      for (const file of files) req = req.attach('screenshots', file.buffer, file.name);
      return req;
    };
    return {
      async expect(status: number) {
        const res = await send();
        expect(res.status, res.text.slice(0, 300)).toBe(status);
        return res;
      },
    };
  }

  it('sends people who are not signed in to the sign-in page', async () => {
    const res = await request(t.app).get('/reports/new').expect(303);
    expect(res.headers.location).toBe('/sign-in?next=%2Freports%2Fnew');
  });

  it('finds merchants by name without JavaScript and offers the active agents', async () => {
    const merchant = T.merchants[0]!;
    const res = await browser.get(`/reports/new?q=${encodeURIComponent(merchant.name.slice(0, 5))}`).expect(200);
    expect(res.text).toContain(`value="${merchant.id}"`);
    for (const agent of T.agents) expect(res.text).toContain(`value="${agent.id}"`);
    expect(res.text).not.toContain(`value="${T.inactive.id}"`);
    expect(res.text).toContain('Not attempted');
    expect(res.text).toMatch(/no private or payment data/);
  });

  it('creates a pending report with its screenshot and leads to the private review page', async () => {
    const merchant = T.merchants[1]!;
    const res = await submit(
      { adId: merchant.id, agentId: T.agents[0]!.id, task_ACCESS: 'WORKS', task_CART: 'BLOCKED', stage: 'CART', failureReason: 'CAPTCHA', humanIntervention: 'no', testedAt: '2026-11-20', experience: 'Stopped by a <b>puzzle</b>', privacy: 'on' },
      [{ buffer: PNG, name: 'screen.txt' }],
    ).expect(303);
    const id = /^\/reports\/([0-9a-f-]+)\/review$/.exec(res.headers.location!)![1]!;
    const report = await t.db.prisma.report.findUniqueOrThrow({ where: { id }, include: { evidence: true } });
    expect(report).toMatchObject({ status: 'PENDING', channel: 'BROWSER', outcome: 'PARTIAL', stage: 'CART', failureReason: 'CAPTCHA', humanIntervention: false });
    expect(report.capabilityResults).toEqual({ ACCESS: 'WORKS', CART: 'BLOCKED' });
    expect(report.evidence).toHaveLength(1);
    expect(report.evidence[0]).toMatchObject({ mediaType: 'image/png', sizeBytes: PNG.length });
    expect(readFileSync(report.evidence[0]!.storagePath)).toEqual(PNG);
    expect(report.evidence[0]!.storagePath.startsWith(evidenceDir(t.config.dataDir))).toBe(true);

    const review = await browser.get(res.headers.location!).expect(200);
    expect(review.text).toContain('Waiting for moderation');
    expect(review.text).toContain('Stopped by a &lt;b&gt;puzzle&lt;/b&gt;');
    expect(review.text).not.toContain(report.evidence[0]!.storagePath);
    // Only the author sees it.
    const other = await signIn(t.app, mailer, 'someone-else@example.org');
    await other.get(res.headers.location!).expect(404);
  });

  it('rejects a fake image by its bytes, re-renders with the error and the typed values, and leaves no row or file', async () => {
    const before = await t.db.prisma.report.count();
    const files = evidenceFiles().length;
    const res = await submit(
      { adId: T.merchants[2]!.id, agentId: T.agents[1]!.id, outcome: 'WORKS', experience: 'kept text', privacy: 'on' },
      [{ buffer: FAKE, name: 'shot.png' }],
    ).expect(400);
    expect(res.text).toContain('Screenshots must be PNG, JPEG or WebP images.');
    expect(res.text).toContain('kept text');
    expect(res.text).toMatch(new RegExp(`value="${T.merchants[2]!.id}" selected`));
    expect(await t.db.prisma.report.count()).toBe(before);
    expect(evidenceFiles().length).toBe(files);
  });

  it('shows each validation error next to its field, in plain words, and in a summary at the top', async () => {
    const res = await submit({ adId: T.merchants[3]!.id, agentId: T.agents[1]!.id, task_CART: 'WORKS', testedAt: '2099-01-01' }).expect(400);
    expect(res.text).toMatch(/id="privacy-error" class="error field-error">Confirm that the report contains no private or payment data/);
    expect(res.text).toMatch(/id="testedAt-error" class="error field-error">The date of the test cannot be in the future/);
    expect(res.text).toContain('<a href="#privacy">Confirm that the report contains no private or payment data');
    expect(res.text).toContain('<a href="#testedAt">The date of the test cannot be in the future</a>');
    const none = await submit({ adId: T.merchants[3]!.id, agentId: T.agents[1]!.id, privacy: 'on' }).expect(400);
    expect(none.text).toMatch(/id="results-error" class="error field-error">Say how at least one task went, or give an overall result/);
  });

  it('refuses more than 3 screenshots and files over 5 MB, writing nothing', async () => {
    const before = await t.db.prisma.report.count();
    const four = Array.from({ length: 4 }, (_, i) => ({ buffer: PNG, name: `s${i}.png` }));
    const many = await submit({ adId: T.merchants[4]!.id, agentId: T.agents[1]!.id, outcome: 'WORKS', privacy: 'on' }, four).expect(400);
    expect(many.text).toContain('Attach at most 3 screenshots.');
    const big = Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024)]);
    const large = await submit({ adId: T.merchants[4]!.id, agentId: T.agents[1]!.id, outcome: 'WORKS', privacy: 'on' }, [{ buffer: big, name: 'big.png' }]).expect(400);
    expect(large.text).toContain('at most 5 MB');
    expect(await t.db.prisma.report.count()).toBe(before);
  });

  it('shares the hourly browser limit with the API', async () => {
    const person = await signIn(t.app, mailer, 'shared-limit@example.org');
    await person.post('/api/v1/reports').set('Origin', TEST_BASE_URL).send({ adId: T.merchants[5]!.id, agentId: T.agents[2]!.id, privacy: true, outcome: 'WORKS' }).expect(201);
    await submit({ adId: T.merchants[6]!.id, agentId: T.agents[2]!.id, outcome: 'WORKS', privacy: 'on' }, [], person).expect(303);
    await submit({ adId: T.merchants[7]!.id, agentId: T.agents[2]!.id, outcome: 'WORKS', privacy: 'on' }, [], person).expect(303);
    const limited = await submit({ adId: T.merchants[8]!.id, agentId: T.agents[2]!.id, outcome: 'WORKS', privacy: 'on' }, [{ buffer: PNG, name: 'a.png' }], person).expect(429);
    expect(limited.headers['retry-after']).toBeDefined();
    expect(limited.text).toMatch(/at most 3 per 60 minutes/);
    await person.post('/api/v1/reports').set('Origin', TEST_BASE_URL).send({ adId: T.merchants[9]!.id, agentId: T.agents[2]!.id, privacy: true, outcome: 'WORKS' }).expect(429);
  });
});
