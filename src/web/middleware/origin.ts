// State-changing browser requests must come from our own pages: the Origin header must be
// BASE_URL's origin. (Bearer requests are exempt: they carry no ambient credentials.)
import type { RequestHandler } from 'express';
import { HttpProblem } from '../problem.js';

export function requireSameOrigin(origin: string): RequestHandler {
  return (req, _res, next) => {
    const given = req.get('origin');
    if (given === origin) {
      next();
      return;
    }
    throw new HttpProblem({
      status: 403,
      code: 'origin-rejected',
      title: 'Origin rejected',
      detail: given
        ? `Requests from ${given} are not accepted. Do not retry.`
        : 'The Origin header is required for browser requests that change data. Do not retry.',
    });
  };
}
