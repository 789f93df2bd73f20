// Public read throughput and latency at two directory sizes, to show that list and detail
// reads cost the same with a demo-sized directory and with a large one.
//   npm run bench                       demo size, then 100,000 merchants / 1,000,000 reports
//   npm run bench -- --sizes 60:600     only the sizes given (merchants:reports, comma-separated)
//   npm run bench -- --duration 5       seconds per endpoint (default 10)
//   npm run bench -- --data-dir DIR     measure an existing DATA_DIR (e.g. one filled with
//                                       `npm run seed -- --merchants 100000 --reports 1000000`)
//   npm run bench -- --churn 20         also bump the directory version every 20 ms during the
//                                       run (as a stream of moderation decisions would), so list
//                                       totals are counted afresh instead of read from the cache
// Each size runs on its own throwaway embedded PostgreSQL; traffic stays on 127.0.0.1.
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { createApp } from '../src/app.js';
import type pg from 'pg';
import { createPool, createPrismaClient, ensureDatabaseExists, type PrismaClient } from '../src/db/client.js';
import { openDatabase } from '../src/db/database.js';
import { startEphemeralDatabase } from '../src/db/embedded.js';
import { applyMigrations } from '../src/db/migrations.js';
import { loadDemoData } from '../src/db/seed/load.js';
import { recomputeAllSummaries } from '../src/modules/aggregation/summaries.service.js';
import { loadConfig } from '../src/config/env.js';
import { createLogger } from '../src/logger.js';
import { systemClock } from '../src/clock.js';
import { issueKey } from '../src/modules/keys/keys.service.js';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '60:600,100000:1000000' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '10' },
    'data-dir': { type: 'string' },
    churn: { type: 'string' },
  },
});
const sizes = values.sizes.split(',').map((pair) => {
  const [merchants, reports] = pair.split(':').map(Number);
  if (!Number.isInteger(merchants) || !Number.isInteger(reports)) throw new Error(`bad size "${pair}"`);
  return { merchants: merchants!, reports: reports! };
});
const duration = Number(values.duration);
const connections = Number(values.connections);
const churnMs = values.churn === undefined ? null : Number(values.churn);

interface Row {
  size: string;
  endpoint: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function benchSize(merchants: number, reports: number): Promise<Row[]> {
  const server = await startEphemeralDatabase();
  const url = await ensureDatabaseExists(server.url, 'bench');
  const pool = createPool(url, 20);
  const prisma = createPrismaClient(pool);
  try {
    await applyMigrations(url);
    const now = new Date();
    let started = Date.now();
    await loadDemoData(pool, { now, merchants, reports }, (message) => process.stderr.write(`  ${message}\n`));
    const loadSeconds = (Date.now() - started) / 1000;
    started = Date.now();
    await recomputeAllSummaries(prisma, now);
    const summarySeconds = (Date.now() - started) / 1000;
    console.log(`\n${merchants} merchants, ${reports} reports: loaded in ${loadSeconds.toFixed(1)} s, summaries in ${summarySeconds.toFixed(1)} s`);
    return await measure(pool, prisma, `${merchants}/${reports}`);
  } finally {
    await prisma.$disconnect();
    await pool.end();
    await server.stop();
  }
}

async function benchDataDir(dataDir: string): Promise<Row[]> {
  const db = await openDatabase(loadConfig({ ...process.env, DATA_DIR: dataDir }), { seed: false });
  try {
    const { rows } = await db.pool.query<{ merchants: number; reports: number }>(
      'SELECT (SELECT count(*)::int FROM merchants) AS merchants, (SELECT count(*)::int FROM reports) AS reports',
    );
    return await measure(db.pool, db.prisma, `${rows[0]!.merchants}/${rows[0]!.reports}`);
  } finally {
    await db.close();
  }
}

async function measure(pool: pg.Pool, prisma: PrismaClient, size: string): Promise<Row[]> {
  {
    const now = new Date();
    await pool.query('ANALYZE');

    const { rows: [sample] } = await pool.query<{ slug: string; agent: string; category: string }>(
      `SELECT m.slug, (SELECT slug FROM agents WHERE active ORDER BY slug LIMIT 1) AS agent,
              (SELECT slug FROM categories ORDER BY slug LIMIT 1) AS category
         FROM merchants m WHERE m.is_public ORDER BY m.report_count DESC LIMIT 1`,
    );
    // An agent account that has already reported 90 % of the merchants: the queue's hard case.
    const { rows: [agent] } = await pool.query<{ id: string }>('SELECT id FROM agents WHERE active ORDER BY slug LIMIT 1');
    const account = await prisma.account.upsert({
      where: { email: 'bench-agent@bench.example' },
      create: { email: 'bench-agent@bench.example' },
      update: {},
    });
    const { key } = await issueKey(prisma, { accountId: account.id, agentId: agent!.id }, now);
    await pool.query(
      `INSERT INTO reports (id, account_id, merchant_id, agent_id, status, channel, outcome, privacy_confirmed, updated_at)
       SELECT gen_random_uuid(), $1, m.id, $2, 'PENDING', 'AGENT_KEY', 'WORKS', true, now()
         FROM merchants m WHERE abs(hashtext(m.id::text)) % 10 <> 0
       ON CONFLICT DO NOTHING`,
      [account.id, agent!.id],
    );
    await pool.query('ANALYZE');
    const config = loadConfig({
      LOG_LEVEL: 'silent',
      DATA_DIR: '/tmp/acd-bench-data',
      SESSION_SECRET: 'bench-secret-bench-secret-bench-secret',
      // The limiters stay in the request path, with room for the load.
      LIMIT_PUBLIC_PER_MINUTE: '100000000',
      LIMIT_PRIVATE_PER_MINUTE: '100000000',
      LIMIT_PRIVATE_ADDRESS_PER_MINUTE: '100000000',
    });
    const app = createApp({ config, logger: createLogger('silent'), prisma, pool, clock: systemClock });
    const http = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => http.once('listening', resolve));
    const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    const endpoints: Array<string | { path: string; headers: Record<string, string> }> = [
      '/api/v1/merchants',
      // The same page as most HTTP clients ask for it: compressed.
      { path: '/api/v1/merchants', headers: { 'accept-encoding': 'gzip' } },
      '/api/v1/merchants?sort=popular&page=40',
      `/api/v1/merchants?agent=${sample!.agent}&sort=rating`,
      `/api/v1/merchants?category=${sample!.category}&outcome=BLOCKED`,
      '/api/v1/merchants?q=lamp',
      `/api/v1/merchants/${sample!.slug}`,
      '/api/v1/reports',
      '/api/v1/categories',
      { path: '/api/v1/automation/queue', headers: { authorization: `Bearer ${key}` } },
      { path: '/api/v1/automation/queue?retestAfterDays=7&limit=50', headers: { authorization: `Bearer ${key}` } },
    ];
    const rows: Row[] = [];
    // A no-op write to a directory table still fires its statement trigger.
    const churn =
      churnMs === null
        ? null
        : setInterval(() => void pool.query('UPDATE categories SET updated_at = updated_at WHERE false'), churnMs);
    try {
      for (const target of endpoints) {
        const { path: endpoint, headers } = typeof target === 'string' ? { path: target, headers: {} } : target;
        const result = await autocannon({ url: base + endpoint, connections, duration, headers });
        const label = headers['accept-encoding'] ? `${endpoint} (${headers['accept-encoding']})` : endpoint;
        rows.push({
          size,
          endpoint: label,
          rps: Math.round(result.requests.average),
          p50: result.latency.p50,
          p99: result.latency.p99,
          errors: result.errors + result.non2xx,
        });
        console.log(`  ${label}: ${Math.round(result.requests.average)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms`);
      }
    } finally {
      if (churn) clearInterval(churn);
      await new Promise((resolve) => http.close(resolve));
    }
    return rows;
  }
}

const all: Row[] = [];
if (values['data-dir']) all.push(...(await benchDataDir(values['data-dir'])));
else for (const { merchants, reports } of sizes) all.push(...(await benchSize(merchants, reports)));
console.log(`\n${connections} connections, ${duration} s per endpoint${churnMs === null ? '' : `, directory version bumped every ${churnMs} ms`}`);
console.table(all);
