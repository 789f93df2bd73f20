// Property: for random small directories, every pair's verdict follows the documented rules, and
// every surface renders the same sentence and the same colour: the API's label and verdict, MCP
// get_merchant, the badge, the feed entry, the directory card, the merchant page and the category
// table's cell. No pair with approved reports reads "not tested"; the evidence words match the
// counts; the colour depends on how far the agent gets, never on confidence. Real PostgreSQL;
// every run adds its own category, agents and merchants, so runs never mix.
import { parseFeed } from '@rowanmanning/feed-parser';
import fc from 'fast-check';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAILURE_REASONS, FUNNEL_TASKS, OUTCOMES, STAGES, TASKS, type OutcomeKey, type StageKey, type TaskKey } from '../../src/modules/aggregation/constants.js';
import { recomputeAllSummaries } from '../../src/modules/aggregation/summaries.service.js';
import { BADGE_COLOURS } from '../../src/modules/open-data/badges.service.js';
import { formatMonth } from '../../src/dates.js';
import { createTestApp, type TestApp } from '../setup/app.js';
import { getText } from '../setup/bodies.js';

const DAY = 86_400_000;
const AGENTS = 2;
const MERCHANTS = 3;
const ACCOUNTS = 6;

type Results = Partial<Record<TaskKey, OutcomeKey>>;

// A ladder walked up to a step and maybe failing the next (so that stops and high confidence
// occur), or arbitrary results, or none at all (an overall outcome with maybe a stage).
const ladder: fc.Arbitrary<Results> = fc
  .record({ upTo: fc.integer({ min: -1, max: FUNNEL_TASKS.length - 1 }), fail: fc.constantFrom(null, 'BLOCKED', 'DOES_NOT_WORK', 'PARTIAL', 'UNSURE') })
  .map(({ upTo, fail }) => {
    const results: Results = Object.fromEntries(FUNNEL_TASKS.slice(0, upTo + 1).map((task) => [task, 'WORKS']));
    const next = FUNNEL_TASKS[upTo + 1];
    if (fail && next) results[next] = fail as OutcomeKey;
    return results;
  });
const anyResults: fc.Arbitrary<Results> = fc.array(fc.tuple(fc.constantFrom(...TASKS), fc.constantFrom(...OUTCOMES)), { maxLength: 7 }).map((e) => Object.fromEntries(e));
const results = fc.oneof({ arbitrary: ladder, weight: 4 }, { arbitrary: anyResults, weight: 1 }, { arbitrary: fc.constant<Results>({}), weight: 2 });

const reportArb = fc.record({
  own: fc.oneof({ arbitrary: fc.constant(null), weight: 3 }, { arbitrary: results, weight: 1 }),
  outcome: fc.constantFrom(...OUTCOMES),
  stage: fc.oneof({ arbitrary: fc.constant(null), weight: 1 }, { arbitrary: fc.constantFrom(...STAGES), weight: 2 }),
  reason: fc.constantFrom(...FAILURE_REASONS, null),
  daysAgo: fc.constantFrom(0, 2, 20, 120, 400),
});
const pairArb = fc.record({
  base: results,
  reports: fc.oneof(fc.array(reportArb, { maxLength: 2 }), fc.array(reportArb, { minLength: ACCOUNTS - 1, maxLength: ACCOUNTS })),
});
const directoryArb = fc.array(fc.tuple(...Array.from({ length: AGENTS }, () => pairArb)), { minLength: MERCHANTS, maxLength: MERCHANTS });
type Directory = typeof directoryArb extends fc.Arbitrary<infer D> ? D : never;

interface Verdict {
  colour: 'green' | 'amber' | 'red' | 'grey';
  symbol: string;
  sentence: string;
  short: string;
  evidenceText: string;
  confidence: string;
  through: TaskKey | null;
  stop: { task: TaskKey; status: string; basis: string } | null;
  furthest: { task: TaskKey; how: string } | null;
  evidence: { reports: number; recent: number; lastTestedOn: string | null };
}
interface ApiAgent {
  agent: { slug: string };
  label: string;
  verdict: Verdict;
  reach: { label: string; tone: string };
  counts: { total: number };
  capabilities: Record<TaskKey, { status: string }>;
}

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&#34;').replace(/'/g, '&#39;');
const level = (task: TaskKey | null | undefined) => (task ? FUNNEL_TASKS.indexOf(task as (typeof FUNNEL_TASKS)[number]) + 1 : 0);

describe('one verdict on every surface (property)', () => {
  let t: TestApp;
  let run = 0;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  async function build(directory: Directory) {
    const prisma = t.db.prisma;
    const now = t.clock.now();
    run += 1;
    const category = await prisma.category.create({ data: { name: `Verdict category ${run}`, slug: `verdict-category-${run}` } });
    const agents = await Promise.all(
      Array.from({ length: AGENTS }, (_, i) => prisma.agent.create({ data: { name: `Agent ${run}-${i}`, slug: `verdict-agent-${run}-${i}`, vendor: 'Example Labs' } })),
    );
    const accounts = await Promise.all(Array.from({ length: ACCOUNTS }, (_, i) => prisma.account.create({ data: { email: `verdict-${run}-${i}@example.org` } })));
    const merchants: Array<{ id: string; slug: string }> = [];
    for (let i = 0; i < directory.length; i += 1) {
      merchants.push(
        await prisma.merchant.create({
          data: {
            name: `Verdict Shop ${run}-${i}`,
            slug: `verdict-${run}-${i}`,
            website: `https://verdict-${run}-${i}.example`,
            category: category.name,
            categoryId: category.id,
            isPublic: true,
            approvedCanonical: true,
            serviceRegions: ['GLOBAL'],
          },
        }),
      );
    }
    // What the reports are, as the test knows them: per pair, their count and newest test day.
    const known = new Map<string, { count: number; newest: number }>();
    const rows = directory.flatMap((pairs, i) =>
      pairs.flatMap((pair, a) =>
        pair.reports.map((r, account) => {
          const testedAt = new Date(Date.parse(new Date(now.getTime() - r.daysAgo * DAY).toISOString().slice(0, 10)));
          const key = `${merchants[i]!.slug}/${agents[a]!.slug}`;
          const seen = known.get(key) ?? { count: 0, newest: 0 };
          known.set(key, { count: seen.count + 1, newest: Math.max(seen.newest, testedAt.getTime()) });
          return {
            accountId: accounts[account]!.id,
            merchantId: merchants[i]!.id,
            agentId: agents[a]!.id,
            status: 'APPROVED' as const,
            channel: 'BROWSER' as const,
            outcome: r.outcome,
            capabilityResults: r.own ?? pair.base,
            stage: r.stage as StageKey | null,
            failureReason: r.reason,
            testedAt,
            privacyConfirmed: true,
            createdAt: new Date(now.getTime() - r.daysAgo * DAY),
            moderatedAt: now,
          };
        }),
      ),
    );
    await prisma.report.createMany({ data: rows });
    await recomputeAllSummaries(prisma, now);
    return { category, agents, merchants, known };
  }

  async function mcpMerchant(slug: string): Promise<ApiAgent[]> {
    const res = await request(t.app)
      .post('/mcp')
      .set('Accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_merchant', arguments: { slugOrId: slug } } })
      .expect(200);
    expect(res.body.result.isError).toBeUndefined();
    return (res.body.result.structuredContent as { data: { agents: ApiAgent[] } }).data.agents;
  }

  it('renders each pair\'s verdict the same everywhere, following the rules', async () => {
    await fc.assert(
      fc.asyncProperty(directoryArb, async (directory) => {
        const { category, agents, merchants, known } = await build(directory);
        const cards = (await request(t.app).get(`/categories/${category.slug}`).expect(200)).text;
        const table = (await request(t.app).get(`/categories/${category.slug}?layout=table`).expect(200)).text;
        for (const merchant of merchants) {
          const api = ((await request(t.app).get(`/api/v1/merchants/${merchant.slug}`).expect(200)).body as { data: { agents: ApiAgent[] } }).data.agents;
          const mcp = await mcpMerchant(merchant.slug);
          const page = (await request(t.app).get(`/merchants/${merchant.slug}`).expect(200)).text;
          const feed = parseFeed((await getText(t, `/merchants/${merchant.slug}/feed.atom`).expect(200)).body as string);
          const card = new RegExp(`<li class="merchant-card(?: sponsored)?" data-merchant="${merchant.slug}"[\\s\\S]*?</li>\\s*(?=<li class="merchant-card|</ol>)`).exec(cards)?.[0] ?? '';
          const row = new RegExp(`<tr data-merchant="${merchant.slug}"[^>]*>([\\s\\S]*?)</tr>`).exec(table)![1]!;
          for (const agent of agents) {
            const a = api.find((x) => x.agent.slug === agent.slug)!;
            const v = a.verdict;
            const where = `${merchant.slug}/${agent.slug}`;
            const facts = known.get(where);

            // The rules.
            expect(a.label, where).toBe(v.sentence);
            expect([a.reach.label, a.reach.tone], where).toEqual([v.sentence, v.colour]);
            const ruled =
              level(v.through) >= level('CHECKOUT') ? 'green' : v.stop && level(v.stop.task) <= level('SEARCH') ? 'red' : v.furthest || v.stop ? 'amber' : 'grey';
            expect(v.colour, where).toBe(ruled);
            if (v.through) expect(a.capabilities[v.through].status, where).toBe('supported');
            if (v.stop?.basis === 'tasks') expect(['blocked', 'unsupported'], where).toContain(a.capabilities[v.stop.task].status);
            expect(v.symbol).toBe({ green: '✓', amber: '◐', red: '✕', grey: '–' }[v.colour]);
            if (!facts) {
              expect([v.sentence, v.colour, v.evidenceText], where).toEqual(['Not tested yet', 'grey', 'No reports yet']);
            } else {
              expect(v.sentence, where).not.toMatch(/not tested/i);
              expect(a.counts.total, where).toBe(facts.count);
              expect(v.evidenceText, where).toBe(`${facts.count} ${facts.count === 1 ? 'report' : 'reports'} · last tested ${formatMonth(new Date(facts.newest))}`);
              if (/^(Gets|Completes|Stops|Partly gets|Partly completes)\b/.test(v.sentence)) expect([facts.count >= 3, v.confidence], where).toEqual([true, 'high']);
            }

            // Every surface: the same sentence and colour.
            const m = mcp.find((x) => x.agent.slug === agent.slug)!;
            expect([m.label, m.verdict.sentence, m.verdict.colour], where).toEqual([v.sentence, v.sentence, v.colour]);
            const badge = (await getText(t, `/badges/${merchant.slug}/${agent.slug}.svg`).expect(200)).body as string;
            expect(badge, where).toContain(`fill="${BADGE_COLOURS[v.colour]}"`);
            expect(/<title>([^<]*)<\/title>/.exec(badge)![1], where).toContain(`: ${escapeHtml(v.sentence)} (`);
            const shown = `<span class="verdict verdict-${v.colour} conf-${v.confidence}"`;
            const sentence = `<span class="verdict-sentence">${escapeHtml(v.sentence)}</span>`;
            const cell = new RegExp(`<td class="reach-cell" data-agent="${agent.slug}">([\\s\\S]*?)</td>`).exec(row)![1]!;
            expect(cell, `${where} table`).toContain(shown);
            expect(cell, `${where} table`).toContain(sentence);
            if (facts) {
              const item = new RegExp(`<li id="verdict-${agent.slug}">([\\s\\S]*?)</li>`).exec(page)![1]!;
              expect(item, `${where} page`).toContain(shown);
              expect(item, `${where} page`).toContain(sentence);
              expect(card, `${where} card`).toContain(`${shown} data-colour="${v.colour}"`);
              expect(card, `${where} card`).toContain(sentence);
              const entries = feed.items.filter((i) => i.title?.startsWith(`Agent ${agent.name.slice(6)} on `));
              expect(entries.length, `${where} feed`).toBeGreaterThan(0);
              // (The feed parser hands back the entry's HTML with its character references decoded.)
              for (const entry of entries) expect(entry.content, `${where} feed`).toContain(`now: <strong>${v.symbol} ${v.sentence}</strong> (${v.colour};`);
            } else {
              expect(page, `${where} page`).toMatch(/<p class="muted not-yet">Not tested yet here: [^<]*<\/p>|No approved report about any agent here yet/);
            }
          }
        }
      }),
      { numRuns: 8 },
    );
    // Each run asks about forty pages and documents: a loaded machine needs time, not luck.
  }, 300_000);
});
