// A list of merchants joins each agent's body from the fragment the summary writer stored
// (aggregation/summary-view.ts) instead of building it on every read (issue 38). It must send
// exactly what building it sends: for the demo directory, every sort, with and without an
// agent, at another base URL, with fragments of another stamp or none; and for generated
// summaries, whatever their agent versions say. A fragment printed by other code is never
// used, and the refresh prints it again without moving the directory's version.
import fc from 'fast-check';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUTCOMES, STAGES, TASKS } from '../../src/modules/aggregation/constants.js';
import type { EvidenceReport } from '../../src/modules/aggregation/observations.js';
import { listStamp, printListFragments, recomputeSummaries, summaryDocument } from '../../src/modules/aggregation/summaries.service.js';
import { fragmentPage, storeFragments } from '../../src/modules/aggregation/summaries.repository.js';
import { runUpkeep } from '../../src/upkeep.js';
import { createLogger } from '../../src/logger.js';
import { listBodyJson, listFragment, summaryBody } from '../../src/modules/aggregation/summary-view.js';
import { uncachedCounts } from '../../src/modules/directory/counts.js';
import { agentMerchantQuery, merchantQuery } from '../../src/modules/merchants/merchants.schemas.js';
import { searchDirectory, searchDirectoryJson, type ListContext } from '../../src/modules/merchants/merchants.service.js';
import { findActiveAgent } from '../../src/modules/catalog/catalog.repository.js';
import { asciiJson } from '../../src/raw-json.js';
import { DEMO_NOW, createDemoApp } from '../setup/demo.js';
import { TEST_BASE_URL, type TestApp } from '../setup/app.js';
import { createTestDatabase, type TestDatabase } from '../setup/database.js';

const SORTS = ['name', 'recent', 'popular'] as const;
const AGENT_SORTS = ['name', 'recent', 'popular', 'rating', 'reach'] as const;

describe('lists joined from stored fragments', () => {
  let t: TestApp;
  const contextAt = (baseUrl: string): ListContext => ({ prisma: t.db.prisma, pool: t.db.pool, counts: uncachedCounts(t.db.prisma), baseUrl, now: new Date(DEMO_NOW) });
  beforeAll(async () => {
    t = await createDemoApp();
  });
  afterAll(() => t.close());

  /** searchDirectoryJson's data as JSON, and JSON.stringify of searchDirectory's, past ASCII escaped: the two must be equal. */
  async function both(ctx: ListContext, raw: Record<string, string>, agentSlug?: string) {
    const agent = agentSlug ? ((await findActiveAgent(ctx.prisma, agentSlug)) ?? undefined) : undefined;
    const query = agent ? agentMerchantQuery.parse(raw) : merchantQuery.parse(raw);
    const [joined, built] = await Promise.all([searchDirectoryJson(ctx, query, agent), searchDirectory(ctx, query, agent)]);
    expect(joined.total).toBe(built.total);
    expect(joined.shows).toEqual(built.data.map((m) => m.id));
    return { joined: `[${joined.data.map((m) => m.json).join(',')}]`, built: asciiJson(JSON.stringify(built.data)), count: built.data.length };
  }

  it('every fragment of the demo directory is stored with this code’s stamp', async () => {
    const { rows } = await t.db.pool.query<{ stamp: string | null; n: string }>(
      `SELECT list_stamp AS stamp, count(*) AS n FROM merchant_agent_summaries WHERE list_json IS NOT NULL GROUP BY 1`,
    );
    expect(rows).toEqual([{ stamp: listStamp(), n: expect.any(String) }]);
    const { rows: missing } = await t.db.pool.query(`SELECT 1 FROM merchant_agent_summaries WHERE list_json IS NULL`);
    expect(missing).toEqual([]);
    // ASCII only (asciiJson), though the demo's verdicts carry symbols such as ✓ and ◐.
    const { rows: wide } = await t.db.pool.query(`SELECT 1 FROM merchant_agent_summaries WHERE list_json ~ '[^[:ascii:]]'`);
    expect(wide).toEqual([]);
    const { rows: symbols } = await t.db.pool.query(`SELECT 1 FROM merchant_agent_summaries WHERE list_json LIKE '%\\u25%' LIMIT 1`);
    expect(symbols).toHaveLength(1);
  });

  it('sends what building the list sends: every sort and page, with and without an agent, at two base URLs', async () => {
    const { rows: agents } = await t.db.pool.query<{ slug: string }>(`SELECT slug FROM agents WHERE active ORDER BY slug`);
    let merchants = 0;
    for (const baseUrl of [TEST_BASE_URL, 'https://directory.example.org/sub"path']) {
      const ctx = contextAt(baseUrl);
      for (const sort of SORTS) {
        for (const page of ['1', '2']) {
          const { joined, built, count } = await both(ctx, { sort, page });
          expect(joined).toBe(built);
          merchants += count;
        }
      }
      for (const { slug } of agents) {
        for (const sort of AGENT_SORTS) {
          const { joined, built } = await both(ctx, { sort }, slug);
          expect(joined).toBe(built);
        }
        const filtered = await both(ctx, { reaches: 'CART', outcome: 'WORKS' }, slug);
        expect(filtered.joined).toBe(filtered.built);
      }
      // independent=all is built as before (the fragments are of the independent reports).
      const all = await both(ctx, { independent: 'all' });
      expect(all.joined).toBe(all.built);
    }
    expect(merchants).toBeGreaterThan(20);
  });

  it('through the API: the page’s bytes are the built list’s', async () => {
    const ctx = contextAt(TEST_BASE_URL);
    const built = await searchDirectory(ctx, merchantQuery.parse({ sort: 'popular' }));
    const res = await request(t.app).get('/api/v1/merchants?sort=popular').expect(200);
    expect(JSON.stringify((res.body as { data: unknown }).data)).toBe(JSON.stringify(built.data));
    expect(res.text).toContain(`"data":${asciiJson(JSON.stringify(built.data))}`);
  });

  it('never uses a fragment of another stamp, and builds those bodies instead', async () => {
    const { rows } = await t.db.pool.query<{ merchant_id: string; agent_id: string }>(
      `SELECT merchant_id, agent_id FROM merchant_agent_summaries WHERE report_count > 0 ORDER BY merchant_id, agent_id LIMIT 6`,
    );
    // Written by other code: a stamp of its own and a body this code would never print.
    await t.db.pool.query(
      `UPDATE merchant_agent_summaries SET list_json = '{"independent":"only","stale":true}', list_stamp = 'other-code'
        WHERE (merchant_id, agent_id) IN (SELECT * FROM unnest($1::uuid[], $2::uuid[]))`,
      [rows.map((r) => r.merchant_id), rows.map((r) => r.agent_id)],
    );
    // And one written before fragments existed.
    await t.db.pool.query(`UPDATE merchant_agent_summaries SET list_json = NULL, list_stamp = NULL WHERE (merchant_id, agent_id) = ($1, $2)`, [
      rows[0]!.merchant_id,
      rows[0]!.agent_id,
    ]);
    const ctx = contextAt(TEST_BASE_URL);
    for (const sort of SORTS) {
      const { joined, built } = await both(ctx, { sort });
      expect(joined).not.toContain('"stale"');
      expect(joined).toBe(built);
    }

    // The refresh prints them again, as an update that moves no version.
    const before = await t.db.pool.query<{ version: string }>(`SELECT version FROM directory_version`);
    await t.db.prisma.$transaction((tx) =>
      recomputeSummaries(
        tx,
        rows.map((r) => ({ merchantId: r.merchant_id, agentId: r.agent_id })),
        new Date(DEMO_NOW),
      ),
    );
    const after = await t.db.pool.query<{ version: string }>(`SELECT version FROM directory_version`);
    expect(after.rows).toEqual(before.rows);
    const { rows: stamps } = await t.db.pool.query<{ list_stamp: string; list_json: string }>(
      `SELECT list_stamp, list_json FROM merchant_agent_summaries WHERE (merchant_id, agent_id) IN (SELECT * FROM unnest($1::uuid[], $2::uuid[]))`,
      [rows.map((r) => r.merchant_id), rows.map((r) => r.agent_id)],
    );
    expect(stamps).toHaveLength(rows.length);
    for (const row of stamps) {
      expect(row.list_stamp).toBe(listStamp());
      expect(row.list_json).not.toContain('"stale"');
    }
  });
});

describe('printing the fragments of other code again', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createDemoApp();
  });
  afterAll(() => t.close());

  const stampsOf = async () =>
    (await t.db.pool.query<{ stamp: string | null; n: number }>(`SELECT list_stamp AS stamp, count(*)::int AS n FROM merchant_agent_summaries GROUP BY 1 ORDER BY 1`)).rows;

  it('the first upkeep pass after a start prints every fragment of another stamp or none, moving no version', async () => {
    const { rows: all } = await t.db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM merchant_agent_summaries`);
    const expected = await t.db.pool.query<{ merchant_id: string; agent_id: string; list_json: string }>(
      `SELECT merchant_id, agent_id, list_json FROM merchant_agent_summaries ORDER BY 1, 2`,
    );
    await t.db.pool.query(`UPDATE merchant_agent_summaries SET list_json = NULL, list_stamp = NULL WHERE report_count % 2 = 0`);
    await t.db.pool.query(`UPDATE merchant_agent_summaries SET list_json = '{}', list_stamp = 'other-code' WHERE report_count % 2 = 1`);
    const version = await t.db.pool.query(`SELECT version FROM directory_version`);

    await runUpkeep(t.db, new Date(DEMO_NOW), createLogger('silent'));
    expect(await stampsOf()).toEqual([{ stamp: listStamp(), n: all[0]!.n }]);
    // As the writer printed them.
    const printed = await t.db.pool.query(`SELECT merchant_id, agent_id, list_json FROM merchant_agent_summaries ORDER BY 1, 2`);
    expect(printed.rows).toEqual(expected.rows);
    expect((await t.db.pool.query(`SELECT version FROM directory_version`)).rows).toEqual(version.rows);

    // Once per start: a later pass leaves what it finds.
    await t.db.pool.query(`UPDATE merchant_agent_summaries SET list_stamp = 'other-code' WHERE report_count % 2 = 1`);
    await runUpkeep(t.db, new Date(DEMO_NOW), createLogger('silent'));
    expect((await stampsOf()).map((r) => r.stamp)).toContain('other-code');
    // But the walk itself, asked again, prints them.
    expect(await printListFragments(t.db.prisma)).toBeGreaterThan(0);
    expect(await stampsOf()).toEqual([{ stamp: listStamp(), n: all[0]!.n }]);
    expect(await printListFragments(t.db.prisma)).toBe(0);
  });

  it('keeps the fragment of a row written after it was read', async () => {
    await t.db.pool.query(`UPDATE merchant_agent_summaries SET list_stamp = 'other-code'`);
    const page = await fragmentPage(t.db.prisma, null, 3, listStamp());
    expect(page.stale).toHaveLength(3);
    const [moved, ...kept] = page.stale;
    // Another writer (a recomputation, a touch) changes the first row meanwhile.
    await t.db.pool.query(`UPDATE merchant_agent_summaries SET computed_at = computed_at WHERE merchant_id = $1 AND agent_id = $2`, [moved!.merchantId, moved!.agentId]);
    const stored = await storeFragments(
      t.db.prisma,
      page.stale.map((row) => ({ ...row, listJson: '{"independent":"only","from":"the walk"}', listStamp: listStamp() })),
    );
    expect(stored).toBe(kept.length);
    const { rows } = await t.db.pool.query<{ list_stamp: string }>(`SELECT list_stamp FROM merchant_agent_summaries WHERE merchant_id = $1 AND agent_id = $2`, [
      moved!.merchantId,
      moved!.agentId,
    ]);
    expect(rows[0]!.list_stamp).toBe('other-code');
  });
});

describe('a stored fragment, made absolute', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());
  const NOW = new Date('2026-11-01T00:00:00.000Z');
  const report = fc.record({
    outcome: fc.constantFrom(...OUTCOMES),
    results: fc.array(fc.tuple(fc.constantFrom(...TASKS), fc.constantFrom(...OUTCOMES)), { maxLength: 7 }),
    stage: fc.option(fc.constantFrom(...STAGES)),
    daysAgo: fc.integer({ min: 0, max: 500 }),
    tested: fc.boolean(),
    // Agent versions are what reporters typed: text that spells members, links and escapes.
    version: fc.option(fc.oneof(fc.string(), fc.constantFrom('","url":"/evil', '\\"url\\":\\"/x', '"url":"/', '\u2028'))),
    account: fc.nat(4),
    self: fc.constantFrom(null, null, null, 'owner', 'vendor'),
  });

  it('is the list body the view builds from the stored document, at any base URL, whatever the reports say', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(report, { maxLength: 8 }),
        fc.constantFrom('', 'http://127.0.0.1:3000', 'https://dir.example.org/a"b\\c', 'https://dir.example.org/%2F'),
        async (given, baseUrl) => {
          const reports: EvidenceReport[] = given.map((r, i) => {
            const createdAt = new Date(NOW.getTime() - r.daysAgo * 86_400_000);
            return {
              id: `00000000-0000-7000-8000-${String(i).padStart(12, '0')}`,
              accountId: `account-${r.account}`,
              outcome: r.outcome,
              capabilityResults: Object.fromEntries(r.results),
              stage: r.stage,
              testedAt: r.tested ? createdAt : null,
              createdAt,
              agentVersion: r.version,
              selfReported: r.self as EvidenceReport['selfReported'],
            };
          });
          const document = summaryDocument(reports, NOW);
          // As the list reads it back: through jsonb, which orders keys its own way.
          const { rows } = await db.pool.query<{ text: string }>(`SELECT ($1::jsonb - 'trend')::text AS text`, [JSON.stringify(document)]);
          const stored = JSON.parse(rows[0]!.text) as typeof document;
          expect(listBodyJson(baseUrl, listFragment(document))).toBe(asciiJson(JSON.stringify(summaryBody(baseUrl, stored, 'list', 'only'))));
        },
      ),
      { numRuns: 300 },
    );
  });
});
