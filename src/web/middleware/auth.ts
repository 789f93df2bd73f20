// Who is signed in (browser session), for the pages and the contribution API.
import type { RequestHandler, Response } from 'express';
import { MAX_NEXT_LENGTH } from '../../modules/accounts/sign-in.service.js';
import type { PrismaClient } from '../../db/client.js';
import { findAccountById, type AccountRow } from '../../modules/accounts/accounts.repository.js';
import { PAGE_PATHS } from '../../paths.js';

declare module 'express-serve-static-core' {
  interface Locals {
    account?: AccountRow;
  }
}

export function loadSessionAccount(prisma: PrismaClient): RequestHandler {
  return async (req, res, next) => {
    const id = req.session?.accountId;
    if (id) {
      const account = await findAccountById(prisma, id);
      if (account) res.locals.account = account;
      else delete req.session.accountId;
    }
    next();
  };
}

/**
 * Sends a visitor to the sign-in page, to come back to `next` afterwards: without its query
 * when the whole address is too long to travel back in a Location header, or without `next`.
 */
export function redirectToSignIn(res: Response, next: string): void {
  const path = next.length <= MAX_NEXT_LENGTH ? next : next.split('?')[0]!;
  res.redirect(303, path.length <= MAX_NEXT_LENGTH ? `${PAGE_PATHS.signIn}?next=${encodeURIComponent(path)}` : PAGE_PATHS.signIn);
}

/** Pages for signed-in people: others go to the sign-in page and come back afterwards. */
export const requireSignedInPage: RequestHandler = (req, res, next) => {
  if (res.locals.account) {
    next();
    return;
  }
  redirectToSignIn(res, req.originalUrl);
};

/**
 * Form posts for signed-in people: someone signed out (their session ended) goes to sign-in,
 * then back to the page `returnTo`, not to the URL the form posted to.
 */
export const requireSignedInForm =
  (returnTo: string): RequestHandler =>
  (_req, res, next) => {
    if (res.locals.account) {
      next();
      return;
    }
    redirectToSignIn(res, returnTo);
  };

;
