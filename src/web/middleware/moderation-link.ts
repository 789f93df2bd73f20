// The header's "Moderation (N pending)" link (views/partials/top.ejs), for moderators only.
// Mounted after loadSessionAccount in the pages router, so only a signed-in moderator (role
// read from the database on this request, not suspended) gets it. Anonymous pages are shared
// from the response cache and never reach this point with an account, so the link and its
// count are never in a shared page. The count is read only when a page is actually rendered
// (not for redirects, screenshots or other answers), one indexed count per page view.
import type { RequestHandler, Response } from 'express';
import type { PrismaClient } from '../../db/client.js';
import { pendingCount } from '../../modules/moderation/queue.repository.js';
import { MODERATOR_ROLES } from '../admin-pages.js';

declare module 'express-serve-static-core' {
  interface Locals {
    /** Set for a signed-in moderator's rendered pages: the header links to /admin with this count. */
    moderation?: { pending: number | null };
  }
}

export function moderationLink(prisma: PrismaClient): RequestHandler {
  return (req, res, next) => {
    const account = res.locals.account;
    if (!account || account.suspended || !MODERATOR_ROLES.has(account.role)) {
      next();
      return;
    }
    const render = res.render.bind(res) as (...args: unknown[]) => void;
    (res as Response).render = ((...args: unknown[]) => {
      pendingCount(prisma).then(
        (pending) => {
          res.locals.moderation = { pending };
          render(...args);
        },
        (error: unknown) => {
          // The header never breaks a page: without the count the link still leads to /admin.
          req.log?.warn({ err: error }, 'the pending count for the header could not be read');
          res.locals.moderation = { pending: null };
          render(...args);
        },
      );
    }) as Response['render'];
    next();
  };
}
