// The bulk dump: every public record of the directory as gzipped NDJSON, one JSON object a
// line, each with its `type`: a `meta` line first (licence, disclaimer, when), then `category`,
// `agent`, `merchant` (without its summaries), `summary` (one per merchant and agent with
// approved reports) and `report` lines. The same views as the public API, so nothing private
// can appear. Streamed from keyset pages: memory stays flat whatever the directory's size.
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { PrismaClient } from '../../db/client.js';
import { agents, categories } from '../catalog/catalog.service.js';
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

export const dumpsDir = (dataDir: string) => path.join(dataDir, 'exports');
export const dumpName = (now: Date) => `directory-${now.toISOString().slice(0, 10)}.ndjson.gz`;

/** Every line of the dump, in order. */
export async function* dumpLines(ctx: DirectoryContext): AsyncGenerator<string> {
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

/** Writes today's dump into DATA_DIR/exports (atomically: a reader never sees half a file). */
export async function writeDump(deps: { prisma: PrismaClient; dataDir: string } & Links, now: Date): Promise<{ file: string; bytes: number }> {
  const dir = dumpsDir(deps.dataDir);
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, dumpName(now));
  const partial = `${file}.${process.pid}.partial`;
  try {
    await pipeline(Readable.from(dumpLines({ prisma: deps.prisma, baseUrl: deps.baseUrl, now })), createGzip(), createWriteStream(partial));
    await rename(partial, file);
  } catch (error) {
    // A failed export (the database gone, a full disk) leaves no half file behind.
    await rm(partial, { force: true });
    throw error;
  }
  return { file, bytes: (await stat(file)).size };
}

export interface DumpFile {
  name: string;
  date: string;
  bytes: number;
}

/** The dumps written so far, newest first. */
export async function listDumps(dataDir: string): Promise<DumpFile[]> {
  const names = await readdir(dumpsDir(dataDir)).catch(() => [] as string[]);
  const dumps = await Promise.all(
    names
      .map((name) => ({ name, match: DUMP_NAME.exec(name) }))
      .filter((d): d is { name: string; match: RegExpExecArray } => d.match !== null)
      .map(async ({ name, match }) => ({ name, date: match[1]!, bytes: (await stat(path.join(dumpsDir(dataDir), name))).size })),
  );
  return dumps.sort((a, b) => (a.date < b.date ? 1 : -1));
}
