// Opens the service's database: the configured server (DATABASE_URL), or the embedded
// PostgreSQL under DATA_DIR, and applies pending migrations, or only checks that none are
// pending (a start with DATABASE_URL: see MIGRATE_ON_START in src/config/env.ts). (Loading the demo directory into
// an empty database is src/demo/demo.ts's.)
import path from 'node:path';
import pg from 'pg';
import type { Config } from '../config/env.js';
import type { Logger } from '../logger.js';
import { startEmbeddedDatabase, type EmbeddedDatabase } from './embedded.js';
import { applyMigrations, pendingMigrations, PendingMigrationsError } from './migrations.js';
import { createPool, createPrismaClient, ensureDatabaseExists, EMBEDDED_DATABASE_NAME, type PrismaClient } from './client.js';

export interface Database {
  readonly url: string;
  readonly embedded: boolean;
  readonly pool: pg.Pool;
  readonly prisma: PrismaClient;
  close(): Promise<void>;
}

export interface OpenOptions {
  /**
   * Apply pending migrations first (default true; cluster workers leave it to the primary),
   * or 'check': refuse to open (PendingMigrationsError) a database with pending migrations.
   */
  migrate?: boolean | 'check';
  /** Bound every statement and connection wait (the serving processes; see createPool). */
  bounded?: boolean;
  logger?: Logger;
}

/** Opens the database, runs `use` with it and closes it, whatever `use` did (the CLI commands). */
export async function withDatabase<T>(config: Config, use: (db: Database) => Promise<T>): Promise<T> {
  const db = await openDatabase(config);
  try {
    return await use(db);
  } finally {
    await db.close();
  }
}

export async function openDatabase(config: Config, options: OpenOptions = {}): Promise<Database> {
  const log = options.logger;
  let embedded: EmbeddedDatabase | undefined;
  let url = config.databaseUrl;
  if (!url) {
    const dir = path.join(config.dataDir, 'postgres');
    log?.info({ dir }, 'starting embedded PostgreSQL');
    embedded = await startEmbeddedDatabase({
      dir,
      port: config.embeddedPgPort,
      onPortChosen: (port) => log?.info({ port }, 'embedded PostgreSQL port (chosen free, kept in DATA_DIR/postgres.port)'),
      onExit: (exit) => log?.error(exit, 'embedded PostgreSQL exited; restarting it'),
      onRestart: (attempt) => log?.info({ attempt }, 'embedded PostgreSQL restarted'),
    });
    url = await ensureDatabaseExists(embedded.url, EMBEDDED_DATABASE_NAME);
  }
  let pool: pg.Pool | undefined;
  try {
    if (options.migrate === 'check') {
      const pending = await pendingMigrations(url);
      if (pending.length > 0) throw new PendingMigrationsError(pending);
    } else if (options.migrate !== false) {
      const applied = await applyMigrations(url);
      if (applied.length > 0) log?.info({ migrations: applied }, 'applied migrations');
    }
    pool = createPool(
      url,
      10,
      options.bounded ? { statementMs: config.databaseTimeoutMs, acquireMs: Math.min(5_000, config.databaseTimeoutMs) } : undefined,
    );
    const prisma = createPrismaClient(pool);
    const openedPool = pool;
    // Every caller of close() waits for the one closing: a second caller returning at once
    // would let the process report "stopped" while the database is still stopping.
    let closing: Promise<void> | undefined;
    return {
      url,
      embedded: embedded !== undefined,
      pool: openedPool,
      prisma,
      close() {
        return (closing ??= (async () => {
          await prisma.$disconnect().catch(() => undefined);
          await openedPool.end().catch(() => undefined);
          await embedded?.stop();
          if (embedded && !embedded.attached) log?.info('embedded PostgreSQL stopped');
        })());
      },
    };
  } catch (error) {
    await pool?.end().catch(() => undefined);
    await embedded?.stop();
    throw error;
  }
}
