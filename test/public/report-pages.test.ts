// The public report list, page by page (issue 38): every filter's pages, the older half read
// from the oldest end, against one ordered query written from the definitions (approved, public
// merchant, active agent, and independent unless asked: SELF_REPORTED_BY IS NULL), and its total
// against that query's count. The demo directory has hidden merchants and an inactive agent;
// two verified claims make some reports self-reported. A page without a merchant starts its walk
// at the week it falls in (report_totals by week): the counts per week are checked against the
// reports too, and the migration that filled them for existing summaries against the writer.
import { readFileSync } from 'node:fs';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUTCOMES } from '../../src/modules/aggregation/constants.js';
import { evidenceChanged } from '../../src/modules/aggregation/evidence.js';
import { createDemoApp, DEMO_NOW } from '../setup/demo.js';
import type { TestApp } from '../setup/app.js';

const SELF_REPORTED = `(CASE
  WHEN EXISTS (SELECT 1 FROM claims sc WHERE sc.account_id = r.account_id AND sc.merchant_id = r.merchant_id
                  AND sc.status IN ('VERIFIED', 'GRACE', 'LAPSED') AND sc.verified_at IS NOT NULL) THEN 'owner'
  WHEN EXISTS (SELECT 1 FROM claims sc WHERE sc.account_id = r.account_id AND sc.agent_id = r.agent_id
                  AND sc.status IN ('VERIFIED', 'GRACE', 'LAPSED') AND sc.verified_at IS NOT NULL) THEN 'vendor'
END)`;

describe('the report list, page by page', () => {
  let t: TestApp;
  const sql = <T>(text: string, values: unknown[] = []) => t.db.pool.query(text, values).then((r) => r.rows as T[]);
  let agent: { id: string; slug: string };
  let merchant: { id: string };

  beforeAll(async () => {
    t = await createDemoApp();
    // Two prolific authors become an owner and a vendor: their reports of that merchant (agent) are self-reported.
    const [owner, vendor] = await sql<{ account_id: string; merchant_id: string; agent_id: string }>(
      `SELECT r.account_id, r.merchant_id, r.agent_id FROM reports r JOIN merchants m ON m.id = r.merchant_id AND m.is_public
         JOIN agents a ON a.id = r.agent_id AND a.active
        WHERE r.status = 'APPROVED' GROUP BY 1, 2, 3 ORDER BY count(*) DESC, 1, 2, 3 LIMIT 2`,
    );
    await sql(
      `INSERT INTO claims (id, account_id, side, merchant_id, agent_id, host, page_url, token, status, method, verified_at, checked_at, updated_at) VALUES
         ('00000000-0000-7000-8000-00000000d001', $1, 'MERCHANT', $2, NULL, 'shop.example', 'https://shop.example/', 'report-pages-owner', 'VERIFIED', 'DNS', now(), now(), now()),
         ('00000000-0000-7000-8000-00000000d002', $3, 'AGENT', NULL, $4, 'vendor.example', 'https://vendor.example/', 'report-pages-vendor', 'LAPSED', 'FILE', now(), now(), now())`,
      [owner!.account_id, owner!.merchant_id, vendor!.account_id, vendor!.agent_id],
    );
    const pairs = await sql<{ merchantId: string; agentId: string }>(
      `SELECT DISTINCT merchant_id AS "merchantId", agent_id AS "agentId" FROM reports WHERE account_id = ANY($1::uuid[])`,
      [[owner!.account_id, vendor!.account_id]],
    );
    await t.db.prisma.$transaction((tx) => evidenceChanged(tx, { pairs }, new Date(DEMO_NOW)));
    agent = (await sql<{ id: string; slug: string }>(
      `SELECT a.id, a.slug FROM agents a JOIN reports r ON r.agent_id = a.id AND r.status = 'APPROVED' WHERE a.active GROUP BY 1, 2 ORDER BY count(*) DESC LIMIT 1`,
    ))[0]!;
    merchant = (await sql<{ id: string }>(
      `SELECT r.merchant_id AS id FROM reports r JOIN merchants m ON m.id = r.merchant_id AND m.is_public WHERE r.status = 'APPROVED' GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`,
    ))[0]!;
    // The claims made some of the list's reports self-reported.
    const self = await sql<{ n: number }>(`SELECT count(*)::int AS n FROM reports r WHERE r.status = 'APPROVED' AND ${SELF_REPORTED} IS NOT NULL`);
    expect(self[0]!.n).toBeGreaterThan(0);
  });
  afterAll(() => t.close());

  const filters = () => {
    const list: Array<{ query: Record<string, string>; sql: string[] }> = [];
    for (const independent of ['only', 'all']) {
      const base = independent === 'only' ? [`${SELF_REPORTED} IS NULL`] : [];
      list.push({ query: { independent }, sql: base });
      list.push({ query: { independent, agent: agent.slug }, sql: [...base, `r.agent_id = '${agent.id}'`] });
      list.push({ query: { independent, merchant: merchant.id }, sql: [...base, `r.merchant_id = '${merchant.id}'`] });
      for (const outcome of OUTCOMES) {
        list.push({ query: { independent, outcome }, sql: [...base, `r.outcome = '${outcome}'`] });
        list.push({ query: { independent, agent: agent.slug, outcome }, sql: [...base, `r.agent_id = '${agent.id}'`, `r.outcome = '${outcome}'`] });
      }
    }
    return list;
  };

  it('shows every filter the reports one ordered query finds, page by page, and counts them', async () => {
    let pagesRead = 0;
    for (const filter of filters()) {
      const expected = (
        await sql<{ id: string }>(
          `SELECT r.id FROM reports r JOIN merchants m ON m.id = r.merchant_id AND m.is_public JOIN agents a ON a.id = r.agent_id AND a.active
            WHERE ${['r.status = \'APPROVED\'', ...filter.sql].join(' AND ')} ORDER BY r.created_at DESC, r.id DESC`,
        )
      ).map((r) => r.id);
      const label = new URLSearchParams(filter.query).toString();
      const first = await request(t.app).get(`/api/v1/reports?${label}`).expect(200);
      expect(first.body.total, label).toBe(expected.length);
      const pages = Math.ceil(expected.length / first.body.pageSize);
      const seen: string[] = [];
      for (let page = 1; page <= pages + 1; page++) {
        const res = page === 1 ? first : await request(t.app).get(`/api/v1/reports?${label}&page=${page}`).expect(200);
        expect(res.body.total, `${label} page ${page}`).toBe(expected.length);
        seen.push(...(res.body.data as Array<{ id: string }>).map((r) => r.id));
        pagesRead++;
      }
      expect(seen, label).toEqual(expected);
    }
    // Enough pages that the older half (read from the oldest end) was read many times.
    expect(pagesRead).toBeGreaterThan(100);
  });

  const LISTED = `FROM reports r JOIN merchants m ON m.id = r.merchant_id AND m.is_public JOIN agents a ON a.id = r.agent_id AND a.active
    WHERE r.status = 'APPROVED'`;
  const WEEK = `floor(extract(epoch FROM r.created_at) / 604800)::int`;

  it('counts per agent, outcome and week what the list shows, over many weeks', async () => {
    const lines = (rows: Array<Record<string, unknown>>) => rows.map((r) => `${r.agent_id} ${r.outcome} ${r.week} ${r.reports} ${r.self_reported}`).sort();
    const kept = await sql<Record<string, unknown>>(
      `SELECT agent_id, outcome::text, week, reports, self_reported FROM report_totals WHERE reports <> 0 OR self_reported <> 0`,
    );
    const counted = await sql<Record<string, unknown>>(
      `SELECT r.agent_id, r.outcome::text, ${WEEK} AS week, count(*) FILTER (WHERE ${SELF_REPORTED} IS NULL)::int AS reports,
              count(*) FILTER (WHERE ${SELF_REPORTED} IS NOT NULL)::int AS self_reported
         ${LISTED} GROUP BY 1, 2, 3`,
    );
    expect(lines(kept)).toEqual(lines(counted));
    // The demo's reports span months: the pages above crossed many week boundaries.
    expect(new Set(kept.map((r) => r.week)).size).toBeGreaterThan(8);
  });

  it("fills existing summaries' weeks, in the migration, as the summary writer does", async () => {
    const migration = readFileSync(new URL('../../prisma/migrations/20261207155534_report_feed_weeks/migration.sql', import.meta.url), 'utf8');
    const backfill = /DISABLE TRIGGER[^\n]*\n(UPDATE "merchant_agent_summaries"[\s\S]*?;)\n/.exec(migration)?.[1];
    expect(backfill).toBeDefined();
    const written = await sql<{ merchant_id: string; agent_id: string; feed_weeks: unknown }>(
      `SELECT merchant_id, agent_id, feed_weeks FROM merchant_agent_summaries ORDER BY 1, 2`,
    );
    expect(written.length).toBeGreaterThan(0);
    await sql(`UPDATE merchant_agent_summaries SET feed_weeks = '{}'::jsonb`);
    await sql(backfill!);
    const filled = await sql<{ merchant_id: string; agent_id: string; feed_weeks: unknown }>(
      `SELECT merchant_id, agent_id, feed_weeks FROM merchant_agent_summaries ORDER BY 1, 2`,
    );
    expect(filled).toEqual(written);
  });
});
