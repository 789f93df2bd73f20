// GET /api/v1/automation/queue?retest=only&retestAfterDays=N: only the merchants whose report by
// this account for this agent was last changed more than N days ago, each with existingReport.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aCategory, aMerchant, anAgent, aReport } from '../factories/index.js';
import { accountWithKey } from '../setup/actors.js';
import { createTestApp, type TestApp } from '../setup/app.js';

const DAY = 86_400_000;

describe('the retest-only queue', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  const ids = { old: [] as string[], recent: '', never: '', otherAgent: '' };
  const reportIds = new Map<string, string>();
  beforeAll(async () => {
    t = await createTestApp({ now: '2026-11-22T12:00:00Z' });
    const prisma = t.db.prisma;
    const category = await aCategory(prisma);
    const agent = await anAgent(prisma);
    const other = await anAgent(prisma);
    const key = await accountWithKey(t, 'retest@example.org', agent.id);
    auth = key.auth;
    const now = t.clock.now();
    const merchants = [];
    for (let i = 0; i < 6; i++) merchants.push(await aMerchant(prisma, { categoryId: category.id }));
    // Two reports 40 days old, one 10 days old, one by this account for another agent, one merchant never reported.
    for (const [i, age] of [[0, 40], [1, 45]] as const) {
      const at = new Date(now.getTime() - age * DAY);
      const r = await aReport(prisma, { merchantId: merchants[i]!.id, agentId: agent.id, accountId: key.account.id, status: 'APPROVED' }, at);
      await prisma.report.update({ where: { id: r.id }, data: { updatedAt: at } });
      reportIds.set(merchants[i]!.id, r.id);
      ids.old.push(merchants[i]!.id);
    }
    const recent = await aReport(prisma, { merchantId: merchants[2]!.id, agentId: agent.id, accountId: key.account.id }, new Date(now.getTime() - 10 * DAY));
    await prisma.report.update({ where: { id: recent.id }, data: { updatedAt: new Date(now.getTime() - 10 * DAY) } });
    ids.recent = merchants[2]!.id;
    const foreign = await aReport(prisma, { merchantId: merchants[3]!.id, agentId: other.id, accountId: key.account.id }, new Date(now.getTime() - 60 * DAY));
    await prisma.report.update({ where: { id: foreign.id }, data: { updatedAt: new Date(now.getTime() - 60 * DAY) } });
    ids.otherAgent = merchants[3]!.id;
    ids.never = merchants[4]!.id;
  });
  afterAll(() => t.close());

  const queue = (query: string) => request(t.app).get(`/api/v1/automation/queue${query}`).set(auth);
  const sorted = (list: string[]) => [...list].sort();

  it('lists only the merchants due for a retest, each with its existingReport', async () => {
    const res = await queue('?retest=only&retestAfterDays=30').expect(200);
    expect(sorted(res.body.items.map((i: { id: string }) => i.id))).toEqual(sorted(ids.old));
    for (const item of res.body.items) {
      expect(item.existingReport).toEqual({ id: reportIds.get(item.id), status: 'APPROVED', updatedAt: expect.stringMatching(/Z$/) });
    }
    // A shorter period makes the 10-day-old report due too; never-reported merchants never appear.
    const wider = await queue('?retest=only&retestAfterDays=7').expect(200);
    expect(sorted(wider.body.items.map((i: { id: string }) => i.id))).toEqual(sorted([...ids.old, ids.recent]));
    expect(wider.body.items.map((i: { id: string }) => i.id)).not.toContain(ids.never);
  });

  it('pages with cursors bound to retest=only', async () => {
    const first = await queue('?retest=only&retestAfterDays=30&limit=1').expect(200);
    expect(first.body.items).toHaveLength(1);
    expect(first.headers.link).toContain('retest=only');
    const cursor = encodeURIComponent(first.body.nextCursor);
    const second = await queue(`?retest=only&retestAfterDays=30&limit=1&after=${cursor}`).expect(200);
    expect(second.body.items).toHaveLength(1);
    expect(second.body.items[0].id).not.toBe(first.body.items[0].id);
    // The same cursor with the default (include) queue is another pass: refused.
    const other = await queue(`?retestAfterDays=30&limit=1&after=${cursor}`).expect(400);
    expect(other.body.errors[0].parameter).toBe('after');
  });

  it('without retest (or retest=include) keeps the mixed queue; retest=only needs retestAfterDays', async () => {
    const mixed = await queue('?retestAfterDays=30').expect(200);
    const include = await queue('?retest=include&retestAfterDays=30').expect(200);
    expect(include.body.items).toEqual(mixed.body.items);
    expect(mixed.body.items.map((i: { id: string }) => i.id)).toEqual(expect.arrayContaining([...ids.old, ids.never, ids.otherAgent]));
    expect(mixed.body.items.map((i: { id: string }) => i.id)).not.toContain(ids.recent);
    const refused = await queue('?retest=only').expect(400);
    expect(refused.body.errors).toEqual([{ parameter: 'retest', detail: expect.stringContaining('retestAfterDays') }]);
    expect((await queue('?retest=sometimes&retestAfterDays=30').expect(400)).body.errors[0].parameter).toBe('retest');
  });
});
