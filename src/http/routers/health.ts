// Liveness and readiness for operators and orchestrators.
import { Router } from 'express';
import type pg from 'pg';
import { sendProblem } from '../../web/problem.js';
import { cacheControl } from '../../web/cache-control.js';

const READINESS_TIMEOUT_MS = 2_000;

export function healthRouter(pool: pg.Pool): Router {
  const router = Router();

  // The process is up and serving HTTP; says nothing about its dependencies.
  router.get('/healthz', (_req, res) => {
    cacheControl(res, 'no-store').json({ status: 'ok' });
  });

  // The database answers; load balancers stop routing here when it does not.
  router.get('/readyz', async (req, res) => {
    cacheControl(res, 'no-store');
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        pool.query('SELECT 1'),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('readiness check timed out')), READINESS_TIMEOUT_MS);
        }),
      ]);
      res.json({ status: 'ready' });
    } catch (error) {
      req.log?.warn({ err: error }, 'readiness check failed');
      sendProblem(res, {
        status: 503,
        code: 'not-ready',
        title: 'Service not ready',
        detail: 'The database does not answer.',
        headers: { 'Retry-After': '5' },
      });
    } finally {
      clearTimeout(timer);
    }
  });

  return router;
}
