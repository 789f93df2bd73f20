// The directory's pages: `/`, `/categories/:slug` and `/agents/:slug`, one list of merchants
// filtered with the API's own query (filters.ts) and read through the same service
// (searchDirectory), with the category's or agent's own parts; what they show is shaped in
// ./directory.view.ts. One function per use case. Routes: http/routers/pages.ts.
import type { Request, RequestHandler, Response } from 'express';
import { cacheShows } from '../../web/middleware/response-cache.js';
import { notFound, Refusal } from '../../errors.js';
import { resolveCategory } from '../catalog/catalog.repository.js';
import { activeAgent, agents, agentViews, categories } from '../catalog/catalog.service.js';
import { PAGE_SIZE } from '../directory/notice.js';
import { searchDirectory, type DirectoryContext } from '../merchants/merchants.service.js';
import { directoryLocals, holdAgentFilters, reachTable, type DirectoryView } from './directory.view.js';
import { filterErrorsOf, parseFilters, type FilterError } from './filters.js';
import { agentCategoryTallies, agentOverview, agentRegressions, categoryTallies, verdictsOn } from './site.repository.js';
import { directoryContext, freshness, type SitePagesDeps } from './site.pages.js';

/** Days counted as "recent" in an agent page's overview. */
const AGENT_OVERVIEW_DAYS = 30;

async function everyPage<T>(load: (page: number) => Promise<{ total: number; data: T[] }>): Promise<T[]> {
  const first = await load(1);
  const all = [...first.data];
  for (let page = 2; all.length < first.total && page <= Math.ceil(first.total / PAGE_SIZE); page += 1) {
    all.push(...(await load(page)).data);
  }
  return all;
}

/** The page's filters read and its merchants found; a filter the service refuses becomes the form's error. */
async function findMerchants(c: DirectoryContext, raw: Record<string, unknown>, view: DirectoryView) {
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
  return { values: parsed.values, currentPage: parsed.query?.page ?? 1, errors, results };
}

/** One directory page: its merchants, the categories and agents its form offers, and its scope's own parts. */
async function renderDirectory(deps: SitePagesDeps, req: Request, res: Response, view: DirectoryView): Promise<void> {
  const c = directoryContext(deps);
  const { raw, held } = holdAgentFilters(view.scope, req.query as Record<string, unknown>);
  // The category page can show its merchants as a merchants × agents table instead of cards.
  const layout: 'cards' | 'table' = view.scope.kind === 'category' && raw.layout === 'table' ? 'table' : 'cards';
  const { values, currentPage, errors, results } = await findMerchants(c, raw, view);
  const [categoryList, agentList, footer, overview, tallies] = await Promise.all([
    everyPage((p) => categories(c, p)),
    everyPage((p) => agents(c, p)),
    freshness(deps.prisma),
    view.agent ? agentOverview(deps.prisma, view.agent.id, c.now, AGENT_OVERVIEW_DAYS) : Promise.resolve(null),
    // The category page's "which agent gets furthest here", the agent page's categories.
    view.category ? categoryTallies(deps.prisma, view.category.id) : view.agent ? agentCategoryTallies(deps.prisma, view.agent.id) : Promise.resolve(null),
  ]);
  // The page's merchants: a change of one of them drops the cached page at once.
  if (results) cacheShows(res, results.data.map((m) => m.id));
  const listings = results?.data ?? [];
  // With an agent filter the results carry that agent's summary only: the table reads the stored ones.
  const stored = layout === 'table' && results && values.agent ? await verdictsOn(deps.prisma, listings.map((m) => m.id)) : null;
  const table = layout === 'table' && results ? reachTable(listings, agentList, stored) : null;
  res
    .status(errors.length > 0 ? 400 : 200)
    .render('pages/directory', directoryLocals({ view, layout, values, held, errors, results, currentPage, categoryList, agentList, updated: footer.updated, overview, tallies, table }));
}

/** GET /: the whole directory, with the home page's "where does my agent get through checkout?". */
export function directoryPage(deps: SitePagesDeps): RequestHandler {
  return async (req, res) =>
    renderDirectory(deps, req, res, {
      scope: { kind: 'all' },
      basePath: '/',
      title: 'Directory',
      heading: 'How well can AI agents shop here?',
      intro:
        'Search merchants and see what the community reports about AI agents using them, task by task: from reaching the site to completing a purchase.',
    });
}

/** GET /categories/:slug: a category's merchants, and which agent gets furthest there. */
export function categoryPage(deps: SitePagesDeps): RequestHandler {
  return async (req, res) => {
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
    await renderDirectory(deps, req, res, {
      scope: { kind: 'category', slug: category.slug },
      basePath: `/categories/${category.slug}`,
      title: category.name,
      heading: category.name,
      intro: `Merchants in ${category.name}, with what the community reports about AI agents using them.`,
      category: { id: category.id, name: category.name, slug: category.slug },
    });
  };
}

/** GET /agents/:slug: the merchants reported with an agent, its vendor, overview and regressions. */
export function agentPage(deps: SitePagesDeps): RequestHandler {
  return async (req, res) => {
    const agent = await activeAgent(directoryContext(deps), String(req.params.slug)).catch((error: unknown) => {
      if (error instanceof Refusal && error.kind === 'not-found') {
        throw notFound('No active agent has this name.', 'Agent not found');
      }
      throw error;
    });
    const [[vendor], regressions] = await Promise.all([agentViews(directoryContext(deps), [agent]), agentRegressions(deps.prisma, agent.id)]);
    await renderDirectory(deps, req, res, {
      scope: { kind: 'agent' },
      basePath: `/agents/${agent.slug}`,
      title: agent.name,
      heading: `${agent.name} by ${agent.vendor}`,
      intro: agent.description ?? '',
      agent,
      vendor,
      regressions,
    });
  };
}
