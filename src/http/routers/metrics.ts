// Prometheus metrics for the operator's monitoring, never for the public: without METRICS_TOKEN
// nobody may read them (404, as if there were nothing), with it only a request bearing it.
import { createHash, timingSafeEqual } from 'node:crypto';
import { Router, type RequestHandler } from 'express';
import { sendProblem } from '../../web/problem.js';
import type { AppMetrics } from '../../web/middleware/metrics.js';
import { cacheControl } from '../../web/cache-control.js';

const digest = (text: string) => createHash('sha256').update(text).digest();

export function metricsRouter(metrics: AppMetrics, token: string | undefined, before: RequestHandler[]): Router {
  const router = Router();
  // Digests of equal length, so the comparison takes the same time whatever was sent.
  const expected = token === undefined ? undefined : digest(token);

  router.get('/metrics', ...before, async (req, res) => {
    cacheControl(res, 'no-store');
    if (expected === undefined) {
      sendProblem(res, { status: 404, code: 'not-found', title: 'Not found', detail: 'Nothing exists at this address.' });
      return;
    }
    const match = /^Bearer +(\S+) *$/i.exec(req.get('Authorization') ?? '');
    if (!match || !timingSafeEqual(digest(match[1]!), expected)) {
      sendProblem(res, {
        status: 401,
        code: 'metrics-token-refused',
        title: 'Metrics token required',
        detail: 'Send the configured METRICS_TOKEN as `Authorization: Bearer <token>`.',
        headers: { 'WWW-Authenticate': 'Bearer realm="metrics"' },
      });
      return;
    }
    let text: string;
    try {
      text = await metrics.scrape();
    } catch {
      // A cluster worker whose primary did not answer in time (it is busy or stopping).
      sendProblem(res, {
        status: 503,
        code: 'metrics-unavailable',
        title: 'Metrics unavailable',
        detail: 'The service could not gather its metrics in time; scrape again.',
        headers: { 'Retry-After': '5' },
      });
      return;
    }
    res.type(metrics.contentType).send(text);
  });

  return router;
}
