// The HTML side: sessions, forms with CSRF tokens and the Origin rule, server-rendered pages.
import express, { Router, type RequestHandler } from 'express';
import type pg from 'pg';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config/env.js';
import type { PrismaClient } from '../../db/client.js';
import type { Mailer } from '../../mail/mailer.js';
import multer from 'multer';
import { signInPages } from '../../modules/accounts/sign-in.pages.js';
import { MAX_SCREENSHOT_BYTES, MAX_SCREENSHOTS } from '../../modules/evidence/screenshots.js';
import { reportFormPages } from '../../modules/reports/report-form.pages.js';
import type { Quota } from '../../modules/limits/quota.js';
import { keysPages } from '../../modules/keys/keys.pages.js';
import { directoryPages, layoutLocals } from '../../modules/directory-pages/directory.pages.js';
import { adminPages } from '../../modules/admin/admin.pages.js';
import { loadSessionAccount } from '../middleware/auth.js';
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
  // Multipart forms (screenshots) are parsed before the CSRF check, which needs their fields.
  // Upload limits become a form error, not a failed request.
  const upload = multer({
    storage: multer.memoryStorage(),
    limits: { fileSize: MAX_SCREENSHOT_BYTES, files: MAX_SCREENSHOTS, fields: 50, fieldSize: 16_384 },
  }).fields([{ name: 'screenshots', maxCount: MAX_SCREENSHOTS }]);
  router.use((req, res, next) => {
    if (!req.is('multipart/form-data')) return next();
    upload(req, res, (error?: unknown) => {
      if (error instanceof multer.MulterError) {
        res.locals.uploadError =
          error.code === 'LIMIT_FILE_SIZE'
            ? 'Each screenshot must be at most 5 MB.'
            : error.code === 'LIMIT_FILE_COUNT' || error.code === 'LIMIT_UNEXPECTED_FILE'
              ? `Attach at most ${MAX_SCREENSHOTS} screenshots.`
              : 'The upload could not be read.';
        req.body ??= {};
        return next();
      }
      next(error);
    });
  });
  // Every form post: our origin, and the session's CSRF token.
  router.use((req, res, next) => {
    if (!STATE_CHANGING.has(req.method)) return next();
    sameOrigin(req, res, (error?: unknown) => (error ? next(error) : verifyCsrfToken(req, res, next)));
  });

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
  router.use('/admin', adminPages({ prisma: deps.prisma, clock: deps.clock, baseUrl: config.baseUrl, dataDir: config.dataDir }));
  return router;
}
