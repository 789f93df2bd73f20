// Rate-limit counters in PostgreSQL, so every app process shares them (express-rate-limit's
// Store interface). Two stores: the exact one writes one upsert per counted use (quotas,
// per-account limits); the synced one counts in memory and adds its counts to PostgreSQL in
// batches, so that a public read writes nothing (per-address limits).
import { createHash } from 'node:crypto';
import type { Options, Store, ClientRateLimitInfo } from 'express-rate-limit';
import type pg from 'pg';
import type { Clock } from '../../clock.js';
import { limiterSynced } from '../../metrics.js';

export class PostgresRateLimitStore implements Store {
  readonly localKeys = false;
  prefix: string;
  private windowMs = 60_000;

  constructor(
    private readonly pool: pg.Pool,
    private readonly clock: Clock,
    prefix: string,
  ) {
    this.prefix = `${prefix}:`;
  }

  init(options: Options): void {
    this.windowMs = options.windowMs;
  }

  private key(key: string): string {
    return this.prefix + key;
  }

  async get(key: string): Promise<ClientRateLimitInfo | undefined> {
    const { rows } = await this.pool.query<{ hits: number; reset_at: Date }>(
      'SELECT hits, reset_at FROM rate_limit_counters WHERE key = $1 AND reset_at > $2',
      [this.key(key), this.clock.now()],
    );
    const row = rows[0];
    return row ? { totalHits: row.hits, resetTime: row.reset_at } : undefined;
  }

  async increment(key: string): Promise<ClientRateLimitInfo> {
    const now = this.clock.now();
    const { rows } = await this.pool.query<{ hits: number; reset_at: Date }>(
      `INSERT INTO rate_limit_counters AS c (key, hits, reset_at) VALUES ($1, 1, $2)
       ON CONFLICT (key) DO UPDATE SET
         hits = CASE WHEN c.reset_at <= $3 THEN 1 ELSE c.hits + 1 END,
         reset_at = CASE WHEN c.reset_at <= $3 THEN $2 ELSE c.reset_at END
       RETURNING hits, reset_at`,
      [this.key(key), new Date(now.getTime() + this.windowMs), now],
    );
    const row = rows[0]!;
    return { totalHits: row.hits, resetTime: row.reset_at };
  }

  async decrement(key: string): Promise<void> {
    await this.pool.query('UPDATE rate_limit_counters SET hits = greatest(hits - 1, 0) WHERE key = $1 AND reset_at > $2', [
      this.key(key),
      this.clock.now(),
    ]);
  }

  async resetKey(key: string): Promise<void> {
    await this.pool.query('DELETE FROM rate_limit_counters WHERE key = $1', [this.key(key)]);
  }
}

interface LocalCounter {
  readonly key: string;
  /** Hits counted here and not yet sent. */
  unsent: number;
  /** Hits being sent now. */
  sending: number;
  /** The shared total (every process's hits, ours included) at the last sync. */
  shared: number;
  /** The partition key of the RateLimit headers, hashed once per key and window. */
  readonly partition: string;
  /** In the queue of the next sync. */
  queued: boolean;
  /**
   * Made after this window forgot counters: PostgreSQL may hold hits of this key that this
   * process no longer knows, so its hits sync at once until one sync has answered.
   */
  unknown: boolean;
}

/** The `pk` of draft-8 RateLimit headers, as express-rate-limit computes it. */
export const partitionKey = (key: string) =>
  Buffer.from(createHash('sha256').update(key).digest('hex').slice(0, 12)).toString('base64');

export interface SyncOptions {
  /** Longest time between two syncs while there is something to send (default 1 s). */
  syncMs?: number;
  /** Hits of one key that trigger a sync at once (default a tenth of the limit, at least 1). */
  flushAt?: number;
  /** Most keys held in memory in one window (default 20,000); half as many may be queued for a sync. */
  maxKeys?: number;
  onError?: (error: unknown) => void;
}

/** Keys one synced store holds at most by default (see the memory paragraph below). */
export const DEFAULT_MAX_KEYS = 20_000;

/**
 * A per-process first line over the shared counters. Each process counts in memory and, at
 * most `syncMs` after a hit (at once when one key has `flushAt` unsent hits), adds the counts
 * that changed since the last sync in one statement and reads back their shared totals. Windows
 * are aligned to multiples of windowMs, so every process agrees on them without asking, and
 * all of a store's counters end together: the first look after a window ends drops them all.
 *
 * Memory: at most `maxKeys` counters are held, in two generations of maxKeys / 2 (the current
 * one, and the one before, whose keys move back to the current one when seen again); when the
 * current one is full the older one is forgotten, so a key is forgotten only after maxKeys / 2
 * keys were first seen since its last hit. At most maxKeys / 2 counters wait in the queue for
 * the next sync and as many are being sent: with forgotten ones, at most 2 x maxKeys counters
 * (~210 bytes each) whatever the number of distinct keys.
 *
 * Error bound: a process knows the other processes' hits up to its last sync, and never counts
 * fewer than its own. With P processes, a client spreading requests over all of them gets at
 * most limit + (P - 1) x (flushAt + the hits one process takes during one sync round trip)
 * through in a window, and with one process the count is exact while it holds the key. A key
 * it forgot had its hits queued for PostgreSQL; when it comes back its first hit syncs at once
 * and it is counted from PostgreSQL's total when that sync answers, so each return lets through
 * at most the hits it makes until then (one or two round trips). When the database does not
 * answer, or falls so far behind that the queue is full, counts wait in memory and are sent by
 * a later sync (each process still enforces the limit alone for the keys it holds); the hits of
 * a key forgotten before they could be queued are lost, and a key that returns then is counted
 * from its local count until a sync takes it, so it may get up to a whole budget more. Either
 * way being forgotten takes maxKeys / 2 new keys, each with a budget of its own: a client gains
 * at most one budget per maxKeys / 2 new addresses it brings. The unsent hits of a window that
 * ended are dropped with it.
 */
export class SyncedRateLimitStore implements Store {
  readonly localKeys = false;
  prefix: string;
  private windowMs = 60_000;
  private flushAt: number;
  private readonly syncMs: number;
  private readonly generationSize: number;
  private readonly maxQueued: number;
  /** Start of the window the counters are in (ms since the epoch, a multiple of windowMs). */
  private window = Number.NaN;
  private current = new Map<string, LocalCounter>();
  private previous = new Map<string, LocalCounter>();
  /** This window forgot counters, so a new one may have hits this process no longer knows. */
  private forgot = false;
  /** The counters whose counts changed since the last sync: all a sync looks at. */
  private readonly queue = new Set<LocalCounter>();
  private timer: NodeJS.Timeout | undefined;
  private syncing: Promise<void> | undefined;
  private again = false;
  /** The last sync failed: hits wait for the timer rather than retrying at once. */
  private failing = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly clock: Clock,
    prefix: string,
    private readonly options: SyncOptions = {},
  ) {
    this.prefix = `${prefix}:`;
    this.syncMs = options.syncMs ?? 1_000;
    this.flushAt = options.flushAt ?? 1;
    const maxKeys = options.maxKeys ?? DEFAULT_MAX_KEYS;
    this.generationSize = Math.max(1, Math.floor(maxKeys / 2));
    this.maxQueued = this.generationSize;
  }

  init(options: Options): void {
    this.windowMs = options.windowMs;
    if (this.options.flushAt === undefined && typeof options.limit === 'number') {
      this.flushAt = Math.max(1, Math.ceil(options.limit / 10));
    }
  }

  /** Moves to the window the clock is in; a new one starts with no counters and nothing queued. */
  private toCurrentWindow(): void {
    const window = Math.floor(this.clock.now().getTime() / this.windowMs) * this.windowMs;
    if (window === this.window) return;
    // Hits of an ended window that were never sent no longer matter.
    this.window = window;
    this.current = new Map();
    this.previous = new Map();
    this.queue.clear();
    this.forgot = false;
  }

  private find(key: string): LocalCounter | undefined {
    this.toCurrentWindow();
    return this.current.get(key) ?? this.previous.get(key);
  }

  private counter(key: string): LocalCounter {
    this.toCurrentWindow();
    let counter = this.current.get(key);
    if (counter) return counter;
    counter = this.previous.get(key);
    if (counter) this.previous.delete(key);
    else counter = { key, unsent: 0, sending: 0, shared: 0, partition: partitionKey(key), queued: false, unknown: this.forgot };
    if (this.current.size >= this.generationSize) {
      if (this.previous.size > 0) this.forgot = true;
      this.previous = this.current;
      this.current = new Map();
    }
    this.current.set(key, counter);
    return counter;
  }

  private enqueue(counter: LocalCounter): void {
    // A full queue means PostgreSQL is behind: the counter's hits wait here until there is room.
    if (counter.queued || this.queue.size >= this.maxQueued) return;
    counter.queued = true;
    this.queue.add(counter);
  }

  private info(counter: LocalCounter): ClientRateLimitInfo & { resetTime: Date } {
    return {
      totalHits: Math.max(0, counter.shared + counter.sending + counter.unsent),
      resetTime: new Date(this.window + this.windowMs),
    };
  }

  /** Counters held in memory now (those of an ended window are dropped at the first look after it). */
  get size(): number {
    this.toCurrentWindow();
    return this.current.size + this.previous.size;
  }

  /** Counters queued for the next sync: what it will send. */
  get queued(): number {
    this.toCurrentWindow();
    return this.queue.size;
  }

  async get(key: string): Promise<ClientRateLimitInfo | undefined> {
    return this.count(key);
  }

  /** This window's count for `key` as this process knows it, at once (no I/O). */
  count(key: string): (ClientRateLimitInfo & { resetTime: Date }) | undefined {
    const counter = this.find(key);
    return counter ? this.info(counter) : undefined;
  }

  async increment(key: string): Promise<ClientRateLimitInfo> {
    return this.hit(key);
  }

  /** Counts one hit, at once (no I/O); its partition key is in `partition`. */
  hit(key: string): ClientRateLimitInfo & { resetTime: Date; partition: string } {
    const counter = this.counter(key);
    counter.unsent += 1;
    this.enqueue(counter);
    if ((counter.unsent >= this.flushAt || counter.unknown) && !this.failing) void this.sync();
    else this.timer ??= setTimeout(() => void this.sync(), this.syncMs).unref();
    return {
      totalHits: Math.max(0, counter.shared + counter.sending + counter.unsent),
      resetTime: new Date(this.window + this.windowMs),
      partition: counter.partition,
    };
  }

  async decrement(key: string): Promise<void> {
    const counter = this.find(key);
    if (!counter) return;
    counter.unsent -= 1;
    this.enqueue(counter);
    this.timer ??= setTimeout(() => void this.sync(), this.syncMs).unref();
  }

  async resetKey(key: string): Promise<void> {
    const counter = this.find(key);
    if (counter) counter.unsent = 0;
    this.current.delete(key);
    this.previous.delete(key);
    await this.pool.query('DELETE FROM rate_limit_counters WHERE key = $1', [this.prefix + key]);
  }

  /** Syncs until nothing is queued or a sync fails (shutting down, tests). */
  async flush(): Promise<void> {
    while (this.syncing || this.queued > 0) {
      await this.sync();
      if (this.failing) return;
    }
  }

  /** Sends the counts that changed since the last sync and reads back their shared totals (one statement). */
  sync(): Promise<void> {
    if (this.syncing) {
      // One sync at a time: another one follows this one.
      this.again = true;
      return this.syncing;
    }
    clearTimeout(this.timer);
    this.timer = undefined;
    // Shutting down: the last second's counts go with the process.
    if ((this.pool as pg.Pool & { ending?: boolean }).ending) return Promise.resolve();
    this.toCurrentWindow();
    const batch: LocalCounter[] = [];
    for (const counter of this.queue) {
      counter.queued = false;
      if (counter.unsent === 0) continue;
      counter.sending = counter.unsent;
      counter.unsent = 0;
      batch.push(counter);
    }
    this.queue.clear();
    if (batch.length === 0) return Promise.resolve();
    const window = this.window;
    const resetAt = new Date(window + this.windowMs);
    const started = process.hrtime.bigint();
    const synced = (ok: boolean) => limiterSynced(this.prefix.slice(0, -1), Number(process.hrtime.bigint() - started) / 1e9, ok);
    this.syncing = this.pool
      // The total comes back only when the row is in our window (it is null when another
      // process, a clock ahead, already counts a later one).
      .query<{ key: string; hits: number | null }>(
        `INSERT INTO rate_limit_counters AS c (key, hits, reset_at)
         SELECT key, hits, $3::timestamptz FROM unnest($1::text[], $2::int[]) AS u(key, hits)
         ON CONFLICT (key) DO UPDATE SET
           hits = CASE WHEN c.reset_at < EXCLUDED.reset_at THEN greatest(EXCLUDED.hits, 0)
                       WHEN c.reset_at = EXCLUDED.reset_at THEN greatest(c.hits + EXCLUDED.hits, 0)
                       ELSE c.hits END,
           reset_at = greatest(c.reset_at, EXCLUDED.reset_at)
         RETURNING key, CASE WHEN c.reset_at = $3 THEN c.hits END AS hits`,
        [batch.map((c) => this.prefix + c.key), batch.map((c) => c.sending), resetAt],
      )
      .then(
        ({ rows }) => {
          synced(true);
          this.failing = false;
          const totals = new Map(rows.map((row) => [row.key, row.hits]));
          for (const c of batch) {
            const total = totals.get(this.prefix + c.key);
            if (typeof total === 'number') c.shared = total;
            else c.shared += c.sending;
            c.sending = 0;
            c.unknown = false;
          }
        },
        (error: unknown) => {
          synced(false);
          this.failing = true;
          // Counters of a window that ended meanwhile are forgotten with it.
          const same = window === this.window;
          for (const c of batch) {
            c.unsent += c.sending;
            c.sending = 0;
            if (same) this.enqueue(c);
          }
          this.timer ??= setTimeout(() => void this.sync(), this.syncMs).unref();
          this.options.onError?.(error);
        },
      )
      .finally(() => {
        this.syncing = undefined;
        if (this.again) {
          this.again = false;
          void this.sync();
        }
      });
    return this.syncing;
  }
}

/** Deletes counters whose window ended (any prefix). */
export async function pruneRateLimitCounters(pool: pg.Pool, now: Date): Promise<number> {
  const { rowCount } = await pool.query('DELETE FROM rate_limit_counters WHERE reset_at <= $1', [now]);
  return rowCount ?? 0;
}
