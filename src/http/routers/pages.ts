// The HTML side: sessions, forms with CSRF tokens and the Origin rule, server-rendered pages.
import express, { Router, type RequestHandler } from 'express';
import type pg from 'pg';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config/env.js';
import type { PrismaClient } from '../../db/client.js';
import type { Mailer } from '../../mail/mailer.js';
import { signInPages } from '../../modules/accounts/sign-in.pages.js';
import { keysPages } from '../../modules/keys/keys.pages.js';
import { loadSessionAccount } from '../middleware/auth.js';
import { provideCsrfToken, verifyCsrfToken } from '../middleware/csrf.js';
import { requireSameOrigin } from '../middleware/origin.js';

export interface PagesDeps {
  config: Config;
  prisma: PrismaClient;
  pool: pg.Pool;
  clock: Clock;
  mailer: Mailer;
  session: RequestHandler;
}

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function pagesRouter(deps: PagesDeps): Router {
  const { config } = deps;
  const router = Router();
  const sameOrigin = requireSameOrigin(config.origin);

  router.use(deps.session, loadSessionAccount(deps.prisma), provideCsrfToken);
  router.use(express.urlencoded({ extended: false, limit: '64kb' }));
  // Every form post: our origin, and the session's CSRF token.
  router.use((req, res, next) => {
    if (!STATE_CHANGING.has(req.method)) return next();
    sameOrigin(req, res, (error?: unknown) => (error ? next(error) : verifyCsrfToken(req, res, next)));
  });

  router.use(
    signInPages({
      prisma: deps.prisma,
      pool: deps.pool,
      clock: deps.clock,
      mailer: deps.mailer,
      baseUrl: config.baseUrl,
      moderatorEmails: config.moderatorEmails,
      limits: config.limits,
    }),
  );
  router.use(keysPages({ prisma: deps.prisma, clock: deps.clock, baseUrl: config.baseUrl }));
  return router;
}
