// RFC 8288 `Link` headers for paged lists: first/prev/next/last on the public lists' numbered
// pages, `next` with the cursor on the private lists. Links repeat the request's own query
// (without the parameters the API ignores), so a client can follow them as they are.
import type { Request } from 'express';
import { isIgnoredParam } from './middleware/validate.js';

function linkTo(baseUrl: string, req: Request, set: Record<string, string>): string {
  const url = req.originalUrl;
  const mark = url.indexOf('?');
  const params = new URLSearchParams(mark < 0 ? '' : url.slice(mark + 1));
  for (const name of [...params.keys()]) if (isIgnoredParam(name)) params.delete(name);
  for (const [name, value] of Object.entries(set)) params.set(name, value);
  const query = params.toString();
  return `<${baseUrl}${mark < 0 ? url : url.slice(0, mark)}${query ? `?${query}` : ''}>`;
}

/** first, prev, next and last for a numbered page of `total` items. */
export function pageLinks(baseUrl: string, req: Request, list: { page: number; total: number; pageSize: number }): string {
  const last = Math.max(1, Math.ceil(list.total / list.pageSize));
  const page = (n: number, rel: string) => `${linkTo(baseUrl, req, { page: String(n) })}; rel="${rel}"`;
  return [
    page(1, 'first'),
    ...(list.page > 1 ? [page(Math.min(list.page - 1, last), 'prev')] : []),
    ...(list.page < last ? [page(list.page + 1, 'next')] : []),
    page(last, 'last'),
  ].join(', ');
}

/** The next page of a cursor-paged list, or nothing at its end. */
export function cursorLink(baseUrl: string, req: Request, nextCursor: string | null): string | undefined {
  return nextCursor ? `${linkTo(baseUrl, req, { after: nextCursor })}; rel="next"` : undefined;
}
