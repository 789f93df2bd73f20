// Property: for random small directories, after the summaries are recomputed, each filter on
// what the summaries say (reaches, task with taskStatus, minConfidence) lists exactly the
// merchants whose stored summary satisfies it, in the documented order (sort=reach: reach
// level, then its confidence, then the newest report, then name and id), with the sponsored
// listings running now first and marked; the same through the API, the agent-scoped path and
// MCP search_merchants. Real PostgreSQL; every run adds its own agents, so runs never mix.
import fc from 'fast-check';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CAPABILITY_STATUSES,
  CONFIDENCE_LEVELS,
  FUNNEL_TASKS,
  OUTCOMES,
  STAGES,
  TASKS,
  type CapabilityStatus,
  type Confidence,
  type OutcomeKey,
  type StageKey,
  type TaskKey,
} from '../../src/modules/aggregation/constants.js';
import type { Reach } from '../../src/modules/aggregation/reach.js';
import { recomputeAllSummaries } from '../../src/modules/aggregation/summaries.service.js';
import { createTestApp, type TestApp } from '../setup/app.js';

const DAY = 86_400_000;
const AGENTS = 2;
const ACCOUNTS = 7;

type Results = Partial<Record<TaskKey, OutcomeKey>>;

// Reports that agree often (a ladder walked up to a step, maybe failing the next), so that
// confidences other than low occur, mixed with arbitrary ones.
const ladderResults: fc.Arbitrary<Results> = fc
  .record({ upTo: fc.integer({ min: 0, max: FUNNEL_TASKS.length - 1 }), fail: fc.constantFrom(null, 'BLOCKED', 'DOES_NOT_WORK', 'PARTIAL') })
  .map(({ upTo, fail }) => {
    const results: Results = Object.fromEntries(FUNNEL_TASKS.slice(0, upTo + 1).map((task) => [task, 'WORKS']));
    const next = FUNNEL_TASKS[upTo + 1];
    if (fail && next) results[next] = fail as OutcomeKey;
    return results;
  });
const anyResults: fc.Arbitrary<Results> = fc
  .array(fc.tuple(fc.constantFrom(...TASKS), fc.constantFrom(...OUTCOMES)), { maxLength: 7 })
  .map((entries) => Object.fromEntries(entries));

// One pair's reports: mostly the same results (so that confidences other than low occur),
// some with results of their own; each from a different account (one report per account).
const reportOfPair = (status: fc.Arbitrary<string>, daysAgo: fc.Arbitrary<number>) =>
  fc.record({
    own: fc.oneof({ arbitrary: fc.constant(null), weight: 4 }, { arbitrary: anyResults, weight: 1 }),
    status,
    outcome: fc.constantFrom(...OUTCOMES),
    stage: fc.oneof({ arbitrary: fc.constant(null), weight: 3 }, { arbitrary: fc.constantFrom(...STAGES), weight: 1 }),
    daysAgo,
  });
const pairArb = fc.record({
  base: fc.oneof({ arbitrary: ladderResults, weight: 4 }, { arbitrary: anyResults, weight: 1 }),
  reports: fc.oneof(
    // A coarse grid of dates, so that reports of different pairs tie on them.
    fc.array(reportOfPair(fc.constantFrom('APPROVED', 'APPROVED', 'APPROVED', 'PENDING', 'REJECTED'), fc.constantFrom(0, 1, 7, 30)), {
      maxLength: ACCOUNTS,
    }),
    // A crowd of recent approved reports: medium and high confidence.
    fc.array(reportOfPair(fc.constant('APPROVED'), fc.constantFrom(0, 1, 7)), { minLength: ACCOUNTS - 1, maxLength: ACCOUNTS }),
  ),
});

const directoryArb = fc.array(
  fc.record({
    // Few names, so that ties fall through to the id.
    name: fc.constantFrom('Acorn', 'Birch', 'Cedar'),
    isPublic: fc.constantFrom(true, true, true, false),
    sponsorship: fc.constantFrom('none', 'none', 'running', 'open-ended', 'ended', 'future'),
    pairs: fc.tuple(...Array.from({ length: AGENTS }, () => pairArb)),
  }),
  { minLength: 2, maxLength: 10 },
);

const sometimes = <T>(arbitrary: fc.Arbitrary<T>) => fc.oneof(fc.constant(undefined), arbitrary);
const queryArb = fc.record({
  agent: fc.integer({ min: 0, max: AGENTS - 1 }),
  reaches: sometimes(fc.constantFrom(...FUNNEL_TASKS)),
  task: sometimes(
    fc.record({ task: fc.constantFrom(...TASKS), statuses: fc.subarray([...CAPABILITY_STATUSES], { minLength: 1, maxLength: 3 }) }),
  ),
  minConfidence: sometimes(fc.constantFrom(...CONFIDENCE_LEVELS)),
  sort: fc.constantFrom('reach', 'reach', 'name', 'recent'),
  view: fc.constantFrom('standard', 'compact', 'compact'),
});
type Query = typeof queryArb extends fc.Arbitrary<infer Q> ? Q : never;
type Directory = typeof directoryArb extends fc.Arbitrary<infer D> ? D : never;

interface Stored {
  merchantId: string;
  name: string;
  reach: Reach;
  statuses: Record<TaskKey, CapabilityStatus>;
  lastReportedAt: number;
  sponsored: boolean;
}

const rank = (confidence: Confidence) => CONFIDENCE_LEVELS.indexOf(confidence);
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The documented order: sponsored first, then the sort, then name and id. */
function compare(sort: string) {
  return (a: Stored, b: Stored): number => {
    if (a.sponsored !== b.sponsored) return a.sponsored ? -1 : 1;
    if (sort === 'reach') {
      if (a.reach.level !== b.reach.level) return b.reach.level - a.reach.level;
      if (a.reach.confidence !== b.reach.confidence) return rank(b.reach.confidence) - rank(a.reach.confidence);
    }
    if ((sort === 'reach' || sort === 'recent') && a.lastReportedAt !== b.lastReportedAt) return b.lastReportedAt - a.lastReportedAt;
    return byText(a.name, b.name) || byText(a.merchantId, b.merchantId);
  };
}

function matches(s: Stored, q: Query): boolean {
  if (q.reaches && s.reach.level < FUNNEL_TASKS.indexOf(q.reaches) + 1) return false;
  if (q.task && !q.task.statuses.includes(s.statuses[q.task.task])) return false;
  if (q.minConfidence && rank(s.reach.confidence) < rank(q.minConfidence)) return false;
  return true;
}

function queryString(q: Query, agentSlug: string | null): string {
  const params = new URLSearchParams();
  if (agentSlug) params.set('agent', agentSlug);
  if (q.reaches) params.set('reaches', q.reaches);
  if (q.task) {
    params.set('task', q.task.task);
    params.set('taskStatus', q.task.statuses.join(','));
  }
  if (q.minConfidence) params.set('minConfidence', q.minConfidence);
  params.set('sort', q.sort);
  params.set('view', q.view);
  return params.toString();
}

describe('reach filters over stored summaries (property)', () => {
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
    const category = await prisma.category.create({ data: { name: `Reach category ${run}`, slug: `reach-category-${run}` } });
    const agents = await Promise.all(
      Array.from({ length: AGENTS }, (_, i) =>
        prisma.agent.create({ data: { name: `Agent ${run}-${i}`, slug: `reach-agent-${run}-${i}`, vendor: 'Example Labs' } }),
      ),
    );
    const accounts = await Promise.all(
      Array.from({ length: ACCOUNTS }, (_, i) => prisma.account.create({ data: { email: `reach-${run}-${i}@example.org` } })),
    );
    const merchants: Array<{ id: string }> = [];
    for (const [i, m] of directory.entries()) {
      merchants.push(
        await prisma.merchant.create({
          data: {
            name: m.name,
            slug: `reach-${run}-${i}`,
            website: `https://reach-${run}-${i}.example`,
            category: category.name,
            categoryId: category.id,
            isPublic: m.isPublic,
            approvedCanonical: true,
            serviceRegions: ['GLOBAL'],
          },
        }),
      );
    }
    const sponsoredNow = new Set<string>();
    for (const [i, m] of directory.entries()) {
      if (m.sponsorship === 'none') continue;
      const startsAt = new Date(now.getTime() + (m.sponsorship === 'future' ? DAY : -10 * DAY));
      const endsAt = m.sponsorship === 'ended' ? new Date(now.getTime() - DAY) : m.sponsorship === 'running' ? new Date(now.getTime() + 10 * DAY) : null;
      await prisma.sponsorship.create({
        data: { merchantId: merchants[i]!.id, source: 'subscription', placement: 'directory-top', disclosure: 'Paid placement', startsAt, endsAt },
      });
      if (m.sponsorship === 'running' || m.sponsorship === 'open-ended') sponsoredNow.add(merchants[i]!.id);
    }
    const newest = new Map<string, number>();
    const reports = directory.flatMap((m, i) =>
      m.pairs.flatMap((pair, a) =>
        pair.reports.map((r, account) => {
          const createdAt = new Date(now.getTime() - r.daysAgo * DAY);
          const merchantId = merchants[i]!.id;
          const agentId = agents[a]!.id;
          if (r.status === 'APPROVED') {
            const key = `${merchantId}/${agentId}`;
            newest.set(key, Math.max(newest.get(key) ?? 0, createdAt.getTime()));
          }
          return {
            accountId: accounts[account]!.id,
            merchantId,
            agentId,
            status: r.status as 'APPROVED' | 'PENDING' | 'REJECTED',
            channel: 'BROWSER' as const,
            outcome: r.outcome,
            capabilityResults: r.own ?? pair.base,
            stage: r.stage as StageKey | null,
            testedAt: createdAt,
            privacyConfirmed: true,
            createdAt,
            moderatedAt: r.status === 'PENDING' ? null : now,
          };
        }),
      ),
    );
    await prisma.report.createMany({ data: reports });
    await recomputeAllSummaries(prisma, now);
    // What the stored summaries say, per agent, for the public merchants.
    const stored = new Map<string, Stored[]>();
    for (const agent of agents) {
      const rows = (
        await t.db.pool.query<{ merchant_id: string; name: string; is_public: boolean; summary: string }>(
          `SELECT s.merchant_id, m.name, m.is_public, s.summary::text AS summary
             FROM merchant_agent_summaries s JOIN merchants m ON m.id = s.merchant_id
            WHERE s.agent_id = $1 AND s.report_count > 0`,
          [agent.id],
        )
      ).rows;
      stored.set(
        agent.slug,
        rows
          .filter((row) => row.is_public)
          .map((row) => {
            const summary = JSON.parse(row.summary) as { reach: Reach; capabilities: Record<TaskKey, { status: CapabilityStatus }> };
            return {
              merchantId: row.merchant_id,
              name: row.name,
              reach: summary.reach,
              statuses: Object.fromEntries(TASKS.map((task) => [task, summary.capabilities[task].status])) as Record<TaskKey, CapabilityStatus>,
              lastReportedAt: newest.get(`${row.merchant_id}/${agent.id}`)!,
              sponsored: sponsoredNow.has(row.merchant_id),
            };
          }),
      );
    }
    return { agents, stored };
  }

  type Listed = { id: string; sponsored: boolean; sponsorshipDisclosure: string | null; agents: Array<{ agent: { slug: string }; reach: Reach }> };

  async function mcpSearch(args: Record<string, string>) {
    const res = await request(t.app)
      .post('/mcp')
      .set('Accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search_merchants', arguments: args } })
      .expect(200);
    expect(res.body.result.isError).toBeUndefined();
    return res.body.result.structuredContent as { total: number; data: Listed[] };
  }

  // Fifteen directories built and read four ways: about 30 s alone, twice that on a busy machine.
  // The timeout only catches a hang; nothing here is a speed assertion.
  it('lists exactly the merchants whose stored summary satisfies the filters, in the documented order, sponsored first', { timeout: 300_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(directoryArb, fc.array(queryArb, { minLength: 2, maxLength: 3 }), async (directory, queries) => {
        const { agents, stored } = await build(directory);
        // Each agent's whole list by reach: the order with every merchant in it.
        for (const { slug } of agents) {
          const all = (await request(t.app).get(`/api/v1/merchants?agent=${slug}&sort=reach&view=compact`).expect(200)).body as { data: Listed[] };
          expect(all.data.map((m) => m.id)).toEqual([...stored.get(slug)!].sort(compare('reach')).map((s) => s.merchantId));
        }
        for (const q of queries) {
          const slug = agents[q.agent]!.slug;
          const expected = stored.get(slug)!.filter((s) => matches(s, q)).sort(compare(q.sort));
          const api = (await request(t.app).get(`/api/v1/merchants?${queryString(q, slug)}`).expect(200)).body as { total: number; data: Listed[] };
          const scoped = (await request(t.app).get(`/api/v1/agents/${slug}/merchants?${queryString(q, null)}`).expect(200)).body;
          const mcp = await mcpSearch(Object.fromEntries(new URLSearchParams(queryString(q, slug))));
          const context = `${queryString(q, slug)}`;
          expect(api.data.map((m) => m.id), context).toEqual(expected.map((s) => s.merchantId));
          expect(api.total, context).toBe(expected.length);
          for (const [i, m] of api.data.entries()) {
            const s = expected[i]!;
            expect(m.sponsored, context).toBe(s.sponsored);
            if (m.sponsored) expect(m.sponsorshipDisclosure).toBe('Paid placement');
            // The answer shows the reach the filter read.
            expect(m.agents.map((a) => a.agent.slug)).toEqual([slug]);
            expect(m.agents[0]!.reach).toMatchObject(s.reach);
          }
          expect(scoped, context).toEqual(api);
          expect(mcp, context).toEqual(api);
        }
      }),
      { numRuns: 15 },
    );
  });
});
