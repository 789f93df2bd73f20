// Validation at the edge: parsed input goes to res.locals (Express 5's req.query is read-only).
import querystring from 'node:querystring';
import type { RequestHandler } from 'express';
import type { z } from 'zod';
import { validationRefusal } from '../../errors.js';
import { HttpProblem } from '../problem.js';

/**
 * Query parameters every endpoint ignores: cache busters (`_`) and the tracking parameters
 * that links pick up when shared (utm_*, click ids, analytics cookies). Any other unknown
 * parameter is a 400 naming it, so a misspelt filter is never silently dropped.
 */
const IGNORED = new Set(['_', 'fbclid', 'gclid', 'dclid', 'msclkid', 'mc_cid', 'mc_eid', '_ga', '_gl', 'ref']);
export const isIgnoredParam = (name: string): boolean => IGNORED.has(name) || name.startsWith('utm_');

/**
 * The most `&`-separated pairs a query string may have (empty ones count, as the parser counts
 * them). Filters, paging and a handful of tracking parameters need a few dozen at most.
 */
export const MAX_QUERY_PAIRS = 100;

export type ParsedQuery = Record<string, string | string[]>;

/**
 * The app's query parser (`query parser` in app.ts): node:querystring, as Express's "simple"
 * parser, but reading every pair. Express's default stops silently after 1,000, so a handler
 * answered for part of its query; here a longer query string never gets this far
 * (refuseLongQuery), and Node's 16 KB limit on the request line bounds the work.
 */
export const parseQuery = (text: string | null | undefined): ParsedQuery =>
  querystring.parse(text ?? '', '&', '=', { maxKeys: 0 }) as ParsedQuery;

/** How many pairs the query string of `url` has, counted generously (every `&` after the first `?`). */
export function queryPairCount(url: string): number {
  const mark = url.indexOf('?');
  if (mark < 0) return 0;
  let pairs = 1;
  for (let at = url.indexOf('&', mark); at >= 0; at = url.indexOf('&', at + 1)) pairs += 1;
  return pairs;
}

/**
 * Refuses a query string of more than MAX_QUERY_PAIRS pairs before anything reads it (app.ts
 * mounts this ahead of the response cache), rather than answering for part of it.
 */
export const refuseLongQuery: RequestHandler = (req, _res, next) => {
  if (queryPairCount(req.originalUrl) <= MAX_QUERY_PAIRS) {
    next();
    return;
  }
  throw new HttpProblem({
    status: 400,
    code: 'query-too-long',
    title: 'Too many query parameters',
    detail: `A query string may have at most ${MAX_QUERY_PAIRS} parameters (pairs separated by "&"). Send only the parameters the endpoint reads.`,
  });
};

/**
 * The parameters of a parsed query that any endpoint reads, as [name, value] pairs: the ignored
 * ones left out, names in code-unit order, a repeated name's values in the order sent. The
 * response cache files answers under it and public list links repeat it, so two requests that
 * read the same get the same answer, byte for byte.
 */
export function canonicalQuery(query: Record<string, unknown>): Array<[string, string]> {
  const names = Object.keys(query).filter((name) => !isIgnoredParam(name)).sort();
  const pairs: Array<[string, string]> = [];
  for (const name of names) {
    const value = query[name];
    if (Array.isArray(value)) for (const item of value) pairs.push([name, String(item)]);
    else pairs.push([name, String(value)]);
  }
  return pairs;
}

function withoutIgnored(query: Record<string, unknown>): Record<string, unknown> {
  const names = Object.keys(query);
  if (!names.some(isIgnoredParam)) return query;
  return Object.fromEntries(Object.entries(query).filter(([name]) => !isIgnoredParam(name)));
}

export function validateQuery<S extends z.ZodType>(schema: S): RequestHandler {
  return (req, res, next) => {
    const result = schema.safeParse(withoutIgnored(req.query));
    if (!result.success) throw validationRefusal(result.error, 'query');
    res.locals.query = result.data;
    next();
  };
}
