// What a verified claim lets its holder do (issue 34): write the merchant's owner statement or
// the agent's vendor statement (never evidence: they count toward no score, status or count),
// post one short public reply under an approved report about their merchant or agent
// (moderated like a report, never changing it), and ask for a correction of the merchant's
// details (nothing changes until a moderator approves it). Anyone without a verified claim is
// refused (403).
import type { PrismaClient } from '../../db/client.js';
import type { OwnerSide } from '../../generated/prisma/enums.js';
import { isoDay } from '../../dates.js';
import { notFound, Refusal } from '../../errors.js';
import { SLUG_PATTERN, UUID_PATTERN } from '../../text.js';
import { lockMerchants } from '../aggregation/evidence.js';
import type { OutcomeKey, TaskKey } from '../aggregation/constants.js';
import { announceChange, findClaimableAgent, findClaimableMerchant, VERIFIED_STATUSES, type ClaimSubject } from './claims.repository.js';

export interface OwnerDeps {
  prisma: PrismaClient;
}

/** 403: what was asked needs a verified claim; `detail` says whose and how to get one. */
const claimRequired = (detail: string) => new Refusal({ kind: 'forbidden', code: 'claim-required', title: 'A verified claim is required', detail });

/** The verified claim this account holds on the subject, or a 403 naming how to get one. */
async function verifiedClaimOn(prisma: PrismaClient, accountId: string, subject: ClaimSubject) {
  const claim = await prisma.claim.findFirst({
    where: { accountId, status: { in: [...VERIFIED_STATUSES] }, ...(subject.side === 'MERCHANT' ? { merchantId: subject.id } : { agentId: subject.id }) },
    select: { id: true, side: true },
  });
  if (!claim) {
    throw claimRequired(
      `Only an account with a verified claim on ${subject.name} can do this. Start one with POST /api/v1/claims (or "Is this your ${subject.side === 'MERCHANT' ? 'shop' : 'agent'}?" on its page) and prove it.`,
    );
  }
  return claim;
}

const keyOf = (value: string) => (UUID_PATTERN.test(value) ? { id: value.toLowerCase() } : SLUG_PATTERN.test(value) ? { slug: value } : null);

async function merchantSubject(prisma: PrismaClient, slugOrId: string): Promise<ClaimSubject> {
  const key = keyOf(slugOrId);
  const subject = key ? await findClaimableMerchant(prisma, key) : null;
  if (!subject) throw notFound('No public merchant has this slug or id.');
  return subject;
}

async function agentSubject(prisma: PrismaClient, slugOrId: string): Promise<ClaimSubject> {
  const key = keyOf(slugOrId);
  const subject = key ? await findClaimableAgent(prisma, key) : null;
  if (!subject) throw notFound('No active agent has this slug or id.');
  return subject;
}

export interface StatementInput {
  statement: string;
  taskClaims?: Partial<Record<TaskKey, OutcomeKey>>;
}

/** The owner writes (or rewrites) the merchant's statement, declared today. */
export async function writeOwnerStatement(deps: OwnerDeps, accountId: string, merchant: string, input: StatementInput, now: Date) {
  const subject = await merchantSubject(deps.prisma, merchant);
  const claim = await verifiedClaimOn(deps.prisma, accountId, subject);
  const declaredAt = new Date(`${isoDay(now)}T00:00:00Z`);
  const taskClaims = input.taskClaims ?? {};
  const saved = await deps.prisma.$transaction(async (tx) => {
    await lockMerchants(tx, [subject.id]);
    const row = await tx.ownerStatement.upsert({
      where: { merchantId: subject.id },
      create: { merchantId: subject.id, statement: input.statement, taskClaims, declaredAt, claimId: claim.id, createdAt: now },
      update: { statement: input.statement, taskClaims, declaredAt, claimId: claim.id, ownershipEvidence: null },
      select: { statement: true, taskClaims: true, declaredAt: true },
    });
    return row;
  });
  return { merchant: subject, statement: saved.statement, taskClaims: saved.taskClaims as Partial<Record<TaskKey, OutcomeKey>>, declaredAt: isoDay(saved.declaredAt) };
}

/** The vendor writes (or rewrites) the agent's statement, declared today. */
export async function writeVendorStatement(deps: OwnerDeps, accountId: string, agent: string, input: { statement: string }, now: Date) {
  const subject = await agentSubject(deps.prisma, agent);
  const claim = await verifiedClaimOn(deps.prisma, accountId, subject);
  const declaredAt = new Date(`${isoDay(now)}T00:00:00Z`);
  const saved = await deps.prisma.$transaction(async (tx) => {
    const row = await tx.vendorStatement.upsert({
      where: { agentId: subject.id },
      create: { agentId: subject.id, statement: input.statement, declaredAt, claimId: claim.id, createdAt: now },
      update: { statement: input.statement, declaredAt, claimId: claim.id },
      select: { statement: true, declaredAt: true },
    });
    await announceChange(tx, 'everything');
    return row;
  });
  return { agent: subject, statement: saved.statement, declaredAt: isoDay(saved.declaredAt) };
}

/** The most a reply may say: a reply, not a second report. */
export const REPLY_MAX_LENGTH = 1000;

/**
 * One reply per claim under an approved report about the claim's merchant (or its agent). A
 * changed reply waits for moderation again; the same text again changes nothing.
 */
export async function replyToReport(deps: OwnerDeps, accountId: string, reportId: string, body: string, now: Date) {
  const report = UUID_PATTERN.test(reportId)
    ? await deps.prisma.report.findFirst({
        where: { id: reportId.toLowerCase(), status: 'APPROVED', merchant: { isPublic: true }, agent: { active: true } },
        select: { id: true, merchantId: true, agentId: true, merchant: { select: { name: true } }, agent: { select: { name: true } } },
      })
    : null;
  if (!report) throw notFound('No approved public report has this id.');
  // The merchant's owner first; else the agent's vendor.
  const claim = await deps.prisma.claim.findFirst({
    where: {
      accountId,
      status: { in: [...VERIFIED_STATUSES] },
      OR: [{ merchantId: report.merchantId }, { agentId: report.agentId }],
    },
    orderBy: { side: 'asc' },
    select: { id: true, side: true },
  });
  if (!claim) {
    throw claimRequired(`Only the verified owner of ${report.merchant.name} or the verified vendor of ${report.agent.name} can reply to this report.`);
  }
  const existing = await deps.prisma.reportReply.findUnique({ where: { reportId_claimId: { reportId: report.id, claimId: claim.id } } });
  if (existing && existing.body === body) return { reply: existing, unchanged: true };
  const reply = existing
    ? await deps.prisma.reportReply.update({ where: { id: existing.id }, data: { body, status: 'PENDING', feedback: null, moderatedAt: null, moderatedById: null } })
    : await deps.prisma.reportReply.create({ data: { reportId: report.id, claimId: claim.id, accountId, side: claim.side, body, createdAt: now } });
  // A reply that was public leaves while it waits again.
  if (existing?.status === 'APPROVED') await announceChange(deps.prisma, [report.merchantId]);
  return { reply, unchanged: false };
}

export interface CorrectionInput {
  name?: string;
  website?: string;
  category?: string;
  serviceRegions?: string[];
  note: string;
}

/** The owner asks for a correction of the merchant's details; it waits for a moderator. */
export async function requestCorrection(deps: OwnerDeps, accountId: string, merchant: string, input: CorrectionInput, now: Date) {
  const subject = await merchantSubject(deps.prisma, merchant);
  const claim = await verifiedClaimOn(deps.prisma, accountId, subject);
  const { note, ...proposed } = input;
  if (proposed.category !== undefined) {
    const category = await deps.prisma.category.findUnique({ where: { slug: proposed.category }, select: { id: true } });
    if (!category) {
      throw new Refusal({
        kind: 'invalid',
        code: 'validation-failed',
        title: 'The request is not valid',
        detail: 'Invalid field: category.',
        errors: [{ pointer: '#/category', detail: `no category has the slug "${proposed.category}"` }],
      });
    }
  }
  return deps.prisma.correctionRequest.create({
    data: { merchantId: subject.id, claimId: claim.id, accountId, proposed, note, createdAt: now },
    select: { id: true, status: true, proposed: true, note: true, createdAt: true },
  });
}

/** Who speaks in a reply or a statement, in the words readers see. */
export const SIDE_WORDS: Readonly<Record<OwnerSide, { who: string; attribution: string }>> = {
  MERCHANT: { who: 'owner', attribution: 'Reply from the shop’s verified owner. It is their view, not community evidence, and it does not change the report.' },
  AGENT: { who: 'vendor', attribution: 'Reply from the agent’s verified vendor. It is their view, not community evidence, and it does not change the report.' },
};
