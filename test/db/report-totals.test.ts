// The report list's totals per agent and outcome (migration "report_totals"): statement triggers
// on merchant_agent_summaries keep them equal to the sums of the summaries' counts, whatever
// writes the summaries (insert, delete, an in-place update of a summary, truncate, a cascade).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUTCOMES, type OutcomeKey } from '../../src/modules/aggregation/constants.js';
import { aMerchant, anAgent } from '../factories/index.js';
import { createTestDatabase, type TestDatabase } from '../setup/database.js';

type Counts = Partial<Record<OutcomeKey, number>>;

describe('report totals', () => {
  let db: TestDatabase;
  const sql = (text: string, values: unknown[] = []) => db.pool.query(text, values);

  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });

  /** A summary document with these counts, as the summary writer stores them. */
  const summary = (counts: Counts, self: Counts = {}) => {
    const full = (c: Counts) => ({ ...Object.fromEntries(OUTCOMES.map((o) => [o, c[o] ?? 0])), total: Object.values(c).reduce((a, b) => a + b, 0) });
    return JSON.stringify({ counts: full(counts), selfReportedCounts: full(self) });
  };

  async function write(merchantId: string, agentId: string, counts: Counts, self: Counts = {}) {
    const total = (c: Counts) => Object.values(c).reduce((a, b) => a + b, 0);
    await sql(
      `INSERT INTO merchant_agent_summaries (merchant_id, agent_id, summary, report_count, self_reported_count, computed_at)
       VALUES ($1, $2, $3::jsonb, $4, $5, now())`,
      [merchantId, agentId, summary(counts, self), total(counts), total(self)],
    );
  }

  /** The kept totals and the sums of the summaries, each as "agent outcome reports self" lines without zeros. */
  async function both(): Promise<[string[], string[]]> {
    const kept = await sql(`SELECT agent_id, outcome::text, reports, self_reported FROM report_totals WHERE reports <> 0 OR self_reported <> 0`);
    const summed = await sql(
      `SELECT s.agent_id, o AS outcome, sum(coalesce((s.summary->'counts'->>o)::int, 0))::int AS reports,
              sum(coalesce((s.summary->'selfReportedCounts'->>o)::int, 0))::int AS self_reported
         FROM merchant_agent_summaries s, unnest($1::text[]) o GROUP BY 1, 2`,
      [OUTCOMES],
    );
    const lines = (rows: Array<Record<string, unknown>>) =>
      rows.filter((r) => r.reports !== 0 || r.self_reported !== 0).map((r) => `${r.agent_id} ${r.outcome} ${r.reports} ${r.self_reported}`).sort();
    return [lines(kept.rows), lines(summed.rows)];
  }

  it('follow every write of the summaries', async () => {
    const [m1, m2, m3] = [await aMerchant(db.prisma), await aMerchant(db.prisma), await aMerchant(db.prisma)];
    const [a1, a2] = [await anAgent(db.prisma), await anAgent(db.prisma)];

    // Inserted in one statement and in several.
    await write(m1.id, a1.id, { WORKS: 3, BLOCKED: 1 }, { WORKS: 2 });
    await write(m2.id, a1.id, { WORKS: 1, UNSURE: 4 });
    await write(m1.id, a2.id, { PARTIAL: 2 }, { DOES_NOT_WORK: 1 });
    let [kept, summed] = await both();
    expect(kept).toEqual(summed);
    expect(kept).toContain(`${a1.id} WORKS 4 2`);

    // Deleted and written again, as the summary writer does, in one transaction.
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('DELETE FROM merchant_agent_summaries WHERE merchant_id = $1', [m1.id]);
      await client.query(
        `INSERT INTO merchant_agent_summaries (merchant_id, agent_id, summary, report_count, self_reported_count, computed_at)
         VALUES ($1, $2, $3::jsonb, 2, 0, now())`,
        [m1.id, a1.id, summary({ BLOCKED: 2 })],
      );
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    [kept, summed] = await both();
    expect(kept).toEqual(summed);
    expect(kept).toContain(`${a1.id} WORKS 1 0`);
    expect(kept.some((line) => line.startsWith(a2.id))).toBe(false);

    // A summary updated in place, and a write that only touches other columns.
    await sql(`UPDATE merchant_agent_summaries SET summary = $3::jsonb WHERE merchant_id = $1 AND agent_id = $2`, [m2.id, a1.id, summary({ WORKS: 5 }, { UNSURE: 1 })]);
    await sql(`UPDATE merchant_agent_summaries SET list_json = 'x', computed_at = now()`);
    [kept, summed] = await both();
    expect(kept).toEqual(summed);
    expect(kept).toContain(`${a1.id} WORKS 5 0`);

    // An agent's deletion cascades to its summaries, and so to its totals.
    await write(m3.id, a2.id, { WORKS: 7 });
    await sql('DELETE FROM agents WHERE id = $1', [a2.id]);
    [kept, summed] = await both();
    expect(kept).toEqual(summed);
    expect(kept.some((line) => line.startsWith(a2.id))).toBe(false);

    // A truncate empties them.
    await sql('TRUNCATE merchant_agent_summaries');
    [kept, summed] = await both();
    expect(kept).toEqual([]);
    expect(summed).toEqual([]);
    await write(m3.id, a1.id, { PARTIAL: 1 });
    [kept, summed] = await both();
    expect(kept).toEqual([`${a1.id} PARTIAL 1 0`]);
  });
});
