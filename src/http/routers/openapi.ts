import { Router, type RequestHandler } from 'express';
import { openApiDocument } from '../openapi.js';

export function openApiRouter(deps: { baseUrl: string; compress: RequestHandler }): Router {
  const router = Router();
  router.get('/openapi.json', deps.compress, (_req, res) => {
    res.set('Cache-Control', 'public, max-age=300').json(openApiDocument(deps.baseUrl));
  });
  return router;
}
