// Private automation API (spec 4.3): bearer keys only; every answer concerns the key's
// account and agent and is never stored by a shared cache.
import { Router, type Request, type RequestHandler } from 'express';
import type { Clock } from '../../clock.js';
import { ownReportsQuery, queueQuery, type OwnReportsQuery, type QueueQuery } from '../../modules/automation/automation.schemas.js';
import {
  ownReportById,
  ownReports,
  queue,
  replaceReport,
  whoami,
  type AutomationDeps,
  type KeyScope,
} from '../../modules/automation/automation.service.js';
import { notice } from '../../modules/directory/notice.js';
import { reportReplacement, type ReportReplacement } from '../../modules/reports/submission.schema.js';
import { parseJson, requireJson, validateBody } from '../middleware/body.js';
import { refuseKeyInQuery } from '../middleware/key-in-query.js';
import { validateQuery } from '../middleware/validate.js';
import { appendRateLimitHeaders } from '../problem.js';

export interface AutomationRouterDeps extends AutomationDeps {
  clock: Clock;
  privateLimiters: RequestHandler[];
  /** Agent-key authentication (http/middleware/bearer.ts). */
  bearer: RequestHandler;
}

const privateResponse: RequestHandler = (_req, res, next) => {
  res.set({ 'Cache-Control': 'no-store', Vary: 'Authorization' });
  next();
};

/** A report's version, as its ETag and If-Match name it: the quoted updatedAt. */
export const versionTag = (updatedAt: string) => `"${updatedAt}"`;

export function automationRouter(deps: AutomationRouterDeps): Router {
  const router = Router();
  router.use(privateResponse, refuseKeyInQuery, deps.bearer, ...deps.privateLimiters);
  const scope = (res: { locals: { agentKey?: KeyScope } }): KeyScope => {
    const key = res.locals.agentKey!;
    return { accountId: key.accountId, agentId: key.agentId };
  };

  router.get('/me', async (_req, res) => {
    const key = res.locals.agentKey!;
    res.json(await whoami(deps, { ...scope(res), keyId: key.keyId }, res.locals.rateLimits ?? []));
  });

  router.get('/queue', validateQuery(queueQuery), async (_req, res) => {
    res.json(await queue(deps, scope(res), res.locals.query as QueueQuery, deps.clock.now()));
  });

  router.get('/reports', validateQuery(ownReportsQuery), async (_req, res) => {
    res.json(await ownReports(deps, scope(res), res.locals.query as OwnReportsQuery));
  });

  router.get('/reports/:id', async (req: Request<{ id: string }>, res) => {
    const report = await ownReportById(deps, scope(res), req.params.id);
    // The version to send back as If-Match.
    res.set('ETag', versionTag(report.updatedAt)).json(report);
  });

  router.put('/reports/:id', requireJson, parseJson, validateBody(reportReplacement), async (req: Request<{ id: string }>, res) => {
    const { usage, ...result } = await replaceReport(deps, scope(res), {
      id: req.params.id,
      ifMatch: req.get('if-match'),
      body: res.locals.body as ReportReplacement,
      now: deps.clock.now(),
    });
    if (usage) appendRateLimitHeaders(res, usage);
    res.set('ETag', versionTag(result.updatedAt)).json({ ...result, ...notice(deps) });
  });

  return router;
}
