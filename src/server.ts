// Process start: read the configuration (one clear line and exit 1 when it is bad), start
// the service, and stop it in order on SIGINT/SIGTERM.
import { ConfigError, loadConfig, type Config } from './config/env.js';
import { createLogger } from './logger.js';
import { startService, type RunningService } from './service.js';

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

  let service: RunningService | undefined;
  let signalled = false;
  const shutdown = async (signal: string) => {
    if (signalled) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    signalled = true;
    logger.info({ signal }, 'shutting down');
    try {
      await service?.stop();
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
  if (signalled) {
    await service.stop();
    process.exit(0);
  }
  if (service.server) logger.info({ url: config.baseUrl, embeddedDatabase: service.database.embedded }, 'listening');
}

await main();
