// The API's guards, built once per app and shared by every door into the same services: the
// JSON API (/api) and the MCP endpoint (/mcp) count against the same budgets and check keys
// the same way.
import type { RequestHandler } from 'express';
import type pg from 'pg';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config/env.js';
import type { PrismaClient } from '../../db/client.js';
import type { Logger } from '../../logger.js';
import { bearerAuth, refusedKeyCounter } from './bearer.js';
import { clientAddress, createLimiter, type SyncedLimiter } from './rate-limit.js';

export interface ApiGuards {
  /** 120 public requests a minute per trusted client address (spec section 8). */
  publicLimiter: SyncedLimiter;
  /** Private requests per trusted address, counted before the key is checked. */
  privateAddressLimiter: RequestHandler;
  /**
   * The way into every private route: the address's budget (so even a refused key is told
   * its RateLimit), the key, then the account's budget.
   */
  privateGate: RequestHandler[];
}

const MINUTE = 60_000;

export function apiGuards(deps: { pool: pg.Pool; prisma: PrismaClient; clock: Clock; limits: Config['limits']; logger: Logger }): ApiGuards {
  const { pool, clock, limits, logger } = deps;
  const privateAccountLimiter = createLimiter({
    pool,
    clock,
    name: 'private:account',
    limit: limits.privatePerMinute,
    windowMs: MINUTE,
    keyGenerator: (_req, res) => res.locals.agentKey?.accountId ?? 'unknown',
  });
  const privateAddressLimiter = createLimiter({
    pool,
    clock,
    name: 'private:address',
    limit: limits.privateAddressPerMinute,
    windowMs: MINUTE,
    keyGenerator: clientAddress,
    counting: 'synced',
    onSyncError: (error) => logger.warn({ err: error }, 'private ingress counters could not be synced'),
  });
  const bearer = bearerAuth({
    prisma: deps.prisma,
    clock,
    failures: refusedKeyCounter(pool, clock, limits.failedKeysPerAddressPerMinute),
  });
  return {
    publicLimiter: createLimiter({
      pool,
      clock,
      name: 'public',
      limit: limits.publicPerMinute,
      windowMs: MINUTE,
      keyGenerator: clientAddress,
      counting: 'synced',
      onSyncError: (error) => logger.warn({ err: error }, 'public rate-limit counters could not be synced'),
    }),
    privateAddressLimiter,
    privateGate: [privateAddressLimiter, bearer, privateAccountLimiter],
  };
}
