// The moderators' route, /admin: every page and form post behind the moderator gate, listed
// here; the handlers live in their feature's module. Mounted by the pages router, which
// already gives sessions, CSRF tokens and the Origin rule on every POST; this router adds the
// role check (requireModerator) and never answers to agent keys.
import { Router } from 'express';
import type { Clock } from '../../clock.js';
import type { PrismaClient } from '../../db/client.js';
import { accountShow, accountsSearch, accountSuspend, accountUnsuspend } from '../../modules/accounts/accounts-admin.pages.js';
import { auditLog } from '../../modules/audit/audit.pages.js';
import { claimRevoke, claimShow, claimsList, correctionDecision, ownersQueue, replyDecision } from '../../modules/claims/claims-admin.pages.js';
import { agentActivation, agentCreate, agentShow, agentsList, agentUpdate, categoriesList, categoryCreate, categoryShow, categoryUpdate, legacyNameAdd, legacyNameRemove } from '../../modules/catalog/catalog-admin.pages.js';
import { merchantCreate, merchantList, merchantNew, merchantShow, merchantUpdate, ownerStatementRemove, ownerStatementSave, ownerStatementShow, sponsorshipRemove, sponsorshipSave, sponsorshipShow } from '../../modules/merchants/merchant-admin.pages.js';
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
  router.get('/merchants', merchantList(deps));
  router.get('/merchants/new', merchantNew(deps));
  router.post('/merchants', merchantCreate(deps));
  router.get('/merchants/:id', merchantShow(deps));
  router.post('/merchants/:id', merchantUpdate(deps));
  router.get('/merchants/:id/sponsorship', sponsorshipShow(deps));
  router.post('/merchants/:id/sponsorship', sponsorshipSave(deps));
  router.post('/merchants/:id/sponsorship/remove', sponsorshipRemove(deps));
  router.get('/merchants/:id/owner-statement', ownerStatementShow(deps));
  router.post('/merchants/:id/owner-statement', ownerStatementSave(deps));
  router.post('/merchants/:id/owner-statement/remove', ownerStatementRemove(deps));

  // Categories (with legacy names) and agents.
  router.get('/categories', categoriesList(deps));
  router.post('/categories', categoryCreate(deps));
  router.get('/categories/:id', categoryShow(deps));
  router.post('/categories/:id', categoryUpdate(deps));
  router.post('/categories/:id/legacy-names', legacyNameAdd(deps));
  router.post('/categories/:id/legacy-names/:legacyId/remove', legacyNameRemove(deps));
  router.get('/agents', agentsList(deps));
  router.post('/agents', agentCreate(deps));
  router.get('/agents/:id', agentShow(deps));
  router.post('/agents/:id', agentUpdate(deps));
  router.post('/agents/:id/activate', agentActivation(deps, true));
  router.post('/agents/:id/deactivate', agentActivation(deps, false));

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
  router.get('/accounts', accountsSearch(deps));
  router.get('/accounts/:id', accountShow(deps));
  router.post('/accounts/:id/suspend', accountSuspend(deps));
  router.post('/accounts/:id/unsuspend', accountUnsuspend(deps));
  router.get('/audit', auditLog(deps));

  return router;
}
