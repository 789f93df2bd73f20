// Public read throughput and latency, measured as a client sees them: the service runs in its
// own process (or processes, WEB_CONCURRENCY), the baselines in another, and this process only
// generates load (autocannon) and keeps the table. Every ratio compares the service with a
// bare Express 5 route serving the same bytes, measured in the same run, because machines here
// are shared and noisy: compare ratios, not absolute figures.
//
//   npm run bench                                  20,000 merchants / 400,000 reports, 1 and 2 processes
//   npm run bench -- --sizes 20000:400000,100000:2000000   several sizes (merchants:reports)
//   npm run bench -- --duration 5 --connections 10 --processes 1,2 --samples 200
//   npm run bench -- --data-root DIR              where generated directories are kept (default bench/.data)
//   npm run bench -- --only categories,reports     only the reads whose names contain one of these
//   npm run bench -- --repeat 2                   runs of each row, alternating service and baseline;
//                                                 the best run of each counts (noise only slows)
//
// Rows: "cached" repeats one URL (the response cache answers after the first request);
// "conditional" sends the ETag of that answer (a 304); "first after a change" bumps the
// directory version before each request, one request at a time, so nothing is cached (the
// merchant list, the detail, and an agent's reach filter with sort=reach, which is measured
// only so: cached, it costs what any cached list costs).
// Results are printed and written to bench/results.md.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { freePort } from '../src/net.js';
import type { Fixture } from './baseline-server.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '20000:400000' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '10' },
    processes: { type: 'string', default: '1,2' },
    samples: { type: 'string', default: '200' },
    only: { type: 'string' },
    repeat: { type: 'string', default: '2' },
    'data-root': { type: 'string', default: path.join(root, 'bench', '.data') },
    out: { type: 'string', default: path.join(root, 'bench', 'results.md') },
  },
});
const sizes = values.sizes.split(',').map((pair) => {
  const [merchants, reports] = pair.split(':').map(Number);
  if (!Number.isInteger(merchants) || !Number.isInteger(reports)) throw new Error(`bad size "${pair}"`);
  return { merchants: merchants!, reports: reports! };
});
const duration = Number(values.duration);
const connections = Number(values.connections);
const processCounts = values.processes.split(',').map(Number);
const samples = Number(values.samples);
const repeat = Number(values.repeat);
/** A generated directory is reused while its summaries are younger than this. */
const DATA_MAX_AGE_MS = 12 * 60 * 60 * 1000;
const LIMITS = {
  // The limiters stay in the request path and count every request; they never trip.
  LIMIT_PUBLIC_PER_MINUTE: '1000000000',
  LIMIT_PRIVATE_PER_MINUTE: '1000000000',
  LIMIT_PRIVATE_ADDRESS_PER_MINUTE: '1000000000',
};
const LOG_LEVEL = 'warn';

const log = (message: string) => process.stderr.write(`${message}\n`);

function run(command: string, args: string[], env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${args.join(' ')} exited with ${code}`))));
  });
}

/** A generated directory of this size under data-root, reused while it is fresh. */
async function dataDirFor(merchants: number, reports: number): Promise<string> {
  const dir = path.join(values['data-root'], `${merchants}-${reports}`);
  const marker = path.join(dir, 'bench-seeded-at');
  if (existsSync(marker) && Date.now() - Number(readFileSync(marker, 'utf8')) < DATA_MAX_AGE_MS) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  log(`generating ${merchants} merchants / ${reports} reports in ${dir}`);
  const startedAt = Date.now();
  await run(process.execPath, ['--import', 'tsx', 'src/cli/seed.ts', '--merchants', String(merchants), '--reports', String(reports)], {
    DATA_DIR: dir,
    EMBEDDED_PG_PORT: String(await freePort()),
    SEED_DEMO_DATA: 'false',
    LOG_LEVEL: 'warn',
  });
  writeFileSync(marker, String(startedAt));
  return dir;
}

interface Service {
  base: string;
  databaseUrl: string;
  /** The service's processes: the one started, and its cluster workers. */
  pids(): number[];
  stop(): Promise<void>;
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
  return new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', () => resolve())));
}

async function get(url: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    http
      .get(url, { headers, agent: keepAlive }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
}
const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 1 });

async function startService(dataDir: string, processes: number): Promise<Service> {
  const port = await freePort();
  const pgPort = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
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
      NODE_ENV: 'production',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
    const ready = await get(`${base}/readyz`).then((r) => r.status === 200, () => false);
    if (ready) break;
    if (i > 600) throw new Error('the service did not become ready in 60 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  const password = readFileSync(path.join(dataDir, 'postgres.password'), 'utf8').trim();
  return {
    base,
    databaseUrl: `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${pgPort}/directory`,
    // The embedded PostgreSQL is a child too; cached reads leave it idle, and it is counted.
    pids: () => [child.pid!, ...childrenOf(child.pid!)],
    async stop() {
      child.kill('SIGTERM');
      await waitForExit(child);
    },
  };
}

async function startBaselines(fixtures: Fixture[]): Promise<{ express: string; http: string; pid: number; stop(): Promise<void> }> {
  const file = path.join(os.tmpdir(), `acd-bench-fixtures-${process.pid}.json`);
  writeFileSync(file, JSON.stringify(fixtures));
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/baseline-server.ts', file], {
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
    pid: child.pid!,
    async stop() {
      child.kill('SIGTERM');
      await waitForExit(child);
      rmSync(file, { force: true });
    },
  };
}

interface Load {
  rps: number;
  p99: number;
  non2xx: number;
  /** Cores busy on average in the measured processes, and in this load generator. */
  serverCores: number;
  generatorCores: number;
}

let measuredPids: () => number[] = () => [];

async function load(url: string, headers: Record<string, string> = {}, expect = 200): Promise<Load> {
  const pids = measuredPids();
  const server = cpuSeconds(pids);
  const generator = process.cpuUsage();
  const started = performance.now();
  const result = await autocannon({ url, connections, duration, headers });
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(generator);
  const unexpected = expect === 304 ? result.requests.total - (result['3xx'] ?? 0) : result.non2xx;
  return {
    rps: Math.round(result.requests.average),
    p99: result.latency.p99,
    non2xx: unexpected + result.errors,
    serverCores: (cpuSeconds(pids) - server) / seconds,
    generatorCores: (used.user + used.system) / 1e6 / seconds,
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

async function targetsFor(databaseUrl: string): Promise<Target[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows: [sample] } = await client.query<{ slug: string; agent: string }>(
      `SELECT m.slug, (SELECT a.slug FROM agents a WHERE a.active ORDER BY a.slug LIMIT 1) AS agent
         FROM merchants m WHERE m.is_public ORDER BY m.report_count DESC LIMIT 1`,
    );
    const all = [
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
    const only = values.only?.split(',');
    return only ? all.filter((t) => only.some((o) => t.name.includes(o))) : all;
  } finally {
    await client.end();
  }
}

interface ThroughputRow {
  size: string;
  processes: number;
  target: Target;
  bytes: number;
  cached: Load;
  bare: Load;
  conditional: Load;
  bareConditional: Load;
  bareHttp: Load;
}

interface FirstReadRow {
  size: string;
  processes: number;
  name: string;
  p50: number;
  p99: number;
  misses: number;
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
      await new Promise((r) => setTimeout(r, 20));
      const started = performance.now();
      const res = await get(service.base + target.path);
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

async function measureSize(merchants: number, reports: number): Promise<{ throughput: ThroughputRow[]; first: FirstReadRow[] }> {
  const size = `${merchants.toLocaleString('en-US')} / ${reports.toLocaleString('en-US')}`;
  const dataDir = await dataDirFor(merchants, reports);
  const throughput: ThroughputRow[] = [];
  const first: FirstReadRow[] = [];
  for (const processes of processCounts) {
    log(`\n${size}: starting the service with ${processes} process(es)`);
    const service = await startService(dataDir, processes);
    let baselines: Awaited<ReturnType<typeof startBaselines>> | undefined;
    try {
      const targets = await targetsFor(service.databaseUrl);
      const fixtures: Fixture[] = [];
      const etags = new Map<string, string>();
      const sizes = new Map<string, number>();
      for (const target of targets.filter((t) => t.throughput !== false)) {
        const res = await get(service.base + target.path);
        if (res.status !== 200) throw new Error(`${target.path} answered ${res.status}`);
        fixtures.push({ url: target.path, contentType: String(res.headers['content-type']), body: res.body.toString('base64') });
        etags.set(target.path, String(res.headers.etag));
        sizes.set(target.path, res.body.length);
      }
      baselines = await startBaselines(fixtures);
      for (const target of targets.filter((t) => t.throughput !== false)) {
        const bytes = sizes.get(target.path)!;
        const bareEtag = String((await get(baselines.express + target.path)).headers.etag);
        const runs: Array<Record<'cached' | 'bare' | 'conditional' | 'bareConditional' | 'bareHttp', Load>> = [];
        const onService = () => service.pids();
        const onBaselines = () => [baselines!.pid];
        for (let i = 0; i < repeat; i++) {
          measuredPids = onService;
          const cached = await load(service.base + target.path);
          measuredPids = onBaselines;
          const bare = await load(baselines.express + target.path);
          measuredPids = onService;
          const conditional = await load(service.base + target.path, { 'if-none-match': etags.get(target.path)! }, 304);
          measuredPids = onBaselines;
          const bareConditional = await load(baselines.express + target.path, { 'if-none-match': bareEtag }, 304);
          const bareHttp = await load(baselines.http + target.path);
          runs.push({ cached, bare, conditional, bareConditional, bareHttp });
        }
        const best = (key: keyof (typeof runs)[number]) => runs.map((r) => r[key]).reduce((a, b) => (b.rps > a.rps ? b : a));
        const [cached, bare, conditional, bareConditional, bareHttp] = (['cached', 'bare', 'conditional', 'bareConditional', 'bareHttp'] as const).map(best) as [
          Load,
          Load,
          Load,
          Load,
          Load,
        ];
        const row = { size, processes, target, bytes, cached, bare, conditional, bareConditional, bareHttp };
        throughput.push(row);
        log(
          `  ${target.name}: ${cached.rps} req/s (${pct(cached.rps, bare.rps)} of bare Express ${bare.rps}), ` +
            `304: ${conditional.rps} (${pct(conditional.rps, bareConditional.rps)} of ${bareConditional.rps}), node:http ${bareHttp.rps}`,
        );
      }
      for (const target of targets.filter((t) => t.first)) {
        const result = await firstReads(service, target);
        first.push({ size, processes, name: target.name, ...result });
        log(`  first read after a change, ${target.name}: p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms (${result.misses}/${samples} misses)`);
      }
    } finally {
      await baselines?.stop();
      await service.stop();
    }
  }
  return { throughput, first };
}

const pct = (a: number, b: number) => (b > 0 ? `${Math.round((100 * a) / b)} %` : '–');
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

function report(throughput: ThroughputRow[], first: FirstReadRow[]): string {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  const lines = [
    '# Benchmark results',
    '',
    `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC by \`npm run bench\` on ${os.cpus().length} cores (${cpu}), Node ${process.version}.`,
    `autocannon with ${connections} connections, ${duration} s per run, the best of ${repeat} alternating runs per row, from a separate process over loopback; the service with`,
    `LOG_LEVEL=${LOG_LEVEL}, NODE_ENV=production and its public limiter counting every request (budget raised so it never trips).`,
    'Baselines in a third process: a bare Express 5 route and a bare node:http server, each serving the same bytes.',
    '',
    '## Repeated and conditional reads',
    '',
    '| Directory (merchants / reports) | Processes | Read | Body | req/s | p99 ms | bare Express req/s | ratio | 304 req/s | bare Express 304 req/s | ratio | bare node:http req/s | cores busy: service / load generator |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...throughput.map(
      (r) =>
        `| ${r.size} | ${r.processes} | ${r.target.name} (\`${r.target.path.replace(/agent=[^&]+/, 'agent=…')}\`) | ${kb(r.bytes)} | ${r.cached.rps} | ${r.cached.p99} | ${r.bare.rps} | ${pct(r.cached.rps, r.bare.rps)} | ${r.conditional.rps} | ${r.bareConditional.rps} | ${pct(r.conditional.rps, r.bareConditional.rps)} | ${r.bareHttp.rps} | ${r.cached.serverCores.toFixed(2)} / ${r.cached.generatorCores.toFixed(2)} |`,
    ),
    '',
  ];
  const multi = processCounts.length > 1 ? processCounts[processCounts.length - 1]! : null;
  if (multi) {
    lines.push(
      `## ${multi} processes against 1`,
      '',
      `The machine's ${os.cpus().length} cores are shared by the service's processes, the load generator and the kernel's loopback copies: the "cores busy" columns say where they went.`,
      '',
      `| Directory | Read | 1 process req/s | ${multi} processes req/s | ratio | cores busy, 1 process: service / generator | ${multi} processes: service / generator | 304: 1 process | 304: ${multi} processes | ratio |`,
      '|---|---|---|---|---|---|---|---|---|---|',
    );
    for (const r of throughput.filter((row) => row.processes === multi)) {
      const one = throughput.find((o) => o.processes === 1 && o.size === r.size && o.target.path === r.target.path);
      if (one) {
        lines.push(
          `| ${r.size} | ${r.target.name} | ${one.cached.rps} | ${r.cached.rps} | ${(r.cached.rps / one.cached.rps).toFixed(2)}× | ${one.cached.serverCores.toFixed(2)} / ${one.cached.generatorCores.toFixed(2)} | ${r.cached.serverCores.toFixed(2)} / ${r.cached.generatorCores.toFixed(2)} | ${one.conditional.rps} | ${r.conditional.rps} | ${(r.conditional.rps / one.conditional.rps).toFixed(2)}× |`,
        );
      }
    }
    lines.push('');
  }
  lines.push(
    '## First read after a change (nothing cached)',
    '',
    `One request at a time, each right after a new directory version; ${samples} samples.`,
    '',
    '| Directory | Processes | Read | p50 ms | p99 ms | cache misses |',
    '|---|---|---|---|---|---|',
    ...first.map((r) => `| ${r.size} | ${r.processes} | ${r.name} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.misses}/${samples} |`),
    '',
  );
  const errors = throughput.filter((r) => r.cached.non2xx + r.conditional.non2xx > 0);
  if (errors.length > 0) lines.push(`Unexpected statuses or errors in: ${errors.map((r) => r.target.name).join(', ')}.`, '');
  return lines.join('\n');
}

const throughput: ThroughputRow[] = [];
const first: FirstReadRow[] = [];
for (const { merchants, reports } of sizes) {
  const result = await measureSize(merchants, reports);
  throughput.push(...result.throughput);
  first.push(...result.first);
}
const text = report(throughput, first);
writeFileSync(values.out, `${text}\n`);
process.stdout.write(`\n${text}\n`);
keepAlive.destroy();
