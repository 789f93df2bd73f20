// RFC 8288 `Link` headers for paged lists: first/prev/next/last on the public lists' numbered
// pages, `next` with the cursor on the private lists. Links repeat the request's own query
// (without the parameters the API ignores), so a client can follow them as they are.
import type { Request } from 'express';
import { canonicalQuery, isIgnoredParam } from './middleware/validate.js';

/** The request's path as sent, without its query or a fragment a client sent along. */
function pathOf(req: Request): string {
  const url = req.originalUrl;
  const end = url.search(/[?#]/);
  return end < 0 ? url : url.slice(0, end);
}

function linkTo(baseUrl: string, req: Request, params: URLSearchParams, set: Record<string, string>): string {
  for (const [name, value] of Object.entries(set)) params.set(name, value);
  const query = params.toString();
  return `<${baseUrl}${pathOf(req)}${query ? `?${query}` : ''}>`;
}

/**
 * first, prev, next and last for a numbered page of `total` items. The query they repeat is
 * the one the handler read, in canonical order: public lists are cached under it (response
 * cache), so every request sharing an answer is given the same links.
 */
export function pageLinks(baseUrl: string, req: Request, list: { page: number; total: number; pageSize: number }): string {
  const last = Math.max(1, Math.ceil(list.total / list.pageSize));
  const query = canonicalQuery(req.query);
  const page = (n: number, rel: string) => `${linkTo(baseUrl, req, new URLSearchParams(query), { page: String(n) })}; rel="${rel}"`;
  return [
    page(1, 'first'),
    ...(list.page > 1 ? [page(Math.min(list.page - 1, last), 'prev')] : []),
    ...(list.page < last ? [page(list.page + 1, 'next')] : []),
    page(last, 'last'),
  ].join(', ');
}

/** The next page of a cursor-paged list, or nothing at its end. */
export function cursorLink(baseUrl: string, req: Request, nextCursor: string | null): string | undefined {
  if (!nextCursor) return undefined;
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(req.query)) {
    if (isIgnoredParam(name)) continue;
    for (const item of Array.isArray(value) ? value : [value]) params.append(name, String(item));
  }
  return `${linkTo(baseUrl, req, params, { after: nextCursor })}; rel="next"`;
}
