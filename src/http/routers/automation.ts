// Private automation API (spec 4.3): bearer keys only; every answer concerns the key's
// account and agent and is never stored by a shared cache.
import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { Clock } from '../../clock.js';
import { ownReportsQuery, queueQuery, type OwnReportsQuery, type QueueQuery } from '../../modules/automation/automation.schemas.js';
import {
  ownReportById,
  ownReports,
  queue,
  replaceReport,
  validateUpdate,
  whoami,
  type AutomationDeps,
  type KeyScope,
} from '../../modules/automation/automation.service.js';
import { notice } from '../../modules/directory/notice.js';
import { reportReplacement, type ReportReplacement } from '../../modules/reports/submission.schema.js';
import { validationView } from '../../modules/reports/submissions.service.js';
import { parseJson, requireJson, validateBody } from '../../web/middleware/body.js';
import { refuseKeyInQuery } from '../../web/middleware/key-in-query.js';
import { validateQuery } from '../../web/middleware/validate.js';
import { appendRateLimitHeaders } from '../../web/problem.js';
import { cursorLink } from '../../web/links.js';
import { cacheControl } from '../../web/cache-control.js';
import { versionTag } from '../../modules/reports/versions.js';

export interface AutomationRouterDeps extends AutomationDeps {
  clock: Clock;
  /** The address's budget, the key, the account's budget (web/middleware/guards.ts). */
  privateGate: RequestHandler[];
}

const privateResponse: RequestHandler = (_req, res, next) => {
  cacheControl(res, 'no-store').set('Vary', 'Authorization');
  next();
};

export function automationRouter(deps: AutomationRouterDeps): Router {
  const router = Router();
  router.use(privateResponse, refuseKeyInQuery, ...deps.privateGate);
  const scope = (res: { locals: { agentKey?: KeyScope } }): KeyScope => {
    const key = res.locals.agentKey!;
    return { accountId: key.accountId, agentId: key.agentId };
  };

  router.get('/me', async (_req, res) => {
    const key = res.locals.agentKey!;
    res.json({ ...(await whoami(deps, { ...scope(res), keyId: key.keyId }, res.locals.rateLimits ?? [])), ...notice(deps) });
  });

  // A page of a cursor-paged list, with the link to the next one.
  const sendPage = (req: Request, res: Response, page: { nextCursor: string | null }) => {
    const next = cursorLink(deps.baseUrl, req, page.nextCursor);
    if (next) res.set('Link', next);
    res.json({ ...page, ...notice(deps) });
  };

  router.get('/queue', validateQuery(queueQuery), async (req, res) => {
    sendPage(req, res, await queue(deps, scope(res), res.locals.query as QueueQuery, deps.clock.now()));
  });

  router.get('/reports', validateQuery(ownReportsQuery), async (req, res) => {
    sendPage(req, res, await ownReports(deps, scope(res), res.locals.query as OwnReportsQuery));
  });

  router.get('/reports/:id', async (req: Request<{ id: string }>, res) => {
    const report = await ownReportById(deps, scope(res), req.params.id);
    // The version to send back as If-Match.
    res.set('ETag', versionTag(report.updatedAt)).json({ ...report, ...notice(deps) });
  });

  router.put('/reports/:id', requireJson, parseJson, validateBody(reportReplacement), async (req: Request<{ id: string }>, res) => {
    const { usage, ...result } = await replaceReport(deps, scope(res), {
      id: req.params.id,
      ifMatch: req.get('if-match'),
      body: res.locals.body as ReportReplacement,
      now: deps.clock.now(),
      address: req.ip,
    });
    if (usage) appendRateLimitHeaders(res, usage);
    res.set('ETag', versionTag(result.updatedAt)).json({ ...result, ...notice(deps) });
  });

  // The dry run of the PUT above: the same checks and problems, nothing written.
  router.post('/reports/:id/validate', requireJson, parseJson, validateBody(reportReplacement), async (req: Request<{ id: string }>, res) => {
    const result = await validateUpdate(deps, scope(res), {
      id: req.params.id,
      ifMatch: req.get('if-match'),
      body: res.locals.body as ReportReplacement,
      now: deps.clock.now(),
    });
    res.json({ ...validationView(deps, result), ...notice(deps) });
  });

  return router;
}
