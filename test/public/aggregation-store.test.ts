// The precomputed summaries: equal to a fresh computation, untouched by owner statements and
// sponsorship, and read with a constant number of queries.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { OUTCOMES, STAGES } from '../../src/modules/aggregation/constants.js';
import { computeAgentSummary } from '../../src/modules/aggregation/engine.js';
import { reportFacets } from '../../src/modules/aggregation/facets.js';
import { loadEvidence } from '../../src/modules/aggregation/summaries.repository.js';
import { searchMerchants } from '../../src/modules/merchants/merchants.repository.js';
import {
  recomputeAllSummaries,
  recomputeSummaries,
  refreshStaleSummaries,
  reportPath,
  summaryDocument,
} from '../../src/modules/aggregation/summaries.service.js';
import { createDemoApp, DEMO_NOW } from '../setup/demo.js';
import type { TestApp } from '../setup/app.js';

const now = new Date(DEMO_NOW);

describe('precomputed summaries', () => {
  let t: TestApp;
  const sql = <T>(text: string, values: unknown[] = []) =>
    t.db.pool.query(text, values).then((r) => r.rows as [T, ...T[]]);
  beforeAll(async () => {
    t = await createDemoApp();
  });
  afterAll(() => t.close());

  const snapshot = () =>
    sql<{ merchant_id: string; agent_id: string; summary: unknown; rating: number; report_count: number; facets: unknown }>(
      'SELECT merchant_id, agent_id, summary, rating, report_count, facets FROM merchant_agent_summaries ORDER BY merchant_id, agent_id',
    );
  const merchantFacets = () =>
    sql<{ id: string; report_facets: Record<string, string> }>('SELECT id, report_facets FROM merchants ORDER BY id');

  it('equal a fresh computation from the approved reports', async () => {
    const rows = await snapshot();
    expect(rows.length).toBeGreaterThan(50);
    const evidence = await loadEvidence(t.db.prisma, rows.map((r) => ({ merchantId: r.merchant_id, agentId: r.agent_id })));
    for (const row of rows) {
      const reports = evidence.get(`${row.merchant_id}:${row.agent_id}`) ?? [];
      const fresh = computeAgentSummary(reports, { now, reportUrl: reportPath });
      // The stored summary carries its 90-day trend beside it.
      expect(row.summary).toEqual(JSON.parse(JSON.stringify(summaryDocument(reports, now))));
      expect(row.report_count).toBe(fresh.counts.total);
      expect(row.facets).toEqual(reportFacets(evidence.get(`${row.merchant_id}:${row.agent_id}`) ?? []));
    }
    // A merchant's facets are its summaries' facets merged, each token at its newest date.
    const merged = new Map<string, Record<string, string>>();
    for (const row of rows) {
      const into = merged.get(row.merchant_id) ?? {};
      for (const [token, at] of Object.entries(row.facets as Record<string, string>)) {
        if (!(token in into) || into[token]! < at) into[token] = at;
      }
      merged.set(row.merchant_id, into);
    }
    for (const m of await merchantFacets()) expect(m.report_facets).toEqual(merged.get(m.id) ?? {});
    const totals = await sql<{ mismatched: number }>(
      `SELECT count(*)::int AS mismatched FROM merchants m
        WHERE m.report_count <> coalesce((SELECT sum(report_count) FROM merchant_agent_summaries s WHERE s.merchant_id = m.id), 0)`,
    );
    expect(totals[0].mismatched).toBe(0);
  });

  it('are what the report_facets migration backfills from the reports', async () => {
    const dir = path.resolve('prisma/migrations');
    const migration = readdirSync(dir).find((name) => name.endsWith('_report_facets'))!;
    const statements = readFileSync(path.join(dir, migration, 'migration.sql'), 'utf8')
      .split(/;\s*\n/)
      .map((text) => text.replace(/^--.*$/gm, '').trim())
      .filter((text) => text.startsWith('UPDATE'));
    expect(statements).toHaveLength(2);
    const [summaries, merchants] = [await snapshot(), await merchantFacets()];
    await sql(`UPDATE merchant_agent_summaries SET facets = '{}'`);
    await sql(`UPDATE merchants SET report_facets = '{}'`);
    for (const statement of statements) await sql(statement);
    expect(await snapshot()).toEqual(summaries);
    expect(await merchantFacets()).toEqual(merchants);
  });

  it('answer the outcome, stage and days filters exactly as the approved reports do', async () => {
    const agents = await sql<{ id: string }>('SELECT id FROM agents WHERE active ORDER BY slug LIMIT 2');
    const since = new Date(now.getTime() - 30 * 86_400_000);
    let nonEmpty = 0;
    for (const agentId of [undefined, ...agents.map((a) => a.id)]) {
      for (const outcome of [undefined, ...OUTCOMES]) {
        for (const stage of [undefined, ...STAGES]) {
          for (const days of [undefined, 30]) {
            if (!outcome && !stage && !days) continue;
            const { rows } = await searchMerchants(t.db.prisma, {
              agentId, outcome, stage, days, sort: 'name', offset: 0, limit: 100_000, now,
            });
            // The definition: one approved report of an active agent meets all of them.
            const expected = await sql<{ id: string }>(
              `SELECT m.id FROM merchants m WHERE m.is_public AND EXISTS (
                 SELECT 1 FROM reports r JOIN agents a ON a.id = r.agent_id AND a.active
                  WHERE r.merchant_id = m.id AND r.status = 'APPROVED'
                    AND ($1::uuid IS NULL OR r.agent_id = $1) AND ($2::text IS NULL OR r.outcome::text = $2)
                    AND ($3::text IS NULL OR r.stage::text = $3) AND ($4::timestamptz IS NULL OR r.created_at >= $4))`,
              [agentId ?? null, outcome ?? null, stage ?? null, days ? since : null],
            );
            expect(rows.map((r) => r.id).sort(), `${agentId} ${outcome} ${stage} ${days}`).toEqual(expected.map((r) => r.id).sort());
            if (expected.length > 0) nonEmpty++;
          }
        }
      }
    }
    expect(nonEmpty).toBeGreaterThan(100);
  });

  it('page the directory exactly as one ordered query would, at any page size and offset', async () => {
    const agentId = (await sql<{ id: string }>('SELECT id FROM agents WHERE active ORDER BY slug LIMIT 1'))[0].id;
    const categoryId = (await sql<{ category_id: string }>(
      'SELECT category_id FROM merchants WHERE is_public AND category_id IS NOT NULL GROUP BY category_id ORDER BY count(*) DESC LIMIT 1',
    ))[0].category_id;
    const orders = {
      recent: (c: string) => `${c}.last_reported_at IS NULL, ${c}.last_reported_at DESC, m.name, m.id`,
      popular: (c: string) => `${c}.report_count DESC, m.name, m.id`,
      name: () => 'm.name, m.id',
      rating: () => 'sa.rating DESC, sa.report_count DESC, m.name, m.id',
    };
    const sponsored = `m.id IN (SELECT merchant_id FROM sponsorships WHERE starts_at <= $1 AND (ends_at IS NULL OR ends_at > $1))`;
    let mixed = 0;
    for (const sort of ['recent', 'popular', 'name', 'rating'] as const) {
      for (const agent of sort === 'rating' ? [agentId] : [undefined, agentId]) {
        for (const filter of [{}, { categoryId }, { minReports: 12 }]) {
          const c = agent ? 'sa' : 'm';
          const expected = await sql<{ id: string; sponsored: boolean }>(
              `SELECT m.id, ${sponsored} AS sponsored
                 FROM merchants m ${agent ? 'JOIN merchant_agent_summaries sa ON sa.merchant_id = m.id AND sa.agent_id = $2::uuid AND sa.report_count > 0' : ''}
                WHERE m.is_public ${agent ? '' : 'AND $2::uuid IS NULL'} AND ($3::uuid IS NULL OR m.category_id = $3) AND ($4::int IS NULL OR ${c}.report_count >= $4)
                ORDER BY ${sponsored} DESC, ${orders[sort](c)}`,
              [now, agent ?? null, 'categoryId' in filter ? filter.categoryId : null, 'minReports' in filter ? filter.minReports : null],
            );
          if (new Set(expected.map((row) => row.sponsored)).size === 2) mixed++;
          for (const limit of [1, 7, 24]) {
            const walked: string[] = [];
            for (let offset = 0; ; offset += limit) {
              const { total, rows } = await searchMerchants(t.db.prisma, { agentId: agent, ...filter, sort, offset, limit, now });
              expect(total).toBe(expected.length);
              if (rows.length === 0) break;
              walked.push(...rows.map((row) => row.id));
            }
            expect(walked, `${sort} ${agent} ${JSON.stringify(filter)} ${limit}`).toEqual(expected.map((row) => row.id));
          }
        }
      }
    }
    // Sponsored and other listings together on most of those lists: the parts meet on pages.
    expect(mixed).toBeGreaterThan(4);
  });

  it('are recomputed once older than a day, batch by batch, until shutdown aborts', async () => {
    const before = await snapshot();
    const stale = before.slice(0, 7);
    const ids = (rows: typeof stale) => [rows.map((r) => r.merchant_id), rows.map((r) => r.agent_id)];
    const staleWhere = `(merchant_id, agent_id) IN (SELECT * FROM unnest($1::uuid[], $2::uuid[]))`;
    await sql(`UPDATE merchant_agent_summaries SET computed_at = $3, summary = '{}' WHERE ${staleWhere}`, [
      ...ids(stale),
      new Date(now.getTime() - 2 * 86_400_000),
    ]);
    const aborted = new AbortController();
    aborted.abort();
    expect(await refreshStaleSummaries(t.db.prisma, now, { signal: aborted.signal })).toBe(0);
    expect(await refreshStaleSummaries(t.db.prisma, now, { batch: 3 })).toBe(7);
    const refreshed = await sql<{ computed_at: Date }>(`SELECT computed_at FROM merchant_agent_summaries WHERE ${staleWhere}`, ids(stale));
    expect(refreshed.map((r) => r.computed_at.toISOString())).toEqual(Array(7).fill(now.toISOString()));
    // Recomputed from the reports as of the same moment: the same as before.
    expect(await snapshot()).toEqual(before);
    expect(await refreshStaleSummaries(t.db.prisma, now)).toBe(0);
  });

  it('follow a change of evidence when recomputed in the same transaction', async () => {
    const [r] = await sql<{ id: string; merchant_id: string; agent_id: string; slug: string }>(
      `SELECT r.id, r.merchant_id, r.agent_id, a.slug FROM reports r JOIN agents a ON a.id = r.agent_id AND a.active
         JOIN merchants m ON m.id = r.merchant_id AND m.is_public WHERE r.status = 'APPROVED' LIMIT 1`,
    );
    const [merchant] = await sql<{ slug: string; report_count: number }>('SELECT slug, report_count FROM merchants WHERE id = $1', [r.merchant_id]);
    const before = (await request(t.app).get(`/api/v1/merchants/${merchant.slug}`).expect(200)).body.data;
    await t.db.prisma.$transaction(async (tx) => {
      await tx.report.update({ where: { id: r.id }, data: { status: 'PENDING' } });
      await recomputeSummaries(tx, [{ merchantId: r.merchant_id, agentId: r.agent_id }], now);
    });
    const after = (await request(t.app).get(`/api/v1/merchants/${merchant.slug}`).expect(200)).body.data;
    expect(after.reportCount).toBe(before.reportCount - 1);
    const countOf = (m: { agents: Array<{ agent: { slug: string }; counts: { total: number } }> }) =>
      m.agents.find((a) => a.agent.slug === r.slug)!.counts.total;
    expect(countOf(after)).toBe(countOf(before) - 1);
    await t.db.prisma.$transaction(async (tx) => {
      await tx.report.update({ where: { id: r.id }, data: { status: 'APPROVED' } });
      await recomputeSummaries(tx, [{ merchantId: r.merchant_id, agentId: r.agent_id }], now);
    });
  });

  it('do not change with owner statements or sponsorship', async () => {
    const before = await snapshot();
    const [m] = await sql<{ id: string }>(
      `SELECT id FROM merchants m WHERE is_public AND report_count > 0
          AND NOT EXISTS (SELECT 1 FROM owner_statements o WHERE o.merchant_id = m.id)
          AND NOT EXISTS (SELECT 1 FROM sponsorships s WHERE s.merchant_id = m.id) LIMIT 1`,
    );
    await sql(
      `INSERT INTO owner_statements (id, merchant_id, statement, task_claims, declared_at, updated_at)
       VALUES ('00000000-0000-7000-8000-0000000000a1', $1, 'Everything works', '{"PURCHASE":"WORKS","CART":"WORKS"}', '2026-11-01', now())`,
      [m.id],
    );
    await sql(
      `INSERT INTO sponsorships (id, merchant_id, source, placement, disclosure, starts_at, updated_at)
       VALUES ('00000000-0000-7000-8000-0000000000a2', $1, 'subscription', 'top', 'Paid placement', now() - interval '1 day', now())`,
      [m.id],
    );
    await recomputeAllSummaries(t.db.prisma, now);
    expect(await snapshot()).toEqual(before);
  });
});

/** The statement of SyncedRateLimitStore.sync (modules/limits/counters.ts). */
const SYNCED_LIMITER_SYNC = /^\s*INSERT INTO rate_limit_counters AS c \(key, hits, reset_at\)\s+SELECT key, hits, \$3::timestamptz FROM unnest\(/;

describe('query counts', () => {
  let t: TestApp;
  let count = 0;
  let texts: string[] = [];
  beforeAll(async () => {
    t = await createDemoApp();
    const pool = t.db.pool;
    const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
    pool.query = ((...args: unknown[]) => {
      const raw = args[0];
      const text = typeof raw === 'string' ? raw : String((raw as { text?: string }).text ?? '');
      // The synced limiters send their counts once a second from a timer of their own, whatever
      // request is running then (on a loaded machine, inside a measured one): not a query of
      // any request. A limiter that wrote per request would use another statement, and count.
      if (SYNCED_LIMITER_SYNC.test(text)) return query(...args);
      // The in-memory listing's loads and patches (directory/listing-store.ts): once per process
      // and once per directory version, not per request (a request after a change of everything
      // is answered by SQL while it loads, and counted).
      if (typeof raw === 'object' && String((raw as { name?: string }).name ?? '').startsWith('listing-')) return query(...args);
      count++;
      texts.push(text);
      return query(...args);
    }) as typeof pool.query;
  });
  afterAll(() => t.close());

  // A new directory version, so that the next read is built afresh (not from the response cache).
  async function newVersion(): Promise<void> {
    await t.db.pool.query('UPDATE categories SET updated_at = updated_at WHERE false');
    await t.versions.settle();
  }

  async function queriesFor(path: string): Promise<number> {
    await newVersion();
    count = 0;
    await request(t.app).get(path).expect(200);
    return count;
  }

  it('stay small and constant for list and detail pages, whatever the number of agents and reports', async () => {
    const busiest = (await t.db.pool.query('SELECT slug FROM merchants WHERE is_public ORDER BY report_count DESC LIMIT 1')).rows[0];
    const quietest = (await t.db.pool.query('SELECT slug FROM merchants WHERE is_public ORDER BY report_count LIMIT 1')).rows[0];
    const agent = (await t.db.pool.query('SELECT slug FROM agents WHERE active LIMIT 1')).rows[0];

    const detailBusy = await queriesFor(`/api/v1/merchants/${busiest.slug}`);
    const detailQuiet = await queriesFor(`/api/v1/merchants/${quietest.slug}`);
    expect(detailBusy).toBeGreaterThan(0);
    expect(detailBusy).toBe(detailQuiet);
    // The merchant, the agents, the summaries (the rate limit writes nothing per request).
    expect(detailBusy).toBeLessThanOrEqual(3);

    // By SQL: count, the page's ids (sponsored, then the rest), its rows, agents, summaries; from
    // the listing, its rows, agents, summaries. The directory version is the watcher's
    // (directory/version.ts), read on its own connection.
    const list = await queriesFor('/api/v1/merchants');
    expect(list).toBeLessThanOrEqual(7);
    expect(await queriesFor('/api/v1/merchants?page=2&sort=popular')).toBeLessThanOrEqual(7);
    expect(await queriesFor(`/api/v1/merchants?agent=${agent.slug}&sort=rating`)).toBeLessThanOrEqual(7);
    // The page, its total, and the agents and authors its walk leaves out (LISTED_SETS: once per
    // directory version, like the total).
    expect(await queriesFor('/api/v1/reports')).toBeLessThanOrEqual(3);
  });

  it('answer a repeated read from memory, without a query', async () => {
    expect(await queriesFor('/api/v1/merchants')).toBeGreaterThan(0);
    count = 0;
    const again = await request(t.app).get('/api/v1/merchants').expect(200);
    expect(again.headers['x-cache']).toBe('HIT');
    expect(count).toBe(0);
  });

  it('never read the reports table for merchant lists and profiles, whatever the filters', async () => {
    const agent = (await t.db.pool.query('SELECT slug FROM agents WHERE active LIMIT 1')).rows[0];
    const merchant = (await t.db.pool.query('SELECT slug FROM merchants WHERE is_public LIMIT 1')).rows[0];
    const paths = [
      '/api/v1/merchants',
      '/api/v1/merchants?outcome=BLOCKED&stage=CART&days=30&minReports=2&region=DE&sort=popular&page=2',
      `/api/v1/merchants?agent=${agent.slug}&outcome=WORKS&days=90&sort=rating`,
      `/api/v1/agents/${agent.slug}/merchants?stage=PURCHASE&sort=recent`,
      '/api/v1/merchants?days=7&q=a&sort=name',
      `/api/v1/merchants/${merchant.slug}`,
      '/api/v1/categories',
    ];
    for (const path of paths) {
      await newVersion();
      texts = [];
      await request(t.app).get(path).expect(200);
      // At least a count and a page (or a profile and its summaries) were seen.
      expect(texts.length).toBeGreaterThanOrEqual(2);
      for (const text of texts) expect(text, path).not.toMatch(/\breports\b/);
    }
  });
});
