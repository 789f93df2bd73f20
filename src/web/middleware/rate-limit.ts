// Rate limits as Express middleware, over the shared counters of modules/limits/counters.ts:
// express-rate-limit over the exact store, and a hand-written middleware over the synced one.
import { isIP } from 'node:net';
import type { Request, RequestHandler, Response } from 'express';
import { rateLimit, type Options, type RateLimitInfo } from 'express-rate-limit';
import type pg from 'pg';
import type { Clock } from '../../clock.js';
import type { LimitUsage } from '../../errors.js';
import { addressKey } from '../../modules/limits/address-key.js';
import { partitionKey, PostgresRateLimitStore, SyncedRateLimitStore } from '../../modules/limits/counters.js';
import { appendRateLimitHeaders, rateLimitHeaders, sendProblem } from '../problem.js';

/**
 * The trusted client address (Express's req.ip) as every per-address limit counts it: an IPv4
 * address, or an IPv6 address's /64 (modules/limits/address-key.ts). Every limiter keyed by
 * address uses this one function. With TRUST_PROXY off the address is the socket's, read
 * directly: req.ip parses X-Forwarded-For only to ignore it, a measurable part of a cached read.
 * With it on, req.ip is whatever text the trusted hops forwarded (8,000 characters in one
 * probe): text that is not an IP address counts as the connecting address (the proxy's), so
 * it neither buys a budget of its own nor becomes a key.
 */
export const clientAddress = (req: Request): string => {
  const socket = req.socket.remoteAddress ?? 'unknown';
  if (req.app.get('trust proxy') === false) return addressKey(socket);
  const forwarded = req.ip;
  return addressKey(forwarded !== undefined && isIP(forwarded) !== 0 ? forwarded : socket);
};

export interface LimitOptions {
  pool: pg.Pool;
  clock: Clock;
  /** Counter namespace, e.g. "public" or "sign-in:address". */
  name: string;
  limit: number;
  windowMs: number;
  keyGenerator: (req: Request, res: Response) => string | Promise<string>;
  /** Answers the refused request; the default is a problem+json 429. */
  onLimited?: (req: Request, res: Response, retryAfterSeconds: number) => void;
  /** Counts only requests for which this returns false (e.g. unchanged resubmissions). */
  skip?: (req: Request, res: Response) => boolean | Promise<boolean>;
  /**
   * "exact" (default): one upsert per request. "synced": counted in memory and synced in
   * batches (SyncedRateLimitStore), for limits that may be approximate within its bound.
   */
  counting?: 'exact' | 'synced';
  /** Told when a synced store could not reach the database. */
  onSyncError?: (error: unknown) => void;
}

function retryAfterSeconds(info: RateLimitInfo | undefined, now: Date): number {
  const reset = info?.resetTime;
  return reset ? Math.max(1, Math.ceil((reset.getTime() - now.getTime()) / 1000)) : 60;
}

function limitedProblem(res: Response, options: LimitOptions, retryAfter: number): void {
  sendProblem(res, {
    status: 429,
    code: 'rate-limited',
    title: 'Too many requests',
    detail: `Limit of ${options.limit} requests per ${Math.round(options.windowMs / 1000)} seconds reached. Retry after ${retryAfter} seconds.`,
  });
}

/** A synced limiter: the middleware, and its decision alone (counted once per request). */
export type SyncedLimiter = RequestHandler & {
  /** Counts this request (once, however often asked) and sets its headers; true when allowed. */
  decide(req: Request, res: Response): boolean;
  /**
   * Counts this request for the response cache's front door: when allowed, the values of its
   * RateLimit-Policy and RateLimit headers (set by the caller, with nothing remembered); when
   * refused, null, with the headers set and the decision remembered for the route's limiter.
   */
  admit(req: Request, res: Response): { policy: string; remaining: string } | null;
  /** Its per-process counters (their size, and their sync). */
  readonly store: SyncedRateLimitStore;
};

/**
 * The synced limits' middleware: the count is decided in memory, so it is written by hand
 * rather than with express-rate-limit, whose per-request work (async store calls, header
 * hashing) cost ~35 µs of a cached public read. Same headers (draft-8) and the same 429.
 */
function syncedLimiter(options: LimitOptions): SyncedLimiter {
  const store = new SyncedRateLimitStore(options.pool, options.clock, options.name, { onError: options.onSyncError });
  store.init({ windowMs: options.windowMs, limit: options.limit } as Options);
  const windowSeconds = Math.ceil(options.windowMs / 1000);
  const decisions = new WeakMap<Response, number>();
  const count = (req: Request, res: Response): LimitUsage & { allowed: boolean } => {
    const key = options.keyGenerator(req, res);
    if (typeof key !== 'string') throw new TypeError('a synced limiter needs a synchronous key');
    const { totalHits, resetTime, partition } = store.hit(key);
    return {
      name: options.name,
      limit: options.limit,
      windowSeconds,
      remaining: Math.max(0, options.limit - totalHits),
      resetSeconds: Math.max(1, Math.ceil((resetTime.getTime() - options.clock.now().getTime()) / 1000)),
      partition,
      allowed: totalHits <= options.limit,
    };
  };
  const remember = (res: Response, usage: LimitUsage & { allowed: boolean }): number => {
    const { allowed, ...headers } = usage;
    appendRateLimitHeaders(res, headers);
    const decision = allowed ? 0 : usage.resetSeconds;
    decisions.set(res, decision);
    return decision;
  };
  // Seconds until the window ends when refused, 0 when allowed.
  const refusal = (req: Request, res: Response): number => decisions.get(res) ?? remember(res, count(req, res));
  const admit = (req: Request, res: Response) => {
    const usage = count(req, res);
    if (!usage.allowed) {
      remember(res, usage);
      return null;
    }
    const headers = rateLimitHeaders(usage);
    return { policy: headers['RateLimit-Policy']!, remaining: headers.RateLimit! };
  };
  const middleware: RequestHandler = (req, res, next) => {
    const retryAfter = refusal(req, res);
    if (retryAfter === 0) {
      next();
      return;
    }
    res.setHeader('Retry-After', String(retryAfter));
    if (options.onLimited) options.onLimited(req, res, retryAfter);
    else limitedProblem(res, options, retryAfter);
  };
  return Object.assign(middleware, { decide: (req: Request, res: Response) => refusal(req, res) === 0, admit, store });
}

/** A limiter over the shared PostgreSQL counters, with the IETF headers (draft-8). */
export function createLimiter(options: LimitOptions & { counting: 'synced' }): SyncedLimiter;
export function createLimiter(options: LimitOptions): RequestHandler;
export function createLimiter(options: LimitOptions): RequestHandler {
  if (options.counting === 'synced') return syncedLimiter(options);
  const windowSeconds = Math.ceil(options.windowMs / 1000);
  // RateLimit and RateLimit-Policy (draft-ietf-httpapi-ratelimit-headers-08), written by us in
  // the one syntax every limit uses, with the service's clock.
  // Each limiter keeps its count under its own name: a skipped one (which counts nothing) must
  // not report another's.
  const property = `rateLimit:${options.name}`;
  const infoOf = (req: Request) => (req as unknown as Record<string, RateLimitInfo | undefined>)[property];
  const record = (req: Request, res: Response) => {
    const info = infoOf(req);
    if (!info) return;
    const usage: LimitUsage = {
      name: options.name,
      limit: options.limit,
      windowSeconds,
      remaining: Math.max(0, info.remaining),
      resetSeconds: info.resetTime ? Math.max(1, Math.ceil((info.resetTime.getTime() - options.clock.now().getTime()) / 1000)) : windowSeconds,
      partition: partitionKey(info.key),
    };
    appendRateLimitHeaders(res, usage);
  };
  const limiter = rateLimit({
    windowMs: options.windowMs,
    limit: options.limit,
    standardHeaders: false,
    legacyHeaders: false,
    requestPropertyName: property,
    identifier: options.name,
    store: new PostgresRateLimitStore(options.pool, options.clock, options.name),
    keyGenerator: options.keyGenerator,
    ...(options.skip ? { skip: options.skip } : {}),
    // The key generators use the trusted client address deliberately (TRUST_PROXY).
    validate: { trustProxy: false, xForwardedForHeader: false, ip: false, keyGeneratorIpFallback: false },
    handler: (req, res) => {
      record(req, res);
      const retryAfter = retryAfterSeconds(infoOf(req), options.clock.now());
      res.setHeader('Retry-After', String(retryAfter));
      if (options.onLimited) options.onLimited(req, res, retryAfter);
      else limitedProblem(res, options, retryAfter);
    },
  });
  return (req, res, next) => {
    void limiter(req, res, (error?: unknown) => {
      if (error) return next(error);
      record(req, res);
      next();
    });
  };
}
