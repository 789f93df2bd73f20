// Values every layout render may use: the current path (for aria-current) and the response's
// status (for the error page). Mounted first in the pages router, so every HTML page and
// error has them.
import type { RequestHandler } from 'express';

export const layoutLocals: RequestHandler = (req, res, next) => {
  res.locals.currentPath = req.path;
  Object.defineProperty(res.locals, 'statusCode', { enumerable: true, configurable: true, get: () => res.statusCode });
  next();
};
