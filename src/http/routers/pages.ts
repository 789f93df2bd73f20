// The HTML side: sessions, forms with CSRF tokens and the Origin rule, server-rendered pages.
import express, { Router, type RequestHandler } from 'express';
import type pg from 'pg';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config/env.js';
import type { PrismaClient } from '../../db/client.js';
import type { Mailer } from '../../mail/mailer.js';
import { signInPages } from '../../modules/accounts/sign-in.pages.js';
import { reportFormPages } from '../../modules/reports/report-form.pages.js';
import type { Quota } from '../../modules/limits/quota.js';
import { keysPages } from '../../modules/keys/keys.pages.js';
import { directoryPages, layoutLocals } from '../../modules/directory-pages/directory.pages.js';
import { loadSessionAccount, requireSignedInPage } from '../middleware/auth.js';
import { adminRouter } from './admin.js';
import { screenshotUpload } from '../middleware/uploads.js';
import { HttpProblem } from '../problem.js';
import { provideCsrfToken, verifyCsrfToken } from '../middleware/csrf.js';
import { requireSameOrigin } from '../middleware/origin.js';
import { clientAddress, createLimiter } from '../middleware/rate-limit.js';
import type { ResponseCache } from '../middleware/response-cache.js';

export interface PagesDeps {
  config: Config;
  prisma: PrismaClient;
  pool: pg.Pool;
  clock: Clock;
  mailer: Mailer;
  session: RequestHandler;
  /** The same quotas as the contribution API: browser submissions are shared by both. */
  quotas: { browser: Quota; agent: Quota };
  responses: ResponseCache;
}

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** The form posts that take files (multipart). */
const UPLOAD_PATHS = new Set(['/reports/new']);

export function pagesRouter(deps: PagesDeps): Router {
  const { config } = deps;
  const router = Router();
  const sameOrigin = requireSameOrigin(config.origin);

  router.use(layoutLocals);
  // Every page counts against the client address's budget: the public API's rate, on a
  // counter of its own; refused requests get the error page in the site's layout.
  const limiter = createLimiter({
      pool: deps.pool,
      clock: deps.clock,
      name: 'pages',
      limit: config.limits.publicPerMinute,
      windowMs: 60_000,
      keyGenerator: clientAddress,
      counting: 'synced',
      onLimited: (_req, res, retryAfter) => {
        res.status(429).render('errors/error', {
          title: 'Too many requests',
          detail: `This address has asked for more than ${config.limits.publicPerMinute} pages in a minute. Try again in ${retryAfter} seconds.`,
        });
      },
    });
  router.use(limiter);
  // Anonymous visitors share the pages (no cookie, so nothing personal in them), answered from
  // memory before any session work; everyone else's are built for them (and compressed).
  router.use(deps.responses.middleware({ anonymousOnly: true, limiter }));
  router.use(deps.session, loadSessionAccount(deps.prisma), provideCsrfToken);
  router.use(express.urlencoded({ extended: false, limit: '64kb' }));
  // Every form post: our origin, and the session's CSRF token. Only the routes that take files
  // read multipart bodies (parsed there, then checked); anywhere else one is refused unread.
  router.use((req, res, next) => {
    if (!STATE_CHANGING.has(req.method)) return next();
    sameOrigin(req, res, (error?: unknown) => {
      if (error) return next(error);
      if (!req.is('multipart/form-data')) return verifyCsrfToken(req, res, next);
      if (req.method === 'POST' && UPLOAD_PATHS.has(req.path)) return next();
      next(
        new HttpProblem({
          status: 415,
          code: 'unsupported-media-type',
          title: 'Unsupported form encoding',
          detail: 'This form takes no files: send it as an ordinary form.',
        }),
      );
    });
  });
  router.post('/reports/new', requireSignedInPage, screenshotUpload, verifyCsrfToken);

  router.use(directoryPages({ config, prisma: deps.prisma, clock: deps.clock }));
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
  router.use(
    reportFormPages({
      prisma: deps.prisma,
      clock: deps.clock,
      baseUrl: config.baseUrl,
      dataDir: config.dataDir,
      browserQuota: deps.quotas.browser,
      agentQuota: deps.quotas.agent,
    }),
  );
  router.use('/admin', adminRouter({ prisma: deps.prisma, clock: deps.clock, dataDir: config.dataDir }));
  return router;
}
