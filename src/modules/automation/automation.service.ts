// The private automation API's story: a sequential work queue, the account's own reports,
// and conditional replacement of a report (If-Match on updatedAt).
import type { PrismaClient } from '../../db/client.js';
import { invalidParameter, notFound, Refusal, type LimitUsage } from '../../errors.js';
import { categoryInfoOf, merchantApiUrl, merchantPageUrl, ownReportApiUrl, type Links } from '../directory/notice.js';
import { findActiveAgentById, findOwnKey } from '../keys/keys.repository.js';
import type { Quota } from '../limits/quota.js';
import { submissionOf, type ReportReplacement } from '../reports/submission.schema.js';
import { replaceOwnReport, validateReplacement } from '../reports/replacement.service.js';
import { parseIfMatch } from '../reports/versions.js';
import { reviewUrl, type ValidationResult } from '../reports/submissions.service.js';
import type { CursorCodec } from './cursor.js';
import type { OwnReportsQuery, QueueQuery } from './automation.schemas.js';
import {
  canonicalCategoryId,
  ownReport,
  ownReportsPage,
  queueCounts,
  queuePage,
  type OwnListedReport,
} from './automation.repository.js';
import { UUID_PATTERN } from '../../text.js';

export interface AutomationDeps extends Links {
  prisma: PrismaClient;
  queueCursors: CursorCodec;
  reportCursors: CursorCodec;
  agentQuota: Quota;
  /** Keys the hash of the submitter's address stored with a replaced report (reports/address-hash.ts). */
  addressSecret?: string;
}

export interface KeyScope {
  accountId: string;
  agentId: string;
}

/**
 * GET /api/v1/automation/me: who this key is. The key's agent (its id is the agentId every
 * report of this key must carry), the key itself (never its secret), the account's public
 * handle (accounts have none yet: null; never the e-mail), and every limit that applies, with
 * what remains: `counted` are the limits this request was counted against, the submission
 * quota is read without counting.
 */
export async function whoami(
  deps: AutomationDeps,
  key: KeyScope & { keyId: string },
  counted: readonly LimitUsage[],
) {
  const [agent, row, submissions] = await Promise.all([
    findActiveAgentById(deps.prisma, key.agentId),
    findOwnKey(deps.prisma, key.accountId, key.keyId),
    deps.agentQuota.usage(key.accountId),
  ]);
  // The bearer check found both a moment ago; gone now means revoked or deactivated meanwhile.
  if (!agent || !row) throw notFound('This key no longer exists.', 'Key not found');
  const limit = ({ partition: _partition, ...usage }: LimitUsage) => usage;
  return {
    agent: { id: agent.id, slug: agent.slug, name: agent.name },
    account: { handle: null },
    key: { id: row.id, prefix: row.displayPrefix, createdAt: row.createdAt.toISOString(), expiresAt: row.expiresAt.toISOString() },
    limits: [...counted, submissions].map(limit),
  };
}

const DAY_MS = 86_400_000;

export async function queue(deps: AutomationDeps, scope: KeyScope, query: QueueQuery, now: Date) {
  const retestOnly = query.retest === 'only';
  if (retestOnly && !query.retestAfterDays) throw invalidParameter('retest', 'retest=only needs retestAfterDays: only reports older than it are due');
  const filters = { category: query.category, retestAfterDays: query.retestAfterDays, ...(retestOnly ? { retest: 'only' } : {}), agent: scope.agentId };
  const afterId = query.after ? deps.queueCursors.decode(query.after, filters) : null;
  const categoryId = query.category ? await canonicalCategoryId(deps.prisma, query.category) : null;
  if (query.category && !categoryId) throw invalidParameter('category', 'is not a canonical category slug');
  const passFilters = {
    ...scope,
    categoryId,
    retestBefore: query.retestAfterDays ? new Date(now.getTime() - query.retestAfterDays * DAY_MS) : null,
    retestOnly,
  };
  const rows = await queuePage(deps.prisma, { ...passFilters, afterId, limit: query.limit + 1 });
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  const { total, remaining } = await queueCounts(deps.prisma, { ...passFilters, afterId: last?.id ?? afterId });
  return {
    items: page.map((row) => ({
      id: row.id,
      slug: row.slug,
      name: row.name,
      website: row.website,
      // Kept for existing clients; categoryInfo is the shape merchant records use.
      category: row.categorySlug ? { name: row.categoryName!, slug: row.categorySlug } : null,
      categoryInfo: categoryInfoOf(deps, row.categorySlug ? { name: row.categoryName!, slug: row.categorySlug } : null),
      profileUrl: merchantPageUrl(deps, row.slug),
      apiUrl: merchantApiUrl(deps, row.slug),
      ...(row.reportId
        ? { existingReport: { id: row.reportId, status: row.reportStatus!, updatedAt: row.reportUpdatedAt!.toISOString() } }
        : {}),
    })),
    nextCursor: rows.length > query.limit && last ? deps.queueCursors.encode(last.id, filters) : null,
    total,
    remaining,
  };
}

/**
 * One own report, in the shape it is written (every field of spec 2.1 by its name, absent ones
 * null) plus what the server keeps: id, status, version, feedback, the merchant. Sent back
 * unchanged with PUT it is an `unchanged` no-op.
 */
function ownReportView(links: Links, r: OwnListedReport) {
  const { category, ...merchant } = r.merchant;
  return {
    id: r.id,
    adId: r.merchant.id,
    agentId: r.agentId,
    privacy: true as const,
    merchant: { ...merchant, url: merchantApiUrl(links, merchant.slug), categoryInfo: categoryInfoOf(links, category) },
    status: r.status,
    moderationFeedback: r.moderationFeedback,
    updatedAt: r.updatedAt.toISOString(),
    createdAt: r.createdAt.toISOString(),
    url: ownReportApiUrl(links, r.id),
    reviewUrl: reviewUrl(links.baseUrl, r.id),
    screenshotCount: r.screenshotCount,
    capabilityResults: r.content.capabilityResults,
    outcome: r.content.outcome,
    outcomeDerived: !r.content.outcomeSupplied,
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

/** PUT /automation/reports/:id: a complete replacement, only at the named version (the rules: reports/replacement.service.ts). */
/** What PUT (and its dry run) hands the replacement service: If-Match read as a version condition. */
function replacementOf(scope: KeyScope, input: { id: string; ifMatch: string | undefined; body: ReportReplacement; now: Date; address?: string }) {
  const ifMatch = parseIfMatch(input.ifMatch);
  if (ifMatch === undefined) {
    throw new Refusal({
      kind: 'precondition-required',
      code: 'if-match-required',
      title: 'If-Match required',
      detail: 'Send If-Match with the report\'s updatedAt from your latest read (GET /api/v1/automation/reports).',
    });
  }
  const submitter = { channel: 'AGENT_KEY' as const, accountId: scope.accountId, agentId: scope.agentId, address: input.address };
  return {
    submitter,
    input: {
      id: input.id,
      version: ifMatch.condition,
      versionRefusal: ifMatch.malformed,
      versionNote: ifMatch.weak > 0 ? ' A weak tag (W/"…") never matches: If-Match compares versions strongly, so send the ETag as given, without W/.' : '',
      body: submissionOf(input.body),
      statusAsRead: input.body.status,
      now: input.now,
    },
  };
}

/**
 * The dry run of PUT /api/v1/automation/reports/{id} (POST …/{id}/validate, validate_report
 * with an id): the same checks and refusals, the version included; nothing written.
 */
export async function validateUpdate(
  deps: AutomationDeps,
  scope: KeyScope,
  update: { id: string; ifMatch: string | undefined; body: ReportReplacement; now: Date },
): Promise<ValidationResult> {
  const { submitter, input } = replacementOf(scope, update);
  return validateReplacement(deps.prisma, submitter, input);
}

export async function replaceReport(
  deps: AutomationDeps,
  scope: KeyScope,
  update: { id: string; ifMatch: string | undefined; body: ReportReplacement; now: Date; address?: string },
): Promise<{ id: string; status: string; updatedAt: string; unchanged: boolean; url: string; usage?: LimitUsage }> {
  const { submitter, input } = replacementOf(scope, update);
  const result = await replaceOwnReport({ prisma: deps.prisma, quota: deps.agentQuota, addressSecret: deps.addressSecret }, submitter, input);
  return {
    id: result.previous.id,
    status: result.status,
    updatedAt: result.updatedAt.toISOString(),
    unchanged: result.unchanged,
    url: ownReportApiUrl(deps, result.previous.id),
    ...(result.usage ? { usage: result.usage } : {}),
  };
}
