// The owners' daily digest (issue 34): once a day at most, each account with a verified claim
// (and the digest on: accounts.notify_owner_digest) is told of the reports approved about its
// merchants (or, for a vendor, its agent) since its last digest, with a link to reply. The
// upkeep queues one message per account in the durable mail outbox (mail_outbox, sent and
// retried like decision notices) in the same transaction that moves each claim's digest_until,
// so a digest is neither lost nor sent twice for the same window.
import type { PrismaClient } from '../../db/client.js';
import type { OwnerDigest } from '../../mail/mailer.js';
import { OUTCOME_LABELS, STAGE_LABELS, type OutcomeKey, type StageKey } from '../aggregation/constants.js';
import { queueMail } from '../moderation/decision-notices.repository.js';
import { VERIFIED_STATUSES } from './claims.repository.js';
import { OWNER_PAGE_PATH } from './paths.js';

/** At most one digest a day per claim. */
export const DIGEST_INTERVAL_MS = 86_400_000;
/** Reports listed in one digest; the owner's page has the rest. */
const DIGEST_MAX_REPORTS = 50;

/** "Blocked (furthest stage: Navigate checkout)": a report's outcome and stage, as its page says them. */
function reportResult(outcome: OutcomeKey, stage: StageKey | null): string {
  return stage ? `${OUTCOME_LABELS[outcome]} (furthest stage: ${STAGE_LABELS[stage]})` : OUTCOME_LABELS[outcome];
}

/**
 * Queues the digests that are due at `now`: claims verified (or in grace) whose last digest is a
 * day old, of accounts that want them. Returns how many messages were queued.
 */
export async function queueOwnerDigests(prisma: PrismaClient, now: Date, baseUrl: string): Promise<{ queued: number }> {
  const base = baseUrl.replace(/\/+$/, '');
  const due = await prisma.claim.findMany({
    where: {
      status: { in: [...VERIFIED_STATUSES] },
      account: { notifyOwnerDigest: true, suspended: false },
      OR: [{ digestUntil: null }, { digestUntil: { lte: new Date(now.getTime() - DIGEST_INTERVAL_MS) } }],
    },
    select: { id: true, accountId: true, merchantId: true, agentId: true, verifiedAt: true, digestUntil: true, account: { select: { email: true } } },
    orderBy: [{ accountId: 'asc' }, { id: 'asc' }],
  });
  const byAccount = new Map<string, typeof due>();
  for (const claim of due) byAccount.set(claim.accountId, [...(byAccount.get(claim.accountId) ?? []), claim]);

  let queued = 0;
  for (const claims of byAccount.values()) {
    const reports: OwnerDigest['reports'] = [];
    const seen = new Set<string>();
    for (const claim of claims) {
      const since = claim.digestUntil ?? claim.verifiedAt ?? now;
      const rows = await prisma.report.findMany({
        where: {
          status: 'APPROVED',
          moderatedAt: { gt: since, lte: now },
          merchant: { isPublic: true },
          agent: { active: true },
          ...(claim.merchantId ? { merchantId: claim.merchantId } : { agentId: claim.agentId! }),
        },
        select: { id: true, outcome: true, stage: true, merchant: { select: { name: true, slug: true } }, agent: { select: { name: true } } },
        orderBy: [{ moderatedAt: 'asc' }, { id: 'asc' }],
        take: DIGEST_MAX_REPORTS,
      });
      for (const r of rows) {
        if (seen.has(r.id)) continue;
        seen.add(r.id);
        reports.push({
          merchantName: r.merchant.name,
          agentName: r.agent.name,
          result: reportResult(r.outcome, r.stage),
          url: `${base}/merchants/${r.merchant.slug}#report-${r.id}`,
          replyUrl: `${base}${OWNER_PAGE_PATH}/${claim.id}/reports`,
        });
      }
    }
    const digest: OwnerDigest = { reports: reports.slice(0, DIGEST_MAX_REPORTS), ownerPageUrl: `${base}${OWNER_PAGE_PATH}` };
    const ids = claims.map((c) => c.id);
    await prisma.$transaction(async (tx) => {
      // Only claims still as read (a concurrent pass moved none of them): the window is ours.
      const { count } = await tx.claim.updateMany({
        where: { id: { in: ids }, OR: [{ digestUntil: null }, { digestUntil: { lte: new Date(now.getTime() - DIGEST_INTERVAL_MS) } }] },
        data: { digestUntil: now },
      });
      if (count !== ids.length) throw new DigestRace();
      if (digest.reports.length > 0) await queueMail(tx, { kind: 'owner-digest', recipient: claims[0]!.account.email, payload: digest, now });
    }).then(
      () => {
        if (digest.reports.length > 0) queued += 1;
      },
      (error: unknown) => {
        if (!(error instanceof DigestRace)) throw error;
      },
    );
  }
  return { queued };
}

/** Another pass took this account's window first: it queued the digest (or will). */
class DigestRace extends Error {}
