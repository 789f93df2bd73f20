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

  // Hourly upkeep: summaries whose decay moved on, ended rate-limit windows.
  const refresher = setInterval(() => {
    const now = systemClock.now();
    refreshStaleSummaries(database.prisma, now).catch((error: unknown) =>
      logger.error({ err: error }, 'summary refresh failed'),
    );
    pruneRateLimitCounters(database.pool, now).catch((error: unknown) =>
      logger.error({ err: error }, 'rate-limit pruning failed'),
    );
  }, SUMMARY_REFRESH_INTERVAL_MS);
  refresher.unref();

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      clearInterval(refresher);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const force = setTimeout(() => {
        logger.warn('in-flight requests did not finish in time; closing their connections');
        server.closeAllConnections();
      }, config.shutdownTimeoutMs);
      await closed;
      clearTimeout(force);
      await database.close();
    })();
    return stopping;
  };
  return { server, database, url: `http://localhost:${port}`, stop };
}

