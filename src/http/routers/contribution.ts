// Contribution API (spec 4.2): POST /api/v1/reports with a signed-in browser session (same
// origin) or a bearer agent key.
import { Router, type RequestHandler, type Response } from 'express';
import type { Clock } from '../../clock.js';
import type { PrismaClient } from '../../db/client.js';
import { reportSubmission, type ReportSubmission } from '../../modules/reports/submission.schema.js';
import {
  reviewUrl,
  submitReport,
  validateSubmission,
  validationView,
  type SubmissionDeps,
  type Submitter,
} from '../../modules/reports/submissions.service.js';
import { notice, ownReportApiUrl } from '../../modules/directory/notice.js';
import { versionTag } from '../../modules/reports/versions.js';
import { loadSessionAccount } from '../../web/middleware/auth.js';
import { hasBearer } from '../../web/middleware/bearer.js';
import { parseJson, requireJson, validateBody } from '../../web/middleware/body.js';
import { refuseKeyInQuery } from '../../web/middleware/key-in-query.js';
import { requireSameOrigin } from '../../web/middleware/origin.js';
import { hasSessionCookie } from '../../web/middleware/session.js';
import { appendRateLimitHeaders, HttpProblem } from '../../web/problem.js';
import { cacheControl } from '../../web/cache-control.js';

export interface ContributionDeps extends SubmissionDeps {
  prisma: PrismaClient;
  clock: Clock;
  origin: string;
  session: RequestHandler;
  /** The address's budget, the key, the account's budget (web/middleware/guards.ts). */
  privateGate: RequestHandler[];
  /** The address's private budget alone, for requests that bring no credentials. */
  privateAddressLimiter: RequestHandler;
}

const noStore: RequestHandler = (_req, res, next) => {
  cacheControl(res, 'no-store');
  next();
};

/** Bearer key, or else a signed-in browser session from our own origin. */
const requireContributor: RequestHandler = (_req, res, next) => {
  const account = res.locals.account;
  if (!account) {
    throw new HttpProblem({
      status: 401,
      code: 'unauthenticated',
      title: 'Sign-in required',
      detail: 'Sign in at /sign-in, or send an agent key as Authorization: Bearer <key>. Do not retry without one.',
      headers: { 'WWW-Authenticate': 'Bearer realm="agent-compatibility-directory"' },
    });
  }
  if (account.suspended) {
    throw new HttpProblem({
      status: 403,
      code: 'account-suspended',
      title: 'Account suspended',
      detail: 'This account is suspended and cannot contribute. Do not retry.',
    });
  }
  next();
};

const missingCredentials: RequestHandler = () => {
  throw new HttpProblem({
    status: 401,
    code: 'missing-credentials',
    title: 'Credentials required',
    detail:
      'Send an agent key as "Authorization: Bearer <key>", or post from a signed-in browser session on this site. Stop retrying until one is configured.',
    headers: { 'WWW-Authenticate': 'Bearer realm="agent-compatibility-directory"' },
  });
};

/** Bearer key (with the private limits), or else a signed-in browser session from our own origin. */
function authenticate(deps: ContributionDeps): RequestHandler {
  // A router used as middleware runs its stack, then hands on to what follows.
  const viaBearer = Router().use(...deps.privateGate);
  const anonymous = Router().use(deps.privateAddressLimiter, missingCredentials);
  const viaSession = Router().use(
    requireSameOrigin(deps.origin),
    deps.session,
    loadSessionAccount(deps.prisma),
    requireContributor,
  );
  return (req, res, next) => {
    if (hasBearer(req)) return viaBearer(req, res, next);
    // Neither a key nor a session: say what is missing, before any word about the Origin.
    if (!hasSessionCookie(req)) return anonymous(req, res, next);
    viaSession(req, res, next);
  };
}

export function contributionRouter(deps: ContributionDeps): Router {
  const router = Router();

  // The same way in for the submission and its dry run: what one refuses, the other refuses.
  const accepting = [noStore, refuseKeyInQuery, authenticate(deps), requireJson, parseJson, validateBody(reportSubmission)];
  const submitterOf = (res: Response): Submitter => {
    const key = res.locals.agentKey;
    const address = res.req.ip;
    return key
      ? { channel: 'AGENT_KEY', accountId: key.accountId, agentId: key.agentId, address }
      : { channel: 'BROWSER', accountId: res.locals.account!.id, address };
  };

  // The dry run: every check of POST /reports, nothing written, no submission quota used (the
  // request budgets of the way in are counted as for any request).
  router.post('/reports/validate', ...accepting, async (_req, res) => {
    const result = await validateSubmission(deps, res.locals.body as ReportSubmission, submitterOf(res), deps.clock.now());
    res.json({ ...validationView(deps, result), ...notice(deps) });
  });

  router.post(
    '/reports',
    ...accepting,
    async (_req, res) => {
      const body = res.locals.body as ReportSubmission;
      const submitter = submitterOf(res);
      const result = await submitReport(deps, body, submitter, deps.clock.now());
      if (result.kind === 'created') appendRateLimitHeaders(res, result.usage);
      const { report } = result;
      const bearer = submitter.channel === 'AGENT_KEY';
      const review = reviewUrl(deps.baseUrl, report.id);
      // For a key the report's resource is the automation API's; a person reads the review page.
      const resource = bearer ? ownReportApiUrl(deps, report.id) : review;
      const answer = {
        id: report.id,
        status: report.status,
        reviewUrl: review,
        ...(bearer ? { updatedAt: report.updatedAt.toISOString(), url: resource } : {}),
        ...(bearer || result.kind === 'unchanged' ? { unchanged: result.kind === 'unchanged' } : {}),
        ...notice(deps),
      };
      if (result.kind === 'created') res.status(201).location(resource);
      res.set('ETag', versionTag(report.updatedAt.toISOString())).json(answer);
    },
  );

  return router;
}
