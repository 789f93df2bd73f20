// The moderators' side of what owners send (issue 34): replies under reports are approved or
// rejected like reports; a correction of a merchant's details is applied through the same
// merchant update a moderator makes by hand (its validation, its audit row), or rejected. Each
// decision has an audit row of its own.
import { notFound, Refusal } from '../../errors.js';
import { formInput, type FormValues } from '../../forms.js';
import { UUID_PATTERN } from '../../text.js';
import { insertAuditEntry, auditJson, type ChangeContext } from '../audit/audit.repository.js';
import { findMerchant } from '../merchants/merchant-admin.repository.js';
import { merchantForm, merchantFormValues, updateMerchant } from '../merchants/merchant-admin.service.js';
import { announceChange } from './claims.repository.js';

const decided = (what: string) =>
  new Refusal({ kind: 'conflict', code: 'claim-state', title: 'Already decided', detail: `This ${what} was already decided; reload the queue.` });

export async function pendingReplies(ctx: Pick<ChangeContext, 'prisma'>, limit = 100) {
  return ctx.prisma.reportReply.findMany({
    where: { status: 'PENDING' },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    take: limit,
    select: {
      id: true,
      side: true,
      body: true,
      createdAt: true,
      report: { select: { id: true, outcome: true, experience: true, merchant: { select: { name: true, slug: true } }, agent: { select: { name: true } } } },
    },
  });
}

/** The audit row of a moderator's decision on an owner's reply or correction. */
function auditDecision(
  tx: Parameters<typeof insertAuditEntry>[0],
  ctx: ChangeContext,
  decision: { kind: 'reply' | 'correction'; id: string; approve: boolean; feedback: string | null; reportId?: string; details?: ReturnType<typeof auditJson> },
) {
  const { kind, id, approve, feedback, reportId, details } = decision;
  return insertAuditEntry(tx, {
    actorId: ctx.actorId,
    action: `${kind}.${approve ? 'approve' : 'reject'}`,
    targetType: kind,
    targetId: id,
    ...(reportId ? { reportId } : {}),
    reason: feedback,
    ...(details ? { details } : {}),
    now: ctx.now,
  });
}

/** Approves or rejects a pending reply (a rejection may say why, to its author). */
export async function decideReply(ctx: ChangeContext, replyId: string, approve: boolean, feedback: string | null) {
  const reply = UUID_PATTERN.test(replyId)
    ? await ctx.prisma.reportReply.findUnique({ where: { id: replyId.toLowerCase() }, select: { id: true, status: true, report: { select: { id: true, merchantId: true } } } })
    : null;
  if (!reply) throw notFound('There is no reply with this id.');
  return ctx.prisma.$transaction(async (tx) => {
    const { count } = await tx.reportReply.updateMany({
      where: { id: reply.id, status: 'PENDING' },
      data: { status: approve ? 'APPROVED' : 'REJECTED', feedback: approve ? null : feedback, moderatedAt: ctx.now, moderatedById: ctx.actorId },
    });
    if (count === 0) throw decided('reply');
    await auditDecision(tx, ctx, { kind: 'reply', id: reply.id, approve, feedback, reportId: reply.report.id });
    if (approve) await announceChange(tx, [reply.report.merchantId]);
  });
}

export async function pendingCorrections(ctx: Pick<ChangeContext, 'prisma'>, limit = 100) {
  return ctx.prisma.correctionRequest.findMany({
    where: { status: 'PENDING' },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    take: limit,
    select: { id: true, proposed: true, note: true, createdAt: true, merchant: { select: { id: true, name: true, slug: true, website: true, category: true, serviceRegions: true } } },
  });
}

interface ProposedCorrection {
  name?: string;
  website?: string;
  category?: string;
  serviceRegions?: string[];
}

/**
 * Applies a correction through the moderators' own merchant update (so its validation and
 * audit row are the same), then marks it approved; or rejects it. A correction the merchant
 * form refuses stays pending: the form's Refusal, naming each field it refuses, goes to the caller.
 */
export async function decideCorrection(ctx: ChangeContext, correctionId: string, approve: boolean, feedback: string | null): Promise<void> {
  const correction = UUID_PATTERN.test(correctionId)
    ? await ctx.prisma.correctionRequest.findUnique({ where: { id: correctionId.toLowerCase() }, select: { id: true, status: true, merchantId: true, proposed: true } })
    : null;
  if (!correction) throw notFound('There is no correction with this id.');
  if (correction.status !== 'PENDING') throw decided('correction');
  if (approve) {
    const merchant = await findMerchant(ctx.prisma, correction.merchantId);
    if (!merchant) throw notFound('The merchant of this correction no longer exists.');
    const proposed = correction.proposed as ProposedCorrection;
    const values: FormValues = { ...merchantFormValues(merchant) };
    if (proposed.name !== undefined) values.name = proposed.name;
    if (proposed.website !== undefined) values.website = proposed.website;
    if (proposed.serviceRegions !== undefined) values.serviceRegions = proposed.serviceRegions.join(' ');
    if (proposed.category !== undefined) {
      const category = await ctx.prisma.category.findUnique({ where: { slug: proposed.category }, select: { id: true } });
      if (category) values.categoryId = category.id;
    }
    await updateMerchant(ctx, correction.merchantId, formInput(merchantForm, values));
  }
  await ctx.prisma.$transaction(async (tx) => {
    const { count } = await tx.correctionRequest.updateMany({
      where: { id: correction.id, status: 'PENDING' },
      data: { status: approve ? 'APPROVED' : 'REJECTED', feedback: approve ? null : feedback, decidedAt: ctx.now, decidedById: ctx.actorId },
    });
    if (count === 0) throw decided('correction');
    const details = auditJson({ merchantId: correction.merchantId, proposed: correction.proposed });
    await auditDecision(tx, ctx, { kind: 'correction', id: correction.id, approve, feedback, details });
  });
}
