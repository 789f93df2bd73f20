// Soak test: the service in its own process, with the spec's limits in force (section 8), under
// a bounded mixed workload from several concurrent clients; then direct SQL checks that what
// it stored is what it answered.
//
//   node --import tsx bench/soak.ts [--seconds N] [--data-dir DIR] [--keep]
//
//   --seconds N      length of the workload (default 120, at most 600)
//   --data-dir DIR   DATA_DIR of the service (default: a new directory under /tmp, removed at
//                    the end); a directory given here is never removed
//   --keep           keep the scratch directory (the embedded database, outbox, log)
//
// Clients (concurrent loops, each sequential):
// - public readers: API lists with filters, details, reports, categories, agents, and HTML
//   pages. Three polite readers, each from its own loopback address (127.0.0.11-13), honour
//   Retry-After per limiter; two impatient ones share 127.0.0.1 and retry a 429 after 100 ms.
//   (On a system where only 127.0.0.1 can be bound, every client uses 127.0.0.1.)
// - agents: 9 accounts with a key for each of 3 agents (27 keys, a loop per key), two or three
//   accounts per address (127.0.0.21-23; the eager one alone on .24). They create reports for many merchants (POST), retry them identically (200
//   unchanged) or with changes (409), update them with If-Match from a fresh GET's ETag or the
//   last updatedAt they saw (200, or 409 when a moderator moved the version), repeat identical
//   PUTs (200 unchanged), send stale versions on purpose (409), omit If-Match (428), send
//   invalid bodies (400), and read their reports and queue. Each account paces itself under
//   120 requests a minute (one "eager" account over it); a 429 pauses the account, the address
//   or (agent-submissions quota, 60 changed writes an hour) the account's writes, as
//   Retry-After says.
// - moderators: two accounts named in MODERATOR_EMAILS sign in through the outbox link, read
//   the admin queues and approve, reject (with feedback) and withdraw reports through the admin
//   forms (CSRF token and Origin), racing each other on the same queue (409 "already moderated").
//
// Every answer is counted per operation. A 5xx, a network error, a status the operation cannot
// legitimately get, or an answer that contradicts the contract is a failure and is printed with
// its request, status, request id and an excerpt of the body. 429 is always an expected outcome.
//
// Afterwards, with the service idle, direct SQL (pg, and Prisma for the aggregation's own
// loadEvidence) checks: the soak accounts' reports are exactly the 201 answers; their content,
// revisions and quota use match what the clients were told; every report's moderation history
// replays to its status; every stored summary equals a fresh computation at its computed_at;
// no summary row exists without approved public evidence and none is missing; merchant totals
// and facets equal their summaries'; the public API's totals equal the database's. The service
// is then stopped with SIGTERM (it must exit 0). Exit code 0 when everything holds, else 1.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual, parseArgs } from 'node:util';
import zlib from 'node:zlib';
import pg from 'pg';
import { createPool, createPrismaClient, type PrismaClient } from '../src/db/client.js';
import { freePort } from '../src/net.js';
import { outboxDir } from '../src/mail/mailer.js';
import { findOrCreateAccount } from '../src/modules/accounts/accounts.repository.js';
import {
  FAILURE_REASONS,
  OUTCOMES,
  STAGES,
  TASKS,
  type FailureReasonKey,
  type OutcomeKey,
  type StageKey,
  type TaskKey,
} from '../src/modules/aggregation/constants.js';
import { reportFacets } from '../src/modules/aggregation/facets.js';
import { loadEvidence } from '../src/modules/aggregation/summaries.repository.js';
import { summaryDocument } from '../src/modules/aggregation/summaries.service.js';
import { issueKey } from '../src/modules/keys/keys.service.js';
import { contentOf, deriveOutcome, sameContent, type ReportContent } from '../src/modules/reports/content.js';
import type { ReportSubmission } from '../src/modules/reports/submission.schema.js';
import { STALE_LISTS_MS } from '../src/web/middleware/response-cache.js';
import { SERVICE_ARGS } from './start-args.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const USAGE = 'usage: node --import tsx bench/soak.ts [--seconds N] [--data-dir DIR] [--keep]';

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '120' },
    'data-dir': { type: 'string' },
    keep: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}
const SECONDS = Number(args.seconds);
if (!Number.isFinite(SECONDS) || SECONDS < 5 || SECONDS > 600) {
  console.error(`--seconds must be a number from 5 to 600, got "${args.seconds}"\n${USAGE}`);
  process.exit(2);
}

// --- workload shape ---------------------------------------------------------------------------

const ACCOUNTS = 9;
const KEYS_PER_ACCOUNT = 3;
const ACCOUNT_ADDRESSES = 3;
/** Requests a minute each account aims at (the spec allows 120); account 0 aims over it. */
const ACCOUNT_PACE_PER_MINUTE = 90;
const EAGER_ACCOUNT_PACE_PER_MINUTE = 150;
const MODERATORS = 2;
/** The pages limiter allows 120 a minute per address; a moderator stays under it. */
const MODERATOR_PACE_PER_MINUTE = 100;
const POLITE_READERS = 3;
const IMPATIENT_READERS = 2;
/** A polite reader aims a little over the public limit, so it meets 429s and waits them out. */
const POLITE_READER_PACE_PER_MINUTE = 300;
/** Spec section 8: changed agent submissions per account and hour. */
const AGENT_SUBMISSIONS_PER_HOUR = 60;
const REQUEST_TIMEOUT_MS = 30_000;

const runId = Date.now().toString(36);
const moderatorEmails = Array.from({ length: MODERATORS }, (_, i) => `soak-${runId}-moderator${i + 1}@example.org`);
const accountEmail = (i: number) => `soak-${runId}-agent${i + 1}@example.org`;

// --- small helpers ----------------------------------------------------------------------------

const log = (line: string) => process.stderr.write(`${line}\n`);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)));
const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;
const chance = (p: number) => Math.random() < p;
const shuffled = <T>(items: readonly T[]): T[] => {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
};
function weighted<T>(choices: ReadonlyArray<readonly [number, T]>): T | undefined {
  const total = choices.reduce((sum, [w]) => sum + w, 0);
  if (total <= 0) return undefined;
  let roll = Math.random() * total;
  for (const [w, value] of choices) {
    roll -= w;
    if (roll < 0) return value;
  }
  return choices.at(-1)?.[1];
}

/** Where the final API checks come from (an address no client uses). */
let verifierAddress = '127.0.0.1';
let endAt = Number.POSITIVE_INFINITY;
let stopping = false;
const over = () => stopping || Date.now() >= endAt;
/** Sleeps, but never past the end of the workload. */
const pause = (ms: number) => sleep(Math.min(ms, endAt - Date.now()));

/** Spaces requests `intervalMs` apart, whoever asks. */
class Pacer {
  private next = 0;
  constructor(private readonly intervalMs: number) {}
  async slot(): Promise<void> {
    const now = Date.now();
    const at = Math.max(now, this.next);
    this.next = at + this.intervalMs;
    await pause(at - now);
  }
}

// --- HTTP client with per-operation accounting ------------------------------------------------

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
  text(): string;
  json<T = Record<string, unknown>>(): T | null;
}

function answerOf(status: number, headers: http.IncomingHttpHeaders, raw: Buffer): Answer {
  let decoded: string | undefined;
  const text = () => {
    if (decoded !== undefined) return decoded;
    const encoding = headers['content-encoding'];
    try {
      const bytes = encoding === 'gzip' ? zlib.gunzipSync(raw) : encoding === 'br' ? zlib.brotliDecompressSync(raw) : raw;
      decoded = bytes.toString('utf8');
    } catch (error) {
      decoded = `(undecodable ${encoding} body: ${(error as Error).message})`;
    }
    return decoded;
  };
  return {
    status,
    headers,
    raw,
    text,
    json<T>() {
      try {
        return JSON.parse(text()) as T;
      } catch {
        return null;
      }
    },
  };
}

const httpAgent = new http.Agent({ keepAlive: true });
let servicePort = 0;
let baseUrl = '';
let keepAliveRetries = 0;

function sendOnce(from: string, method: string, urlPath: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: servicePort, method, path: urlPath, headers, localAddress: from, agent: httpAgent, timeout: REQUEST_TIMEOUT_MS },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve(answerOf(res.statusCode ?? 0, res.headers, Buffer.concat(chunks))));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS / 1000} s`)));
    req.on('error', (error: NodeJS.ErrnoException) => {
      // An idle keep-alive socket the server closed just as it was reused: the request never
      // reached the service (Node's documented retry case). Anything else is a real error.
      if (req.reusedSocket && error.code === 'ECONNRESET') reject(Object.assign(error, { keepAliveRace: true }));
      else reject(error);
    });
    req.end(body);
  });
}

async function send(from: string, method: string, urlPath: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  try {
    return await sendOnce(from, method, urlPath, headers, body);
  } catch (error) {
    if (!(error as { keepAliveRace?: boolean }).keepAliveRace) throw error;
    keepAliveRetries++;
    return sendOnce(from, method, urlPath, headers, body);
  }
}

interface OpStats {
  statuses: Map<string, number>;
  ms: number[];
}
const stats = new Map<string, OpStats>();
const limiterRefusals = new Map<string, number>();

interface Failure {
  kind: 'server error' | 'network error' | 'unexpected status' | 'contract';
  op: string;
  request: string;
  from: string;
  status: string;
  requestId: string;
  excerpt: string;
  atSecond: number;
}
const failures: Failure[] = [];
let startedAt = 0;

function count(op: string, key: string, ms: number) {
  let s = stats.get(op);
  if (!s) stats.set(op, (s = { statuses: new Map(), ms: [] }));
  s.statuses.set(key, (s.statuses.get(key) ?? 0) + 1);
  s.ms.push(ms);
}

const excerptOf = (answer: Answer) =>
  answer
    .text()
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 400);

function fail(kind: Failure['kind'], op: string, request: string, from: string, answer: Answer | null, detail: string) {
  failures.push({
    kind,
    op,
    request,
    from,
    status: answer ? String(answer.status) : '-',
    requestId: answer ? String(answer.headers['x-request-id'] ?? '') : '',
    excerpt: detail,
    atSecond: Math.round((Date.now() - startedAt) / 100) / 10,
  });
}

/** The limiter that refused a 429: the RateLimit entry with nothing remaining (draft-8 syntax). */
function refusingLimiter(headers: http.IncomingHttpHeaders): string {
  const value = [headers.ratelimit ?? []].flat().join(', ');
  const entries = [...value.matchAll(/"([^"]+)";\s*r=(\d+)/g)];
  const exhausted = entries.filter((e) => e[2] === '0').map((e) => e[1]!);
  return (exhausted.length ? exhausted : entries.map((e) => e[1]!)).join('+') || 'unknown';
}
const retryAfterMs = (answer: Answer) => {
  const seconds = Number(answer.headers['retry-after']);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : 60_000;
};

interface CallOptions {
  headers?: Record<string, string>;
  body?: string;
  /** Statuses this operation may legitimately get besides 429. */
  expect: readonly number[];
}

/** One request, counted under `op`; null after a network error (counted as a failure). */
async function call(from: string, op: string, method: string, urlPath: string, options: CallOptions): Promise<Answer | null> {
  const request = `${method} ${urlPath}`;
  const started = performance.now();
  let answer: Answer;
  try {
    answer = await send(from, method, urlPath, options.headers ?? {}, options.body);
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    count(op, `ERR ${e.code ?? e.message}`, performance.now() - started);
    fail('network error', op, request, from, null, `${e.code ?? ''} ${e.message}`.trim());
    return null;
  }
  const ms = performance.now() - started;
  if (answer.status === 429) {
    const limiter = refusingLimiter(answer.headers);
    limiterRefusals.set(limiter, (limiterRefusals.get(limiter) ?? 0) + 1);
    count(op, '429', ms);
    if (answer.headers['retry-after'] === undefined) fail('contract', op, request, from, answer, '429 without Retry-After');
    return answer;
  }
  count(op, String(answer.status), ms);
  if (answer.status >= 500) fail('server error', op, request, from, answer, excerptOf(answer));
  else if (!options.expect.includes(answer.status)) fail('unexpected status', op, request, from, answer, excerptOf(answer));
  return answer;
}

// --- the service --------------------------------------------------------------------------------

interface Service {
  child: ChildProcess;
  exited: Promise<number | null>;
  logLines: string[];
  databaseUrl: string;
}

/** Loopback addresses this machine lets a client bind (Linux: all of 127/8; elsewhere often only .1). */
async function canBind(address: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen(0, address, () => probe.close(() => resolve(true)));
  });
}

async function startService(dataDir: string): Promise<Service> {
  servicePort = await freePort();
  const pgPort = await freePort();
  baseUrl = `http://127.0.0.1:${servicePort}`;
  const env: NodeJS.ProcessEnv = { ...process.env };
  // The spec's limits, the embedded database, the outbox, no proxy: nothing inherited changes them.
  for (const name of Object.keys(env)) {
    if (name.startsWith('LIMIT_') || ['DATABASE_URL', 'SMTP_URL', 'TRUST_PROXY', 'SESSION_SECRET', 'SHUTDOWN_TIMEOUT_MS'].includes(name)) {
      delete env[name];
    }
  }
  Object.assign(env, {
    NODE_ENV: 'production',
    DATA_DIR: dataDir,
    PORT: String(servicePort),
    HOST: '127.0.0.1',
    EMBEDDED_PG_PORT: String(pgPort),
    BASE_URL: baseUrl,
    MODERATOR_EMAILS: moderatorEmails.join(','),
    SEED_DEMO_DATA: 'true',
    LOG_LEVEL: 'warn',
    WEB_CONCURRENCY: '1',
  });
  // Its own process group: a Ctrl-C in the terminal reaches only the soak, which then ends the
  // workload, verifies and stops the service itself.
  const child = spawn(process.execPath, [...SERVICE_ARGS], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const logLines: string[] = [];
  let partial = '';
  const collect = (chunk: Buffer) => {
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) if (line.trim() && logLines.length < 5000) logLines.push(line);
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode} before it was ready:\n${logLines.slice(-20).join('\n')}`);
    const ready = await send('127.0.0.1', 'GET', '/readyz', {}).then((a) => a.status === 200, () => false);
    if (ready) break;
    if (Date.now() > deadline) throw new Error(`the service was not ready within 180 s:\n${logLines.slice(-20).join('\n')}`);
    await sleep(250);
  }
  const password = readFileSync(path.join(dataDir, 'postgres.password'), 'utf8').trim();
  return { child, exited, logLines, databaseUrl: `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${pgPort}/directory` };
}

async function stopService(service: Service): Promise<number | null> {
  if (service.child.exitCode !== null) return service.child.exitCode;
  service.child.kill('SIGTERM');
  const timer = setTimeout(() => service.child.kill('SIGKILL'), 30_000);
  const code = await service.exited;
  clearTimeout(timer);
  return code;
}

function rssKb(pid: number): number | null {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

// --- directory contents the clients pick from --------------------------------------------------

interface Directory {
  merchants: Array<{ id: string; slug: string; name: string }>;
  agents: Array<{ id: string; slug: string }>;
  categories: string[];
}

async function readDirectory(pool: pg.Pool): Promise<Directory> {
  const merchants = (await pool.query<{ id: string; slug: string; name: string }>('SELECT id, slug, name FROM merchants WHERE is_public ORDER BY id')).rows;
  const agents = (await pool.query<{ id: string; slug: string }>('SELECT id, slug FROM agents WHERE active ORDER BY slug')).rows;
  const categories = (await pool.query<{ slug: string }>('SELECT slug FROM categories ORDER BY slug')).rows.map((r) => r.slug);
  if (merchants.length < 10 || agents.length < KEYS_PER_ACCOUNT || categories.length === 0) {
    throw new Error(`the demo directory is too small: ${merchants.length} merchants, ${agents.length} agents, ${categories.length} categories`);
  }
  return { merchants, agents, categories };
}

// --- report bodies ----------------------------------------------------------------------------

interface Body {
  adId: string;
  agentId: string;
  privacy: true;
  capabilityResults?: Partial<Record<TaskKey, OutcomeKey>>;
  outcome?: OutcomeKey | null;
  experience?: string;
  testedAt?: string;
  agentVersion?: string;
  region?: string;
  task?: string;
  stage?: StageKey;
  failureReason?: FailureReasonKey;
  humanIntervention?: boolean;
}

let bodySerial = 0;
const someOutcome = (): OutcomeKey =>
  weighted<OutcomeKey>([[5, 'WORKS'], [2, 'PARTIAL'], [1, 'BLOCKED'], [1, 'DOES_NOT_WORK'], [1, 'UNSURE']])!;

function newBody(merchantId: string, agentId: string): Body {
  const body: Body = { adId: merchantId, agentId, privacy: true };
  if (chance(0.8)) {
    const results: Partial<Record<TaskKey, OutcomeKey>> = {};
    const upTo = 1 + Math.floor(Math.random() * TASKS.length);
    for (const task of TASKS.slice(0, upTo)) if (chance(0.85)) results[task] = someOutcome();
    if (Object.keys(results).length === 0) results.ACCESS = someOutcome();
    body.capabilityResults = results;
    if (chance(0.4)) body.outcome = someOutcome();
  } else {
    body.outcome = someOutcome();
  }
  // A serial number makes every new body differ from every earlier one.
  body.experience = `Soak ${runId} #${++bodySerial}: ${pick(['Smooth run.', 'Stopped at a CAPTCHA.', 'Checkout needed a human.', 'Search worked, cart did not.'])}`;
  if (chance(0.6)) body.stage = pick(STAGES);
  if (chance(0.5)) body.testedAt = new Date(Date.now() - Math.floor(Math.random() * 400) * 86_400_000).toISOString().slice(0, 10);
  if (chance(0.3)) body.failureReason = pick(FAILURE_REASONS);
  if (chance(0.3)) body.humanIntervention = chance(0.5);
  if (chance(0.4)) body.agentVersion = `${1 + Math.floor(Math.random() * 5)}.${Math.floor(Math.random() * 10)}`;
  if (chance(0.2)) body.region = pick(['US', 'DE', 'GB', 'FR']);
  if (chance(0.2)) body.task = pick(['Buy a gift card', 'Reorder coffee beans', 'Book a table']);
  return body;
}

// --- agents (bearer keys) ---------------------------------------------------------------------

interface SoakAccount {
  index: number;
  email: string;
  id: string;
  from: string;
  pacer: Pacer;
  pausedUntil: number;
  writesBlockedUntil: number;
}

interface SoakReport {
  id: string;
  account: SoakAccount;
  merchantId: string;
  agentId: string;
  /** The content the service last accepted. */
  body: Body;
  /** updatedAt values the service has shown, oldest first. */
  versions: string[];
  changedPuts: number;
  /** A write whose outcome is unknown (network error, 5xx): excluded from content checks. */
  uncertain: boolean;
}

interface KeyWorker {
  account: SoakAccount;
  agentId: string;
  key: string;
  unreported: string[];
  reports: SoakReport[];
}

const soakReports = new Map<string, SoakReport>();
/** Creations whose outcome is unknown (network error or 5xx on POST). */
let uncertainCreates = 0;
let created201 = 0;
const addressPausedUntil = new Map<string, number>();

/** A bearer request: paced per account, paused while a limiter said so; undefined when not sent. */
async function bearer(
  w: KeyWorker,
  op: string,
  method: string,
  urlPath: string,
  body: unknown,
  expect: readonly number[],
  headers: Record<string, string> = {},
): Promise<Answer | null | undefined> {
  const account = w.account;
  const wait = Math.max(account.pausedUntil, addressPausedUntil.get(account.from) ?? 0) - Date.now();
  if (wait > 0) await pause(wait);
  if (over()) return undefined;
  await account.pacer.slot();
  if (over()) return undefined;
  const answer = await call(account.from, op, method, urlPath, {
    headers: {
      authorization: `Bearer ${w.key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    expect,
  });
  if (answer?.status === 429) {
    const until = Date.now() + retryAfterMs(answer);
    const limiter = refusingLimiter(answer.headers);
    if (limiter.includes('agent-submissions')) account.writesBlockedUntil = until;
    else if (limiter.includes('private:address')) addressPausedUntil.set(account.from, until);
    else account.pausedUntil = until;
  }
  return answer;
}

const versionOf = (etag: string | undefined) => etag?.replace(/^W\//, '').replace(/^"|"$/g, '');

async function createReport(w: KeyWorker) {
  const merchantId = w.unreported.pop();
  if (!merchantId) return;
  const body = newBody(merchantId, w.agentId);
  const op = 'POST /api/v1/reports (new)';
  const a = await bearer(w, op, 'POST', '/api/v1/reports', body, [201]);
  if (a === undefined || a?.status === 429) {
    w.unreported.push(merchantId);
    return;
  }
  if (a === null || a.status >= 500) {
    uncertainCreates++;
    return;
  }
  if (a.status !== 201) return;
  created201++;
  const answer = a.json<{ id?: string; status?: string; updatedAt?: string; unchanged?: boolean; reviewUrl?: string }>();
  if (!answer?.id || answer.status !== 'PENDING' || answer.unchanged !== false || !answer.updatedAt || !answer.reviewUrl?.endsWith(`/reports/${answer.id}/review`)) {
    fail('contract', op, 'POST /api/v1/reports', w.account.from, a, `201 body lacks id/PENDING/updatedAt/unchanged:false/reviewUrl: ${a.text().slice(0, 300)}`);
    if (!answer?.id) return;
  }
  const report: SoakReport = {
    id: answer.id,
    account: w.account,
    merchantId,
    agentId: w.agentId,
    body,
    versions: answer.updatedAt ? [answer.updatedAt] : [],
    changedPuts: 0,
    uncertain: false,
  };
  w.reports.push(report);
  soakReports.set(report.id, report);
}

function noteVersion(report: SoakReport, version: string | undefined) {
  if (version && report.versions.at(-1) !== version) report.versions.push(version);
}

async function changeReport(w: KeyWorker, report: SoakReport) {
  const path = `/api/v1/automation/reports/${report.id}`;
  let version = report.versions.at(-1);
  let op = 'PUT automation/reports/:id changed (last known version)';
  if (chance(0.6) || !version) {
    const read = await bearer(w, 'GET /api/v1/automation/reports/:id', 'GET', path, undefined, [200]);
    if (read?.status !== 200) return;
    version = versionOf(read.headers.etag as string | undefined);
    const own = read.json<{ updatedAt?: string }>();
    if (!version || own?.updatedAt !== version) {
      fail('contract', 'GET /api/v1/automation/reports/:id', `GET ${path}`, w.account.from, read, `ETag ${String(read.headers.etag)} is not the body's updatedAt ${String(own?.updatedAt)}`);
    }
    noteVersion(report, version);
    op = 'PUT automation/reports/:id changed (fresh ETag)';
  }
  const body = updateOf(report);
  // If-Match quoted (as the ETag) or bare (as updatedAt): both are accepted.
  const ifMatch = chance(0.5) ? `"${version}"` : version!;
  const a = await bearer(w, op, 'PUT', path, body, [200, 409], { 'if-match': ifMatch });
  if (a === undefined) return;
  if (a === null || a.status >= 500) {
    report.uncertain = true;
    return;
  }
  const answer = a.json<{ status?: string; updatedAt?: string; unchanged?: boolean; type?: string }>();
  if (a.status === 200) {
    if (answer?.unchanged !== false || answer.status !== 'PENDING' || !answer.updatedAt) {
      fail('contract', op, `PUT ${path}`, w.account.from, a, `changed PUT answered ${a.text().slice(0, 300)}`);
    }
    report.body = asSentAgain(body);
    report.changedPuts++;
    noteVersion(report, answer?.updatedAt);
  } else if (a.status === 409) {
    if (!String(answer?.type).endsWith('/problems/stale-version')) fail('contract', op, `PUT ${path}`, w.account.from, a, `409 is not stale-version: ${a.text().slice(0, 300)}`);
    noteVersion(report, answer?.updatedAt);
  }
}

async function identicalPut(w: KeyWorker, report: SoakReport) {
  const path = `/api/v1/automation/reports/${report.id}`;
  const op = 'PUT automation/reports/:id identical';
  // Any version, even an old one: identical content is answered before the version is compared.
  const a = await bearer(w, op, 'PUT', path, report.body, [200], { 'if-match': pick(report.versions) });
  if (!a || a.status !== 200) return;
  const answer = a.json<{ status?: string; updatedAt?: string; unchanged?: boolean }>();
  if (answer?.unchanged !== true || !['PENDING', 'APPROVED', 'REJECTED'].includes(answer.status ?? '')) {
    fail('contract', op, `PUT ${path}`, w.account.from, a, `identical PUT answered ${a.text().slice(0, 300)}`);
  }
  noteVersion(report, answer?.updatedAt);
}

/**
 * A new body for a report, as the update rule asks of a client: a stored outcome that was derived
 * (left out, or null) is sent as null with new task results, so that it is derived again. An
 * explicit outcome could be the old derived one by chance, which the service refuses as "sent
 * back as read" (400) before it compares versions.
 */
function updateOf(report: SoakReport): Body {
  const body = newBody(report.merchantId, report.agentId);
  if (report.body.outcome == null && body.capabilityResults) body.outcome = null;
  return body;
}

/**
 * A stored body as a client sends it again: a derived outcome left out (a POST, the identical
 * retry, takes no null outcome; left out and null both mean "derived").
 */
function asSentAgain(body: Body): Body {
  const { outcome, ...derived } = body;
  return outcome === null ? derived : body;
}

async function stalePut(w: KeyWorker, report: SoakReport) {
  const path = `/api/v1/automation/reports/${report.id}`;
  const op = 'PUT automation/reports/:id stale version';
  const body = updateOf(report);
  // An updatedAt the service showed earlier; a newer one has been seen since, so it is stale.
  const a = await bearer(w, op, 'PUT', path, body, [409], { 'if-match': report.versions[0]! });
  if (a === undefined) return;
  if (a === null || a.status >= 500) {
    report.uncertain = true;
    return;
  }
  const answer = a.json<{ updatedAt?: string; type?: string }>();
  if (a.status === 409) {
    if (!String(answer?.type).endsWith('/problems/stale-version')) fail('contract', op, `PUT ${path}`, w.account.from, a, `409 is not stale-version: ${a.text().slice(0, 300)}`);
    noteVersion(report, answer?.updatedAt);
  } else if (a.status === 200) {
    // Already a failure (unexpected status); keep the model in step with what was stored.
    report.body = asSentAgain(body);
    report.changedPuts++;
    noteVersion(report, answer?.updatedAt);
  }
}

async function identicalPost(w: KeyWorker, report: SoakReport) {
  const op = 'POST /api/v1/reports (identical retry)';
  const a = await bearer(w, op, 'POST', '/api/v1/reports', report.body, [200]);
  if (!a || a.status !== 200) return;
  const answer = a.json<{ id?: string; unchanged?: boolean; updatedAt?: string }>();
  if (answer?.id !== report.id || answer.unchanged !== true) {
    fail('contract', op, 'POST /api/v1/reports', w.account.from, a, `identical retry of ${report.id} answered ${a.text().slice(0, 300)}`);
  }
  noteVersion(report, answer?.updatedAt);
}

async function changedDuplicatePost(w: KeyWorker, report: SoakReport) {
  const op = 'POST /api/v1/reports (changed duplicate)';
  const a = await bearer(w, op, 'POST', '/api/v1/reports', newBody(report.merchantId, report.agentId), [409]);
  if (!a || a.status !== 409) return;
  const answer = a.json<{ reportId?: string; type?: string; updatedAt?: string }>();
  if (answer?.reportId !== report.id || !String(answer.type).endsWith('/problems/duplicate-report')) {
    fail('contract', op, 'POST /api/v1/reports', w.account.from, a, `duplicate of ${report.id} answered ${a.text().slice(0, 300)}`);
  }
  noteVersion(report, answer?.updatedAt);
}

async function agentLoop(w: KeyWorker, directory: Directory) {
  while (!over()) {
    const usable = w.reports.filter((r) => !r.uncertain);
    const canWrite = Date.now() >= w.account.writesBlockedUntil;
    const stale = usable.filter((r) => r.versions.length >= 2);
    const op = weighted<() => Promise<unknown>>([
      [canWrite && w.unreported.length ? 30 : 0, () => createReport(w)],
      [canWrite && usable.length ? 22 : 0, () => changeReport(w, pick(usable))],
      [usable.length ? 8 : 0, () => identicalPut(w, pick(usable))],
      [stale.length ? 7 : 0, () => stalePut(w, pick(stale))],
      [usable.length ? 6 : 0, () => identicalPost(w, pick(usable))],
      [usable.length ? 4 : 0, () => changedDuplicatePost(w, pick(usable))],
      [5, () => bearer(w, 'GET /api/v1/automation/reports', 'GET', `/api/v1/automation/reports?limit=${pick([5, 20, 50])}`, undefined, [200])],
      [
        5,
        () =>
          bearer(
            w,
            'GET /api/v1/automation/queue',
            'GET',
            `/api/v1/automation/queue?limit=${pick([1, 10, 20])}${chance(0.3) ? `&category=${pick(directory.categories)}` : ''}${chance(0.3) ? '&retestAfterDays=7' : ''}`,
            undefined,
            [200],
          ),
      ],
      [
        usable.length ? 1 : 0,
        () => {
          const report = pick(usable);
          return bearer(w, 'PUT automation/reports/:id without If-Match', 'PUT', `/api/v1/automation/reports/${report.id}`, newBody(report.merchantId, report.agentId), [428]);
        },
      ],
      [
        1,
        () =>
          bearer(w, 'POST /api/v1/reports (invalid body)', 'POST', '/api/v1/reports', { ...newBody(pick(directory.merchants).id, w.agentId), authorId: 'me', status: 'APPROVED' }, [400]),
      ],
    ]);
    if (!op) {
      await pause(1000);
      continue;
    }
    await op();
  }
}

// --- moderators (admin pages) -----------------------------------------------------------------

class Browser {
  private readonly cookies = new Map<string, string>();
  csrf = '';
  constructor(
    readonly from: string,
    private readonly pacer: Pacer,
  ) {}

  /** A page request with this browser's cookies; forms carry the CSRF token and the Origin. */
  async page(op: string, method: 'GET' | 'POST', urlPath: string, expect: readonly number[], form?: Record<string, string>): Promise<Answer | null | undefined> {
    await this.pacer.slot();
    if (over()) return undefined;
    const headers: Record<string, string> = {};
    if (this.cookies.size) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    let body: string | undefined;
    if (form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      headers.origin = baseUrl;
      body = new URLSearchParams({ _csrf: this.csrf, ...form }).toString();
    }
    const answer = await call(this.from, op, method, urlPath, { headers, body, expect });
    if (!answer) return null;
    for (const cookie of [answer.headers['set-cookie'] ?? []].flat()) {
      const [pair] = cookie.split(';');
      const eq = pair!.indexOf('=');
      if (eq > 0) this.cookies.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1));
    }
    const token = /name="_csrf" value="([^"]+)"/.exec(answer.status === 200 ? answer.text() : '');
    if (token) this.csrf = token[1]!;
    return answer;
  }
}

function outboxLink(dataDir: string, to: string): string | null {
  const dir = outboxDir(dataDir);
  if (!existsSync(dir)) return null;
  const eml = readdirSync(dir)
    .filter((f) => f.endsWith('.eml'))
    .sort()
    .map((f) => readFileSync(path.join(dir, f), 'utf8'))
    .filter((text) => text.includes(`To: ${to}`))
    .at(-1);
  if (!eml) return null;
  // Quoted-printable: soft line breaks and =XX escapes.
  const body = eml.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return /\/sign-in\/verify\?token=[A-Za-z0-9_-]+/.exec(body)?.[0] ?? null;
}

async function signIn(browser: Browser, email: string, dataDir: string): Promise<void> {
  const form = await browser.page('sign-in: GET /sign-in', 'GET', '/sign-in', [200]);
  if (form?.status !== 200) throw new Error(`GET /sign-in answered ${form?.status ?? 'nothing'}`);
  const sent = await browser.page('sign-in: POST /sign-in', 'POST', '/sign-in', [200], { email });
  if (sent?.status !== 200) throw new Error(`POST /sign-in answered ${sent?.status ?? 'nothing'}: ${sent ? excerptOf(sent) : ''}`);
  let link: string | null = null;
  for (let i = 0; i < 100 && !link; i++) {
    link = outboxLink(dataDir, email);
    if (!link) await sleep(100);
  }
  if (!link) throw new Error(`no sign-in mail to ${email} in ${outboxDir(dataDir)}`);
  const verified = await browser.page('sign-in: GET /sign-in/verify', 'GET', link, [303]);
  if (verified?.status !== 303) throw new Error(`the sign-in link answered ${verified?.status ?? 'nothing'}`);
  const admin = await browser.page('GET /admin/reports (queue)', 'GET', '/admin/reports', [200]);
  if (admin?.status !== 200) throw new Error(`GET /admin/reports answered ${admin?.status ?? 'nothing'} after signing in ${email}`);
}

const decisions = { approve: 0, reject: 0, withdraw: 0 };
/** The queue's rows (not the confirmation of a decision above them, which links to the decided report). */
const QUEUE_ROW = /<tr data-report-id="([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})">/g;

async function queueIds(browser: Browser, query: string): Promise<string[] | undefined> {
  const a = await browser.page('GET /admin/reports (queue)', 'GET', `/admin/reports?${query}`, [200]);
  if (!a) return undefined;
  if (a.status === 429) {
    await pause(retryAfterMs(a));
    return undefined;
  }
  if (a.status !== 200) return undefined;
  return [...new Set([...a.text().matchAll(QUEUE_ROW)].map((m) => m[1]!))];
}

async function decide(browser: Browser, action: 'approve' | 'reject' | 'withdraw', id: string, form: Record<string, string>, expect: readonly number[], op?: string) {
  // A decision names the revision the moderator read: the report page's forms carry it.
  const read = await browser.page('GET /admin/reports/:id', 'GET', `/admin/reports/${id}`, [200]);
  if (!read || read.status !== 200) return;
  const revision = /name="revision" value="([^"]+)"/.exec(read.text())?.[1];
  // A page without a decision form (the report moved on since the queue was read: another
  // moderator decided it) offers nothing to submit; a form sent without its revision is a 400.
  if (revision === undefined) return;
  const a = await browser.page(op ?? `POST /admin/reports/:id/${action}`, 'POST', `/admin/reports/${id}/${action}`, expect, { revision, ...form });
  if (!a) return;
  if (a.status === 303) decisions[action]++;
  else if (a.status === 429) await pause(retryAfterMs(a));
  else if (a.status === 409 && !a.text().includes('Already moderated') && !a.text().includes('This report changed since you opened it')) {
    fail('contract', `POST /admin/reports/:id/${action}`, `POST /admin/reports/${id}/${action}`, browser.from, a, `409 without "Already moderated" or "changed since": ${excerptOf(a)}`);
  }
}

async function moderatorLoop(browser: Browser, directory: Directory) {
  while (!over()) {
    const recent = chance(0.8) ? '&maxAgeDays=1' : '';
    const byAgent = chance(0.2) ? `&agent=${pick(directory.agents).slug}` : '';
    if (chance(0.2)) {
      const ids = await queueIds(browser, `status=APPROVED${recent}${byAgent}`);
      if (!ids?.length) continue;
      const to = chance(0.6) ? 'PENDING' : 'REJECTED';
      await decide(browser, 'withdraw', pick(ids.slice(0, 15)), { to, reason: `Soak ${runId}: checking this again.` }, [303, 409]);
      continue;
    }
    const ids = await queueIds(browser, `status=PENDING${recent}${byAgent}`);
    if (!ids?.length) {
      await pause(500);
      continue;
    }
    const id = pick(ids.slice(0, 15));
    const roll = Math.random();
    if (roll < 0.03) {
      // Rejection needs feedback: the form comes back with 400 and nothing changes.
      await decide(browser, 'reject', id, { feedback: '  ' }, [400], 'POST /admin/reports/:id/reject (no feedback)');
    } else if (roll < 0.7) {
      await decide(browser, 'approve', id, chance(0.5) ? { feedback: `Soak ${runId}: thanks.` } : {}, [303, 409]);
    } else {
      await decide(browser, 'reject', id, { feedback: `Soak ${runId}: not enough detail.`, ...(chance(0.3) ? { note: 'soak note' } : {}) }, [303, 409]);
    }
  }
}

// --- public readers ---------------------------------------------------------------------------

interface Reader {
  from: string;
  polite: boolean;
  pacer: Pacer | null;
  etags: Map<string, string>;
  /** Per limiter ("public" for the API, "pages" for HTML): refused until. */
  blockedUntil: Map<string, number>;
}

const approvedIds: string[] = [];

function merchantQuery(directory: Directory, withAgent: boolean): string {
  const params = new URLSearchParams();
  if (withAgent && chance(0.4)) params.set('agent', pick(directory.agents).slug);
  if (chance(0.25)) params.set('category', pick(directory.categories));
  if (chance(0.2)) params.set('outcome', pick(OUTCOMES));
  if (chance(0.15)) params.set('stage', pick(STAGES));
  if (chance(0.1)) params.set('region', pick(['US', 'DE', 'GLOBAL', 'fr']));
  if (chance(0.15)) params.set('days', String(pick([7, 30, 365])));
  if (chance(0.1)) params.set('minReports', String(pick([1, 3, 10])));
  if (chance(0.15)) params.set('q', pick(directory.merchants).name.slice(0, 4).toLowerCase());
  const sorts = ['recent', 'popular', 'name', ...(params.has('agent') || !withAgent ? ['rating'] : [])];
  if (chance(0.5)) params.set('sort', pick(sorts));
  if (chance(0.3)) params.set('page', String(pick([1, 2, 3])));
  if (chance(0.2)) params.set('view', 'compact');
  const qs = params.toString();
  return qs ? `?${qs}` : '';
}

type ReadTarget = { op: string; path: string; expect: readonly number[]; limiter: 'public' | 'pages' };

function readTarget(directory: Directory): ReadTarget {
  const merchant = pick(directory.merchants);
  const agent = pick(directory.agents);
  const api = (op: string, p: string, expect: readonly number[] = [200, 304]): ReadTarget => ({ op, path: p, expect, limiter: 'public' });
  const html = (op: string, p: string, expect: readonly number[] = [200, 304]): ReadTarget => ({ op, path: p, expect, limiter: 'pages' });
  return weighted<() => ReadTarget>([
    [20, () => api('GET /api/v1/merchants (filters)', `/api/v1/merchants${merchantQuery(directory, true)}`)],
    [10, () => api('GET /api/v1/merchants/:slug-or-id', `/api/v1/merchants/${chance(0.7) ? merchant.slug : merchant.id}`)],
    [6, () => api('GET /api/v1/agents/:slug/merchants', `/api/v1/agents/${agent.slug}/merchants${merchantQuery(directory, false)}`)],
    [
      10,
      () => {
        const params = new URLSearchParams();
        if (chance(0.3)) params.set('agent', agent.slug);
        if (chance(0.3)) params.set('merchant', merchant.id);
        if (chance(0.2)) params.set('outcome', pick(OUTCOMES));
        if (chance(0.2)) params.set('page', String(pick([1, 2])));
        const qs = params.toString();
        return api('GET /api/v1/reports', `/api/v1/reports${qs ? `?${qs}` : ''}`);
      },
    ],
    // An approved report may be withdrawn between the list and this read: 404 then.
    [approvedIds.length ? 4 : 0, () => api('GET /api/v1/reports/:id', `/api/v1/reports/${pick(approvedIds)}`, [200, 304, 404])],
    [4, () => api('GET /api/v1/categories', '/api/v1/categories')],
    [4, () => api('GET /api/v1/agents', '/api/v1/agents')],
    [1, () => api('GET /api/v1/contribution-schema', '/api/v1/contribution-schema')],
    [1, () => api('GET /api/v1/merchants (invalid filter)', pick(['/api/v1/merchants?sort=rating', '/api/v1/merchants?categroy=x', '/api/v1/merchants?page=0']), [400])],
    [1, () => api('GET /api/v1/merchants/:slug (absent)', `/api/v1/merchants/soak-absent-${runId}`, [404])],
    [6, () => html('GET / (page)', `/${chance(0.4) ? `?sort=${pick(['popular', 'name'])}` : ''}`)],
    [6, () => html('GET /merchants/:slug (page)', `/merchants/${merchant.slug}`)],
    [3, () => html('GET /categories/:slug (page)', `/categories/${pick(directory.categories)}`)],
    [3, () => html('GET /agents/:slug (page)', `/agents/${agent.slug}`)],
    [1, () => html('GET /how-it-works (page)', '/how-it-works')],
    [1, () => html('GET /agent-guide (text)', '/agent-guide')],
  ])!();
}

async function readerLoop(reader: Reader, directory: Directory) {
  while (!over()) {
    let target = readTarget(directory);
    if (reader.polite) {
      // Honour Retry-After per limiter: read from the other one meanwhile, or wait.
      const now = Date.now();
      const blocked = (t: ReadTarget) => (reader.blockedUntil.get(t.limiter) ?? 0) > now;
      for (let i = 0; i < 10 && blocked(target); i++) target = readTarget(directory);
      if (blocked(target)) {
        await pause(Math.min(...[...reader.blockedUntil.values()]) - now);
        continue;
      }
      await reader.pacer!.slot();
      if (over()) break;
    }
    const headers: Record<string, string> = { 'accept-encoding': pick(['gzip', 'br', 'identity']) };
    const etag = reader.etags.get(target.path);
    if (etag && chance(0.3)) headers['if-none-match'] = etag;
    const a = await call(reader.from, target.op, 'GET', target.path, { headers, expect: target.expect });
    if (!a) continue;
    if (a.status === 429) {
      if (reader.polite) reader.blockedUntil.set(target.limiter, Date.now() + retryAfterMs(a));
      else await pause(100);
      continue;
    }
    if (a.status === 200 && typeof a.headers.etag === 'string' && reader.etags.size < 2000) reader.etags.set(target.path, a.headers.etag);
    if (a.status === 200 && target.op === 'GET /api/v1/reports') {
      const list = a.json<{ data?: Array<{ id?: string }> }>();
      if (!Array.isArray(list?.data)) fail('contract', target.op, `GET ${target.path}`, reader.from, a, 'no data array');
      for (const r of list?.data ?? []) if (r.id && !approvedIds.includes(r.id)) approvedIds.push(r.id);
      if (approvedIds.length > 300) approvedIds.splice(0, approvedIds.length - 300);
    }
    if (!reader.polite) await sleep(25);
  }
}

// --- checks -----------------------------------------------------------------------------------

interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

const sampleOf = (items: readonly string[], n = 5) => items.slice(0, n).join('; ') + (items.length > n ? `; … (${items.length} in all)` : '');

interface ReportRow {
  id: string;
  account_id: string;
  merchant_id: string;
  agent_id: string;
  status: string;
  channel: string;
  outcome: OutcomeKey;
  outcome_supplied: boolean;
  capability_results: Record<string, string> | null;
  experience: string | null;
  tested_at: string | null;
  agent_version: string | null;
  region: string | null;
  task: string | null;
  stage: string | null;
  failure_reason: string | null;
  human_intervention: boolean | null;
  privacy_confirmed: boolean;
  moderation_feedback: string | null;
  moderated_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const storedContent = (r: ReportRow): ReportContent => ({
  capabilityResults: (r.capability_results ?? {}) as ReportContent['capabilityResults'],
  outcome: r.outcome,
  outcomeSupplied: r.outcome_supplied,
  experience: r.experience,
  testedAt: r.tested_at,
  agentVersion: r.agent_version,
  region: r.region,
  task: r.task,
  stage: r.stage as ReportContent['stage'],
  failureReason: r.failure_reason as ReportContent['failureReason'],
  humanIntervention: r.human_intervention,
});

interface HistoryEvent {
  at: number;
  kind: string;
  from: string;
  to: string;
}

/** Whether events replayed in time order (any order within one millisecond) lead from `start` to `final`. */
function replay(start: string, events: HistoryEvent[], final: string): boolean {
  const groups = new Map<number, HistoryEvent[]>();
  for (const e of [...events].sort((a, b) => a.at - b.at)) groups.set(e.at, [...(groups.get(e.at) ?? []), e]);
  const ordered = [...groups.values()];
  const permutations = <T>(items: T[]): T[][] =>
    items.length <= 1 ? [items] : items.flatMap((item, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]));
  const walk = (state: string, g: number): boolean => {
    if (g === ordered.length) return state === final;
    const group = ordered[g]!;
    const orders = group.length <= 4 ? permutations(group) : [group];
    return orders.some((order) => {
      let s = state;
      for (const e of order) {
        if (e.from !== s) return false;
        s = e.to;
      }
      return walk(s, g + 1);
    });
  };
  return walk(start, 0);
}

async function verify(pool: pg.Pool, prisma: PrismaClient, soakAccounts: SoakAccount[], moderatorIds: string[]): Promise<Check[]> {
  const checks: Check[] = [];
  const check = (name: string, problems: string[], okDetail: string) =>
    checks.push({ name, ok: problems.length === 0, detail: problems.length ? sampleOf(problems) : okDetail });
  const accountIds = soakAccounts.map((a) => a.id);

  // 1. The soak accounts' reports are exactly the 201 answers.
  const rows = (
    await pool.query<ReportRow>(
      `SELECT id, account_id, merchant_id, agent_id, status::text AS status, channel::text AS channel, outcome::text AS outcome,
              outcome_supplied, capability_results, experience, tested_at::text AS tested_at, agent_version, region, task,
              stage::text AS stage, failure_reason::text AS failure_reason, human_intervention, privacy_confirmed,
              moderation_feedback, moderated_at, created_at, updated_at
         FROM reports WHERE account_id = ANY($1::uuid[])`,
      [accountIds],
    )
  ).rows;
  const stored = new Map(rows.map((r) => [r.id, r]));
  const countProblems: string[] = [];
  if (rows.length !== created201) countProblems.push(`${rows.length} reports stored for the soak accounts, ${created201} POSTs answered 201`);
  for (const id of soakReports.keys()) if (!stored.has(id)) countProblems.push(`report ${id} (answered 201) is not stored`);
  for (const id of stored.keys()) if (!soakReports.has(id)) countProblems.push(`report ${id} is stored but no POST answered 201 with it`);
  if (uncertainCreates) countProblems.push(`${uncertainCreates} POST(s) ended in a network error or 5xx: their outcome is unknown`);
  check('reports stored = POST 201 answers', countProblems, `${rows.length} reports, ${created201} answers of 201`);

  // 2. Each report holds what its author was last told, with one revision per changed PUT.
  const revisionCounts = new Map(
    (
      await pool.query<{ report_id: string; n: number }>(
        'SELECT report_id, count(*)::int AS n FROM report_revisions WHERE report_id = ANY($1::uuid[]) GROUP BY report_id',
        [[...stored.keys()]],
      )
    ).rows.map((r) => [r.report_id, r.n]),
  );
  const contentProblems: string[] = [];
  let compared = 0;
  for (const [id, report] of soakReports) {
    const row = stored.get(id);
    if (!row || report.uncertain) continue;
    compared++;
    if (row.account_id !== report.account.id || row.merchant_id !== report.merchantId || row.agent_id !== report.agentId) {
      contentProblems.push(`${id}: account/merchant/agent changed`);
    }
    if (row.channel !== 'AGENT_KEY') contentProblems.push(`${id}: channel ${row.channel}`);
    if (!sameContent(storedContent(row), contentOf(report.body as unknown as ReportSubmission))) {
      contentProblems.push(`${id}: stored content differs from the last accepted body (experience "${row.experience}" vs "${report.body.experience}")`);
    }
    const revisions = revisionCounts.get(id) ?? 0;
    if (revisions !== report.changedPuts) contentProblems.push(`${id}: ${revisions} revisions, ${report.changedPuts} changed PUTs answered 200`);
  }
  check('report content and revisions = accepted writes', contentProblems, `${compared} reports, ${[...soakReports.values()].reduce((n, r) => n + r.changedPuts, 0)} changed PUTs`);

  // 3. The agent-submission quota held: creations + changed updates per account.
  const quotaProblems: string[] = [];
  const writesPerAccount: number[] = [];
  for (const account of soakAccounts) {
    const own = rows.filter((r) => r.account_id === account.id);
    const writes = own.length + own.reduce((n, r) => n + (revisionCounts.get(r.id) ?? 0), 0);
    writesPerAccount.push(writes);
    if (writes > AGENT_SUBMISSIONS_PER_HOUR) quotaProblems.push(`${account.email}: ${writes} changed writes within the hour (limit ${AGENT_SUBMISSIONS_PER_HOUR})`);
  }
  check(`agent-submission quota (${AGENT_SUBMISSIONS_PER_HOUR}/account/hour) held`, quotaProblems, `changed writes per account: ${writesPerAccount.join(', ')}`);

  // 4. Moderation: one audit row per decision answered 303, and every history replays.
  const audit = (
    await pool.query<{ report_id: string; action: string; from_status: string; to_status: string; actor_id: string | null; at: Date }>(
      `SELECT report_id, action, from_status::text AS from_status, to_status::text AS to_status, actor_id, created_at AS at
         FROM moderation_audit_log WHERE report_id IS NOT NULL AND action IN ('approve', 'reject', 'withdraw')`,
    )
  ).rows;
  const bySoakModerators = audit.filter((a) => a.actor_id && moderatorIds.includes(a.actor_id));
  const auditProblems: string[] = [];
  for (const action of ['approve', 'reject', 'withdraw'] as const) {
    const n = bySoakModerators.filter((a) => a.action === action).length;
    if (n !== decisions[action]) auditProblems.push(`${n} ${action} audit rows, ${decisions[action]} ${action} forms answered 303`);
  }
  check('audit rows = moderation decisions answered 303', auditProblems, `approve ${decisions.approve}, reject ${decisions.reject}, withdraw ${decisions.withdraw}`);

  const revisions = (
    await pool.query<{ report_id: string; status: string; at: Date }>(
      'SELECT report_id, status::text AS status, created_at AS at FROM report_revisions WHERE report_id = ANY($1::uuid[])',
      [[...stored.keys()]],
    )
  ).rows;
  const moderatedBySoak = new Set(bySoakModerators.map((a) => a.report_id));
  const historyIds = new Set([...stored.keys(), ...moderatedBySoak]);
  const current = new Map(
    (await pool.query<{ id: string; status: string }>('SELECT id, status::text AS status FROM reports WHERE id = ANY($1::uuid[])', [[...historyIds]])).rows.map((r) => [r.id, r.status]),
  );
  const historyProblems: string[] = [];
  for (const id of historyIds) {
    const events: HistoryEvent[] = [
      ...audit.filter((a) => a.report_id === id).map((a) => ({ at: a.at.getTime(), kind: a.action, from: a.from_status, to: a.to_status })),
      // A changed update keeps the replaced version's status and makes the report PENDING.
      ...revisions.filter((r) => r.report_id === id).map((r) => ({ at: r.at.getTime(), kind: 'update', from: r.status, to: 'PENDING' })),
    ];
    // Soak reports start PENDING; demo reports start wherever their first decision found them.
    const sortedEvents = [...events].sort((a, b) => a.at - b.at);
    const start = stored.has(id) ? 'PENDING' : (sortedEvents[0]?.from ?? current.get(id)!);
    if (!replay(start, events, current.get(id)!)) {
      historyProblems.push(`${id} is ${current.get(id)} after ${start} → ${sortedEvents.map((e) => `${e.kind}(${e.from}→${e.to})`).join(' → ')}`);
    }
  }
  check('every moderation history replays to the stored status', historyProblems, `${historyIds.size} reports (soak-created or moderated in the soak)`);

  // 5. No report in an impossible state (all reports, demo ones included).
  const impossible = (
    await pool.query<{ id: string; reason: string }>(
      `SELECT id, reason FROM (
         SELECT id, CASE
           WHEN updated_at < created_at THEN 'updated_at before created_at'
           WHEN NOT privacy_confirmed THEN 'privacy not confirmed'
           WHEN status <> 'PENDING' AND moderated_at IS NULL THEN status::text || ' without moderated_at'
           WHEN moderated_at > updated_at THEN 'moderated after its last update'
           WHEN status = 'REJECTED' AND coalesce(btrim(moderation_feedback), '') = '' THEN 'rejected without feedback'
           WHEN jsonb_typeof(capability_results) <> 'object' THEN 'capability_results is not an object'
           WHEN NOT outcome_supplied AND capability_results = '{}'::jsonb THEN 'derived outcome without task results'
         END AS reason FROM reports) x
       WHERE reason IS NOT NULL`,
    )
  ).rows.map((r) => `${r.id}: ${r.reason}`);
  const all = (
    await pool.query<{ id: string; outcome: OutcomeKey; outcome_supplied: boolean; capability_results: Record<string, string> }>(
      'SELECT id, outcome::text AS outcome, outcome_supplied, capability_results FROM reports',
    )
  ).rows;
  for (const r of all) {
    const entries = Object.entries(r.capability_results ?? {});
    const bad = entries.filter(([task, outcome]) => !(TASKS as readonly string[]).includes(task) || !(OUTCOMES as readonly string[]).includes(outcome));
    if (bad.length) impossible.push(`${r.id}: capability_results ${JSON.stringify(Object.fromEntries(bad))}`);
    else if (!r.outcome_supplied && deriveOutcome(r.capability_results as ReportContent['capabilityResults']) !== r.outcome) {
      impossible.push(`${r.id}: derived outcome ${r.outcome} but the task results give ${deriveOutcome(r.capability_results as ReportContent['capabilityResults'])}`);
    }
  }
  check('no report in an impossible state', impossible, `${all.length} reports`);

  // 6. Summaries = a fresh computation at their computed_at; one row exactly per pair with
  //    approved public evidence; merchant totals and facets = their summaries'. One snapshot.
  const summaryProblems: string[] = [];
  const totalProblems: string[] = [];
  let summaryRows = 0;
  await prisma.$transaction(
    async (tx) => {
      const summaries = await tx.$queryRaw<
        Array<{ merchant_id: string; agent_id: string; summary: unknown; rating: number; report_count: number; last_reported_at: Date | null; facets: unknown; computed_at: Date }>
      >`SELECT merchant_id::text, agent_id::text, summary, rating, report_count, last_reported_at, facets, computed_at FROM merchant_agent_summaries`;
      summaryRows = summaries.length;
      const evidencePairs = await tx.$queryRaw<Array<{ merchant_id: string; agent_id: string }>>`
        SELECT DISTINCT r.merchant_id::text, r.agent_id::text FROM reports r
          JOIN merchants m ON m.id = r.merchant_id AND m.is_public
          JOIN agents a ON a.id = r.agent_id AND a.active
         WHERE r.status = 'APPROVED'`;
      const key = (p: { merchant_id: string; agent_id: string }) => `${p.merchant_id}:${p.agent_id}`;
      const pairs = new Map([...summaries, ...evidencePairs].map((p) => [key(p), { merchantId: p.merchant_id, agentId: p.agent_id }]));
      const evidence = await loadEvidence(tx, [...pairs.values()]);
      const storedKeys = new Set(summaries.map(key));
      for (const p of evidencePairs) if (!storedKeys.has(key(p))) summaryProblems.push(`no summary row for ${key(p)}, which has approved public evidence`);
      for (const row of summaries) {
        const reports = evidence.get(key(row)) ?? [];
        if (reports.length === 0) {
          summaryProblems.push(`summary row ${key(row)} without approved public evidence`);
          continue;
        }
        const fresh = summaryDocument(reports, row.computed_at);
        const differs: string[] = [];
        if (!isDeepStrictEqual(row.summary, JSON.parse(JSON.stringify(fresh)))) differs.push('summary');
        if (row.report_count !== fresh.counts.total) differs.push(`report_count ${row.report_count} vs ${fresh.counts.total}`);
        if (row.rating !== fresh.rating) differs.push(`rating ${row.rating} vs ${fresh.rating}`);
        const newest = Math.max(...reports.map((r) => r.createdAt.getTime()));
        if (row.last_reported_at?.getTime() !== newest) differs.push('last_reported_at');
        if (!isDeepStrictEqual(row.facets, reportFacets(reports))) differs.push('facets');
        if (differs.length) summaryProblems.push(`${key(row)} (computed ${row.computed_at.toISOString()}): ${differs.join(', ')} differ from a fresh computation`);
      }
      const merchants = await tx.$queryRaw<Array<{ id: string; report_count: number; last_reported_at: Date | null; report_facets: Record<string, string> }>>`
        SELECT id::text, report_count, last_reported_at, report_facets FROM merchants`;
      for (const m of merchants) {
        const own = summaries.filter((s) => s.merchant_id === m.id);
        const sum = own.reduce((n, s) => n + s.report_count, 0);
        const last = own.reduce<number | null>((t, s) => (s.last_reported_at && (t === null || s.last_reported_at.getTime() > t) ? s.last_reported_at.getTime() : t), null);
        const merged: Record<string, string> = {};
        for (const s of own) {
          for (const [token, at] of Object.entries(s.facets as Record<string, string>)) if (!(token in merged) || merged[token]! < at) merged[token] = at;
        }
        if (m.report_count !== sum) totalProblems.push(`merchant ${m.id}: report_count ${m.report_count}, summaries say ${sum}`);
        if ((m.last_reported_at?.getTime() ?? null) !== last) totalProblems.push(`merchant ${m.id}: last_reported_at differs from its summaries`);
        if (!isDeepStrictEqual(m.report_facets ?? {}, merged)) totalProblems.push(`merchant ${m.id}: report_facets differ from its summaries'`);
      }
    },
    { isolationLevel: 'RepeatableRead', timeout: 120_000, maxWait: 30_000 },
  );
  check('stored summaries = fresh computation (and only where evidence is)', summaryProblems, `${summaryRows} summary rows`);
  check('merchant totals and facets = their summaries', totalProblems, 'all merchants');

  // 7. The public API (answered from its cache when it can) agrees with the database within
  // the cache's stated bound: a list that does not show a changed merchant may be served stale
  // for STALE_LISTS_MS after the change (docs/decisions.md, "Reads while the directory changes").
  await new Promise((resolve) => setTimeout(resolve, STALE_LISTS_MS));
  const apiProblems: string[] = [];
  const approvedPublic = (
    await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM reports r JOIN merchants m ON m.id = r.merchant_id AND m.is_public
         JOIN agents a ON a.id = r.agent_id AND a.active WHERE r.status = 'APPROVED'`,
    )
  ).rows[0]!.n;
  const publicMerchants = (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM merchants WHERE is_public')).rows[0]!.n;
  const verifier = verifierAddress;
  for (const [p, expected] of [['/api/v1/reports', approvedPublic], ['/api/v1/merchants', publicMerchants]] as const) {
    const a = await call(verifier, `verify: GET ${p}`, 'GET', p, { expect: [200] });
    const total = a?.status === 200 ? a.json<{ total?: number }>()?.total : undefined;
    if (total !== expected) apiProblems.push(`GET ${p} says total ${String(total)} (status ${a?.status ?? 'none'}), the database ${expected}`);
  }
  check('public API totals = database', apiProblems, `${approvedPublic} approved public reports, ${publicMerchants} public merchants`);
  return checks;
}

// --- output -----------------------------------------------------------------------------------

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function printTable(header: string[], rows: string[][], leftColumns = 1) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < leftColumns ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(line(r));
}

function printSummary(seconds: number) {
  const statusKeys = [...new Set([...stats.values()].flatMap((s) => [...s.statuses.keys()]))].sort((a, b) => {
    const na = Number.parseInt(a, 10);
    const nb = Number.parseInt(b, 10);
    return (Number.isNaN(na) ? 1000 : na) - (Number.isNaN(nb) ? 1000 : nb) || a.localeCompare(b);
  });
  const rows: string[][] = [];
  const totals = new Map<string, number>();
  let all = 0;
  const allMs: number[] = [];
  for (const [op, s] of [...stats].sort(([a], [b]) => a.localeCompare(b))) {
    const n = s.ms.length;
    all += n;
    allMs.push(...s.ms);
    const sorted = [...s.ms].sort((a, b) => a - b);
    for (const [k, v] of s.statuses) totals.set(k, (totals.get(k) ?? 0) + v);
    rows.push([
      op,
      String(n),
      ...statusKeys.map((k) => (s.statuses.get(k) ? String(s.statuses.get(k)) : '.')),
      (n / seconds).toFixed(2),
      percentile(sorted, 50).toFixed(1),
      percentile(sorted, 99).toFixed(1),
      (sorted.at(-1) ?? 0).toFixed(1),
    ]);
  }
  allMs.sort((a, b) => a - b);
  rows.push([
    'all operations',
    String(all),
    ...statusKeys.map((k) => String(totals.get(k) ?? 0)),
    (all / seconds).toFixed(2),
    percentile(allMs, 50).toFixed(1),
    percentile(allMs, 99).toFixed(1),
    (allMs.at(-1) ?? 0).toFixed(1),
  ]);
  console.log(`\nResponses per operation over ${seconds.toFixed(1)} s (statuses; "." = none):\n`);
  printTable(['operation', 'requests', ...statusKeys, 'req/s', 'p50 ms', 'p99 ms', 'max ms'], rows);
  console.log(`\n429 by refusing limiter: ${[...limiterRefusals].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}`);
  if (keepAliveRetries) console.log(`keep-alive sockets closed by the server as they were reused (retried once, not counted twice): ${keepAliveRetries}`);
}

// --- main ---------------------------------------------------------------------------------------

async function main(): Promise<number> {
  const ownDir = !args['data-dir'];
  const tmpRoot = existsSync('/tmp') ? '/tmp' : os.tmpdir();
  const dataDir = args['data-dir'] ? path.resolve(args['data-dir']) : mkdtempSync(path.join(tmpRoot, 'acd-soak-'));
  if (ownDir) chmodSync(dataDir, 0o755);
  else mkdirSync(dataDir, { recursive: true });

  // Several client addresses on loopback when the system allows binding them.
  const wanted = ['127.0.0.2', '127.0.0.3', '127.0.0.9', '127.0.0.11', '127.0.0.12', '127.0.0.13', '127.0.0.21', '127.0.0.22', '127.0.0.23', '127.0.0.24'];
  const spread = (await Promise.all(wanted.map(canBind))).every(Boolean);
  const address = (a: string) => (spread ? a : '127.0.0.1');
  verifierAddress = address('127.0.0.9');

  log(`soak ${runId}: DATA_DIR ${dataDir}; starting the service (embedded PostgreSQL, demo data, spec limits)…`);
  if (!spread) log('only 127.0.0.1 can be bound here: every client shares one address, so expect many more 429s');
  let service: Service | undefined;
  let pool: pg.Pool | undefined;
  let prisma: PrismaClient | undefined;
  const onSignal = () => {
    if (stopping) {
      log('second interrupt: stopping the service and exiting without checks');
      const exit = () => process.exit(130);
      if (service && service.child.exitCode === null) void stopService(service).then(exit, exit);
      else exit();
      return;
    }
    log('interrupted: ending the workload early (interrupt again to abort)');
    stopping = true;
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let exitCode = 1;
  try {
    service = await startService(dataDir);
    const pid = service.child.pid!;
    log(`service ready at ${baseUrl} (pid ${pid})`);
    pool = createPool(service.databaseUrl, 4);
    prisma = createPrismaClient(pool);
    const directory = await readDirectory(pool);

    // Accounts and keys: each account a key per agent it reports for. The eager account has an
    // address of its own (it meets its per-account limit); the others share three addresses,
    // two or three to one (three of them exceed the per-address ingress limit together).
    const now = new Date();
    const accounts: SoakAccount[] = [];
    const workers: KeyWorker[] = [];
    for (let i = 0; i < ACCOUNTS; i++) {
      const row = await findOrCreateAccount(prisma, accountEmail(i));
      const pace = i === 0 ? EAGER_ACCOUNT_PACE_PER_MINUTE : ACCOUNT_PACE_PER_MINUTE;
      const account: SoakAccount = {
        index: i,
        email: row.email,
        id: row.id,
        from: address(i === 0 ? '127.0.0.24' : `127.0.0.${21 + (i % ACCOUNT_ADDRESSES)}`),
        pacer: new Pacer(60_000 / pace),
        pausedUntil: 0,
        writesBlockedUntil: 0,
      };
      accounts.push(account);
      for (let k = 0; k < KEYS_PER_ACCOUNT; k++) {
        const agent = directory.agents[(i + k) % directory.agents.length]!;
        const { key } = await issueKey(prisma, { accountId: account.id, agentId: agent.id }, now);
        workers.push({ account, agentId: agent.id, key, unreported: shuffled(directory.merchants.map((m) => m.id)), reports: [] });
      }
    }
    const moderators = moderatorEmails.map((_, i) => new Browser(address(`127.0.0.${2 + i}`), new Pacer(60_000 / MODERATOR_PACE_PER_MINUTE)));
    for (const [i, browser] of moderators.entries()) await signIn(browser, moderatorEmails[i]!, dataDir);
    const moderatorIds = (await pool.query<{ id: string; role: string }>('SELECT id, role::text AS role FROM accounts WHERE email = ANY($1)', [moderatorEmails])).rows;
    if (moderatorIds.length !== MODERATORS || moderatorIds.some((m) => m.role === 'USER')) throw new Error('the moderators did not get the MODERATOR role from MODERATOR_EMAILS');
    const readers: Reader[] = [
      ...Array.from({ length: POLITE_READERS }, (_, i) => ({
        from: address(`127.0.0.${11 + i}`),
        polite: true,
        pacer: new Pacer(60_000 / POLITE_READER_PACE_PER_MINUTE),
        etags: new Map<string, string>(),
        blockedUntil: new Map<string, number>(),
      })),
      ...Array.from({ length: IMPATIENT_READERS }, () => ({
        from: '127.0.0.1',
        polite: false,
        pacer: null,
        etags: new Map<string, string>(),
        blockedUntil: new Map<string, number>(),
      })),
    ];
    log(
      `workload for ${SECONDS} s: ${readers.length} readers, ${workers.length} agent keys on ${ACCOUNTS} accounts, ${MODERATORS} moderators` +
        ` (${directory.merchants.length} public merchants, ${directory.agents.length} active agents)`,
    );

    // Setup requests are not part of the measured workload.
    stats.clear();
    limiterRefusals.clear();
    const setupFailures = failures.length;
    startedAt = Date.now();
    endAt = startedAt + SECONDS * 1000;
    const rss: number[] = [];
    const sampler = setInterval(() => {
      const kb = rssKb(pid);
      if (kb !== null) rss.push(kb);
      const done = [...stats.values()].reduce((n, s) => n + s.ms.length, 0);
      log(`  ${Math.round((Date.now() - startedAt) / 1000)} s: ${done} requests, ${failures.length - setupFailures} failures`);
    }, 10_000);
    const firstRss = rssKb(pid);
    await Promise.all([...readers.map((r) => readerLoop(r, directory)), ...workers.map((w) => agentLoop(w, directory)), ...moderators.map((m) => moderatorLoop(m, directory))]);
    clearInterval(sampler);
    const elapsed = (Date.now() - startedAt) / 1000;
    const lastRss = rssKb(pid);
    if (service.child.exitCode !== null) fail('server error', '(service)', '-', '-', null, `the service exited with ${service.child.exitCode} during the workload`);

    printSummary(elapsed);
    if (firstRss !== null && lastRss !== null) {
      console.log(`service process RSS: ${(firstRss / 1024).toFixed(0)} MB at start, ${(lastRss / 1024).toFixed(0)} MB at end, ${(Math.max(firstRss, ...rss) / 1024).toFixed(0)} MB at most`);
    }

    log('verifying with direct SQL…');
    const checks = await verify(pool, prisma, accounts, moderatorIds.map((m) => m.id));
    console.log('\nChecks:');
    for (const c of checks) console.log(`  ${c.ok ? 'ok  ' : 'FAIL'}  ${c.name}: ${c.detail}`);

    await prisma.$disconnect();
    await pool.end();
    pool = undefined;
    prisma = undefined;
    const stopStarted = Date.now();
    const code = await stopService(service);
    const stopSeconds = (Date.now() - stopStarted) / 1000;
    if (code !== 0) fail('server error', '(service)', 'SIGTERM', '-', null, `the service exited with ${code} after SIGTERM (expected 0; killed after 30 s when null)`);
    console.log(`  ${code === 0 ? 'ok  ' : 'FAIL'}  service stopped on SIGTERM: exit code ${code} after ${stopSeconds.toFixed(1)} s`);

    // At LOG_LEVEL=warn the request log prints every 4xx answer; those are counted above.
    let requestLog4xx = 0;
    const logged = service.logLines.filter((line) => {
      try {
        const entry = JSON.parse(line) as { level?: number; msg?: string; res?: { statusCode?: number } };
        if (entry.msg === 'request completed' && (entry.res?.statusCode ?? 500) < 500) {
          requestLog4xx++;
          return false;
        }
        return (entry.level ?? 50) >= 40;
      } catch {
        return true;
      }
    });
    console.log(`\nService log: ${requestLog4xx} request-log lines for 4xx answers; ${logged.length} other lines at warn or above${logged.length > 20 ? ' (first 20)' : ''}${logged.length ? ':' : '.'}`);
    for (const line of logged.slice(0, 20)) console.log(`  ${line.slice(0, 500)}`);

    const byKind = new Map<string, number>();
    for (const f of failures) byKind.set(f.kind, (byKind.get(f.kind) ?? 0) + 1);
    if (failures.length) {
      console.log(`\nFailures: ${failures.length} (${[...byKind].map(([k, v]) => `${k} ${v}`).join(', ')})${failures.length > 30 ? '; first 30' : ''}`);
      for (const f of failures.slice(0, 30)) {
        console.log(`  [${f.atSecond}s] ${f.kind}: ${f.op}: ${f.request} from ${f.from} -> ${f.status}${f.requestId ? ` (X-Request-Id ${f.requestId})` : ''}`);
        if (f.excerpt) console.log(`      ${f.excerpt}`);
      }
    } else {
      console.log('\nNo 5xx, no network errors, no unexpected statuses.');
    }
    const passed = failures.length === 0 && checks.every((c) => c.ok);
    console.log(`\nSoak ${passed ? 'PASSED' : 'FAILED'} (${elapsed.toFixed(0)} s, ${[...stats.values()].reduce((n, s) => n + s.ms.length, 0)} requests).`);
    exitCode = passed ? 0 : 1;
  } catch (error) {
    console.error(`soak aborted: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    if (failures.length) for (const f of failures.slice(0, 10)) console.error(`  ${f.kind}: ${f.request} -> ${f.status} ${f.excerpt}`);
    exitCode = 1;
  } finally {
    httpAgent.destroy();
    await prisma?.$disconnect().catch(() => undefined);
    await pool?.end().catch(() => undefined);
    if (service && service.child.exitCode === null) await stopService(service);
    const killed = service?.child.signalCode === 'SIGKILL';
    if (killed) log('the service had to be killed: its embedded PostgreSQL may still run (see postgres/postmaster.pid)');
    if (args.keep || !ownDir || killed) {
      log(`kept ${dataDir}${ownDir ? '' : ' (given with --data-dir)'}`);
    } else {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  return exitCode;
}

process.exitCode = await main();
