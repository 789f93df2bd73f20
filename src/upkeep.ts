// What a running service does for itself now and then: recompute the summaries whose recency
// decay moved on, and delete what only grows (ended rate-limit windows, sign-in links past
// their day of grace, form screenshots no session refers to; connect-pg-simple prunes expired sessions itself every 15 minutes),
// and write the day's open-data dump (the first pass of a UTC day; the oldest beyond KEPT_DUMPS go).
// Every instance (and every cluster primary) schedules it, but a pass runs in one of them at a
// time: the first to take UPKEEP_LOCK_KEY does the work, the others skip that pass.
import type { Database } from './db/database.js';
import type { Logger } from './logger.js';
import { pruneRateLimitCounters } from './modules/limits/counters.js';
import { clearOldAddressHashes } from './modules/moderation/signals.repository.js';
import { printListFragments, refreshStaleSummaries } from './modules/aggregation/summaries.service.js';
import { purgeExpiredSignInTokens } from './modules/accounts/accounts.repository.js';
import { sweepPending } from './modules/reports/pending-screenshots.js';
import { sweepAbandonedUploads } from './modules/evidence/screenshots.js';
import { hasDumpOf, KEPT_DUMPS, pruneDumps, writeDump } from './modules/open-data/export.js';
import { upkeepMetrics } from './metrics.js';
import { recheckDueClaims } from './modules/claims/claims.service.js';
import { queueOwnerDigests } from './modules/claims/owner-digest.js';
import type { Fetcher } from './outbound/fetcher.js';

/**
 * The session-level advisory lock (pg_try_advisory_lock) held for the length of one upkeep
 * pass, on a connection of its own and outside any transaction, so the pass's short
 * transactions never wait for each other. Arbitrary but fixed: "ACDUPK" in ASCII (the demo
 * load's is SEED_LOCK_KEY, "ACDSEE"). It only saves duplicate work: the summary refresh takes
 * the merchants' locks (evidence.ts) and is correct even when two passes overlap, as after a
 * lost connection, which releases the lock while its pass still runs.
 */
export const UPKEEP_LOCK_KEY = 0x4143_4455_504b;

/**
 * Whether an upkeep pass of this database is running now (the benchmark and the tests wait for
 * the first one): its lock in pg_locks, looked at and never taken, so that no pass is skipped for
 * the look. pg_locks lists the whole server's locks; an advisory lock belongs to one database.
 */
export const UPKEEP_RUNNING_SQL = `SELECT EXISTS (SELECT 1 FROM pg_locks
  WHERE locktype = 'advisory' AND objsubid = 1 AND granted
    AND ((classid::bigint << 32) | objid::bigint) = ${UPKEEP_LOCK_KEY}
    AND database = (SELECT oid FROM pg_database WHERE datname = current_database())) AS held`;

export interface UpkeepOptions {
  signal?: AbortSignal;
  /** DATA_DIR: without it, no screenshot sweep and no dump. */
  dataDir?: string;
  /** The public address the dump's links use: without it (and dataDir), no dump. */
  baseUrl?: string;
  /** The one SSRF-safe fetcher: without it, no re-checks of owners' claims. */
  fetcher?: Fetcher;
}

export type UpkeepPass =
  /** This instance did the pass; `summaries` were recomputed. */
  | { ran: true; summaries: number }
  /** Another instance holds the lock, or the database could not be reached. */
  | { ran: false };

/**
 * One upkeep pass unless another instance is doing one; each step runs even when another
 * failed, and nothing throws (failures are logged). Shutdown stops the summaries between two
 * batches, and the day's dump where it is (its partial file removed).
 */
export async function runUpkeep(
  database: Pick<Database, 'pool' | 'prisma'>,
  now: Date,
  logger: Logger,
  options: UpkeepOptions = {},
): Promise<UpkeepPass> {
  let holder;
  try {
    holder = await database.pool.connect();
  } catch (error) {
    logger.error({ err: error }, 'upkeep skipped: no database connection');
    upkeepMetrics.failed('connect');
    return { ran: false };
  }
  let broken = false;
  // The holder sits idle, checked out, while the pass runs on other connections: pg-pool takes
  // its own error listener off a checked-out client, so a database that dies meanwhile (an
  // 'error' event with nobody listening) would take the whole process down. Mark it broken.
  const onError = (error: Error) => {
    broken = true;
    logger.warn({ err: error }, 'the upkeep lost its lock connection');
  };
  holder.on('error', onError);
  try {
    const { rows } = await holder.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [UPKEEP_LOCK_KEY]);
    if (rows[0]?.locked !== true) {
      logger.debug('another instance is doing the upkeep; skipping this pass');
      return { ran: false };
    }
    try {
      return { ran: true, summaries: await upkeepSteps(database, now, logger, options) };
    } finally {
      // Ending the session releases the lock too, should the unlock itself fail.
      await holder.query('SELECT pg_advisory_unlock($1)', [UPKEEP_LOCK_KEY]).catch(() => {
        broken = true;
      });
    }
  } catch (error) {
    broken = true;
    upkeepMetrics.failed('lock');
    logger.error({ err: error }, 'upkeep skipped: could not take its lock');
    return { ran: false };
  } finally {
    holder.removeListener('error', onError);
    holder.release(broken);
  }
}

/** What every step of a pass works with: the database, the pass's time, the log, and how a failed step is counted. */
interface PassContext {
  database: Pick<Database, 'pool' | 'prisma'>;
  now: Date;
  logger: Logger;
  failed: (step: Parameters<typeof upkeepMetrics.failed>[0]) => void;
}

/** The pass's steps, in order, each logging its own failure; returns the number of summaries recomputed. */
async function upkeepSteps(
  database: Pick<Database, 'pool' | 'prisma'>,
  now: Date,
  logger: Logger,
  { signal, dataDir, baseUrl, fetcher }: UpkeepOptions,
): Promise<number> {
  const pass = upkeepMetrics.stopwatch();
  let failures = 0;
  const failed: PassContext['failed'] = (step) => {
    failures += 1;
    upkeepMetrics.failed(step);
  };
  const context: PassContext = { database, now, logger, failed };
  const refreshed = await refreshSummaries(context, signal);
  // Once per start and database: the list fragments another version of the code stored.
  if (!fragmentsPrinted.has(database.pool)) await printFragments(context, signal);
  await pruneTables(context);
  // Owners' claims due for their scheduled re-check (a failed one starts a grace period, and a
  // claim whose grace ended lapses), once across instances, under this pass's lock.
  if (fetcher) await recheckClaims(context, fetcher);
  // Owners' daily digests of newly approved reports, queued in the mail outbox (the service's
  // outbox pass sends them); the links need the public address.
  if (baseUrl) await queueDigests(context, baseUrl);
  // Screenshots of form drafts no live session refers to (signed out, expired) go even when
  // nobody opens the form, which sweeps too.
  if (dataDir) await sweepScreenshots(context, dataDir);
  // The day's dump, once per UTC day (the first pass that finds it missing; one instance, under
  // this pass's lock), so the newest dump /llms.txt and /api/v1 link exists from the first pass
  // after a fresh start. Pruning runs even on a day whose dump failed.
  if (dataDir && baseUrl) {
    await dailyDump(context, dataDir, baseUrl, signal);
  } else if (dataDir) {
    logger.warn('no daily open-data dump: the upkeep was not given the base URL');
  }
  upkeepMetrics.passDone(pass(), failures, now);
  return refreshed;
}

/** The databases whose list fragments this process has printed (printFragments). */
const fragmentsPrinted = new WeakSet<object>();

/** Prints the list fragments of other stamps again (summaries.service.ts printListFragments). */
async function printFragments({ database, logger, failed }: PassContext, signal: AbortSignal | undefined): Promise<void> {
  try {
    const started = performance.now();
    const printed = await printListFragments(database.prisma, { signal });
    if (signal?.aborted) return;
    fragmentsPrinted.add(database.pool);
    if (printed > 0) logger.info({ summaries: printed, ms: Math.round(performance.now() - started) }, 'printed the list fragments of summaries stored by other code');
  } catch (error) {
    failed('list-fragments');
    logger.error({ err: error }, 'printing list fragments failed');
  }
}

/** Recomputes the summaries whose recency decay moved on; returns how many (0 when the refresh failed). */
async function refreshSummaries({ database, now, logger, failed }: PassContext, signal: AbortSignal | undefined): Promise<number> {
  let refreshed = 0;
  const refresh = upkeepMetrics.stopwatch();
  try {
    refreshed = await refreshStaleSummaries(database.prisma, now, { signal });
    upkeepMetrics.summaryRefresh(refresh(), refreshed);
    if (refreshed > 0) logger.info({ summaries: refreshed }, 'recomputed summaries older than a day');
  } catch (error) {
    upkeepMetrics.summaryRefresh(refresh(), null);
    failed('summaries');
    logger.error({ err: error }, 'summary refresh failed');
  }
  return refreshed;
}

/** Deletes the rows that only grow: ended rate-limit windows, old sign-in links, old address hashes. */
async function pruneTables({ database, now, logger, failed }: PassContext): Promise<void> {
  await pruneRateLimitCounters(database.pool, now).catch((error: unknown) => {
    failed('rate-limit-prune');
    logger.error({ err: error }, 'rate-limit pruning failed');
  });
  await purgeExpiredSignInTokens(database.prisma, now).catch((error: unknown) => {
    failed('sign-in-prune');
    logger.error({ err: error }, 'sign-in link pruning failed');
  });
  // Issue 37: a report's address hash serves the moderators' "same address" signal for a while only.
  await clearOldAddressHashes(database.prisma, now).catch((error: unknown) => {
    failed('address-hash-prune');
    logger.error({ err: error }, 'address hash pruning failed');
  });
}

async function recheckClaims({ database, now, logger, failed }: PassContext, fetcher: Fetcher): Promise<void> {
  await recheckDueClaims({ prisma: database.prisma, fetcher }, now).then(
    ({ checked, lapsed }) => {
      if (checked > 0) logger.info({ checked, lapsed }, 're-checked owners’ claims');
    },
    (error: unknown) => {
      failed('claim-rechecks');
      logger.error({ err: error }, 'claim re-checks failed');
    },
  );
}

async function queueDigests({ database, now, logger, failed }: PassContext, baseUrl: string): Promise<void> {
  await queueOwnerDigests(database.prisma, now, baseUrl).then(
    ({ queued }) => {
      if (queued > 0) logger.info({ queued }, 'queued owners’ digests');
    },
    (error: unknown) => {
      failed('owner-digests');
      logger.error({ err: error }, 'owner digests failed');
    },
  );
}

async function sweepScreenshots({ database, now, logger, failed }: PassContext, dataDir: string): Promise<void> {
  await sweepPending(database.prisma, dataDir, now).catch((error: unknown) => {
    failed('screenshot-sweep');
    logger.error({ err: error }, 'pending screenshot sweep failed');
  });
  // Uploads a process that died mid-request left in DATA_DIR/uploads (real clock: file times).
  await sweepAbandonedUploads(dataDir).catch((error: unknown) => {
    failed('screenshot-sweep');
    logger.error({ err: error }, 'abandoned upload sweep failed');
  });
}

/** Writes the day's dump unless it exists, then deletes the oldest beyond KEPT_DUMPS. */
async function dailyDump({ database, now, logger, failed }: PassContext, dataDir: string, baseUrl: string, signal: AbortSignal | undefined): Promise<void> {
  try {
    // A shutdown stops the dump where it is (minutes at 100,000 merchants: a stop waited for
    // all of it); the first pass after the next start writes it.
    if (!signal?.aborted && !(await hasDumpOf(dataDir, now))) {
      const { file, bytes } = await writeDump({ prisma: database.prisma, dataDir, baseUrl }, now, signal);
      logger.info({ file, bytes }, 'wrote the daily open-data dump');
    }
  } catch (error) {
    if (signal?.aborted) logger.info('the daily open-data dump stopped for the shutdown; the next start writes it');
    else {
      failed('dump');
      logger.error({ err: error }, 'daily open-data dump failed');
    }
  }
  await pruneDumps(dataDir, KEPT_DUMPS).then(
    (deleted) => {
      if (deleted.length > 0) logger.info({ deleted }, 'deleted open-data dumps beyond the newest few');
    },
    (error: unknown) => {
      failed('dump-prune');
      logger.error({ err: error }, 'open-data dump pruning failed');
    },
  );
}
