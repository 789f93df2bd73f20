// GET /api/v1/openapi.json: the document, built once, with an ETag so clients can revalidate.
import { createHash } from 'node:crypto';
import { Router, type RequestHandler } from 'express';
import { openApiDocument } from '../openapi.js';
import { cacheControl } from '../../web/cache-control.js';

export function openApiRouter(deps: { baseUrl: string; compress: RequestHandler }): Router {
  const router = Router();
  const body = JSON.stringify(openApiDocument(deps.baseUrl));
  const etag = `W/"${createHash('sha1').update(body).digest('base64url')}"`;
  router.get('/openapi.json', deps.compress, (req, res) => {
    cacheControl(res, { publicSeconds: 300 }).set('ETag', etag);
    if (req.fresh) {
      res.status(304).end();
      return;
    }
    res.type('application/json').send(body);
  });
  return router;
}
