// Loads the deterministic demo directory into the configured database (DATABASE_URL, or
// the embedded PostgreSQL under DATA_DIR):
//   npm run seed -- [--merchants N] [--reports N] [--seed N] [--force]
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config/env.js';
import { withDatabase } from '../db/database.js';
import {
  DEFAULT_DEMO_MERCHANTS,
  DEFAULT_DEMO_REPORTS,
  DEFAULT_DEMO_SEED,
  resolveDemoOptions,
  type DemoCounts,
  type DemoOptions,
} from '../demo/demo-data.js';
import { DIRECTORY_TABLES, loadDemoData, seedDemoDataIfEmpty } from '../demo/load.js';
import { recomputeAllSummaries } from '../modules/aggregation/summaries.service.js';

const USAGE = `usage: npm run seed -- [--merchants N] [--reports N] [--seed N] [--force]

Loads a fictional demo directory (merchants on reserved example domains, agents,
contributors and a year of reports) into the configured database.

  --merchants N  merchants to generate (default ${DEFAULT_DEMO_MERCHANTS})
  --reports N    reports to generate (default ${DEFAULT_DEMO_REPORTS})
  --seed N       PRNG seed; the same seed and counts give the same rows (default ${DEFAULT_DEMO_SEED})
  --force        empty the directory tables (${DIRECTORY_TABLES.join(', ')}) and load anyway
  -h, --help     show this help`;

class UsageError extends Error {}

function integerFlag(name: string, value: string | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  const text = value.replaceAll('_', '');
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text)) || Number(text) < min) {
    throw new UsageError(`--${name} must be ${min > 0 ? 'a positive' : 'a non-negative'} integer, got "${value}"`);
  }
  return Number(text);
}

function readFlags(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      options: {
        merchants: { type: 'string' },
        reports: { type: 'string' },
        seed: { type: 'string' },
        force: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

function parse(argv: string[]): { help: true } | { help: false; force: boolean; options: DemoOptions } {
  const values = readFlags(argv);
  if (values.help) return { help: true };
  const options: DemoOptions = {
    now: new Date(),
    merchants: integerFlag('merchants', values.merchants, DEFAULT_DEMO_MERCHANTS, 1),
    reports: integerFlag('reports', values.reports, DEFAULT_DEMO_REPORTS, 1),
    seed: integerFlag('seed', values.seed, DEFAULT_DEMO_SEED, 0),
  };
  try {
    resolveDemoOptions(options);
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  return { help: false, force: values.force, options };
}

function summary(counts: DemoCounts, seconds: number): string {
  const rows = Object.entries(counts).map(([table, count]) => `${table} ${count.toLocaleString('en-US')}`);
  const total = Object.values(counts).reduce((sum, count) => sum + count, 0);
  return `seeded ${total.toLocaleString('en-US')} rows in ${seconds.toFixed(1)} s: ${rows.join(', ')}`;
}

async function run(argv: string[]): Promise<number> {
  const parsed = parse(argv);
  if (parsed.help) {
    console.log(USAGE);
    return 0;
  }
  return withDatabase(loadConfig(), async (db) => {
    const started = performance.now();
    const progress = (message: string) => console.log(`  ${message}`);
    let counts: DemoCounts | null;
    if (parsed.force) {
      console.log(`--force: emptying ${DIRECTORY_TABLES.join(', ')} before loading`);
      counts = await loadDemoData(db.pool, parsed.options, progress, { truncateFirst: true });
    } else {
      counts = await seedDemoDataIfEmpty(db.pool, parsed.options, progress);
      if (counts === null) {
        console.error('seed: the database already holds a directory; run with --force to replace it');
        return 1;
      }
    }
    console.log(summary(counts, (performance.now() - started) / 1000));

    // Reads never aggregate reports: the directory shows nothing until summaries exist.
    const summariesStarted = performance.now();
    const total = counts.merchants;
    let nextProgress = total / 10;
    await recomputeAllSummaries(db.prisma, parsed.options.now, {
      onProgress: (done) => {
        if (done >= nextProgress && done < total) {
          progress(`summaries: ${done.toLocaleString('en-US')} / ${total.toLocaleString('en-US')} merchants`);
          nextProgress += total / 10;
        }
      },
    });
    const seconds = (performance.now() - summariesStarted) / 1000;
    console.log(`computed the summaries of ${total.toLocaleString('en-US')} merchants in ${seconds.toFixed(1)} s`);
    // Fresh statistics and visibility maps, so the planner picks index scans right away
    // instead of waiting for autovacuum after a bulk load.
    await db.pool.query('VACUUM ANALYZE');
    console.log(`done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return 0;
  });
}

try {
  process.exitCode = await run(process.argv.slice(2));
} catch (error) {
  if (error instanceof UsageError) {
    // parseArgs messages can span lines; the error stays on one.
    console.error(`seed: ${error.message.replace(/\s*\n\s*/g, ' ')} (see --help)`);
  } else if (error instanceof ConfigError) {
    console.error(`seed: ${error.message}`);
  } else {
    console.error('seed: failed:', error instanceof Error ? error.message : error);
  }
  process.exitCode = 1;
}
