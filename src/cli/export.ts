// Writes today's open-data dump (gzipped NDJSON of every public record) to
// DATA_DIR/exports/directory-YYYY-MM-DD.ndjson.gz, from the configured database:
//   npm run export
// GET /data lists the dumps and /data/directory.ndjson.gz serves the newest.
import path from 'node:path';
import { ConfigError, loadConfig } from '../config/env.js';
import { withDatabase } from '../db/database.js';
import { writeDump } from '../modules/open-data/export.js';

async function run(argv: string[]): Promise<number> {
  if (argv.includes('-h') || argv.includes('--help')) {
    console.log('usage: npm run export\n\nWrites DATA_DIR/exports/directory-<today>.ndjson.gz (public data only, CC BY 4.0).');
    return 0;
  }
  if (argv.length > 0) {
    console.error(`export: unknown arguments: ${argv.join(' ')} (see --help)`);
    return 1;
  }
  const config = loadConfig();
  return withDatabase(config, async (db) => {
    const started = performance.now();
    const { file, bytes, sha256 } = await writeDump({ prisma: db.prisma, dataDir: config.dataDir, baseUrl: config.baseUrl }, new Date());
    console.log(`wrote ${file} (${bytes.toLocaleString('en-US')} bytes) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    // As `sha256sum` prints it; the same line is in ${file}.sha256.
    console.log(`${sha256}  ${path.basename(file)}`);
    return 0;
  });
}

try {
  process.exitCode = await run(process.argv.slice(2));
} catch (error) {
  console.error(`export: ${error instanceof ConfigError ? error.message : `failed: ${error instanceof Error ? error.message : String(error)}`}`);
  process.exitCode = 1;
}
