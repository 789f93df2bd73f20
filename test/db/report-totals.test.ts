// The report list's totals per agent, outcome and week (migrations "report_totals" and
// "report_feed_weeks"): statement triggers on merchant_agent_summaries keep them equal to the
// sums of the summaries' feed_weeks, whatever writes the summaries (insert, delete, an in-place
// update, truncate, a cascade).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUTCOMES, type OutcomeKey } from '../../src/modules/aggregation/constants.js';
import { aMerchant, anAgent } from '../factories/index.js';
import { createTestDatabase, type TestDatabase } from '../setup/database.js';

type Counts = Partial<Record<OutcomeKey, number>>;

/** Two weeks of the feed (weeks since 1970-01-01 UTC). */
const W1 = 2913;
const W2 = 2914;

describe('report totals', () => {
  let db: TestDatabase;
  const sql = (text: string, values: unknown[] = []) => db.pool.query(text, values);

  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });

  /** A pair's feed_weeks with these counts in week W1 and, when given, W2, as the summary writer stores them. */
  const weeks = (counts: Counts, self: Counts = {}, later: Counts = {}) => {
    const week = (c: Counts, s: Counts) =>
      Object.fromEntries(OUTCOMES.filter((o) => c[o] || s[o]).map((o) => [o, [c[o] ?? 0, s[o] ?? 0]]));
    return JSON.stringify(Object.keys(later).length ? { [W1]: week(counts, self), [W2]: week(later, {}) } : { [W1]: week(counts, self) });
  };

  async function write(merchantId: string, agentId: string, counts: Counts, self: Counts = {}, later: Counts = {}) {
    await sql(
      `INSERT INTO merchant_agent_summaries (merchant_id, agent_id, summary, feed_weeks, computed_at)
       VALUES ($1, $2, '{}'::jsonb, $3::jsonb, now())`,
      [merchantId, agentId, weeks(counts, self, later)],
    );
  }

  /** The kept totals and the sums of the summaries, each as "agent outcome week reports self" lines without zeros. */
  async function both(): Promise<[string[], string[]]> {
    const kept = await sql(`SELECT agent_id, outcome::text, week, reports, self_reported FROM report_totals WHERE reports <> 0 OR self_reported <> 0`);
    const summed = await sql(
      `SELECT s.agent_id, o.key AS outcome, w.key::int AS week, sum((o.value->>0)::int)::int AS reports, sum((o.value->>1)::int)::int AS self_reported
         FROM merchant_agent_summaries s, jsonb_each(s.feed_weeks) w, jsonb_each(w.value) o GROUP BY 1, 2, 3`,
    );
    const lines = (rows: Array<Record<string, unknown>>) =>
      rows.filter((r) => r.reports !== 0 || r.self_reported !== 0).map((r) => `${r.agent_id} ${r.outcome} ${r.week} ${r.reports} ${r.self_reported}`).sort();
    return [lines(kept.rows), lines(summed.rows)];
  }

  it('follow every write of the summaries', async () => {
    const [m1, m2, m3] = [await aMerchant(db.prisma), await aMerchant(db.prisma), await aMerchant(db.prisma)];
    const [a1, a2] = [await anAgent(db.prisma), await anAgent(db.prisma)];

    // Inserted in one statement and in several.
    await write(m1.id, a1.id, { WORKS: 3, BLOCKED: 1 }, { WORKS: 2 }, { WORKS: 6 });
    await write(m2.id, a1.id, { WORKS: 1, UNSURE: 4 });
    await write(m1.id, a2.id, { PARTIAL: 2 }, { DOES_NOT_WORK: 1 });
    let [kept, summed] = await both();
    expect(kept).toEqual(summed);
    expect(kept).toContain(`${a1.id} WORKS ${W1} 4 2`);
    expect(kept).toContain(`${a1.id} WORKS ${W2} 6 0`);

    // Deleted and written again, as the summary writer does, in one transaction.
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('DELETE FROM merchant_agent_summaries WHERE merchant_id = $1', [m1.id]);
      await client.query(
        `INSERT INTO merchant_agent_summaries (merchant_id, agent_id, summary, feed_weeks, computed_at)
         VALUES ($1, $2, '{}'::jsonb, $3::jsonb, now())`,
        [m1.id, a1.id, weeks({ BLOCKED: 2 })],
      );
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    [kept, summed] = await both();
    expect(kept).toEqual(summed);
    expect(kept).toContain(`${a1.id} WORKS ${W1} 1 0`);
    expect(kept.some((line) => line.includes(` ${W2} `))).toBe(false);
    expect(kept.some((line) => line.startsWith(a2.id))).toBe(false);

    // A pair's weeks updated in place, and a write that only touches other columns.
    await sql(`UPDATE merchant_agent_summaries SET feed_weeks = $3::jsonb WHERE merchant_id = $1 AND agent_id = $2`, [
      m2.id,
      a1.id,
      weeks({ WORKS: 5 }, { UNSURE: 1 }, { PARTIAL: 2 }),
    ]);
    await sql(`UPDATE merchant_agent_summaries SET list_json = 'x', summary = '{"counts":{}}'::jsonb, computed_at = now()`);
    [kept, summed] = await both();
    expect(kept).toEqual(summed);
    expect(kept).toContain(`${a1.id} WORKS ${W1} 5 0`);
    expect(kept).toContain(`${a1.id} PARTIAL ${W2} 2 0`);

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
    expect(kept).toEqual([`${a1.id} PARTIAL ${W1} 1 0`]);
  });

  /** The kept version counts and the sums of the summaries' version_counts, as "agent version reports" lines without zeros. */
  async function versions(): Promise<[string[], string[]]> {
    const kept = await sql(`SELECT agent_id, version, reports FROM agent_version_totals WHERE reports <> 0`);
    const summed = await sql(
      `SELECT s.agent_id, v.key AS version, sum((v.value #>> '{}')::int)::int AS reports
         FROM merchant_agent_summaries s, jsonb_each(s.version_counts) v GROUP BY 1, 2`,
    );
    const lines = (rows: Array<Record<string, unknown>>) => rows.filter((r) => r.reports !== 0).map((r) => `${r.agent_id} ${r.version} ${r.reports}`).sort();
    return [lines(kept.rows), lines(summed.rows)];
  }

  it("follow every write of the summaries' version counts too", async () => {
    const [m1, m2] = [await aMerchant(db.prisma), await aMerchant(db.prisma)];
    const agent = await anAgent(db.prisma);
    const put = (merchantId: string, counts: Record<string, number>) =>
      sql(
        `INSERT INTO merchant_agent_summaries (merchant_id, agent_id, summary, version_counts, computed_at) VALUES ($1, $2, '{}'::jsonb, $3::jsonb, now())`,
        [merchantId, agent.id, JSON.stringify(counts)],
      );
    await put(m1.id, { '1.0.0': 2, '1.1.0': 1 });
    await put(m2.id, { '1.1.0': 4 });
    let [kept, summed] = await versions();
    expect(kept).toEqual(summed);
    expect(kept).toContain(`${agent.id} 1.1.0 5`);

    // Deleted and written again in one transaction, as the summary writer does.
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('DELETE FROM merchant_agent_summaries WHERE merchant_id = $1 AND agent_id = $2', [m1.id, agent.id]);
      await client.query(
        `INSERT INTO merchant_agent_summaries (merchant_id, agent_id, summary, version_counts, computed_at) VALUES ($1, $2, '{}'::jsonb, '{"2.0.0": 1}'::jsonb, now())`,
        [m1.id, agent.id],
      );
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    [kept, summed] = await versions();
    expect(kept).toEqual(summed);
    expect(kept).not.toContain(`${agent.id} 1.0.0 2`);
    expect(kept).toContain(`${agent.id} 1.1.0 4`);

    // Updated in place; a write of other columns changes nothing.
    await sql(`UPDATE merchant_agent_summaries SET version_counts = '{"1.1.0": 1, "3.0.0": 2}'::jsonb WHERE merchant_id = $1 AND agent_id = $2`, [m2.id, agent.id]);
    await sql(`UPDATE merchant_agent_summaries SET list_json = 'y', computed_at = now() WHERE agent_id = $1`, [agent.id]);
    [kept, summed] = await versions();
    expect(kept).toEqual(summed);
    expect(kept).toContain(`${agent.id} 3.0.0 2`);

    await sql('TRUNCATE merchant_agent_summaries');
    expect(await versions()).toEqual([[], []]);
  });
});
