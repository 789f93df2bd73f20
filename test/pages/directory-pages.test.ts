// The browsable directory over the demo data: the pages show what the API shows (same services,
// same aggregation), validate as HTML, keep the shared layout, and fail kindly.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPABILITY_STATUS_LABELS, TASKS } from '../../src/modules/aggregation/constants.js';
import { methodology } from '../../src/modules/aggregation/methodology.js';
import { TASK_RESULT_WORDS } from '../../src/modules/aggregation/verdict.js';
import { recomputeSummaries } from '../../src/modules/aggregation/summaries.service.js';
import { STALE_LISTS_MS } from '../../src/web/middleware/response-cache.js';
import { DISCLAIMER } from '../../src/modules/directory/notice.js';
import { OWNER_STATEMENT_ATTRIBUTION } from '../../src/modules/merchants/merchants.service.js';
import { confidenceInWords } from '../../src/modules/site/present.js';
import { formatDate } from '../../src/dates.js';
import { createDemoApp, DEMO_NOW } from '../setup/demo.js';
import type { TestApp } from '../setup/app.js';
import { captureMailer, signIn } from '../setup/session.js';
import { htmlProblems } from './html-validate.js';

const SPONSORED = 'Sponsored — advertising, not evidence that the site works';
const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&#34;').replace(/'/g, '&#39;');

/** Slugs of the merchants listed on a directory page, in the page's order: every card, sponsored ones (first) included. */
const listedSlugs = (html: string) => [...html.matchAll(/<li class="merchant-card(?: sponsored)?" data-merchant="([^"]+)"/g)].map((m) => m[1]!);

/** What every HTML page of the site must have. */
async function expectSitePage(html: string, where: string) {
  expect(await htmlProblems(html), where).toEqual([]);
  expect(html, where).toMatch(/<header class="site-header">[\s\S]*(Not signed in|Signed in as)/);
  expect(html, where).toContain(DISCLAIMER.replace(/'/g, '&#39;'));
  expect(html, where).toContain('<a href="/how-it-works">How it works: the methodology</a>');
  // The CSP allows no inline script, handler or style: none is written.
  expect(html, where).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
  expect(html, where).not.toMatch(/<[a-z][^>]*\s(style|on[a-z]+)=/i);
}

describe('directory pages', () => {
  let t: TestApp;
  const mailer = captureMailer();
  const get = (path: string) => request(t.app).get(path);
  const api = async (path: string) => (await get(path).expect(200)).body as { total: number; data: Array<Record<string, unknown>> };

  beforeAll(async () => {
    t = await createDemoApp({ mailer });
  });
  afterAll(() => t.close());

  describe('/ (the directory)', () => {
    it('lists what GET /api/v1/merchants lists, in its order, sponsored first and labelled', async () => {
      const res = await get('/').expect(200);
      await expectSitePage(res.text, '/');
      const { data } = await api('/api/v1/merchants');
      expect(listedSlugs(res.text)).toEqual(data.map((m) => m.slug));
      const sponsored = data.filter((m) => m.sponsored);
      expect(sponsored.length).toBeGreaterThan(0);
      expect(data.slice(0, sponsored.length).every((m) => m.sponsored)).toBe(true);
      // Sponsored listings are cards like the others, first, each marked and with the disclosure,
      // and with their evidence; the count line counts them apart.
      const cards = [...res.text.matchAll(/<li class="merchant-card( sponsored)?" data-merchant="([^"]+)"[\s\S]*?<\/li>\s*(?=<li class="merchant-card|<\/ol>)/g)];
      for (const [card, mark, slug] of cards) {
        const merchant = data.find((m) => m.slug === slug)!;
        expect(Boolean(mark), slug).toBe(merchant.sponsored);
        if (merchant.sponsored) {
          expect(card).toContain('<span class="sponsored-tag">Sponsored</span>');
          expect(card).toContain(SPONSORED);
        }
        // Every card shows each agent's verdict, sponsored or not.
        const verdicts = (merchant.agents as Array<{ verdict: { sentence: string } }>).map((a) => escapeHtml(a.verdict.sentence));
        for (const sentence of verdicts) expect(card, slug!).toContain(`<span class="verdict-sentence">${sentence}</span>`);
      }
      const { total } = await api('/api/v1/merchants');
      const allSponsored = (await api('/api/v1/merchants')).data.filter((m) => m.sponsored).length;
      expect(res.text).toContain(`${total - allSponsored} shops + ${allSponsored} sponsored found`);
      expect(res.headers['content-security-policy']).toBe(
        "default-src 'self';script-src 'self';script-src-attr 'none';style-src 'self';img-src 'self' data:;font-src 'self';" +
          "connect-src 'self';object-src 'none';base-uri 'self';form-action 'self';frame-ancestors 'none'",
      );
    });

    it('applies every filter of the API the same way', async () => {
      const [agent] = (await api('/api/v1/agents')).data;
      const queries = [
        `agent=${agent!.slug}&outcome=WORKS`,
        `agent=${agent!.slug}&outcome=PARTIAL&stage=CART`,
        'category=consumer-electronics',
        'category=Home%20%26%20Garden&sort=name',
        'region=gb&sort=popular',
        'days=30&minReports=2',
        `sort=rating&agent=${agent!.slug}`,
        'q=lamp',
        'page=2',
      ];
      for (const query of queries) {
        const page = await get(`/?${query}`).expect(200);
        const { data, total } = await api(`/api/v1/merchants?${query}`);
        expect(listedSlugs(page.text), query).toEqual(data.map((m) => m.slug));
        // Sponsored listings come first: the first page of the same filters holds them all.
        const sponsoredTotal = (await api(`/api/v1/merchants?${query.replace(/&?page=\d+/, '')}`)).data.filter((m) => m.sponsored).length;
        expect(page.text, query).toMatch(new RegExp(`<p class="result-count" role="status">${total - sponsoredTotal} shops?${sponsoredTotal ? ` \\+ ${sponsoredTotal} sponsored` : ''} found`));
      }
      await expectSitePage((await get(`/?agent=${agent!.slug}&outcome=WORKS&stage=CART&region=GB&days=90`)).text, 'filtered');
    });

    it('treats empty form fields as not given and ignores unknown parameters', async () => {
      const plain = listedSlugs((await get('/').expect(200)).text);
      const empty = await get('/?q=&category=&agent=&outcome=&stage=&region=&days=&minReports=&sort=recent&utm_source=mail').expect(200);
      expect(listedSlugs(empty.text)).toEqual(plain);
    });

    it('pages through the results, keeping the filters', async () => {
      const first = await get('/?sort=name').expect(200);
      expect(first.text).toContain('href="/?sort=name&amp;page=2" rel="next"');
      const { total } = await api('/api/v1/merchants');
      const last = Math.ceil(total / 24);
      const beyond = await get(`/?page=${last + 1}`).expect(200);
      expect(beyond.text).toContain('There are no merchants on this page.');
      await expectSitePage(beyond.text, 'beyond the last page');
    });

    it.each([
      ['days=abc', 'Reported in the last … days: must be a whole number.'],
      ['days=0', 'Reported in the last … days: must be at least 1.'],
      ['minReports=-1', 'Minimum number of reports: must be a whole number.'],
      ['region=Mars', 'Region: must be a two-letter country code or GLOBAL.'],
      ['outcome=GREAT', 'Has a report saying: choose one of the listed options.'],
      ['stage=CHECKOUT_NOW', 'Has a report whose furthest stage is: choose one of the listed options.'],
      ['sort=rating&agent=nobody-at-all', 'Agent: there is no active agent with that name.'],
      ['agent=nobody-at-all', 'Agent: there is no active agent with that name.'],
      ['agent=Not%20A%20Slug', 'Agent: must be a slug'],
      ['category=no-such-thing', 'Category: there is no such category.'],
      ['page=0', 'Page: must be at least 1.'],
      ['q=a&q=b', 'Search: give one value only.'],
    ])('answers the invalid filter %s with a friendly message (400), never a 500', async (query, message) => {
      const res = await get(`/?${query}`).expect(400);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toContain('Some filters could not be used.');
      expect(res.text).toContain(message.replace(/'/g, '&#39;'));
      expect(res.text).toContain('<form method="get" action="/"');
      await expectSitePage(res.text, query);
    });
  });

  describe('/categories/:slug', () => {
    it('lists the category as the API filter does', async () => {
      const res = await get('/categories/electronics').expect(200);
      await expectSitePage(res.text, '/categories/electronics');
      expect(res.text).toContain('<h1>Electronics</h1>');
      const { data } = await api('/api/v1/merchants?category=electronics');
      expect(listedSlugs(res.text)).toEqual(data.map((m) => m.slug));
      // The category is the page's own: no category field in its form.
      expect(res.text).not.toContain('id="f-category"');
    });

    it('moves legacy names and slugs, and other spellings, permanently to the canonical URL', async () => {
      for (const legacy of ['Consumer%20Electronics', 'consumer-electronics', 'ELECTRONICS', 'Electronics']) {
        const res = await get(`/categories/${legacy}`).expect(301);
        expect(res.headers.location).toBe('/categories/electronics');
      }
      const withQuery = await get('/categories/Outdoor%20Gear?sort=name&page=2').expect(301);
      expect(withQuery.headers.location).toBe('/categories/sports-outdoors?sort=name&page=2');
    });

    it('answers an unknown category with the 404 page', async () => {
      const res = await get('/categories/not-a-category').expect(404);
      expect(res.text).toContain('Category not found');
      await expectSitePage(res.text, 'unknown category');
    });
  });

  describe('/agents/:slug', () => {
    it('lists the merchants of /api/v1/agents/:slug/merchants with that agent\'s summary', async () => {
      const [agent] = (await api('/api/v1/agents')).data;
      const res = await get(`/agents/${agent!.slug}?sort=name&agent=ignored`).expect(200);
      await expectSitePage(res.text, '/agents/:slug');
      const { data } = await api(`/api/v1/agents/${agent!.slug}/merchants?sort=name`);
      expect(listedSlugs(res.text)).toEqual(data.map((m) => m.slug));
      expect(res.text).not.toContain('id="f-agent"');
    });

    it('answers unknown and inactive agents with the 404 page', async () => {
      const inactive = await t.db.prisma.agent.findFirstOrThrow({ where: { active: false } });
      for (const slug of ['no-such-agent', inactive.slug]) {
        const res = await get(`/agents/${slug}`).expect(404);
        expect(res.text).toContain('Agent not found');
      }
    });
  });

  describe('/merchants/:slug', () => {
    it('shows every active agent × the seven tasks with the API\'s statuses, each in words', async () => {
      const { data } = await api('/api/v1/merchants?sort=popular');
      for (const merchant of data.slice(0, 5)) {
        const res = await get(`/merchants/${merchant.slug}`).expect(200);
        await expectSitePage(res.text, `/merchants/${merchant.slug}`);
        const profile = (await get(`/api/v1/merchants/${merchant.slug}`).expect(200)).body.data as {
          agents: Array<{ agent: { slug: string }; status: string; label: string; verdict: { colour: string }; capabilities: Record<string, { status: string }> }>;
        };
        const cells = [
          ...res.text.matchAll(
            /<td class="cell" data-task="(\w+)" data-status="(\w+)">\s*<span class="cell-task"><span class="cell-agent">[^<]*<\/span> [^<]*<\/span>\s*<span class="cell-status"><span class="symbol" aria-hidden="true">[^<]*<\/span> ([^<]+)<\/span>/g,
          ),
        ];
        expect(cells).toHaveLength(profile.agents.length * TASKS.length);
        const expected = profile.agents.flatMap((a) => TASKS.map((task) => [task, a.capabilities[task]!.status]));
        expect(cells.map((c) => [c[1], c[2]])).toEqual(expected);
        // A cell says the task's result in words, or, where the spec's status stays untested, how
        // the verdict places the step (reached, stopped here, passed on the way, not reached).
        for (const c of cells) {
          const words = TASK_RESULT_WORDS[c[2] as keyof typeof TASK_RESULT_WORDS].words;
          if (c[2] === 'untested' || c[2] === 'unknown') expect(c[3]).toMatch(new RegExp(`^(${words}|Reached|Stopped here: .*|Passed on the way|Not reached)$`));
          else expect(c[3]).toBe(words.replace(/'/g, '&#39;'));
        }
        for (const a of profile.agents) expect(res.text).toContain(`<tr id="agent-${a.agent.slug}">`);
        // Each row shows the API's verdict, word for word.
        const rowVerdicts = [...res.text.matchAll(/<span class="row-verdict"><span class="verdict verdict-(\w+) [^"]*"[^>]*><span class="symbol" aria-hidden="true">[^<]*<\/span> <span class="verdict-sentence">([^<]*)<\/span>/g)].map((r) => [r[1], r[2]]);
        expect(rowVerdicts).toEqual(profile.agents.map((a) => [a.verdict.colour, escapeHtml(a.label)]));
        expect(res.text).toContain(`href="/reports/new?adId=${merchant.id}"`);
      }
    });

    it('names the agents without reports as not tested yet, never with a date, and the owner statement apart from the evidence', async () => {
      const owned = await t.db.prisma.merchant.findFirstOrThrow({
        where: { isPublic: true, ownerStatement: { isNot: null } },
        include: { ownerStatement: true },
        orderBy: { name: 'asc' },
      });
      const res = await get(`/merchants/${owned.slug}`).expect(200);
      const profile = (await get(`/api/v1/merchants/${owned.slug}`)).body.data as {
        agents: Array<{ agent: { slug: string; name: string }; counts: { total: number } }>;
        ownerCompatibility: { declaredAt: string };
      };
      const untested = profile.agents.filter((a) => a.counts.total === 0);
      if (untested.length) {
        const line = /<p class="muted not-yet">([^<]*)<\/p>/.exec(res.text)![1]!;
        expect(line).toBe(`Not tested yet here: ${untested.map((a) => a.agent.name).join(', ')}.`);
      }
      // An agent with reports never reads "not tested".
      for (const agent of profile.agents.filter((a) => a.counts.total > 0)) {
        const item = new RegExp(`<li id="verdict-${agent.agent.slug}">([\\s\\S]*?)</li>`).exec(res.text)![1]!;
        expect(item).not.toMatch(/not tested/i);
        expect(item).toMatch(/\d+ reports? · last tested [A-Z][a-z]{2} \d{4}/);
      }
      const box = /<aside class="owner-statement"[\s\S]*?<\/aside>/.exec(res.text)![0];
      expect(box).toContain(OWNER_STATEMENT_ATTRIBUTION);
      expect(box).toContain(`datetime="${profile.ownerCompatibility.declaredAt}"`);
      expect(box).toContain('not a test date');
      // Outside the community evidence sections.
      const evidence = /<section aria-labelledby="matrix-heading">[\s\S]*?<\/section>/.exec(res.text)![0];
      expect(evidence).not.toContain(owned.ownerStatement!.statement.slice(0, 30).replace(/'/g, '&#39;'));
    });

    it('discloses sponsorship once: the disclosure, then what sponsorship does', async () => {
      const { data } = await api('/api/v1/merchants');
      for (const sponsored of data.filter((m) => m.sponsored)) {
        const res = await get(`/merchants/${sponsored.slug}`).expect(200);
        const box = /<aside class="sponsorship"[\s\S]*?<\/aside>/.exec(res.text)![0];
        expect(box).toContain('<h2 id="sponsor-heading">Sponsored listing</h2>');
        const disclosure = String(sponsored.sponsorshipDisclosure).replace(/'/g, '&#39;');
        expect(box.split(disclosure)).toHaveLength(2);
        // "Not evidence", "advertising" and who owns the site: said once, by the disclosure.
        expect(box.match(/not evidence/gi), sponsored.slug as string).toHaveLength(1);
        expect(box.match(/publisher/gi)?.length ?? 0).toBeLessThanOrEqual(1);
        expect(box).toContain('it changes no verdict, status or count on this page');
        expect(box).not.toMatch(/placement: /);
        await expectSitePage(res.text, 'sponsored merchant');
      }
    });

    it('marks conflicts, lists the evidence behind a cell, and escapes experience text', async () => {
      const merchant = await t.db.prisma.merchant.findFirstOrThrow({ where: { isPublic: true }, orderBy: { name: 'desc' } });
      const agent = await t.db.prisma.agent.findFirstOrThrow({
        where: { active: true, reports: { none: { merchantId: merchant.id } } },
        orderBy: { name: 'asc' },
      });
      const now = new Date(DEMO_NOW);
      const made = [];
      for (const [i, outcome] of (['WORKS', 'BLOCKED'] as const).entries()) {
        const account = await t.db.prisma.account.create({ data: { email: `conflict${i}@example.org` } });
        made.push(
          await t.db.prisma.report.create({
            data: {
              accountId: account.id,
              merchantId: merchant.id,
              agentId: agent.id,
              status: 'APPROVED',
              channel: 'BROWSER',
              capabilityResults: { ACCESS: outcome },
              outcome,
              privacyConfirmed: true,
              testedAt: now,
              experience: i === 0 ? 'Fine <img src=x onerror=alert(1)> & quick\nsecond line' : null,
              createdAt: now,
            },
          }),
        );
      }
      await recomputeSummaries(t.db.prisma, [{ merchantId: merchant.id, agentId: agent.id }], now);
      // Lists may be served as they were for STALE_LISTS_MS after a change; the later tests
      // compare lists with each other, so let the bound pass.
      t.clock.advance(STALE_LISTS_MS);

      const res = await get(`/merchants/${merchant.slug}`).expect(200);
      await expectSitePage(res.text, 'merchant with conflict');
      const row = new RegExp(`<tr id="agent-${agent.slug}">([\\s\\S]*?)</tr>`).exec(res.text)![1]!;
      const access = /<td class="cell" data-task="ACCESS"[\s\S]*?<\/td>/.exec(row)![0];
      expect(access).toContain('data-status="blocked"');
      expect(access).toContain('Conflicting reports');
      expect(access).toContain('2 reports, 2 recent');
      expect(access).toContain('<summary>Why');
      // The verdict rests on the conflicting step and says so.
      expect(new RegExp(`<li id="verdict-${agent.slug}">([\\s\\S]*?)</li>`).exec(res.text)![1]).toContain('reports disagree');
      for (const report of made) expect(access).toContain(`href="#report-${report.id}"`);
      expect(res.text).toContain(`id="report-${made[0]!.id}"`);
      expect(res.text).toContain('Fine &lt;img src=x onerror=alert(1)&gt; &amp; quick\nsecond line');
      expect(res.text).not.toContain('<img src=x');
    });

    it('redirects an id to the slug URL, and answers hidden or unknown merchants with the 404 page', async () => {
      const merchant = await t.db.prisma.merchant.findFirstOrThrow({ where: { isPublic: true } });
      const byId = await get(`/merchants/${merchant.id}`).expect(301);
      expect(byId.headers.location).toBe(`/merchants/${merchant.slug}`);
      const hidden = await t.db.prisma.merchant.findFirstOrThrow({ where: { isPublic: false } });
      for (const path of [`/merchants/${hidden.slug}`, '/merchants/no-such-shop']) {
        const res = await get(path).expect(404);
        expect(res.text).toContain('Merchant not found');
        await expectSitePage(res.text, path);
      }
      await get(`/merchants/${merchant.slug}?reports=abc`).expect(400);
    });
  });

  describe('/how-it-works', () => {
    it('prints every threshold and window from the aggregation constants', async () => {
      const res = await get('/how-it-works').expect(200);
      await expectSitePage(res.text, '/how-it-works');
      const m = methodology(t.clock.now());
      for (const c of m.constants) expect(res.text).toContain(`data-constant="${c.name}">${c.value}</td>`);
      for (const rule of m.statusRules) expect(res.text).toContain(rule.when.replace(/"/g, '&#34;').replace(/'/g, '&#39;'));
      for (const rule of m.confidenceRules) expect(res.text).toContain(rule.label);
      // The API's summary fields are described in their own section, with their names.
      for (const text of Object.values(m.apiSummaryRules)) expect(res.text).toContain(escapeHtml(text));
      for (const row of m.taskCompletedFromStage) expect(res.text).toContain(`<th scope="row">${row.taskLabel.replace(/&/g, '&amp;')}</th>`);
      for (const label of Object.values(CAPABILITY_STATUS_LABELS)) expect(res.text).toContain(label);
      expect(res.text).toContain('Sponsorship is advertising.');
      expect(res.text).toContain("A statement is the owner's claim, not a test");
      expect(res.text).toMatch(/moderat/);
    });
  });

  describe('/problems', () => {
    it('lists every problem type and validates the index and a problem page', async () => {
      const index = await get('/problems').expect(200);
      await expectSitePage(index.text, '/problems');
      const page = await get('/problems/stale-version').expect(200);
      await expectSitePage(page.text, '/problems/stale-version');
      expect(page.text).toContain('<code>updatedAt</code>');
    });
  });

  describe('verdicts a person can trust', () => {
    type ApiSummary = {
      agent: { slug: string; name: string };
      label: string;
      counts: { total: number };
      verdict: { sentence: string; colour: string; confidence: string; evidenceText: string; evidence: { reports: number } };
    };
    const profileOf = async (slug: string) =>
      (await get(`/api/v1/merchants/${slug}`).expect(200)).body.data as { slug: string; agents: ApiSummary[] };

    it('leads each merchant page with each agent\'s verdict and its evidence; the seven-task table follows', async () => {
      const { data } = await api('/api/v1/merchants?sort=popular');
      const colours = new Set<string>();
      for (const merchant of data.slice(0, 8)) {
        const profile = await profileOf(merchant.slug as string);
        const res = await get(`/merchants/${profile.slug}`).expect(200);
        const first = /<section aria-labelledby="verdicts-heading"[\s\S]*?<\/section>/.exec(res.text)![0];
        expect(res.text.indexOf('id="verdicts-heading"')).toBeLessThan(res.text.indexOf('id="matrix-heading"'));
        for (const summary of profile.agents.filter((a) => a.counts.total > 0)) {
          colours.add(summary.verdict.colour);
          const item = new RegExp(`<li id="verdict-${summary.agent.slug}">([\\s\\S]*?)</li>`).exec(first)![1]!;
          expect(item).toContain(`<span class="verdict verdict-${summary.verdict.colour} conf-${summary.verdict.confidence}"`);
          expect(item).toContain(`<span class="verdict-sentence">${escapeHtml(summary.label)}</span>`);
          expect(item).toContain(escapeHtml(summary.verdict.evidenceText));
          expect(item).toContain(`<a href="/how-it-works#confidence">${summary.verdict.confidence} confidence</a>`);
          // Every cell names its agent and task (read on a phone, where the table becomes cards).
          const row = new RegExp(`<tr id="agent-${summary.agent.slug}">([\\s\\S]*?)</tr>`).exec(res.text)![1]!;
          for (const task of TASKS) {
            expect(row).toMatch(new RegExp(`data-task="${task}"[^>]*>\\s*<span class="cell-task"><span class="cell-agent">${escapeHtml(summary.agent.name)}</span> `));
          }
        }
        // People's words only: one date ("last tested"), no engine terms.
        for (const term of ['Score band', 'Sets the status', 'Latest evidence', 'Last reported', 'in few reports', 'overall: ']) expect(res.text).not.toContain(term);
        await expectSitePage(res.text, `/merchants/${profile.slug}`);
      }
      expect(colours.size).toBeGreaterThanOrEqual(3);
    });

    it('defines confidence once, in plain words, and links every verdict\'s confidence to it', async () => {
      const how = await get('/how-it-works').expect(200);
      const section = /<section id="confidence"[\s\S]*?<\/section>/.exec(how.text)![0];
      const plain = section.slice(0, section.indexOf('id="confidence-rules"'));
      const words = confidenceInWords();
      for (const text of [words.intro, words.overall, ...words.levels.map((l) => l.meaning)]) expect(plain).toContain(escapeHtml(text));
      expect(plain).toMatch(/how many reports there are, how much they agree, and how recent they are/);
      expect(plain).not.toMatch(/Wilson|HALF_LIFE|MIN_MASS|Otherwise|≥/);

      const home = await get('/').expect(200);
      const verdicts = [...home.text.matchAll(/<ul class="verdicts">([\s\S]*?)<\/ul>/g)].flatMap((m) => [...m[1]!.matchAll(/<li>([\s\S]*?)<\/li>/g)].map((l) => l[1]!));
      expect(verdicts.length).toBeGreaterThan(10);
      for (const item of verdicts) {
        expect(item).toMatch(/<span class="verdict-evidence">\d+ reports? · last tested [A-Z][a-z]{2} \d{4} · <a href="\/how-it-works#confidence">(low|medium|high) confidence<\/a>/);
      }
    });

    it('words the report filters as what they match, and explains why a badge may differ', async () => {
      const [agent] = (await api('/api/v1/agents')).data;
      const plain = await get('/').expect(200);
      expect(plain.text).toContain('<label for="f-outcome">Has a report saying</label>');
      expect(plain.text).toContain('<label for="f-stage">Has a report whose furthest stage is</label>');
      expect(plain.text).toContain('<option value="BLOCKED">“Blocked”</option>');
      expect(plain.text).not.toContain('class="notice filter-note"');

      const filtered = await get(`/?agent=${agent!.slug}&outcome=BLOCKED`).expect(200);
      await expectSitePage(filtered.text, 'agent and outcome');
      const note = /<p class="notice filter-note">([\s\S]*?)<\/p>/.exec(filtered.text)![1]!;
      expect(note).toContain(`each merchant listed has at least one approved report about ${agent!.name as string} saying “Blocked”`);
      expect(note).toContain("Each verdict sums up all the agent's reports, so it can say something else.");
      expect(filtered.text).toMatch(/Filtered by <span class="filter-chip">Agent: <strong>[^<]+<\/strong><\/span>; <span class="filter-chip">Has a report saying: <strong>Blocked<\/strong><\/span>/);
    });

    it('explains that sorting by rating needs an agent, lists the agents, and still lists merchants', async () => {
      const agents = (await api('/api/v1/agents')).data;
      for (const [path, apiQuery] of [['/?sort=rating', ''], ['/categories/electronics?sort=rating&q=a', '?category=electronics&q=a']] as const) {
        const res = await get(path).expect(200);
        await expectSitePage(res.text, path);
        const notice = /<div class="notice" id="needs-agent">([\s\S]*?)<\/div>/.exec(res.text)![1]!;
        expect(notice).toContain('Sorting by rating needs an agent');
        for (const a of agents) expect(notice).toContain(`>${a.name as string}</a>`);
        expect(notice).toContain(`sort=rating`);
        expect(notice).toMatch(/href="[^"]*agent=[a-z0-9-]+[^"]*sort=rating"/);
        const { data } = await api(`/api/v1/merchants${apiQuery}`);
        expect(listedSlugs(res.text)).toEqual(data.map((m) => m.slug));
      }
      // The sort the notice offers works.
      const sorted = await get(`/?agent=${agents[0]!.slug as string}&sort=rating`).expect(200);
      expect(sorted.text).not.toContain('id="needs-agent"');
      // On an agent's own page rating needs nothing more.
      expect((await get(`/agents/${agents[0]!.slug as string}?sort=rating`).expect(200)).text).not.toContain('id="needs-agent"');
    });

    it('a plain search keeps the filters closed, and an empty search suggests the spelling, not fewer filters', async () => {
      const search = await get('/?q=lamp').expect(200);
      expect(search.text).toMatch(/<details class="more-filters">/);
      expect(search.text).not.toContain('class="active-filters"');
      // The filters and the category and agent lists come before the results (closed on a phone).
      expect(search.text.indexOf('id="filters"')).toBeLessThan(search.text.indexOf('id="results-heading"'));
      expect(search.text.indexOf('class="browse-lists"')).toBeLessThan(search.text.indexOf('id="results-heading"'));
      // Filters set: open beside the results on a wide screen (a script), closed above them on a phone.
      expect((await get('/?region=GB').expect(200)).text).toMatch(/<details class="more-filters" data-open-wide>/);
      expect((await get('/?region=Mars').expect(400)).text).toMatch(/<details class="more-filters" open>/);

      const misspelled = await get('/?q=zzxqvv').expect(200);
      await expectSitePage(misspelled.text, 'misspelled search');
      const empty = /<p class="empty">([\s\S]*?)<\/p>/.exec(misspelled.text)![1]!;
      expect(empty).toContain('No merchant matches “zzxqvv”. Check the spelling');
      expect(empty).toContain('<a href="/">browse all merchants</a>');
      expect(misspelled.text).not.toContain('Try fewer filters');

      const withFilters = /<p class="empty">([\s\S]*?)<\/p>/.exec((await get('/?q=zzxqvv&region=GB').expect(200)).text)![1]!;
      expect(withFilters).toContain('with these filters');
      expect(withFilters).toContain('<a href="/?q=zzxqvv">search without the filters</a>');

      const onlyFilters = /<p class="empty">([\s\S]*?)<\/p>/.exec((await get('/?minReports=100000').expect(200)).text)![1]!;
      expect(onlyFilters).toContain('Try fewer filters');
      expect(onlyFilters).not.toContain('spelling');

      const inCategory = /<p class="empty">([\s\S]*?)<\/p>/.exec((await get('/categories/electronics?q=zzxqvv').expect(200)).text)![1]!;
      expect(inCategory).not.toContain('Try fewer filters');
      expect(inCategory).toContain('<a href="/?q=zzxqvv">search the whole directory</a>');
    });

    it('says when the directory was last updated, on every public page, from the newest approved report; a merchant’s page from its own', async () => {
      const newest = await t.db.prisma.merchant.aggregate({ where: { isPublic: true }, _max: { lastReportedAt: true } });
      const at = newest._max.lastReportedAt!;
      const { data } = await api('/api/v1/merchants?sort=name');
      const [agent] = (await api('/api/v1/agents')).data;
      for (const path of ['/', '/categories/electronics', `/agents/${agent!.slug as string}`, '/how-it-works', '/problems']) {
        const res = await get(path).expect(200);
        expect(res.text, path).toContain(
          `<p class="freshness">Updated <time datetime="${at.toISOString()}">${formatDate(at)}</time>: the date of the newest approved report.</p>`,
        );
      }
      // A merchant's page changes with that merchant alone (it stays cached while others change).
      const reported = data.find((m) => m.lastReportedAt !== null)!;
      const own = new Date(reported.lastReportedAt as string);
      expect((await get(`/merchants/${reported.slug as string}`).expect(200)).text).toContain(
        `<p class="freshness">Updated <time datetime="${own.toISOString()}">${formatDate(own)}</time>: the date of this merchant’s newest approved report.</p>`,
      );
    });

    it('sums up an agent on its page: reports of the last 30 days, and how far it gets, each count linking to its list', async () => {
      const [agent] = (await api('/api/v1/agents')).data;
      const slug = agent!.slug as string;
      const res = await get(`/agents/${slug}`).expect(200);
      await expectSitePage(res.text, `/agents/${slug}`);
      const since = new Date(new Date(DEMO_NOW).getTime() - 30 * 86_400_000);
      const recent = await t.db.prisma.report.count({
        where: { agent: { slug }, status: 'APPROVED', merchant: { isPublic: true }, createdAt: { gt: since, lte: new Date(DEMO_NOW) } },
      });
      const overview = /<section aria-labelledby="overview-heading" class="agent-overview">([\s\S]*?)<\/section>/.exec(res.text)![1]!;
      expect(overview).toContain(`<strong>${recent} approved report${recent === 1 ? '' : 's'}</strong> about ${agent!.name as string} in the last 30 days`);
      const { total } = await api(`/api/v1/agents/${slug}/merchants`);
      expect(overview).toContain(`How far it gets on the ${total} merchants with reports`);
      // Each count is the length of the list it links to: the API's reaches= filter, on the agent's page.
      const bars = [...overview.matchAll(/<tr data-reach="(\w+)">[\s\S]*?<td class="number"><a href="([^"]+)">(\d+)<[\s\S]*?<span class="bar reach-bar w-(\d+)"><\/span>/g)];
      expect(bars.map((b) => b[1])).toEqual(['ACCESS', 'SEARCH', 'DETAILS', 'CART', 'CHECKOUT', 'PURCHASE']);
      for (const [, task, href, count, width] of bars) {
        expect(href).toBe(`/agents/${slug}?reaches=${task}&amp;sort=reach#results-heading`);
        expect(Number(count), task).toBe((await api(`/api/v1/agents/${slug}/merchants?reaches=${task}`)).total);
        expect(Number(width) % 5).toBe(0);
        const list = await get(href!.replace(/&amp;/g, '&').replace(/#.*/, '')).expect(200);
        const { data: listed } = await api(`/api/v1/agents/${slug}/merchants?reaches=${task}`);
        const sponsored = listed.filter((m) => m.sponsored).length;
        expect(list.text).toMatch(new RegExp(`${Number(count) - sponsored} shops?${sponsored ? ` \\+ ${sponsored} sponsored` : ''} found`));
      }
      // Where it gets stuck: the task-status filter, counted the same way.
      const stuck = [...overview.matchAll(/<li data-stuck="(\w+)">[^<]*<a href="([^"]+)">(\d+) merchants?<\/a><\/li>/g)];
      expect(stuck.length).toBeGreaterThan(0);
      for (const [, task, href, count] of stuck) {
        expect(href).toBe(`/agents/${slug}?task=${task}&amp;taskStatus=blocked%2Cunsupported#results-heading`);
        expect(Number(count), task).toBe((await api(`/api/v1/agents/${slug}/merchants?task=${task}&taskStatus=blocked,unsupported`)).total);
      }
      // Entry points ask the question people come with.
      expect(overview).toContain(`<a href="/agents/${slug}?reaches=CHECKOUT&amp;sort=reach#results-heading">Where can ${agent!.name as string} check out?</a>`);
    });
  });

  describe('signed-in pages share the layout', () => {
    it('validates the profile page, the form (blank and with errors), the review page and sign-in pages', async () => {
      await expectSitePage((await get('/sign-in').expect(200)).text, '/sign-in');
      const agent = await signIn(t.app, mailer, 'layout@example.org');
      const profile = await agent.get('/profile/agents').expect(200);
      await expectSitePage(profile.text, '/profile/agents');
      expect(profile.text).toContain('Signed in as layout@example.org');
      expect(profile.text).toContain('<a href="/profile/agents" aria-current="page">Agent keys</a>');

      const form = await agent.get('/reports/new?q=lamp').expect(200);
      await expectSitePage(form.text, '/reports/new');
      const csrf = /name="_csrf" value="([^"]+)"/.exec(form.text)![1]!;
      const invalid = await agent.post('/reports/new').set('Origin', t.config.origin).field('_csrf', csrf).field('experience', 'x').expect(400);
      await expectSitePage(invalid.text, '/reports/new with errors');

      const merchant = await t.db.prisma.merchant.findFirstOrThrow({ where: { isPublic: true } });
      const activeAgent = await t.db.prisma.agent.findFirstOrThrow({ where: { active: true } });
      const created = await agent
        .post('/reports/new')
        .set('Origin', t.config.origin)
        .field('_csrf', csrf)
        .field('adId', merchant.id)
        .field('agentId', activeAgent.id)
        .field('outcome', 'WORKS')
        .field('privacy', 'on')
        .expect(303);
      await expectSitePage((await agent.get(created.headers.location!).expect(200)).text, 'review page');
    });
  });
});

describe('the agent guide', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createDemoApp({ env: { LIMIT_AGENT_SUBMISSIONS_PER_HOUR: '45', LIMIT_PRIVATE_PER_MINUTE: '90' } });
  });
  afterAll(() => t.close());

  it('is plain text with every enumeration, limit and rule an agent needs, from the API\'s constants', async () => {
    const { contributionSchema } = await import('../../src/modules/reports/contribution-schema.js');
    const { KEY_PREFIX } = await import('../../src/modules/keys/keys.service.js');
    const res = await request(t.app).get('/agent-guide').expect(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    // Both pages of the guide: the main page and its reference.
    const text = res.text + (await request(t.app).get('/agent-guide/reference').expect(200)).text;
    const schema = contributionSchema(t.config.baseUrl, t.config.limits);
    for (const list of [schema.tasks, schema.outcomes, schema.stages, schema.failureReasons]) {
      for (const { key, label } of list) expect(text).toMatch(new RegExp(`^  ${key} +${label.replace(/[()/]/g, '\\$&')}$`, 'm'));
    }
    const n = (v: number) => v.toLocaleString('en-US');
    const l = schema.limits;
    for (const value of [
      l.requestBodyBytes, l.experienceMaxLength, l.browserSubmissionsPerAccountPerHour, l.changedAgentSubmissionsPerAccountPerHour,
      l.privateRequestsPerAccountPerMinute, l.privateRequestsPerAddressPerMinute, l.publicRequestsPerAddressPerMinute, l.keyLifetimeDays,
    ]) {
      expect(text).toContain(n(value));
    }
    expect(text).toContain('45 per account per hour');
    expect(text).toContain('90 per minute per account');
    expect(text).toContain(`${l.queueLimit.min}-${l.queueLimit.max}, default ${l.queueLimit.default}`);
    expect(text).toContain(`${l.retestAfterDays.min}-${l.retestAfterDays.max}`);
    expect(text).toContain(`wait at least ${l.emptyQueueWaitMinutes} minutes`);
    for (const condition of schema.privacyConditions) expect(text).toContain(condition);
    for (const url of [schema.endpoints.submit.url, schema.endpoints.queue.url, schema.endpoints.ownReports.url, schema.endpoints.openapi, schema.endpoints.keys]) {
      expect(text).toContain(url);
    }
    expect(text).toContain(`${t.config.baseUrl}/api/v1/contribution-schema`);
    expect(text).toContain(`${t.config.baseUrl}/api/v1/automation/reports/{id}`);
    expect(text).toContain(KEY_PREFIX);
    for (const phrase of [
      'Authorization: Bearer <AGENT_ACCESS_KEY>',
      'NEVER put the key in a URL',
      'If-Match: <updatedAt',
      '428',
      '409',
      'Retry-After',
      '401  ',
      '403  ',
      'STOP',
      'nextCursor',
      'null ends the pass',
      'retestAfterDays',
      'existingReport',
      'bounded exponential backoff',
      '"privacy": true',
    ]) {
      expect(text).toContain(phrase);
    }
    // Each case's report is valid JSON.
    const cases = [...text.matchAll(/^ {6}(\{"capabilityResults".*\})$/gm)].map((m) => m[1]!);
    expect(cases.length).toBe(schema.cases.length);
    for (const json of cases) expect(() => JSON.parse(json)).not.toThrow();
  });
});
