// Synchronizer tokens for HTML forms: one random token per session, echoed in a hidden field.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { HttpProblem } from '../problem.js';
import { ANONYMOUS_SESSION_MAX_AGE_MS } from './session.js';

const CSRF_FIELD = '_csrf';

/**
 * Makes the session's token available to templates as `csrfToken()`. A function, not a value:
 * only a page with a form creates the token (and so a session); a page without one leaves the
 * visitor sessionless, so that it can be shared and stores nothing.
 */
export const provideCsrfToken: RequestHandler = (req, res, next) => {
  res.locals.csrfField = CSRF_FIELD;
  res.locals.csrfToken = () => {
    if (!req.session.csrfToken) {
      req.session.csrfToken = randomBytes(32).toString('base64url');
      // A visitor who is not signed in gets a session only for a form, and a short one.
      if (!req.session.accountId) req.session.cookie.maxAge = ANONYMOUS_SESSION_MAX_AGE_MS;
    }
    return req.session.csrfToken;
  };
  next();
};

const same = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

export const verifyCsrfToken: RequestHandler = (req, _res, next) => {
  const expected = req.session.csrfToken;
  const given = (req.body as Record<string, unknown> | undefined)?.[CSRF_FIELD];
  if (typeof given === 'string' && expected && same(given, expected)) {
    next();
    return;
  }
  throw new HttpProblem({
    status: 403,
    code: 'csrf-rejected',
    title: 'Form expired',
    detail: 'This form has expired or did not come from this site. Reload the page and try again.',
  });
};
