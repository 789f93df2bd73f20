// The bulk dump: it round-trips (its counts are the API's totals), /data lists and serves it,
// and its memory stays flat however large the directory (measured at two sizes, in a process
// of its own, as the peak live heap after full collections).
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import request from 'supertest';
import { binary } from '../setup/bodies.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemoData } from '../../src/demo/load.js';
import { recomputeAllSummaries } from '../../src/modules/aggregation/summaries.service.js';
import { dumpLines, dumpsDir, writeDump } from '../../src/modules/open-data/export.js';
import { aMerchant } from '../factories/index.js';
import { createTestApp, TEST_BASE_URL, type TestApp } from '../setup/app.js';
import { createDemoApp, DEMO_NOW } from '../setup/demo.js';
import { htmlProblems } from '../pages/html-validate.js';

const run = promisify(execFile);
const CHILD = path.resolve(import.meta.dirname, 'export-memory.child.ts');

type Line = { type: string } & Record<string, unknown>;
const linesOf = (gz: Buffer): Line[] =>
  gunzipSync(gz)
    .toString('utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Line);

describe('the bulk dump', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createDemoApp();
  }, 120_000);
  afterAll(() => t.close());

  it('stops when asked (a shutdown), leaving no file, not even a partial one', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'acd-dump-stop-'));
    const stop = new AbortController();
    const writing = writeDump({ prisma: t.db.prisma, dataDir, baseUrl: TEST_BASE_URL }, new Date(DEMO_NOW), stop.signal);
    // Stopped while it reads the directory (or before it began: the outcome is the same).
    setImmediate(() => stop.abort());
    await expect(writing).rejects.toMatchObject({ name: 'AbortError' });
    expect(readdirSync(dumpsDir(dataDir))).toEqual([]);
  });

  it('round-trips: one line per public record, the counts of the API, public fields only', async () => {
    const { file } = await writeDump({ prisma: t.db.prisma, dataDir: t.config.dataDir, baseUrl: TEST_BASE_URL }, new Date(DEMO_NOW));
    expect(path.basename(file)).toBe('directory-2026-11-22.ndjson.gz');
    const lines = linesOf(readFileSync(file));
    const count = (type: string) => lines.filter((l) => l.type === type).length;
    const total = async (url: string) => (await request(t.app).get(url).expect(200)).body.total as number;
    expect(lines[0]).toMatchObject({ type: 'meta', licence: { id: 'CC-BY-4.0' }, disclaimer: expect.stringContaining('Community-reported') });
    expect(count('merchant')).toBe(await total('/api/v1/merchants'));
    expect(count('agent')).toBe(await total('/api/v1/agents'));
    expect(count('category')).toBe(await total('/api/v1/categories'));
    expect(count('report')).toBe(await total('/api/v1/reports'));
    const pairs = await t.db.pool.query(
      `SELECT count(*)::int AS n FROM merchant_agent_summaries s JOIN merchants m ON m.id = s.merchant_id AND m.is_public
         JOIN agents a ON a.id = s.agent_id AND a.active WHERE s.report_count > 0`,
    );
    expect(count('summary')).toBe(pairs.rows[0].n);
    // A merchant line is the API's merchant without its agents; a report line is the API's report.
    const merchant = lines.find((l) => l.type === 'merchant')!;
    const { data: apiMerchant } = (await request(t.app).get(`/api/v1/merchants/${String(merchant.slug)}`).expect(200)).body;
    const { agents: _agents, ...withoutAgents } = apiMerchant;
    expect({ ...merchant, type: undefined }).toEqual({ ...withoutAgents, type: undefined });
    // A summary line is the API's per-agent summary: its reach (how far the agent gets) included, label = reach.label.
    const summaries = lines.filter((l) => l.type === 'summary') as Array<Line & { merchantId: string; agent: { id: string }; label: string; reach: { label: string; tone: string; level: number; stop: unknown } }>;
    for (const summary of summaries) {
      expect(summary.reach).toMatchObject({ label: summary.label, tone: expect.stringMatching(/^(green|amber|red|grey)$/), level: expect.any(Number) });
    }
    const sample = summaries.find((s) => s.reach.stop !== null) ?? summaries[0]!; // one with a stop, if any
    const { data: ofMerchant } = (await request(t.app).get(`/api/v1/merchants/${sample.merchantId}`).expect(200)).body;
    const fromApi = (ofMerchant.agents as Array<{ agent: { id: string }; label: string; reach: unknown }>).find((a) => a.agent.id === sample.agent.id)!;
    expect(sample.reach).toEqual(fromApi.reach);
    expect(sample.label).toBe(fromApi.label);
    const report = lines.find((l) => l.type === 'report')!;
    expect({ ...report, type: undefined }).toEqual({ ...(await request(t.app).get(`/api/v1/reports/${String(report.id)}`).expect(200)).body.data, type: undefined });
  });

  it('is read from one snapshot: what changes while it is written is in none of it, or all of it', async () => {
    const lines = dumpLines({ prisma: t.db.prisma, baseUrl: TEST_BASE_URL, now: new Date(DEMO_NOW) })[Symbol.asyncIterator]();
    const read: Line[] = [];
    // Up to the last agent line: the categories are written, no merchant is read yet.
    const agents = await t.db.prisma.agent.count({ where: { active: true } });
    while (read.filter((l) => l.type === 'agent').length < agents) {
      const next = await lines.next();
      if (next.done) throw new Error('the dump ended before its agents');
      read.push(JSON.parse(next.value) as Line);
    }
    // Meanwhile: a category renamed (its line is written), a merchant added (its line is not).
    const category = await t.db.prisma.category.findFirstOrThrow({ where: { merchants: { some: { isPublic: true } } }, orderBy: { slug: 'asc' } });
    await t.db.prisma.category.update({ where: { id: category.id }, data: { name: `${category.name} (renamed)` } });
    const added = await aMerchant(t.db.prisma, { name: 'Added While Dumping', categoryId: category.id });
    try {
      for (let next = await lines.next(); !next.done; next = await lines.next()) read.push(JSON.parse(next.value) as Line);
      expect(read.some((l) => l.type === 'merchant' && l.id === added.id)).toBe(false);
      const names = new Map(read.filter((l) => l.type === 'category').map((l) => [String(l.slug), String(l.name)]));
      expect(names.get(category.slug)).toBe(category.name);
      // Every merchant line names its category as the category lines do.
      for (const merchant of read.filter((l) => l.type === 'merchant')) {
        const info = merchant.categoryInfo as { slug: string; name: string } | null;
        if (info) expect(info.name, String(merchant.slug)).toBe(names.get(info.slug));
      }
    } finally {
      await lines.return?.(undefined);
      await t.db.prisma.merchant.delete({ where: { id: added.id } });
      await t.db.prisma.category.update({ where: { id: category.id }, data: { name: category.name } });
    }
  });

  it('is listed on /data with its schema and licence, and served as the newest dump', async () => {
    const page = await request(t.app).get('/data').expect(200);
    expect(await htmlProblems(page.text)).toEqual([]);
    expect(page.text).toContain('directory-2026-11-22.ndjson.gz');
    for (const type of ['meta', 'category', 'agent', 'merchant', 'summary', 'report']) expect(page.text).toContain(`<code>${type}</code>`);
    expect(page.text).toContain('CC BY 4.0');
    const latest = await binary(request(t.app).get('/data/directory.ndjson.gz')).expect(200);
    expect(latest.headers['content-type']).toBe('application/gzip');
    expect(latest.body).toEqual(readFileSync(path.join(t.config.dataDir, 'exports', 'directory-2026-11-22.ndjson.gz')));
    await request(t.app).get('/data/directory-2026-11-23.ndjson.gz').expect(404);
    await request(t.app).get('/data/..%2F..%2Fetc%2Fpasswd').expect(404);
  });
});

describe('the export streams', () => {
  const sizes = [
    { merchants: 100, reports: 2_000 },
    { merchants: 2_000, reports: 40_000 },
  ];
  const measured: Array<{ lines: number; peakHeapBytes: number }> = [];
  const apps: TestApp[] = [];
  afterAll(async () => {
    for (const t of apps) await t.close();
  });

  it('needs no more memory for 20 times the data', async () => {
    for (const size of sizes) {
      const t = await createTestApp({ now: DEMO_NOW });
      apps.push(t);
      await loadDemoData(t.db.pool, { now: new Date(DEMO_NOW), ...size });
      await recomputeAllSummaries(t.db.prisma, new Date(DEMO_NOW));
      const { stdout } = await run(process.execPath, ['--expose-gc', '--import', 'tsx', CHILD], {
        env: { ...process.env, DATABASE_URL: t.db.url, NOW: DEMO_NOW },
        maxBuffer: 1 << 20,
      });
      measured.push(JSON.parse(stdout.trim().split('\n').at(-1)!) as { lines: number; peakHeapBytes: number });
    }
    const [small, large] = measured as [(typeof measured)[0], (typeof measured)[0]];
    console.log(`export memory: ${small.lines} lines → peak heap ${(small.peakHeapBytes / 2 ** 20).toFixed(1)} MB; ${large.lines} lines → ${(large.peakHeapBytes / 2 ** 20).toFixed(1)} MB`);
    expect(large.lines).toBeGreaterThan(small.lines * 10);
    // Flat: the larger export's live heap is within a few megabytes of the smaller one's.
    expect(large.peakHeapBytes).toBeLessThan(small.peakHeapBytes + 8 * 2 ** 20);
  }, 300_000);
});
