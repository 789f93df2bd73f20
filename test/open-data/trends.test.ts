// Trends: the statuses of the last 90 days beside the all-time ones, and outcomes per month,
// in the merchant detail of the API.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TREND_DAYS, trendOf } from '../../src/modules/aggregation/trends.js';
import { aMerchant, anAgent, aReport } from '../factories/index.js';
import { createTestApp, type TestApp } from '../setup/app.js';

const NOW = new Date('2026-11-22T12:00:00Z');
const daysAgo = (n: number) => new Date(NOW.getTime() - n * 86_400_000);
const report = (i: number, outcome: 'WORKS' | 'BLOCKED', at: Date) => ({
  id: `r${i}`,
  accountId: `a${i}`,
  outcome,
  capabilityResults: { ACCESS: 'WORKS' as const, CHECKOUT: outcome },
  stage: null,
  testedAt: at,
  createdAt: at,
});

describe('trendOf', () => {
  it('computes the statuses from the window only, and counts outcomes per month', () => {
    // Long ago it worked; lately checkout is blocked.
    const reports = [
      ...[200, 210, 220, 230].map((d, i) => report(i, 'WORKS', daysAgo(d))),
      ...[5, 10, 20].map((d, i) => report(10 + i, 'BLOCKED', daysAgo(d))),
    ];
    const trend = trendOf(reports, NOW);
    expect(trend.windowDays).toBe(TREND_DAYS);
    expect(trend.reportCount).toBe(3);
    expect(trend.capabilities.CHECKOUT).toBe('blocked');
    expect(trend.capabilities.ACCESS).toBe('supported');
    expect(trend.capabilities.CART).toBe('untested');
    expect(trend.months).toHaveLength(12);
    expect(trend.months.at(-1)!.month).toBe('2026-11');
    expect(trend.months.reduce((n, m) => n + m.WORKS + m.BLOCKED, 0)).toBe(7);
    expect(trend.months.find((m) => m.month === '2026-11')!.BLOCKED).toBe(3);
  });

  it('is untested when the window holds no report', () => {
    const trend = trendOf([report(1, 'WORKS', daysAgo(300))], NOW);
    expect(trend).toMatchObject({ reportCount: 0, status: 'untested' });
  });
});

describe('trends in the merchant detail', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ now: NOW.toISOString() });
  });
  afterAll(() => t.close());

  it('adds a trend per agent with reports, null for the others', async () => {
    const merchant = await aMerchant(t.db.prisma);
    const tested = await anAgent(t.db.prisma);
    const untested = await anAgent(t.db.prisma);
    await aReport(t.db.prisma, { merchantId: merchant.id, agentId: tested.id, status: 'APPROVED', outcome: 'WORKS', capabilityResults: { ACCESS: 'WORKS' }, testedAt: daysAgo(200), createdAt: daysAgo(200) }, NOW);
    await aReport(t.db.prisma, { merchantId: merchant.id, agentId: tested.id, status: 'APPROVED', outcome: 'BLOCKED', capabilityResults: { ACCESS: 'BLOCKED' }, testedAt: daysAgo(3), createdAt: daysAgo(3) }, NOW);
    const { data } = (await request(t.app).get(`/api/v1/merchants/${merchant.slug}`).expect(200)).body;
    const byAgent = (id: string) => data.agents.find((a: { agent: { id: string } }) => a.agent.id === id);
    expect(byAgent(tested.id).trend).toMatchObject({ windowDays: 90, reportCount: 1, capabilities: { ACCESS: 'blocked' } });
    expect(byAgent(tested.id).trend.months).toHaveLength(12);
    expect(byAgent(untested.id).trend).toBeNull();
  });
});
