// List totals are cached per directory version: repeated lists skip their count queries, and
// any committed write to the directory's tables makes the next read count again.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STALE_LISTS_MS } from '../../src/web/middleware/response-cache.js';
import { approveReport } from '../../src/modules/moderation/moderation.service.js';
import { createDemoApp, DEMO_NOW } from '../setup/demo.js';
import type { TestApp } from '../setup/app.js';

describe('cached list totals', () => {
  let t: TestApp;
  let queries: string[] = [];
  const sql = <T>(text: string, values: unknown[] = []) => t.db.pool.query(text, values).then((r) => r.rows as [T, ...T[]]);
  beforeAll(async () => {
    t = await createDemoApp();
    const pool = t.db.pool;
    const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
    pool.query = ((...args: unknown[]) => {
      const text = args[0];
      queries.push(typeof text === 'string' ? text : String((text as { text?: string }).text ?? ''));
      return query(...args);
    }) as typeof pool.query;
  });
  afterAll(() => t.close());
  /** The version as committed (what every process's watcher learns). */
  const directoryVersion = async () => BigInt((await sql<{ version: string }>(`SELECT version FROM directory_version WHERE id = 1`))[0].version);

  async function list(path: string) {
    queries = [];
    const body = (await request(t.app).get(path).expect(200)).body as { total: number; data: Array<{ slug: string }> };
    return { ...body, counts: queries.filter((q) => /count\(\*\)|\bsum\(/.test(q)).length };
  }

  it('counts once per version and answers repeats from the cache', async () => {
    // A text search: the merchant lists SQL answers (the others are read from the in-memory listing, listing.test.ts).
    const path = '/api/v1/merchants?q=a&outcome=WORKS&sort=name';
    const first = await list(path);
    expect(first.counts).toBeGreaterThan(0);
    const again = await list(path);
    expect(again.counts).toBe(0);
    expect(again.total).toBe(first.total);
    expect(again.data).toEqual(first.data);
  });

  it('serves repeated report and category totals from the cache too', async () => {
    for (const path of ['/api/v1/reports?outcome=BLOCKED', '/api/v1/categories']) {
      const first = await list(path);
      expect(first.counts, path).toBeGreaterThan(0);
      const again = await list(path);
      expect(again.counts, path).toBe(0);
      expect(again.total).toBe(first.total);
      expect(again.data).toEqual(first.data);
    }
  });

  it('moves the version with every committed write to the tables behind the lists, and only then', async () => {
    const before = await directoryVersion();
    const client = await t.db.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`UPDATE categories SET updated_at = updated_at`);
      // Not visible to anyone else until the writer commits.
      expect(await directoryVersion()).toBe(before);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    expect(await directoryVersion()).toBe(before + 1n);
    // A write to a table keyed by merchant moves it once it changed a row (issue 33: a statement
    // that changed nothing public, here none at all, moves nothing; a changed row does).
    await sql(`UPDATE sponsorships SET updated_at = updated_at WHERE false`);
    expect(await directoryVersion()).toBe(before + 1n);
    const [merchant] = await sql<{ id: string }>(`SELECT id FROM merchants WHERE is_public LIMIT 1`);
    await sql(`UPDATE merchants SET name = name || ' ' WHERE id = $1`, [merchant!.id]);
    expect(await directoryVersion()).toBe(before + 2n);
    await sql(`UPDATE merchants SET name = rtrim(name) WHERE id = $1`, [merchant!.id]);
    expect(await directoryVersion()).toBe(before + 3n);
    // Reports alone do not change a list until moderation recomputes the summaries.
    await sql(`UPDATE reports SET updated_at = updated_at WHERE false`);
    expect(await directoryVersion()).toBe(before + 3n);
  });

  it('shows a moderation decision in the next total once a list may be stale no longer', async () => {
    const [pending] = await sql<{ id: string; merchant_id: string; agent: string; outcome: string }>(
      `SELECT r.id, r.merchant_id, a.slug AS agent, r.outcome::text AS outcome FROM reports r
         JOIN agents a ON a.id = r.agent_id AND a.active JOIN merchants m ON m.id = r.merchant_id AND m.is_public
        WHERE r.status = 'PENDING'
          AND NOT EXISTS (SELECT 1 FROM merchant_agent_summaries s WHERE s.merchant_id = r.merchant_id AND s.agent_id = r.agent_id)
        LIMIT 1`,
    );
    const path = `/api/v1/merchants?agent=${pending.agent}&outcome=${pending.outcome}`;
    const before = await list(path);
    expect((await list(path)).counts).toBe(0);
    await approveReport(t.db.prisma, { reportId: pending.id, actorId: null, now: new Date(DEMO_NOW) });
    // A list is built from many merchants: it may be served as it was for STALE_LISTS_MS.
    t.clock.advance(STALE_LISTS_MS);
    const after = await list(path);
    expect(after.total).toBe(before.total + 1);
  });

  it('shows a merchant hidden by a plain UPDATE in the very next total (hiding changes everything at once)', async () => {
    const path = '/api/v1/merchants?sort=name';
    const before = await list(path);
    await sql(`UPDATE merchants SET is_public = false WHERE slug = $1`, [before.data[0]!.slug]);
    const after = await list(path);
    expect(after.total).toBe(before.total - 1);
    expect(after.data[0]!.slug).not.toBe(before.data[0]!.slug);
  });
});
