// What a directory page (`/`, `/categories/:slug`, `/agents/:slug`) shows, shaped from what
// directory.pages.ts asked and found: the filters in the form's words, the links that keep
// them, the results' heading, the category page's merchants × agents table and which agent
// gets furthest, the agent page's categories. Nothing here reads the database.
import { TASK_LABELS as TASK_WORDS, type FunnelTaskKey } from '../aggregation/constants.js';
import { REACH_STEP_WORDS } from '../aggregation/reach.js';
import { UNTESTED_FACTS, verdictOf, type Verdict } from '../aggregation/verdict.js';
import type { AgentRow } from '../catalog/catalog.repository.js';
import type { AgentView, categories } from '../catalog/catalog.service.js';
import { METHOD_SHORT } from '../claims/proof.js';
import { PAGE_SIZE } from '../directory/notice.js';
import type { MERCHANT_SORTS } from '../merchants/merchants.schemas.js';
import type { searchDirectory } from '../merchants/merchants.service.js';
import { AGENT_FILTERS, FILTER_LABELS, filterQueryString, type FilterError, type FilterField, type Scope } from './filters.js';
import { agentsNamed, listOf, reachCountLabel, taskStatusWords, viewHelpers } from './present.js';
import { STUCK_STATUSES, type AgentOverview, type AgentRegressionRow, type ReachTally } from './site.repository.js';

type FilterValues = Partial<Record<FilterField, string>>;
type DirectoryResults = Awaited<ReturnType<typeof searchDirectory>>;
type Listing = DirectoryResults['data'][number];

const SORT_LABELS: Readonly<Record<(typeof MERCHANT_SORTS)[number], string>> = {
  recent: 'Most recently reported',
  popular: 'Most reports',
  name: 'Name',
  reach: 'How far the agent gets (needs an agent)',
  rating: 'Rating (needs an agent)',
};

/** The filters that narrow the results (search text, sort and page do not). */
const NARROWING: readonly FilterField[] = ['category', 'agent', 'reaches', 'task', 'taskStatus', 'minConfidence', 'outcome', 'stage', 'region', 'days', 'minReports'];

/** What a directory page's route sets: its scope, address and words, and its category or agent. */
export interface DirectoryView {
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
}

/** One directory page as asked and found: what its locals are shaped from. */
export interface DirectoryPage {
  view: DirectoryView;
  layout: 'cards' | 'table';
  /** What the form shows (parseFilters), and the agent's filters held back (holdAgentFilters). */
  values: FilterValues;
  held: FilterValues;
  errors: FilterError[];
  results: DirectoryResults | null;
  currentPage: number;
  categoryList: Awaited<ReturnType<typeof categories>>['data'];
  agentList: AgentView[];
  /** The footer's date of the newest approved report. */
  updated: { iso: string; text: string } | null;
  overview: AgentOverview | null;
  /** The category page's reach of each agent, the agent page's reach in each category. */
  tallies: ReadonlyMap<string, ReachTally> | null;
  table: ReturnType<typeof reachTable> | null;
}

/**
 * Sorting by rating or reach, and the reach filters, need an agent (each agent has its own
 * rating and reach). Without one the page says so and offers the agents, each link keeping
 * what was asked, and lists meanwhile without them: never a page of nothing. (The API
 * answers 400: a client must choose.) Gives the query without them, and what was held back.
 */
export function holdAgentFilters(scope: Scope, query: Record<string, unknown>): { raw: Record<string, unknown>; held: FilterValues } {
  const raw = { ...query };
  const agentGiven = scope.kind === 'agent' || (typeof raw.agent === 'string' && raw.agent.trim() !== '');
  const held: FilterValues = {};
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
  return { raw, held };
}

/**
 * The category page's merchants × agents table: every active agent's reach on each listed
 * merchant. With an agent filter (the table sorted by one agent's column) the results carry
 * that agent's summary only, so the others' come from the stored summaries (`stored`).
 */
export function reachTable(
  listings: readonly Listing[],
  agentList: ReadonlyArray<{ id: string; slug: string; name: string }>,
  stored: ReadonlyMap<string, ReadonlyMap<string, Verdict>> | null,
) {
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

/** A link to this page with these filters (and the page's layout). */
function hrefWith(p: DirectoryPage, v: FilterValues, page?: number): string {
  const layoutQuery = p.layout === 'table' ? 'layout=table' : '';
  const query = filterQueryString(v, page);
  return `${p.view.basePath}${query}${layoutQuery ? `${query ? '&' : '?'}${layoutQuery}` : ''}`;
}

/** A filter's value in the form's words: a category's or agent's name, an option's label. */
function nameOf(p: DirectoryPage, field: FilterField, value: string): string {
  if (field === 'category') return p.categoryList.find((x) => x.slug === value)?.name ?? value;
  if (field === 'agent') return p.agentList.find((x) => x.slug === value)?.name ?? value;
  if (field === 'outcome') return viewHelpers.OUTCOME_LABELS[value as keyof typeof viewHelpers.OUTCOME_LABELS] ?? value;
  if (field === 'stage') return viewHelpers.STAGE_LABELS[value as keyof typeof viewHelpers.STAGE_LABELS] ?? value;
  if (field === 'reaches') return REACH_STEP_WORDS[value as FunnelTaskKey] ?? value;
  if (field === 'task') return TASK_WORDS[value as keyof typeof TASK_WORDS] ?? value;
  if (field === 'taskStatus') return taskStatusWords(value);
  if (field === 'minConfidence') return viewHelpers.CONFIDENCE_LABELS[value as keyof typeof viewHelpers.CONFIDENCE_LABELS] ?? value;
  return value;
}

/** The results' heading: which shops an agent gets through to a step, or plain "Merchants". */
function resultsHeading(p: DirectoryPage): string {
  const agentName = p.view.agent?.name ?? (p.values.agent ? p.agentList.find((a) => a.slug === p.values.agent)?.name : undefined);
  const reachTask = p.results && p.values.reaches ? (p.values.reaches as FunnelTaskKey) : null;
  return agentName && reachTask && REACH_STEP_WORDS[reachTask]
    ? reachTask === 'PURCHASE'
      ? `Shops where ${agentName} gets as far as a purchase`
      : `Shops where ${agentName} gets at least as far as ${REACH_STEP_WORDS[reachTask]}`
    : 'Merchants';
}

/** The locals of pages/directory. */
export function directoryLocals(p: DirectoryPage) {
  const { view, values, errors } = p;
  return {
    ...viewHelpers,
    ...view,
    agent: view.agent ?? null,
    vendor: view.vendor ?? null,
    regressions: view.regressions ?? [],
    claimMethodWords: METHOD_SHORT,
    category: view.category ?? null,
    updated: p.updated,
    // The page's own Atom feed, announced in <head> and linked on the page.
    feeds: view.agent
      ? [{ title: `${view.agent.name}: new reports and status changes`, href: `/agents/${view.agent.slug}/feed.atom` }]
      : view.category
        ? [{ title: `${view.category.name}: new reports and status changes`, href: `/categories/${view.category.slug}/feed.atom` }]
        : [],
    values,
    errors,
    errorFor: (field: string) => errors.find((e) => e.field === field)?.message ?? null,
    ...resultLocals(p),
    ...filterLocals(p),
    overview: p.overview,
    overviewHref: (query: FilterValues) => `${view.basePath}${filterQueryString(query)}#results-heading`,
    stuckStatuses: STUCK_STATUSES.join(','),
    reachCountLabel,
    categoryList: p.categoryList,
    agentList: p.agentList,
    sortLabels: SORT_LABELS,
    filterLabels: FILTER_LABELS,
    pageSize: PAGE_SIZE,
  };
}

/** The results: the merchants (as cards or the table), their heading, rankings and pages. */
function resultLocals(p: DirectoryPage) {
  const { view, values, results, tallies } = p;
  return {
    results,
    resultsHeading: resultsHeading(p),
    // Sponsored listings are cards like the others (first, as the spec orders them), marked as sponsored.
    listings: results?.data ?? [],
    // "19 shops + 4 sponsored": the matches counted apart.
    counted: results ? { shops: results.total - (results.sponsored ?? 0), sponsored: results.sponsored ?? 0 } : null,
    leaders: view.category && tallies ? categoryLeaders(p.agentList, tallies) : null,
    categoryBreakdown: view.agent && tallies ? agentCategories(p.categoryList, tallies) : null,
    categoryMerchants: view.category ? (p.categoryList.find((x) => x.slug === view.category!.slug)?.merchantCount ?? 0) : null,
    layout: p.layout,
    layoutHref: (to: 'cards' | 'table') => `${view.basePath}${filterQueryString(values)}${to === 'table' ? `${filterQueryString(values) ? '&' : '?'}layout=table` : ''}`,
    table: p.table,
    // The table's sort: by one agent's reach (the API's sort=reach with that agent), or by name.
    tableSortedBy: values.sort === 'reach' && values.agent ? values.agent : values.sort === 'name' ? 'name' : null,
    tableSortHref: (agentSlug: string | null) => {
      const others = Object.fromEntries(AGENT_FILTERS.map((f) => [f, agentSlug !== null && agentSlug === values.agent ? values[f] : undefined]));
      return hrefWith(p, agentSlug ? { ...values, ...others, agent: agentSlug, sort: 'reach' } : { ...values, ...others, agent: undefined, sort: 'name' });
    },
    currentPage: p.currentPage,
    totalPages: results ? Math.max(1, Math.ceil(results.total / PAGE_SIZE)) : 1,
    pageHref: (n: number) => hrefWith(p, values, n),
    // Sorted by rating, the cards show it (each agent's own).
    showRating: values.sort === 'rating',
  };
}

/** The filters: what narrows the results, the finder, and what waits for an agent. */
function filterLocals(p: DirectoryPage) {
  const { view, values, held } = p;
  // What narrows the results, in the form's words, for the line above them.
  const activeFilters = NARROWING.flatMap((field) => {
    const value = values[field];
    return value ? [{ field, label: FILTER_LABELS[field], value: nameOf(p, field, value) }] : [];
  });
  // Sorting by rating or reach needs the agent being cleared (except on the agent's own page).
  const sortNeedsAgent = view.scope.kind !== 'agent' && (values.sort === 'reach' || values.sort === 'rating');
  const heldWords = [
    held.sort === 'rating' ? 'Sorting by rating' : held.sort === 'reach' ? 'Sorting by how far the agent gets' : null,
    ...AGENT_FILTERS.filter((f) => held[f]).map((f) => `“${FILTER_LABELS[f]}: ${nameOf(p, f, held[f]!)}”`),
  ].filter((w): w is string => w !== null);
  return {
    // After a search or a filter, the results come first on a phone: the page above them stays short.
    searching: Boolean(values.q) || activeFilters.length > 0,
    // A search for an agent's name points to its page (the directory searches merchants).
    namedAgents: view.scope.kind === 'agent' ? [] : agentsNamed(values.q, p.agentList),
    // The home page's question: where does my agent get through checkout?
    showFinder: view.scope.kind === 'all' && !values.q,
    finderAgent: values.agent ?? '',
    finderStep: values.reaches ?? 'CHECKOUT',
    // Only narrowing filters open the Filters panel: a plain search must not.
    filtered: activeFilters.length > 0,
    activeFilters,
    reportFilter: Boolean(values.outcome || values.stage),
    clearFiltersHref: hrefWith(p, { q: values.q, sort: sortNeedsAgent ? undefined : values.sort }),
    needsAgent: heldWords.length > 0 ? { what: listOf(heldWords), sorted: Boolean(held.sort), count: heldWords.length } : null,
    needsAgentHref: (agentSlug: string) => hrefWith(p, { ...values, ...held, agent: agentSlug }),
  };
}
