// Categories and the agent registry of the public directory.
import { notFound } from '../../errors.js';
import {
  agentMerchantsApiUrl,
  agentPageUrl,
  categoryPageUrl,
  PAGE_SIZE,
  type Links,
} from '../directory/notice.js';
import { cachedQuery } from '../directory/counts.js';
import { SLUG_PATTERN } from '../../text.js';
import type { DirectoryContext } from '../merchants/merchants.service.js';
import { findActiveAgent, listActiveAgents, listCategories, type AgentRow } from './catalog.repository.js';

export async function categories(ctx: DirectoryContext, page: number) {
  const { total, rows } = await listCategories(ctx.prisma, (page - 1) * PAGE_SIZE, PAGE_SIZE, await cachedQuery(ctx.prisma));
  return {
    total,
    data: rows.map((c) => ({
      name: c.name,
      slug: c.slug,
      url: categoryPageUrl(ctx, c.slug),
      merchantsUrl: `${ctx.baseUrl}/api/v1/merchants?category=${encodeURIComponent(c.slug)}`,
      merchantCount: c.merchantCount,
    })),
  };
}

const agentView = (links: Links, a: AgentRow) => ({
  id: a.id,
  slug: a.slug,
  name: a.name,
  vendor: a.vendor,
  description: a.description,
  url: agentPageUrl(links, a.slug),
  merchantsUrl: agentMerchantsApiUrl(links, a.slug),
});

export async function agents(ctx: DirectoryContext, page: number) {
  const all = await listActiveAgents(ctx.prisma);
  const start = (page - 1) * PAGE_SIZE;
  return { total: all.length, data: all.slice(start, start + PAGE_SIZE).map((a) => agentView(ctx, a)) };
}

/** An active agent by slug, or a 404 for the agent-scoped paths. */
export async function activeAgent(ctx: DirectoryContext, slug: string): Promise<AgentRow> {
  const agent = SLUG_PATTERN.test(slug) ? await findActiveAgent(ctx.prisma, slug) : null;
  if (!agent) throw notFound('No active agent has this slug.');
  return agent;
}
