// /how-it-works explains the verdict: what it holds, a picture of the way to a purchase with
// an example agent's steps, the rule for each step, the colours (by how far, never by
// confidence), confidence drawn apart, the words, and worked examples whose sentences and
// colours the engine itself gives; then the filters and sort, whose parameters the OpenAPI
// document has.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FUNNEL_TASKS } from '../../src/modules/aggregation/constants.js';
import { methodology } from '../../src/modules/aggregation/methodology.js';
import { STEP_STATES, VERDICT_COLOURS } from '../../src/modules/aggregation/verdict.js';
import { anAgent } from '../factories/index.js';
import { createTestApp, type TestApp } from '../setup/app.js';
import { htmlProblems } from './html-validate.js';

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&#34;').replace(/'/g, '&#39;');

describe('/how-it-works: the verdict', () => {
  let t: TestApp;
  let html: string;
  let section: string;
  let filters: string;
  beforeAll(async () => {
    t = await createTestApp();
    html = (await request(t.app).get('/how-it-works').expect(200)).text;
    section = /<section id="verdict"[\s\S]*?<\/section>/.exec(html)![0];
    filters = /<section id="agent-summary"[\s\S]*?<\/section>/.exec(html)![0];
  });
  afterAll(() => t.close());

  it('is a valid page without inline styles, the verdict first in the table of contents', async () => {
    expect(await htmlProblems(html)).toEqual([]);
    expect(html).not.toMatch(/<[a-z][^>]*\s(style|on[a-z]+)=/i);
    expect(html).toMatch(/<ol>\s*<li><a href="#verdict">The verdict: how far an agent gets<\/a><\/li>/);
    expect(section).toContain('<h2 id="verdict-heading">The verdict: how far an agent gets</h2>');
    // People's words: no engine terms outside the API section.
    for (const term of ['Score band', 'Sets the status', 'in few reports', 'Latest evidence']) expect(html).not.toContain(term);
  });

  it('draws the way to a purchase with the example agent\'s steps, described in words, and shows its verdict', () => {
    const { picture } = methodology(t.clock.now()).verdict;
    const svg = /<svg [^>]*role="img" aria-labelledby="ladder-title ladder-desc"[\s\S]*?<\/svg>/.exec(section)![0];
    expect(svg).toContain(`<desc id="ladder-desc">${escapeHtml(picture.description)}</desc>`);
    const steps = [...svg.matchAll(/<g data-step="([A-Z]+)" data-state="([a-z]+)">/g)].map((m) => ({ key: m[1]!, state: m[2]! }));
    expect(steps).toEqual(picture.verdict.steps.map((s) => ({ key: s.task, state: s.state })));
    expect(steps.map((s) => s.key)).toEqual([...FUNNEL_TASKS]);
    // The example gets through the cart and stops at checkout, with its reason.
    expect(picture.verdict.steps.map((s) => s.state)).toEqual(['through', 'through', 'through', 'through', 'stop', 'beyond']);
    expect(picture.verdict.sentence).toBe('Got through the cart, then stopped at checkout: blocked by a CAPTCHA');
    expect(section).toContain(`<span class="verdict-sentence">${escapeHtml(picture.verdict.sentence)}</span>`);
  });

  it('states the rules: each step state, the stop reason, the colours, confidence apart, the tense and the evidence line', () => {
    const { verdict } = methodology(t.clock.now());
    expect(verdict.stepRules.map((r) => r.state)).toEqual([...STEP_STATES]);
    for (const rule of verdict.stepRules) expect(section).toContain(escapeHtml(rule.rule));
    for (const text of [verdict.loginRule, verdict.stopRule, verdict.colourRule, verdict.confidenceRule, verdict.tenseRule, verdict.evidenceRule]) expect(section).toContain(escapeHtml(text));
    expect(verdict.colours.map((c) => c.colour)).toEqual([...VERDICT_COLOURS]);
    for (const c of verdict.colours) expect(section).toContain(`<dt data-colour="${c.colour}">`);
    expect(verdict.colourRule).toContain('and nothing else');
    expect(section).toContain('never reads "not tested"');
  });

  it('works through examples, every colour among them, each shown as the engine made it', () => {
    const { verdict } = methodology(t.clock.now());
    expect(new Set(verdict.examples.map((e) => e.verdict.colour))).toEqual(new Set(VERDICT_COLOURS));
    const rows = [...section.matchAll(/<tr data-colour="([a-z]+)"><td>([^<]*)<\/td><th scope="row"><span class="verdict verdict-\1 conf-([a-z]+)"[^>]*><span class="symbol" aria-hidden="true">[^<]*<\/span> <span class="verdict-sentence">([^<]*)<\/span><\/span>/g)].map(
      (m) => ({ colour: m[1], given: m[2], confidence: m[3], sentence: m[4] }),
    );
    expect(rows).toEqual(verdict.examples.map((e) => ({ colour: e.verdict.colour, given: escapeHtml(e.given), confidence: e.verdict.confidence, sentence: escapeHtml(e.verdict.sentence) })));
    const said = (sentence: string, colour: string) => expect(verdict.examples.find((e) => e.verdict.sentence === sentence)?.verdict.colour, sentence).toBe(colour);
    said('Completes purchases', 'green');
    said('Usually gets through checkout', 'green');
    said('Got through the cart, then stopped at checkout: blocked by a CAPTCHA', 'amber');
    said('Reached product details', 'amber');
    said('Stops at website access: the shop blocks agents', 'red');
    said('Stopped at website access: the shop blocks agents', 'red');
    said('Not tested yet', 'grey');
    expect(JSON.parse(JSON.stringify(verdict))).toEqual(verdict);
  });

  it('names the filters and the sort, each a parameter of the OpenAPI document, with an example that answers', async () => {
    const paragraph = /<h3 id="reach-filters">[\s\S]*?<\/p>/.exec(filters)![0];
    for (const text of ['reaches=CHECKOUT', 'task=CART&amp;taskStatus=blocked,unsupported', 'minConfidence=medium', 'sort=reach', '/api/v1/agents/&lt;slug&gt;/merchants?reaches=CHECKOUT&amp;sort=reach', 'search_merchants']) {
      expect(paragraph).toContain(text);
    }
    const openapi = (await request(t.app).get('/api/v1/openapi.json').expect(200)).body as {
      paths: Record<string, { get: { parameters: Array<{ name: string; schema: { enum?: string[] } }> } }>;
    };
    for (const path of ['/merchants', '/agents/{slug}/merchants']) {
      const parameters = openapi.paths[path]!.get.parameters;
      const names = parameters.map((p) => p.name);
      for (const name of ['reaches', 'task', 'taskStatus', 'minConfidence', 'sort']) expect(names, `${path} ${name}`).toContain(name);
      expect(parameters.find((p) => p.name === 'sort')!.schema.enum).toContain('reach');
    }
    const agent = await anAgent(t.db.prisma, { slug: 'ladder-pilot' });
    await request(t.app).get(`/api/v1/agents/${agent.slug}/merchants?reaches=CHECKOUT&sort=reach`).expect(200);
  });
});
