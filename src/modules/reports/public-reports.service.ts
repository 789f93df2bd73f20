// The public report feed: recent approved reports, and one approved report by id.
import { invalidParameter, notFound } from '../../errors.js';
import { findActiveAgent } from '../catalog/catalog.repository.js';
import { merchantApiUrl, PAGE_SIZE, reportApiUrl, type Links } from '../directory/notice.js';
import { UUID_PATTERN } from '../../text.js';
import type { DirectoryContext } from '../merchants/merchants.service.js';
import {
  findPublicReport,
  listPublicReports,
  publicMerchantExists,
  type PublicReportRow,
} from './public-reports.repository.js';
import type { ReportQuery } from './public-reports.schemas.js';
import { SIDE_WORDS } from '../claims/owners.service.js';

/** A report as the public API shows it (GET /api/v1/reports/:id), also in feeds and dumps. */
export function reportView(links: Links, row: PublicReportRow) {
  return {
    id: row.id,
    url: reportApiUrl(links, row.id),
    merchant: { id: row.merchantId, slug: row.merchantSlug, name: row.merchantName, url: merchantApiUrl(links, row.merchantSlug) },
    agent: { id: row.agentId, slug: row.agentSlug, name: row.agentName },
    outcome: row.outcome,
    capabilityResults: row.capabilityResults ?? {},
    stage: row.stage,
    failureReason: row.failureReason,
    humanIntervention: row.humanIntervention,
    testedAt: row.testedAt ? row.testedAt.toISOString().slice(0, 10) : null,
    agentVersion: row.agentVersion,
    region: row.region,
    task: row.task,
    experience: row.experience,
    reportedAt: row.createdAt.toISOString(),
    // Additive (issue 37): by the shop's verified owner or the agent's verified vendor; no identity.
    selfReported: row.selfReportedBy !== null,
    selfReportedBy: row.selfReportedBy,
    // Additive: the verified owner's or vendor's reply, moderated; never part of the evidence.
    replies: (row.replies ?? []).map((reply) => ({
      from: SIDE_WORDS[reply.side].who,
      body: reply.body,
      repliedAt: new Date(reply.at).toISOString(),
      attribution: SIDE_WORDS[reply.side].attribution,
    })),
  };
}

export async function recentReports(ctx: DirectoryContext, query: ReportQuery) {
  const [agent, merchantExists, count, cached] = await Promise.all([
    query.agent ? findActiveAgent(ctx.prisma, query.agent) : Promise.resolve(null),
    query.merchant ? publicMerchantExists(ctx.prisma, query.merchant) : Promise.resolve(true),
    ctx.counts.counter(),
    ctx.counts.query(),
  ]);
  if (query.agent && !agent) throw invalidParameter('agent', `no active agent has the slug "${query.agent}"`);
  if (!merchantExists) throw invalidParameter('merchant', `no public merchant has the id "${query.merchant}"`);
  const { total, rows } = await listPublicReports(ctx.prisma, {
    agentId: agent?.id,
    merchantId: query.merchant,
    outcome: query.outcome,
    independent: query.independent,
    offset: (query.page - 1) * PAGE_SIZE,
    limit: PAGE_SIZE,
  }, count, cached);
  return { total, data: rows.map((row) => reportView(ctx, row)) };
}

export async function publicReport(ctx: DirectoryContext, id: string) {
  const row = UUID_PATTERN.test(id) ? await findPublicReport(ctx.prisma, id.toLowerCase()) : null;
  if (!row) throw notFound('No published report has this id.');
  return reportView(ctx, row);
}
