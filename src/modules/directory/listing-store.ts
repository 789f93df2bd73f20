// Keeps one process's in-memory listing (listing.ts) as new as the directory: it is loaded once,
// then each directory version's changed merchants (the watcher's change scopes, version.ts) are
// read again and patched in before a request that settled that version uses it. A change of
// everything (an agent, a category, over 200 merchants, a gap in the versions) loads it whole
// again in the background; meanwhile searches are answered by SQL, as they are whenever the
// listing is not known to be as new as the request's version.
import type pg from 'pg';
import type { Logger } from '../../logger.js';
import type { DirectoryVersions } from './version.js';
import { Listing, type ListedMerchant, type ListedSummary } from './listing.js';

/** More changed merchants than this are loaded whole, not patched. */
const PATCH_AT_MOST = 500;

/**
 * A load of everything starts once no change of everything has come for this long: a burst
 * of them (a script editing categories; the benchmark's first reads, one every 20 ms) would
 * otherwise load the lists again and again, competing with the searches SQL answers meanwhile.
 */
const QUIET_BEFORE_LOAD_MS = 1_000;

const MERCHANTS = `
  SELECT m.id, m.name, m.category_id, m.service_regions, m.report_count,
         (extract(epoch FROM m.last_reported_at) * 1000)::float8 AS last, m.report_facets::text AS facets,
         (extract(epoch FROM sp.starts_at) * 1000)::float8 AS sponsor_start,
         (extract(epoch FROM sp.ends_at) * 1000)::float8 AS sponsor_end
    FROM merchants m LEFT JOIN sponsorships sp ON sp.merchant_id = m.id
   WHERE m.is_public`;

// Summaries of public merchants with approved reports: the rows an agent's search reads.
const SUMMARIES = `
  SELECT s.merchant_id, s.agent_id, s.report_count, (extract(epoch FROM s.last_reported_at) * 1000)::float8 AS last,
         s.rating, s.reach_level, s.reach_confidence, s.status_bits::float8 AS status_bits, s.facets::text AS facets
    FROM merchant_agent_summaries s JOIN merchants m ON m.id = s.merchant_id AND m.is_public
   WHERE s.report_count > 0`;

type Row = unknown[];

// The columns in the order the two queries select them (rows as arrays: 400,000 objects fewer).
const merchantOf = (r: Row): ListedMerchant => ({
  id: r[0] as string,
  name: r[1] as string,
  categoryId: r[2] as string | null,
  regions: r[3] as string[],
  reportCount: r[4] as number,
  last: (r[5] as number | null) ?? Number.NaN,
  facets: JSON.parse(r[6] as string) as Record<string, string>,
  // No sponsorship: one that never starts.
  sponsorStart: (r[7] as number | null) ?? Number.POSITIVE_INFINITY,
  sponsorEnd: (r[8] as number | null) ?? Number.POSITIVE_INFINITY,
});

const summaryOf = (r: Row): ListedSummary => ({
  merchantId: r[0] as string,
  agentId: r[1] as string,
  reportCount: r[2] as number,
  last: (r[3] as number | null) ?? Number.NaN,
  rating: r[4] as number,
  reachLevel: r[5] as number,
  reachConfidence: r[6] as number,
  statusBits: r[7] as number,
  facets: JSON.parse(r[8] as string) as Record<string, string>,
});

/**
 * Whether the database orders text as the listing does (code point order: the C collation, as
 * `npm start`'s embedded PostgreSQL has it). Under another collation SQL answers every search.
 */
const ORDERS_BY_CODE_POINT = `SELECT 'B' < 'a' AND 'é' > 'z' AND '𝔸' > 'ｚ' AS ok`;

/** Where loaded rows go: a listing being built, or the changes of a patch. */
interface RowSink {
  add(row: ListedMerchant): unknown;
  addSummary(row: ListedSummary): unknown;
}

/** The rows of a few changed merchants, gathered for `Listing.patch`. */
class Changes implements RowSink {
  readonly merchants: ListedMerchant[] = [];
  readonly summaries: ListedSummary[] = [];
  add(row: ListedMerchant): void {
    this.merchants.push(row);
  }
  addSummary(row: ListedSummary): void {
    this.summaries.push(row);
  }
}

const pause = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Reads the rows of these merchants (all, without `ids`) into `listing`: the summaries one agent
 * at a time, each turned into numbers as it arrives, so that the rows of 400,000 summaries are
 * never all held at once. No snapshot is needed: a change committed between the queries has a
 * newer version than the one the listing will be said to hold, so it is patched in again. False
 * when the database's text order is not the listing's.
 */
async function load(pool: pg.Pool, listing: RowSink, ids?: readonly string[]): Promise<boolean> {
  // Each query named "listing-…" (prepared once per connection; tests tell them from a request's).
  const ask = (name: string, text: string, values: unknown[] = []) => pool.query<Row>({ name: `listing-${name}`, text, values, rowMode: 'array' });
  if (!ids && !(await ask('order', ORDERS_BY_CODE_POINT)).rows[0]?.[0]) return false;
  const only = ids ? ' AND m.id = ANY($1::uuid[])' : '';
  const values = ids ? [ids] : [];
  for (const row of (await ask(ids ? 'merchants-some' : 'merchants', MERCHANTS + only, values)).rows) listing.add(merchantOf(row));
  // A few merchants' summaries in one query; everyone's one agent at a time.
  const agents = ids ? [null] : (await ask('agents', 'SELECT id FROM agents ORDER BY id')).rows.map((r) => r[0] as string);
  for (const agent of agents) {
    const answer = agent === null ? await ask('summaries-some', SUMMARIES + only, values) : await ask('summaries', `${SUMMARIES} AND s.agent_id = $1::uuid`, [agent]);
    for (const row of answer.rows) listing.addSummary(summaryOf(row));
    if (!ids) await pause();
  }
  return true;
}

export interface ListingKeeper {
  /**
   * The listing as new as the directory version this request settled, or null when it is not
   * (not loaded yet, being loaded again, the version unknown): the caller asks SQL instead.
   */
  current(): Promise<Listing | null>;
  /** Loads it now (the server does before it listens, so that the first requests find it). */
  warm(): Promise<void>;
  close(): void;
}

export function listingKeeper(pool: pg.Pool, versions: DirectoryVersions, logger?: Logger): ListingKeeper {
  let listing: Listing | null = null;
  let version = -1n;
  let whole = true;
  const dirty = new Set<string>();
  let refreshing: Promise<void> | undefined;
  let unordered = false;
  let wholeSince = 0;
  const stop = versions.onChange((change) => {
    if (!change.scope.all) for (const id of change.scope.merchants) dirty.add(id);
    if (change.scope.all || dirty.size > PATCH_AT_MOST) {
      whole = true;
      wholeSince = performance.now();
    }
  });

  // Whatever is known to have changed up to the version known now is read after this point, so
  // the listing is then at least that new. One refresh runs at a time.
  const refreshNow = async (): Promise<void> => {
    const known = versions.current();
    if (known === null) return;
    const ids = whole ? undefined : [...dirty];
    const reload = whole || !listing;
    whole = false;
    dirty.clear();
    try {
      if (reload) {
        const loaded = new Listing();
        if (!(await load(pool, loaded))) {
          unordered = true;
          logger?.info('the database does not order text by code point: SQL answers every directory search');
          return;
        }
        await loaded.sortAll(pause);
        listing = loaded;
      } else if (ids && ids.length > 0) {
        const rows = new Changes();
        await load(pool, rows, ids);
        listing!.patch(ids, rows.merchants, rows.summaries);
      }
      version = known;
    } catch (error) {
      whole = true;
      logger?.warn({ err: error }, 'the in-memory listing could not be loaded; searches are answered by SQL');
    }
  };
  const refresh = (): Promise<void> => (refreshing ??= refreshNow().finally(() => (refreshing = undefined)));

  return {
    async current() {
      if (unordered) return null;
      await versions.settle();
      const wanted = versions.current();
      if (wanted === null) return null;
      if (listing && version >= wanted) return listing;
      if (listing && whole) {
        // Loading everything takes seconds at 100,000 merchants: SQL answers meanwhile.
        if (performance.now() - wholeSince >= QUIET_BEFORE_LOAD_MS) void refresh();
        return null;
      }
      // The first load, or a patch of a few merchants: waited for (twice at most, if a refresh was already running).
      await refresh();
      if (version < wanted && !whole) await refresh();
      return listing && version >= wanted ? listing : null;
    },
    warm: refresh,
    close: stop,
  };
}
