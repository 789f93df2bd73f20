// Every filter's pages, read each way the search reads them (issue 38): from the in-memory
// listing, or by SQL gathered through the filter and sorted (few matches) or walked along the
// sort order's index (many), page by page,
// against one ordered query written from the definitions (the summary's own task statuses, its
// reach and confidence columns, its report facets).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPABILITY_STATUSES, CONFIDENCE_LEVELS, FUNNEL_TASKS, OUTCOMES, STAGES, TASKS } from '../../src/modules/aggregation/constants.js';
import { facetToken } from '../../src/modules/aggregation/facets.js';
import { reachLevelOf } from '../../src/modules/aggregation/reach.js';
import { statusMask } from '../../src/modules/aggregation/status-bits.js';
import { searchMerchants, type MerchantSearch } from '../../src/modules/merchants/merchants.repository.js';
import { listingKeeper, type ListingKeeper } from '../../src/modules/directory/listing-store.js';
import type { Listing } from '../../src/modules/directory/listing.js';
import { createDemoApp, DEMO_NOW } from '../setup/demo.js';
import type { TestApp } from '../setup/app.js';

type MerchantSort = MerchantSearch['sort'];
const now = new Date(DEMO_NOW);
const SORTS: MerchantSort[] = ['recent', 'popular', 'name', 'rating', 'reach'];

/** A filter: what the search is given, and the same as SQL over the summary (sa) or the merchant (m). */
interface Filter {
  name: string;
  search: Partial<MerchantSearch>;
  /** A condition; $1 is `now`, $2 the agent. */
  sql: string;
}

describe('every filter, page by page', () => {
  let t: TestApp;
  let keeper: ListingKeeper;
  let listing: Listing;
  const sql = <T>(text: string, values: unknown[] = []) => t.db.pool.query(text, values).then((r) => r.rows as T[]);
  beforeAll(async () => {
    t = await createDemoApp();
    keeper = listingKeeper(t.db.pool, t.versions);
    listing = (await keeper.current())!;
  });
  afterAll(async () => {
    keeper.close();
    await t.close();
  });

  const order = (sort: MerchantSort, c: 'sa' | 'm') =>
    ({
      recent: `${c}.last_reported_at IS NULL, ${c}.last_reported_at DESC, m.name, m.id`,
      popular: `${c}.report_count DESC, m.name, m.id`,
      name: 'm.name, m.id',
      rating: 'sa.rating DESC, sa.report_count DESC, m.name, m.id',
      reach: 'sa.reach_level DESC, sa.reach_confidence DESC, sa.last_reported_at DESC, m.name, m.id',
    })[sort];
  const sponsored = 'EXISTS (SELECT 1 FROM sponsorships sp WHERE sp.merchant_id = m.id AND sp.starts_at <= $1 AND (sp.ends_at IS NULL OR sp.ends_at > $1))';

  const facetFilters = (c: 'sa' | 'm'): Filter[] => {
    const facets = c === 'sa' ? 'sa.facets' : 'm.report_facets';
    const since = (days: number) => `'${new Date(now.getTime() - days * 86_400_000).toISOString()}'::timestamptz`;
    return [
      ...OUTCOMES.map((outcome) => ({ name: `outcome=${outcome}`, search: { outcome }, sql: `${facets} ? '${facetToken(outcome, undefined)}'` })),
      ...STAGES.map((stage) => ({ name: `stage=${stage}`, search: { stage }, sql: `${facets} ? '${facetToken(undefined, stage)}'` })),
      ...[7, 60, 365].map((days) => ({ name: `days=${days}`, search: { days }, sql: `${c}.last_reported_at >= ${since(days)}` })),
      {
        name: 'outcome=BLOCKED&stage=CHECKOUT&days=120',
        search: { outcome: 'BLOCKED', stage: 'CHECKOUT', days: 120 },
        sql: `(${facets} ->> '${facetToken('BLOCKED', 'CHECKOUT')}')::timestamptz >= ${since(120)}`,
      },
    ];
  };

  const agentFamilies: Record<string, Filter[]> = {
    reaches: FUNNEL_TASKS.map((task) => ({
      name: `reaches=${task}`,
      search: { reachLevel: reachLevelOf(task) },
      sql: `sa.reach_level >= ${reachLevelOf(task)}`,
    })),
    // The task statuses as the summary states them, not as the bits the search reads.
    'task and taskStatus': TASKS.flatMap((task) =>
      [...CAPABILITY_STATUSES.map((status) => [status]), ['partial', 'unsupported']].map((statuses) => ({
        name: `task=${task}&taskStatus=${statuses.join(',')}`,
        search: { statusMask: statusMask(task, statuses as Array<(typeof CAPABILITY_STATUSES)[number]>) },
        sql: `sa.summary -> 'capabilities' -> '${task}' ->> 'status' IN (${statuses.map((s) => `'${s}'`).join(', ')})`,
      })),
    ),
    minConfidence: CONFIDENCE_LEVELS.map((level, rank) => ({ name: `minConfidence=${level}`, search: { minConfidence: rank }, sql: `sa.reach_confidence >= ${rank}` })),
    'outcome, stage and days': facetFilters('sa'),
  };

  /** Walks every page of the search (both ways of reading it) and compares with the ordered query. */
  const walk = async (agentId: string | undefined, filter: Filter, sort: MerchantSort): Promise<number> => {
    const c = agentId ? 'sa' : 'm';
    const expected = (
      await sql<{ id: string }>(
        `SELECT m.id FROM merchants m
           ${agentId ? 'JOIN merchant_agent_summaries sa ON sa.merchant_id = m.id AND sa.agent_id = $2::uuid AND sa.report_count > 0' : ''}
          WHERE m.is_public ${agentId ? '' : 'AND $2::uuid IS NULL'} AND ${filter.sql}
          ORDER BY ${sponsored} DESC, ${order(sort, c)}`,
        [now, agentId ?? null],
      )
    ).map((row) => row.id);
    // SQL walking throughout; the sponsored few gathered and the rest walked; everything gathered; the listing.
    for (const way of [0, 5, Number.POSITIVE_INFINITY, 'listing'] as const) {
      const gatherAtMost = way === 'listing' ? undefined : way;
      const limit = 7;
      const walked: string[] = [];
      for (let offset = 0; ; offset += limit) {
        const search = { agentId, ...filter.search, sort, offset, limit, now, gatherAtMost };
        const { total, rows } = await searchMerchants(t.db.prisma, search, undefined, way === 'listing' ? listing : null);
        expect(total, `${filter.name} ${sort}`).toBe(expected.length);
        if (rows.length === 0) break;
        walked.push(...rows.map((row) => row.id));
      }
      expect(walked, `${agentId ?? 'no agent'} ${filter.name} sort=${sort} ${way === 'listing' ? 'from the listing' : `gathered at most ${way}`}`).toEqual(expected);
    }
    return expected.length;
  };

  for (const [family, filters] of Object.entries(agentFamilies)) {
    it(`answers ${family} for an agent with each sort as one ordered query does, gathered, walked or listed`, { timeout: 300_000 }, async () => {
      // The agent with the most reports: the most matches to page through.
      const [{ id }] = (await sql<{ id: string }>(
        'SELECT agent_id AS id FROM merchant_agent_summaries GROUP BY agent_id ORDER BY sum(report_count) DESC LIMIT 1',
      )) as [{ id: string }];
      let matched = 0;
      for (const filter of filters) for (const sort of SORTS) if ((await walk(id, filter, sort)) > 0) matched++;
      // The comparisons are not all of empty lists.
      expect(matched).toBeGreaterThan(0);
    });
  }

  it('answers the report facets without an agent with each sort as one ordered query does, gathered, walked or listed', { timeout: 300_000 }, async () => {
    for (const filter of facetFilters('m')) {
      for (const sort of ['recent', 'popular', 'name'] as const) await walk(undefined, filter, sort);
    }
  });
});
