// The public read-only directory API (spec 4.1): no account, cacheable, problem+json errors.
// Reads as an index of the endpoints, by family; the helpers they share are at the end.
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { z } from 'zod';
import type pg from 'pg';
import type { PrismaClient } from '../../db/client.js';
import type { Clock } from '../../clock.js';
import { pageParam } from '../../modules/directory/query.js';
import type { CountCache } from '../../modules/directory/counts.js';
import { listEnvelope, notice, type Links } from '../../modules/directory/notice.js';
import { merchantProfile, searchDirectoryCompact, searchDirectoryJson, type ListContext } from '../../modules/merchants/merchants.service.js';
import { agentMerchantQuery, merchantDetailQuery, merchantQuery, type MerchantDetailQuery, type MerchantQuery } from '../../modules/merchants/merchants.schemas.js';
import { activeAgent, agents, categories } from '../../modules/catalog/catalog.service.js';
import { publicReport, recentReports } from '../../modules/reports/public-reports.service.js';
import { reportQuery, type ReportQuery } from '../../modules/reports/public-reports.schemas.js';
import { validateQuery } from '../../web/middleware/validate.js';
import { cachePage, cacheScope, cacheShows } from '../../web/middleware/response-cache.js';
import type { PageCheck } from '../../modules/directory/listing.js';
import { pageLinks } from '../../web/links.js';
import { apiIndex, apiIndexLinks } from '../../modules/open-data/discovery.js';
import { listDumps } from '../../modules/open-data/export.js';
import type { Config } from '../../config/env.js';
import type { SyncedLimiter } from '../../web/middleware/rate-limit.js';
import { contributionSchema } from '../../modules/reports/contribution-schema.js';
import { cacheControl } from '../../web/cache-control.js';

/** Shared caches may keep public reads this long (seconds). */
const PUBLIC_MAX_AGE_SECONDS = 60;

export interface PublicDeps extends Links {
  prisma: PrismaClient;
  /** The lists read their summary texts through pg itself (merchants.repository.ts listSummariesFor). */
  pool: pg.Pool;
  clock: Clock;
  limits: Config['limits'];
  /** 120 requests a minute per trusted client address (spec section 8). */
  limiter: SyncedLimiter;
  /** Answers repeated reads from memory (web/middleware/response-cache.ts). */
  cache: RequestHandler;
  /** DATA_DIR: the index links the newest open-data dump only once one exists there. */
  dataDir: string;
  /** The lists' totals, cached per directory version. */
  counts: CountCache;
}

const pageOnly = z.strictObject({ page: pageParam });

// Public reads may be cached by anyone for a minute, and served for STALE_IF_ERROR_SECONDS more
// while we answer errors (RFC 5861; the response cache does the same); the response cache gives
// every body a weak ETag and answers a matching If-None-Match with 304.
const cacheable: RequestHandler = (req, res, next) => {
  // Other methods fall through to a 405 (or a private router's answer) and keep their own.
  if (req.method === 'GET' || req.method === 'HEAD') cacheControl(res, { publicSeconds: PUBLIC_MAX_AGE_SECONDS, staleIfError: true });
  next();
};

export function publicRouter(deps: PublicDeps): Router {
  const router = Router();
  router.use(deps.limiter, cacheable, deps.cache);
  mountIndex(router, deps);
  mountDirectory(router, deps);
  mountReports(router, deps);
  return router;
}

/** The API's index and the contribution schema. */
function mountIndex(router: Router, deps: PublicDeps): void {
  // The API's index: where everything is (RFC 8631 links to its description and documentation).
  router.get('/', async (_req, res) => {
    res.set('Link', apiIndexLinks(deps)).json(apiIndex(deps, (await listDumps(deps.dataDir)).length > 0));
  });

  router.get('/contribution-schema', (_req, res) => {
    res.json(contributionSchema(deps.baseUrl, deps.limits));
  });
}

/** The directory: categories, merchants (with one agent's), agents. */
function mountDirectory(router: Router, deps: PublicDeps): void {
  router.get('/categories', validateQuery(pageOnly), async (req, res) => {
    const { page } = query<{ page: number }>(res);
    const { total, data } = await categories(directoryContext(deps), page);
    sendList(deps, req, res, listEnvelope(deps, data, total, page));
  });

  router.get('/merchants', validateQuery(merchantQuery), async (req, res) => {
    const q = query<MerchantQuery>(res);
    const { total, data, shows: ids, page } = await search(deps, q);
    shows(res, ids, page);
    sendList(deps, req, res, listEnvelope(deps, data, total, q.page));
  });

  router.get('/merchants/:slugOrId', validateQuery(merchantDetailQuery), async (req: Request<{ slugOrId: string }>, res) => {
    const merchant = await merchantProfile(directoryContext(deps), req.params.slugOrId, query<MerchantDetailQuery>(res).independent);
    // Built from this merchant alone: other merchants' changes keep it cached.
    cacheScope(res, [merchant.id]);
    res.json({ data: merchant, ...notice(deps) });
  });

  router.get('/agents', validateQuery(pageOnly), async (req, res) => {
    const { page } = query<{ page: number }>(res);
    const { total, data } = await agents(directoryContext(deps), page);
    sendList(deps, req, res, listEnvelope(deps, data, total, page));
  });

  router.get('/agents/:slug/merchants', validateQuery(agentMerchantQuery), async (req: Request<{ slug: string }>, res) => {
    const agent = await activeAgent(directoryContext(deps), req.params.slug);
    const q = query<MerchantQuery>(res);
    const { total, data, shows: ids, page } = await search(deps, q, agent);
    shows(res, ids, page);
    sendList(deps, req, res, listEnvelope(deps, data, total, q.page));
  });
}

/** The public reports: the recent ones (or one merchant's), and one. */
function mountReports(router: Router, deps: PublicDeps): void {
  router.get('/reports', validateQuery(reportQuery), async (req, res) => {
    const q = query<ReportQuery>(res);
    const { total, data } = await recentReports(directoryContext(deps), q);
    // One merchant's reports change with that merchant alone.
    if (q.merchant) cacheScope(res, [q.merchant]);
    else shows(res, data.map((report) => report.merchant.id));
    sendList(deps, req, res, listEnvelope(deps, data, total, q.page));
  });

  router.get('/reports/:id', async (req: Request<{ id: string }>, res) => {
    const report = await publicReport(directoryContext(deps), req.params.id);
    cacheScope(res, [report.merchant.id]);
    res.json({ data: report, ...notice(deps) });
  });
}

/** What the directory's services read, with this request's time. */
function directoryContext(deps: PublicDeps): ListContext {
  return { prisma: deps.prisma, pool: deps.pool, counts: deps.counts, baseUrl: deps.baseUrl, now: deps.clock.now() };
}

/** The query validateQuery parsed. */
function query<T>(res: Response): T {
  return res.locals.query as T;
}

/** A page of a list, with its first/prev/next/last links. */
function sendList(deps: PublicDeps, req: Request, res: Response, list: ReturnType<typeof listEnvelope>): void {
  res.set('Link', pageLinks(deps.baseUrl, req, list)).json(list);
}

/**
 * The merchants a page of merchants or reports shows: their changes drop it from the cache at
 * once. A page of merchants the listing found is found again before it is rebuilt.
 */
function shows(res: Response, merchantIds: readonly string[], page: PageCheck | null = null): void {
  if (page) cachePage(res, page);
  cacheShows(res, merchantIds);
}

/** A page of merchants, full or compact, of the whole directory or one agent's. */
async function search(
  deps: PublicDeps,
  q: MerchantQuery,
  agent?: Parameters<typeof searchDirectoryJson>[2],
): Promise<{ total: number; data: unknown[]; shows: string[]; page: PageCheck | null }> {
  if (q.view !== 'compact') return searchDirectoryJson(directoryContext(deps), q, agent);
  const { total, data, page } = await searchDirectoryCompact(directoryContext(deps), q, agent);
  return { total, data, shows: data.map((merchant) => merchant.id), page };
}
