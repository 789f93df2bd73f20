// The bulk dump: every public record of the directory as gzipped NDJSON, one JSON object a
// line, each with its `type`: a `meta` line first (licence, disclaimer, when), then `category`,
// `agent`, `merchant` (without its summaries), `summary` (one per merchant and agent with
// approved reports) and `report` lines. The same views as the public API, so nothing private
// can appear. Streamed from keyset pages: memory stays flat whatever the directory's size.
import { createHash } from 'node:crypto';
import { access, mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { PrismaClient } from '../../db/client.js';
import { agents, categories } from '../catalog/catalog.service.js';
import { uncachedCounts } from '../directory/counts.js';
import { DISCLAIMER, methodologyUrl, PAGE_SIZE, type Links } from '../directory/notice.js';
import { merchantPage, type DirectoryContext } from '../merchants/merchants.service.js';
import { publicReportPage } from '../reports/public-reports.repository.js';
import { reportView } from '../reports/public-reports.service.js';
import { DATA_LICENCE } from './licence.js';

/** Records per keyset page. */
const MERCHANTS_PER_PAGE = 200;
const REPORTS_PER_PAGE = 1_000;

export const DUMP_TYPES = ['meta', 'category', 'agent', 'merchant', 'summary', 'report'] as const;
const DUMP_NAME = /^directory-(\d{4}-\d{2}-\d{2})\.ndjson\.gz$/;

/**
 * How many daily dumps stay in DATA_DIR/exports (the newest; the upkeep deletes older ones and
 * /data lists them). A constant for now, not a setting: a week of history.
 */
export const KEPT_DUMPS = 7;

export const dumpsDir = (dataDir: string) => path.join(dataDir, 'exports');
const dumpName = (now: Date) => `directory-${now.toISOString().slice(0, 10)}.ndjson.gz`;
/** Beside each dump, its SHA-256 in `sha256sum` format (`<hex>  <name>`), written with it. */
const checksumName = (name: string) => `${name}.sha256`;

/**
 * Longest a dump's read may take (the transaction holding its snapshot is given up after it):
 * far beyond the minutes a directory of millions of reports takes, short enough that a stuck
 * dump does not hold back PostgreSQL's vacuum for a day.
 */
const DUMP_SNAPSHOT_MS = 60 * 60 * 1000;

/**
 * Every line of the dump, in order, all read from one snapshot of the database: one REPEATABLE
 * READ, READ ONLY transaction for the whole dump. Read statement by statement, a decision
 * committed while the dump was being written could appear in its later lines (a report, a
 * merchant's summaries) but not its earlier ones (the category and agent lines), or a renamed
 * category differ between its own line and its merchants'. Its lists are counted in the snapshot,
 * never from a cache.
 */
export async function* dumpLines(ctx: Links & { prisma: PrismaClient; now: Date }): AsyncGenerator<string> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let opened!: (tx: PrismaClient) => void;
  let failed!: (error: unknown) => void;
  const snapshot = new Promise<PrismaClient>((resolve, reject) => {
    opened = resolve;
    failed = reject;
  });
  const transaction = ctx.prisma.$transaction(
    async (tx) => {
      await tx.$executeRawUnsafe('SET TRANSACTION READ ONLY');
      opened(tx as unknown as PrismaClient);
      // Held open while the lines are read and written.
      await released;
    },
    { isolationLevel: 'RepeatableRead', timeout: DUMP_SNAPSHOT_MS, maxWait: 10_000 },
  );
  // A transaction that could not begin fails the dump; one that fails later fails its queries.
  transaction.catch(failed);
  try {
    const tx = await snapshot;
    yield* linesOf({ ...ctx, prisma: tx, counts: uncachedCounts(tx) });
  } finally {
    release();
    await transaction.catch(() => undefined);
  }
}

async function* linesOf(ctx: DirectoryContext): AsyncGenerator<string> {
  const line = (type: string, record: object) => `${JSON.stringify({ type, ...record })}\n`;
  yield line('meta', {
    generatedAt: ctx.now.toISOString(),
    licence: DATA_LICENCE,
    disclaimer: DISCLAIMER,
    methodology: methodologyUrl(ctx),
    schema: `${ctx.baseUrl}/data`,
  });
  for (let page = 1; ; page += 1) {
    const { total, data } = await categories(ctx, page);
    for (const category of data) yield line('category', category);
    if (page * PAGE_SIZE >= total) break;
  }
  for (let page = 1; ; page += 1) {
    const { total, data } = await agents(ctx, page);
    for (const agent of data) yield line('agent', agent);
    if (page * PAGE_SIZE >= total) break;
  }
  for (let after: string | null = null; ; ) {
    const merchants = await merchantPage(ctx, after, MERCHANTS_PER_PAGE);
    for (const { agents: summaries, ...merchant } of merchants) {
      yield line('merchant', merchant);
      for (const summary of summaries) yield line('summary', { merchantId: merchant.id, ...summary });
    }
    if (merchants.length < MERCHANTS_PER_PAGE) break;
    after = merchants.at(-1)!.id;
  }
  for (let after: string | null = null; ; ) {
    const rows = await publicReportPage(ctx.prisma, after, REPORTS_PER_PAGE);
    for (const row of rows) yield line('report', reportView(ctx, row));
    if (rows.length < REPORTS_PER_PAGE) break;
    after = rows.at(-1)!.id;
  }
}

/**
 * Writes today's dump into DATA_DIR/exports (atomically: a reader never sees half a file), and
 * its SHA-256 beside it (`directory-YYYY-MM-DD.ndjson.gz.sha256`), hashed as it is written and
 * in place before the dump itself appears.
 */
export async function writeDump(
  deps: { prisma: PrismaClient; dataDir: string } & Links,
  now: Date,
  /** Stops the writing (a service shutting down): it rejects with an AbortError and leaves no file. */
  signal?: AbortSignal,
): Promise<{ file: string; bytes: number; sha256: string }> {
  const dir = dumpsDir(deps.dataDir);
  await mkdir(dir, { recursive: true });
  const name = dumpName(now);
  const file = path.join(dir, name);
  const partial = `${file}.${process.pid}.partial`;
  const checksumFile = path.join(dir, checksumName(name));
  const checksumPartial = `${checksumFile}.${process.pid}.partial`;
  const hash = createHash('sha256');
  const hashing = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  let sha256: string;
  // Opened before the pipeline, so that the removal below always finds the file it created
  // (a stream opening it itself could create it after a stop had already removed it).
  const out = await open(partial, 'w');
  try {
    await pipeline(Readable.from(dumpLines({ prisma: deps.prisma, baseUrl: deps.baseUrl, now })), createGzip(), hashing, out.createWriteStream(), {
      signal,
    });
    sha256 = hash.digest('hex');
    await writeFile(checksumPartial, `${sha256}  ${name}\n`);
    await rename(checksumPartial, checksumFile);
    await rename(partial, file);
  } catch (error) {
    // A failed or stopped export (the database gone, a full disk, a shutdown) leaves no half file behind.
    await rm(partial, { force: true });
    await rm(checksumPartial, { force: true });
    throw error;
  }
  return { file, bytes: (await stat(file)).size, sha256 };
}

/** Whether the dump of `now`'s UTC day has been written. */
export async function hasDumpOf(dataDir: string, now: Date): Promise<boolean> {
  return access(path.join(dumpsDir(dataDir), dumpName(now))).then(
    () => true,
    () => false,
  );
}

/**
 * A `.partial` file untouched for this long is left over from a writer that died (killed while
 * writing, a machine that went down): a live writer touches its file with every gzip chunk.
 */
export const STALE_PARTIAL_MS = 15 * 60 * 1000;

/**
 * Deletes all but the newest `keep` dumps (and their checksums), and the `.partial` files of
 * writers that died; returns the names deleted.
 */
export async function pruneDumps(dataDir: string, keep: number, now = new Date()): Promise<string[]> {
  const dir = dumpsDir(dataDir);
  const old = (await listDumps(dataDir)).slice(keep);
  for (const dump of old) {
    // The dump first: a checksum without its dump is never listed.
    await rm(path.join(dir, dump.name), { force: true });
    await rm(path.join(dir, checksumName(dump.name)), { force: true });
  }
  const leftovers: string[] = [];
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (!name.endsWith('.partial')) continue;
    const modified = await stat(path.join(dir, name)).then((s) => s.mtimeMs, () => Number.POSITIVE_INFINITY);
    if (now.getTime() - modified < STALE_PARTIAL_MS) continue;
    await rm(path.join(dir, name), { force: true });
    leftovers.push(name);
  }
  return [...old.map((d) => d.name), ...leftovers];
}

export interface DumpFile {
  name: string;
  date: string;
  bytes: number;
  /** Hex SHA-256 of the file; null for a dump written before checksums were (none beside it). */
  sha256: string | null;
}

/** The dumps written so far, newest first. */
export async function listDumps(dataDir: string): Promise<DumpFile[]> {
  const dir = dumpsDir(dataDir);
  const names = await readdir(dir).catch(() => [] as string[]);
  const dumps = await Promise.all(
    names
      .map((name) => ({ name, match: DUMP_NAME.exec(name) }))
      .filter((d): d is { name: string; match: RegExpExecArray } => d.match !== null)
      .map(async ({ name, match }): Promise<DumpFile | null> => {
        // Pruned (or replaced) between the listing and here: not listed.
        const info = await stat(path.join(dir, name)).catch(() => null);
        if (!info) return null;
        const sum = await readFile(path.join(dir, checksumName(name)), 'utf8').catch(() => '');
        const sha256 = /^[0-9a-f]{64}\b/.exec(sum)?.[0] ?? null;
        return { name, date: match[1]!, bytes: info.size, sha256 };
      }),
  );
  return dumps.filter((d): d is DumpFile => d !== null).sort((a, b) => (a.date < b.date ? 1 : -1));
}
