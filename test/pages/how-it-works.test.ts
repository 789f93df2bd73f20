// /how-it-works explains the reach: a picture of the ladder (login beside it, the example's
// reach and stop marked), the rule, the colours with labels the code itself gives for typical
// cases, and the filters and sort, whose parameters the OpenAPI document has.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FUNNEL_TASKS, methodology, type TaskKey } from '../../src/modules/aggregation/constants.js';
import { GREEN_FROM, REACH_STEP_WORDS, REACH_TONES, reachLabel, reachOf, reachTone, type ReachInput } from '../../src/modules/aggregation/reach.js';
import { anAgent } from '../factories/index.js';
import { createTestApp, type TestApp } from '../setup/app.js';
import { htmlProblems } from './html-validate.js';

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&#34;').replace(/'/g, '&#39;');

describe('/how-it-works: the reach', () => {
  let t: TestApp;
  let html: string;
  let section: string;
  beforeAll(async () => {
    t = await createTestApp();
    html = (await request(t.app).get('/how-it-works').expect(200)).text;
    section = /<section id="reach"[\s\S]*?<\/section>/.exec(html)![0];
  });
  afterAll(() => t.close());

  it('is a valid page without inline styles, listed in the table of contents', async () => {
    expect(await htmlProblems(html)).toEqual([]);
    expect(html).not.toMatch(/<[a-z][^>]*\s(style|on[a-z]+)=/i);
    expect(html).toContain('<li><a href="#reach">How far an agent gets (reach)</a></li>');
    expect(section).toContain('<h2 id="reach-heading">How far an agent gets (reach)</h2>');
  });

  it('draws the ladder: six steps from access up, login beside it, the example reach and stop marked, described in words', () => {
    const { picture } = methodology().reach;
    const svg = /<svg [^>]*role="img" aria-labelledby="reach-ladder-title reach-ladder-desc"[\s\S]*?<\/svg>/.exec(section)![0];
    expect(svg).toContain(`<desc id="reach-ladder-desc">${escapeHtml(picture.description)}</desc>`);
    const steps = [...svg.matchAll(/<g data-step="([A-Z]+)"(?: data-state="([a-z-]+)")?>([\s\S]*?)<\/g>/g)].map((m) => ({ key: m[1]!, state: m[2], body: m[3]! }));
    expect(steps.map((s) => s.key)).toEqual([...FUNNEL_TASKS, 'LOGIN']);
    // The example reaches the cart, a step below it only partly works, and it stops at checkout with its reason.
    expect(picture.reach).toBe('CART');
    expect(picture.steps.map((s) => s.state)).toEqual(['passed', 'passed', 'partial', 'passed', 'stop', 'not-reached']);
    const byKey = new Map(steps.map((s) => [s.key, s]));
    expect(byKey.get('CART')!.body).toContain('data-mark="reach"');
    expect(byKey.get('CHECKOUT')!.state).toBe('stop');
    expect(byKey.get('CHECKOUT')!.body).toContain('data-mark="stop"');
    expect(byKey.get('CHECKOUT')!.body).toContain(escapeHtml(picture.stop!.why));
    expect(steps.filter((s) => s.body.includes('data-mark=')).map((s) => s.key)).toEqual(['CART', 'CHECKOUT']);
    // Login is blocked in the example and still does not lower the reach.
    expect(picture.login).toBe('blocked');
    expect(byKey.get('LOGIN')!.body).toContain('never lowers the reach');
    expect(section).toContain(`<span class="badge reach-${picture.tone}">${escapeHtml(picture.label)}</span>`);
    expect(picture.label).toMatch(/^Gets through the cart; stops at checkout: blocked by a CAPTCHA/);
  });

  it('states the rule: each status on the walk up, the stop reason, confidence, and the words of the label', () => {
    const { reach } = methodology();
    for (const rule of reach.stepRules) expect(section).toContain(escapeHtml(rule.rule));
    for (const text of [reach.login.rule, reach.stopRule, reach.confidenceRule, reach.labelRule]) expect(section).toContain(escapeHtml(text));
    expect(reach.stepRules.flatMap((r) => r.statuses).sort()).toEqual(['blocked', 'partial', 'supported', 'unknown', 'unsupported', 'untested']);
    // The summary's label is described as the reach label, no longer as status-and-band words.
    expect(html).toContain('the same as <code>reach.label</code>');
    expect(html).not.toContain('"reliably" only at high');
  });

  it('explains every colour, green only from the cart at medium confidence, with examples the code labels', () => {
    const { reach } = methodology();
    expect(reach.tones.map((tone) => tone.tone)).toEqual([...REACH_TONES]);
    for (const tone of REACH_TONES) expect(section).toContain(`<dt data-tone="${tone}">`);
    expect(reach.greenFrom.key).toBe(GREEN_FROM);
    expect(reach.tones[0]!.when).toContain(`at least through ${REACH_STEP_WORDS[GREEN_FROM]}, at medium confidence or better`);
    // Every colour has an example, and each example's label and colour are what reach.ts gives for its statuses.
    expect(new Set(reach.examples.map((e) => e.tone))).toEqual(new Set(REACH_TONES));
    const rows = [...section.matchAll(/<tr data-tone="([a-z]+)"><td>[^<]*<\/td><th scope="row"><span class="badge reach-\1">([^<]*)<\/span><\/th><td>\1<\/td><\/tr>/g)].map((m) => ({ tone: m[1], label: m[2] }));
    expect(rows).toEqual(reach.examples.map((e) => ({ tone: e.tone, label: escapeHtml(e.label) })));
    for (const example of reach.examples.filter((e) => !Object.values(e.statuses).some((s) => s === 'blocked' || s === 'unsupported'))) {
      const capabilities = Object.fromEntries(
        Object.entries(example.statuses).map(([task, status]) => [task, { status, confidence: status === 'untested' || status === 'unknown' ? 'low' : example.confidence }]),
      ) as Record<TaskKey, ReachInput>;
      const again = reachOf(capabilities, []);
      expect(reachLabel(again)).toBe(example.label);
      expect(reachTone(again)).toBe(example.tone);
    }
    const labelled = (label: string, tone: string) => expect(reach.examples.find((e) => e.label === label)?.tone, label).toBe(tone);
    labelled('Completes purchases', 'green');
    labelled('Got through the cart in few reports; checkout not confirmed yet', 'amber');
    labelled("Usually stops at the cart: doesn't work (an interface it cannot use)", 'red');
    labelled('Stops at website access: the shop blocks agents', 'red');
    labelled('No step confirmed yet', 'grey');
    expect(JSON.parse(JSON.stringify(reach))).toEqual(reach);
  });

  it('names the filters and the sort, each a parameter of the OpenAPI document, with an example that answers', async () => {
    const paragraph = /<h3 id="reach-filters">[\s\S]*?<\/p>/.exec(section)![0];
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
