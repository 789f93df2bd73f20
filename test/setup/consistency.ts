// Whether the stored summaries are exactly what the approved public evidence gives now: every
// pair with such evidence has its row, equal to a fresh computation at `now`, and no other
// pair has one.
import { isDeepStrictEqual } from 'node:util';
import type pg from 'pg';
import type { PrismaClient } from '../../src/db/client.js';
import { loadEvidence } from '../../src/modules/aggregation/summaries.repository.js';
import { summaryDocument } from '../../src/modules/aggregation/summaries.service.js';

export async function summaryMismatches(prisma: PrismaClient, pool: pg.Pool, now: Date): Promise<string[]> {
  const { rows: stored } = await pool.query<{ merchant_id: string; agent_id: string; summary: unknown; report_count: number; text_agrees: boolean }>(
    `SELECT merchant_id, agent_id, summary, report_count, summary_text::jsonb = summary - 'trend' AS text_agrees
       FROM merchant_agent_summaries WHERE report_count > 0`,
  );
  const { rows: expected } = await pool.query<{ merchant_id: string; agent_id: string }>(
    `SELECT DISTINCT r.merchant_id, r.agent_id FROM reports r
       JOIN merchants m ON m.id = r.merchant_id AND m.is_public
       JOIN agents a ON a.id = r.agent_id AND a.active
      WHERE r.status = 'APPROVED'`,
  );
  const key = (r: { merchant_id: string; agent_id: string }) => `${r.merchant_id}:${r.agent_id}`;
  const mismatches: string[] = [];
  const storedKeys = new Set(stored.map(key));
  for (const pair of expected) if (!storedKeys.has(key(pair))) mismatches.push(`no summary for ${key(pair)}`);
  const evidence = await loadEvidence(prisma, stored.map((r) => ({ merchantId: r.merchant_id, agentId: r.agent_id })));
  for (const row of stored) {
    // What the lists read (summary_text) is the summary without its trend.
    if (!row.text_agrees) mismatches.push(`summary_text differs from the summary for ${key(row)}`);
    const reports = evidence.get(key(row)) ?? [];
    if (reports.length === 0) {
      mismatches.push(`a summary without evidence for ${key(row)}`);
      continue;
    }
    const fresh = JSON.parse(JSON.stringify(summaryDocument(reports, now))) as unknown;
    if (!isDeepStrictEqual(row.summary, fresh)) mismatches.push(`stale summary for ${key(row)}`);
  }
  return mismatches;
}

