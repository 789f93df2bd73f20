// The in-memory listing (issue 38) answers every search as PostgreSQL does: after loading, after
// each change it is patched with (merchants renamed, hidden, added, sponsored, their summaries
// changed), and in PostgreSQL's text order for names the C collation orders by code point.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statusMask } from '../../src/modules/aggregation/status-bits.js';
import { listingKeeper, type ListingKeeper } from '../../src/modules/directory/listing-store.js';
import type { Listing } from '../../src/modules/directory/listing.js';
import { searchMerchants, type MerchantSearch } from '../../src/modules/merchants/merchants.repository.js';
import { createDemoApp, DEMO_NOW } from '../setup/demo.js';
import type { TestApp } from '../setup/app.js';

const now = new Date(DEMO_NOW);

describe('the in-memory listing', () => {
  let t: TestApp;
  let keeper: ListingKeeper;
  let agents: string[];
  const sql = <T>(text: string, values: unknown[] = []) => t.db.pool.query(text, values).then((r) => r.rows as T[]);
  beforeAll(async () => {
    t = await createDemoApp();
    keeper = listingKeeper(t.db.pool, t.versions);
    agents = (await sql<{ id: string }>('SELECT id FROM agents WHERE active ORDER BY slug')).map((r) => r.id);
  });
  afterAll(async () => {
    keeper.close();
    await t.close();
  });

  /** Searches of every kind, for the whole directory and for each agent. */
  const searches = async (): Promise<Array<Omit<MerchantSearch, 'offset' | 'limit' | 'now'>>> => {
    const [category] = await sql<{ id: string }>('SELECT category_id AS id FROM merchants WHERE category_id IS NOT NULL LIMIT 1');
    const common = [{}, { outcome: 'WORKS' as const }, { stage: 'CART' as const, days: 365 }, { days: 30 }, { categoryId: category!.id }, { region: 'DE' }, { region: 'GLOBAL' }, { region: 'FR', days: 365 }, { minReports: 2 }];
    const perAgent = [{ reachLevel: 2 }, { statusMask: statusMask('CHECKOUT', ['blocked', 'partial']) }, { minConfidence: 1 }];
    return [
      ...(['recent', 'popular', 'name'] as const).flatMap((sort) => common.map((filter) => ({ ...filter, sort }))),
      ...agents.flatMap((agentId) =>
        (['recent', 'popular', 'name', 'rating', 'reach'] as const).flatMap((sort) => [...common, ...perAgent].map((filter) => ({ ...filter, agentId, sort }))),
      ),
    ];
  };

  /** Every search, at its first, second and last page, by the listing and by SQL. */
  const expectSameAsSql = async (listing: Listing) => {
    let compared = 0;
    for (const search of await searches()) {
      const total = listing.search({ ...search, offset: 0, limit: 5, now })!.total;
      for (const offset of [...new Set([0, 5, Math.max(0, total - 5)])]) {
        const s = { ...search, offset, limit: 5, now };
        const fromSql = await searchMerchants(t.db.prisma, s);
        const listed = listing.search(s)!;
        const sponsored = (await searchMerchants(t.db.prisma, { ...s, countSponsored: true })).sponsored;
        expect({ total: listed.total, sponsored: listed.sponsored, ids: listed.ids }, JSON.stringify(s)).toEqual({
          total: fromSql.total,
          sponsored,
          ids: fromSql.rows.map((row) => row.id),
        });
        compared += 1;
      }
    }
    return compared;
  };

  it('answers every search as SQL does once loaded, and leaves a text search to SQL', async () => {
    const listing = (await keeper.current())!;
    expect(listing).not.toBeNull();
    expect(await expectSameAsSql(listing)).toBeGreaterThan(300);
    expect(listing.search({ q: 'shop', sort: 'name', offset: 0, limit: 5, now })).toBeNull();
  });

  it('patches the merchants each change touched, and still answers as SQL does', { timeout: 120_000 }, async () => {
    const listing = (await keeper.current())!;
    const [a, b, c] = await sql<{ id: string }>('SELECT id FROM merchants WHERE is_public AND report_count > 0 ORDER BY id LIMIT 3');
    const [category] = await sql<{ id: string }>('SELECT id FROM categories LIMIT 1');
    const changes = [
      // Renamed to the front, another moved, added, sponsored from now on, a sponsorship ended, summaries changed.
      () => sql(`UPDATE merchants SET name = 'aaa first' WHERE id = $1`, [a!.id]),
      // Regions changed: one serves everywhere now, merchants of Germany serve France instead.
      () => sql(`UPDATE merchants SET service_regions = '{GLOBAL}' WHERE id = $1`, [b!.id]),
      () => sql(`UPDATE merchants SET service_regions = array_replace(service_regions, 'DE', 'FR') WHERE 'DE' = ANY(service_regions) AND is_public`),
      () => sql(`UPDATE merchants SET report_count = report_count + 100, last_reported_at = $2, category_id = NULL WHERE id = $1`, [b!.id, now]),
      () =>
        sql(
          `INSERT INTO merchants (id, slug, name, website, category, category_id, service_regions, updated_at)
           VALUES (gen_random_uuid(), 'new-listing-shop', 'Middle Shop', 'https://middle.example', 'Shop', $1, '{DE}', now())`,
          [category!.id],
        ),
      () =>
        sql(
          `INSERT INTO sponsorships (id, merchant_id, source, placement, disclosure, starts_at, updated_at)
           VALUES (gen_random_uuid(), $1, 'publisher_owned', 'directory', 'Sponsored', $2, now())
           ON CONFLICT (merchant_id) DO UPDATE SET starts_at = EXCLUDED.starts_at, ends_at = NULL`,
          [c!.id, new Date(now.getTime() - 86_400_000)],
        ),
      () => sql(`UPDATE sponsorships SET ends_at = $1 WHERE merchant_id <> $2`, [new Date(now.getTime() - 1_000), c!.id]),
      () => sql(`UPDATE merchant_agent_summaries SET report_count = report_count + 40, reach_level = 6, rating = 5 WHERE merchant_id = $1`, [c!.id]),
      () => sql(`UPDATE merchant_agent_summaries SET report_count = 0 WHERE merchant_id = $1 AND agent_id = $2`, [a!.id, agents[0]]),
    ];
    for (const change of changes) {
      await change();
      // The same listing, patched: no load of everything.
      expect(await keeper.current()).toBe(listing);
    }
    expect(await expectSameAsSql(listing)).toBeGreaterThan(300);
  });

  it('loads everything again after a change of everything (a merchant hidden, a category renamed), SQL answering meanwhile', async () => {
    for (const change of [
      () => sql(`UPDATE merchants SET is_public = false WHERE id = (SELECT id FROM merchants WHERE is_public AND report_count > 0 ORDER BY id DESC LIMIT 1)`),
      () => sql(`UPDATE categories SET name = name || ' '`),
    ]) {
      const listing = (await keeper.current())!;
      await change();
      expect(await keeper.current()).toBeNull();
      await keeper.warm();
      const reloaded = (await keeper.current())!;
      expect(reloaded).not.toBe(listing);
      expect(await expectSameAsSql(reloaded)).toBeGreaterThan(300);
    }
  });

  it('orders names as PostgreSQL does: by code point, then id', async () => {
    const names = ['Zeta', 'zeta', 'apple', 'Émile', 'émile', 'ｚed', '𝔸lpha', 'A', 'a b', 'a-b', 'ab', '', ' lead'];
    const ids = await sql<{ id: string }>(`SELECT id FROM merchants WHERE is_public ORDER BY id LIMIT ${names.length}`);
    for (const [i, name] of names.entries()) await sql('UPDATE merchants SET name = $1 WHERE id = $2', [name, ids[i]!.id]);
    const listing = (await keeper.current())!;
    const expected = (await sql<{ id: string }>('SELECT id FROM merchants WHERE is_public ORDER BY name, id')).map((r) => r.id);
    const listed = listing.search({ sort: 'name', offset: 0, limit: 10_000, now })!;
    // Sponsored listings come first: compare the order of the rest.
    const sponsored = new Set(listed.ids.slice(0, listed.sponsored));
    expect(listed.ids.slice(listed.sponsored)).toEqual(expected.filter((id) => !sponsored.has(id)));
  });
});
