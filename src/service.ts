// The running service: database (embedded unless DATABASE_URL), HTTP listener, upkeep, and an
// orderly stop: stop accepting, finish in-flight requests, close the pool, stop the embedded
// database. With WEB_CONCURRENCY > 1 the primary process owns the database and the upkeep and
// forks that many HTTP workers, which share the port (Node's cluster module) and the database.
import cluster, { type Worker } from 'node:cluster';
import { createServer, type Server } from 'node:http';
import type { Config } from './config/env.js';
import type { Logger } from './logger.js';
import { openDatabase, type Database } from './db/database.js';
import { createApp } from './app.js';
import { systemClock } from './clock.js';
import { runUpkeep } from './upkeep.js';
import { fetcherFromConfig } from './outbound/fetcher.js';
import { loadDemoIfEmpty } from './demo/demo.js';
import { answerClientErrors } from './web/client-errors.js';
import { watchDirectoryVersion, type DirectoryVersions } from './modules/directory/version.js';
import { listingKeeper, type ListingKeeper } from './modules/directory/listing-store.js';
import { countCache } from './modules/directory/counts.js';
import { warmDirectoryReads } from './modules/merchants/merchants.service.js';
import { serveClusterMetrics } from './metrics.js';
import { startDecisionNoticeRetries } from './modules/moderation/decision-notices.js';

/** How often a running service does its upkeep (src/upkeep.ts). */
const UPKEEP_INTERVAL_MS = 60 * 60 * 1000;
/** Set in the environment of cluster workers. */
const WORKER_FLAG = 'ACD_CLUSTER_WORKER';

export interface RunningService {
  /** This process's HTTP server; null in a cluster primary, which does not serve. */
  readonly server: Server | null;
  readonly database: Database;
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * The database with its migrations applied (MIGRATE_ON_START; otherwise refused while any are
 * pending) and, in an empty one, the demo directory (SEED_DEMO_DATA).
 */
async function openPrepared(config: Config, logger: Logger): Promise<Database> {
  const database = await openDatabase(config, { logger, bounded: true, migrate: config.migrateOnStart ? true : 'check' });
  try {
    if (config.seedDemoData) await loadDemoIfEmpty(database, logger);
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}

export const isClusterWorker = () => cluster.isWorker && process.env[WORKER_FLAG] === '1';

/**
 * Upkeep (src/upkeep.ts), right after start (a restart after downtime catches up while already
 * serving) and hourly. One run at a time in this process, and one across all instances (the
 * pass's advisory lock; an instance that finds it taken skips that pass); stop() ends a run
 * between two batches of summaries, or stops its dump.
 */
function startUpkeep(database: Database, logger: Logger, config: Pick<Config, 'dataDir' | 'baseUrl' | 'outboundTestHosts' | 'dnsServers'>): { stop(): Promise<void> } {
  const shutdown = new AbortController();
  const fetcher = fetcherFromConfig(config);
  let upkeep: Promise<unknown> | undefined;
  const run = () => {
    upkeep ??= runUpkeep(database, systemClock.now(), logger, { signal: shutdown.signal, dataDir: config.dataDir, baseUrl: config.baseUrl, fetcher }).finally(() => {
      upkeep = undefined;
    });
    return upkeep;
  };
  void run();
  const timer = setInterval(() => void run(), UPKEEP_INTERVAL_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      shutdown.abort();
      await upkeep;
    },
  };
}

/** The longest the start waits for warmReadPath before listening anyway. */
const WARM_UP_TIMEOUT_MS = 15_000;

/**
 * Each kind of directory read once before listening (warmDirectoryReads), so that the first
 * requests do not pay for opening connections and compiling queries. Never fatal: a failure or
 * a slow database is logged and the process listens all the same.
 */
async function warmReadPath(database: Database, versions: DirectoryVersions, listing: ListingKeeper, config: Config, logger: Logger): Promise<void> {
  const started = performance.now();
  const ctx = { prisma: database.prisma, pool: database.pool, counts: countCache(database.prisma, versions, listing), baseUrl: config.baseUrl, now: systemClock.now() };
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), WARM_UP_TIMEOUT_MS);
    timer.unref();
  });
  // A read that fails after the timeout is still caught here, never left unhandled.
  const warm = warmDirectoryReads(ctx).then(
    () => null,
    (error: unknown) => ({ error }),
  );
  try {
    const outcome = await Promise.race([warm, timeout]);
    if (outcome === 'timeout') logger.warn({ timeoutMs: WARM_UP_TIMEOUT_MS }, 'the read path was not warm in time; listening all the same');
    else if (outcome) logger.warn({ err: outcome.error }, 'warming the read path failed; listening all the same');
    else logger.info({ ms: Math.round(performance.now() - started) }, 'read path warmed');
  } finally {
    clearTimeout(timer);
  }
}

/** Serves HTTP from this process over an open database. */
async function startHttp(config: Config, logger: Logger, database: Database) {
  const versions = await watchDirectoryVersion(database.pool, { logger });
  // The directory's lists are loaded into memory before the first request (seconds at 100,000
  // merchants); a failure leaves them to load at the first search, SQL answering meanwhile.
  const listing = listingKeeper(database.pool, versions, logger);
  await listing.warm();
  await warmReadPath(database, versions, listing, config, logger);
  const app = createApp({ config, logger, prisma: database.prisma, pool: database.pool, clock: systemClock, versions, listing });
  // Slow clients are bounded by the server itself: Node's defaults held a body that never ended
  // for 300 s and a header section for 60 s (checked every 30 s). Checked every second here.
  const server = createServer(
    {
      requestTimeout: config.requestTimeoutMs,
      headersTimeout: config.headersTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, config.headersTimeoutMs),
    },
    app,
  );
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      const listening = () => {
        server.off('error', reject);
        resolve();
      };
      if (config.host) server.listen(config.port, config.host, listening);
      else server.listen(config.port, listening);
    });
  } catch (error) {
    listing.close();
    await versions.close();
    throw error;
  }
  answerClientErrors(server, config.baseUrl);
  // Decision e-mails queued in the outbox: retried here (and those the operator CLI queued).
  const notices = startDecisionNoticeRetries(database.prisma);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  return {
    server,
    port,
    async stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      logger.info('no longer accepting connections; finishing the requests in flight');
      const force = setTimeout(() => {
        logger.warn('in-flight requests did not finish in time; closing their connections');
        server.closeAllConnections();
      }, config.shutdownTimeoutMs);
      await closed;
      clearTimeout(force);
      logger.info('requests in flight finished');
      // The notices being sent now finish (each within the mail timeouts); the rest wait in the outbox.
      await notices.stop();
      listing.close();
      await versions.close();
    },
  };
}

export async function startService(config: Config, logger: Logger): Promise<RunningService> {
  if (isClusterWorker()) return startWorker(config, logger);
  if (config.webConcurrency > 1 && cluster.isPrimary) return startPrimary(config, logger);
  return serving(config, logger, await openPrepared(config, logger), { upkeep: true });
}

/** A cluster worker: HTTP only, on the database the primary prepared (its DATABASE_URL). */
async function startWorker(config: Config, logger: Logger): Promise<RunningService> {
  return serving(config, logger, await openDatabase(config, { migrate: false, logger, bounded: true }), { upkeep: false });
}

/**
 * HTTP on an open database, and the upkeep where this process does it; stopping ends the upkeep,
 * then the requests in flight, then the database (once, however often it is asked).
 */
async function serving(config: Config, logger: Logger, database: Database, options: { upkeep: boolean }): Promise<RunningService> {
  let http: Awaited<ReturnType<typeof startHttp>>;
  try {
    http = await startHttp(config, logger, database);
  } catch (error) {
    await database.close();
    throw error;
  }
  const upkeep = options.upkeep ? startUpkeep(database, logger, config) : null;
  let stopping: Promise<void> | undefined;
  return {
    server: http.server,
    database,
    url: `http://localhost:${http.port}`,
    stop: () =>
      (stopping ??= (async () => {
        await upkeep?.stop();
        await http.stop();
        await database.close();
      })()),
  };
}

/**
 * The cluster primary: prepares the database (embedded start, migrations, demo data), runs the
 * upkeep, forks WEB_CONCURRENCY workers and replaces any that dies. It stops the workers first
 * (each finishes its in-flight requests) and the database last.
 */
async function startPrimary(config: Config, logger: Logger): Promise<RunningService> {
  const database = await openPrepared(config, logger);
  const upkeep = startUpkeep(database, logger, config);
  serveClusterMetrics();
  let stopping = false;
  let restarts = 0;
  const fork = (): Worker => cluster.fork({ [WORKER_FLAG]: '1', DATABASE_URL: database.url, SEED_DEMO_DATA: 'false' });
  const listening = new Promise<void>((resolve, reject) => {
    // Workers that listen, or that stopped on a signal while the others started: a group's
    // signal reaches the workers while this process still starts. A worker that had its handlers
    // exits 0; one still loading its modules is ended by the signal itself.
    const started = new Set<number>();
    const settle = (worker: Worker) => {
      started.add(worker.id);
      if (started.size === config.webConcurrency) resolve();
    };
    cluster.on('listening', settle);
    cluster.on('exit', (worker, code, signal) => {
      if (stopping) return;
      if (started.size < config.webConcurrency) {
        if (code === 0 || signal === 'SIGTERM' || signal === 'SIGINT') settle(worker);
        else reject(new Error(`an HTTP worker exited during start (code ${code ?? signal})`));
        return;
      }
      // A worker that dies is replaced, at most one a second after repeated failures; not
      // once stopping began meanwhile (a group's signal reaches the workers and this process
      // together, and a worker may finish first).
      logger.error({ worker: worker.process.pid, code, signal }, 'HTTP worker exited; starting another');
      restarts += 1;
      setTimeout(() => {
        if (!stopping) fork();
      }, Math.min(1_000, 50 * restarts)).unref();
    });
  });
  for (let i = 0; i < config.webConcurrency; i++) fork();
  try {
    await listening;
  } catch (error) {
    stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
    await upkeep.stop();
    await database.close();
    throw error;
  }
  logger.info({ workers: config.webConcurrency }, 'HTTP workers listening');
  let stopped: Promise<void> | undefined;
  return {
    server: null,
    database,
    url: `http://localhost:${config.port}`,
    stop: () =>
      (stopped ??= (async () => {
        stopping = true;
        const exits = Object.values(cluster.workers ?? {}).flatMap((worker) =>
          worker && !worker.isDead()
            ? [
                new Promise<{ pid: number | undefined; code: number | null; signal: string | null }>((resolve) => {
                  worker.once('exit', (code: number | null, signal: string | null) => resolve({ pid: worker.process.pid, code, signal }));
                  // Its own shutdown finishes the requests in flight, then it exits (a second
                  // SIGTERM, after the group's, changes nothing there).
                  worker.process.kill('SIGTERM');
                }),
              ]
            : [],
        );
        const failed = (await Promise.all(exits)).filter((exit) => exit.code !== 0);
        await upkeep.stop();
        await database.close();
        // A worker that did not stop cleanly may have dropped requests: not a clean stop.
        if (failed.length > 0) {
          throw new Error(`HTTP worker${failed.length === 1 ? '' : 's'} did not stop cleanly: ${failed.map((f) => `${f.pid} (${f.code ?? f.signal})`).join(', ')}`);
        }
      })()),
  };
}
