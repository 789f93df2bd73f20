// The background writers of summaries (the hourly refresh and the bulk recompute) take the
// merchants' locks in the one order of src/modules/aggregation/evidence.ts. A decision made on
// another connection while one of them has read a pair's reports and not yet written its
// summary must not be overwritten by a summary computed from the reports before it: it either
// waits for the writer, or the writer reads after it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, createPrismaClient, type PrismaClient } from '../../src/db/client.js';
import { loadDemoData } from '../../src/demo/load.js';
import { evidenceChanged } from '../../src/modules/aggregation/evidence.js';
import {
  recomputeAllSummaries,
  refreshStaleSummaries,
  type AfterRead,
  type Pair,
} from '../../src/modules/aggregation/summaries.service.js';
import { summaryMismatches } from '../setup/consistency.js';
import { createTestDatabase, type TestDatabase } from '../setup/database.js';

/** One moment for the load, the writers and the decisions: every stored summary must equal a fresh computation at it. */
const NOW = new Date('2026-11-22T12:00:00.000Z');

interface Target extends Pair {
  reportId: string;
}

describe('background summary writers and a concurrent decision', () => {
  let db: TestDatabase;
  /** Another instance's connections, where the moderator's decision runs. */
  let other: { pool: ReturnType<typeof createPool>; prisma: PrismaClient };
  const used = new Set<string>();
  const sql = <T>(text: string, values: unknown[] = []) => db.pool.query(text, values).then((r) => r.rows as T[]);

  beforeAll(async () => {
    db = await createTestDatabase();
    await loadDemoData(db.pool, { now: NOW });
    await recomputeAllSummaries(db.prisma, NOW);
    const pool = createPool(db.url, 3);
    other = { pool, prisma: createPrismaClient(pool) };
  });
  afterAll(async () => {
    await other.prisma.$disconnect();
    await other.pool.end();
    await db.drop();
  });

  /** An approved report of a public merchant and an active agent whose pair keeps a summary without it. */
  async function pickApproved(): Promise<Target> {
    const rows = await sql<{ id: string; merchant_id: string; agent_id: string }>(
      `SELECT r.id, r.merchant_id, r.agent_id FROM reports r
         JOIN merchants m ON m.id = r.merchant_id AND m.is_public
         JOIN agents a ON a.id = r.agent_id AND a.active
         JOIN merchant_agent_summaries s ON s.merchant_id = r.merchant_id AND s.agent_id = r.agent_id AND s.report_count >= 3
        WHERE r.status = 'APPROVED' ORDER BY r.id`,
    );
    const row = rows.find((r) => !used.has(r.merchant_id));
    if (!row) throw new Error('no unused approved report');
    used.add(row.merchant_id);
    return { reportId: row.id, merchantId: row.merchant_id, agentId: row.agent_id };
  }

  /** A moderator withdraws the report back to pending: one transaction through the one evidence write path. */
  const withdraw = (t: Target) =>
    other.prisma.$transaction(async (tx) => {
      await tx.report.update({ where: { id: t.reportId }, data: { status: 'PENDING', updatedAt: NOW } });
      await evidenceChanged(tx, { pairs: [{ merchantId: t.merchantId, agentId: t.agentId }] }, NOW);
    });

  /** Resolves once some connection of the test database waits for a lock (polled, bounded). */
  async function someoneWaitsForALock(): Promise<void> {
    for (let i = 0; i < 1_000; i++) {
      const [row] = await sql<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      if (row && row.n > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error('nobody waited for a lock');
  }

  /**
   * The writer's seam: once it has read the target's reports, the decision runs on the other
   * connection, and the writer goes on when the decision has committed (no lock kept it out)
   * or waits for a lock (the writer's).
   */
  function decisionInTheWindow(t: Target) {
    let decision: Promise<unknown> | undefined;
    const afterRead: AfterRead = async (pairs) => {
      if (decision || !pairs.some((p) => p.merchantId === t.merchantId && p.agentId === t.agentId)) return;
      decision = withdraw(t);
      decision.catch(() => undefined);
      await Promise.race([decision, someoneWaitsForALock()]);
    };
    return { afterRead, decision: () => decision };
  }

  const pairRow = async (t: Target) =>
    (
      await sql<{ report_count: number }>('SELECT report_count FROM merchant_agent_summaries WHERE merchant_id = $1 AND agent_id = $2', [
        t.merchantId,
        t.agentId,
      ])
    )[0];

  it('the hourly refresh never writes a summary read before a decision that commits meanwhile', async () => {
    const t = await pickApproved();
    const before = await pairRow(t);
    // The pair (and a few others) computed more than a day ago, as the refresh finds them.
    await sql(
      `UPDATE merchant_agent_summaries SET computed_at = $3
        WHERE (merchant_id = $1 AND agent_id = $2) OR merchant_id IN (SELECT id FROM merchants ORDER BY id LIMIT 3)`,
      [t.merchantId, t.agentId, new Date(NOW.getTime() - 2 * 86_400_000)],
    );
    const window = decisionInTheWindow(t);

    const refreshed = await refreshStaleSummaries(db.prisma, NOW, { afterRead: window.afterRead });
    await window.decision();

    expect(window.decision()).toBeDefined();
    expect(refreshed).toBeGreaterThan(0);
    expect((await pairRow(t))?.report_count).toBe(before!.report_count - 1);
    expect(await summaryMismatches(db.prisma, db.pool, NOW)).toEqual([]);
    const [stale] = await sql<{ n: number }>('SELECT count(*)::int AS n FROM merchant_agent_summaries WHERE computed_at < $1', [NOW]);
    expect(stale!.n).toBe(0);
  });

  it('the bulk recompute never writes a summary read before a decision that commits meanwhile', async () => {
    const t = await pickApproved();
    const before = await pairRow(t);
    const window = decisionInTheWindow(t);

    await recomputeAllSummaries(db.prisma, NOW, { afterRead: window.afterRead });
    await window.decision();

    expect(window.decision()).toBeDefined();
    expect((await pairRow(t))?.report_count).toBe(before!.report_count - 1);
    expect(await summaryMismatches(db.prisma, db.pool, NOW)).toEqual([]);
    const [mismatched] = await sql<{ n: number }>(
      `SELECT count(*)::int AS n FROM merchants m
        WHERE m.report_count <> coalesce((SELECT sum(report_count) FROM merchant_agent_summaries s WHERE s.merchant_id = m.id), 0)`,
    );
    expect(mismatched!.n).toBe(0);
  });
});
