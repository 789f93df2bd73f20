// The agents' version lists (GET /api/v1/agents) count each version from totals kept by triggers
// on the summaries (agent_version_totals, from each pair's version_counts) and take when it was
// last observed from an index of the reports: checked here against the one grouping query they
// replace, on the demo directory (hidden merchants, an inactive agent) with self-reported reports,
// versions written with spaces around them, a blank one and one with a tab, before and after a
// merchant holding a version's newest observation is hidden. The migration that filled the counts
// for existing summaries is checked against the writer.
import { readFileSync } from 'node:fs';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evidenceChanged } from '../../src/modules/aggregation/evidence.js';
import { MAX_AGENT_VERSIONS } from '../../src/modules/catalog/catalog.repository.js';
import { createDemoApp, DEMO_NOW } from '../setup/demo.js';
import type { TestApp } from '../setup/app.js';

/** The versions as GET /api/v1/agents listed them before the totals: every public report grouped. */
const GROUPED = `
  SELECT v.slug, v.version, v."reportCount", v."lastSeenAt" FROM (
    SELECT a.slug, btrim(r.agent_version) AS version, count(*)::int AS "reportCount",
           max(coalesce(r.tested_at::timestamp AT TIME ZONE 'UTC', r.created_at)) AS "lastSeenAt",
           row_number() OVER (
             PARTITION BY r.agent_id
             ORDER BY max(coalesce(r.tested_at::timestamp AT TIME ZONE 'UTC', r.created_at)) DESC, count(*) DESC, btrim(r.agent_version) DESC
           ) AS rank
      FROM reports r JOIN merchants m ON m.id = r.merchant_id AND m.is_public JOIN agents a ON a.id = r.agent_id AND a.active
     WHERE r.status = 'APPROVED' AND btrim(r.agent_version) <> ''
     GROUP BY r.agent_id, a.slug, btrim(r.agent_version)) v
   WHERE v.rank <= ${MAX_AGENT_VERSIONS}
   ORDER BY v.slug, v.rank`;

describe("the agents' version lists", () => {
  let t: TestApp;
  const sql = <T>(text: string, values: unknown[] = []) => t.db.pool.query(text, values).then((r) => r.rows as T[]);
  const now = new Date(DEMO_NOW);

  /** What the registry lists and what the grouping query finds, as "slug version count lastSeenAt" lines. */
  async function both(): Promise<[string[], string[]]> {
    const listed: string[] = [];
    for (let page = 1; ; page++) {
      const res = await request(t.app).get(`/api/v1/agents?page=${page}`).expect(200);
      for (const agent of res.body.data as Array<{ slug: string; versions: Array<{ version: string; reportCount: number; lastSeenAt: string }> }>) {
        for (const v of agent.versions) listed.push(`${agent.slug} ${JSON.stringify(v.version)} ${v.reportCount} ${v.lastSeenAt}`);
      }
      if (page * res.body.pageSize >= res.body.total) break;
    }
    const grouped = (await sql<{ slug: string; version: string; reportCount: number; lastSeenAt: Date }>(GROUPED)).map(
      (v) => `${v.slug} ${JSON.stringify(v.version)} ${v.reportCount} ${v.lastSeenAt.toISOString()}`,
    );
    return [listed, grouped];
  }

  beforeAll(async () => {
    t = await createDemoApp();
    // An owner's claim makes some reports self-reported: the lists count them as before.
    const [owner] = await sql<{ account_id: string; merchant_id: string }>(
      `SELECT r.account_id, r.merchant_id FROM reports r WHERE r.status = 'APPROVED' AND r.agent_version IS NOT NULL
        GROUP BY 1, 2 ORDER BY count(*) DESC, 1, 2 LIMIT 1`,
    );
    await sql(
      `INSERT INTO claims (id, account_id, side, merchant_id, agent_id, host, page_url, token, status, method, verified_at, checked_at, updated_at) VALUES
         ('00000000-0000-7000-8000-00000000e001', $1, 'MERCHANT', $2, NULL, 'shop.example', 'https://shop.example/', 'versions-owner', 'VERIFIED', 'DNS', now(), now(), now())`,
      [owner!.account_id, owner!.merchant_id],
    );
    // Versions as older data may hold them (spaces around, blank, a tab, which btrim keeps), on the
    // newest reports, untested: the newest observations, so that the lists show them.
    const odd = await sql<{ id: string; merchant_id: string; agent_id: string }>(
      `SELECT r.id, r.merchant_id, r.agent_id FROM reports r JOIN merchants m ON m.id = r.merchant_id AND m.is_public JOIN agents a ON a.id = r.agent_id AND a.active
        WHERE r.status = 'APPROVED' AND r.agent_version IS NOT NULL ORDER BY r.created_at DESC, r.id LIMIT 4`,
    );
    const values = ['  9.1.0 ', '   ', '\t9.2.0', ` ${'x'.repeat(5)}`];
    for (const [i, r] of odd.entries()) await sql(`UPDATE reports SET agent_version = $2, tested_at = NULL WHERE id = $1`, [r.id, values[i]]);
    const pairs = [...odd.map((r) => ({ merchantId: r.merchant_id, agentId: r.agent_id })), { merchantId: owner!.merchant_id, agentId: odd[0]!.agent_id }];
    await t.db.prisma.$transaction((tx) => evidenceChanged(tx, { merchantIds: [...new Set(pairs.map((p) => p.merchantId))] }, now));
  });
  afterAll(() => t.close());

  it('lists what the grouping query finds, before and after a merchant is hidden', async () => {
    let [listed, grouped] = await both();
    expect(listed.length).toBeGreaterThan(10);
    expect(listed).toEqual(grouped);
    expect(listed.some((line) => line.includes('"9.1.0"'))).toBe(true);
    expect(listed.some((line) => line.includes('"\\t9.2.0"'))).toBe(true);

    // Hide the merchant of each agent's newest observation: every list moves to the next one.
    const newest = await sql<{ merchant_id: string }>(
      `SELECT DISTINCT ON (r.agent_id) r.merchant_id FROM reports r JOIN merchants m ON m.id = r.merchant_id AND m.is_public
        WHERE r.status = 'APPROVED' AND r.version_key IS NOT NULL ORDER BY r.agent_id, r.observed_at DESC, r.id`,
    );
    const hidden = [...new Set(newest.map((r) => r.merchant_id))];
    await t.db.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`UPDATE merchants SET is_public = false WHERE id = ANY(${hidden}::uuid[])`;
      await evidenceChanged(tx, { merchantIds: hidden }, now);
    });
    const before = listed;
    [listed, grouped] = await both();
    expect(listed).toEqual(grouped);
    expect(listed).not.toEqual(before);
  });

  it("fills existing summaries' version counts, in the migration, as the summary writer does", async () => {
    const migration = readFileSync(new URL('../../prisma/migrations/20261207163935_agent_version_totals/migration.sql', import.meta.url), 'utf8');
    const backfill = /DISABLE TRIGGER[^\n]*\n(UPDATE "merchant_agent_summaries"[\s\S]*?;)\n/.exec(migration)?.[1];
    expect(backfill).toBeDefined();
    const written = await sql(`SELECT merchant_id, agent_id, version_counts FROM merchant_agent_summaries ORDER BY 1, 2`);
    expect(written.length).toBeGreaterThan(0);
    await sql(`UPDATE merchant_agent_summaries SET version_counts = '{}'::jsonb`);
    await sql(backfill!);
    expect(await sql(`SELECT merchant_id, agent_id, version_counts FROM merchant_agent_summaries ORDER BY 1, 2`)).toEqual(written);
  });
});
