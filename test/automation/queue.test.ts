import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoApp } from '../setup/demo.js';
import { TEST_BASE_URL, type TestApp } from '../setup/app.js';
import { accountWithKey } from '../setup/actors.js';

type QueueItem = { id: string; slug: string; existingReport?: { id: string; status: string; updatedAt: string } };

describe('GET /api/v1/automation/queue', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  let accountId: string;
  let agentId: string;
  beforeAll(async () => {
    t = await createDemoApp();
    agentId = (await t.db.prisma.agent.findFirstOrThrow({ where: { active: true }, orderBy: { slug: 'asc' } })).id;
    ({ auth, account: { id: accountId } } = await accountWithKey(t, 'queue@example.org', agentId));
  });
  afterAll(() => t.close());

  const get = (query: string) => request(t.app).get(`/api/v1/automation/queue${query}`).set(auth);
  const eligible = async () =>
    (
      await t.db.pool.query(
        `SELECT m.id FROM merchants m WHERE m.approved_canonical AND m.is_public
            AND NOT EXISTS (SELECT 1 FROM reports r WHERE r.merchant_id = m.id AND r.account_id = $1 AND r.agent_id = $2)
          ORDER BY m.id`,
        [accountId, agentId],
      )
    ).rows.map((r) => r.id as string);

  async function pass(query: string, between?: (page: number) => Promise<void>): Promise<QueueItem[]> {
    const seen: QueueItem[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 100; page++) {
      const res: request.Response = await get(`${query}${cursor ? `&after=${encodeURIComponent(cursor)}` : ''}`).expect(200);
      seen.push(...res.body.items);
      cursor = res.body.nextCursor;
      if (!cursor) return seen;
      await between?.(page);
    }
    throw new Error('the pass did not end');
  }

  it('walks every eligible merchant exactly once over several pages, ending with nextCursor null', async () => {
    const expected = await eligible();
    expect(expected.length).toBeGreaterThan(20);
    const seen = await pass('?limit=7');
    expect(seen.map((i) => i.id)).toEqual(expected);
    const first = (await get('?limit=7').expect(200)).body;
    expect(first.items).toHaveLength(7);
    expect(first.items[0]).toMatchObject({
      id: expected[0],
      profileUrl: expect.stringMatching(new RegExp(`^${TEST_BASE_URL}/merchants/`)),
      website: expect.any(String),
    });
    expect(first.items[0]).toHaveProperty('category');
  });

  it('is private: no-store, Vary: Authorization', async () => {
    const res = await get('').expect(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.vary).toMatch(/Authorization/);
    expect(res.body.items).toHaveLength(20);
  });

  it('never repeats or misses a merchant while merchants and reports are added between pages', async () => {
    const category = await t.db.prisma.category.findFirstOrThrow();
    const added: string[] = [];
    const before = await eligible();
    const seen = await pass('?limit=10', async (page) => {
      if (page === 0) {
        const m = await t.db.prisma.merchant.create({
          data: { slug: `added-${page}`, name: 'Added Shop', website: 'https://added.example', category: category.name, categoryId: category.id, approvedCanonical: true },
        });
        added.push(m.id);
        // A report by this account for a merchant not yet visited: it leaves the queue.
        await t.db.prisma.report.create({
          data: { accountId, agentId, merchantId: before.at(-1)!, channel: 'AGENT_KEY', outcome: 'WORKS', privacyConfirmed: true },
        });
      }
    });
    const ids = seen.map((i) => i.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toContain(added[0]);
    expect(ids).not.toContain(before.at(-1));
    expect(ids).toEqual(await eligible());
  });

  it('filters by canonical category', async () => {
    const category = await t.db.prisma.category.findFirstOrThrow({ orderBy: { slug: 'asc' } });
    const seen = await pass(`?category=${category.slug}&limit=50`);
    expect(seen.length).toBeGreaterThan(0);
    const rows = await t.db.prisma.merchant.findMany({ where: { id: { in: seen.map((i) => i.id) } }, select: { categoryId: true } });
    expect(rows.every((r) => r.categoryId === category.id)).toBe(true);
  });

  it('with retestAfterDays also offers merchants whose report is older, with existingReport', async () => {
    const merchant = await t.db.prisma.merchant.findFirstOrThrow({ where: { approvedCanonical: true, isPublic: true }, orderBy: { id: 'asc' } });
    const old = await t.db.prisma.report.create({
      data: {
        accountId, agentId, merchantId: merchant.id, channel: 'AGENT_KEY', outcome: 'BLOCKED', privacyConfirmed: true,
        status: 'APPROVED', createdAt: new Date('2026-06-01T00:00:00Z'), updatedAt: new Date('2026-06-01T00:00:00Z'),
      },
    });
    expect((await pass('?limit=50')).map((i) => i.id)).not.toContain(merchant.id);
    const retest = await pass('?limit=50&retestAfterDays=30');
    expect(retest.find((i) => i.id === merchant.id)).toMatchObject({
      existingReport: { id: old.id, status: 'APPROVED', updatedAt: '2026-06-01T00:00:00.000Z' },
    });
    expect((await pass('?limit=50&retestAfterDays=365')).map((i) => i.id)).not.toContain(merchant.id);
  });

  it.each([
    ['?limit=0', 'limit'],
    ['?limit=51', 'limit'],
    ['?limit=ten', 'limit'],
    ['?retestAfterDays=6', 'retestAfterDays'],
    ['?retestAfterDays=366', 'retestAfterDays'],
    ['?category=No Such', 'category'],
    ['?category=no-such-category', 'category'],
    ['?after=garbage', 'after'],
    ['?color=red', 'color'],
  ])('answers %s with a 400 naming %s', async (query, parameter) => {
    const res = await get(query).expect(400);
    expect(res.body.errors.map((e: { parameter: string }) => e.parameter)).toContain(parameter);
  });

  it('refuses a cursor reused with other filters, or tampered with', async () => {
    const { nextCursor } = (await get('?limit=5').expect(200)).body;
    const other = await get(`?limit=5&retestAfterDays=30&after=${encodeURIComponent(nextCursor)}`).expect(400);
    expect(other.body.errors[0]).toMatchObject({ parameter: 'after', detail: expect.stringMatching(/other filters/) });
    const [payload, mac] = (nextCursor as string).split('.');
    const forged = Buffer.from(JSON.stringify({ p: '00000000-0000-7000-8000-000000000000', f: '[]' })).toString('base64url');
    await get(`?limit=5&after=${forged}.${mac}`).expect(400);
    await get(`?limit=5&after=${payload}.${mac!.slice(1)}x`).expect(400);
    // Another key's cursor (another agent) is not valid here either.
    const otherAgent = (await t.db.prisma.agent.findFirstOrThrow({ where: { active: true, id: { not: agentId } } })).id;
    const { auth: otherAuth } = await accountWithKey(t, 'queue@example.org', otherAgent);
    await request(t.app).get(`/api/v1/automation/queue?limit=5&after=${encodeURIComponent(nextCursor)}`).set(otherAuth).expect(400);
  });

  it('needs a bearer key: 401 without one, never a session', async () => {
    await request(t.app).get('/api/v1/automation/queue').expect(401);
  });
});
