// Offline migration commands (Prisma's CLI needs a native engine these machines cannot fetch):
//   npm run migrate:create -- <intent>   write prisma/migrations/<stamp>_<intent>/ from schema.prisma
//   npm run migrate:deploy               apply pending migrations to the configured database
//   npm run migrate:status               compare the database's history with the directory
// deploy runs the committed migration.sql files itself (no schema engine), keeping Prisma's
// `_prisma_migrations` bookkeeping; create and status use the WebAssembly schema engine.
// deploy and status use DATABASE_URL, or the embedded database under DATA_DIR.
// create needs only a scratch server: DATABASE_URL's, or a throwaway embedded one.
import { loadConfig, ConfigError } from '../config/env.js';
import { startEmbeddedDatabase, startEphemeralDatabase } from '../db/embedded.js';
import { ensureDatabaseExists, EMBEDDED_DATABASE_NAME } from '../db/client.js';
import { applyMigrations, MigrationError } from '../db/migrations.js';
import { createMigration, migrationStatus } from '../db/schema-engine.js';
import path from 'node:path';

const USAGE = `usage: npm run migrate:create -- <intent> | npm run migrate:deploy | npm run migrate:status`;

async function withConfiguredDatabase<T>(fn: (url: string) => Promise<T>): Promise<T> {
  const config = loadConfig();
  if (config.databaseUrl) return fn(config.databaseUrl);
  const db = await startEmbeddedDatabase({ dir: path.join(config.dataDir, 'postgres'), port: config.embeddedPgPort });
  try {
    return await fn(await ensureDatabaseExists(db.url, EMBEDDED_DATABASE_NAME));
  } finally {
    await db.stop();
  }
}

async function run(args: string[]): Promise<number> {
  const [command, ...rest] = args;
  switch (command) {
    case 'create': {
      const intent = rest.join('_');
      if (!intent) {
        console.error('migrate create: name the intent of the migration, e.g. "add_report_index"');
        return 1;
      }
      const config = loadConfig();
      const scratch = config.databaseUrl ? undefined : await startEphemeralDatabase();
      try {
        const name = await createMigration(config.databaseUrl ?? scratch!.url, intent);
        console.log(name ? `created prisma/migrations/${name}/migration.sql` : 'schema.prisma and the migrations agree: nothing to create');
      } finally {
        await scratch?.stop();
      }
      return 0;
    }
    case 'deploy': {
      const applied = await withConfiguredDatabase((url) => applyMigrations(url));
      console.log(applied.length ? `applied: ${applied.join(', ')}` : 'no pending migrations');
      return 0;
    }
    case 'status': {
      const status = await withConfiguredDatabase(migrationStatus);
      const { history, failedMigrationNames, editedMigrationNames } = status;
      if (failedMigrationNames.length) console.log(`failed: ${failedMigrationNames.join(', ')}`);
      if (editedMigrationNames.length) console.log(`edited after being applied: ${editedMigrationNames.join(', ')}`);
      if (!history) console.log('database schema is up to date');
      else if (history.diagnostic === 'databaseIsBehind') console.log(`pending: ${history.unappliedMigrationNames.join(', ')}`);
      else console.log(`history diverges: ${JSON.stringify(history)}`);
      return history || failedMigrationNames.length || editedMigrationNames.length ? 1 : 0;
    }
    default:
      console.error(USAGE);
      return command === '--help' || command === '-h' ? 0 : 1;
  }
}

try {
  process.exitCode = await run(process.argv.slice(2));
} catch (error) {
  if (error instanceof ConfigError || error instanceof MigrationError) {
    console.error(error.message);
    process.exitCode = 1;
  } else {
    throw error;
  }
}
