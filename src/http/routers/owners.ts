// The owners' API (issue 34): claims of a merchant's or an agent vendor's website, and what a
// verified claim allows (statements, replies, corrections). The same session-and-Origin rule
// as the contribution API's browser path; an agent key speaks for no shop and is refused.
import { Router, type RequestHandler } from 'express';
import type { Clock } from '../../clock.js';
import type { PrismaClient } from '../../db/client.js';
import type { Fetcher } from '../../outbound/fetcher.js';
import {
  claimCheck,
  claimStart,
  correctionBody,
  ownerStatementBody,
  replyBody,
  vendorStatementBody,
} from '../../modules/claims/claims.schemas.js';
import { checkClaim, claimView, ownClaim, ownClaims, startClaim } from '../../modules/claims/claims.service.js';
import { replyToReport, requestCorrection, writeOwnerStatement, writeVendorStatement } from '../../modules/claims/owners.service.js';
import { notice } from '../../modules/directory/notice.js';
import { OWNER_STATEMENT_ATTRIBUTION } from '../../modules/merchants/merchants.service.js';
import { loadSessionAccount } from '../../web/middleware/auth.js';
import { hasBearer } from '../../web/middleware/bearer.js';
import { parseJson, requireJson, validateBody } from '../../web/middleware/body.js';
import { requireSameOrigin } from '../../web/middleware/origin.js';
import { HttpProblem } from '../../web/problem.js';
import { cacheControl } from '../../web/cache-control.js';

export interface OwnersDeps {
  prisma: PrismaClient;
  clock: Clock;
  baseUrl: string;
  origin: string;
  session: RequestHandler;
  fetcher: Fetcher;
  /** The address's private budget: claims, checks and owner writes are private requests. */
  privateAddressLimiter: RequestHandler;
}

const noStore: RequestHandler = (_req, res, next) => {
  cacheControl(res, 'no-store');
  next();
};

const refuseKey: RequestHandler = (req, _res, next) => {
  if (!hasBearer(req)) return next();
  throw new HttpProblem({
    status: 403,
    code: 'owner-session-required',
    title: 'Owners act in a browser session',
    detail: 'Claims, statements, replies and corrections are made by a signed-in person (a session on this site, with its Origin), never with an agent key. Do not retry with the key.',
  });
};

const requireOwnerAccount: RequestHandler = (_req, res, next) => {
  const account = res.locals.account;
  if (!account) {
    throw new HttpProblem({ status: 401, code: 'unauthenticated', title: 'Sign-in required', detail: 'Sign in at /sign-in first; claims belong to a signed-in account.' });
  }
  if (account.suspended) {
    throw new HttpProblem({ status: 403, code: 'account-suspended', title: 'Account suspended', detail: 'This account is suspended and cannot claim or speak for a shop. Do not retry.' });
  }
  next();
};

/** A check may come without a body (every allowed method in turn); a body there is JSON. */
const optionalJson: RequestHandler = (req, res, next) => {
  const bodiless = req.headers['content-length'] === '0' || (req.headers['content-length'] === undefined && !req.headers['transfer-encoding']);
  if (bodiless) {
    req.body = {};
    return next();
  }
  requireJson(req, res, (error?: unknown) => (error ? next(error) : parseJson(req, res, next)));
};

export function ownersRouter(deps: OwnersDeps): Router {
  const router = Router();
  const signedIn = [noStore, deps.privateAddressLimiter, refuseKey, requireSameOrigin(deps.origin), deps.session, loadSessionAccount(deps.prisma), requireOwnerAccount];
  const json = [requireJson, parseJson];
  const accountId = (res: Parameters<RequestHandler>[1]) => res.locals.account!.id;

  router.post('/claims', ...signedIn, ...json, validateBody(claimStart), async (_req, res) => {
    const { claim, subject, created } = await startClaim(deps, accountId(res), res.locals.body as { merchant?: string; agent?: string }, deps.clock.now());
    const view = claimView(claim, subject, deps.baseUrl);
    if (created) res.status(201).location(view.url);
    res.json({ data: view, created, ...notice(deps) });
  });

  router.get('/claims', ...signedIn, async (_req, res) => {
    const claims = await ownClaims(deps, accountId(res));
    res.json({ data: claims.map(({ claim, subject }) => claimView(claim, subject, deps.baseUrl)), ...notice(deps) });
  });

  router.get('/claims/:id', ...signedIn, async (req, res) => {
    const { claim, subject } = await ownClaim(deps, accountId(res), String(req.params.id));
    res.json({ data: claimView(claim, subject, deps.baseUrl), ...notice(deps) });
  });

  router.post('/claims/:id/check', ...signedIn, optionalJson, validateBody(claimCheck), async (req, res) => {
    const { method } = res.locals.body as { method?: 'dns' | 'file' | 'meta' };
    const result = await checkClaim(deps, accountId(res), String(req.params.id), method, deps.clock.now());
    const { subject } = await ownClaim(deps, accountId(res), result.claim.id);
    res.json({ data: { ...result, claim: claimView(result.claim, subject, deps.baseUrl) }, ...notice(deps) });
  });

  router.put('/merchants/:slugOrId/owner-statement', ...signedIn, ...json, validateBody(ownerStatementBody), async (req, res) => {
    const saved = await writeOwnerStatement(deps, accountId(res), String(req.params.slugOrId), res.locals.body as { statement: string }, deps.clock.now());
    res.json({
      data: { merchant: saved.merchant.slug, statement: saved.statement, taskClaims: saved.taskClaims, declaredAt: saved.declaredAt, attribution: OWNER_STATEMENT_ATTRIBUTION, byVerifiedOwner: true },
      ...notice(deps),
    });
  });

  router.put('/agents/:slugOrId/vendor-statement', ...signedIn, ...json, validateBody(vendorStatementBody), async (req, res) => {
    const saved = await writeVendorStatement(deps, accountId(res), String(req.params.slugOrId), res.locals.body as { statement: string }, deps.clock.now());
    res.json({ data: { agent: saved.agent.slug, statement: saved.statement, declaredAt: saved.declaredAt }, ...notice(deps) });
  });

  router.post('/reports/:id/replies', ...signedIn, ...json, validateBody(replyBody), async (req, res) => {
    const { reply, unchanged } = await replyToReport(deps, accountId(res), String(req.params.id), (res.locals.body as { body: string }).body, deps.clock.now());
    res.status(unchanged ? 200 : 201).json({
      data: { id: reply.id, status: reply.status, from: reply.side === 'MERCHANT' ? 'owner' : 'vendor', body: reply.body, unchanged },
      ...notice(deps),
    });
  });

  router.post('/merchants/:slugOrId/corrections', ...signedIn, ...json, validateBody(correctionBody), async (req, res) => {
    const created = await requestCorrection(deps, accountId(res), String(req.params.slugOrId), res.locals.body as { note: string }, deps.clock.now());
    res.status(201).json({ data: { id: created.id, status: created.status, proposed: created.proposed, note: created.note, createdAt: created.createdAt.toISOString() }, ...notice(deps) });
  });

  return router;
}
