// The app's own metrics, in a registry made for each app (createApp runs many times in one test
// process): request durations by route template, response-cache results, the pool and the age
// of the newest dump. The process's metrics (src/metrics.ts) are appended when scraped.
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Request, RequestHandler, Response } from 'express';
import type pg from 'pg';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Clock } from '../../clock.js';
import { dumpsDir } from '../../modules/open-data/export.js';
import { processRegistry, scrapesThroughPrimary, scrapeThroughPrimary, shareWithCluster } from '../../metrics.js';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const CACHE_RESULTS = new Set(['HIT', 'STALE', 'REVALIDATED', 'MISS', 'BYPASS', 'STALE-IF-ERROR']);
const DUMP_FILE = /^directory-\d{4}-\d{2}-\d{2}\.ndjson\.gz$/;
const ROUTE = Symbol('route template');

type Routed = Request & { [ROUTE]?: string };

/**
 * The route a request was answered by, as its template (`/api/v1/merchants/:slug`), never the
 * path it was sent to: labels must not carry ids, slugs or keys, nor grow with the URLs people
 * try. Taken when the router enters the route (see `timing`): by the time an error handler of
 * an outer router answers, `req.baseUrl` is that router's again.
 */
export function routeTemplate(req: Request): string | undefined {
  return (req as Routed)[ROUTE];
}

/** Names the route of an answer given without reaching it (a cached one, at the cache's front door). */
export function answeredFor(res: Response, route: string | undefined): void {
  if (route !== undefined) (res.req as Routed)[ROUTE] = route;
}

/**
 * Notes the template of each route the router enters (it assigns `req.route`). Every mount
 * path is a lowercase literal (no parameters), and Express matches them without regard to
 * case, so the lowercased base is the mount path as written.
 */
function watchRoute(req: Request): void {
  let route: Request['route'];
  Object.defineProperty(req, 'route', {
    configurable: true,
    enumerable: true,
    get: () => route,
    set(value: Request['route']) {
      route = value;
      const template: unknown = value?.path;
      if (typeof template === 'string') (req as Routed)[ROUTE] = `${req.baseUrl.toLowerCase()}${template}` || '/';
    },
  });
}

export interface AppMetrics {
  readonly registry: Registry;
  /** Times every request, first in the stack. */
  readonly timing: RequestHandler;
  /**
   * Counts an answer the response cache's front door gave before the stack (app.ts): one
   * observation of the duration histogram, from `started` (performance.now()) until now (the
   * answer was handed to the socket), and one of the cache counter.
   */
  answered(method: 'GET' | 'HEAD', route: string | undefined, statusCode: number, started: number, cache: 'HIT' | 'STALE'): void;
  /** The app's metrics, then the process's, as Prometheus text. */
  scrape(): Promise<string>;
  readonly contentType: string;
}

interface AppMetricsDeps {
  pool: pg.Pool;
  clock: Clock;
  dataDir: string;
  /** Entries in the response cache now. */
  cacheEntries: () => number;
  /** The bytes the response cache counts for what it holds. */
  cacheBytes: () => number;
}

export function createAppMetrics(deps: AppMetricsDeps): AppMetrics {
  const registry = new Registry();
  const registers = [registry];
  const requests = requestMetrics(registers);
  stateGauges(deps, registers);
  const timing = timingOf(requests);
  const answered = answeredOf(requests);

  shareWithCluster([registry, processRegistry()]);
  return {
    registry,
    timing,
    answered,
    contentType: registry.contentType,
    async scrape() {
      if (scrapesThroughPrimary()) return scrapeThroughPrimary();
      return `${await registry.metrics()}\n${await processRegistry().metrics()}`;
    },
  };
}

/** What `timing` records of each request: its duration, and the response cache's result. */
interface RequestMetrics {
  duration: Histogram<'method' | 'route' | 'status_class'>;
  cache: Counter<'result'>;
}

function requestMetrics(registers: Registry[]): RequestMetrics {
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP requests by method, route template ("unmatched" when no route answered) and status class, by duration until the last byte was handed to the OS.',
    labelNames: ['method', 'route', 'status_class'],
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  const cache = new Counter({
    name: 'acd_response_cache_requests_total',
    help: 'Answers of cacheable routes by response-cache result: hit (served from the cache), stale (served from the cache within its bound after a change that may have altered it, while one request rebuilds it), revalidated (a list found to show the same page after a change, kept rather than rebuilt), miss (built, and filed when shareable), bypass (not cacheable as asked), stale_if_error (served in place of a 503 while the database was away).',
    labelNames: ['result'],
    registers,
  });
  return { duration, cache };
}

/** The gauges read when scraped: the response cache's size, the pool's connections and the newest dump's age. */
function stateGauges(deps: AppMetricsDeps, registers: Registry[]): void {
  new Gauge({
    name: 'acd_response_cache_entries',
    help: 'Answers held in the response cache.',
    registers,
    collect() {
      this.set(deps.cacheEntries());
    },
  });
  new Gauge({
    name: 'acd_response_cache_bytes',
    help: 'Bytes the response cache counts for the answers it holds (bodies, room for their encodings, keys).',
    registers,
    collect() {
      this.set(deps.cacheBytes());
    },
  });
  poolGauges(deps.pool, registers);
  new Gauge({
    name: 'acd_dump_age_seconds',
    help: 'Seconds since the newest open-data dump was written (NaN when there is none).',
    aggregator: 'min',
    registers,
    async collect() {
      this.set(await newestDumpAge(deps.dataDir, deps.clock.now()));
    },
  });
}

function poolGauges(pool: pg.Pool, registers: Registry[]): void {
  new Gauge({
    name: 'acd_db_pool_connections',
    help: 'Connections of the PostgreSQL pool, by state (in_use, idle).',
    labelNames: ['state'],
    registers,
    collect() {
      this.set({ state: 'idle' }, pool.idleCount);
      this.set({ state: 'in_use' }, pool.totalCount - pool.idleCount);
    },
  });
  new Gauge({
    name: 'acd_db_pool_max_connections',
    help: 'Most connections the PostgreSQL pool opens.',
    registers,
    collect() {
      this.set(pool.options.max ?? 10);
    },
  });
  new Gauge({
    name: 'acd_db_pool_waiting_clients',
    help: 'Queries waiting for a connection of the PostgreSQL pool.',
    registers,
    collect() {
      this.set(pool.waitingCount);
    },
  });
}

/** Times a request from its start until its last byte, by route template, and counts its response-cache result. */
function timingOf({ duration, cache }: RequestMetrics): RequestHandler {
  return (req, res, next) => {
    const start = process.hrtime.bigint();
    watchRoute(req);
    res.once('finish', () => {
      const route = routeTemplate(req) ?? 'unmatched';
      const method = METHODS.has(req.method) ? req.method : 'other';
      const statusClass = `${Math.floor(res.statusCode / 100)}xx`;
      duration.observe({ method, route, status_class: statusClass }, Number(process.hrtime.bigint() - start) / 1e9);
      const result = String(res.getHeader('X-Cache') ?? '');
      if (CACHE_RESULTS.has(result)) cache.inc({ result: result.toLowerCase().replaceAll('-', '_') });
    });
    next();
  };
}

/**
 * Counts the front door's answers: one observation of the duration histogram and one of the
 * cache counter, with label sets made once per route, method and status class.
 */
function answeredOf({ duration, cache }: RequestMetrics): AppMetrics['answered'] {
  const labelSets = new Map<string, Array<{ method: string; route: string; status_class: string } | undefined>>();
  const hitLabels = { result: 'hit' };
  const staleLabels = { result: 'stale' };
  return (method, route, statusCode, started, result) => {
    const template = route ?? 'unmatched';
    let sets = labelSets.get(template);
    if (sets === undefined) labelSets.set(template, (sets = []));
    const slot = (method === 'GET' ? 0 : 6) + Math.min(5, Math.floor(statusCode / 100));
    const labels = (sets[slot] ??= { method, route: template, status_class: `${Math.floor(statusCode / 100)}xx` });
    duration.observe(labels, (performance.now() - started) / 1000);
    cache.inc(result === 'HIT' ? hitLabels : staleLabels);
  };
}

async function newestDumpAge(dataDir: string, now: Date): Promise<number> {
  const dir = dumpsDir(dataDir);
  let names: string[];
  try {
    names = (await readdir(dir)).filter((name) => DUMP_FILE.test(name));
  } catch {
    return Number.NaN;
  }
  let newest = Number.NEGATIVE_INFINITY;
  for (const name of names) {
    const written = await stat(path.join(dir, name)).then(
      (s) => s.mtimeMs,
      () => Number.NEGATIVE_INFINITY,
    );
    newest = Math.max(newest, written);
  }
  return Number.isFinite(newest) ? Math.max(0, (now.getTime() - newest) / 1000) : Number.NaN;
}
