// The public merchant directory: search and profiles, with per-agent summaries from the
// shared aggregation engine (precomputed rows; untested agents computed from no evidence).
import type pg from 'pg';
import type { PrismaClient } from '../../db/client.js';
import { invalidParameter, notFound } from '../../errors.js';
import { CONFIDENCE_LEVELS, TASKS } from '../aggregation/constants.js';
import type { AgentSummary } from '../aggregation/engine.js';
import { reachLevelOf } from '../aggregation/reach.js';
import { compactVerdict } from '../aggregation/verdict.js';
import { listBodyJson, summaryBody, summaryFor, verdictAndReach, type StoredSummaryDocument } from '../aggregation/summary-view.js';
import { statusMask } from '../aggregation/status-bits.js';
import { listStamp, summarize } from '../aggregation/summaries.service.js';
import type { Independent } from '../directory/query.js';
import type { AgentTrend } from '../aggregation/trends.js';
import { activeAgentOfVersion, activeAgentsOfVersion, listActiveAgents, resolveCategory, type AgentRow } from '../catalog/catalog.repository.js';
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
import { asciiJson, RawJson } from '../../raw-json.js';
import {
  findPublicMerchant,
  publicMerchantPage,
  searchMerchants,
  listSummariesFor,
  summaryTextsFor,
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

/** What the API's lists read with: the directory's context, and the pool their summary texts are read through (listSummariesFor). */
export interface ListContext extends DirectoryContext {
  pool: pg.Pool;
}

/** Says who stated it and what it is not. */
export const OWNER_STATEMENT_ATTRIBUTION =
  'Statement by the business owner. It is not community evidence and never changes statuses, scores or report counts.';

/** A verified claim as readers see it: how the owner proved control, and when (a day). */
export const claimPublic = (method: 'DNS' | 'FILE' | 'META' | null, verifiedAt: Date | null) =>
  method && verifiedAt ? { verified: true as const, method: method.toLowerCase() as 'dns' | 'file' | 'meta', verifiedAt: isoDate(verifiedAt) } : null;

const isoDate = (date: Date) => date.toISOString().slice(0, 10);

function agentRef(links: Links, agent: AgentRow) {
  return { id: agent.id, slug: agent.slug, name: agent.name, vendor: agent.vendor, url: agentPageUrl(links, agent.slug) };
}

/** An agent's summary as the detail (every item) or a list (each task's newest) shows it. */
function agentSummaryView(links: Links, agent: AgentRow, stored: StoredSummaryDocument, shape: 'detail' | 'list' = 'detail', independent: Independent = 'only') {
  return { agent: agentRef(links, agent), ...summaryBody(links.baseUrl, stored, shape, independent) };
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
  const agent = scopedAgent ?? (query.agent ? await activeAgentOfVersion(await ctx.counts.query(), query.agent) : null);
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
export async function searchDirectoryCompact(ctx: ListContext, query: MerchantQuery, scopedAgent?: AgentRow) {
  const { total, merchants, page } = await searchSummaries(ctx, query, scopedAgent, false, (ids, agentId) => summaryTextsFor(ctx.pool, ids, agentId));
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

/**
 * A search's page: its merchants' rows, the agents they are shown with, and what `summariesOf`
 * reads of the page's merchants, read at the same time as their rows.
 */
async function searchRows<S>(
  ctx: DirectoryContext,
  query: MerchantQuery,
  scopedAgent: AgentRow | undefined,
  countSponsored: boolean,
  summariesOf: (ids: readonly string[], agentId: string | undefined) => Promise<S[]>,
) {
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
  const [{ total, sponsored, rows, page, alongside }, agents] = await Promise.all([
    searchMerchants(ctx.prisma, search, listing ? undefined : await ctx.counts.counter(), listing, (ids) => summariesOf(ids, agent?.id)),
    agent ? Promise.resolve([agent]) : ctx.counts.query().then(activeAgentsOfVersion),
  ]);
  return { total, sponsored, rows, agents, summaries: alongside ?? [], page: page === null ? null : pageCheck(ctx.counts, search, page) };
}

/** Each merchant's summaries of the given active agents, in the agents' name order. */
function byMerchant<S extends { merchantId: string; agentId: string }>(rows: readonly MerchantRow[], agents: readonly AgentRow[], summaries: readonly S[]) {
  const agentsById = new Map(agents.map((a) => [a.id, a]));
  return rows.map((row) => ({
    row,
    summaries: summaries
      .filter((s) => s.merchantId === row.id && agentsById.has(s.agentId))
      .map((s) => ({ agent: agentsById.get(s.agentId)!, summary: s }))
      .sort((a, b) => a.agent.name.localeCompare(b.agent.name)),
  }));
}

async function searchSummaries(
  ctx: DirectoryContext,
  query: MerchantQuery,
  scopedAgent?: AgentRow,
  countSponsored = false,
  read = (ids: readonly string[], agentId: string | undefined) => summariesFor(ctx.prisma, ids, agentId),
) {
  const { total, sponsored, rows, agents, summaries, page } = await searchRows(ctx, query, scopedAgent, countSponsored, read);
  const merchants = byMerchant(rows, agents, summaries).map(({ row, summaries: found }) => ({
    row,
    summaries: found.map(({ agent: a, summary }) => ({ agent: a, summary: summary.summary as StoredSummaryDocument })),
  }));
  return { total, sponsored, merchants, page };
}

/**
 * searchDirectory's answer as the API sends it, each merchant already JSON: each agent's body
 * is the fragment the summary writer stored (aggregation/summary-view.ts), joined to the agent
 * and the merchant, and built here only where the stored one was printed by other code. The
 * same bytes as JSON.stringify of searchDirectory's `data` with every character past ASCII
 * escaped, as the fragments are (asciiJson; test/public/list-fragments.test.ts).
 */
export async function searchDirectoryJson(ctx: ListContext, query: MerchantQuery, scopedAgent?: AgentRow) {
  // The fragments are of the independent reports' summaries (the default).
  if (query.independent !== 'only') {
    const { total, data, page } = await searchDirectory(ctx, query, scopedAgent);
    return { total, data: data.map((merchant) => new RawJson(asciiJson(JSON.stringify(merchant)))), shows: data.map((merchant) => merchant.id), page };
  }
  const { total, rows, agents, summaries, page } = await searchRows(ctx, query, scopedAgent, false, (ids, agentId) =>
    listSummariesFor(ctx.pool, ids, agentId, listStamp()),
  );
  const refs = new Map<string, string>();
  const refOf = (a: AgentRow) => refs.get(a.id) ?? refs.set(a.id, asciiJson(JSON.stringify(agentRef(ctx, a)))).get(a.id)!;
  const data = byMerchant(rows, agents, summaries).map(({ row, summaries: found }) => {
    const merchant = asciiJson(JSON.stringify(merchantView(ctx, row, [])));
    const bodies = found.map(({ agent: a, summary }) =>
      summary.fragment !== null
        ? `{"agent":${refOf(a)},${listBodyJson(ctx.baseUrl, summary.fragment).slice(1)}`
        : asciiJson(JSON.stringify(agentSummaryView(ctx, a, summary.summary as StoredSummaryDocument, 'list', 'only'))),
    );
    // merchantView ends with its agents (an empty list here).
    return new RawJson(`${merchant.slice(0, -EMPTY_AGENTS.length)}"agents":[${bodies.join(',')}]}`);
  });
  return { total, data, shows: rows.map((row) => row.id), page };
}

const EMPTY_AGENTS = '"agents":[]}';

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
export async function warmDirectoryReads(ctx: ListContext): Promise<void> {
  const [agent] = await listActiveAgents(ctx.prisma);
  // The API's lists (joined from fragments) and the pages' (built).
  const reads: Array<Promise<unknown>> = [
    searchDirectoryJson(ctx, merchantQuery.parse({})),
    searchDirectory(ctx, merchantQuery.parse({ sort: 'recent' })),
    searchDirectoryJson(ctx, merchantQuery.parse({ outcome: 'WORKS', sort: 'recent' })),
    searchDirectoryCompact(ctx, merchantQuery.parse({ sort: 'name' })),
  ];
  if (agent) {
    reads.push(
      searchDirectoryJson(ctx, agentMerchantQuery.parse({ reaches: 'CART', sort: 'reach' }), agent),
      searchDirectoryJson(ctx, agentMerchantQuery.parse({ task: 'CHECKOUT', taskStatus: 'supported', sort: 'rating' }), agent),
      searchDirectoryJson(ctx, agentMerchantQuery.parse({ minConfidence: 'medium', stage: 'CART' }), agent),
    );
  }
  const [, pages] = await Promise.all(reads);
  const slug = (pages as Awaited<ReturnType<typeof searchDirectory>>).data[0]?.slug;
  if (slug) await merchantProfile(ctx, slug);
}
