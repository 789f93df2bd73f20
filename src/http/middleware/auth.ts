// Who is signed in (browser session), for the pages and the contribution API.
import type { RequestHandler } from 'express';
import type { PrismaClient } from '../../db/client.js';
import { findAccountById, type AccountRow } from '../../modules/accounts/accounts.repository.js';

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

/** Pages for signed-in people: others go to the sign-in page and come back afterwards. */
export const requireSignedInPage: RequestHandler = (req, res, next) => {
  if (res.locals.account) {
    next();
    return;
  }
  res.redirect(303, `/sign-in?next=${encodeURIComponent(req.originalUrl)}`);
};

export type { AccountRow };
