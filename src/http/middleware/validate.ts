// Validation at the edge: parsed input goes to res.locals (Express 5's req.query is read-only).
import type { RequestHandler } from 'express';
import type { z } from 'zod';
import { validationRefusal } from '../../errors.js';

/**
 * Query parameters every endpoint ignores: cache busters (`_`) and the tracking parameters
 * that links pick up when shared (utm_*, click ids, analytics cookies). Any other unknown
 * parameter is a 400 naming it, so a misspelt filter is never silently dropped.
 */
const IGNORED = new Set(['_', 'fbclid', 'gclid', 'dclid', 'msclkid', 'mc_cid', 'mc_eid', '_ga', '_gl', 'ref']);
export const isIgnoredParam = (name: string): boolean => IGNORED.has(name) || name.startsWith('utm_');

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
