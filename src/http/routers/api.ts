// The JSON API, mounted at /api. Each audience (public, contribution, automation) mounts
// its router under /v1 here; everything unknown under /api is a problem+json 404, and every
// error below becomes problem+json.
import { Router, type RequestHandler } from 'express';
import type { PrismaClient } from '../../db/client.js';
import type { Clock } from '../../clock.js';
import { apiNotFound, problemErrorHandler } from '../middleware/errors.js';
import type { Config } from '../../config/env.js';
import { publicRouter } from './public.js';
import { contributionRouter } from './contribution.js';
import { automationRouter } from './automation.js';
import { cursorCodec } from '../../modules/automation/cursor.js';
import type { Quota } from '../../modules/limits/quota.js';
import { openApiRouter } from './openapi.js';
import type { ApiGuards } from '../middleware/guards.js';
import type { ResponseCache } from '../middleware/response-cache.js';

export interface ApiDeps {
  baseUrl: string;
  origin: string;
  prisma: PrismaClient;
  clock: Clock;
  limits: Config['limits'];
  session: RequestHandler;
  quotas: { browser: Quota; agent: Quota };
  responses: ResponseCache;
  /** Compression, for the answers the response cache does not serve. */
  compress: RequestHandler;
  guards: ApiGuards;
  /** Signs pagination cursors. */
  cursorSecret: string;
}

export function apiRouter(deps: ApiDeps): Router {
  const router = Router();
  router.use('/v1', openApiRouter(deps));
  router.use('/v1/automation', deps.compress);
  const { publicLimiter, privateLimiters, bearer } = deps.guards;
  const submissions = {
    prisma: deps.prisma,
    baseUrl: deps.baseUrl,
    browserQuota: deps.quotas.browser,
    agentQuota: deps.quotas.agent,
  };
  router.use(
    '/v1',
    contributionRouter({ ...submissions, clock: deps.clock, origin: deps.origin, session: deps.session, privateLimiters, bearer }),
  );
  router.use(
    '/v1/automation',
    automationRouter({
      prisma: deps.prisma,
      baseUrl: deps.baseUrl,
      clock: deps.clock,
      privateLimiters,
      bearer,
      agentQuota: deps.quotas.agent,
      queueCursors: cursorCodec(deps.cursorSecret, 'queue'),
      reportCursors: cursorCodec(deps.cursorSecret, 'own-reports'),
    }),
  );
  router.use('/v1', publicRouter({ ...deps, limiter: publicLimiter, cache: deps.responses.middleware({ limiter: publicLimiter }) }));
  router.use(apiNotFound);
  router.use(problemErrorHandler());
  return router;
}
