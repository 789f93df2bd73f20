// The public site: the directory (`/`, `/categories/:slug`, `/agents/:slug`), a merchant's page,
// `/how-it-works` and `/agent-guide`. Every page reads through the same services as the JSON API
// (searchDirectory, merchantProfile, recentReports, categories, agents) and the same aggregation
// constants, so a merchant looks the same everywhere. Routes: http/routers/pages.ts.
import type { Request, RequestHandler, Response } from 'express';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config/env.js';
import type { PrismaClient } from '../../db/client.js';
import { cacheScope, cacheShows } from '../../web/middleware/response-cache.js';
import { isProblemCode, PROBLEM_TYPES, problemTypeUrl } from '../../problem-types.js';
import { sparklineSvg } from '../open-data/sparkline.js';
import { CAPABILITY_STATUS_LABELS as STATUS_WORDS, TASK_LABELS as TASK_WORDS, TASKS as TASK_KEYS } from '../aggregation/constants.js';
import { TREND_DAYS, TREND_MONTHS, type AgentTrend } from '../aggregation/trends.js';

/** An agent's trend for the merchant page: the 90-day status, the tasks that moved, the sparkline. */
function trendView(summary: { agent: { name: string }; status: keyof typeof STATUS_WORDS; capabilities: Record<string, { status: keyof typeof STATUS_WORDS }> }, trend: AgentTrend) {
  return {
    reportCount: trend.reportCount,
    windowDays: trend.windowDays,
    statusLabel: STATUS_WORDS[trend.status],
    changed: trend.status !== summary.status,
    movedTasks: TASK_KEYS.filter((t) => trend.capabilities[t] !== 'untested' && trend.capabilities[t] !== summary.capabilities[t]?.status).map((t) => ({
      label: TASK_WORDS[t],
      lately: STATUS_WORDS[trend.capabilities[t]],
      allTime: STATUS_WORDS[summary.capabilities[t]!.status],
    })),
    sparkline: sparklineSvg(trend.months, summary.agent.name),
  };
}
import { MAX_EVIDENCE_REFERENCES } from '../aggregation/constants.js';
import { methodology } from '../aggregation/methodology.js';
import { resolveCategory, type AgentRow } from '../catalog/catalog.repository.js';
import { activeAgent, agents, agentViews, categories, type AgentView } from '../catalog/catalog.service.js';
import { DISCLAIMER, PAGE_SIZE } from '../directory/notice.js';
import { independentParam as INDEPENDENT_QUERY, pageParam } from '../directory/query.js';
import { merchantProfile, OWNER_STATEMENT_ATTRIBUTION, searchDirectory, type DirectoryContext } from '../merchants/merchants.service.js';
import { MERCHANT_SORTS } from '../merchants/merchants.schemas.js';
import { recentReports } from '../reports/public-reports.service.js';
import { CONTRIBUTION_SCHEMA_PATH } from '../reports/contribution-schema.js';
import { agentGuide, agentGuideReference, type McpFacts } from './agent-guide.js';
import { AGENT_FILTERS, FILTER_LABELS, filterErrorsOf, filterQueryString, parseFilters, type FilterError, type FilterField, type Scope } from './filters.js';
import {
  agentsNamed,
  confidenceInWords,
  listOf,
  matrixRows,
  PLACEMENT_LABELS,
  reachCountLabel,
  SPONSORED_LABEL,
  taskStatusWords,
  viewHelpers,
} from './present.js';
import { agentCategoryTallies, agentOverview, agentRegressions, categoryTallies, newestApprovedReportAt, STUCK_STATUSES, verdictsOn, type AgentRegressionRow, type ReachTally } from './site.repository.js';
import { UNTESTED_FACTS, verdictOf } from '../aggregation/verdict.js';
import { REACH_STEP_WORDS } from '../aggregation/reach.js';
import type { FunnelTaskKey } from '../aggregation/constants.js';
import { notFound, Refusal } from '../../errors.js';
import { formatDate } from '../../dates.js';
import { CLAIM_RULES } from '../claims/rules.js';
import { EVIDENCE_RULES } from '../aggregation/evidence-rules.js';
import { SIGNAL_RULES } from '../moderation/signals.js';
import { METHOD_SHORT } from '../claims/proof.js';
import { checkerUserAgent } from '../../outbound/fetcher.js';
import { cacheControl } from '../../web/cache-control.js';
import { PAGE_PATHS } from '../../paths.js';

export interface SitePagesDeps {
  config: Config;
  prisma: PrismaClient;
  clock: Clock;
  /** What the agent guide prints about the MCP server (app.ts hands it over from src/mcp). */
  mcp: McpFacts;
}

const SORT_LABELS: Readonly<Record<(typeof MERCHANT_SORTS)[number], string>> = {
  recent: 'Most recently reported',
  popular: 'Most reports',
  name: 'Name',
  reach: 'How far the agent gets (needs an agent)',
  rating: 'Rating (needs an agent)',
};

/** How a verified claim was proved, after "verified by". */

/** Days counted as "recent" in an agent page's overview. */
const AGENT_OVERVIEW_DAYS = 30;

/** The filters that narrow the results (search text, sort and page do not). */
const NARROWING: readonly FilterField[] = ['category', 'agent', 'reaches', 'task', 'taskStatus', 'minConfidence', 'outcome', 'stage', 'region', 'days', 'minReports'];

const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#0a58ca"/>' +
  '<path d="M8 17l5 5 11-12" fill="none" stroke="#fff" stroke-width="4" stroke-linecap="round" stroke-linejoin="round"/></svg>';

/** Public pages may be cached briefly by the browser only: the header shows who is signed in. */
export const browserCachedPage: RequestHandler = (_req, res, next) => {
  cacheControl(res, 'browser-revalidate');
  next();
};

/**
 * A category's agents, furthest first: by how many of its shops each gets at least as far as
 * checkout, then to a purchase, then by shops with reports; agents without reports there last.
 */
function categoryLeaders<A extends { id: string; slug: string; name: string }>(agentList: readonly A[], tallies: ReadonlyMap<string, ReachTally>) {
  const none: ReachTally = { tested: 0, checkout: 0, purchase: 0 };
  return agentList
    .map((agent) => ({ agent, ...(tallies.get(agent.id) ?? none) }))
    .sort((a, b) => b.checkout - a.checkout || b.purchase - a.purchase || b.tested - a.tested || a.agent.name.localeCompare(b.agent.name));
}

/** An agent's categories with reports about it, furthest first, as categoryLeaders orders agents. */
function agentCategories<C extends { slug: string; name: string; merchantCount: number }>(categoryList: readonly C[], tallies: ReadonlyMap<string, ReachTally>) {
  return categoryList
    .flatMap((category) => {
      const tally = tallies.get(category.slug);
      return tally ? [{ category, ...tally }] : [];
    })
    .sort((a, b) => b.checkout - a.checkout || b.purchase - a.purchase || b.tested - a.tested || a.category.name.localeCompare(b.category.name));
}

async function everyPage<T>(load: (page: number) => Promise<{ total: number; data: T[] }>): Promise<T[]> {
  const first = await load(1);
  const all = [...first.data];
  for (let page = 2; all.length < first.total && page <= Math.ceil(first.total / PAGE_SIZE); page += 1) {
    all.push(...(await load(page)).data);
  }
  return all;
}

export function sitePageHandlers(deps: SitePagesDeps) {
  const { config } = deps;
  const ctx = (): DirectoryContext => ({ prisma: deps.prisma, baseUrl: config.baseUrl, now: deps.clock.now() });
  /** What the footer of every public page shows: the date of the newest approved report. */
  const freshness = async () => {
    const at = await newestApprovedReportAt(deps.prisma);
    return { updated: at ? { iso: at.toISOString(), text: formatDate(at) } : null };
  };

  async function renderDirectory(
    req: Request,
    res: Response,
    view: {
      scope: Scope;
      basePath: string;
      title: string;
      heading: string;
      intro: string;
      agent?: AgentRow;
      /** An agent page's vendor: its website, claim and statement. */
      vendor?: AgentView;
      /** An agent page's shops where a newer version fails what an older one passed (issue 37). */
      regressions?: AgentRegressionRow[];
      category?: { id: string; name: string; slug: string };
    },
  ): Promise<void> {
    const c = ctx();
    const raw = { ...(req.query as Record<string, unknown>) };
    // Sorting by rating or reach, and the reach filters, need an agent (each agent has its own
    // rating and reach). Without one the page says so and offers the agents, each link keeping
    // what was asked, and lists meanwhile without them: never a page of nothing. (The API
    // answers 400: a client must choose.)
    const agentGiven = view.scope.kind === 'agent' || (typeof raw.agent === 'string' && raw.agent.trim() !== '');
    const held: Partial<Record<FilterField, string>> = {};
    if (!agentGiven) {
      if (raw.sort === 'rating' || raw.sort === 'reach') {
        held.sort = raw.sort;
        delete raw.sort;
      }
      for (const field of AGENT_FILTERS) {
        const value = raw[field];
        if (typeof value === 'string' && value.trim() !== '') {
          held[field] = value.trim();
          delete raw[field];
        }
      }
    }
    // The category page can show its merchants as a merchants × agents table instead of cards.
    const layout: 'cards' | 'table' = view.scope.kind === 'category' && raw.layout === 'table' ? 'table' : 'cards';
    const parsed = parseFilters(raw, view.scope);
    let errors: FilterError[] = parsed.errors;
    let results: Awaited<ReturnType<typeof searchDirectory>> | null = null;
    if (parsed.query) {
      try {
        results = await searchDirectory(c, parsed.query, view.agent, { countSponsored: true });
      } catch (error) {
        const refused = filterErrorsOf(error);
        if (!refused) throw error;
        errors = refused;
      }
    }
    const [categoryList, agentList, locals, overview, tallies] = await Promise.all([
      everyPage((p) => categories(c, p)),
      everyPage((p) => agents(c, p)),
      freshness(),
      view.agent ? agentOverview(deps.prisma, view.agent.id, c.now, AGENT_OVERVIEW_DAYS) : Promise.resolve(null),
      // The category page's "which agent gets furthest here", the agent page's categories.
      view.category ? categoryTallies(deps.prisma, view.category.id) : view.agent ? agentCategoryTallies(deps.prisma, view.agent.id) : Promise.resolve(null),
    ]);
    const currentPage = parsed.query?.page ?? 1;
    const totalPages = results ? Math.max(1, Math.ceil(results.total / PAGE_SIZE)) : 1;
    const values = parsed.values;
    const layoutQuery = layout === 'table' ? 'layout=table' : '';
    /** A link to this page with these filters (and the page's layout). */
    const hrefWith = (v: Partial<Record<FilterField, string>>, page?: number) => {
      const query = filterQueryString(v, page);
      return `${view.basePath}${query}${layoutQuery ? `${query ? '&' : '?'}${layoutQuery}` : ''}`;
    };
    // What narrows the results, in the form's words, for the line above them.
    const nameOf = (field: FilterField, value: string): string => {
      if (field === 'category') return categoryList.find((x) => x.slug === value)?.name ?? value;
      if (field === 'agent') return agentList.find((x) => x.slug === value)?.name ?? value;
      if (field === 'outcome') return viewHelpers.OUTCOME_LABELS[value as keyof typeof viewHelpers.OUTCOME_LABELS] ?? value;
      if (field === 'stage') return viewHelpers.STAGE_LABELS[value as keyof typeof viewHelpers.STAGE_LABELS] ?? value;
      if (field === 'reaches') return REACH_STEP_WORDS[value as FunnelTaskKey] ?? value;
      if (field === 'task') return TASK_WORDS[value as keyof typeof TASK_WORDS] ?? value;
      if (field === 'taskStatus') return taskStatusWords(value);
      if (field === 'minConfidence') return viewHelpers.CONFIDENCE_LABELS[value as keyof typeof viewHelpers.CONFIDENCE_LABELS] ?? value;
      return value;
    };
    const activeFilters = NARROWING.flatMap((field) => {
      const value = values[field];
      return value ? [{ field, label: FILTER_LABELS[field], value: nameOf(field, value) }] : [];
    });
    // Sorting by rating or reach needs the agent being cleared (except on the agent's own page).
    const sortNeedsAgent = view.scope.kind !== 'agent' && (values.sort === 'reach' || values.sort === 'rating');
    const withoutFilters = hrefWith({ q: values.q, sort: sortNeedsAgent ? undefined : values.sort });
    const agentName = view.agent?.name ?? (values.agent ? agentList.find((a) => a.slug === values.agent)?.name : undefined);
    const reachTask = results && values.reaches ? (values.reaches as FunnelTaskKey) : null;
    const resultsHeading =
      agentName && reachTask && REACH_STEP_WORDS[reachTask]
        ? reachTask === 'PURCHASE'
          ? `Shops where ${agentName} gets as far as a purchase`
          : `Shops where ${agentName} gets at least as far as ${REACH_STEP_WORDS[reachTask]}`
        : 'Merchants';
    // The page's merchants: a change of one of them drops the cached page at once. Sponsored
    // listings are cards like the others (first, as the spec orders them), marked as sponsored.
    if (results) cacheShows(res, results.data.map((m) => m.id));
    const listings = results?.data ?? [];
    const table = layout === 'table' && results ? await reachTable(listings, agentList, Boolean(values.agent)) : null;
    const heldWords = [
      held.sort === 'rating' ? 'Sorting by rating' : held.sort === 'reach' ? 'Sorting by how far the agent gets' : null,
      ...AGENT_FILTERS.filter((f) => held[f]).map((f) => `“${FILTER_LABELS[f]}: ${nameOf(f, held[f]!)}”`),
    ].filter((w): w is string => w !== null);
    res.status(errors.length > 0 ? 400 : 200).render('pages/directory', {
      ...viewHelpers,
      ...view,
      agent: view.agent ?? null,
      vendor: view.vendor ?? null,
      regressions: view.regressions ?? [],
      claimMethodWords: METHOD_SHORT,
      category: view.category ?? null,
      ...locals,
      // The page's own Atom feed, announced in <head> and linked on the page.
      feeds: view.agent
        ? [{ title: `${view.agent.name}: new reports and status changes`, href: `/agents/${view.agent.slug}/feed.atom` }]
        : view.category
          ? [{ title: `${view.category.name}: new reports and status changes`, href: `/categories/${view.category.slug}/feed.atom` }]
          : [],
      values,
      errors,
      errorFor: (field: string) => errors.find((e) => e.field === field)?.message ?? null,
      results,
      resultsHeading,
      listings,
      // "19 shops + 4 sponsored": the matches counted apart.
      counted: results ? { shops: results.total - (results.sponsored ?? 0), sponsored: results.sponsored ?? 0 } : null,
      leaders: view.category && tallies ? categoryLeaders(agentList, tallies) : null,
      categoryBreakdown: view.agent && tallies ? agentCategories(categoryList, tallies) : null,
      categoryMerchants: view.category ? (categoryList.find((x) => x.slug === view.category!.slug)?.merchantCount ?? 0) : null,
      // After a search or a filter, the results come first on a phone: the page above them stays short.
      searching: Boolean(values.q) || activeFilters.length > 0,
      layout,
      layoutHref: (to: 'cards' | 'table') => `${view.basePath}${filterQueryString(values)}${to === 'table' ? `${filterQueryString(values) ? '&' : '?'}layout=table` : ''}`,
      table,
      // The table's sort: by one agent's reach (the API's sort=reach with that agent), or by name.
      tableSortedBy: values.sort === 'reach' && values.agent ? values.agent : values.sort === 'name' ? 'name' : null,
      tableSortHref: (agentSlug: string | null) => {
        const others = Object.fromEntries(AGENT_FILTERS.map((f) => [f, agentSlug !== null && agentSlug === values.agent ? values[f] : undefined]));
        return hrefWith(agentSlug ? { ...values, ...others, agent: agentSlug, sort: 'reach' } : { ...values, ...others, agent: undefined, sort: 'name' });
      },
      // A search for an agent's name points to its page (the directory searches merchants).
      namedAgents: view.scope.kind === 'agent' ? [] : agentsNamed(values.q, agentList),
      // The home page's question: where does my agent get through checkout?
      showFinder: view.scope.kind === 'all' && !values.q,
      finderAgent: values.agent ?? '',
      finderStep: values.reaches ?? 'CHECKOUT',
      currentPage,
      totalPages,
      pageHref: (n: number) => hrefWith(values, n),
      // Only narrowing filters open the Filters panel: a plain search must not.
      filtered: activeFilters.length > 0,
      activeFilters,
      reportFilter: Boolean(values.outcome || values.stage),
      // Sorted by rating, the cards show it (each agent's own).
      showRating: values.sort === 'rating',
      clearFiltersHref: withoutFilters,
      needsAgent: heldWords.length > 0 ? { what: listOf(heldWords), sorted: Boolean(held.sort), count: heldWords.length } : null,
      needsAgentHref: (agentSlug: string) => hrefWith({ ...values, ...held, agent: agentSlug }),
      overview,
      overviewHref: (query: Partial<Record<FilterField, string>>) => `${view.basePath}${filterQueryString(query)}#results-heading`,
      stuckStatuses: STUCK_STATUSES.join(','),
      reachCountLabel,
      categoryList,
      agentList,
      sortLabels: SORT_LABELS,
      filterLabels: FILTER_LABELS,
      pageSize: PAGE_SIZE,
    });
  }

  /**
   * The category page's merchants × agents table: every active agent's reach on each listed
   * merchant. With an agent filter (the table sorted by one agent's column) the results carry
   * that agent's summary only, so the others' come from the stored summaries.
   */
  async function reachTable(
    listings: ReadonlyArray<Awaited<ReturnType<typeof searchDirectory>>['data'][number]>,
    agentList: ReadonlyArray<{ id: string; slug: string; name: string }>,
    onlyOneAgent: boolean,
  ) {
    const stored = onlyOneAgent ? await verdictsOn(deps.prisma, listings.map((m) => m.id)) : null;
    const untested = verdictOf(UNTESTED_FACTS);
    return {
      agents: agentList,
      rows: listings.map((merchant) => ({
        merchant,
        cells: agentList.map((agent) => ({
          agent,
          verdict: stored
            ? (stored.get(merchant.id)?.get(agent.id) ?? untested)
            : (merchant.agents.find((s) => s.agent.slug === agent.slug)?.verdict ?? untested),
        })),
      })),
    };
  }

  return {
    // The site icon (browsers ask for /favicon.ico even for plain-text pages).
    favicon: ((_req, res) => {
      cacheControl(res, { publicSeconds: 86_400 }).type('image/svg+xml').send(FAVICON_SVG);
    }) as RequestHandler,

    directory: (async (req, res) =>
      renderDirectory(req, res, {
        scope: { kind: 'all' },
        basePath: '/',
        title: 'Directory',
        heading: 'How well can AI agents shop here?',
        intro:
          'Search merchants and see what the community reports about AI agents using them, task by task: from reaching the site to completing a purchase.',
      })) as RequestHandler,

    category: (async (req, res) => {
      const requested = String(req.params.slug);
      const category = requested.length <= 100 ? await resolveCategory(deps.prisma, requested) : null;
      if (!category) throw notFound('There is no category at this address.', 'Category not found');
      if (category.slug !== requested) {
        // Legacy names and slugs, and other spellings, move permanently to the canonical URL.
        const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : '';
        // (A query too long to travel back in a Location header is left behind.)
        res.redirect(301, `/categories/${category.slug}${query.length <= 2_000 ? query : ''}`);
        return;
      }
      await renderDirectory(req, res, {
        scope: { kind: 'category', slug: category.slug },
        basePath: `/categories/${category.slug}`,
        title: category.name,
        heading: category.name,
        intro: `Merchants in ${category.name}, with what the community reports about AI agents using them.`,
        category: { id: category.id, name: category.name, slug: category.slug },
      });
    }) as RequestHandler,

    agent: (async (req, res) => {
      const agent = await activeAgent(ctx(), String(req.params.slug)).catch((error: unknown) => {
        if (error instanceof Refusal && error.kind === 'not-found') {
          throw notFound('No active agent has this name.', 'Agent not found');
        }
        throw error;
      });
      const [[vendor], regressions] = await Promise.all([agentViews(ctx(), [agent]), agentRegressions(deps.prisma, agent.id)]);
      await renderDirectory(req, res, {
        scope: { kind: 'agent' },
        basePath: `/agents/${agent.slug}`,
        title: agent.name,
        heading: `${agent.name} by ${agent.vendor}`,
        intro: agent.description ?? '',
        agent,
        vendor,
        regressions,
      });
    }) as RequestHandler,

    merchant: (async (req, res) => {
      const requested = String(req.params.slug);
      const c = ctx();
      // Issue 37: independent reports alone (the default), or all, self-reported ones included.
      const independentParam = INDEPENDENT_QUERY.safeParse(typeof req.query.independent === 'string' ? req.query.independent : undefined);
      if (!independentParam.success) {
        throw new Refusal({ kind: 'invalid', code: 'validation-failed', title: 'Invalid choice of reports', detail: 'independent must be only or all.' });
      }
      const independent = independentParam.data;
      const merchant = await merchantProfile(c, requested, independent).catch((error: unknown) => {
        if (error instanceof Refusal && error.kind === 'not-found') {
          throw notFound('No public merchant has this address.', 'Merchant not found');
        }
        throw error;
      });
      if (merchant.slug !== requested) {
        res.redirect(301, `/merchants/${merchant.slug}`);
        return;
      }
      const reportsPageParam = pageParam.safeParse(typeof req.query.reports === 'string' ? req.query.reports : undefined);
      if (!reportsPageParam.success) {
        throw new Refusal({ kind: 'invalid', code: 'validation-failed', title: 'Invalid page', detail: 'The page of reports must be a whole number from 1.' });
      }
      const reportsPage = reportsPageParam.data;
      const reports = await recentReports(c, { merchant: merchant.id, page: reportsPage, independent });
      const selfReported = merchant.agents.reduce((n, a) => n + a.sources.selfReported, 0);
      // Built from this merchant alone (its footer dates its own newest report, not the
      // directory's): other merchants' changes keep it cached.
      cacheScope(res, [merchant.id]);
      const shown = new Set(reports.data.map((r) => r.id));
      const rows = matrixRows(merchant, (id, apiUrl) => (shown.has(id) ? `#report-${id}` : apiUrl));
      res.render('pages/merchant', {
        ...viewHelpers,
        updated: merchant.lastReportedAt
          ? { iso: merchant.lastReportedAt, text: formatDate(new Date(merchant.lastReportedAt)), of: 'the date of this merchant’s newest approved report' }
          : null,
        placementLabels: PLACEMENT_LABELS,
        claimMethodWords: METHOD_SHORT,
        title: merchant.name,
        merchant,
        rows,
        reports,
        reportsPage,
        reportsPages: Math.max(1, Math.ceil(reports.total / PAGE_SIZE)),
        independent,
        selfReported,
        versionRows: merchant.agents.filter((a) => a.versions.seen.length > 0),
        reportHref: `${PAGE_PATHS.newReport}?adId=${encodeURIComponent(merchant.id)}`,
        apiUrl: merchant.url,
        feeds: [{ title: `${merchant.name}: new reports and status changes`, href: `/merchants/${merchant.slug}/feed.atom` }],
        // Trends (last 90 days beside all time) with a sparkline of outcomes per month, and badges to embed.
        trends: new Map(merchant.agents.map((a) => [a.agent.slug, a.trend ? trendView(a, a.trend) : null])),
        badgeUrl: (agentSlug: string) => `${config.baseUrl}/badges/${merchant.slug}/${agentSlug}.svg`,
        pageUrl: `${config.baseUrl}/merchants/${merchant.slug}`,
      });
    }) as RequestHandler,

    howItWorks: (async (_req, res) => {
      res.render('pages/how-it-works', {
        trendDays: TREND_DAYS,
        trendMonths: TREND_MONTHS,
        ...viewHelpers,
        ...(await freshness()),
        confidenceExplained: confidenceInWords(),
        title: 'How it works',
        m: methodology(deps.clock.now()),
        disclaimer: DISCLAIMER,
        ownerAttribution: OWNER_STATEMENT_ATTRIBUTION,
        claimRules: CLAIM_RULES,
        evidenceRules: EVIDENCE_RULES,
        signalRules: SIGNAL_RULES,
        checkerUserAgent: checkerUserAgent(config.baseUrl),
        sponsoredLabel: SPONSORED_LABEL,
        maxEvidence: MAX_EVIDENCE_REFERENCES,
        pageSize: PAGE_SIZE,
        contributionSchemaUrl: CONTRIBUTION_SCHEMA_PATH,
      });
    }) as RequestHandler,

    problems: (async (_req, res) => {
      res.render('pages/problems', {
        ...(await freshness()),
        title: 'Problem types',
        problems: Object.entries(PROBLEM_TYPES).map(([code, p]) => ({ code, ...p })),
      });
    }) as RequestHandler,

    problem: (async (req, res) => {
      const code = String(req.params.code);
      if (!isProblemCode(code)) {
        throw notFound('No problem type has this code; /problems lists them all.', 'Problem type not found');
      }
      res.render('pages/problem', { ...(await freshness()), title: PROBLEM_TYPES[code].title, code, problem: PROBLEM_TYPES[code], typeUrl: problemTypeUrl(config.baseUrl, code) });
    }) as RequestHandler,

    agentGuide: ((_req, res) => {
      cacheControl(res, { publicSeconds: 300, staleIfError: true });
      res.type('text/plain; charset=utf-8').send(agentGuide(config.baseUrl, config.limits, deps.mcp));
    }) as RequestHandler,

    agentGuideReference: ((_req, res) => {
      cacheControl(res, { publicSeconds: 300, staleIfError: true });
      res.type('text/plain; charset=utf-8').send(agentGuideReference(config.baseUrl, config.limits, deps.mcp));
    }) as RequestHandler,
  };
}

