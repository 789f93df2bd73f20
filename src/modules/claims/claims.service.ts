// Claims (issue 34): a signed-in account claims a merchant's website, or an agent vendor's,
// proves control by one of three methods, and is re-checked on a schedule. A verified claim
// lets its holder speak for the shop or the agent (owners.service.ts). Checks are made only
// when the claimant asks and by the upkeep, never on a reader's request.
import { randomBytes } from 'node:crypto';
import type { PrismaClient } from '../../db/client.js';
import type { ClaimMethod, ClaimStatus } from '../../generated/prisma/enums.js';
import { notFound, Refusal } from '../../errors.js';
import type { Fetcher } from '../../outbound/fetcher.js';
import { SLUG_PATTERN, UUID_PATTERN } from '../../text.js';
import { insertAuditEntry, type ChangeContext } from '../audit/audit.repository.js';
import { claimChanged } from '../aggregation/evidence.js';
import {
  announceChange,
  dueClaims,
  findClaim,
  findClaimableAgent,
  findClaimableMerchant,
  findOwnClaimOf,
  insertCheck,
  insertClaim,
  latestChecks,
  listClaimsOf,
  subjectOf,
  subjectsOf,
  updateClaim,
  type ClaimRow,
  type ClaimSubject,
} from './claims.repository.js';
import { GRACE_DAYS, GRACE_RECHECK_DAYS, RECHECK_DAYS } from './rules.js';
import { allowedMethods, checkMethod, instructionsFor, targetOf, type ClaimMethodKey, type MethodCheck } from './proof.js';

/** Claims re-checked per upkeep pass (each check may take the fetcher's time limit). */
const RECHECKS_PER_PASS = 50;

const DAY = 86_400_000;

export interface ClaimDeps {
  prisma: PrismaClient;
  fetcher: Fetcher;
}

const methodKey = (method: ClaimMethod): ClaimMethodKey => method.toLowerCase() as ClaimMethodKey;
const methodEnum = (method: ClaimMethodKey): ClaimMethod => method.toUpperCase() as ClaimMethod;
const statusKey = (status: ClaimStatus) => status.toLowerCase() as Lowercase<ClaimStatus>;

async function resolveSubject(prisma: PrismaClient, input: { merchant?: string; agent?: string }): Promise<ClaimSubject> {
  const value = input.merchant ?? input.agent ?? '';
  const key = UUID_PATTERN.test(value) ? { id: value.toLowerCase() } : SLUG_PATTERN.test(value) ? { slug: value } : null;
  const subject = key ? await (input.merchant !== undefined ? findClaimableMerchant(prisma, key) : findClaimableAgent(prisma, key)) : null;
  if (!subject) throw notFound(input.merchant !== undefined ? 'No public merchant has this slug or id.' : 'No active agent has this slug or id.');
  return subject;
}

/** A claim as its holder sees it: what to publish, where it stands, the newest checks. */
export function claimView(claim: ClaimRow, subject: ClaimSubject | null, baseUrl: string) {
  return {
    id: claim.id,
    status: statusKey(claim.status),
    subject: subject
      ? { type: subject.side === 'MERCHANT' ? 'merchant' : 'agent', slug: subject.slug, name: subject.name, website: subject.website }
      : null,
    host: claim.host,
    sharedHost: claim.sharedHost,
    method: claim.method ? methodKey(claim.method) : null,
    verifiedAt: claim.verifiedAt?.toISOString() ?? null,
    checkedAt: claim.checkedAt?.toISOString() ?? null,
    graceUntil: claim.graceUntil?.toISOString() ?? null,
    methods: instructionsFor(claim),
    url: `${baseUrl}/api/v1/claims/${claim.id}`,
    pageUrl: `${baseUrl}/claims/${claim.id}`,
  };
}

/**
 * Starts a claim of a merchant (its website's host) or an agent (its vendor's website) for
 * this account, or returns the one it already has: `created` says which.
 */
export async function startClaim(deps: ClaimDeps, accountId: string, input: { merchant?: string; agent?: string }, now: Date) {
  const subject = await resolveSubject(deps.prisma, input);
  const existing = await findOwnClaimOf(deps.prisma, accountId, subject);
  if (existing?.status === 'REVOKED') throw revokedRefusal();
  if (existing) return { claim: existing, subject, created: false };
  const target = subject.website ? targetOf(subject.website) : null;
  if (!target) {
    throw new Refusal({
      kind: 'conflict',
      code: 'no-website-to-claim',
      title: 'Nothing to prove yet',
      detail:
        subject.side === 'AGENT'
          ? `No vendor website is registered for ${subject.name} yet: ask the moderators to add it, then claim the agent.`
          : `${subject.name} has no website address the directory can check.`,
    });
  }
  const token = randomBytes(18).toString('base64url');
  const claim = await insertClaim(deps.prisma, { accountId, subject, ...target, token, now });
  return { claim, subject, created: true };
}

const revokedRefusal = () =>
  new Refusal({
    kind: 'conflict',
    code: 'claim-revoked',
    title: 'Claim revoked',
    detail: 'A moderator revoked your claim of this; neither a new claim nor a check can reinstate it. Write to the moderators if you think it is a mistake.',
  });

/** Every claim of this account, newest first, with its subject. */
export async function ownClaims(deps: Pick<ClaimDeps, 'prisma'>, accountId: string) {
  const claims = await listClaimsOf(deps.prisma, accountId);
  const { merchants, agents } = await subjectsOf(deps.prisma, claims);
  return claims.map((claim) => {
    const m = claim.merchantId ? merchants.get(claim.merchantId) : undefined;
    const a = claim.agentId ? agents.get(claim.agentId) : undefined;
    const subject: ClaimSubject | null = m
      ? { side: 'MERCHANT', id: m.id, slug: m.slug, name: m.name, website: m.website }
      : a
        ? { side: 'AGENT', id: a.id, slug: a.slug, name: a.name, website: a.vendorWebsite }
        : null;
    return { claim, subject };
  });
}

/** One of this account's claims; another's is not found (its existence is private). */
export async function ownClaim(deps: Pick<ClaimDeps, 'prisma'>, accountId: string, id: string) {
  const claim = UUID_PATTERN.test(id) ? await findClaim(deps.prisma, id.toLowerCase()) : null;
  if (!claim || claim.accountId !== accountId) throw notFound('You have no claim with this id.');
  return { claim, subject: await subjectOf(deps.prisma, claim), checks: await latestChecks(deps.prisma, claim.id, 5) };
}

export interface CheckResult {
  /** verified: the proof was found; failed: it was not; pending: the check could not be finished now. */
  status: 'verified' | 'failed' | 'pending';
  method: ClaimMethodKey;
  checkedAt: string;
  reason: MethodCheck['reason'];
  detail: string;
  /** Every method tried, in order. */
  tried: MethodCheck[];
  claim: ClaimRow;
}

/** The first verified result of the methods tried, else the first that is not merely refused. */
function decisive(results: MethodCheck[]): MethodCheck {
  return results.find((r) => r.outcome === 'verified') ?? results.find((r) => r.reason !== 'method-refused') ?? results[0]!;
}

/**
 * Checks a claim now, at the claimant's request: one method, or each allowed one in turn until
 * one verifies. A proof found verifies the claim (again); a check that finds none never
 * downgrades a verified claim (only the scheduled re-checks do, with a grace period).
 */
export async function checkClaim(deps: ClaimDeps, accountId: string, id: string, method: ClaimMethodKey | undefined, now: Date): Promise<CheckResult> {
  const { claim } = await ownClaim(deps, accountId, id);
  if (claim.status === 'REVOKED') throw revokedRefusal();
  const methods = method ? [method] : allowedMethods(claim);
  const tried: MethodCheck[] = [];
  for (const m of methods) {
    const result = await checkMethod(deps.fetcher, claim, m);
    tried.push(result);
    if (result.outcome === 'verified') break;
  }
  const outcome = decisive(tried);
  const updated = await deps.prisma.$transaction(async (tx) => {
    for (const t of tried) await insertCheck(tx, { claimId: claim.id, method: methodEnum(t.method), outcome: t.outcome, reason: t.reason, detail: t.detail, scheduled: false, now });
    if (outcome.outcome !== 'verified') return updateClaim(tx, claim.id, { checkedAt: now });
    const wasPublic = claim.status === 'VERIFIED' || claim.status === 'GRACE';
    const verified = await updateClaim(tx, claim.id, {
      status: 'VERIFIED',
      method: methodEnum(outcome.method),
      verifiedAt: wasPublic && claim.verifiedAt ? claim.verifiedAt : now,
      checkedAt: now,
      graceUntil: null,
    });
    if (!wasPublic) {
      await announceClaimChange(tx, claim);
      // Its holder's reports on the subject are self-reported from now on (issue 37).
      await claimChanged(tx, claim, now);
    }
    return verified;
  });
  return { status: outcome.outcome, method: outcome.method, checkedAt: now.toISOString(), reason: outcome.reason, detail: outcome.detail, tried, claim: updated };
}

async function announceClaimChange(db: Parameters<typeof announceChange>[0], claim: Pick<ClaimRow, 'merchantId' | 'agentId'>) {
  await announceChange(db, claim.merchantId ? [claim.merchantId] : 'everything');
}

/**
 * The upkeep's re-checks (once across instances, under its advisory lock): verified claims not
 * checked for RECHECK_DAYS, and claims in grace daily, with the method that verified them. A
 * failure starts a grace of GRACE_DAYS; at its end the claim lapses, and with it what its
 * holder published (owners.service.ts shows statements only under verified claims).
 */
export async function recheckDueClaims(deps: ClaimDeps, now: Date, limit = RECHECKS_PER_PASS): Promise<{ checked: number; lapsed: number }> {
  const due = await dueClaims(deps.prisma, new Date(now.getTime() - RECHECK_DAYS * DAY), new Date(now.getTime() - GRACE_RECHECK_DAYS * DAY), limit);
  let lapsed = 0;
  for (const claim of due) {
    const method = claim.method ? methodKey(claim.method) : allowedMethods(claim)[0]!;
    const result = await checkMethod(deps.fetcher, claim, method);
    await deps.prisma.$transaction(async (tx) => {
      const current = await findClaim(tx, claim.id);
      // Revoked or changed by a moderator meanwhile: leave it.
      if (!current || current.status !== claim.status) return;
      await insertCheck(tx, { claimId: claim.id, method: methodEnum(method), outcome: result.outcome, reason: result.reason, detail: result.detail, scheduled: true, now });
      if (result.outcome === 'verified') {
        await updateClaim(tx, claim.id, { status: 'VERIFIED', checkedAt: now, graceUntil: null });
        return;
      }
      if (claim.status === 'VERIFIED') {
        await updateClaim(tx, claim.id, { status: 'GRACE', checkedAt: now, graceUntil: new Date(now.getTime() + GRACE_DAYS * DAY) });
        return;
      }
      if (claim.graceUntil && now >= claim.graceUntil) {
        await updateClaim(tx, claim.id, { status: 'LAPSED', checkedAt: now, graceUntil: null });
        await announceClaimChange(tx, claim);
        // A lapse keeps its holder's reports self-reported (public-evidence.ts); recomputed anyway,
        // through the one write path, so the summaries stay what a fresh computation gives.
        await claimChanged(tx, claim, now);
        lapsed += 1;
        return;
      }
      await updateClaim(tx, claim.id, { checkedAt: now });
    });
  }
  return { checked: due.length, lapsed };
}

/** A moderator revokes a claim (it stops counting at once) or reinstates it, with an audit row. */
export async function setClaimRevoked(ctx: ChangeContext, claimId: string, revoked: boolean, reason: string | null) {
  const claim = UUID_PATTERN.test(claimId) ? await findClaim(ctx.prisma, claimId.toLowerCase()) : null;
  if (!claim) throw notFound('There is no claim with this id.');
  if (revoked === (claim.status === 'REVOKED')) {
    throw new Refusal({ kind: 'conflict', code: 'claim-state', title: revoked ? 'Already revoked' : 'Not revoked', detail: revoked ? 'This claim is already revoked.' : 'Only a revoked claim can be reinstated.' });
  }
  // Reinstated: verified again if it ever was (the next re-check confirms it), else pending.
  const next: ClaimStatus = revoked ? 'REVOKED' : claim.verifiedAt ? 'VERIFIED' : 'PENDING';
  return ctx.prisma.$transaction(async (tx) => {
    const updated = await updateClaim(tx, claim.id, { status: next, graceUntil: null, ...(revoked ? {} : { checkedAt: null }) });
    await insertAuditEntry(tx, {
      actorId: ctx.actorId,
      action: revoked ? 'claim.revoke' : 'claim.reinstate',
      targetType: 'claim',
      targetId: claim.id,
      reason,
      details: { from: statusKey(claim.status), to: statusKey(next), subject: claim.merchantId ? { merchantId: claim.merchantId } : { agentId: claim.agentId } },
      now: ctx.now,
    });
    await announceClaimChange(tx, claim);
    // A revoked claim no longer makes its holder's reports self-reported; reinstated, it does again.
    await claimChanged(tx, claim, ctx.now);
    return updated;
  });
}
