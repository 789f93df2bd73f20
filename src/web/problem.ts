// RFC 9457 problem details: the one error format of every API route. A service's Refusal
// (src/errors.ts) becomes one here, with the status its kind means; HttpProblem is for what
// only the HTTP layer refuses (credentials, origins, media types).
import type { Response } from 'express';
import type { FieldError, LimitUsage, Refusal, RefusalKind } from '../errors.js';
import { problemTypeUrl, type ProblemCode } from '../problem-types.js';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export interface ProblemInit {
  status: number;
  /** Stable code, described in src/problem-types.ts; the problem `type` is `<base>/problems/<code>`. */
  code: ProblemCode;
  title: string;
  detail?: string;
  errors?: FieldError[];
  /** Extension members (RFC 9457 §3.2), e.g. the current `updatedAt` of a stale PUT. */
  extensions?: Record<string, unknown>;
  headers?: Record<string, string>;
}

export class HttpProblem extends Error {
  readonly init: ProblemInit;
  constructor(init: ProblemInit) {
    super(init.detail ?? init.title);
    this.name = 'HttpProblem';
    this.init = init;
  }
  get status(): number {
    return this.init.status;
  }
}

const STATUS_OF: Record<RefusalKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  'not-found': 404,
  conflict: 409,
  'too-large': 413,
  unsupported: 415,
  'precondition-required': 428,
  'rate-limited': 429,
  unavailable: 503,
};

export const statusOf = (kind: RefusalKind): number => STATUS_OF[kind];

/** The RateLimit headers (draft-ietf-httpapi-ratelimit-headers-08) of one limit's usage. */
export function rateLimitHeaders(usage: LimitUsage): Record<string, string> {
  return {
    'RateLimit-Policy': `"${usage.name}"; q=${usage.limit}; w=${usage.windowSeconds}${usage.partition ? `; pk=:${usage.partition}:` : ''}`,
    RateLimit: `"${usage.name}"; r=${usage.remaining}; t=${usage.resetSeconds}`,
  };
}

declare module 'express-serve-static-core' {
  interface Locals {
    /** Every limit this request was counted against, in the order counted (GET /automation/me). */
    rateLimits?: LimitUsage[];
  }
}

/**
 * Lists a limit's usage after the policies a response already names (one per limit, all in
 * one syntax), and remembers it for the request. Every limiter and quota calls this.
 */
export function appendRateLimitHeaders(res: Response, usage: LimitUsage): void {
  for (const [name, value] of Object.entries(rateLimitHeaders(usage))) {
    const previous = res.getHeader(name);
    res.setHeader(name, previous === undefined ? value : [...(Array.isArray(previous) ? previous : [String(previous)]), value]);
  }
  (res.locals.rateLimits ??= []).push(usage);
}

/** The problem a service's refusal is. */
export function problemOf(refusal: Refusal): ProblemInit {
  const { kind, code, title, detail, errors, extensions, usage, retryAfterSeconds } = refusal.init;
  const retryAfter = retryAfterSeconds !== undefined ? { 'Retry-After': String(retryAfterSeconds) } : {};
  return {
    status: STATUS_OF[kind],
    code,
    title,
    ...(detail ? { detail } : {}),
    ...(errors ? { errors } : {}),
    ...(extensions ? { extensions } : {}),
    ...(usage ? { headers: { ...rateLimitHeaders(usage), ...(kind === 'rate-limited' ? { 'Retry-After': String(usage.resetSeconds) } : {}), ...retryAfter } } : {}),
    ...(!usage && retryAfterSeconds !== undefined ? { headers: retryAfter } : {}),
  };
}

/**
 * The problem+json body. `type` is absolute and resolves to the problem's page; `instance`
 * names this occurrence by its request id (the X-Request-Id header, and the id in our logs),
 * never by echoing the request's path or query, which may hold what was refused.
 */
export function problemBody(init: ProblemInit, where: { baseUrl: string; requestId?: string }): Record<string, unknown> {
  return {
    type: problemTypeUrl(where.baseUrl, init.code),
    title: init.title,
    status: init.status,
    ...(init.detail ? { detail: init.detail } : {}),
    ...(where.requestId ? { instance: instanceOf(where.requestId) } : {}),
    ...(init.errors ? { errors: init.errors.map(({ rule: _rule, ...error }) => error) } : {}),
    ...init.extensions,
  };
}

/** A problem occurrence's URI: `urn:request:<X-Request-Id>`. */
const instanceOf = (requestId: string) => `urn:request:${requestId}`;

/** Where a response's problem happened: the app's base URL and the request's id. */
function problemContext(res: Response): { baseUrl: string; requestId?: string } {
  const baseUrl = String(res.app.locals.baseUrl ?? '');
  const id = res.req?.id;
  return { baseUrl, ...(id ? { requestId: id } : {}) };
}

const LISTED_HEADERS = new Set(['ratelimit', 'ratelimit-policy']);

export function sendProblem(res: Response, init: ProblemInit): void {
  for (const [name, value] of Object.entries(init.headers ?? {})) {
    // A refused limit is listed after the limits the request already passed.
    const previous = LISTED_HEADERS.has(name.toLowerCase()) ? res.getHeader(name) : undefined;
    res.setHeader(name, previous === undefined ? value : [...(Array.isArray(previous) ? previous : [String(previous)]), value]);
  }
  res.status(init.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(problemBody(init, problemContext(res))));
}

