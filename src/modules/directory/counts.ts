// Counting the directory's lists costs as much as the lists are long, so counts are cached,
// keyed on the directory version: a counter that every write to the tables behind the lists
// increments in its own transaction (statement triggers, migration "directory_version").
// A count cached under version V was computed after the change that made V committed, and
// no change has committed since while V is still current, so a cached count is exact: never
// older than the rows it counts. Each process keeps its own cache (per database client).
import type { Prisma } from '../../generated/prisma/client.js';
import type { PrismaClient } from '../../db/client.js';

/** Distinct count queries kept per version; a new version empties the cache. */
export const COUNT_CACHE_ENTRIES = 2_000;

/** Counts the rows of one `SELECT count(*)::int AS n ...` query. */
export type Counter = (query: Prisma.Sql) => Promise<number>;

interface CountCache {
  version: bigint;
  counts: Map<string, number>;
}

const caches = new WeakMap<PrismaClient, CountCache>();

/** The current directory version as this transaction (or statement) sees it. */
export async function directoryVersion(prisma: PrismaClient): Promise<bigint> {
  const rows = await prisma.$queryRaw<Array<{ version: bigint }>>`SELECT version FROM directory_version WHERE id = 1`;
  return rows[0]?.version ?? 0n;
}

async function runCount(prisma: PrismaClient, query: Prisma.Sql): Promise<number> {
  const rows = await prisma.$queryRaw<Array<{ n: number }>>(query);
  return rows[0]?.n ?? 0;
}

/** Counts without a cache (tools, tests of the queries themselves). */
export const uncachedCounter = (prisma: PrismaClient): Counter => (query) => runCount(prisma, query);

/**
 * A counter for one request: reads the version once, then answers repeated count queries of
 * that version from the cache. A request that saw an older version than the cache's neither
 * reads nor fills it.
 */
export async function cachedCounter(prisma: PrismaClient): Promise<Counter> {
  const version = await directoryVersion(prisma);
  let cache = caches.get(prisma);
  if (!cache || cache.version < version) {
    cache = { version, counts: new Map() };
    caches.set(prisma, cache);
  }
  const current = cache;
  if (current.version !== version) return uncachedCounter(prisma);
  return async (query) => {
    const key = `${query.sql}\u0000${JSON.stringify(query.values)}`;
    const known = current.counts.get(key);
    if (known !== undefined) return known;
    const n = await runCount(prisma, query);
    if (current.counts.size >= COUNT_CACHE_ENTRIES) current.counts.delete(current.counts.keys().next().value!);
    current.counts.set(key, n);
    return n;
  };
}
