// The private automation API's story: a sequential work queue, the account's own reports,
// and conditional replacement of a report (If-Match on updatedAt).
import type { PrismaClient } from '../../db/client.js';
import { invalidField, invalidInput, invalidParameter, notFound, Refusal, type LimitUsage } from '../../errors.js';
import { evidenceChanged } from '../aggregation/evidence.js';
import { merchantApiUrl, merchantPageUrl, type Links } from '../directory/notice.js';
import type { Quota } from '../limits/quota.js';
import { contentOf, sameContent } from '../reports/content.js';
import type { ReportSubmission } from '../reports/submission.schema.js';
import { checkTargets, isFutureTestDate, reviewUrl } from '../reports/submissions.service.js';
import { findOwnReportById } from '../reports/submissions.repository.js';
import type { CursorCodec } from './cursor.js';
import type { OwnReportsQuery, QueueQuery } from './automation.schemas.js';
import {
  canonicalCategoryId,
  ownReport,
  ownReportsPage,
  queuePage,
  recordRevision,
  replaceContentIfVersion,
  type OwnListedReport,
} from './automation.repository.js';
import { UUID_PATTERN } from '../../text.js';

export interface AutomationDeps extends Links {
  prisma: PrismaClient;
  queueCursors: CursorCodec;
  reportCursors: CursorCodec;
  agentQuota: Quota;
}

export interface KeyScope {
  accountId: string;
  agentId: string;
}

const DAY_MS = 86_400_000;

export async function queue(deps: AutomationDeps, scope: KeyScope, query: QueueQuery, now: Date) {
  const filters = { category: query.category, retestAfterDays: query.retestAfterDays, agent: scope.agentId };
  const afterId = query.after ? deps.queueCursors.decode(query.after, filters) : null;
  const categoryId = query.category ? await canonicalCategoryId(deps.prisma, query.category) : null;
  if (query.category && !categoryId) throw invalidParameter('category', 'is not a canonical category slug');
  const rows = await queuePage(deps.prisma, {
    ...scope,
    afterId,
    categoryId,
    retestBefore: query.retestAfterDays ? new Date(now.getTime() - query.retestAfterDays * DAY_MS) : null,
    limit: query.limit + 1,
  });
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    items: page.map((row) => ({
      id: row.id,
      slug: row.slug,
      name: row.name,
      website: row.website,
      category: row.categorySlug ? { name: row.categoryName!, slug: row.categorySlug } : null,
      profileUrl: merchantPageUrl(deps, row.slug),
      apiUrl: merchantApiUrl(deps, row.slug),
      ...(row.reportId
        ? { existingReport: { id: row.reportId, status: row.reportStatus!, updatedAt: row.reportUpdatedAt!.toISOString() } }
        : {}),
    })),
    nextCursor: rows.length > query.limit && last ? deps.queueCursors.encode(last.id, filters) : null,
  };
}

export function ownReportView(links: Links, r: OwnListedReport) {
  return {
    id: r.id,
    merchant: { ...r.merchant, url: merchantApiUrl(links, r.merchant.slug) },
    agentId: r.agentId,
    status: r.status,
    moderationFeedback: r.moderationFeedback,
    updatedAt: r.updatedAt.toISOString(),
    createdAt: r.createdAt.toISOString(),
    reviewUrl: reviewUrl(links.baseUrl, r.id),
    screenshotCount: r.screenshotCount,
    capabilityResults: r.content.capabilityResults,
    outcome: r.content.outcome,
    stage: r.content.stage,
    failureReason: r.content.failureReason,
    humanIntervention: r.content.humanIntervention,
    testedAt: r.content.testedAt,
    agentVersion: r.content.agentVersion,
    region: r.content.region,
    task: r.content.task,
    experience: r.content.experience,
  };
}

export async function ownReports(deps: AutomationDeps, scope: KeyScope, query: OwnReportsQuery) {
  const filters = { merchant: query.merchant, agent: scope.agentId };
  const beforeId = query.after ? deps.reportCursors.decode(query.after, filters) : null;
  const rows = await ownReportsPage(deps.prisma, { ...scope, beforeId, merchantId: query.merchant ?? null, limit: query.limit + 1 });
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    items: page.map((r) => ownReportView(deps, r)),
    nextCursor: rows.length > query.limit && last ? deps.reportCursors.encode(last.id, filters) : null,
  };
}

export async function ownReportById(deps: AutomationDeps, scope: KeyScope, id: string) {
  const report = UUID_PATTERN.test(id) ? await ownReport(deps.prisma, { ...scope, id: id.toLowerCase() }) : null;
  if (!report) throw notFound('This account has no report with this id for this agent.');
  return ownReportView(deps, report);
}

/** The version an If-Match header names: the report's updatedAt, quoted or not. */
export function parseIfMatch(header: string | undefined): Date | null | undefined {
  if (header === undefined) return undefined;
  const value = header.trim().replace(/^W\//, '').replace(/^"(.*)"$/, '$1');
  const date = new Date(value);
  return value && !Number.isNaN(date.getTime()) ? date : null;
}

const stale = (updatedAt: Date) =>
  new Refusal({
    kind: 'conflict',
    code: 'stale-version',
    title: 'The report has changed',
    detail: 'If-Match does not name the current version. Read the report again and retry with its updatedAt.',
    extensions: { updatedAt: updatedAt.toISOString() },
  });

/** PUT /automation/reports/:id: a complete replacement, only at the named version. */
export async function replaceReport(
  deps: AutomationDeps,
  scope: KeyScope,
  input: { id: string; ifMatch: string | undefined; body: ReportSubmission; now: Date },
): Promise<{ id: string; status: string; updatedAt: string; unchanged: boolean; usage?: LimitUsage }> {
  const version = parseIfMatch(input.ifMatch);
  if (version === undefined) {
    throw new Refusal({
      kind: 'precondition-required',
      code: 'if-match-required',
      title: 'If-Match required',
      detail: 'Send If-Match with the report\'s updatedAt from your latest read (GET /api/v1/automation/reports).',
    });
  }
  const existing = UUID_PATTERN.test(input.id) ? await findOwnReportById(deps.prisma, scope.accountId, input.id.toLowerCase()) : null;
  if (!existing || existing.agentId !== scope.agentId) throw notFound('This account has no report with this id for this agent.');
  const unchangeable = (['adId', 'agentId'] as const).filter((field) =>
    field === 'adId' ? input.body.adId !== existing.merchantId : input.body.agentId !== existing.agentId,
  );
  // The merchant and agent of a report cannot change.
  if (unchangeable.length > 0) {
    throw invalidInput(unchangeable.map((field) => ({ pointer: `#/${field}`, detail: 'cannot change' })), 'body');
  }
  if (isFutureTestDate(input.body.testedAt, input.now)) throw invalidField('testedAt', 'must not be in the future');
  const content = contentOf(input.body);
  const answer = (status: string, updatedAt: Date, unchanged: boolean) => ({
    id: existing.id,
    status,
    updatedAt: updatedAt.toISOString(),
    unchanged,
  });
  // Identical content writes nothing, whatever version was named: a retried PUT is harmless.
  if (sameContent(existing.content, content)) return answer(existing.status, existing.updatedAt, true);
  if (version === null || version.getTime() !== existing.updatedAt.getTime()) throw stale(existing.updatedAt);
  await checkTargets(deps.prisma, input.body, { channel: 'AGENT_KEY', accountId: scope.accountId, agentId: scope.agentId });

  const usage = await deps.agentQuota.consume(scope.accountId);
  try {
    const updatedAt = await deps.prisma.$transaction(async (tx) => {
      const applied = await replaceContentIfVersion(tx, {
        id: existing.id,
        accountId: scope.accountId,
        expectedUpdatedAt: existing.updatedAt,
        content,
        now: input.now,
      });
      if (!applied) throw stale((await findOwnReportById(tx, scope.accountId, existing.id))?.updatedAt ?? existing.updatedAt);
      await recordRevision(tx, existing, input.now);
      // An approved report leaves the public directory until it is approved again.
      if (existing.status === 'APPROVED') {
        await evidenceChanged(tx, { pairs: [{ merchantId: existing.merchantId, agentId: existing.agentId }] }, input.now);
      }
      return applied;
    });
    return { ...answer('PENDING', updatedAt, false), usage };
  } catch (error) {
    await deps.agentQuota.refund(scope.accountId);
    throw error;
  }
}
