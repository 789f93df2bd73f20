// The sitemap: every public page worth a search engine's visit (the fixed pages, categories
// with public merchants, active agents, public merchants), written with the `sitemap` library.
// Up to `pageSize` URLs (the protocol's limit, 50,000) /sitemap.xml is one urlset; past it,
// /sitemap.xml is a sitemap index and the URLs are split over /sitemaps/<n>.xml in a fixed
// order, so page n always holds the same slice of the directory's version.
import { Readable } from 'node:stream';
import { ErrorLevel, SitemapIndexStream, SitemapStream, streamToPromise, type SitemapItemLoose } from 'sitemap';
import type { PrismaClient } from '../../db/client.js';
import { listActiveAgents, listCategories } from '../catalog/catalog.repository.js';
import { uncachedQuery } from '../directory/counts.js';
import { publicMerchantPage, searchMerchants } from '../merchants/merchants.repository.js';
import { PAGE_PATHS } from '../../paths.js';

/** The protocol's limit of URLs in one sitemap (sitemaps.org). */
const SITEMAP_PAGE_SIZE = 50_000;

/** Pages every visitor can read that are not rows of the directory. */
const FIXED_PATHS = ['/', PAGE_PATHS.howItWorks, PAGE_PATHS.agentGuide, PAGE_PATHS.agentGuideReference, PAGE_PATHS.data] as const;

/** Merchants read per query while walking the directory in id order. */
const MERCHANT_BATCH = 5_000;

export interface SitemapDeps {
  baseUrl: string;
  prisma: PrismaClient;
  /** URLs per sitemap (default 50,000); tests use a small one to exercise the index. */
  pageSize?: number;
}

/** What GET /sitemap.xml answers: a urlset, or an index past one page. */
export type SitemapAnswer = { kind: 'urlset' | 'index'; xml: string };

const namespaces = { news: false, video: false, image: false, xhtml: false };

async function urlset(baseUrl: string, items: Iterable<SitemapItemLoose> | AsyncIterable<SitemapItemLoose>): Promise<string> {
  const stream = new SitemapStream({ hostname: baseUrl, xmlns: namespaces, level: ErrorLevel.THROW });
  return (await streamToPromise(Readable.from(items).pipe(stream))).toString('utf8');
}

/** The non-merchant entries, in sitemap order: fixed pages, categories, agents. */
async function catalogEntries(deps: SitemapDeps): Promise<SitemapItemLoose[]> {
  const [categories, agents] = await Promise.all([
    listCategories(deps.prisma, 0, Number.MAX_SAFE_INTEGER, uncachedQuery(deps.prisma)),
    listActiveAgents(deps.prisma),
  ]);
  return [
    ...FIXED_PATHS.map((path) => ({ url: `${deps.baseUrl}${path}` })),
    // A category with no public merchant is an empty page: nothing to index.
    ...categories.rows.filter((c) => c.merchantCount > 0).map((c) => ({ url: `${deps.baseUrl}/categories/${encodeURIComponent(c.slug)}` })),
    ...agents.map((a) => ({ url: `${deps.baseUrl}/agents/${encodeURIComponent(a.slug)}` })),
  ];
}

/** Public merchants from position `skip` (in id order), at most `take` of them. */
async function* merchantEntries(deps: SitemapDeps, skip: number, take: number, now: Date): AsyncGenerator<SitemapItemLoose> {
  let afterId: string | null = null;
  let position = 0;
  let given = 0;
  while (given < take) {
    const rows = await publicMerchantPage(deps.prisma, afterId, MERCHANT_BATCH, now);
    for (const row of rows) {
      if (position >= skip && given < take) {
        given += 1;
        yield {
          url: `${deps.baseUrl}/merchants/${encodeURIComponent(row.slug)}`,
          ...(row.lastReportedAt ? { lastmod: row.lastReportedAt.toISOString() } : {}),
        };
      }
      position += 1;
    }
    if (rows.length < MERCHANT_BATCH) return;
    afterId = rows[rows.length - 1]!.id;
  }
}

async function publicMerchantCount(deps: SitemapDeps, now: Date): Promise<number> {
  // A search with no filter and no rows is the count of public merchants.
  return (await searchMerchants(deps.prisma, { sort: 'name', offset: 0, limit: 0, now })).total;
}

/** The entries of positions [start, start + size) of the whole sitemap. */
async function* slice(deps: SitemapDeps, catalog: SitemapItemLoose[], start: number, size: number, now: Date): AsyncGenerator<SitemapItemLoose> {
  yield* catalog.slice(start, start + size);
  const taken = Math.max(0, Math.min(size, catalog.length - start));
  yield* merchantEntries(deps, Math.max(0, start - catalog.length), size - taken, now);
}

/** GET /sitemap.xml. */
export async function sitemap(deps: SitemapDeps, now: Date): Promise<SitemapAnswer> {
  const pageSize = deps.pageSize ?? SITEMAP_PAGE_SIZE;
  const [catalog, merchants] = await Promise.all([catalogEntries(deps), publicMerchantCount(deps, now)]);
  const total = catalog.length + merchants;
  if (total <= pageSize) return { kind: 'urlset', xml: await urlset(deps.baseUrl, slice(deps, catalog, 0, pageSize, now)) };
  const pages = Math.ceil(total / pageSize);
  const index = new SitemapIndexStream({ level: ErrorLevel.THROW });
  const items = Array.from({ length: pages }, (_, i) => ({ url: `${deps.baseUrl}/sitemaps/${i + 1}.xml` }));
  return { kind: 'index', xml: (await streamToPromise(Readable.from(items).pipe(index))).toString('utf8') };
}

/** GET /sitemaps/<n>.xml: page n (from 1) of an indexed sitemap, or null when there is none. */
export async function sitemapPage(deps: SitemapDeps, page: number, now: Date): Promise<string | null> {
  const pageSize = deps.pageSize ?? SITEMAP_PAGE_SIZE;
  if (!Number.isSafeInteger(page) || page < 1) return null;
  const [catalog, merchants] = await Promise.all([catalogEntries(deps), publicMerchantCount(deps, now)]);
  const total = catalog.length + merchants;
  // One page in all is /sitemap.xml itself, not an index: there are no numbered pages.
  if (total <= pageSize || (page - 1) * pageSize >= total) return null;
  return urlset(deps.baseUrl, slice(deps, catalog, (page - 1) * pageSize, pageSize, now));
}
