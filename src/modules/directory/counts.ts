// Counting the directory's lists costs as much as the lists are long, so counts are cached,
// keyed on the directory version: a counter that every write to the tables behind the lists
// increments in its own transaction (statement triggers, migration "directory_version"), and
// which each process learns in one way: its watcher (version.ts), the same the response cache
// reads. A count cached under version V was computed after the change that made V committed,
// and no change has committed since while V is still current, so a cached count is exact:
// never older than the rows it counts. Each process keeps its own cache (app.ts builds it).
import type { Prisma } from '../../generated/prisma/client.js';
import type { PrismaClient } from '../../db/client.js';
import type { DirectoryVersions } from './version.js';
import type { Listing } from './listing.js';
import type { ListingKeeper } from './listing-store.js';

/** Distinct queries kept per version; a new version empties the cache. */
const QUERY_CACHE_ENTRIES = 2_000;

/** Counts the rows of one `SELECT count(*)::int AS n ...` query. */
export type Counter = (query: Prisma.Sql) => Promise<number>;

/** Runs a read-only query whose rows depend only on the directory's tables. */
export type CachedQuery = <T>(query: Prisma.Sql) => Promise<T[]>;

interface QueryCache {
  version: bigint;
  results: Map<string, unknown[]>;
}

/** Queries without a cache (tools, tests of the queries themselves). */
export const uncachedQuery = (prisma: PrismaClient): CachedQuery => (query) => prisma.$queryRaw(query);

/** Counts with `query`'s cache: `SELECT count(*)::int AS n ...`. */
const counterOf = (query: CachedQuery): Counter => async (sql) =>
  (await query<{ n: number }>(sql))[0]?.n ?? 0;

export const uncachedCounter = (prisma: PrismaClient): Counter => counterOf(uncachedQuery(prisma));

/** The directory's list queries as one request runs them: cached per directory version, or not at all. */
export interface CountCache {
  /** A query runner for one request. Results are shared: callers must not modify them. */
  query(): Promise<CachedQuery>;
  /** The same, for `SELECT count(*)::int AS n ...` queries. */
  counter(): Promise<Counter>;
  /** The in-memory listing (listing.ts) as new as the request's version, or null: SQL answers. */
  listing(): Promise<Listing | null>;
}

/** No cache: the open-data dump and tools, which read each list once. */
export const uncachedCounts = (prisma: PrismaClient): CountCache => ({
  query: () => Promise.resolve(uncachedQuery(prisma)),
  counter: () => Promise.resolve(uncachedCounter(prisma)),
  listing: () => Promise.resolve(null),
});

/**
 * One process's cache, keyed on the version the process's watcher knows (version.ts): each
 * request first settles it (one read on the listening connection, shared by the requests that
 * come meanwhile), so a change committed before the request is never answered from an older
 * entry. While the version is unknown (the listener is reconnecting), nothing is cached.
 */
export function countCache(prisma: PrismaClient, versions: DirectoryVersions, listing?: ListingKeeper): CountCache {
  let cache: QueryCache | undefined;
  const query = async (): Promise<CachedQuery> => {
    await versions.settle();
    const version = versions.current();
    if (version === null) return uncachedQuery(prisma);
    if (!cache || cache.version < version) cache = { version, results: new Map() };
    const current = cache;
    // A request that knows an older version than the cache's neither reads nor fills it.
    if (current.version !== version) return uncachedQuery(prisma);
    return async <T>(sql: Prisma.Sql) => {
      const key = `${sql.sql}\u0000${JSON.stringify(sql.values)}`;
      const known = current.results.get(key);
      if (known !== undefined) return known as T[];
      const rows = await prisma.$queryRaw<T[]>(sql);
      if (current.results.size >= QUERY_CACHE_ENTRIES) current.results.delete(current.results.keys().next().value!);
      current.results.set(key, rows);
      return rows;
    };
  };
  return { query, counter: async () => counterOf(await query()), listing: () => (listing ? listing.current() : Promise.resolve(null)) };
}
