// Process start: read the configuration (one clear line and exit 1 when it is bad), start
// the service, and stop it in order on SIGINT/SIGTERM.
//
// Signals: Ctrl-C in a terminal and systemd's default stop signal the whole process group, so
// with WEB_CONCURRENCY > 1 a worker hears the group's signal and then its primary's. A worker
// therefore takes every signal as "stop gracefully" (its own shutdown finishes the requests in
// flight, bounded by SHUTDOWN_TIMEOUT_MS); only the primary, or a single process, takes a
// second signal as "exit now" (an operator insisting): it kills its workers and exits 1.
import cluster from 'node:cluster';
import { ConfigError, loadConfig, type Config } from './config/env.js';
import { createLogger } from './logger.js';
import { isClusterWorker, startService, type RunningService } from './service.js';

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  const worker = isClusterWorker();

  let service: RunningService | undefined;
  let signalled = false;
  const shutdown = async (signal: string) => {
    if (signalled) {
      if (worker) {
        logger.info({ signal }, 'already stopping; still finishing the requests in flight');
        return;
      }
      logger.warn({ signal }, 'second signal: exiting now');
      for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGKILL');
      process.exit(1);
    }
    signalled = true;
    logger.info({ signal }, 'shutting down');
    // Still starting (a cluster primary waits for its workers to listen): the end of the start,
    // below, stops what it started. Exiting here would leave the workers' requests behind.
    if (service) await stopAndExit(service);
  };
  const stopAndExit = async (running: RunningService) => {
    try {
      await running.stop();
      logger.info('stopped');
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  try {
    service = await startService(config, logger);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    logger.fatal({ err: error }, 'could not start');
    process.stderr.write(`Could not start: ${message.split('\n')[0]}\n`);
    process.exit(1);
  }
  if (signalled) await stopAndExit(service);
  if (service.server) logger.info({ url: config.baseUrl, embeddedDatabase: service.database.embedded }, 'listening');
}

await main();
