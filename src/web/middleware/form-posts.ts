// Every form post on the pages: from our own origin, and with the session's CSRF token. Only
// the routes that take files read multipart bodies (parsed there, then checked against the
// token); anywhere else a multipart body is refused unread.
import type { RequestHandler } from 'express';
import { HttpProblem } from '../problem.js';
import { verifyCsrfToken } from './csrf.js';
import { requireSameOrigin } from './origin.js';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function guardFormPosts(origin: string, uploadPaths: Pick<ReadonlySet<string>, 'has'>): RequestHandler {
  const sameOrigin = requireSameOrigin(origin);
  return (req, res, next) => {
    if (!STATE_CHANGING.has(req.method)) return next();
    sameOrigin(req, res, (error?: unknown) => {
      if (error) return next(error);
      if (!req.is('multipart/form-data')) return verifyCsrfToken(req, res, next);
      if (req.method === 'POST' && uploadPaths.has(req.path)) return next();
      next(
        new HttpProblem({
          status: 415,
          code: 'unsupported-media-type',
          title: 'Unsupported form encoding',
          detail: 'This form takes no files: send it as an ordinary form.',
        }),
      );
    });
  };
}
