// Small factories: a test states the rows it needs, and gets sensible defaults for the rest.
// Every name and slug is unique within a database (a counter), so factories can be called in
// any order, in any test, without clashing.
import type { PrismaClient } from '../../src/db/client.js';
import type { OutcomeKey, StageKey, TaskKey } from '../../src/modules/aggregation/constants.js';
import { evidenceChanged } from '../../src/modules/aggregation/evidence.js';

let sequence = 0;
const next = () => (sequence += 1);

export async function aCategory(prisma: PrismaClient, fields: { name?: string; slug?: string } = {}) {
  const n = next();
  return prisma.category.create({ data: { name: fields.name ?? `Category ${n}`, slug: fields.slug ?? `category-${n}` } });
}

export async function aMerchant(
  prisma: PrismaClient,
  fields: { name?: string; slug?: string; website?: string; categoryId?: string; isPublic?: boolean; approvedCanonical?: boolean; serviceRegions?: string[] } = {},
) {
  const n = next();
  const category = fields.categoryId
    ? await prisma.category.findUniqueOrThrow({ where: { id: fields.categoryId } })
    : await aCategory(prisma);
  return prisma.merchant.create({
    data: {
      name: fields.name ?? `Shop ${n}`,
      slug: fields.slug ?? `shop-${n}`,
      website: fields.website ?? `https://shop-${n}.example`,
      category: category.name,
      categoryId: category.id,
      isPublic: fields.isPublic ?? true,
      approvedCanonical: fields.approvedCanonical ?? true,
      serviceRegions: fields.serviceRegions ?? ['GLOBAL'],
    },
  });
}

export async function anAgent(prisma: PrismaClient, fields: { name?: string; slug?: string; active?: boolean; vendorWebsite?: string } = {}) {
  const n = next();
  return prisma.agent.create({
    data: {
      name: fields.name ?? `Agent ${n}`,
      slug: fields.slug ?? `agent-${n}`,
      vendor: 'Example Labs',
      active: fields.active ?? true,
      vendorWebsite: fields.vendorWebsite ?? null,
    },
  });
}

export async function anAccount(prisma: PrismaClient, fields: { email?: string; role?: 'USER' | 'MODERATOR' | 'ADMIN'; suspended?: boolean } = {}) {
  const n = next();
  return prisma.account.create({
    data: { email: fields.email ?? `person-${n}@example.org`, role: fields.role ?? 'USER', suspended: fields.suspended ?? false },
  });
}

/**
 * A report by a new account (unless one is given). An APPROVED report is public evidence: its
 * summary is recomputed the way a moderator's approval does it.
 */
export async function aReport(
  prisma: PrismaClient,
  fields: {
    merchantId: string;
    agentId: string;
    accountId?: string;
    status?: 'PENDING' | 'APPROVED' | 'REJECTED';
    outcome?: OutcomeKey;
    capabilityResults?: Partial<Record<TaskKey, OutcomeKey>>;
    stage?: StageKey;
    testedAt?: Date;
    createdAt?: Date;
    agentVersion?: string;
  },
  now = new Date(),
) {
  const accountId = fields.accountId ?? (await anAccount(prisma)).id;
  const status = fields.status ?? 'PENDING';
  return prisma.$transaction(async (tx) => {
    const report = await tx.report.create({
      data: {
        accountId,
        merchantId: fields.merchantId,
        agentId: fields.agentId,
        status,
        channel: 'BROWSER',
        outcome: fields.outcome ?? 'WORKS',
        capabilityResults: fields.capabilityResults ?? {},
        stage: fields.stage ?? null,
        testedAt: fields.testedAt ?? null,
        agentVersion: fields.agentVersion ?? null,
        privacyConfirmed: true,
        createdAt: fields.createdAt ?? now,
        ...(status === 'PENDING' ? {} : { moderatedAt: now }),
      },
    });
    if (status === 'APPROVED') await evidenceChanged(tx, { pairs: [{ merchantId: fields.merchantId, agentId: fields.agentId }] }, now);
    return report;
  });
}

/**
 * What contribution tests report on: `merchantCount` public merchants, four active agents, a
 * hidden merchant and an inactive agent.
 */
export async function contributionTargets(prisma: PrismaClient, merchantCount = 30) {
  const category = await aCategory(prisma);
  const merchants = [];
  for (let i = 0; i < merchantCount; i += 1) merchants.push(await aMerchant(prisma, { categoryId: category.id }));
  const agents = [];
  for (let i = 0; i < 4; i += 1) agents.push(await anAgent(prisma));
  const hidden = await aMerchant(prisma, { categoryId: category.id, isPublic: false });
  const inactive = await anAgent(prisma, { active: false });
  return { merchants, agents, hidden, inactive };
}
