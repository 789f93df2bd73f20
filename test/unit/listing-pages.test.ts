// The in-memory listing's pages (issue 38): a search marks its matches in slot order, then walks
// the sort's order only as far as the page needs, from the end for a page nearer the end. Any
// page it answers is that slice of the whole ordered answer, sponsored matches first, whichever
// way it walked. (That the whole answer is what SQL answers is test/public/listing.test.ts.)
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Listing, type ListedMerchant, type ListingSearch } from '../../src/modules/directory/listing.js';

const NOW = Date.parse('2026-06-01T00:00:00Z');
const DAY = 86_400_000;
const AGENT = 'agent-1';

const merchant = fc.record({
  name: fc.constantFrom('Alder', 'Birch', 'Cedar', 'Damson', 'Elm'),
  category: fc.constantFrom(null, 'c1', 'c2'),
  regions: fc.constantFrom(['GLOBAL'], ['DE'], ['FR', 'DE']),
  reportCount: fc.integer({ min: 0, max: 4 }),
  daysAgo: fc.integer({ min: 0, max: 60 }),
  facets: fc.subarray(['WORKS', 'BLOCKED', '@CART', 'WORKS@CART']),
  sponsor: fc.constantFrom('none', 'running', 'ended', 'future'),
  summary: fc.option(fc.record({ reachLevel: fc.integer({ min: 1, max: 6 }), reachConfidence: fc.integer({ min: 0, max: 2 }), rating: fc.double({ min: 0, max: 1, noNaN: true }) })),
});

const search = fc.record({
  agent: fc.boolean(),
  sort: fc.constantFrom('recent', 'popular', 'name'),
  outcome: fc.constantFrom(undefined, 'WORKS', 'BLOCKED'),
  stage: fc.constantFrom(undefined, 'CART'),
  days: fc.constantFrom(undefined, 7, 30),
  region: fc.constantFrom(undefined, 'DE', 'FR'),
  categoryId: fc.constantFrom(undefined, 'c1'),
  minReports: fc.constantFrom(undefined, 2),
  reachLevel: fc.constantFrom(undefined, 3),
});

type Row = typeof merchant extends fc.Arbitrary<infer R> ? R : never;
const idOf = (i: number) => `00000000-0000-0000-0000-${String(i).padStart(12, '0')}`;

function listingOf(rows: readonly Row[]): Listing {
  const listing = new Listing();
  rows.forEach((row, i) => {
    const id = idOf(i);
    const last = row.reportCount === 0 ? Number.NaN : NOW - row.daysAgo * DAY;
    const at = new Date(NOW - row.daysAgo * DAY).toISOString();
    const facets = row.reportCount === 0 ? {} : Object.fromEntries(row.facets.map((token) => [token, at]));
    const [sponsorStart, sponsorEnd] = { none: [Infinity, Infinity], running: [NOW - DAY, NOW + DAY], ended: [NOW - 2 * DAY, NOW - DAY], future: [NOW + DAY, Infinity] }[row.sponsor];
    const listed: ListedMerchant = { id, name: row.name, categoryId: row.category, regions: row.regions, reportCount: row.reportCount, last, facets, sponsorStart: sponsorStart!, sponsorEnd: sponsorEnd! };
    listing.add(listed);
    if (row.summary && row.reportCount > 0) listing.addSummary({ merchantId: id, agentId: AGENT, reportCount: row.reportCount, last, facets, statusBits: 0, ...row.summary });
  });
  return listing;
}

describe('the listing’s pages', () => {
  it('answers any page as that slice of the whole answer, walked from the start or the end', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(merchant, { maxLength: 60 }), fc.array(search, { minLength: 1, maxLength: 6 }), fc.nat(70), fc.integer({ min: 1, max: 30 }), async (rows, searches, offset, limit) => {
        const listing = listingOf(rows);
        await listing.sortAll();
        for (const { agent, ...filters } of searches) {
          const s = { ...filters, agentId: agent ? AGENT : undefined, now: new Date(NOW) } as Omit<ListingSearch, 'offset' | 'limit'>;
          const whole = listing.search({ ...s, offset: 0, limit: 1_000 });
          const page = listing.search({ ...s, offset, limit });
          if (whole === null) {
            // An agent without a list has no matches; only `q` is left to SQL.
            expect(page).toBeNull();
            continue;
          }
          expect(page).toEqual({ total: whole.total, sponsored: whole.sponsored, ids: whole.ids.slice(offset, offset + limit) });
          expect(whole.ids).toHaveLength(whole.total);
          expect(new Set(whole.ids).size).toBe(whole.total);
          // Every sponsored match runs now, and none of the rest does.
          const running = new Set(rows.flatMap((row, i) => (row.sponsor === 'running' ? [idOf(i)] : [])));
          expect(whole.ids.map((id) => running.has(id))).toEqual(whole.ids.map((_, i) => i < whole.sponsored));
        }
      }),
      { numRuns: 300 },
    );
  });
});
