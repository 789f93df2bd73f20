// Filters and sort by what the summaries say (issue 24): reaches, task with taskStatus,
// minConfidence and sort=reach, on GET /api/v1/merchants, the agent-scoped path and MCP
// search_merchants; and the 400 each broken rule answers.
import request from 'supertest';
import { MCP_FILTER_RULES } from '../../src/mcp/errors.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutcomeKey, TaskKey } from '../../src/modules/aggregation/constants.js';
import { FILTER_RULES } from '../../src/modules/merchants/merchants.schemas.js';
import { aCategory, aMerchant, anAgent, aReport } from '../factories/index.js';
import { createTestApp, TEST_BASE_URL, type TestApp } from '../setup/app.js';

const PROBLEM = /^application\/problem\+json/;
const DAY = 86_400_000;

type Listed = {
  id: string;
  name: string;
  sponsored: boolean;
  sponsorshipDisclosure: string | null;
  agents: Array<{
    agent: { slug: string };
    lastReportedAt: string | null;
    reach: { level: number; confidence: 'low' | 'medium' | 'high'; task: string | null; stop: { task: string } | null };
    capabilities: Record<TaskKey, { status: string }>;
  }>;
};

const FUNNEL_WORKS = (to: TaskKey[]): Partial<Record<TaskKey, OutcomeKey>> => Object.fromEntries(to.map((task) => [task, 'WORKS']));
const UP_TO_CHECKOUT: TaskKey[] = ['ACCESS', 'SEARCH', 'DETAILS', 'CART', 'CHECKOUT'];
const UP_TO_PURCHASE: TaskKey[] = [...UP_TO_CHECKOUT, 'PURCHASE'];
const CONFIDENCE_RANK = { low: 0, medium: 1, high: 2 } as const;

describe('filters and sort by what the summaries say', () => {
  let t: TestApp;
  let agent: string;
  let other: string;
  const ids: Record<string, string> = {};
  const api = (path: string) => request(t.app).get(path);
  const names = (data: Listed[]) => data.map((m) => m.name);

  beforeAll(async () => {
    t = await createTestApp();
    const prisma = t.db.prisma;
    const now = t.clock.now();
    const category = await aCategory(prisma);
    const a = await anAgent(prisma, { name: 'Reach Agent' });
    const b = await anAgent(prisma, { name: 'Other Agent' });
    agent = a.slug;
    other = b.slug;
    const merchant = async (name: string, isPublic = true) => {
      const m = await aMerchant(prisma, { name, categoryId: category.id, isPublic });
      ids[name] = m.id;
      return m.id;
    };
    const reports = async (merchantId: string, agentId: string, count: number, capabilityResults: Partial<Record<TaskKey, OutcomeKey>>, daysAgo: number) => {
      for (let i = 0; i < count; i++) {
        const createdAt = new Date(now.getTime() - daysAgo * DAY);
        await aReport(prisma, { merchantId, agentId, status: 'APPROVED', outcome: 'PARTIAL', capabilityResults, createdAt, testedAt: createdAt }, now);
      }
    };
    const sponsor = (merchantId: string, endsAt: Date | null = null) =>
      prisma.sponsorship.create({
        data: { merchantId, source: 'subscription', placement: 'directory-top', disclosure: 'Paid placement', startsAt: new Date(now.getTime() - 30 * DAY), endsAt },
      });

    await reports(await merchant('Alder Checkout'), a.id, 1, FUNNEL_WORKS(UP_TO_CHECKOUT), 8);
    await reports(await merchant('Birch Checkout'), a.id, 1, FUNNEL_WORKS(UP_TO_CHECKOUT), 3);
    await reports(await merchant('Bramble Purchase'), a.id, 6, FUNNEL_WORKS(UP_TO_PURCHASE), 0);
    await reports(await merchant('Cedar Checkout'), a.id, 1, FUNNEL_WORKS(UP_TO_CHECKOUT), 3);
    await reports(await merchant('Dune Checkout'), a.id, 3, FUNNEL_WORKS(UP_TO_CHECKOUT), 5);
    await reports(await merchant('Elm Cart Blocked'), a.id, 2, { ...FUNNEL_WORKS(['ACCESS', 'SEARCH', 'DETAILS']), CART: 'BLOCKED' }, 2);
    const fern = await merchant('Fern Sponsored');
    await reports(fern, a.id, 1, FUNNEL_WORKS(UP_TO_CHECKOUT), 9);
    await sponsor(fern);
    await reports(await merchant('Gorse Login'), a.id, 1, { ACCESS: 'WORKS', LOGIN: 'BLOCKED' }, 1);
    const hazel = await merchant('Hazel Sponsored Low');
    await reports(hazel, a.id, 1, { ACCESS: 'WORKS' }, 4);
    await sponsor(hazel);
    const ivy = await merchant('Ivy Expired');
    await reports(ivy, a.id, 1, FUNNEL_WORKS(UP_TO_PURCHASE), 6);
    await sponsor(ivy, new Date(now.getTime() - DAY));
    await reports(await merchant('Juniper Other Agent'), b.id, 2, FUNNEL_WORKS(UP_TO_PURCHASE), 1);
    await reports(await merchant('Kale Hidden', false), a.id, 2, FUNNEL_WORKS(UP_TO_PURCHASE), 1);
  });
  afterAll(() => t.close());

  /** Every merchant of the agent, unfiltered: what the summaries say, to compare filters with. */
  async function everyone(): Promise<Listed[]> {
    const res = await api(`/api/v1/merchants?agent=${agent}&sort=name`).expect(200);
    expect(res.body.total).toBe(10);
    return res.body.data as Listed[];
  }

  it('stores the reaches this suite relies on', async () => {
    const all = Object.fromEntries((await everyone()).map((m) => [m.name, m.agents[0]!.reach]));
    expect(all['Bramble Purchase']).toMatchObject({ level: 6, task: 'PURCHASE', confidence: 'high' });
    for (const name of ['Alder Checkout', 'Birch Checkout', 'Cedar Checkout']) expect(all[name]).toMatchObject({ level: 5, confidence: 'low' });
    expect(all['Dune Checkout']).toMatchObject({ level: 5, confidence: 'medium' });
    expect(all['Elm Cart Blocked']).toMatchObject({ level: 3, stop: { task: 'CART', status: 'blocked' } });
    expect(all['Gorse Login']).toMatchObject({ level: 1 });
    expect(all['Ivy Expired']).toMatchObject({ level: 6, confidence: 'low' });
  });

  it('reaches=CHECKOUT lists the merchants where the agent gets at least that far, sponsored first and marked', async () => {
    const res = await api(`/api/v1/merchants?agent=${agent}&reaches=CHECKOUT&sort=name`).expect(200);
    // Hazel is sponsored but gets no further than access: sponsored listings come first only among matches.
    expect(names(res.body.data)).toEqual([
      'Fern Sponsored',
      'Alder Checkout',
      'Birch Checkout',
      'Bramble Purchase',
      'Cedar Checkout',
      'Dune Checkout',
      'Ivy Expired',
    ]);
    expect(res.body.total).toBe(7);
    const [first, ...rest] = res.body.data as Listed[];
    expect(first).toMatchObject({ sponsored: true, sponsorshipDisclosure: 'Paid placement' });
    for (const m of rest) expect(m.sponsored).toBe(false);
    for (const m of res.body.data as Listed[]) expect(m.agents.map((s) => [s.agent.slug, s.reach.level >= 5])).toEqual([[agent, true]]);
    // PURCHASE is the top of the ladder; ACCESS keeps every merchant with a step confirmed.
    expect(names((await api(`/api/v1/merchants?agent=${agent}&reaches=PURCHASE&sort=name`).expect(200)).body.data)).toEqual([
      'Bramble Purchase',
      'Ivy Expired',
    ]);
    expect((await api(`/api/v1/merchants?agent=${agent}&reaches=ACCESS`).expect(200)).body.total).toBe(10);
  });

  it('sort=reach orders by reach, then confidence, then the newest report, sponsored listings first', async () => {
    const res = await api(`/api/v1/merchants?agent=${agent}&sort=reach`).expect(200);
    expect(names(res.body.data)).toEqual([
      // Sponsored, in the same order among themselves.
      'Fern Sponsored',
      'Hazel Sponsored Low',
      'Bramble Purchase', // 6 high
      'Ivy Expired', // 6 low
      'Dune Checkout', // 5 medium
      // 5 low: the newest report first (3 days ago), then by name; Alder's is 8 days old.
      'Birch Checkout',
      'Cedar Checkout',
      'Alder Checkout',
      'Elm Cart Blocked', // 3
      'Gorse Login', // 1
    ]);
    const rest = (res.body.data as Listed[]).filter((m) => !m.sponsored).map((m) => m.agents[0]!);
    for (let i = 1; i < rest.length; i++) {
      const [a, b] = [rest[i - 1]!, rest[i]!];
      const key = (s: typeof a) => s.reach.level * 3 + CONFIDENCE_RANK[s.reach.confidence];
      expect(key(a)).toBeGreaterThanOrEqual(key(b));
    }
  });

  it('the agent-scoped path answers the same as the agent parameter', async () => {
    for (const query of ['reaches=CHECKOUT&sort=reach', 'task=CART&taskStatus=blocked', 'minConfidence=medium&sort=reach&view=compact']) {
      const scoped = await api(`/api/v1/agents/${agent}/merchants?${query}`).expect(200);
      const param = await api(`/api/v1/merchants?agent=${agent}&${query}`).expect(200);
      expect(scoped.body.total).toBe(param.body.total);
      expect(scoped.body.data).toEqual(param.body.data);
    }
    expect(names((await api(`/api/v1/agents/${other}/merchants?reaches=PURCHASE`).expect(200)).body.data)).toEqual(['Juniper Other Agent']);
  });

  it('task with taskStatus lists the merchants whose task has one of those statuses', async () => {
    const all = await everyone();
    const having = (task: TaskKey, statuses: string[]) =>
      all.filter((m) => statuses.includes(m.agents[0]!.capabilities[task].status)).map((m) => m.name).sort();
    const cases: Array<[TaskKey, string]> = [
      ['CART', 'blocked'],
      ['CART', 'blocked,unsupported'],
      ['LOGIN', 'blocked'],
      ['PURCHASE', 'untested'],
      ['PURCHASE', 'supported,partial'],
      ['CHECKOUT', 'unknown'],
    ];
    for (const [task, statuses] of cases) {
      const res = await api(`/api/v1/merchants?agent=${agent}&task=${task}&taskStatus=${statuses}&sort=name`).expect(200);
      const listed = (res.body.data as Listed[]).filter((m) => !m.sponsored).map((m) => m.name);
      const sponsored = (res.body.data as Listed[]).filter((m) => m.sponsored).map((m) => m.name);
      expect([...sponsored, ...listed].sort(), `${task}=${statuses}`).toEqual(having(task, statuses.split(',')));
      expect(res.body.total).toBe(res.body.data.length);
    }
    expect(names((await api(`/api/v1/merchants?agent=${agent}&task=CART&taskStatus=blocked`).expect(200)).body.data)).toEqual(['Elm Cart Blocked']);
    expect(names((await api(`/api/v1/merchants?agent=${agent}&task=LOGIN&taskStatus=blocked`).expect(200)).body.data)).toEqual(['Gorse Login']);
  });

  it('minConfidence keeps the reaches at least that sure, and combines with the other filters', async () => {
    const all = await everyone();
    const res = await api(`/api/v1/merchants?agent=${agent}&minConfidence=medium&sort=name`).expect(200);
    const expected = all.filter((m) => CONFIDENCE_RANK[m.agents[0]!.reach.confidence] >= 1);
    expect(new Set(names(res.body.data))).toEqual(new Set(names(expected)));
    expect(names(res.body.data)).toContain('Dune Checkout');
    expect(names((await api(`/api/v1/merchants?agent=${agent}&minConfidence=high&reaches=PURCHASE`).expect(200)).body.data)).toEqual([
      'Bramble Purchase',
    ]);
    expect((await api(`/api/v1/merchants?agent=${agent}&minConfidence=low`).expect(200)).body.total).toBe(10);
    // With a merchant filter too (counted through the merchants, not the summaries alone).
    const both = await api(`/api/v1/merchants?agent=${agent}&reaches=CHECKOUT&q=checkout&sort=reach`).expect(200);
    expect(names(both.body.data)).toEqual(['Dune Checkout', 'Birch Checkout', 'Cedar Checkout', 'Alder Checkout']);
    expect(both.body.total).toBe(4);
    const none = await api(`/api/v1/merchants?agent=${agent}&reaches=PURCHASE&task=CART&taskStatus=blocked`).expect(200);
    expect(none.body).toMatchObject({ total: 0, data: [] });
  });

  it('pages through a reach sort with the true total', async () => {
    const res = await api(`/api/v1/merchants?agent=${agent}&reaches=CHECKOUT&sort=reach&page=2`).expect(200);
    expect(res.body).toMatchObject({ total: 7, page: 2, data: [] });
  });

  it.each([
    ['reaches=CHECKOUT', 'reaches', FILTER_RULES.reachNeedsAgent],
    ['minConfidence=high', 'minConfidence', FILTER_RULES.confidenceNeedsAgent],
    ['task=CART&taskStatus=blocked', 'task', FILTER_RULES.taskNeedsAgent],
    ['sort=reach', 'sort', FILTER_RULES.sortReachNeedsAgent],
    ['agent=AGENT&reaches=LOGIN', 'reaches', FILTER_RULES.loginOffLadder],
    ['agent=AGENT&reaches=BROWSE', 'reaches', FILTER_RULES.notOnLadder],
    ['agent=AGENT&task=CART', 'taskStatus', FILTER_RULES.taskNeedsStatus],
    ['agent=AGENT&taskStatus=blocked', 'task', FILTER_RULES.statusNeedsTask],
    ['agent=AGENT&task=PAYING&taskStatus=blocked', 'task', 'Invalid option'],
    ['agent=AGENT&task=CART&taskStatus=broken', 'taskStatus', 'must be one or more of supported, partial, blocked, unsupported, unknown, untested'],
    ['agent=AGENT&task=CART&taskStatus=blocked,', 'taskStatus', 'separated by commas'],
    ['agent=AGENT&minConfidence=certain', 'minConfidence', 'Invalid option'],
  ])('answers ?%s with a 400 naming %s and the rule', async (query, parameter, rule) => {
    const res = await api(`/api/v1/merchants?${query.replace('AGENT', agent)}`).expect(400);
    expect(res.headers['content-type']).toMatch(PROBLEM);
    expect(res.body).toMatchObject({ type: `${TEST_BASE_URL}/problems/validation-failed`, status: 400 });
    const error = (res.body.errors as Array<{ parameter: string; detail: string }>).find((e) => e.parameter === parameter);
    expect(error?.detail).toContain(rule);
  });

  it('refuses the same rules on the agent-scoped path, where the agent is given', async () => {
    const refused = async (query: string, parameter: string, rule: string) => {
      const res = await api(`/api/v1/agents/${agent}/merchants?${query}`).expect(400);
      expect(res.body.errors).toContainEqual({ parameter, detail: rule });
    };
    await refused('reaches=LOGIN', 'reaches', FILTER_RULES.loginOffLadder);
    await refused('task=CART', 'taskStatus', FILTER_RULES.taskNeedsStatus);
    await refused('taskStatus=blocked', 'task', FILTER_RULES.statusNeedsTask);
    await api(`/api/v1/agents/${agent}/merchants?sort=reach&reaches=SEARCH&minConfidence=low`).expect(200);
    // The agent comes from the path only.
    await refused(`agent=${agent}&reaches=CART`, 'agent', 'is not a known parameter');
  });

  describe('MCP search_merchants', () => {
    const call = async (args: Record<string, unknown>) => {
      const res = await request(t.app)
        .post('/mcp')
        .set('Accept', 'application/json, text/event-stream')
        .send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search_merchants', arguments: args } })
        .expect(200);
      return res.body.result as { isError?: boolean; structuredContent: Record<string, unknown>; content: Array<{ text: string }> };
    };

    it('answers the filters and the sort as the API does', async () => {
      const result = await call({ agent, reaches: 'CHECKOUT', sort: 'reach', minConfidence: 'low' });
      const res = await api(`/api/v1/merchants?agent=${agent}&reaches=CHECKOUT&sort=reach&minConfidence=low`).expect(200);
      expect(result.isError).toBeUndefined();
      expect(result.structuredContent).toEqual(res.body);
      const tasks = await call({ agent, task: 'CART', taskStatus: 'blocked,unsupported', view: 'compact' });
      expect((tasks.structuredContent.data as Listed[]).map((m) => m.name)).toEqual(['Elm Cart Blocked']);
    });

    it('refuses a broken rule with the problem the API answers', async () => {
      // The API's problem, as the tool result's text, worded with the tool's arguments.
      const result = await call({ reaches: 'LOGIN', agent });
      expect(result.isError).toBe(true);
      expect(JSON.parse(result.content[0]!.text)).toMatchObject({ status: 400, errors: [{ parameter: 'reaches', detail: MCP_FILTER_RULES.loginOffLadder }] });
      const noAgent = await call({ sort: 'reach' });
      expect(JSON.parse(noAgent.content[0]!.text)).toMatchObject({ status: 400, errors: [{ parameter: 'sort', detail: MCP_FILTER_RULES.sortReachNeedsAgent }] });
    });

    it('describes reach, the filters and the sort', async () => {
      const res = await request(t.app)
        .post('/mcp')
        .set('Accept', 'application/json, text/event-stream')
        .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
        .expect(200);
      const tool = (res.body.result.tools as Array<{ name: string; description: string; inputSchema: { properties: Record<string, { description?: string; enum?: string[] }> } }>)
        .find((x) => x.name === 'search_merchants')!;
      // Each argument says what it keeps (issue 35: each rule once, in the argument's description).
      expect(tool.description).toContain("each argument's description says what it keeps");
      for (const name of ['reaches', 'task', 'taskStatus', 'minConfidence']) expect(tool.inputSchema.properties[name]!.description, name).toBeTruthy();
      expect(tool.inputSchema.properties.reaches!.description).toMatch(/reach|gets at least/i);
      expect(tool.inputSchema.properties.reaches!.enum).toEqual(['ACCESS', 'SEARCH', 'DETAILS', 'CART', 'CHECKOUT', 'PURCHASE']);
      expect(tool.inputSchema.properties.sort!.enum).toContain('reach');
      expect(tool.inputSchema.properties.sort!.description).toMatch(/reach \(needs agent: furthest first/);
    });
  });
});
