// Nothing advertises a dump that does not exist: before the first one, /llms.txt, GET /api/v1
// and /data do not link /data/directory.ndjson.gz (which answers 404); once the upkeep has
// written the day's dump (as it does on the first pass after a start), they all do, it answers
// 200 with gzipped NDJSON, and /data lists it with its date, size and SHA-256.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { dumpsDir, pruneDumps, STALE_PARTIAL_MS } from '../../src/modules/open-data/export.js';
import { runUpkeep } from '../../src/upkeep.js';
import { aMerchant } from '../factories/index.js';
import { htmlProblems } from '../pages/html-validate.js';
import { createTestApp, TEST_BASE_URL, type TestApp } from '../setup/app.js';
import { binary } from '../setup/bodies.js';

const DUMP = `${TEST_BASE_URL}/data/directory.ndjson.gz`;


describe('the newest dump is linked only once it exists', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    for (let i = 0; i < 3; i++) await aMerchant(t.db.prisma);
  });
  afterAll(() => t.close());

  it('is not linked and answers 404 before the first dump; linked, served and listed after the upkeep', async () => {
    const llms = await request(t.app).get('/llms.txt').expect(200);
    expect(llms.text).not.toContain('/data/directory.ndjson.gz');
    expect(llms.text).toContain(`${TEST_BASE_URL}/data)`);
    const index = await request(t.app).get('/api/v1').expect(200);
    expect(index.body.data).toMatchObject({ dumps: `${TEST_BASE_URL}/data`, latestDump: null });
    const empty = await request(t.app).get('/data').expect(200);
    expect(empty.text).not.toContain('/data/directory.ndjson.gz');
    expect(empty.text).toContain('No dump has been written yet');
    await request(t.app).get('/data/directory.ndjson.gz').expect(404);

    // The upkeep's first pass after a start (the app's clock is its `now`).
    expect(await runUpkeep(t.db, t.clock.now(), createLogger('silent'), { dataDir: t.config.dataDir, baseUrl: TEST_BASE_URL })).toMatchObject({ ran: true });
    // Past the response cache's minute (its entries' longest life).
    t.clock.advance(61_000);

    expect((await request(t.app).get('/llms.txt').expect(200)).text).toContain(`[Newest dump](${DUMP})`);
    expect((await request(t.app).get('/api/v1').expect(200)).body.data.latestDump).toBe(DUMP);
    const latest = await binary(request(t.app).get('/data/directory.ndjson.gz')).expect(200);
    expect(latest.headers['content-type']).toBe('application/gzip');
    const lines = gunzipSync(latest.body as Buffer)
      .toString('utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string });
    expect(lines[0]).toMatchObject({ type: 'meta', schema: `${TEST_BASE_URL}/data` });
    expect(lines.filter((l) => l.type === 'merchant')).toHaveLength(3);

    const name = 'directory-2026-11-22.ndjson.gz';
    expect(latest.body).toEqual(readFileSync(path.join(dumpsDir(t.config.dataDir), name)));
    const sha256 = createHash('sha256').update(latest.body as Buffer).digest('hex');
    const page = await request(t.app).get('/data').expect(200);
    expect(await htmlProblems(page.text)).toEqual([]);
    expect(page.text).toContain('href="/data/directory.ndjson.gz"');
    expect(page.text).toContain(`<td>2026-11-22</td><td><a href="/data/${name}">${name}</a></td><td>${((latest.body as Buffer).length / 1024).toFixed(1)} KB</td><td><code>${sha256}</code></td>`);
  });
});

describe('dump pruning', () => {
  it('keeps the newest dumps and deletes the .partial files of writers that died, never a live one', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'acd-prune-'));
    try {
      const dir = dumpsDir(dataDir);
      mkdirSync(dir, { recursive: true });
      for (const day of ['20', '21', '22']) {
        writeFileSync(path.join(dir, `directory-2026-11-${day}.ndjson.gz`), 'x');
        writeFileSync(path.join(dir, `directory-2026-11-${day}.ndjson.gz.sha256`), `${'0'.repeat(64)}  directory-2026-11-${day}.ndjson.gz\n`);
      }
      const dead = 'directory-2026-11-23.ndjson.gz.4242.partial';
      const live = 'directory-2026-11-23.ndjson.gz.4343.partial';
      writeFileSync(path.join(dir, dead), 'half');
      writeFileSync(path.join(dir, live), 'half');
      const old = new Date(Date.now() - STALE_PARTIAL_MS - 60_000);
      utimesSync(path.join(dir, dead), old, old);

      expect(await pruneDumps(dataDir, 2)).toEqual(['directory-2026-11-20.ndjson.gz', dead]);
      expect(readdirSync(dir).sort()).toEqual([
        'directory-2026-11-21.ndjson.gz',
        'directory-2026-11-21.ndjson.gz.sha256',
        'directory-2026-11-22.ndjson.gz',
        'directory-2026-11-22.ndjson.gz.sha256',
        live,
      ]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
