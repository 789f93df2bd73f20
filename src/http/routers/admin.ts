// The moderators' route, /admin: every page and form post behind the moderator gate, listed
// here; the handlers live in their feature's module. Mounted by the pages router, which
// already gives sessions, CSRF tokens and the Origin rule on every POST; this router adds the
// role check (requireModerator) and never answers to agent keys.
import { Router } from 'express';
import type { Clock } from '../../clock.js';
import type { PrismaClient } from '../../db/client.js';
import { accountAdminHandlers } from '../../modules/accounts/accounts-admin.pages.js';
import { auditLog } from '../../modules/audit/audit.pages.js';
import { claimRevoke, claimShow, claimsList, correctionDecision, ownersQueue, replyDecision } from '../../modules/claims/claims-admin.pages.js';
import { catalogAdminHandlers } from '../../modules/catalog/catalog-admin.pages.js';
import { merchantAdminHandlers } from '../../modules/merchants/merchant-admin.pages.js';
import { evidenceScreenshot, moderationOverview } from '../../modules/moderation/moderation.pages.js';
import { reportQueue, reportsBulkApprove, reportsBulkReject } from '../../modules/moderation/report-queue.pages.js';
import { reportApprove, reportNotes, reportReject, reportShow, reportWithdraw } from '../../modules/moderation/report-review.pages.js';
import { requireModerator } from '../../web/admin-pages.js';

export interface AdminDeps {
  prisma: PrismaClient;
  clock: Clock;
  dataDir: string;
}

export function adminRouter(deps: AdminDeps): Router {
  const router = Router();
  const merchants = merchantAdminHandlers(deps);
  const catalog = catalogAdminHandlers(deps);
  const accounts = accountAdminHandlers(deps);

  router.use(requireModerator);

  // Moderation: the overview, the queue, one report and its decisions, its screenshots.
  router.get('/', moderationOverview(deps));
  router.get('/reports', reportQueue(deps));
  router.post('/reports/bulk-approve', reportsBulkApprove(deps));
  router.post('/reports/bulk-reject', reportsBulkReject(deps));
  router.get('/reports/:id', reportShow(deps));
  router.post('/reports/:id/approve', reportApprove(deps));
  router.post('/reports/:id/reject', reportReject(deps));
  router.post('/reports/:id/withdraw', reportWithdraw(deps));
  router.post('/reports/:id/notes', reportNotes(deps));
  router.get('/evidence/:id', evidenceScreenshot(deps));

  // Merchants, their sponsorship and their owner statement.
  router.get('/merchants', merchants.list);
  router.get('/merchants/new', merchants.newForm);
  router.post('/merchants', merchants.create);
  router.get('/merchants/:id', merchants.show);
  router.post('/merchants/:id', merchants.update);
  router.get('/merchants/:id/sponsorship', merchants.sponsorship);
  router.post('/merchants/:id/sponsorship', merchants.saveSponsorship);
  router.post('/merchants/:id/sponsorship/remove', merchants.removeSponsorship);
  router.get('/merchants/:id/owner-statement', merchants.ownerStatement);
  router.post('/merchants/:id/owner-statement', merchants.saveOwnerStatement);
  router.post('/merchants/:id/owner-statement/remove', merchants.removeOwnerStatement);

  // Categories (with legacy names) and agents.
  router.get('/categories', catalog.categories);
  router.post('/categories', catalog.createCategory);
  router.get('/categories/:id', catalog.category);
  router.post('/categories/:id', catalog.updateCategory);
  router.post('/categories/:id/legacy-names', catalog.addLegacyName);
  router.post('/categories/:id/legacy-names/:legacyId/remove', catalog.removeLegacyName);
  router.get('/agents', catalog.agents);
  router.post('/agents', catalog.createAgent);
  router.get('/agents/:id', catalog.agent);
  router.post('/agents/:id', catalog.updateAgent);
  router.post('/agents/:id/activate', catalog.activateAgent);
  router.post('/agents/:id/deactivate', catalog.deactivateAgent);

  // Owners: claims (revoke, reinstate), their replies and corrections.
  router.get('/owners', ownersQueue(deps));
  router.get('/claims', claimsList(deps));
  router.get('/claims/:id', claimShow(deps));
  router.post('/claims/:id/revoke', claimRevoke(deps, true));
  router.post('/claims/:id/reinstate', claimRevoke(deps, false));
  router.post('/replies/:id/approve', replyDecision(deps, true));
  router.post('/replies/:id/reject', replyDecision(deps, false));
  router.post('/corrections/:id/approve', correctionDecision(deps, true));
  router.post('/corrections/:id/reject', correctionDecision(deps, false));
  router.get(['/replies', '/corrections'], (_req, res) => res.redirect(302, '/admin/owners'));

  // Accounts and the audit log.
  router.get('/accounts', accounts.search);
  router.get('/accounts/:id', accounts.show);
  router.post('/accounts/:id/suspend', accounts.suspend);
  router.post('/accounts/:id/unsuspend', accounts.unsuspend);
  router.get('/audit', auditLog(deps));

  return router;
}
