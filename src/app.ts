// createApp builds the whole HTTP application from its dependencies and never listens:
// server.ts starts it, tests drive it with supertest.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import compression from 'compression';
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import type pg from 'pg';
import type { Config } from './config/env.js';
import type { Logger } from './logger.js';
import { logAnswered, requestIdOf, requestLog } from './web/middleware/request-log.js';
import { acceptAbsoluteForm } from './web/middleware/request-target.js';
import { apiSecurityHeaders, pageSecurityHeaders } from './web/middleware/security-headers.js';
import type { PrismaClient } from './db/client.js';
import type { Clock } from './clock.js';
import { healthRouter } from './http/routers/health.js';
import { apiRouter } from './http/routers/api.js';
import { htmlErrorHandler, htmlNotFound } from './web/middleware/html-errors.js';
import { apiGuards, type ApiGuards } from './web/middleware/guards.js';
import { mcpRouter } from './mcp/router.js';
import { MCP_MAX_BODY_BYTES } from './mcp/server.js';
import { TOOLS } from './mcp/tools.js';
import { openDataRouter } from './http/routers/open-data.js';
import { pagesRouter } from './http/routers/pages.js';
import { sessionMiddleware } from './web/middleware/session.js';
import { createMailer, type Mailer } from './mail/mailer.js';
import { registerDecisionNotices } from './modules/moderation/decision-notices.js';
import { DISCLAIMER } from './modules/directory/notice.js';
import { submissionQuotas } from './modules/limits/quota.js';
import type { DirectoryVersions } from './modules/directory/version.js';
import { countCache, type CountCache } from './modules/directory/counts.js';
import { listingKeeper, type ListingKeeper } from './modules/directory/listing-store.js';
import { ResponseCache, settleWrites } from './web/middleware/response-cache.js';
import type { FrontDoor } from './web/middleware/cached-answer.js';
import { parseQuery, refuseLongQuery } from './web/middleware/validate.js';
import { problemErrorHandler } from './web/middleware/errors.js';
import { layoutLocals } from './web/middleware/layout.js';
import { requestDeadline } from './web/middleware/deadline.js';
import { createAppMetrics, type AppMetrics } from './web/middleware/metrics.js';
import { metricsRouter } from './http/routers/metrics.js';
import { fetcherFromConfig, type Fetcher } from './outbound/fetcher.js';
import { cursorCodec } from './modules/automation/cursor.js';
import type { AutomationDeps } from './modules/automation/automation.service.js';
import type { SubmissionDeps } from './modules/reports/submissions.service.js';
import { sendJson } from './web/json-body.js';

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface AppDeps {
  config: Config;
  logger: Logger;
  prisma: PrismaClient;
  pool: pg.Pool;
  clock: Clock;
  /** The directory version this process knows (modules/directory/version.ts). */
  versions: DirectoryVersions;
  /** The in-memory directory listing (modules/directory/listing-store.ts); by default one loaded at the first search. */
  listing?: ListingKeeper;
  /** Defaults to SMTP (SMTP_URL) or the DATA_DIR outbox. */
  mailer?: Mailer;
  /** Defaults to the one SSRF-safe fetcher of the configuration (DNS_SERVERS, the test door). */
  fetcher?: Fetcher;
}

/** An error handler that first gives the answer the headers (and locals) its audience's answers have. */
function withHeaders(before: RequestHandler[], handler: ErrorRequestHandler): ErrorRequestHandler {
  return (error, req, res, next) => {
    const run = (i: number): void => {
      if (i === before.length) return void handler(error, req, res, next);
      void before[i]!(req, res, (failure?: unknown) => (failure ? next(failure) : run(i + 1)));
    };
    run(0);
  };
}

/** What the front of the stack built that the edges below reuse. */
interface FrontStack {
  metrics: AppMetrics;
  apiHeaders: RequestHandler;
  pageHeaders: RequestHandler;
  compress: RequestHandler;
  responses: ResponseCache;
}

/** The services and guards both JSON edges and the pages share, built once. */
interface SharedDeps {
  session: RequestHandler;
  fetcher: Fetcher;
  quotas: ReturnType<typeof submissionQuotas>;
  submissions: SubmissionDeps;
  automation: AutomationDeps;
  guards: ApiGuards;
  /** The directory lists' totals, cached per directory version (one cache for every surface). */
  counts: CountCache;
}

export function createApp(deps: AppDeps): Express {
  const app = bareApp(deps.config);
  const front = mountFrontStack(app, deps);
  setUpViews(app, deps.config);
  const shared = buildSharedDeps(deps);
  mountJsonEdges(app, deps, front, shared);
  mountOutsideApi(app, deps, front, shared);
  mountPages(app, deps, front, shared);
  app.use(htmlNotFound);
  app.use(htmlErrorHandler);
  return app;
}

/** Express with the application's settings, and absolute-form targets accepted. */
function bareApp(config: Config): Express {
  const app = express();
  app.disable('x-powered-by');
  // ETags are given deliberately: a report's version (private API), a cached body's hash (response cache).
  app.set('etag', false);
  app.set('trust proxy', config.trustProxy);
  // JSON answers are made into bytes piece by piece (web/json-body.ts).
  app.response.json = sendJson;
  return app;
}

/** What every request meets first: timing and the log, the query rule, error answers, the deadline, the response cache. */
function mountFrontStack(app: Express, deps: AppDeps): FrontStack {
  const { config } = deps;
  // Before everything else, so a request's time includes all of the stack's work.
  const metrics = createAppMetrics({ pool: deps.pool, clock: deps.clock, dataDir: config.dataDir, cacheEntries: () => responses.size, cacheBytes: () => responses.bytes });
  app.locals.metrics = metrics;
  app.use(metrics.timing);
  app.use(requestLog(deps.logger, app));
  const { apiHeaders, pageHeaders } = mountErrorAnswers(app, config);
  // gzip or brotli (quality 4) for bodies over 1 KB when the client accepts them (`compress`):
  // the routers apply it where answers are not served by the response cache, which compresses
  // each cached answer once.
  const compress = compression();
  const responses = new ResponseCache({ versions: deps.versions, clock: deps.clock, proceed: compress });
  // Before anything reads the target: an absolute-form one is answered as its path and query.
  // Then cached public answers leave at once (the response cache's front door), before the
  // router, with the headers the stack below gave them when built, the request's id and
  // limits, its log line and its metrics. The routes' own cache middleware answers the rest
  // (a stale answer being rebuilt, an encoding not yet made).
  const logLine = logAnswered(deps.logger);
  const door: FrontDoor = {
    requestId: requestIdOf,
    answered(req, res, id, route, cache, started) {
      metrics.answered(req.method as 'GET' | 'HEAD', route, res.statusCode, started, cache);
      logLine(req, res.statusCode, id, started);
    },
  };
  acceptAbsoluteForm(app, (req, res, started) => responses.answer(req, res, door, started));
  app.use(settleWrites(deps.versions));
  return { metrics, apiHeaders, pageHeaders, compress, responses };
}

/** The whole-query rule, each audience's error answers (with its headers) and the request deadline. */
function mountErrorAnswers(app: Express, config: Config): { apiHeaders: RequestHandler; pageHeaders: RequestHandler } {
  // A query string is read whole or refused whole: Express's own parser stops after 1,000
  // pairs, and a handler then answered (and the response cache filed its answer) for part of
  // what was asked. Longer ones are refused here, before the cache's front door, in each
  // audience's own error format (validate.ts).
  app.set('query parser', parseQuery);
  const apiHeaders = apiSecurityHeaders(config);
  const pageHeaders = pageSecurityHeaders(config);
  app.use(refuseLongQuery);
  const apiErrors = withHeaders([apiHeaders], problemErrorHandler());
  const pageErrors = withHeaders([pageHeaders, layoutLocals], htmlErrorHandler);
  app.use(['/api', '/mcp'], apiErrors);
  app.use(pageErrors);
  // DATABASE_TIMEOUT_MS bounds a whole request, however many statements it waits on (the
  // readiness check has its own, shorter bound and its own answer).
  app.use(
    requestDeadline(
      config.databaseTimeoutMs,
      (error, req, res, next) => (/^\/(api|mcp)(\/|\?|$)/.test(req.originalUrl) ? apiErrors : pageErrors)(error, req, res, next),
      (req) => req.path === '/readyz' || req.path === '/healthz',
    ),
  );
  return { apiHeaders, pageHeaders };
}

/** The EJS views and the locals every page's layout reads. */
function setUpViews(app: Express, config: Config): void {
  app.set('views', path.join(projectRoot, 'views'));
  app.set('view engine', 'ejs');
  app.locals.disclaimer = DISCLAIMER;
  // Problem types are absolute addresses under it (web/problem.ts).
  app.locals.baseUrl = config.baseUrl;
}

function buildSharedDeps(deps: AppDeps): SharedDeps {
  const { config } = deps;
  const session = sessionMiddleware(deps.pool, config);
  // Everything that reaches an address a user typed goes through this one fetcher.
  const fetcher = deps.fetcher ?? fetcherFromConfig(config);
  const quotas = submissionQuotas(deps.pool, deps.clock, config.limits);
  // The contribution and automation services' dependencies, built once for both edges (a cursor
  // from the API works over MCP and back; a report's address hash is keyed alike).
  const submissions: SubmissionDeps = {
    prisma: deps.prisma,
    baseUrl: config.baseUrl,
    browserQuota: quotas.browser,
    agentQuota: quotas.agent,
    addressSecret: config.sessionSecret,
  };
  const automation: AutomationDeps = {
    prisma: deps.prisma,
    baseUrl: config.baseUrl,
    agentQuota: quotas.agent,
    addressSecret: config.sessionSecret,
    queueCursors: cursorCodec(config.sessionSecret, 'queue'),
    reportCursors: cursorCodec(config.sessionSecret, 'own-reports'),
  };
  const guards = apiGuards({ pool: deps.pool, prisma: deps.prisma, clock: deps.clock, limits: config.limits, logger: deps.logger });
  const counts = countCache(deps.prisma, deps.versions, deps.listing ?? listingKeeper(deps.pool, deps.versions, deps.logger));
  return { session, fetcher, quotas, submissions, automation, guards, counts };
}

/** The two JSON edges: the API under /api, the MCP server under /mcp. */
function mountJsonEdges(app: Express, deps: AppDeps, front: FrontStack, shared: SharedDeps): void {
  const { config } = deps;
  app.use(
    '/api',
    front.apiHeaders,
    apiRouter({
      baseUrl: config.baseUrl,
      dataDir: config.dataDir,
      origin: config.origin,
      prisma: deps.prisma,
      pool: deps.pool,
      clock: deps.clock,
      limits: config.limits,
      session: shared.session,
      quotas: shared.quotas,
      responses: front.responses,
      compress: front.compress,
      guards: shared.guards,
      submissions: shared.submissions,
      automation: shared.automation,
      fetcher: shared.fetcher,
      counts: shared.counts,
    }),
  );

  // The same services for MCP clients (Streamable HTTP, stateless), behind the same guards.
  app.use(
    '/mcp',
    front.apiHeaders,
    mcpRouter({
      baseUrl: config.baseUrl,
      prisma: deps.prisma,
      pool: deps.pool,
      clock: deps.clock,
      limits: config.limits,
      quotas: shared.quotas,
      guards: shared.guards,
      logger: deps.logger,
      submissions: shared.submissions,
      automation: shared.automation,
      counts: shared.counts,
    }),
  );
}

/** What follows the JSON edges, before the pages: the metrics, the page headers, open data, static files, health. */
function mountOutsideApi(app: Express, deps: AppDeps, front: FrontStack, shared: SharedDeps): void {
  const { config } = deps;
  // Outside /api: no public limiter, no response cache.
  app.use(metricsRouter(front.metrics, config.metricsToken, [front.apiHeaders, front.compress]));
  app.use(front.pageHeaders);
  app.use(
    openDataRouter({
      baseUrl: config.baseUrl,
      dataDir: config.dataDir,
      prisma: deps.prisma,
      clock: deps.clock,
      limiter: shared.guards.publicLimiter,
      responses: front.responses,
    }),
  );
  app.use('/static', front.compress, express.static(path.join(projectRoot, 'public'), { maxAge: '1h', index: false }));
  app.use(healthRouter(deps.pool));
}

/** The HTML pages, with the mailer their sign-in links and decision notices go through. */
function mountPages(app: Express, deps: AppDeps, front: FrontStack, shared: SharedDeps): void {
  const { config, logger } = deps;
  const mailer =
    deps.mailer ?? createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, dataDir: config.dataDir, logger });
  // Every moderation decision through this app's database client e-mails the report's author.
  registerDecisionNotices(deps.prisma, { mailer, baseUrl: config.baseUrl, logger, clock: deps.clock });
  app.use(
    pagesRouter({
      config,
      mcp: { tools: TOOLS, maxBodyBytes: MCP_MAX_BODY_BYTES },
      prisma: deps.prisma,
      pool: deps.pool,
      clock: deps.clock,
      mailer,
      session: shared.session,
      quotas: shared.quotas,
      responses: front.responses,
      fetcher: shared.fetcher,
      counts: shared.counts,
    }),
  );
}
