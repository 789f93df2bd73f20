// The running service: database (embedded unless DATABASE_URL), HTTP listener, and an
// orderly stop: stop accepting, finish in-flight requests, close the pool, stop the
// embedded database.
import type { Server } from 'node:http';
import type { Config } from './config/env.js';
import type { Logger } from './logger.js';
import { openDatabase, type Database } from './db/database.js';
import { createApp } from './app.js';
import { systemClock } from './clock.js';
import { refreshStaleSummaries } from './modules/aggregation/summaries.service.js';
import { pruneRateLimitCounters } from './http/middleware/rate-limit.js';

/** How often a running service recomputes summaries whose recency decay has moved on. */
const SUMMARY_REFRESH_INTERVAL_MS = 60 * 60 * 1000;

export interface RunningService {
  readonly server: Server;
  readonly database: Database;
  readonly url: string;
  stop(): Promise<void>;
}

export async function startService(config: Config, logger: Logger): Promise<RunningService> {
  const database = await openDatabase(config, { seed: config.seedDemoData, logger });
  const app = createApp({ config, logger, prisma: database.prisma, pool: database.pool, clock: systemClock });
  let server: Server;
  try {
    server = await new Promise<Server>((resolve, reject) => {
      const s = app.listen(config.port, (error?: Error) => (error ? reject(error) : resolve(s)));
    });
  } catch (error) {
    await database.close();
    throw error;
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;

  // Upkeep, right after start (a restart after downtime catches up while already serving)
  // and hourly: summaries whose recency decay moved on, ended rate-limit windows. One run at a
  // time; shutdown stops it between two batches.
  const shutdown = new AbortController();
  let upkeep: Promise<void> | undefined;
  const runUpkeep = () => {
    upkeep ??= (async () => {
      const now = systemClock.now();
      try {
        const refreshed = await refreshStaleSummaries(database.prisma, now, { signal: shutdown.signal });
        if (refreshed > 0) logger.info({ summaries: refreshed }, 'recomputed summaries older than a day');
      } catch (error) {
        logger.error({ err: error }, 'summary refresh failed');
      }
      await pruneRateLimitCounters(database.pool, now).catch((error: unknown) =>
        logger.error({ err: error }, 'rate-limit pruning failed'),
      );
    })().finally(() => {
      upkeep = undefined;
    });
    return upkeep;
  };
  void runUpkeep();
  const refresher = setInterval(() => void runUpkeep(), SUMMARY_REFRESH_INTERVAL_MS);
  refresher.unref();

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      clearInterval(refresher);
      shutdown.abort();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const force = setTimeout(() => {
        logger.warn('in-flight requests did not finish in time; closing their connections');
        server.closeAllConnections();
      }, config.shutdownTimeoutMs);
      await closed;
      clearTimeout(force);
      await upkeep;
      await database.close();
    })();
    return stopping;
  };
  return { server, database, url: `http://localhost:${port}`, stop };
}

