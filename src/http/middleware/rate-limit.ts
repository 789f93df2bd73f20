// Rate limits whose counters live in PostgreSQL, so every app process shares them.
// Fixed windows: one upsert per counted request, atomic under concurrency.
import type { Request, RequestHandler, Response } from 'express';
import { rateLimit, type Options, type Store, type ClientRateLimitInfo } from 'express-rate-limit';
import type pg from 'pg';
import type { Clock } from '../../clock.js';
import { sendProblem } from '../problem.js';

export class PostgresRateLimitStore implements Store {
  readonly localKeys = false;
  prefix: string;
  private windowMs = 60_000;

  constructor(
    private readonly pool: pg.Pool,
    private readonly clock: Clock,
    prefix: string,
  ) {
    this.prefix = `${prefix}:`;
  }

  init(options: Options): void {
    this.windowMs = options.windowMs;
  }

  private key(key: string): string {
    return this.prefix + key;
  }

  async get(key: string): Promise<ClientRateLimitInfo | undefined> {
    const { rows } = await this.pool.query<{ hits: number; reset_at: Date }>(
      'SELECT hits, reset_at FROM rate_limit_counters WHERE key = $1 AND reset_at > $2',
      [this.key(key), this.clock.now()],
    );
    const row = rows[0];
    return row ? { totalHits: row.hits, resetTime: row.reset_at } : undefined;
  }

  async increment(key: string): Promise<ClientRateLimitInfo> {
    const now = this.clock.now();
    const { rows } = await this.pool.query<{ hits: number; reset_at: Date }>(
      `INSERT INTO rate_limit_counters AS c (key, hits, reset_at) VALUES ($1, 1, $2)
       ON CONFLICT (key) DO UPDATE SET
         hits = CASE WHEN c.reset_at <= $3 THEN 1 ELSE c.hits + 1 END,
         reset_at = CASE WHEN c.reset_at <= $3 THEN $2 ELSE c.reset_at END
       RETURNING hits, reset_at`,
      [this.key(key), new Date(now.getTime() + this.windowMs), now],
    );
    const row = rows[0]!;
    return { totalHits: row.hits, resetTime: row.reset_at };
  }

  async decrement(key: string): Promise<void> {
    await this.pool.query('UPDATE rate_limit_counters SET hits = greatest(hits - 1, 0) WHERE key = $1 AND reset_at > $2', [
      this.key(key),
      this.clock.now(),
    ]);
  }

  async resetKey(key: string): Promise<void> {
    await this.pool.query('DELETE FROM rate_limit_counters WHERE key = $1', [this.key(key)]);
  }
}

/** Deletes counters whose window ended (any prefix). */
export async function pruneRateLimitCounters(pool: pg.Pool, now: Date): Promise<number> {
  const { rowCount } = await pool.query('DELETE FROM rate_limit_counters WHERE reset_at <= $1', [now]);
  return rowCount ?? 0;
}

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
}

export function retryAfterSeconds(req: Request, now: Date): number {
  const reset = (req as Request & { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime;
  return reset ? Math.max(1, Math.ceil((reset.getTime() - now.getTime()) / 1000)) : 60;
}

/** An express-rate-limit middleware over the shared PostgreSQL store, with the IETF headers. */
export function createLimiter(options: LimitOptions): RequestHandler {
  return rateLimit({
    windowMs: options.windowMs,
    limit: options.limit,
    // RateLimit and RateLimit-Policy (draft-ietf-httpapi-ratelimit-headers-08).
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    identifier: options.name,
    store: new PostgresRateLimitStore(options.pool, options.clock, options.name),
    keyGenerator: options.keyGenerator,
    ...(options.skip ? { skip: options.skip } : {}),
    // The key generators use the trusted client address deliberately (TRUST_PROXY).
    validate: { trustProxy: false, xForwardedForHeader: false, ip: false, keyGeneratorIpFallback: false },
    handler: (req, res) => {
      const retryAfter = retryAfterSeconds(req, options.clock.now());
      res.setHeader('Retry-After', String(retryAfter));
      if (options.onLimited) {
        options.onLimited(req, res, retryAfter);
        return;
      }
      sendProblem(res, {
        status: 429,
        code: 'rate-limited',
        title: 'Too many requests',
        detail: `Limit of ${options.limit} requests per ${Math.round(options.windowMs / 1000)} seconds reached. Retry after ${retryAfter} seconds.`,
      });
    },
  });
}
