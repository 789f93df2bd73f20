// Rate-limit counters in PostgreSQL, so every app process shares them (express-rate-limit's
// Store interface). Two stores: the exact one writes one upsert per counted use (quotas,
// per-account limits); the synced one counts in memory and adds its counts to PostgreSQL in
// batches, so that a public read writes nothing (per-address limits).
import { createHash } from 'node:crypto';
import type { Options, Store, ClientRateLimitInfo } from 'express-rate-limit';
import type pg from 'pg';
import type { Clock } from '../../clock.js';

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
  /** Start of the counter's window (ms since the epoch, a multiple of windowMs). */
  window: number;
  /** Hits counted here and not yet sent. */
  unsent: number;
  /** Hits being sent now. */
  sending: number;
  /** The shared total (every process's hits, ours included) at the last sync. */
  shared: number;
  /** The partition key of the RateLimit headers, hashed once per key and window. */
  partition: string;
}

/** The `pk` of draft-8 RateLimit headers, as express-rate-limit computes it. */
export const partitionKey = (key: string) =>
  Buffer.from(createHash('sha256').update(key).digest('hex').slice(0, 12)).toString('base64');

export interface SyncOptions {
  /** Longest time between two syncs while there is something to send (default 1 s). */
  syncMs?: number;
  /** Hits of one key that trigger a sync at once (default a tenth of the limit, at least 1). */
  flushAt?: number;
  onError?: (error: unknown) => void;
}

/**
 * A per-process first line over the shared counters. Each process counts in memory and, at
 * most `syncMs` after a hit (at once when one key has `flushAt` unsent hits), adds all its
 * unsent counts in one statement and reads back the shared totals. Windows are aligned to
 * multiples of windowMs, so every process agrees on them without asking.
 *
 * Error bound: a process knows the other processes' hits up to its last sync, and never counts
 * fewer than its own. With P processes, a client spreading requests over all of them gets at
 * most limit + (P - 1) x (flushAt + the hits one process takes during one sync round trip)
 * through in a window, and with one process the count is exact. When the database does not
 * answer, counts stay in memory (each process still enforces the limit alone) and are sent
 * with the next sync that succeeds.
 */
export class SyncedRateLimitStore implements Store {
  readonly localKeys = false;
  prefix: string;
  private windowMs = 60_000;
  private flushAt: number;
  private readonly syncMs: number;
  private readonly counters = new Map<string, LocalCounter>();
  private timer: NodeJS.Timeout | undefined;
  private syncing: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly clock: Clock,
    prefix: string,
    private readonly options: SyncOptions = {},
  ) {
    this.prefix = `${prefix}:`;
    this.syncMs = options.syncMs ?? 1_000;
    this.flushAt = options.flushAt ?? 1;
  }

  init(options: Options): void {
    this.windowMs = options.windowMs;
    if (this.options.flushAt === undefined && typeof options.limit === 'number') {
      this.flushAt = Math.max(1, Math.ceil(options.limit / 10));
    }
  }

  private counter(key: string, create: boolean): LocalCounter | undefined {
    const window = Math.floor(this.clock.now().getTime() / this.windowMs) * this.windowMs;
    let counter = this.counters.get(key);
    if (counter && counter.window !== window) {
      // Hits of an ended window that were never sent no longer matter.
      this.counters.delete(key);
      counter = undefined;
    }
    if (!counter && create) {
      counter = { window, unsent: 0, sending: 0, shared: 0, partition: partitionKey(key) };
      this.counters.set(key, counter);
    }
    return counter;
  }

  private info(counter: LocalCounter): ClientRateLimitInfo {
    return {
      totalHits: Math.max(0, counter.shared + counter.sending + counter.unsent),
      resetTime: new Date(counter.window + this.windowMs),
    };
  }

  async get(key: string): Promise<ClientRateLimitInfo | undefined> {
    return this.count(key);
  }

  /** This window's count for `key` as this process knows it, at once (no I/O). */
  count(key: string): (ClientRateLimitInfo & { resetTime: Date }) | undefined {
    const counter = this.counter(key, false);
    return counter ? { ...this.info(counter), resetTime: new Date(counter.window + this.windowMs) } : undefined;
  }

  async increment(key: string): Promise<ClientRateLimitInfo> {
    return this.hit(key);
  }

  /** Counts one hit, at once (no I/O); its partition key is in `partition`. */
  hit(key: string): ClientRateLimitInfo & { resetTime: Date; partition: string } {
    const counter = this.counter(key, true)!;
    counter.unsent += 1;
    if (counter.unsent >= this.flushAt) void this.sync();
    else this.timer ??= setTimeout(() => void this.sync(), this.syncMs).unref();
    return { ...this.info(counter), resetTime: new Date(counter.window + this.windowMs), partition: counter.partition };
  }

  async decrement(key: string): Promise<void> {
    const counter = this.counter(key, false);
    if (!counter) return;
    counter.unsent -= 1;
    this.timer ??= setTimeout(() => void this.sync(), this.syncMs).unref();
  }

  async resetKey(key: string): Promise<void> {
    this.counters.delete(key);
    await this.pool.query('DELETE FROM rate_limit_counters WHERE key = $1', [this.prefix + key]);
  }

  /** Sends every unsent count and reads back the shared totals (one statement). */
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
    const batch = [...this.counters].filter(([, c]) => c.unsent !== 0);
    if (batch.length === 0) return Promise.resolve();
    for (const [, c] of batch) {
      c.sending = c.unsent;
      c.unsent = 0;
    }
    this.syncing = this.pool
      .query<{ key: string; hits: number; reset_at: Date }>(
        `INSERT INTO rate_limit_counters AS c (key, hits, reset_at)
         SELECT * FROM unnest($1::text[], $2::int[], $3::timestamptz[])
         ON CONFLICT (key) DO UPDATE SET
           hits = CASE WHEN c.reset_at < EXCLUDED.reset_at THEN greatest(EXCLUDED.hits, 0)
                       WHEN c.reset_at = EXCLUDED.reset_at THEN greatest(c.hits + EXCLUDED.hits, 0)
                       ELSE c.hits END,
           reset_at = greatest(c.reset_at, EXCLUDED.reset_at)
         RETURNING key, hits, reset_at`,
        [
          batch.map(([key]) => this.prefix + key),
          batch.map(([, c]) => c.sending),
          batch.map(([, c]) => new Date(c.window + this.windowMs)),
        ],
      )
      .then(
        ({ rows }) => {
          const totals = new Map(rows.map((row) => [row.key, row]));
          for (const [key, c] of batch) {
            const row = totals.get(this.prefix + key);
            if (row && row.reset_at.getTime() === c.window + this.windowMs) c.shared = row.hits;
            else c.shared += c.sending;
            c.sending = 0;
          }
        },
        (error: unknown) => {
          for (const [, c] of batch) {
            c.unsent += c.sending;
            c.sending = 0;
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
