// The JSON API, mounted at /api. Each audience (public, contribution, automation) mounts
// its router under /v1 here; everything unknown under /api is a problem+json 404, and every
// error below becomes problem+json.
import express, { Router } from 'express';
import { apiNotFound, problemErrorHandler } from '../middleware/errors.js';

/** Largest accepted JSON body (spec section 8). */
export const MAX_JSON_BODY_BYTES = 16_384;

export function apiRouter(): Router {
  const router = Router();
  router.use(express.json({ limit: MAX_JSON_BODY_BYTES, type: 'application/json', strict: true }));
  router.use(apiNotFound);
  router.use(problemErrorHandler());
  return router;
}
