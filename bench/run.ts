// Public read throughput and latency, measured as a client sees them: the service runs in its
// own process (or processes, WEB_CONCURRENCY), the baselines in as many of their own (under
// node:cluster when more than one), and this process only
// generates load (autocannon) and keeps the tables. Every ratio compares the service with a bare
// Express 5 route and a bare node:http server sending the very same bytes, measured in the same
// run, because machines here are shared and noisy: compare ratios, not absolute figures.
//
//   npm run bench                                  20,000 merchants / 400,000 reports, 1 and 2 processes
//   npm run bench -- --sizes 20000:400000,100000:2000000   several sizes (merchants:reports)
//   npm run bench -- --duration 5 --connections 10 --processes 1,2 --samples 200
//   npm run bench -- --data-root DIR              where generated directories are kept (default bench/.data)
//   npm run bench -- --reuse-data                 reuse a generated directory whatever its age (default: < 12 h)
//   npm run bench -- --only categories,mixed      only the rows whose names contain one of these
//                                                 ("churn" for the churn table, "mixed" for the mixed-URL row)
//   npm run bench -- --skip churn                 leave out the rows whose names contain one of these
//   npm run bench -- --churn-rates 0,1,5 --churn-duration 10   writes per second of the churn rows, and their length
//   npm run bench -- --repeat 2                   runs of each row, alternating service and baselines;
//                                                 the best run of each counts (noise only slows)
//   npm run bench -- --max-rate N                 highest req/s the service is expected to reach (limiter budget)
//   npm run bench -- --readme auto|on|off         write the figures into README.md (auto: unless --only/--skip)
//   npm run bench -- --uncached --sizes 100000:2000000 --processes 1
//                                                 only the uncached reads: every filter family (reaches,
//                                                 task+taskStatus with each status, minConfidence, outcome/stage/days)
//                                                 with each sort, pages 1, 2 and the last, deep pages of the
//                                                 unfiltered lists, and the report list's pages 1, 2, middle and
//                                                 last, each URL asked once, one at a time, after
//                                                 a warm-up on URLs it does not measure
//                                                 (--uncached-agents N: the first N active agents, default 2);
//                                                 written to bench/results-uncached.md and README.md's uncached block
//
// Honest by construction (the issue "the benchmark flatters the service"):
// - every request carries `accept-encoding: gzip`, and the baselines answer with the bytes the
//   service sent for that URL so asked (recorded here first: body, Content-Encoding, ETag,
//   Content-Type, Vary and its other static headers), Express with its ETag off and a
//   precomputed ETag and 304 decision, node:http likewise (bench/baseline-server.ts);
// - the service runs at the production log level (info: one pino line per request, written to
//   a file) with its public limiters counting and syncing to PostgreSQL, their budget raised only
//   as far as a whole minute of the run's traffic needs (all of it comes from 127.0.0.1);
// - a mixed-URL row cycles over 200 distinct URLs (20 compact list pages, 180 merchant
//   profiles), so the response cache's hit rate is part of the figure, and the churn rows run
//   the same mix while a writer changes the directory at a fixed rate;
// - results.md and README.md's figures are written from the same run.
//
// Rows: "200" repeats one URL (the response cache answers after the first request); "304" sends
// its ETag (a 304); "first after a change" bumps the directory version before each request, one
// request at a time, so nothing is cached (the merchant list, the detail, and an agent's reach
// filter with sort=reach, which is measured only so: cached, it costs what any cached list costs).
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { closeSync, createReadStream, existsSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import autocannon from 'autocannon';
import pg from 'pg';
import { freePort } from '../src/net.js';
import { CAPABILITY_STATUSES, CONFIDENCE_LEVELS, FUNNEL_TASKS, OUTCOMES, STAGES, TASKS } from '../src/modules/aggregation/constants.js';
import { MAX_PAGE } from '../src/modules/directory/notice.js';
import { UPKEEP_RUNNING_SQL } from '../src/upkeep.js';
import type { Fixture } from './baseline-server.js';
import { SERVICE_ARGS, V8_FLAGS } from './start-args.js';

// autocannon keeps every response body as a string (`req.body += chunk`, a UTF-8 decode of each
// chunk) for its body checks, which no row here uses. For gzip bodies, which are not text, that
// decode capped the load generator near 60 MB/s and so every row near the same req/s, service and
// baselines alike: it is switched off (the bytes are still counted).
const requireCjs = createRequire(import.meta.url);
(requireCjs('autocannon/lib/pipelinedRequestsQueue.js') as { prototype: { addBody(data: Buffer): void } }).prototype.addBody = () => undefined;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '20000:400000' },
    duration: { type: 'string', default: '5' },
    'churn-duration': { type: 'string', default: '10' },
    'churn-rates': { type: 'string', default: '0,1,5' },
    connections: { type: 'string', default: '10' },
    processes: { type: 'string', default: '1,2' },
    samples: { type: 'string', default: '200' },
    only: { type: 'string' },
    skip: { type: 'string' },
    repeat: { type: 'string', default: '2' },
    'max-rate': { type: 'string' },
    'reuse-data': { type: 'boolean', default: false },
    'data-root': { type: 'string', default: path.join(root, 'bench', '.data') },
    out: { type: 'string', default: path.join(root, 'bench', 'results.md') },
    readme: { type: 'string', default: 'auto' },
    uncached: { type: 'boolean', default: false },
    'uncached-agents': { type: 'string', default: '2' },
  },
});
const sizes = values.sizes.split(',').map((pair) => {
  const [merchants, reports] = pair.split(':').map(Number);
  if (!Number.isInteger(merchants) || !Number.isInteger(reports)) throw new Error(`bad size "${pair}"`);
  return { merchants: merchants!, reports: reports! };
});
const duration = Number(values.duration);
const churnDuration = Number(values['churn-duration']);
const churnRates = [...new Set(values['churn-rates'].split(',').map(Number))];
if (churnRates.some((r) => !Number.isFinite(r) || r < 0)) throw new Error(`bad --churn-rates "${values['churn-rates']}"`);
// The 0-writes run is what the others are compared with: always measured.
if (!churnRates.includes(0)) churnRates.unshift(0);
churnRates.sort((a, b) => a - b);
const connections = Number(values.connections);
const processCounts = values.processes.split(',').map(Number);
const samples = Number(values.samples);
const repeat = Number(values.repeat);
const only = values.only?.split(',').filter(Boolean);
const skip = values.skip?.split(',').filter(Boolean);
/** Whether a row of this name is measured (--only, --skip). */
const selected = (name: string) => (!only || only.some((o) => name.includes(o))) && !skip?.some((s) => name.includes(s));
if (!['auto', 'on', 'off'].includes(values.readme)) throw new Error('--readme is auto, on or off');
const writeReadme = values.readme === 'on' || (values.readme === 'auto' && !only && !skip);
/** A generated directory is reused while its summaries are younger than this (any age with --reuse-data). */
const DATA_MAX_AGE_MS = 12 * 60 * 60 * 1000;

// The public limiters (API and pages, one counter each per client address, in aligned one-minute
// windows) count every request and sync to PostgreSQL. All of the bench's traffic comes from
// 127.0.0.1, so one window may hold back-to-back runs of the service: the budget covers a whole
// minute at the highest rate the service is expected to reach, with a quarter more as margin,
// and no more. The highest count seen in a window is reported beside it; a 429 fails the run.
const MAX_RATE = values['max-rate'] ? Number(values['max-rate']) : connections * 1_500;
const WINDOW_SECONDS = 60;
const MARGIN = 1.25;
const PUBLIC_BUDGET = Math.ceil(MAX_RATE * WINDOW_SECONDS * MARGIN);
const LIMITS = { LIMIT_PUBLIC_PER_MINUTE: String(PUBLIC_BUDGET) };
const LOG_LEVEL = 'info';
const METRICS_TOKEN = randomBytes(24).toString('hex');
const GZIP = { 'accept-encoding': 'gzip' };
const command = `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;
const loadAtStart = os.loadavg();

/** The machine's CPU time so far (Linux /proc/stat, in ticks): all of it, and what the hypervisor took (steal). */
function cpuTicks(): { total: number; steal: number } | null {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    return { total: fields.reduce((a, b) => a + b, 0), steal: fields[7] ?? 0 };
  } catch {
    return null;
  }
}
const ticksAtStart = cpuTicks();
const startedAt = new Date();

const log = (message: string) => process.stderr.write(`${message}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function run(cmd: string, args: string[], env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${args.join(' ')} exited with ${code}`))));
  });
}

/** A generated directory of this size under data-root, reused while it is fresh (or always, --reuse-data). */
async function dataDirFor(merchants: number, reports: number): Promise<string> {
  const dir = path.join(values['data-root'], `${merchants}-${reports}`);
  const marker = path.join(dir, 'bench-seeded-at');
  if (existsSync(marker)) {
    const age = Date.now() - Number(readFileSync(marker, 'utf8'));
    if (values['reuse-data'] || age < DATA_MAX_AGE_MS) {
      log(`reusing ${dir} (generated ${(age / 3_600_000).toFixed(1)} h ago)`);
      return dir;
    }
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  log(`generating ${merchants} merchants / ${reports} reports in ${dir}`);
  const seededAt = Date.now();
  await run(process.execPath, ['--import', 'tsx', 'src/cli/seed.ts', '--merchants', String(merchants), '--reports', String(reports)], {
    DATA_DIR: dir,
    EMBEDDED_PG_PORT: String(await freePort()),
    SEED_DEMO_DATA: 'false',
    LOG_LEVEL: 'warn',
  });
  writeFileSync(marker, String(seededAt));
  return dir;
}

/** CPU seconds used so far by these processes (Linux /proc; 0 elsewhere). */
function cpuSeconds(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone, or no /proc
    }
  }
  return ticks / 100;
}

function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

function waitForExit(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  rawHeaders: string[];
  body: Buffer;
}

const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 1 });

/** One GET; `fresh` opens a new connection (a cluster hands new connections to its workers in turn). */
async function get(url: string, headers: Record<string, string> = {}, fresh = false): Promise<Answer> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers, agent: fresh ? false : keepAlive }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, rawHeaders: res.rawHeaders, body: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
}

/** Counts newlines in a file without holding it. */
function countLines(file: string): Promise<number> {
  return new Promise((resolve, reject) => {
    let lines = 0;
    createReadStream(file)
      .on('data', (chunk) => {
        const buffer = chunk as Buffer;
        for (let i = buffer.indexOf(10); i !== -1; i = buffer.indexOf(10, i + 1)) lines++;
      })
      .on('end', () => resolve(lines))
      .on('error', reject);
  });
}

/** Prometheus text: series (name and labels as written) to value. */
function parseMetrics(text: string): Map<string, number> {
  const series = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    series.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return series;
}

/** The sum of a metric's series whose labels include all of these. */
function sumOf(metrics: Map<string, number>, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const [series, value] of metrics) {
    if (series !== name && !series.startsWith(`${name}{`)) continue;
    if (Object.entries(labels).every(([k, v]) => series.includes(`${k}="${v}"`))) sum += value;
  }
  return sum;
}

interface CacheCounts {
  /** Served from the cache as current (X-Cache: HIT). */
  hit: number;
  /** Served from the cache while stale, within the cache's staleness bound (X-Cache: STALE). */
  stale: number;
  /** Every answer of a cacheable route (HIT, STALE, MISS, BYPASS, …). */
  all: number;
}

const cacheCounts = (m: Map<string, number>): CacheCounts => ({
  hit: sumOf(m, 'acd_response_cache_requests_total', { result: 'hit' }),
  stale: sumOf(m, 'acd_response_cache_requests_total', { result: 'stale' }),
  all: sumOf(m, 'acd_response_cache_requests_total'),
});

/** The share of answers served from the cache (current or stale) between two scrapes, and the misses. */
function cacheBetween(before: CacheCounts, after: CacheCounts): { hitRate: number; staleRate: number; misses: number } {
  const all = after.all - before.all;
  const hits = after.hit - before.hit;
  const stale = after.stale - before.stale;
  return { hitRate: all > 0 ? (hits + stale) / all : 0, staleRate: all > 0 ? stale / all : 0, misses: all - hits - stale };
}

interface Service {
  base: string;
  databaseUrl: string;
  /** The service's processes: the one started, and its cluster workers. */
  pids(): number[];
  metrics(): Promise<Map<string, number>>;
  /** The highest shared count of the public limiters (API, pages) seen in one window so far. */
  limiterPeak(): number;
  stop(): Promise<{ logLines: number; logBytes: number }>;
}

/**
 * Waits until the service's first upkeep pass is over (its advisory lock, looked at in pg_locks,
 * free for a whole second): a pass that recomputes a day's stale summaries or writes the day's
 * dump took a core for minutes and changed the directory under the first rows measured.
 */
async function upkeepOver(client: pg.Client): Promise<void> {
  const started = Date.now();
  let freeSince = Date.now();
  for (;;) {
    const { rows } = await client.query<{ held: boolean }>(UPKEEP_RUNNING_SQL);
    if (rows[0]?.held) freeSince = Date.now();
    else if (Date.now() - freeSince >= 1_000) break;
    if (Date.now() - started > 15 * 60_000) throw new Error('the service\'s first upkeep pass is not over after 15 minutes');
    await sleep(100);
  }
  const waited = Date.now() - started - 1_000;
  if (waited > 1_000) log(`  waited ${(waited / 1000).toFixed(1)} s for the service's first upkeep pass`);
}

async function startService(dataDir: string, processes: number): Promise<Service> {
  const port = await freePort();
  const pgPort = await freePort();
  // The request log goes to a file, as production's stdout goes to a journal or a collector.
  const logFile = path.join(os.tmpdir(), `acd-bench-service-${process.pid}-${processes}.log`);
  const logFd = openSync(logFile, 'w');
  const child = spawn(process.execPath, [...SERVICE_ARGS], {
    cwd: root,
    env: {
      ...process.env,
      ...LIMITS,
      DATA_DIR: dataDir,
      PORT: String(port),
      EMBEDDED_PG_PORT: String(pgPort),
      WEB_CONCURRENCY: String(processes),
      SEED_DEMO_DATA: 'false',
      LOG_LEVEL,
      METRICS_TOKEN,
      NODE_ENV: 'production',
    },
    stdio: ['ignore', logFd, 'inherit'],
  });
  closeSync(logFd);
  const base = `http://127.0.0.1:${port}`;
  try {
    for (let i = 0; ; i++) {
      if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
      const ready = await get(`${base}/readyz`).then((r) => r.status === 200, () => false);
      if (ready) break;
      if (i > 1200) throw new Error('the service did not become ready in 120 s');
      await sleep(100);
    }
  } catch (error) {
    child.kill('SIGTERM');
    await waitForExit(child);
    throw error;
  }
  const password = readFileSync(path.join(dataDir, 'postgres.password'), 'utf8').trim();
  const databaseUrl = `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${pgPort}/directory`;
  // Watches the limiters' shared counters (one row per limiter and address, per window).
  const watcher = new pg.Client({ connectionString: databaseUrl });
  await watcher.connect();
  await upkeepOver(watcher);
  let peak = 0;
  const poll = async () => {
    const { rows } = await watcher.query<{ hits: number }>(
      `SELECT coalesce(max(hits), 0)::int AS hits FROM rate_limit_counters
        WHERE reset_at > now() AND (key LIKE 'public:%' OR key LIKE 'pages:%')`,
    );
    peak = Math.max(peak, rows[0]?.hits ?? 0);
  };
  const poller = setInterval(() => void poll().catch(() => undefined), 2_000);
  return {
    base,
    databaseUrl,
    // The embedded PostgreSQL is a child too; cached reads leave it idle, and it is counted.
    pids: () => [child.pid!, ...childrenOf(child.pid!).flatMap((pid) => [pid, ...childrenOf(pid)])],
    async metrics() {
      const res = await get(`${base}/metrics`, { authorization: `Bearer ${METRICS_TOKEN}` });
      if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
      return parseMetrics(res.body.toString('utf8'));
    },
    limiterPeak: () => peak,
    async stop() {
      clearInterval(poller);
      await poll().catch(() => undefined);
      await watcher.end();
      child.kill('SIGTERM');
      await waitForExit(child);
      const logBytes = statSync(logFile).size;
      const logLines = await countLines(logFile);
      rmSync(logFile, { force: true });
      return { logLines, logBytes };
    },
  };
}

/** The baselines, with as many processes as the service has (a node:cluster primary and its workers when more than 1). */
async function startBaselines(fixtures: Fixture[], processes: number): Promise<{ express: string; http: string; pids(): number[]; stop(): Promise<void> }> {
  const file = path.join(os.tmpdir(), `acd-bench-fixtures-${process.pid}.json`);
  writeFileSync(file, JSON.stringify(fixtures));
  const child = spawn(process.execPath, [...V8_FLAGS, '--import', 'tsx', 'bench/baseline-server.ts', file, String(processes)], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('\n')) resolve(text.split('\n')[0]!);
    });
    child.once('exit', (code) => reject(new Error(`baseline server exited with ${code}`)));
  });
  const ports = JSON.parse(line) as { express: number; http: number };
  return {
    express: `http://127.0.0.1:${ports.express}`,
    http: `http://127.0.0.1:${ports.http}`,
    pids: () => [child.pid!, ...childrenOf(child.pid!)],
    async stop() {
      child.kill('SIGTERM');
      await waitForExit(child);
      rmSync(file, { force: true });
    },
  };
}

interface Load {
  rps: number;
  /** Latency percentiles in ms, of every answer (to 0.01 ms). */
  p50: number;
  p99: number;
  /** Bytes per answer as received, headers included. */
  bytesPerAnswer: number;
  /** Answers other than the expected status class, and errors. */
  unexpected: number;
  /** 429 answers (the limiter tripped). */
  limited: number;
  /** Cores busy on average in the measured processes, and in this load generator. */
  serverCores: number;
  generatorCores: number;
}

const HISTOGRAM_BUCKETS = 200_000; // 0.01 ms each, up to 2 s

function percentileOf(histogram: Uint32Array, total: number, p: number): number {
  const rank = Math.max(1, Math.ceil((p / 100) * total));
  let seen = 0;
  for (let i = 0; i < histogram.length; i++) {
    seen += histogram[i]!;
    if (seen >= rank) return (i + 1) / 100;
  }
  return histogram.length / 100;
}

/**
 * One autocannon run against `base`: one path, or several cycled in order across all
 * connections (each request takes the next, so concurrent requests ask for different URLs).
 */
async function load(opts: { base: string; paths: string[]; pids: number[]; headers?: Record<string, string>; expect?: 200 | 304; seconds?: number }): Promise<Load> {
  const { base, paths, pids, headers = {}, expect = 200, seconds = duration } = opts;
  const server = cpuSeconds(pids);
  const generator = process.cpuUsage();
  const started = performance.now();
  const histogram = new Uint32Array(HISTOGRAM_BUCKETS);
  let answers = 0;
  let bytes = 0;
  let next = 0;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: paths.length === 1 ? base + paths[0]! : base,
        connections,
        duration: seconds,
        headers: { ...GZIP, ...headers },
        ...(paths.length > 1
          ? { requests: [{ method: 'GET' as const, setupRequest: (req: autocannon.Request) => ({ ...req, path: paths[next++ % paths.length]! }) }] }
          : {}),
      },
      (error: unknown, res: autocannon.Result) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(res)),
    );
    instance.on('response', (_client, _status, resBytes, responseTime) => {
      histogram[Math.min(HISTOGRAM_BUCKETS - 1, Math.floor(responseTime * 100))]! += 1;
      answers += 1;
      bytes += resBytes;
    });
  });
  const elapsed = (performance.now() - started) / 1000;
  const used = process.cpuUsage(generator);
  const expected = expect === 304 ? (result['3xx'] ?? 0) : result['2xx'];
  return {
    rps: Math.round(result.requests.average),
    p50: percentileOf(histogram, answers, 50),
    p99: percentileOf(histogram, answers, 99),
    bytesPerAnswer: answers > 0 ? Math.round(bytes / answers) : 0,
    unexpected: result.requests.total - expected + result.errors + result.timeouts,
    limited: (result.statusCodeStats as Record<string, { count: number } | undefined>)['429']?.count ?? 0,
    serverCores: (cpuSeconds(pids) - server) / elapsed,
    generatorCores: (used.user + used.system) / 1e6 / elapsed,
  };
}

interface Target {
  name: string;
  path: string;
  /** Measured repeated and conditional (default true). */
  throughput?: boolean;
  /** Measured as the first read after a change, nothing cached. */
  first?: boolean;
}

const MIXED = 'mixed: 200 URLs (20 compact list pages, 180 merchant profiles)';
const CHURN = 'churn';

/** A fixed shuffle (the same order in every run). */
function shuffled<T>(items: T[], seed: number): T[] {
  const out = [...items];
  let state = seed;
  for (let i = out.length - 1; i > 0; i--) {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

async function targetsFor(databaseUrl: string): Promise<{ targets: Target[]; mixed: string[]; merchantIds: string[] }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows: [sample] } = await client.query<{ slug: string; agent: string }>(
      `SELECT m.slug, (SELECT a.slug FROM agents a WHERE a.active ORDER BY a.slug LIMIT 1) AS agent
         FROM merchants m WHERE m.is_public ORDER BY m.report_count DESC LIMIT 1`,
    );
    const all: Target[] = [
      { name: 'merchant list', path: '/api/v1/merchants', first: true },
      { name: 'merchant list, compact', path: '/api/v1/merchants?view=compact' },
      { name: 'agent + outcome filter', path: `/api/v1/merchants?agent=${sample!.agent}&outcome=BLOCKED` },
      { name: 'merchant detail', path: `/api/v1/merchants/${sample!.slug}`, first: true },
      // What the summaries say (issue 24): served from the stored reach columns and their index;
      // a cached answer costs what any cached list costs, so only its first read is measured.
      {
        name: 'agent + reaches=CHECKOUT, sort=reach',
        path: `/api/v1/merchants?agent=${sample!.agent}&reaches=CHECKOUT&sort=reach`,
        throughput: false,
        first: true,
      },
      { name: 'reports', path: '/api/v1/reports' },
      { name: 'categories', path: '/api/v1/categories' },
      { name: 'HTML directory page', path: '/' },
    ];
    // The mix of the mixed-URL and churn rows: 20 compact list pages and 180 merchant profiles
    // spread over the directory (a fixed pseudo-random choice), in a fixed shuffled order.
    const { rows: profiles } = await client.query<{ slug: string }>(
      'SELECT slug FROM merchants WHERE is_public ORDER BY md5(slug) LIMIT 180',
    );
    const mixed = shuffled(
      [
        ...Array.from({ length: 20 }, (_, i) => `/api/v1/merchants?view=compact&page=${i + 1}`),
        ...profiles.map((p) => `/api/v1/merchants/${p.slug}`),
      ],
      20_261_126,
    );
    const { rows: ids } = await client.query<{ id: string }>('SELECT id FROM merchants');
    return { targets: all.filter((t) => selected(t.name)), mixed, merchantIds: ids.map((r) => r.id) };
  } finally {
    await client.end();
  }
}

/** Headers that belong to one request (or are computed per answer); every other one is recorded. */
const PER_REQUEST = new Set([
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'x-request-id',
  'ratelimit',
  'ratelimit-policy',
  'x-cache',
  'set-cookie',
]);

const staticHeaders = (raw: string[]) => {
  const kept: string[] = [];
  for (let i = 0; i < raw.length; i += 2) if (!PER_REQUEST.has(raw[i]!.toLowerCase())) kept.push(raw[i]!.toLowerCase(), raw[i + 1]!);
  return kept;
};

interface Recording {
  fixture: Fixture;
  /** Body bytes as sent, and their Content-Encoding ("identity" when none). */
  sentBytes: number;
  encoding: string;
  identityBytes: number;
}

/**
 * What the service sends for `url` when asked with `accept-encoding: gzip`, once the answer is
 * cached (and its 304), checked: the ETag is the hash of the body, as the cache made it.
 */
async function record(service: Service, url: string, conditional: boolean): Promise<Recording> {
  await get(service.base + url, GZIP);
  const res = await get(service.base + url, GZIP);
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  const etag = String(res.headers.etag ?? '');
  if (!etag) throw new Error(`${url} sent no ETag`);
  const encoding = String(res.headers['content-encoding'] ?? 'identity');
  const identity = encoding === 'gzip' ? gunzipSync(res.body) : res.body;
  if (encoding !== 'gzip' && encoding !== 'identity') throw new Error(`${url} sent Content-Encoding ${encoding}`);
  // A small answer's ETag is the digest of its bytes; a large one's (64 KB and more, kept gzipped
  // only) the digest of its gzip copy, the very bytes sent here (web/middleware/cached-answer.ts sealEtag).
  const digest = (bytes: Buffer) => `W/"${createHash('sha1').update(bytes).digest('base64url')}"`;
  if (etag !== digest(identity) && !(encoding === 'gzip' && etag === digest(res.body))) throw new Error(`${url}: the ETag is not the body's hash`);
  const fixture: Fixture = { url, etag, headers: staticHeaders(res.rawHeaders), body: res.body.toString('base64') };
  if (conditional) {
    const notModified = await get(service.base + url, { ...GZIP, 'if-none-match': etag });
    if (notModified.status !== 304) throw new Error(`${url} with its ETag answered ${notModified.status}`);
    fixture.notModifiedHeaders = staticHeaders(notModified.rawHeaders);
  }
  return { fixture, sentBytes: res.body.length, encoding, identityBytes: identity.length };
}

type Side = 'service' | 'express' | 'http';
const SIDES: Side[] = ['service', 'express', 'http'];

interface FairRow {
  size: string;
  processes: number;
  name: string;
  /** The URL, or a description of the mix. */
  path: string;
  answer: 200 | 304;
  sentBytes: number;
  encoding: string;
  identityBytes: number;
  loads: Record<Side, Load>;
  /** Of the service's answers in the best run (the mixed row). */
  hitRate?: number;
}

interface ChurnRow {
  size: string;
  processes: number;
  rate: number;
  writes: number;
  versions: number;
  load: Load;
  /** Answers served from the cache, current or stale (staleRate of them stale). */
  hitRate: number;
  staleRate: number;
  misses: number;
}

interface FirstReadRow {
  size: string;
  processes: number;
  name: string;
  p50: number;
  p99: number;
  misses: number;
}

interface ServiceRun {
  size: string;
  processes: number;
  logLines: number;
  logBytes: number;
  limiterSyncs: number;
  limiterPeak: number;
  invalidation?: string;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** One request at a time, each after a new directory version: nothing can come from a cache. */
async function firstReads(service: Service, target: Target): Promise<{ p50: number; p99: number; misses: number }> {
  const client = new pg.Client({ connectionString: service.databaseUrl });
  await client.connect();
  const times: number[] = [];
  let misses = 0;
  try {
    for (let i = 0; i < samples; i++) {
      // A no-op write to a directory table still bumps the version (statement trigger).
      await client.query('UPDATE categories SET updated_at = updated_at WHERE false');
      // Let the notification reach every process, as it does within a millisecond or two.
      await sleep(20);
      const started = performance.now();
      const res = await get(service.base + target.path, GZIP);
      times.push(performance.now() - started);
      if (res.status !== 200) throw new Error(`${target.path} answered ${res.status}`);
      if (res.headers['x-cache'] === 'MISS') misses += 1;
    }
  } finally {
    await client.end();
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99), misses };
}

// The issue's writer ran `UPDATE merchants SET name = name WHERE id = <random>`. Since migration
// "directory_change_scope" a statement that writes equal values drops no cached answer (since
// "directory_version_once_per_change" it moves no version either), so that statement no longer exercises the
// invalidation path. The writer changes a public value instead: it toggles a trailing space on
// the merchant's name (its profile and every list showing it change), and the bench takes the
// spaces off again when the churn rows are done.
const CHURN_WRITE = "UPDATE merchants SET name = CASE WHEN name LIKE '% ' THEN rtrim(name) ELSE name || ' ' END WHERE id = $1";
const CHURN_WRITE_SHOWN = "UPDATE merchants SET name = <name with a trailing space toggled> WHERE id = <random merchant>";
const CHURN_UNDO = "UPDATE merchants SET name = rtrim(name) WHERE name LIKE '% '";
const readVersion = async (client: pg.Client) =>
  Number((await client.query<{ version: string }>('SELECT version FROM directory_version WHERE id = 1')).rows[0]!.version);

/**
 * Checks that the churn writer's statement takes the invalidation path: the triggers on merchants
 * bump directory_version and notify, the written merchant's cached profile is built again, and
 * (told, not required) what a list page then answers. Also says what the issue's statement,
 * `SET name = name`, does to the same profile.
 */
async function checkInvalidation(service: Service, client: pg.Client, profile: string, list: string): Promise<string> {
  const slug = profile.slice(profile.lastIndexOf('/') + 1);
  const id = (await client.query<{ id: string }>('SELECT id FROM merchants WHERE slug = $1', [slug])).rows[0]!.id;
  const warm = async () => {
    await get(service.base + profile, GZIP);
    await get(service.base + list, GZIP);
    return String((await get(service.base + profile, GZIP)).headers['x-cache']);
  };
  const probe = async (statement: string) => {
    const warmed = await warm();
    const before = await readVersion(client);
    await client.query(statement, [id]);
    const after = await readVersion(client);
    await sleep(100);
    const profileCache = String((await get(service.base + profile, GZIP)).headers['x-cache']);
    const listCache = String((await get(service.base + list, GZIP)).headers['x-cache']);
    return { warmed, before, after, profileCache, listCache };
  };
  const noop = await probe('UPDATE merchants SET name = name WHERE id = $1');
  const real = await probe(CHURN_WRITE);
  await client.query(CHURN_UNDO);
  const text =
    `\`UPDATE merchants SET name = name WHERE id = <id>\` moved directory_version ${noop.before} → ${noop.after}, and the merchant's profile then ` +
    `answered X-Cache: ${noop.profileCache}, a list page ${noop.listCache}; the churn write moved it ${real.before} → ${real.after}, and the profile ` +
    `then answered X-Cache: ${real.profileCache} (before the write: ${real.warmed}), a list page ${real.listCache}`;
  if (real.after <= real.before || real.profileCache !== 'MISS') throw new Error(`the churn write does not invalidate: ${text}`);
  return text;
}

/** Runs CHURN_WRITE for a random merchant `rate` times a second, on a fixed schedule, until stopped. */
function startWriter(client: pg.Client, ids: string[], rate: number): { stop(): Promise<number> } {
  if (rate <= 0) return { stop: async () => 0 };
  let writes = 0;
  let stopped = false;
  let pending: Promise<unknown> = Promise.resolve();
  const interval = 1000 / rate;
  const started = performance.now();
  let k = 0;
  let timer: NodeJS.Timeout;
  const tick = () => {
    if (stopped) return;
    const id = ids[Math.floor(Math.random() * ids.length)]!;
    pending = client.query(CHURN_WRITE, [id]).then(() => (writes += 1));
    k += 1;
    // Writes at (k + 1/2) intervals from the start, whatever each one took.
    timer = setTimeout(tick, Math.max(0, started + (k + 0.5) * interval - performance.now()));
  };
  timer = setTimeout(tick, interval / 2);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await pending;
      return writes;
    },
  };
}

interface UncachedRow {
  size: string;
  processes: number;
  family: string;
  requests: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  /** The slowest URL of the family, and its time. */
  worst: string;
  /** Answers other than 200, or served from the cache (none expected). */
  unexpected: number;
}

const MERCHANT_SORTS = ['recent', 'popular', 'name', 'rating', 'reach'] as const;
const PLAIN_SORTS = ['recent', 'popular', 'name'] as const;

/**
 * The uncached reads (issue 38): every URL asked once, one request at a time, on a service
 * started fresh, so each answer is built (a count already made for the same filter is reused
 * from the count cache, as in production). Per filter family: pages 1, 2 and the last one.
 */
async function uncachedReads(service: Service, size: string, processes: number): Promise<UncachedRow[]> {
  const client = new pg.Client({ connectionString: service.databaseUrl });
  await client.connect();
  let agents: string[];
  try {
    const { rows } = await client.query<{ slug: string }>('SELECT slug FROM agents WHERE active ORDER BY slug LIMIT $1', [Number(values['uncached-agents']) + 1]);
    agents = rows.map((r) => r.slug);
  } finally {
    await client.end();
  }
  // The agent after the measured ones (when there is one) is the warm-up's.
  const warmAgent = agents.length > Number(values['uncached-agents']) ? agents.pop() : undefined;
  const families = new Map<string, string[]>();
  const add = (family: string, query: string) => {
    if (!selected(family)) return;
    const list = families.get(family) ?? [];
    list.push(query);
    families.set(family, list);
  };
  for (const agent of agents) {
    const base = `/api/v1/agents/${agent}/merchants?`;
    for (const sort of MERCHANT_SORTS) {
      for (const reaches of FUNNEL_TASKS) add('reaches', `${base}reaches=${reaches}&sort=${sort}`);
      for (const task of TASKS) for (const status of CAPABILITY_STATUSES) add(`task+taskStatus=${status}`, `${base}task=${task}&taskStatus=${status}&sort=${sort}`);
      for (const level of CONFIDENCE_LEVELS) add('minConfidence', `${base}minConfidence=${level}&sort=${sort}`);
      for (const outcome of OUTCOMES) add('outcome/stage/days, agent', `${base}outcome=${outcome}&sort=${sort}`);
      for (const stage of STAGES) add('outcome/stage/days, agent', `${base}stage=${stage}&sort=${sort}`);
      for (const days of [7, 30, 365]) add('outcome/stage/days, agent', `${base}days=${days}&sort=${sort}`);
      add('outcome/stage/days, agent', `${base}outcome=BLOCKED&stage=CHECKOUT&days=30&sort=${sort}`);
      add('no filter, agent', `${base}sort=${sort}`);
    }
  }
  for (const sort of PLAIN_SORTS) {
    for (const outcome of OUTCOMES) add('outcome/stage/days, no agent', `/api/v1/merchants?outcome=${outcome}&sort=${sort}`);
    for (const stage of STAGES) add('outcome/stage/days, no agent', `/api/v1/merchants?stage=${stage}&sort=${sort}`);
    for (const days of [7, 30, 365]) add('outcome/stage/days, no agent', `/api/v1/merchants?days=${days}&sort=${sort}`);
    add('outcome/stage/days, no agent', `/api/v1/merchants?outcome=BLOCKED&stage=CHECKOUT&days=30&sort=${sort}`);
    add('no filter, no agent', `/api/v1/merchants?sort=${sort}`);
    add('no filter, no agent', `/api/v1/merchants?view=compact&sort=${sort}`);
  }
  // The public report list (newest first): the whole list, each agent's, each outcome's, both.
  for (const agent of [undefined, ...agents]) {
    for (const outcome of [undefined, ...OUTCOMES]) {
      const filter = [agent ? `agent=${agent}` : '', outcome ? `outcome=${outcome}` : ''].filter(Boolean).join('&');
      add('report list', `/api/v1/reports?${filter || 'independent=only'}`);
    }
  }
  // A warm-up first, on URLs that are not measured: every family's first query of each sort for
  // another agent, and the whole directory's with minReports=1. A service that has just started
  // still compiles its code; without it, the first family measured paid for that.
  const warmUp = [...families.values()].flatMap((queries) =>
    queries.filter((q, i) => i < 8 && (warmAgent !== undefined || !q.startsWith('/api/v1/agents/'))).map((q) =>
      q.startsWith('/api/v1/agents/')
        ? q.replace(/^\/api\/v1\/agents\/[^/]+\//, `/api/v1/agents/${warmAgent}/`)
        : q.startsWith('/api/v1/reports?')
          ? q.includes('independent=only') ? q.replace('independent=only', 'independent=all') : `${q}&independent=all`
          : `${q}&minReports=1`,
    ),
  );
  for (const url of warmUp) for (const page of [1, 2]) await get(`${service.base}${url}&page=${page}`, GZIP);
  log(`  uncached: warmed up with ${warmUp.length * 2} requests on URLs not measured`);
  const rows: UncachedRow[] = [];
  for (const [family, queries] of families) {
    const times: Array<{ ms: number; url: string }> = [];
    let unexpected = 0;
    const ask = async (url: string) => {
      const started = performance.now();
      const res = await get(service.base + url, GZIP);
      times.push({ ms: performance.now() - started, url });
      if (res.status !== 200 || res.headers['x-cache'] !== 'MISS') unexpected += 1;
      return res;
    };
    for (const query of queries) {
      const first = await ask(query);
      const identity = first.headers['content-encoding'] === 'gzip' ? gunzipSync(first.body) : first.body;
      const { total, pageSize } = JSON.parse(identity.toString('utf8')) as { total: number; pageSize: number };
      const last = Math.max(1, Math.ceil(total / pageSize));
      // Deep pages of the unfiltered lists: every tenth of the way, and the last.
      // The report list: page 2, the middle (the longest walk) and the last page allowed (MAX_PAGE).
      const reportPages = (deepest: number) => [2, Math.ceil(deepest / 2), deepest];
      const pages = family.startsWith('no filter')
        ? [...new Set([2, ...Array.from({ length: 10 }, (_, i) => Math.max(2, Math.round(((i + 1) * last) / 10)))])].filter((p) => p <= last)
        : family === 'report list'
          ? [...new Set(reportPages(Math.min(last, MAX_PAGE)))].filter((p) => p > 1)
          : [...new Set([2, last])].filter((p) => p > 1 && p <= last);
      for (const page of pages) await ask(`${query}&page=${page}`);
    }
    const sorted = [...times].sort((a, b) => a.ms - b.ms);
    const ms = sorted.map((t) => t.ms);
    rows.push({
      size,
      processes,
      family,
      requests: ms.length,
      p50: percentile(ms, 50),
      p90: percentile(ms, 90),
      p99: percentile(ms, 99),
      max: ms[ms.length - 1]!,
      worst: sorted[sorted.length - 1]!.url,
      unexpected,
    });
    log(`  uncached ${family}: ${ms.length} requests, p50 ${percentile(ms, 50).toFixed(1)} ms, p99 ${percentile(ms, 99).toFixed(1)} ms, max ${ms[ms.length - 1]!.toFixed(1)} ms (${sorted[sorted.length - 1]!.url})`);
  }
  return rows;
}

function uncachedTable(rows: UncachedRow[]): string[] {
  return [
    '| Processes | Filter family (each with each sort) | requests | p50 ms | p90 ms | p99 ms | max ms | slowest | not a fresh 200 |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.processes} | ${r.family} | ${thousands(r.requests)} | ${r.p50.toFixed(1)} | ${r.p90.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.max.toFixed(1)} | \`${r.worst.replace(/agents\/[^/]+\//, 'agents/…/')}\` | ${r.unexpected} |`,
    ),
  ];
}

const best = (runs: Load[]) => runs.reduce((a, b) => (b.rps > a.rps ? b : a));

async function measureSize(
  merchants: number,
  reports: number,
): Promise<{ fair: FairRow[]; churn: ChurnRow[]; first: FirstReadRow[]; services: ServiceRun[] }> {
  const size = `${merchants.toLocaleString('en-US')} / ${reports.toLocaleString('en-US')}`;
  const dataDir = await dataDirFor(merchants, reports);
  const fair: FairRow[] = [];
  const churn: ChurnRow[] = [];
  const first: FirstReadRow[] = [];
  const services: ServiceRun[] = [];
  for (const processes of processCounts) {
    log(`\n${size}: starting the service with ${processes} process(es)`);
    const service = await startService(dataDir, processes);
    let baselines: Awaited<ReturnType<typeof startBaselines>> | undefined;
    const serviceRun: ServiceRun = { size, processes, logLines: 0, logBytes: 0, limiterSyncs: 0, limiterPeak: 0 };
    try {
      const { targets, mixed, merchantIds } = await targetsFor(service.databaseUrl);
      const throughputTargets = targets.filter((t) => t.throughput !== false);
      const recordings = new Map<string, Recording>();
      for (const target of throughputTargets) recordings.set(target.path, await record(service, target.path, true));
      const wantMixed = selected(MIXED);
      const wantChurn = selected(CHURN);
      if (wantMixed || wantChurn) {
        for (const url of mixed) if (!recordings.has(url)) recordings.set(url, await record(service, url, false));
      }
      baselines = await startBaselines(
        [...recordings.values()].map((r) => r.fixture),
        processes,
      );
      const base: Record<Side, string> = { service: service.base, express: baselines.express, http: baselines.http };
      const pidsOf = (side: Side) => (side === 'service' ? service.pids() : baselines!.pids());
      // Every row: the service and both baselines, alternating, in reverse order every other repeat.
      const measure = async (paths: string[], answer: 200 | 304, etag?: string, onService?: (run: () => Promise<Load>) => Promise<Load>) => {
        const runs: Record<Side, Load[]> = { service: [], express: [], http: [] };
        for (let i = 0; i < repeat; i++) {
          for (const side of i % 2 === 0 ? SIDES : [...SIDES].reverse()) {
            const once = () =>
              load({ base: base[side], paths, pids: pidsOf(side), headers: etag ? { 'if-none-match': etag } : {}, expect: answer });
            runs[side].push(side === 'service' && onService ? await onService(once) : await once());
          }
        }
        return { service: best(runs.service), express: best(runs.express), http: best(runs.http) };
      };
      const describe = (row: FairRow) =>
        `  ${row.name} ${row.answer}: service ${row.loads.service.rps} req/s (p99 ${row.loads.service.p99} ms), ` +
        `Express ${row.loads.express.rps} (${pct(row.loads.service.rps, row.loads.express.rps)}), ` +
        `node:http ${row.loads.http.rps} (${pct(row.loads.service.rps, row.loads.http.rps)})` +
        (row.hitRate !== undefined ? `, cache hit rate ${(100 * row.hitRate).toFixed(1)} %` : '');
      for (const target of throughputTargets) {
        const rec = recordings.get(target.path)!;
        for (const answer of [200, 304] as const) {
          const loads = await measure([target.path], answer, answer === 304 ? rec.fixture.etag : undefined);
          const row: FairRow = { size, processes, name: target.name, path: target.path, answer, sentBytes: rec.sentBytes, encoding: rec.encoding, identityBytes: rec.identityBytes, loads };
          fair.push(row);
          log(describe(row));
        }
      }
      if (wantMixed) {
        // The hit rate of the service's runs, from its own metrics (X-Cache of every answer).
        const hitRates = new Map<Load, number>();
        const loads = await measure(mixed, 200, undefined, async (once) => {
          const before = cacheCounts(await service.metrics());
          const result = await once();
          hitRates.set(result, cacheBetween(before, cacheCounts(await service.metrics())).hitRate);
          return result;
        });
        const recs = mixed.map((u) => recordings.get(u)!);
        const row: FairRow = {
          size,
          processes,
          name: MIXED,
          path: 'mixed',
          answer: 200,
          sentBytes: Math.round(recs.reduce((s, r) => s + r.sentBytes, 0) / recs.length),
          encoding: 'gzip',
          identityBytes: Math.round(recs.reduce((s, r) => s + r.identityBytes, 0) / recs.length),
          loads,
          hitRate: hitRates.get(loads.service),
        };
        fair.push(row);
        log(describe(row));
      }
      if (wantChurn) {
        const writer = new pg.Client({ connectionString: service.databaseUrl });
        await writer.connect();
        try {
          serviceRun.invalidation = await checkInvalidation(
            service,
            writer,
            mixed.find((u) => !u.includes('?'))!,
            mixed.find((u) => u.includes('?'))!,
          );
          log(`  checked: ${serviceRun.invalidation}`);
          const runs = new Map<number, ChurnRow[]>(churnRates.map((r) => [r, []]));
          for (let i = 0; i < repeat; i++) {
            for (const rate of i % 2 === 0 ? churnRates : [...churnRates].reverse()) {
              // Every run starts with every URL cached in every process.
              for (let pass = 0; pass < 2 * processes; pass++) for (const url of mixed) await get(service.base + url, GZIP, true);
              const before = cacheCounts(await service.metrics());
              const versionBefore = await readVersion(writer);
              const writes = startWriter(writer, merchantIds, rate);
              const result = await load({ base: service.base, paths: mixed, pids: service.pids(), seconds: churnDuration });
              const written = await writes.stop();
              const versionAfter = await readVersion(writer);
              const cache = cacheBetween(before, cacheCounts(await service.metrics()));
              runs.get(rate)!.push({ size, processes, rate, writes: written, versions: versionAfter - versionBefore, load: result, ...cache });
            }
          }
          for (const rate of churnRates) {
            const row = runs.get(rate)!.reduce((a, b) => (b.load.rps > a.load.rps ? b : a));
            churn.push(row);
            log(
              `  churn, ${rate} writes/s: ${row.load.rps} req/s, p50 ${row.load.p50} ms, p99 ${row.load.p99} ms, ` +
                `${row.writes} writes, ${row.versions} versions, from cache ${(100 * row.hitRate).toFixed(1)} % (stale ${(100 * row.staleRate).toFixed(1)} %)`,
            );
          }
        } finally {
          // The dataset is reused: the names get their trailing spaces back off.
          await writer.query(CHURN_UNDO).catch(() => undefined);
          await writer.end();
        }
      }
      for (const target of targets.filter((t) => t.first)) {
        const result = await firstReads(service, target);
        first.push({ size, processes, name: target.name, ...result });
        log(`  first read after a change, ${target.name}: p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms (${result.misses}/${samples} misses)`);
      }
      const metrics = await service.metrics();
      serviceRun.limiterSyncs = sumOf(metrics, 'acd_limiter_syncs_total', { limiter: 'public', outcome: 'ok' }) + sumOf(metrics, 'acd_limiter_syncs_total', { limiter: 'pages', outcome: 'ok' });
    } finally {
      await baselines?.stop();
      const stopped = await service.stop();
      serviceRun.logLines = stopped.logLines;
      serviceRun.logBytes = stopped.logBytes;
      serviceRun.limiterPeak = service.limiterPeak();
      services.push(serviceRun);
    }
  }
  return { fair, churn, first, services };
}

const pct = (a: number, b: number) => (b > 0 ? `${Math.round((100 * a) / b)} %` : '–');
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const ms = (value: number) => value.toFixed(2);
const thousands = (n: number) => n.toLocaleString('en-US');

function bodyCell(r: FairRow): string {
  if (r.answer === 304) return '304, no body';
  const sent = r.encoding === 'identity' ? `${kb(r.sentBytes)} identity` : `${kb(r.sentBytes)} ${r.encoding} (of ${kb(r.identityBytes)})`;
  return r.path === 'mixed' ? `mean ${sent}` : sent;
}

function readName(r: FairRow): string {
  return r.path === 'mixed' ? r.name : `${r.name} (\`${r.path.replace(/agent=[^&]+/, 'agent=…')}\`)`;
}

/** The fair table: every row the service, Express and node:http, with the same bytes. */
function fairTable(rows: FairRow[]): string[] {
  return [
    '| Processes | Read | Answer (as sent) | service req/s | p50 / p99 ms | Express req/s | p50 / p99 ms | node:http req/s | p50 / p99 ms | service / Express | service / node:http |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map((r) => {
      const { service: s, express: e, http: h } = r.loads;
      const flag = (a: number, b: number) => `${pct(a, b)}${b > 0 && a > b ? ' ¹' : ''}`;
      const hit = r.hitRate !== undefined ? ` (cache hit rate ${(100 * r.hitRate).toFixed(1)} %)` : '';
      return (
        `| ${r.processes} | ${readName(r)}${hit} | ${bodyCell(r)} | ${thousands(s.rps)} | ${ms(s.p50)} / ${ms(s.p99)} | ${thousands(e.rps)} | ` +
        `${ms(e.p50)} / ${ms(e.p99)} | ${thousands(h.rps)} | ${ms(h.p50)} / ${ms(h.p99)} | ${flag(s.rps, e.rps)} | ${flag(s.rps, h.rps)} |`
      );
    }),
  ];
}

function churnTable(rows: ChurnRow[]): string[] {
  const lines = [
    '| Processes | writes/s | writes made | directory versions | req/s | vs 0 writes | p50 ms | vs 0 writes | p99 ms | vs 0 writes | served from cache (of it stale) | cache misses |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const zero = rows.find((o) => o.size === r.size && o.processes === r.processes && o.rate === 0);
    const vs = (a: number, b: number | undefined) => (b && b > 0 ? `${Math.round((100 * a) / b)} %` : '–');
    lines.push(
      `| ${r.processes} | ${r.rate} | ${r.writes} | ${r.versions} | ${thousands(r.load.rps)} | ${vs(r.load.rps, zero?.load.rps)} | ${ms(r.load.p50)} | ` +
        `${vs(r.load.p50, zero?.load.p50)} | ${ms(r.load.p99)} | ${vs(r.load.p99, zero?.load.p99)} | ${(100 * r.hitRate).toFixed(2)} % (${(100 * r.staleRate).toFixed(2)} %) | ${thousands(r.misses)} |`,
    );
  }
  return lines;
}

function firstTable(rows: FirstReadRow[]): string[] {
  return [
    '| Processes | Read | p50 ms | p99 ms | cache misses |',
    '|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.processes} | ${r.name} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.misses}/${samples} |`),
  ];
}

/** The share of the run's CPU time the hypervisor gave to others (a virtual machine's steal), when known. */
function stealLine(): string {
  const end = cpuTicks();
  if (!ticksAtStart || !end || end.total === ticksAtStart.total) return '';
  return `; CPU time stolen by the hypervisor during the run ${((100 * (end.steal - ticksAtStart.steal)) / (end.total - ticksAtStart.total)).toFixed(1)} %`;
}

function machineLine(): string {
  const cpu = os.cpus()[0]?.model.trim() ?? 'unknown CPU';
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' / ');
  return (
    `${os.cpus().length} cores (${cpu}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${os.type()} ${os.release()}; ` +
    `load average (1 / 5 / 15 min) ${load(loadAtStart)} at the start, ${load(os.loadavg())} at the end${stealLine()} (the machine is shared: other work may have run)`
  );
}

function methodLines(services: ServiceRun[]): string[] {
  const lines = [
    `autocannon with ${connections} connections, ${duration} s per run (churn rows ${churnDuration} s), \`accept-encoding: gzip\` on every request, ` +
      `the best of ${repeat} runs per row (service, Express, node:http alternating, in reverse order every other repeat), from the bench process over loopback. ` +
      'Latencies are of every answer, to 0.01 ms. autocannon\'s capture of each body as a string (a UTF-8 decode per chunk, for body checks no row uses) is ' +
      'switched off: on gzip bodies it capped the load generator near 60 MB/s, and so every side near the same req/s.',
    '',
    `The service: NODE_ENV=production, LOG_LEVEL=${LOG_LEVEL} (one pino line per request, to a file), its public limiters (API and pages) ` +
      `counting every request and syncing to PostgreSQL, LIMIT_PUBLIC_PER_MINUTE=${thousands(PUBLIC_BUDGET)}: all bench traffic comes from 127.0.0.1, ` +
      `so one aligned minute window may hold back-to-back runs; the budget is ${thousands(MAX_RATE)} req/s (the highest rate expected) × ${WINDOW_SECONDS} s × ${MARGIN}. ` +
      'Other limits are at their defaults (no private traffic).',
    '',
    '| Service run | request log lines | log size | public limiter syncs to PostgreSQL | highest shared count in one window (of the budget) |',
    '|---|---|---|---|---|',
    ...services.map(
      (s) =>
        `| ${s.size}, ${s.processes} process${s.processes > 1 ? 'es' : ''} | ${thousands(s.logLines)} | ${(s.logBytes / 2 ** 20).toFixed(0)} MiB | ${thousands(s.limiterSyncs)} | ` +
        `${thousands(s.limiterPeak)} (${pct(s.limiterPeak, PUBLIC_BUDGET)}) |`,
    ),
    '',
    "The baselines, in processes of their own, as many as the service's (a node:cluster primary and its workers sharing both ports, as the service's " +
      'WEB_CONCURRENCY workers do, when more than one): Express 5 with `app.set(\'etag\', false)` and node:http, each answering the bytes recorded from the service ' +
      'for the same URL asked with `accept-encoding: gzip` (the same body, Content-Encoding, ETag, Content-Type, Vary and other static headers), and the ' +
      "service's 304 when If-None-Match equals the recorded ETag (a precomputed comparison). They leave out only the service's per-request headers " +
      '(X-Request-Id, RateLimit, RateLimit-Policy, X-Cache): the bytes-per-answer columns below show that difference.',
  ];
  return lines;
}

function report(fair: FairRow[], churn: ChurnRow[], first: FirstReadRow[], services: ServiceRun[]): string {
  const lines = [
    '# Benchmark results',
    '',
    `Measured ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC by \`${command}\` on ${machineLine()}.`,
    '',
    ...methodLines(services),
    '',
  ];
  for (const size of [...new Set([...fair, ...churn, ...first].map((r) => r.size))]) {
    const sizeFair = fair.filter((r) => r.size === size);
    const sizeChurn = churn.filter((r) => r.size === size);
    const sizeFirst = first.filter((r) => r.size === size);
    lines.push(`## ${size} (merchants / reports)`, '');
    if (sizeFair.length > 0) {
      lines.push('### Service against bare Express and bare node:http, the same bytes', '', ...fairTable(sizeFair), '');
      if (sizeFair.some((r) => r.loads.service.rps > Math.min(r.loads.express.rps, r.loads.http.rps))) {
        lines.push('¹ Above 100 %: see "Ratios above 100 %" in the README\'s Performance section.', '');
      }
      lines.push(
        '#### Details',
        '',
        '| Processes | Read | Answer | bytes per answer: service / Express / node:http | cores busy, service run: service / generator | Express run | node:http run | unexpected answers: service / Express / node:http |',
        '|---|---|---|---|---|---|---|---|',
        ...sizeFair.map((r) => {
          const { service: s, express: e, http: h } = r.loads;
          return (
            `| ${r.processes} | ${r.name} | ${r.answer} | ${s.bytesPerAnswer} / ${e.bytesPerAnswer} / ${h.bytesPerAnswer} | ${s.serverCores.toFixed(2)} / ${s.generatorCores.toFixed(2)} | ` +
            `${e.serverCores.toFixed(2)} / ${e.generatorCores.toFixed(2)} | ${h.serverCores.toFixed(2)} / ${h.generatorCores.toFixed(2)} | ${s.unexpected} / ${e.unexpected} / ${h.unexpected} |`
          );
        }),
        '',
      );
      const multi = processCounts.length > 1 ? Math.max(...processCounts) : null;
      if (multi) {
        const pairs = sizeFair
          .filter((r) => r.processes === multi)
          .map((r) => [sizeFair.find((o) => o.processes === 1 && o.path === r.path && o.answer === r.answer), r] as const)
          .filter((p): p is readonly [FairRow, FairRow] => p[0] !== undefined);
        if (pairs.length > 0) {
          lines.push(
            `### ${multi} processes against 1`,
            '',
            `The machine's ${os.cpus().length} cores are shared by the service's processes, the load generator and the kernel's loopback copies: the "cores busy" columns say where they went.`,
            '',
            `| Read | Answer | 1 process req/s | ${multi} processes req/s | ratio | cores busy, 1 process: service / generator | ${multi} processes |`,
            '|---|---|---|---|---|---|---|',
            ...pairs.map(
              ([one, r]) =>
                `| ${r.name} | ${r.answer} | ${thousands(one.loads.service.rps)} | ${thousands(r.loads.service.rps)} | ${(r.loads.service.rps / one.loads.service.rps).toFixed(2)}× | ` +
                `${one.loads.service.serverCores.toFixed(2)} / ${one.loads.service.generatorCores.toFixed(2)} | ${r.loads.service.serverCores.toFixed(2)} / ${r.loads.service.generatorCores.toFixed(2)} |`,
            ),
            '',
          );
        }
      }
    }
    if (sizeChurn.length > 0) {
      lines.push(
        '### Reads while the directory changes (churn)',
        '',
        `The mixed-URL load (${MIXED}), ${connections} connections, ${churnDuration} s per run, while a writer in the bench process runs ` +
          `\`${CHURN_WRITE_SHOWN}\` at a fixed rate (not the issue's \`SET name = name\`, which no longer changes anything cached: see below). ` +
          'Each run starts with every URL cached. The triggers on merchants bump directory_version and NOTIFY what changed, and every process ' +
          'drops or marks stale the cached answers the change may alter (checked before the runs, ' +
          services
            .filter((s) => s.size === size && s.invalidation)
            .map((s) => `${s.processes} process${s.processes > 1 ? 'es' : ''}: ${s.invalidation}`)
            .join('; ') +
          '). "directory versions" counts every bump during the run (the upkeep may add some); ratios are to the 0-writes run of the same processes.',
        '',
        ...churnTable(sizeChurn),
        '',
      );
    }
    if (sizeFirst.length > 0) {
      lines.push(
        '### First read after a change (nothing cached)',
        '',
        `One request at a time, each right after a new directory version; ${samples} samples.`,
        '',
        ...firstTable(sizeFirst),
        '',
      );
    }
  }
  const unexpected = fair.filter((r) => SIDES.some((s) => r.loads[s].unexpected > 0));
  if (unexpected.length > 0) lines.push(`Unexpected statuses or errors in: ${unexpected.map((r) => `${r.name} ${r.answer} (${r.processes})`).join(', ')}.`, '');
  return lines.join('\n');
}

/** The README's figures: the same tables, from the same run, between its markers. */
function readmeBlock(fair: FairRow[], churn: ChurnRow[], first: FirstReadRow[], services: ServiceRun[]): string {
  const lines = [
    '<!-- bench:start (written by npm run bench from the same run as bench/results.md; do not edit by hand) -->',
    `Measured ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC by \`${command}\` on ${machineLine()}. ` +
      `Details (bytes per answer, cores busy, limiter and log figures, ${Math.max(...processCounts)} processes against 1): [\`bench/results.md\`](bench/results.md). ` +
      'In every row the baselines run with as many processes as the service (under node:cluster when more than one) and send the same bytes and ' +
      "fixed headers the service sent for that URL (only its per-request X-Request-Id, RateLimit and X-Cache left out).",
    '',
  ];
  for (const size of [...new Set([...fair, ...churn, ...first].map((r) => r.size))]) {
    const sizeFair = fair.filter((r) => r.size === size);
    const sizeChurn = churn.filter((r) => r.size === size);
    const sizeFirst = first.filter((r) => r.size === size);
    if (sizeFair.length > 0) lines.push(`**${size} merchants / reports: the service against the same bytes from bare Express and bare node:http**`, '', ...fairTable(sizeFair), '');
    if (sizeChurn.length > 0) lines.push(`**${size}: reads of the 200-URL mix while \`${CHURN_WRITE_SHOWN}\` runs at a fixed rate**`, '', ...churnTable(sizeChurn), '');
    if (sizeFirst.length > 0) lines.push(`**${size}: first read after a change** (one request at a time, nothing cached)`, '', ...firstTable(sizeFirst), '');
  }
  const peak = Math.max(0, ...services.map((s) => s.limiterPeak));
  lines.push(
    `Service at LOG_LEVEL=info (${thousands(services.reduce((s, r) => s + r.logLines, 0))} request log lines written), public limiters syncing to PostgreSQL ` +
      `(budget ${thousands(PUBLIC_BUDGET)} a minute, highest shared count seen in one window ${thousands(peak)}, no 429).`,
    '<!-- bench:end -->',
  );
  return lines.join('\n');
}

if (values.uncached) {
  const rows: UncachedRow[] = [];
  for (const { merchants, reports } of sizes) {
    const size = `${merchants.toLocaleString('en-US')} / ${reports.toLocaleString('en-US')}`;
    const dataDir = await dataDirFor(merchants, reports);
    for (const processes of processCounts) {
      log(`\n${size}: starting the service with ${processes} process(es), uncached reads`);
      const service = await startService(dataDir, processes);
      try {
        rows.push(...(await uncachedReads(service, size, processes)));
      } finally {
        await service.stop();
      }
    }
  }
  keepAlive.destroy();
  const intro =
    `Measured ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC by \`${command}\` on ${machineLine()}. ` +
    'The service started fresh (NODE_ENV=production, LOG_LEVEL=info), every URL asked once, one request at a time, so every answer is built ' +
    '(X-Cache: MISS); a count made for the same filter earlier is reused from the count cache, as in production. Each family asks every value ' +
    `with every sort for the first ${values['uncached-agents']} active agents (or the whole directory), pages 1, 2 and the last; the unfiltered lists also every tenth of the way to the last page; ` +
    `the report list (whole, by agent, by outcome, both) pages 1, 2, the middle and the last allowed (page ${MAX_PAGE} at most). ` +
    'Before the first family, a warm-up on URLs that are not measured (the next active agent, and the whole directory with minReports=1), so that no family is measured while V8 still compiles the code.';
  const sizesDone = [...new Set(rows.map((r) => r.size))];
  const tables = sizesDone.flatMap((size) => [`**${size} merchants / reports: uncached reads**`, '', ...uncachedTable(rows.filter((r) => r.size === size)), '']);
  const text = ['# Uncached reads', '', intro, '', ...tables].join('\n');
  writeFileSync(path.join(root, 'bench', 'results-uncached.md'), `${text}\n`);
  process.stdout.write(`\n${text}\n`);
  if (writeReadme) {
    const readmePath = path.join(root, 'README.md');
    const readme = readFileSync(readmePath, 'utf8');
    const start = readme.indexOf('<!-- bench-uncached:start');
    const end = readme.indexOf('<!-- bench-uncached:end -->');
    if (start === -1 || end === -1 || end < start) {
      log('\nREADME.md has no <!-- bench-uncached:start --> … <!-- bench-uncached:end --> block: its figures were not written.');
    } else {
      const block = [
        '<!-- bench-uncached:start (written by npm run bench -- --uncached from the same run as bench/results-uncached.md; do not edit by hand) -->',
        intro,
        '',
        ...tables,
        '<!-- bench-uncached:end -->',
      ].join('\n');
      writeFileSync(readmePath, readme.slice(0, start) + block + readme.slice(end + '<!-- bench-uncached:end -->'.length));
      log('\nREADME.md: uncached figures written between their markers.');
    }
  }
  process.exit(rows.some((r) => r.unexpected > 0) ? 1 : 0);
}

const fair: FairRow[] = [];
const churn: ChurnRow[] = [];
const first: FirstReadRow[] = [];
const services: ServiceRun[] = [];
for (const { merchants, reports } of sizes) {
  const result = await measureSize(merchants, reports);
  fair.push(...result.fair);
  churn.push(...result.churn);
  first.push(...result.first);
  services.push(...result.services);
}
keepAlive.destroy();
const limited = [...fair.flatMap((r) => SIDES.map((s) => r.loads[s].limited)), ...churn.map((r) => r.load.limited)].reduce((a, b) => a + b, 0);
const text = report(fair, churn, first, services);
writeFileSync(values.out, `${text}\n`);
process.stdout.write(`\n${text}\n`);
if (limited > 0) {
  log(`\nThe limiter refused ${limited} requests (429): raise --max-rate and run again. README.md left as it was.`);
  process.exitCode = 1;
} else if (writeReadme) {
  const readmePath = path.join(root, 'README.md');
  const readme = readFileSync(readmePath, 'utf8');
  const start = readme.indexOf('<!-- bench:start');
  const end = readme.indexOf('<!-- bench:end -->');
  if (start === -1 || end === -1 || end < start) {
    log('\nREADME.md has no <!-- bench:start --> … <!-- bench:end --> block: its figures were not written.');
  } else {
    writeFileSync(readmePath, readme.slice(0, start) + readmeBlock(fair, churn, first, services) + readme.slice(end + '<!-- bench:end -->'.length));
    log('\nREADME.md: figures written between its bench markers.');
  }
}
