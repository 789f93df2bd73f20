// Reports as their authors write them: create, find one's own, and the targets they name.
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

export function contentColumns(content: ReportContent) {
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

