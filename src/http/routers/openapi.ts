import { Router } from 'express';
import { openApiDocument } from '../openapi.js';

export function openApiRouter(deps: { baseUrl: string }): Router {
  const router = Router();
  router.get('/openapi.json', (_req, res) => {
    res.set('Cache-Control', 'public, max-age=300').json(openApiDocument(deps.baseUrl));
  });
  return router;
}
