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
import { agentVersions, findActiveAgent, listActiveAgents, listCategories, type AgentRow, type AgentVersionRow } from './catalog.repository.js';

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

/** An agent of the registry, with the versions seen in its public reports, newest first. */
const agentView = (links: Links, a: AgentRow, versions: readonly AgentVersionRow[]) => ({
  id: a.id,
  slug: a.slug,
  name: a.name,
  vendor: a.vendor,
  description: a.description,
  url: agentPageUrl(links, a.slug),
  merchantsUrl: agentMerchantsApiUrl(links, a.slug),
  versions: versions.map((v) => ({ version: v.version, reportCount: v.reportCount, lastSeenAt: v.lastSeenAt.toISOString() })),
});

export async function agents(ctx: DirectoryContext, page: number) {
  const all = await listActiveAgents(ctx.prisma);
  const start = (page - 1) * PAGE_SIZE;
  const shown = all.slice(start, start + PAGE_SIZE);
  const versions = await agentVersions(ctx.prisma, shown.map((a) => a.id));
  return { total: all.length, data: shown.map((a) => agentView(ctx, a, versions.get(a.id) ?? [])) };
}

/** An active agent by slug, or a 404 for the agent-scoped paths. */
export async function activeAgent(ctx: DirectoryContext, slug: string): Promise<AgentRow> {
  const agent = SLUG_PATTERN.test(slug) ? await findActiveAgent(ctx.prisma, slug) : null;
  if (!agent) throw notFound('No active agent has this slug.');
  return agent;
}
