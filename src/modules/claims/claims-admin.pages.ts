// The moderators' side of owners (issue 34): the claims (with their private check log),
// revoking and reinstating one, and the queues of owners' replies and corrections. One
// function per use case; every decision has an audit row. Routes: http/routers/admin.ts.
import type { RequestHandler } from 'express';
import type { Clock } from '../../clock.js';
import type { PrismaClient } from '../../db/client.js';
import type { ClaimStatus } from '../../generated/prisma/enums.js';
import { actorOf, formValues, idParam, notFoundPage, renderAdmin, setFlash } from '../../web/admin-pages.js';
import { Refusal } from '../../errors.js';
import { fieldErrorsOf } from '../../forms.js';
import { findClaim, latestChecks, listClaimsForModerators, subjectOf } from './claims.repository.js';
import { setClaimRevoked } from './claims.service.js';
import { decideCorrection, decideReply, pendingCorrections, pendingReplies } from './owners-moderation.service.js';
import { CHECK_REASON_WORDS, METHOD_NAMES } from './proof.js';

export interface ClaimsAdminDeps {
  prisma: PrismaClient;
  clock: Clock;
}

const STATUSES: readonly ClaimStatus[] = ['PENDING', 'VERIFIED', 'GRACE', 'LAPSED', 'REVOKED'];
const helpers = { METHOD_NAMES, CHECK_REASON_WORDS };

const change = (deps: ClaimsAdminDeps, res: Parameters<RequestHandler>[1]) => ({ prisma: deps.prisma, actorId: actorOf(res), now: deps.clock.now() });

/** Refusals a moderator can act on become the page's message. */
async function flashRefusal(req: Parameters<RequestHandler>[0], act: () => Promise<string>) {
  try {
    setFlash(req, 'ok', await act());
  } catch (error) {
    if (!(error instanceof Refusal) || error.kind === 'not-found') throw error;
    setFlash(req, 'error', error.message);
  }
}

/** GET /admin/claims?status=: every claim, newest first. */
export function claimsList(deps: ClaimsAdminDeps): RequestHandler {
  return async (req, res) => {
    const raw = typeof req.query.status === 'string' ? req.query.status.toUpperCase() : '';
    const status = STATUSES.find((s) => s === raw);
    const claims = await listClaimsForModerators(deps.prisma, status, 200);
    const subjects = new Map(await Promise.all(claims.map(async (c) => [c.id, await subjectOf(deps.prisma, c)] as const)));
    renderAdmin(req, res, 'claims', { ...helpers, title: 'Claims', section: 'owners', claims, subjects, statuses: STATUSES, status: status ?? '' });
  };
}

/** GET /admin/claims/:id: one claim, its private check log, and revoke or reinstate. */
export function claimShow(deps: ClaimsAdminDeps): RequestHandler {
  return async (req, res) => {
    const claim = await findClaim(deps.prisma, idParam(req, 'Claim'));
    if (!claim) throw notFoundPage('Claim');
    const [subject, checks, account] = await Promise.all([
      subjectOf(deps.prisma, claim),
      latestChecks(deps.prisma, claim.id, 20),
      deps.prisma.account.findUnique({ where: { id: claim.accountId }, select: { id: true, email: true } }),
    ]);
    renderAdmin(req, res, 'claim', { ...helpers, title: `Claim of ${subject?.name ?? claim.host}`, section: 'owners', claim, subject, checks, account });
  };
}

/** POST /admin/claims/:id/revoke and /reinstate. */
export function claimRevoke(deps: ClaimsAdminDeps, revoked: boolean): RequestHandler {
  return async (req, res) => {
    const id = idParam(req, 'Claim');
    const reason = formValues(req.body).reason?.trim() || null;
    await flashRefusal(req, async () => {
      await setClaimRevoked(change(deps, res), id, revoked, reason);
      return revoked ? 'Claim revoked: it no longer counts, and what its holder published is taken down.' : 'Claim reinstated.';
    });
    res.redirect(303, `/admin/claims/${id}`);
  };
}

/** GET /admin/owners: the queues of owners' replies and corrections. */
export function ownersQueue(deps: ClaimsAdminDeps): RequestHandler {
  return async (req, res) => {
    const [replies, corrections] = await Promise.all([pendingReplies(deps), pendingCorrections(deps)]);
    renderAdmin(req, res, 'owners', { ...helpers, title: 'Owners: replies and corrections', section: 'owners', replies, corrections });
  };
}

/** POST /admin/replies/:id/approve and /reject. */
export function replyDecision(deps: ClaimsAdminDeps, approve: boolean): RequestHandler {
  return async (req, res) => {
    const id = idParam(req, 'Reply');
    const feedback = formValues(req.body).feedback?.trim() || null;
    await flashRefusal(req, async () => {
      await decideReply(change(deps, res), id, approve, feedback);
      return approve ? 'Reply approved: it shows under its report.' : 'Reply rejected.';
    });
    res.redirect(303, '/admin/owners');
  };
}

/** POST /admin/corrections/:id/approve and /reject. */
export function correctionDecision(deps: ClaimsAdminDeps, approve: boolean): RequestHandler {
  return async (req, res) => {
    const id = idParam(req, 'Correction');
    const feedback = formValues(req.body).feedback?.trim() || null;
    let refusedBy: string | null = null;
    await flashRefusal(req, async () => {
      try {
        await decideCorrection(change(deps, res), id, approve, feedback);
      } catch (error) {
        // The merchant form refused the correction: it stays pending, and the page says why.
        const errors = error instanceof Refusal ? fieldErrorsOf(error) : null;
        if (!errors) throw error;
        refusedBy = Object.entries(errors).map(([field, message]) => `${field}: ${message}`).join('; ');
      }
      return approve ? 'Correction applied to the merchant.' : 'Correction rejected.';
    });
    if (refusedBy) setFlash(req, 'error', `Not applied (${refusedBy}). Edit the merchant by hand, or reject the correction.`);
    res.redirect(303, '/admin/owners');
  };
}
