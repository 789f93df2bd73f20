// Counting the directory's lists costs as much as the lists are long, so counts are cached,
// keyed on the directory version: a counter that every write to the tables behind the lists
// increments in its own transaction (statement triggers, migration "directory_version").
// A count cached under version V was computed after the change that made V committed, and
// no change has committed since while V is still current, so a cached count is exact: never
// older than the rows it counts. Each process keeps its own cache (per database client).
import type { Prisma } from '../../generated/prisma/client.js';
import type { PrismaClient } from '../../db/client.js';

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

const caches = new WeakMap<PrismaClient, QueryCache>();

/** The current directory version as this transaction (or statement) sees it. */
export async function directoryVersion(prisma: PrismaClient): Promise<bigint> {
  const rows = await prisma.$queryRaw<Array<{ version: bigint }>>`SELECT version FROM directory_version WHERE id = 1`;
  return rows[0]?.version ?? 0n;
}

/** Queries without a cache (tools, tests of the queries themselves). */
export const uncachedQuery = (prisma: PrismaClient): CachedQuery => (query) => prisma.$queryRaw(query);

/** Counts with `query`'s cache: `SELECT count(*)::int AS n ...`. */
const counterOf = (query: CachedQuery): Counter => async (sql) =>
  (await query<{ n: number }>(sql))[0]?.n ?? 0;

export const uncachedCounter = (prisma: PrismaClient): Counter => counterOf(uncachedQuery(prisma));

/**
 * A query runner for one request: reads the version once, then answers repeated queries of
 * that version from the cache. A request that saw an older version than the cache's neither
 * reads nor fills it. Results are shared: callers must not modify them.
 */
export async function cachedQuery(prisma: PrismaClient): Promise<CachedQuery> {
  const version = await directoryVersion(prisma);
  let cache = caches.get(prisma);
  if (!cache || cache.version < version) {
    cache = { version, results: new Map() };
    caches.set(prisma, cache);
  }
  const current = cache;
  if (current.version !== version) return uncachedQuery(prisma);
  return async <T>(query: Prisma.Sql) => {
    const key = `${query.sql}\u0000${JSON.stringify(query.values)}`;
    const known = current.results.get(key);
    if (known !== undefined) return known as T[];
    const rows = await prisma.$queryRaw<T[]>(query);
    if (current.results.size >= QUERY_CACHE_ENTRIES) current.results.delete(current.results.keys().next().value!);
    current.results.set(key, rows);
    return rows;
  };
}

export const cachedCounter = async (prisma: PrismaClient): Promise<Counter> => counterOf(await cachedQuery(prisma));
