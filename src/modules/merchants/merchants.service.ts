// The public merchant directory: search and profiles, with per-agent summaries from the
// shared aggregation engine (precomputed rows; untested agents computed from no evidence).
import type { PrismaClient } from '../../db/client.js';
import { invalidParameter, notFound } from '../../errors.js';
import { CONFIDENCE_LEVELS, TASKS } from '../aggregation/constants.js';
import type { AgentSummary } from '../aggregation/engine.js';
import { reachLevelOf, reachOf } from '../aggregation/reach.js';
import { compactVerdict, summaryVerdict } from '../aggregation/verdict.js';
import { statusMask } from '../aggregation/status-bits.js';
import { summarize, type EvidenceSources } from '../aggregation/summaries.service.js';
import type { VersionFacts } from '../aggregation/agent-versions.js';
import type { Independent } from '../directory/query.js';
import type { AgentTrend } from '../aggregation/trends.js';
import { findActiveAgent, listActiveAgents, resolveCategory, type AgentRow } from '../catalog/catalog.repository.js';
import {
  agentPageUrl,
  categoryInfoOf,
  merchantApiUrl,
  merchantPageUrl,
  PAGE_SIZE,
  type Links,
} from '../directory/notice.js';
import type { CountCache } from '../directory/counts.js';
import { pageIdentity, type PageCheck } from '../directory/listing.js';
import { SLUG_PATTERN, UUID_PATTERN } from '../../text.js';
import {
  findPublicMerchant,
  publicMerchantPage,
  searchMerchants,
  summariesFor,
  type MerchantRow,
  type MerchantSearch,
} from './merchants.repository.js';
import { agentMerchantQuery, filterRefusal, merchantQuery, type MerchantQuery } from './merchants.schemas.js';

export interface DirectoryContext extends Links {
  prisma: PrismaClient;
  /** The lists' totals, cached per directory version (directory/counts.ts). */
  counts: CountCache;
  now: Date;
}

/** Says who stated it and what it is not. */
export const OWNER_STATEMENT_ATTRIBUTION =
  'Statement by the business owner. It is not community evidence and never changes statuses, scores or report counts.';

/** A verified claim as readers see it: how the owner proved control, and when (a day). */
export const claimPublic = (method: 'DNS' | 'FILE' | 'META' | null, verifiedAt: Date | null) =>
  method && verifiedAt ? { verified: true as const, method: method.toLowerCase() as 'dns' | 'file' | 'meta', verifiedAt: isoDate(verifiedAt) } : null;

// How much of each per-agent summary a response carries:
// - detail: everything (the merchant's own URL);
// - list: every field too, but each task lists only its newest observation and evidence
//   reference (the detail has up to five): the repeated blocks are most of a list's weight;
// - compact (`view=compact`): status and confidence per agent and task, for clients that only
//   need to know where an agent gets through.

const isoDate = (date: Date) => date.toISOString().slice(0, 10);

/** Items of a capability's observation and evidence lists in a list response. */
const LIST_ITEMS_PER_TASK = 1;

const roundRating = (rating: number) => Math.round(rating * 10_000) / 10_000;

function agentRef(links: Links, agent: AgentRow) {
  return { id: agent.id, slug: agent.slug, name: agent.name, vendor: agent.vendor, url: agentPageUrl(links, agent.slug) };
}


/**
 * A stored summary's verdict, and its reach carrying the verdict's sentence and colour as
 * `label` and `tone`: one answer, whichever field a client reads.
 */
function verdictAndReach(summary: AgentSummary) {
  const verdict = summaryVerdict(summary);
  const reach = summary.reach ?? reachOf(summary.capabilities, []);
  return { verdict, reach: { ...reach, label: verdict.sentence, tone: verdict.colour } };
}

/** A summary as stored (summaries.service.ts summaryDocument); older rows may lack the issue-37 parts. */
export type StoredSummaryDocument = AgentSummary & { sources?: EvidenceSources; withSelfReported?: AgentSummary | null; versions?: VersionFacts };

const NO_VERSIONS: VersionFacts = { seen: [], tasks: {}, regressions: [] };

/**
 * The summary a reader asked for: made from the independent reports (the default), or from all
 * of them (independent=all), which differs only where some are self-reported; and the two
 * counts side by side.
 */
function summaryFor(stored: StoredSummaryDocument, independent: Independent = 'only') {
  const summary = independent === 'all' && stored.withSelfReported ? stored.withSelfReported : stored;
  const sources: EvidenceSources = stored.sources ?? { independent: stored.counts.total, selfReported: 0, byOwner: 0, byVendor: 0 };
  return { summary, sources, versions: summary.versions ?? NO_VERSIONS };
}

function agentSummaryView(links: Links, agent: AgentRow, stored: StoredSummaryDocument, shape: 'detail' | 'list' = 'detail', independent: Independent = 'only') {
  const { summary, sources, versions } = summaryFor(stored, independent);
  const absolute = <T extends { url: string }>(refs: T[]) =>
    refs.map((ref) => ({ ...ref, url: ref.url.startsWith('/') ? `${links.baseUrl}${ref.url}` : ref.url }));
  const items = shape === 'list' ? LIST_ITEMS_PER_TASK : Infinity;
  // Stored as jsonb, which does not keep key order: rebuild the tasks in the spec's order.
  const capabilities = Object.fromEntries(
    TASKS.map((task) => {
      const capability = summary.capabilities[task];
      return [
        task,
        {
          ...capability,
          recentObservations: capability.recentObservations.slice(0, items),
          evidence: absolute(capability.evidence.slice(0, items)),
        },
      ];
    }),
  );
  const { verdict, reach } = verdictAndReach(summary);
  return {
    agent: agentRef(links, agent),
    independent,
    // Independent and self-reported reports side by side (issue 37).
    sources,
    versions,
    // The verdict every surface shows (aggregation/verdict.ts); its sentence is the label.
    label: verdict.sentence,
    verdict,
    reach,
    status: summary.status,
    statusTask: summary.statusTask,
    scoreBand: summary.scoreBand,
    rating: roundRating(summary.rating),
    confidence: summary.confidence,
    counts: summary.counts,
    lastTestedAt: summary.lastTestedAt,
    lastReportedAt: summary.lastReportedAt,
    latestEvidenceAt: summary.latestEvidenceAt,
    evidence: absolute(summary.evidence),
    capabilities,
  };
}

function compactSummaryView(links: Links, agent: AgentRow, stored: StoredSummaryDocument, independent: Independent = 'only') {
  const { summary, sources } = summaryFor(stored, independent);
  const { verdict, reach } = verdictAndReach(summary);
  return {
    agent: { id: agent.id, slug: agent.slug, name: agent.name, url: agentPageUrl(links, agent.slug) },
    independent,
    sources,
    label: verdict.sentence,
    verdict: compactVerdict(verdict),
    reach,
    status: summary.status,
    statusTask: summary.statusTask,
    scoreBand: summary.scoreBand,
    confidence: summary.confidence,
    reportCount: summary.counts.total,
    lastReportedAt: summary.lastReportedAt,
    capabilities: Object.fromEntries(
      TASKS.map((task) => [task, { status: summary.capabilities[task].status, confidence: summary.capabilities[task].confidence }]),
    ),
  };
}

export type AgentSummaryView = ReturnType<typeof agentSummaryView>;


function merchantView<A = AgentSummaryView>(links: Links, row: MerchantRow, agents: A[]) {
  const sponsored = row.sponsorshipSource !== null;
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    website: row.website,
    url: merchantApiUrl(links, row.slug),
    profileUrl: merchantPageUrl(links, row.slug),
    category: row.category,
    categoryInfo: categoryInfoOf(links, row.categorySlug && row.categoryName ? { name: row.categoryName, slug: row.categorySlug } : null),
    serviceRegions: row.serviceRegions,
    sponsored,
    placement: sponsored ? row.sponsorshipPlacement : null,
    sponsorshipDisclosure: sponsored ? row.sponsorshipDisclosure : null,
    sponsorshipSource: row.sponsorshipSource,
    ownerCompatibility:
      row.ownerStatement !== null && row.ownerDeclaredAt !== null
        ? {
            statement: row.ownerStatement,
            taskClaims: row.ownerTaskClaims ?? {},
            declaredAt: isoDate(row.ownerDeclaredAt),
            attribution: OWNER_STATEMENT_ATTRIBUTION,
            // Written by the owner under a verified claim (else entered by a moderator).
            byVerifiedOwner: row.ownerByClaim,
          }
        : null,
    claim: claimPublic(row.claimMethod, row.claimVerifiedAt),
    reportCount: row.reportCount,
    lastReportedAt: row.lastReportedAt?.toISOString() ?? null,
    agents,
  };
}

export type MerchantView = ReturnType<typeof merchantView<AgentSummaryView>>;

function compactMerchantView(links: Links, row: MerchantRow, agents: Array<ReturnType<typeof compactSummaryView>>) {
  const { id, slug, name, website, url, profileUrl, category, categoryInfo, sponsored, placement, sponsorshipDisclosure, sponsorshipSource, reportCount, lastReportedAt } =
    merchantView(links, row, []);
  return { id, slug, name, website, url, profileUrl, category, categoryInfo, sponsored, placement, sponsorshipDisclosure, sponsorshipSource, reportCount, lastReportedAt, agents };
}

async function resolveFilters(ctx: DirectoryContext, query: MerchantQuery, scopedAgent?: AgentRow) {
  const agent = scopedAgent ?? (query.agent ? await findActiveAgent(ctx.prisma, query.agent) : null);
  if (query.agent && !agent) throw invalidParameter('agent', `no active agent has the slug "${query.agent}"`);
  const category = query.category ? await resolveCategory(ctx.prisma, query.category) : null;
  if (query.category && !category) throw invalidParameter('category', `no category is named or slugged "${query.category}"`);
  return { agent, category };
}

/**
 * GET /merchants and /agents/:slug/merchants (as the pages use it: `list` shape). With
 * `countSponsored`, also how many of the matches are sponsored listings.
 */
export async function searchDirectory(ctx: DirectoryContext, query: MerchantQuery, scopedAgent?: AgentRow, options: { countSponsored?: boolean } = {}) {
  const { total, sponsored, merchants, page } = await searchSummaries(ctx, query, scopedAgent, options.countSponsored);
  const data = merchants.map(({ row, summaries }) =>
    merchantView(ctx, row, summaries.map(({ agent, summary }) => agentSummaryView(ctx, agent, summary, 'list', query.independent))),
  );
  return { total, sponsored, data, page };
}

/** The same search in the compact view (`view=compact`). */
export async function searchDirectoryCompact(ctx: DirectoryContext, query: MerchantQuery, scopedAgent?: AgentRow) {
  const { total, merchants, page } = await searchSummaries(ctx, query, scopedAgent);
  const data = merchants.map(({ row, summaries }) =>
    compactMerchantView(ctx, row, summaries.map(({ agent, summary }) => compactSummaryView(ctx, agent, summary, query.independent))),
  );
  return { total, data, page };
}

/** To the minute, so that count queries repeat (and hit the count cache) within a minute. */
const minuteOf = (now: Date) => new Date(Math.floor(now.getTime() / 60_000) * 60_000);

/** How a list's page is found again (see PageCheck): the same search at a later time, by the listing as new as the directory. */
function pageCheck(counts: CountCache, search: MerchantSearch, identity: string): PageCheck {
  return {
    identity,
    async identityAt(now) {
      const listing = await counts.listing();
      const found = listing?.search({ ...search, now: minuteOf(now) });
      return found ? pageIdentity(found) : null;
    },
  };
}

/**
 * The filters on what the agent's summary says, as the stored columns hold them: the reach's
 * ladder level, the task statuses as bits and the reach's confidence rank.
 */
function reachFilters(query: MerchantQuery): Pick<MerchantSearch, 'reachLevel' | 'statusMask' | 'minConfidence'> {
  const { reaches, task, taskStatus, minConfidence } = query;
  return {
    reachLevel: reaches ? reachLevelOf(reaches) : undefined,
    statusMask: task && taskStatus ? statusMask(task, taskStatus) : undefined,
    minConfidence: minConfidence ? CONFIDENCE_LEVELS.indexOf(minConfidence) : undefined,
  };
}

async function searchSummaries(ctx: DirectoryContext, query: MerchantQuery, scopedAgent?: AgentRow, countSponsored = false) {
  const { agent, category } = await resolveFilters(ctx, query, scopedAgent);
  // The schemas refuse these without an agent; a caller that skipped them is refused the same way.
  if (!agent) {
    if (query.reaches !== undefined) throw filterRefusal('reachNeedsAgent', 'reaches');
    if (query.minConfidence !== undefined) throw filterRefusal('confidenceNeedsAgent', 'minConfidence');
    if (query.task !== undefined || query.taskStatus !== undefined) throw filterRefusal('taskNeedsAgent', 'task');
    if (query.sort === 'reach') throw filterRefusal('sortReachNeedsAgent', 'sort');
    if (query.sort === 'rating') throw filterRefusal('sortRatingNeedsAgent', 'sort');
  }
  const search: MerchantSearch = {
    q: query.q,
    categoryId: category?.id,
    agentId: agent?.id,
    outcome: query.outcome,
    stage: query.stage,
    region: query.region,
    days: query.days,
    minReports: query.minReports,
    ...reachFilters(query),
    sort: query.sort,
    offset: (query.page - 1) * PAGE_SIZE,
    limit: PAGE_SIZE,
    // Sponsorships start and end on whole days, and `days` is not meant to the second.
    now: minuteOf(ctx.now),
    countSponsored,
  };
  // The in-memory listing when it is as new as this request's version; else SQL with the count cache.
  const listing = await ctx.counts.listing();
  const [{ total, sponsored, rows, page }, agents] = await Promise.all([
    searchMerchants(ctx.prisma, search, listing ? undefined : await ctx.counts.counter(), listing),
    agent ? Promise.resolve([agent]) : listActiveAgents(ctx.prisma),
  ]);
  const summaries = await summariesFor(
    ctx.prisma,
    rows.map((r) => r.id),
    agent?.id,
  );
  const agentsById = new Map(agents.map((a) => [a.id, a]));
  const merchants = rows.map((row) => ({
    row,
    summaries: summaries
      .filter((s) => s.merchantId === row.id && agentsById.has(s.agentId))
      .map((s) => ({ agent: agentsById.get(s.agentId)!, summary: s.summary as StoredSummaryDocument }))
      .sort((a, b) => a.agent.name.localeCompare(b.agent.name)),
  }));
  return { total, sponsored, merchants, page: page === null ? null : pageCheck(ctx.counts, search, page) };
}

const trendOfSummary = (summary: AgentSummary | undefined): AgentTrend | null => (summary as { trend?: AgentTrend } | undefined)?.trend ?? null;

/** GET /merchants/:slugOrId: every active agent, untested ones included. */
export async function merchantProfile(ctx: DirectoryContext, slugOrId: string, independent: Independent = 'only') {
  const key = UUID_PATTERN.test(slugOrId) ? { id: slugOrId.toLowerCase() } : SLUG_PATTERN.test(slugOrId) ? { slug: slugOrId } : null;
  if (!key) throw notFound('No public merchant has this slug or id.');
  const [row, agents] = await Promise.all([findPublicMerchant(ctx.prisma, key, ctx.now), listActiveAgents(ctx.prisma)]);
  if (!row) throw notFound('No public merchant has this slug or id.');
  const stored = new Map(
    (await summariesFor(ctx.prisma, [row.id], undefined, { trend: true })).map((s) => [s.agentId, s.summary as StoredSummaryDocument]),
  );
  const untested = summarize([], ctx.now);
  return merchantView(
    ctx,
    row,
    // Each agent's trend (its statuses over the last 90 days, outcomes per month), stored with its summary.
    agents.map((agent) => ({ ...agentSummaryView(ctx, agent, stored.get(agent.id) ?? untested, 'detail', independent), trend: trendOfSummary(stored.get(agent.id)) })),
  );
}

/**
 * Public merchants after `afterId` in id order, each with the full summary of every agent that
 * has approved reports: the bulk export's merchant and summary lines (modules/open-data).
 */
export async function merchantPage(ctx: DirectoryContext, afterId: string | null, limit: number) {
  const rows = await publicMerchantPage(ctx.prisma, afterId, limit, ctx.now);
  const [agents, summaries] = await Promise.all([listActiveAgents(ctx.prisma), summariesFor(ctx.prisma, rows.map((r) => r.id))]);
  const agentById = new Map(agents.map((a) => [a.id, a]));
  return rows.map((row) =>
    merchantView(
      ctx,
      row,
      summaries
        .filter((s) => s.merchantId === row.id && agentById.has(s.agentId))
        .map((s) => agentSummaryView(ctx, agentById.get(s.agentId)!, s.summary as StoredSummaryDocument)),
    ),
  );
}

/**
 * Runs each kind of directory read once, before the process takes requests: the first request of
 * a fresh process otherwise paid for opening database connections, compiling the queries and
 * the code's first runs (124-561 ms at 100,000 merchants, where the same read then takes
 * 20-40 ms). What it reads is thrown away; a read that fails is the caller's to report.
 */
export async function warmDirectoryReads(ctx: DirectoryContext): Promise<void> {
  const [agent] = await listActiveAgents(ctx.prisma);
  const reads: Array<Promise<unknown>> = [
    searchDirectory(ctx, merchantQuery.parse({})),
    searchDirectory(ctx, merchantQuery.parse({ outcome: 'WORKS', sort: 'recent' })),
    searchDirectoryCompact(ctx, merchantQuery.parse({ sort: 'name' })),
  ];
  if (agent) {
    reads.push(
      searchDirectory(ctx, agentMerchantQuery.parse({ reaches: 'CART', sort: 'reach' }), agent),
      searchDirectory(ctx, agentMerchantQuery.parse({ task: 'CHECKOUT', taskStatus: 'supported', sort: 'rating' }), agent),
      searchDirectory(ctx, agentMerchantQuery.parse({ minConfidence: 'medium', stage: 'CART' }), agent),
    );
  }
  const [first] = await Promise.all(reads);
  const slug = (first as Awaited<ReturnType<typeof searchDirectory>>).data[0]?.slug;
  if (slug) await merchantProfile(ctx, slug);
}
