// Reports as their authors write them: create, find one's own, the targets they name, and the
// conditional replacement (the API's PUT and the edit form) with its revision row.
import { Prisma } from '../../generated/prisma/client.js';
import type { Db, PrismaClient } from '../../db/client.js';
import type { ReportContent } from './content.js';

export interface OwnReportRow {
  id: string;
  accountId: string;
  merchantId: string;
  agentId: string;
  status: 'PENDING' | 'APPROVED' | 'REJECTED';
  updatedAt: Date;
  content: ReportContent;
}

export const ownSelect = {
  id: true,
  accountId: true,
  merchantId: true,
  agentId: true,
  status: true,
  updatedAt: true,
  capabilityResults: true,
  outcome: true,
  outcomeSupplied: true,
  experience: true,
  testedAt: true,
  agentVersion: true,
  region: true,
  task: true,
  stage: true,
  failureReason: true,
  humanIntervention: true,
} as const;

type Selected = Prisma.ReportGetPayload<{ select: typeof ownSelect }>;

export const toOwnReport = (r: Selected): OwnReportRow => ({
  id: r.id,
  accountId: r.accountId,
  merchantId: r.merchantId,
  agentId: r.agentId,
  status: r.status,
  updatedAt: r.updatedAt,
  content: {
    capabilityResults: (r.capabilityResults ?? {}) as ReportContent['capabilityResults'],
    outcome: r.outcome,
    outcomeSupplied: r.outcomeSupplied,
    experience: r.experience,
    testedAt: r.testedAt ? r.testedAt.toISOString().slice(0, 10) : null,
    agentVersion: r.agentVersion,
    region: r.region,
    task: r.task,
    stage: r.stage,
    failureReason: r.failureReason,
    humanIntervention: r.humanIntervention,
  },
});

function contentColumns(content: ReportContent) {
  return {
    capabilityResults: content.capabilityResults,
    outcome: content.outcome,
    outcomeSupplied: content.outcomeSupplied,
    experience: content.experience,
    testedAt: content.testedAt ? new Date(`${content.testedAt}T00:00:00Z`) : null,
    agentVersion: content.agentVersion,
    region: content.region,
    task: content.task,
    stage: content.stage,
    failureReason: content.failureReason,
    humanIntervention: content.humanIntervention,
  };
}

export async function findOwnReport(
  db: Db,
  key: { accountId: string; agentId: string; merchantId: string },
): Promise<OwnReportRow | null> {
  const row = await db.report.findUnique({ where: { accountId_agentId_merchantId: key }, select: ownSelect });
  return row ? toOwnReport(row) : null;
}

export async function findOwnReportById(db: Db, accountId: string, id: string): Promise<OwnReportRow | null> {
  const row = await db.report.findFirst({ where: { id, accountId }, select: ownSelect });
  return row ? toOwnReport(row) : null;
}

export async function insertReport(
  db: Db,
  data: {
    accountId: string;
    merchantId: string;
    agentId: string;
    channel: 'BROWSER' | 'AGENT_KEY';
    content: ReportContent;
    now: Date;
    /** Private: the keyed hash of the submitter's address (address-hash.ts). */
    addressHash?: string | null;
  },
): Promise<OwnReportRow> {
  const row = await db.report.create({
    data: {
      accountId: data.accountId,
      merchantId: data.merchantId,
      agentId: data.agentId,
      channel: data.channel,
      status: 'PENDING',
      privacyConfirmed: true,
      createdAt: data.now,
      updatedAt: data.now,
      addressHash: data.addressHash ?? null,
      ...contentColumns(data.content),
    },
    select: ownSelect,
  });
  return toOwnReport(row);
}

export async function isPublicMerchant(prisma: PrismaClient, id: string): Promise<boolean> {
  return (await prisma.merchant.count({ where: { id, isPublic: true } })) > 0;
}

export async function isActiveAgent(prisma: PrismaClient, id: string): Promise<boolean> {
  return (await prisma.agent.count({ where: { id, active: true } })) > 0;
}

/**
 * Replaces the content and sends the report back to PENDING, only if it is still at version
 * `expectedUpdatedAt`: of two concurrent updates with one version, exactly one matches.
 * Returns the new version, or null when the report was not at that version.
 */
export async function replaceContentIfVersion(
  db: Db,
  q: { id: string; accountId: string; expectedUpdatedAt: Date; content: ReportContent; now: Date; addressHash?: string | null },
): Promise<Date | null> {
  const c = contentColumns(q.content);
  const rows = await db.$queryRaw<Array<{ updated_at: Date }>>`
    UPDATE reports SET
      capability_results = ${JSON.stringify(c.capabilityResults)}::jsonb,
      outcome = ${c.outcome}::"Outcome",
      outcome_supplied = ${c.outcomeSupplied},
      experience = ${c.experience},
      tested_at = ${c.testedAt}::date,
      agent_version = ${c.agentVersion},
      region = ${c.region},
      task = ${c.task},
      stage = ${c.stage}::"Stage",
      failure_reason = ${c.failureReason}::"FailureReason",
      human_intervention = ${c.humanIntervention},
      status = 'PENDING',
      -- The address of the newest submission of this content (private; a replacement without one keeps the old).
      address_hash = coalesce(${q.addressHash ?? null}, address_hash),
      -- A new version must differ from the old one even within one millisecond.
      updated_at = greatest(${q.now}::timestamptz, updated_at + interval '1 millisecond')
    WHERE id = ${q.id}::uuid AND account_id = ${q.accountId}::uuid AND updated_at = ${q.expectedUpdatedAt}
    RETURNING updated_at`;
  return rows[0]?.updated_at ?? null;
}

export async function recordRevision(db: Db, report: OwnReportRow, now: Date): Promise<void> {
  await db.reportRevision.create({
    data: { reportId: report.id, status: report.status, content: report.content as unknown as Prisma.InputJsonValue, createdAt: now },
  });
}

/** Whether an approved report of this agent already named this version (the agents' versions list). */
export async function isSeenVersion(db: Db, agentId: string, version: string): Promise<boolean> {
  const found = await db.report.findFirst({ where: { agentId, agentVersion: version, status: 'APPROVED' }, select: { id: true } });
  return found !== null;
}
