// Run by rate-limit-memory.test.ts in its own process (node --expose-gc): sends ADDRESSES
// requests, each from a new client address and all within one window, through the public
// limiter the app builds (apiGuards, syncing to the database at DATABASE_URL), and prints as
// JSON the live heap before, at its peak (after a full collection every 100,000 requests) and
// after, with the counters PostgreSQL holds at the end.
import type { Request, Response } from 'express';
import { fixedClock } from '../../src/clock.js';
import type { Config } from '../../src/config/env.js';
import { createPool, createPrismaClient } from '../../src/db/client.js';
import { apiGuards } from '../../src/web/middleware/guards.js';
import { createLogger } from '../../src/logger.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const addresses = Number(process.env.ADDRESSES ?? 1_000_000);
const pool = createPool(process.env.DATABASE_URL!, 2);
const prisma = createPrismaClient(pool);
const limits: Config['limits'] = {
  publicPerMinute: 120,
  privatePerMinute: 120,
  privateAddressPerMinute: 240,
  browserSubmissionsPerHour: 12,
  agentSubmissionsPerHour: 60,
  signInPerAddressPerHour: 5,
  signInPerClientPerHour: 20,
  failedKeysPerAddressPerMinute: 10,
};
// A fixed clock 10 s into a window: every request falls in the same one.
const clock = fixedClock('2026-11-22T12:00:10.000Z');
const { publicLimiter } = apiGuards({ pool, prisma, clock, limits, logger: createLogger('silent') });

// What the limiter reads of a request and writes to a response, as a socket gives them.
const app = { get: () => false };
const requestFrom = (remoteAddress: string) => ({ app, socket: { remoteAddress } }) as unknown as Request;
class Answer {
  readonly locals: Record<string, unknown> = {};
  private readonly headers: Record<string, unknown> = {};
  getHeader(name: string) {
    return this.headers[name];
  }
  setHeader(name: string, value: unknown) {
    this.headers[name] = value;
    return this;
  }
}
// Three in four an IPv4 client (as a dual-stack socket reports it), one in four an IPv6 client
// from a /64 of its own.
const addressOf = (i: number) =>
  i % 4 === 3
    ? `2001:db8:${(i >>> 16).toString(16)}:${(i & 0xffff).toString(16)}::${(i % 251).toString(16)}`
    : `::ffff:10.${(i >>> 16) & 255}.${(i >>> 8) & 255}.${i & 255}`;

const heap = () => {
  gc();
  return process.memoryUsage().heapUsed;
};
publicLimiter.decide(requestFrom('::ffff:192.0.2.1'), new Answer() as unknown as Response);
await new Promise((resolve) => setTimeout(resolve, 50));
const before = heap();
let peak = before;
let refused = 0;
const started = performance.now();
for (let i = 0; i < addresses; i++) {
  if (!publicLimiter.decide(requestFrom(addressOf(i)), new Answer() as unknown as Response)) refused++;
  // Requests arrive over sockets: the syncs' answers get their turn between them.
  if (i % 1_000 === 999) await new Promise((resolve) => setImmediate(resolve));
  if (i % 100_000 === 99_999) peak = Math.max(peak, heap());
}
const elapsedMs = performance.now() - started;
const held = publicLimiter.store.size;
// Let the last syncs land.
await publicLimiter.store.flush();
const after = heap();
const { rows } = await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM rate_limit_counters WHERE key LIKE 'public:%'");
await prisma.$disconnect();
await pool.end();
console.log(
  JSON.stringify({ addresses, refused, elapsedMs: Math.round(elapsedMs), held, beforeBytes: before, peakBytes: peak, afterBytes: after, storedCounters: rows[0]!.n }),
);
