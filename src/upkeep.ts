// What a running service does for itself now and then: recompute the summaries whose recency
// decay moved on, and delete what only grows (ended rate-limit windows, sign-in links past
// their day of grace; connect-pg-simple prunes expired sessions itself every 15 minutes).
import type { Database } from './db/database.js';
import type { Logger } from './logger.js';
import { pruneRateLimitCounters } from './modules/limits/counters.js';
import { refreshStaleSummaries } from './modules/aggregation/summaries.service.js';
import { purgeExpiredSignInTokens } from './modules/accounts/accounts.repository.js';

/** One upkeep pass; each step runs even when another failed. Shutdown stops the summaries between two batches. */
export async function runUpkeep(database: Pick<Database, 'pool' | 'prisma'>, now: Date, logger: Logger, signal?: AbortSignal): Promise<void> {
  try {
    const refreshed = await refreshStaleSummaries(database.prisma, now, { signal });
    if (refreshed > 0) logger.info({ summaries: refreshed }, 'recomputed summaries older than a day');
  } catch (error) {
    logger.error({ err: error }, 'summary refresh failed');
  }
  await pruneRateLimitCounters(database.pool, now).catch((error: unknown) => logger.error({ err: error }, 'rate-limit pruning failed'));
  await purgeExpiredSignInTokens(database.prisma, now).catch((error: unknown) => logger.error({ err: error }, 'sign-in link pruning failed'));
}
