// Categories and the agent registry of the public directory.
import { notFound } from '../../errors.js';
import {
  agentMerchantsApiUrl,
  agentPageUrl,
  categoryPageUrl,
  PAGE_SIZE,
  type Links,
} from '../directory/notice.js';
import { SLUG_PATTERN } from '../../text.js';
import type { DirectoryContext } from '../merchants/merchants.service.js';
import { activeAgentOfVersion, agentVersions, listActiveAgents, listCategories, vendorStatements, type AgentRow, type AgentVersionRow } from './catalog.repository.js';
import { publicClaims, type PublicClaim } from '../claims/claims.repository.js';
import { claimPublic } from '../merchants/merchants.service.js';

export async function categories(ctx: DirectoryContext, page: number) {
  const { total, rows } = await listCategories(ctx.prisma, (page - 1) * PAGE_SIZE, PAGE_SIZE, await ctx.counts.query());
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

/** Says who stated it and what it is not. */
const VENDOR_STATEMENT_ATTRIBUTION = 'Statement by the agent’s vendor, who proved control of its website. It is not community evidence and never changes statuses, scores or report counts.';

interface VendorExtras {
  claim: PublicClaim | undefined;
  statement: { statement: string; declaredAt: Date } | undefined;
}

/** An agent of the registry, with its vendor's website, claim and statement, and the versions seen in its public reports, newest first. */
const agentView = (links: Links, a: AgentRow, versions: readonly AgentVersionRow[], extras: VendorExtras) => ({
  id: a.id,
  slug: a.slug,
  name: a.name,
  vendor: a.vendor,
  description: a.description,
  url: agentPageUrl(links, a.slug),
  merchantsUrl: agentMerchantsApiUrl(links, a.slug),
  vendorWebsite: a.vendorWebsite,
  claim: claimPublic(extras.claim?.method ?? null, extras.claim?.verifiedAt ?? null),
  vendorStatement: extras.statement
    ? { statement: extras.statement.statement, declaredAt: extras.statement.declaredAt.toISOString().slice(0, 10), attribution: VENDOR_STATEMENT_ATTRIBUTION }
    : null,
  versions: versions.map((v) => ({ version: v.version, reportCount: v.reportCount, lastSeenAt: v.lastSeenAt.toISOString() })),
});

export type AgentView = ReturnType<typeof agentView>;

/** The registry's view of these agents, in their order. */
export async function agentViews(ctx: DirectoryContext, shown: readonly AgentRow[]): Promise<AgentView[]> {
  const ids = shown.map((a) => a.id);
  const [versions, claims, statements] = await Promise.all([agentVersions(ctx.prisma, ids), publicClaims(ctx.prisma, 'AGENT', ids), vendorStatements(ctx.prisma, ids)]);
  return shown.map((a) => agentView(ctx, a, versions.get(a.id) ?? [], { claim: claims.get(a.id), statement: statements.get(a.id) }));
}

export async function agents(ctx: DirectoryContext, page: number) {
  const all = await listActiveAgents(ctx.prisma);
  const start = (page - 1) * PAGE_SIZE;
  return { total: all.length, data: await agentViews(ctx, all.slice(start, start + PAGE_SIZE)) };
}

/** An active agent by slug, or a 404 for the agent-scoped paths. */
export async function activeAgent(ctx: DirectoryContext, slug: string): Promise<AgentRow> {
  const agent = SLUG_PATTERN.test(slug) ? await activeAgentOfVersion(await ctx.counts.query(), slug) : null;
  if (!agent) throw notFound('No active agent has this slug.');
  return agent;
}
