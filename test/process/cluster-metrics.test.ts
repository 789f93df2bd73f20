// WEB_CONCURRENCY=2: whichever worker a scrape reaches, /metrics answers for the whole service,
// the requests of both workers and the upkeep that only the primary runs, merged once.
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/net.js';
import { scratchDataDir } from '../setup/app.js';
import { createTestDatabase, type TestDatabase } from '../setup/database.js';
import { startServerProcess, stopServerProcess, waitForReady, type ServerProcess } from '../setup/server-process.js';

const TOKEN = 'cluster-metrics-token-0123456789abcdef';

/** The sum of every series of `name` whose labels include all of `labels`. */
function total(text: string, name: string, labels: string[] = []): number {
  return text
    .split('\n')
    .filter((line) => (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) && labels.every((l) => line.includes(l)))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

describe('/metrics with two worker processes', () => {
  let db: TestDatabase;
  let server: ServerProcess;
  let origin: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    const port = await freePort();
    server = startServerProcess({
      DATABASE_URL: db.url,
      DATA_DIR: scratchDataDir(),
      PORT: String(port),
      WEB_CONCURRENCY: '2',
      METRICS_TOKEN: TOKEN,
      SEED_DEMO_DATA: 'false',
      LOG_LEVEL: 'warn',
      LIMIT_PUBLIC_PER_MINUTE: '100000',
    });
    await waitForReady(port, server);
    origin = `http://127.0.0.1:${port}`;
  }, 120_000);

  afterAll(async () => {
    if (server) await stopServerProcess(server);
    await db?.drop();
  });

  const scrape = async () => {
    const res = await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status, server.output()).toBe(200);
    return res.text();
  };

  it('counts the requests of both workers and the primary’s upkeep in every scrape, each series once', async () => {
    // The primary's first upkeep pass runs right after start.
    let text = '';
    for (const started = Date.now(); Date.now() - started < 60_000; await new Promise((r) => setTimeout(r, 250))) {
      text = await scrape();
      if (total(text, 'acd_upkeep_duration_seconds_count') >= 1) break;
    }
    expect(total(text, 'acd_upkeep_duration_seconds_count'), server.output()).toBeGreaterThanOrEqual(1);

    const before = total(text, 'http_request_duration_seconds_count', ['route="/api/v1/categories"']);
    // New connections each time, so the cluster's round robin spreads them over both workers.
    const answers = await Promise.all(
      Array.from({ length: 40 }, () => fetch(`${origin}/api/v1/categories`, { headers: { connection: 'close' } })),
    );
    for (const answer of answers) expect(answer.status).toBe(200);

    // Every scrape, whichever worker takes it, sees all 40.
    for (let i = 0; i < 6; i++) {
      const now = await scrape();
      expect(total(now, 'http_request_duration_seconds_count', ['route="/api/v1/categories"']) - before).toBe(40);
      // Merged, not concatenated: each metric is described once.
      const types = now.split('\n').filter((line) => line.startsWith('# TYPE '));
      expect(new Set(types).size).toBe(types.length);
      expect(total(now, 'acd_db_pool_max_connections')).toBeGreaterThan(0);
      expect(now).toContain('process_resident_memory_bytes');
    }
  }, 120_000);

  it('keeps a worker that does not answer in time in the sums, with the last counts it sent', async () => {
    const route = ['route="/api/v1/categories"'];
    const answers = await Promise.all(Array.from({ length: 40 }, () => fetch(`${origin}/api/v1/categories`, { headers: { connection: 'close' } })));
    for (const answer of answers) expect(answer.status).toBe(200);
    // Both workers answer this scrape: the primary now knows each one's counts.
    const counted = total(await scrape(), 'http_request_duration_seconds_count', route);
    const children = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(server.child.pid)], { encoding: 'utf8' });
    const workers = children.split('\n').filter((l) => l.includes('src/server.ts')).map((l) => Number(l.trim().split(' ')[0])).filter((pid) => pid > 0);
    expect(workers, children).toHaveLength(2);

    // One worker stops answering (as a worker busy for seconds, or dying, does).
    process.kill(workers[0]!, 'SIGSTOP');
    try {
      // A scrape that reaches the stopped worker waits for it; one that reaches the other is
      // answered once the primary has waited for the stopped one: take the first answer.
      const scrapes = Array.from({ length: 3 }, () => fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${TOKEN}`, connection: 'close' } }));
      const first = await Promise.any(scrapes.map(async (pending) => {
        const res = await pending;
        if (res.status !== 200) throw new Error(`status ${res.status}`);
        return res.text();
      }));
      // Never fewer than the scrape before counted: a drop would read as a counter reset.
      expect(total(first, 'http_request_duration_seconds_count', route)).toBe(counted);
    } finally {
      process.kill(workers[0]!, 'SIGCONT');
    }
  }, 120_000);
});
