// The JSON API, mounted at /api. Each audience (public, contribution, automation) mounts
// its router under /v1 here; everything unknown under /api is a problem+json 404, and every
// error below becomes problem+json.
import cors from 'cors';
import { Router, type RequestHandler } from 'express';
import type pg from 'pg';
import type { PrismaClient } from '../../db/client.js';
import type { Clock } from '../../clock.js';
import { apiNotFound, problemErrorHandler } from '../../web/middleware/errors.js';
import type { Config } from '../../config/env.js';
import { publicRouter } from './public.js';
import { contributionRouter } from './contribution.js';
import { automationRouter } from './automation.js';
import { ownersRouter } from './owners.js';
import type { Fetcher } from '../../outbound/fetcher.js';
import type { AutomationDeps } from '../../modules/automation/automation.service.js';
import type { SubmissionDeps } from '../../modules/reports/submissions.service.js';
import type { Quota } from '../../modules/limits/quota.js';
import { openApiRouter } from './openapi.js';
import { methodTable, type Mounts } from '../../web/middleware/methods.js';
import type { ApiGuards } from '../../web/middleware/guards.js';
import type { CountCache } from '../../modules/directory/counts.js';
import type { ResponseCache } from '../../web/middleware/response-cache.js';

export interface ApiDeps {
  baseUrl: string;
  origin: string;
  prisma: PrismaClient;
  pool: pg.Pool;
  clock: Clock;
  limits: Config['limits'];
  session: RequestHandler;
  quotas: { browser: Quota; agent: Quota };
  responses: ResponseCache;
  /** Compression, for the answers the response cache does not serve. */
  compress: RequestHandler;
  guards: ApiGuards;
  /** The contribution and automation services' own dependencies, built once by app.ts for both edges. */
  submissions: SubmissionDeps;
  automation: AutomationDeps;
  /** DATA_DIR (the index links the newest open-data dump once one exists). */
  dataDir: string;
  /** The one SSRF-safe fetcher (claim checks). */
  fetcher: Fetcher;
  counts: CountCache;
}

/**
 * Any origin may call the API from a browser (CORS `*`, never credentials): public reads are
 * public, and the private routes take a bearer key, which a browser does not send on its own, so
 * another site cannot act with someone's credentials. The browser-session POST stays guarded by
 * the Origin rule, and without Allow-Credentials no browser sends cookies cross-origin.
 */
const crossOrigin = cors({
  origin: '*',
  methods: ['GET', 'HEAD', 'POST', 'PUT'],
  allowedHeaders: ['Authorization', 'Content-Type', 'If-Match', 'If-None-Match'],
  exposedHeaders: ['ETag', 'Location', 'Link', 'Retry-After', 'RateLimit', 'RateLimit-Policy', 'WWW-Authenticate'],
  maxAge: 600,
  // The method table answers the preflight (204 with Allow) on addresses that exist.
  preflightContinue: true,
});

export function apiRouter(deps: ApiDeps): Router {
  const { publicLimiter, privateGate, privateAddressLimiter } = deps.guards;
  const mounts: Mounts = [
    ['/v1', openApiRouter(deps)],
    ['/v1', contributionRouter({ ...deps.submissions, clock: deps.clock, origin: deps.origin, session: deps.session, privateGate, privateAddressLimiter })],
    [
      '/v1',
      ownersRouter({ prisma: deps.prisma, clock: deps.clock, baseUrl: deps.baseUrl, origin: deps.origin, session: deps.session, fetcher: deps.fetcher, privateAddressLimiter }),
    ],
    [
      '/v1/automation',
      automationRouter({ ...deps.automation, clock: deps.clock, privateGate }),
    ],
    ['/v1', publicRouter({ ...deps, limiter: publicLimiter, cache: deps.responses.middleware({ limiter: publicLimiter }) })],
  ];
  const methods = methodTable(mounts);

  const router = Router();
  router.use(crossOrigin, methods.options);
  router.use('/v1/automation', deps.compress);
  for (const [prefix, mounted] of mounts) router.use(prefix, mounted);
  router.use(methods.notAllowed);
  router.use(apiNotFound);
  router.use(problemErrorHandler());
  return router;
}
