// The HTML side: sessions, forms with CSRF tokens and the Origin rule, server-rendered pages.
// Reads as an index of the pages: every route with its guards; the handlers live in their
// feature's module. The moderators' pages are listed in ./admin.ts.
import express, { Router, type RequestHandler } from 'express';
import type pg from 'pg';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config/env.js';
import type { PrismaClient } from '../../db/client.js';
import type { Mailer } from '../../mail/mailer.js';
import { sendSignInLink, SIGNED_OUT_PATH, signedOutPage, signInAddressLimit, signInClientLimit, signInPage, type SignInPageDeps, signOut, verifySignIn } from '../../modules/accounts/sign-in.pages.js';
import { keyIssuePost, keyReplacePost, keyRevokePost, KEYS_PAGE_PATH, keysPage, type KeysPageDeps } from '../../modules/keys/keys.pages.js';
import type { Quota } from '../../modules/limits/quota.js';
import { MY_REPORTS_PATH, myReportsPage, NOTIFICATIONS_PATH, notificationsPost } from '../../modules/reports/my-reports.pages.js';
import { editReportPage, editReportPost, reportReviewPage, reportScreenshot } from '../../modules/reports/own-report.pages.js';
import { newReportPage, newReportPost, type ReportFormDeps } from '../../modules/reports/report-form.pages.js';
import { agentGuidePage, agentGuideReferencePage, browserCachedPage, favicon, howItWorksPage, problemPage, problemsPage, type SitePagesDeps } from '../../modules/site/site.pages.js';
import { agentPage, categoryPage, directoryPage } from '../../modules/site/directory.pages.js';
import { merchantPage } from '../../modules/site/merchant.pages.js';
import type { McpFacts } from '../../modules/site/agent-guide.js';
import {
  claimCheckPost,
  claimPage,
  claimStartPage,
  claimStartPost,
  type ClaimPagesDeps,
  correctionPost,
  digestPost,
  OWNER_PAGE_PATH,
  ownerPage,
  replyPage,
  replyPost,
  statementPost,
} from '../../modules/claims/claims.pages.js';
import type { Fetcher } from '../../outbound/fetcher.js';
import { loadSessionAccount, requireSignedInForm, requireSignedInPage } from '../../web/middleware/auth.js';
import { provideCsrfToken, verifyCsrfToken } from '../../web/middleware/csrf.js';
import { guardFormPosts } from '../../web/middleware/form-posts.js';
import { layoutLocals } from '../../web/middleware/layout.js';
import { moderationLink } from '../../web/middleware/moderation-link.js';
import { clientAddress, createLimiter, type SyncedLimiter } from '../../web/middleware/rate-limit.js';
import type { CountCache } from '../../modules/directory/counts.js';
import type { ResponseCache } from '../../web/middleware/response-cache.js';
import { screenshotUploads } from '../../web/middleware/uploads.js';
import { adminRouter } from './admin.js';
import { PAGE_PATHS } from '../../paths.js';

export interface PagesDeps {
  config: Config;
  /** What the agent guide prints about the MCP server. */
  mcp: McpFacts;
  prisma: PrismaClient;
  pool: pg.Pool;
  clock: Clock;
  mailer: Mailer;
  session: RequestHandler;
  /** The same quotas as the contribution API: browser submissions are shared by both. */
  quotas: { browser: Quota; agent: Quota };
  responses: ResponseCache;
  /** The one SSRF-safe fetcher: claim checks. */
  fetcher: Fetcher;
  /** The directory lists' totals, cached per directory version. */
  counts: CountCache;
}

/** The form posts that take files (multipart): the contribution form and the author's edit form. */
const UPLOAD_PATHS = { has: (path: string) => path === PAGE_PATHS.newReport || /^\/reports\/[^/]+\/edit$/.test(path) };

export function pagesRouter(deps: PagesDeps): Router {
  const { config, prisma, clock } = deps;
  const router = Router();
  mountPageStack(router, deps);
  // Screenshots are streamed to DATA_DIR/uploads while they arrive, on the two routes taking them.
  const screenshotUpload = screenshotUploads(config.dataDir);

  mountPublicSite(router, { config, prisma, clock, mcp: deps.mcp, counts: deps.counts });
  const signIn = {
    prisma,
    pool: deps.pool,
    clock,
    mailer: deps.mailer,
    baseUrl: config.baseUrl,
    moderatorEmails: config.moderatorEmails,
    limits: config.limits,
  };
  mountSignIn(router, signIn);
  mountKeys(router, { prisma, clock, baseUrl: config.baseUrl });
  const reports = {
    prisma,
    clock,
    baseUrl: config.baseUrl,
    dataDir: config.dataDir,
    browserQuota: deps.quotas.browser,
    agentQuota: deps.quotas.agent,
    addressSecret: config.sessionSecret,
  };
  mountReports(router, reports, screenshotUpload);
  mountOwners(router, { prisma, clock, baseUrl: config.baseUrl, fetcher: deps.fetcher });

  // The moderators' pages (/moderation is the name people guess for them).
  router.get('/moderation', (_req, res) => res.redirect(302, '/admin'));
  router.use('/admin', adminRouter({ prisma, clock, dataDir: config.dataDir }));
  return router;
}

/** What every page passes through before its route: the layout, the rate limit, the shared cache, the session, the form rules. */
function mountPageStack(router: Router, deps: PagesDeps): void {
  const { config, prisma } = deps;
  router.use(layoutLocals);
  const limiter = pageLimiter(deps);
  router.use(limiter);
  // Anonymous visitors share the pages (no cookie, so nothing personal in them), answered from
  // memory before any session work; everyone else's are built for them (and compressed).
  router.use(deps.responses.middleware({ anonymousOnly: true, limiter }));
  router.use(deps.session, loadSessionAccount(prisma), moderationLink(prisma), provideCsrfToken);
  router.use(express.urlencoded({ extended: false, limit: '64kb' }));
  router.use(guardFormPosts(config.origin, UPLOAD_PATHS));
}

/**
 * Every page counts against the client address's budget: the public API's rate, on a
 * counter of its own; refused requests get the error page in the site's layout.
 */
function pageLimiter(deps: PagesDeps): SyncedLimiter {
  const { config } = deps;
  return createLimiter({
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
}

/** The public site. */
function mountPublicSite(router: Router, site: SitePagesDeps): void {
  router.get(['/favicon.ico', '/favicon.svg'], favicon);
  router.get('/', browserCachedPage, directoryPage(site));
  router.get('/categories/:slug', browserCachedPage, categoryPage(site));
  router.get('/agents/:slug', browserCachedPage, agentPage(site));
  router.get('/merchants/:slug', browserCachedPage, merchantPage(site));
  router.get(PAGE_PATHS.howItWorks, browserCachedPage, howItWorksPage(site));
  router.get(PAGE_PATHS.agentGuide, agentGuidePage(site));
  router.get(PAGE_PATHS.agentGuideReference, agentGuideReferencePage(site));
  router.get('/problems', browserCachedPage, problemsPage(site));
  router.get('/problems/:code', browserCachedPage, problemPage(site));
}

/** Signing in and out. */
function mountSignIn(router: Router, signIn: SignInPageDeps): void {
  router.get(PAGE_PATHS.signIn, signInPage(signIn));
  router.post(PAGE_PATHS.signIn, signInClientLimit(signIn), signInAddressLimit(signIn), sendSignInLink(signIn));
  router.get(PAGE_PATHS.signInVerify, verifySignIn(signIn));
  router.post('/sign-out', signOut);
  router.get(SIGNED_OUT_PATH, signedOutPage);
}

/** Agent keys. */
function mountKeys(router: Router, keys: KeysPageDeps): void {
  router.get(KEYS_PAGE_PATH, requireSignedInPage, keysPage(keys));
  router.post(`${KEYS_PAGE_PATH}/keys`, requireSignedInForm(KEYS_PAGE_PATH), keyIssuePost(keys));
  router.post(`${KEYS_PAGE_PATH}/keys/:id/revoke`, requireSignedInForm(KEYS_PAGE_PATH), keyRevokePost(keys));
  router.post(`${KEYS_PAGE_PATH}/keys/:id/replace`, requireSignedInForm(KEYS_PAGE_PATH), keyReplacePost(keys));
}

/** Reports: contributing one, and the author's own. */
function mountReports(router: Router, reports: ReportFormDeps, screenshotUpload: RequestHandler): void {
  // Contributing a report. The form takes screenshots, so its token is checked after the
  // multipart body is read. Its POST is also the merchant search without JavaScript.
  router.get(PAGE_PATHS.newReport, requireSignedInPage, newReportPage(reports));
  router.post(PAGE_PATHS.newReport, requireSignedInPage, screenshotUpload, verifyCsrfToken, newReportPost(reports));

  // The author's own reports: the list, one report, its screenshots, changing it (as the API's PUT).
  const { prisma } = reports;
  router.get(MY_REPORTS_PATH, requireSignedInPage, myReportsPage({ prisma }));
  router.post(NOTIFICATIONS_PATH, requireSignedInForm(MY_REPORTS_PATH), notificationsPost({ prisma }));
  router.get('/reports', (_req, res) => res.redirect(302, MY_REPORTS_PATH));
  router.get('/reports/:id/review', requireSignedInPage, reportReviewPage(reports));
  router.get('/reports/:id/screenshots/:screenshotId', requireSignedInPage, reportScreenshot(reports));
  router.get('/reports/:id/edit', requireSignedInPage, editReportPage(reports));
  router.post('/reports/:id/edit', requireSignedInForm(MY_REPORTS_PATH), screenshotUpload, verifyCsrfToken, editReportPost(reports));
}

/** Owners: claims of a shop's or an agent vendor's website, and what a verified one allows. */
function mountOwners(router: Router, owners: ClaimPagesDeps): void {
  router.get('/claims/new', requireSignedInPage, claimStartPage(owners));
  router.post('/claims', requireSignedInForm(OWNER_PAGE_PATH), claimStartPost(owners));
  router.get('/claims/:id', requireSignedInPage, claimPage(owners));
  router.post('/claims/:id/check', requireSignedInForm(OWNER_PAGE_PATH), claimCheckPost(owners));
  router.get(OWNER_PAGE_PATH, requireSignedInPage, ownerPage(owners));
  router.post(`${OWNER_PAGE_PATH}/digest`, requireSignedInForm(OWNER_PAGE_PATH), digestPost(owners));
  router.post(`${OWNER_PAGE_PATH}/:id/statement`, requireSignedInForm(OWNER_PAGE_PATH), statementPost(owners));
  router.post(`${OWNER_PAGE_PATH}/:id/correction`, requireSignedInForm(OWNER_PAGE_PATH), correctionPost(owners));
  router.get(`${OWNER_PAGE_PATH}/:id/reports`, requireSignedInPage, replyPage(owners));
  router.post(`${OWNER_PAGE_PATH}/:id/reports/:reportId/reply`, requireSignedInForm(OWNER_PAGE_PATH), replyPost(owners));
}
