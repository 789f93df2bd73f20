// Quotas counted only for some requests (e.g. changed agent submissions): the caller decides
// when a request counts, after it knows what the request will do, and before it writes.
import type pg from 'pg';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config/env.js';
import { Refusal, type LimitUsage } from '../../errors.js';
import { partitionKey, PostgresRateLimitStore } from './counters.js';

export interface Quota {
  /**
   * Counts one use for `key` and tells how much of the quota is used; over the limit it
   * throws a rate-limited Refusal (counting nothing) carrying that usage.
   */
  consume(key: string): Promise<LimitUsage>;
  /** Gives back a use that turned out not to write (a lost race). */
  refund(key: string): Promise<void>;
  /** How much of the quota `key` has used, counting nothing. */
  usage(key: string): Promise<LimitUsage>;
}

function createQuota(options: {
  pool: pg.Pool;
  clock: Clock;
  name: string;
  limit: number;
  windowMs: number;
  description: string;
}): Quota {
  const store = new PostgresRateLimitStore(options.pool, options.clock, options.name);
  store.init({ windowMs: options.windowMs } as Parameters<typeof store.init>[0]);
  const windowSeconds = Math.round(options.windowMs / 1000);
  const usageOf = (key: string, totalHits: number, resetTime: Date | undefined): LimitUsage => ({
    name: options.name,
    limit: options.limit,
    windowSeconds,
    remaining: Math.max(0, options.limit - totalHits),
    resetSeconds: resetTime ? Math.max(1, Math.ceil((resetTime.getTime() - options.clock.now().getTime()) / 1000)) : windowSeconds,
    partition: partitionKey(key),
  });
  return {
    async usage(key) {
      const info = await store.get(key);
      return usageOf(key, info?.totalHits ?? 0, info?.resetTime);
    },
    async consume(key) {
      const { totalHits, resetTime } = await store.increment(key);
      const usage = usageOf(key, totalHits, resetTime);
      const { resetSeconds } = usage;
      if (totalHits > options.limit) {
        await store.decrement(key);
        throw new Refusal({
          kind: 'rate-limited',
          code: 'rate-limited',
          title: 'Too many submissions',
          detail: `${options.description}: at most ${options.limit} per ${Math.round(windowSeconds / 60)} minutes. Retry after ${resetSeconds} seconds.`,
          usage,
        });
      }
      return usage;
    },
    refund: (key) => store.decrement(key),
  };
}

/** The two submission quotas of spec section 8, shared by the API and the form. */
export function submissionQuotas(pool: pg.Pool, clock: Clock, limits: Config['limits']) {
  const hourly = (name: string, limit: number, description: string) =>
    createQuota({ pool, clock, name, limit, windowMs: 3_600_000, description });
  return {
    browser: hourly('browser-submissions', limits.browserSubmissionsPerHour, 'Browser submissions per account'),
    agent: hourly('agent-submissions', limits.agentSubmissionsPerHour, 'Changed agent submissions per account'),
  };
}
