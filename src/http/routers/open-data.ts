// Open data and discovery, for people, feed readers, embedding sites and agents: Atom feeds,
// status badges, the bulk dumps and /data, /llms.txt, /robots.txt and the sitemap. Public data
// only, each answer through the response cache and counted against the public budget.
import path from 'node:path';
import { Router, type Request, type RequestHandler } from 'express';
import type { Clock } from '../../clock.js';
import type { PrismaClient } from '../../db/client.js';
import { badge } from '../../modules/open-data/badges.service.js';
import { llmsTxt, robotsTxt } from '../../modules/open-data/discovery.js';
import { DUMP_TYPES, dumpsDir, KEPT_DUMPS, listDumps } from '../../modules/open-data/export.js';
import { atomFeed, type FeedScope } from '../../modules/open-data/feeds.service.js';
import { DATA_LICENCE } from '../../modules/open-data/licence.js';
import { sitemap, sitemapPage } from '../../modules/open-data/sitemap.js';
import { DISCLAIMER } from '../../modules/directory/notice.js';
import { notFound } from '../../errors.js';
import { layoutLocals } from '../../web/middleware/layout.js';
import type { SyncedLimiter } from '../../web/middleware/rate-limit.js';
import { cacheScope, type ResponseCache } from '../../web/middleware/response-cache.js';
import { cacheControl } from '../../web/cache-control.js';

export interface OpenDataDeps {
  baseUrl: string;
  dataDir: string;
  prisma: PrismaClient;
  clock: Clock;
  limiter: SyncedLimiter;
  responses: ResponseCache;
  /** URLs per sitemap before /sitemap.xml becomes an index (default 50,000, the protocol's limit). */
  sitemapPageSize?: number;
}

const maxAge = (seconds: number): RequestHandler => (_req, res, next) => {
  cacheControl(res, { publicSeconds: seconds, staleIfError: true });
  next();
};

export function openDataRouter(deps: OpenDataDeps): Router {
  const router = Router();
  const cached = [deps.limiter, deps.responses.middleware({ limiter: deps.limiter, anonymousOnly: false })];
  const feed = (scope: (req: Request) => FeedScope): RequestHandler => async (req, res) => {
    const { xml, merchantId } = await atomFeed(deps, scope(req), deps.clock.now());
    if (merchantId) cacheScope(res, [merchantId]);
    res.type('application/atom+xml; charset=utf-8').send(xml);
  };
  const slug = (req: Request) => String(req.params.slug);

  // Discovery.
  router.get('/llms.txt', ...cached, maxAge(3600), async (_req, res) => {
    res.type('text/plain; charset=utf-8').send(llmsTxt(deps, (await listDumps(deps.dataDir)).length > 0));
  });
  router.get('/robots.txt', ...cached, maxAge(3600), (_req, res) => {
    res.type('text/plain; charset=utf-8').send(robotsTxt(deps));
  });

  // The sitemap: one urlset, or past one page an index of numbered pages.
  const sitemapDeps = { baseUrl: deps.baseUrl, prisma: deps.prisma, pageSize: deps.sitemapPageSize };
  router.get('/sitemap.xml', ...cached, maxAge(3600), async (_req, res) => {
    const answer = await sitemap(sitemapDeps, deps.clock.now());
    res.type('application/xml; charset=utf-8').send(answer.xml);
  });
  router.get('/sitemaps/:page.xml', ...cached, maxAge(3600), async (req, res) => {
    const page = String(req.params.page);
    const xml = /^[1-9][0-9]{0,8}$/.test(page) ? await sitemapPage(sitemapDeps, Number(page), deps.clock.now()) : null;
    if (xml === null) throw notFound('There is no sitemap page with this number; /sitemap.xml lists them.');
    res.type('application/xml; charset=utf-8').send(xml);
  });

  // Feeds: newly approved reports and status changes.
  router.get('/feed.atom', ...cached, maxAge(300), feed(() => ({ kind: 'site' })));
  router.get('/merchants/:slug/feed.atom', ...cached, maxAge(300), feed((req) => ({ kind: 'merchant', slug: slug(req) })));
  router.get('/agents/:slug/feed.atom', ...cached, maxAge(300), feed((req) => ({ kind: 'agent', slug: slug(req) })));
  router.get('/categories/:slug/feed.atom', ...cached, maxAge(300), feed((req) => ({ kind: 'category', slug: slug(req) })));

  // Badges, embeddable anywhere.
  router.get('/badges/:merchant/:agent.svg', ...cached, maxAge(300), async (req, res) => {
    const task = typeof req.query.task === 'string' ? req.query.task : undefined;
    const result = await badge(deps.prisma, { merchantSlug: String(req.params.merchant), agentSlug: String(req.params.agent), task }, deps.clock.now());
    if (result.merchantId) cacheScope(res, [result.merchantId]);
    res
      .status(result.status)
      .set({ 'Cross-Origin-Resource-Policy': 'cross-origin', 'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'" })
      .type('image/svg+xml; charset=utf-8')
      .send(result.svg);
  });

  // Bulk data: the dated dumps and the page that describes them.
  router.get('/data', deps.limiter, layoutLocals, async (_req, res) => {
    cacheControl(res, { publicSeconds: 300 });
    res.render('pages/data', { title: 'Open data', dumps: await listDumps(deps.dataDir), kept: KEPT_DUMPS, types: DUMP_TYPES, licence: DATA_LICENCE, disclaimer: DISCLAIMER });
  });
  const sendDump = (res: Parameters<RequestHandler>[1], name: string) => {
    cacheControl(res, { publicSeconds: 3600 }).set('Content-Disposition', `attachment; filename="${name}"`);
    res.type('application/gzip');
    res.sendFile(path.join(dumpsDir(deps.dataDir), name));
  };
  router.get('/data/directory.ndjson.gz', deps.limiter, async (_req, res) => {
    const [newest] = await listDumps(deps.dataDir);
    if (!newest) throw notFound('No dump has been written yet: the service writes one a day (the first soon after it starts); /data lists them.');
    sendDump(res, newest.name);
  });
  router.get('/data/:file', deps.limiter, async (req, res) => {
    const name = String(req.params.file);
    const dump = (await listDumps(deps.dataDir)).find((d) => d.name === name);
    if (!dump) throw notFound('There is no dump with this name; /data lists them.');
    sendDump(res, dump.name);
  });
  return router;
}
