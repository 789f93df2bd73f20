// Which directory version this process may serve cached answers for. Every write to a table
// behind the public directory bumps `directory_version` and announces the new number on the
// "directory_version" channel when it commits (migration "directory_version_notify"). One
// connection per process listens, so a new version reaches every process without a query per
// request. A poll on the same connection every `pollMs` bounds how long a silently dropped
// connection could go unnoticed; while the listener is not connected (or a poll failed) the
// version is unknown and callers must not serve anything cached.
//
// Each notification also says what changed (migration "directory_change_scope"): the ids of
// the merchants whose public rows the statement changed, or, for anything else (agents,
// categories, over 200 merchants at once), everything. A statement that changed no public
// value moves no version and sends nothing (migration "directory_version_once_per_change";
// the older payload for it, "<version>:-", is still understood). Versions move one at a time (every bump holds the version row's lock until it
// commits and announces itself), so a listener that sees a gap (a lost connection, a version
// it did not hear announced, a database restored to an older one) reports a change of
// everything: what changed in between is unknown.
import pg from 'pg';
import type { Logger } from '../../logger.js';

const VERSION_CHANNEL = 'directory_version';
/** How the listening connection names itself (pg_stat_activity.application_name). */
export const LISTENER_APPLICATION_NAME = 'acd-directory-version';

/** What one version changed. */
type ChangeScope =
  /** Anything may have changed. */
  | { readonly all: true }
  /** Only these merchants' public rows (their summaries, sponsorship, owner statement); empty: nothing public. */
  | { readonly all?: false; readonly merchants: readonly string[] };

export interface DirectoryChange {
  readonly version: bigint;
  readonly scope: ChangeScope;
}

const EVERYTHING: ChangeScope = { all: true };

/**
 * A notification's payload: `<version>` (everything), `<version>:-` (nothing public) or
 * `<version>:m:<id>,<id>…` (these merchants). Null when it is not one of ours.
 */
export function parseChange(payload: string): DirectoryChange | null {
  const match = /^(\d{1,19})(?::(-|m:([0-9a-f-]{36}(?:,[0-9a-f-]{36})*)))?$/.exec(payload);
  if (!match) return null;
  const version = BigInt(match[1]!);
  if (match[2] === undefined) return { version, scope: EVERYTHING };
  return { version, scope: { merchants: match[3] === undefined ? [] : match[3].split(',') } };
}

export interface DirectoryVersions {
  /** The newest committed version this process knows of, or null while it cannot be sure. */
  current(): bigint | null;
  /**
   * Calls `listener` with each change this process learns of, in version order, before
   * current() names its version; a gap is reported as a change of everything. Returns the
   * function that stops the calls.
   */
  onChange(listener: (change: DirectoryChange) => void): () => void;
  /**
   * Resolves once this process knows a version at least as new as the database's now: a change
   * committed before the call is then never answered from an older cache entry here. When the
   * version cannot be read it becomes unknown (nothing cached is served) until reconnected.
   */
  settle(): Promise<void>;
  close(): Promise<void>;
}

export interface WatchOptions {
  logger?: Logger;
  /** How often the listening connection also reads the version (staleness bound). */
  pollMs?: number;
  /** Longest wait before reconnecting after the connection failed. */
  maxBackoffMs?: number;
}

const READ_VERSION = 'SELECT version FROM directory_version WHERE id = 1';

/** How long a read ahead of the notifications waits for them before it is taken for a gap. */
const NOTIFY_GRACE_MS = 50;

/** Starts listening; resolves once the first version is known (or the first attempt failed). */
export async function watchDirectoryVersion(pool: pg.Pool, options: WatchOptions = {}): Promise<DirectoryVersions> {
  const watcher = new VersionWatcher(pool, options);
  await watcher.connect();
  return watcher;
}

const readVersion = async (c: pg.Client): Promise<bigint> => {
  const { rows } = await c.query<{ version: string }>(READ_VERSION);
  return BigInt(rows[0]?.version ?? 0);
};

/** Lets a connection go: no more events from it, an error while ending is nobody's concern. */
function release(c: pg.Client): Promise<void> {
  c.removeAllListeners();
  c.on('error', () => undefined);
  return c.end().catch(() => undefined);
}

/**
 * One process's watch: the listening connection (reconnected with backoff while it fails), the
 * newest version learned on it, and the poller that reads it every `pollMs`.
 */
class VersionWatcher implements DirectoryVersions {
  private known: bigint = -1n;
  private trusted = false;
  private client: pg.Client | null = null;
  private closed = false;
  private failures = 0;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private readonly listeners = new Set<(change: DirectoryChange) => void>();
  /** The read running on the listening connection, and the one shared by whoever came meanwhile. */
  private reading: Promise<void> | undefined;
  private next: Promise<void> | undefined;
  private readonly maxBackoffMs: number;
  private readonly log: Logger | undefined;
  private readonly poller: NodeJS.Timeout;

  constructor(
    private readonly pool: pg.Pool,
    options: WatchOptions,
  ) {
    const pollMs = options.pollMs ?? 5_000;
    this.maxBackoffMs = options.maxBackoffMs ?? 10_000;
    this.log = options.logger;
    this.poller = setInterval(() => {
      if (!this.reading) void this.settle();
    }, pollMs);
    this.poller.unref();
  }

  current(): bigint | null {
    return this.trusted ? this.known : null;
  }

  onChange(listener: (change: DirectoryChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  settle(): Promise<void> {
    // Read on the listening connection itself: any notification sent before the answer
    // arrives first, and the answer is the newest committed version. Callers share reads: one
    // runs at a time, and whoever comes while it runs shares the next one (which starts after
    // their commit), so the connection never has two queries at once.
    if (!this.reading) {
      this.reading = this.readNow().finally(() => (this.reading = undefined));
      return this.reading;
    }
    this.next ??= this.reading.then(() => {
      this.next = undefined;
      return this.settle();
    });
    return this.next;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.poller);
    clearTimeout(this.reconnectTimer);
    const c = this.client;
    this.client = null;
    this.trusted = false;
    if (c) await release(c);
  }

  /** Opens the listening connection, unless closed or one is open; a failure schedules the next attempt. */
  async connect(): Promise<void> {
    if (this.closed || this.client) return;
    const c = new pg.Client({
      ...this.pool.options,
      application_name: LISTENER_APPLICATION_NAME,
      query_timeout: 2_000,
      connectionTimeoutMillis: 2_000,
    } as pg.ClientConfig);
    this.client = c;
    c.on('error', (error) => this.drop(error));
    c.on('end', () => this.drop(new Error('connection ended')));
    c.on('notification', (message) => this.notified(message));
    try {
      await c.connect();
      await c.query(`LISTEN ${VERSION_CHANNEL}`);
      // Listening first, then reading: no bump can fall between the two unseen.
      this.learn({ version: await readVersion(c), scope: EVERYTHING }, true);
      if (this.client !== c) return;
      this.trusted = true;
      if (this.failures > 0) this.log?.info('directory version listener is back');
      this.failures = 0;
    } catch (error) {
      this.drop(error);
    }
  }

  /** Lets the connection go: the version is unknown until a reconnection, after a backoff, has read it. */
  private drop(reason: unknown): void {
    if (!this.client) return;
    const dead = this.client;
    this.client = null;
    this.trusted = false;
    void release(dead);
    if (this.closed) return;
    this.failures += 1;
    const delay = Math.min(this.maxBackoffMs, 100 * 2 ** Math.min(this.failures, 10));
    if (this.failures === 1) this.log?.warn({ err: reason }, 'directory version listener lost; cached answers are bypassed until it is back');
    this.reconnectTimer = setTimeout(() => void this.connect(), delay);
    this.reconnectTimer.unref();
  }

  private notified(message: pg.Notification): void {
    if (message.channel !== VERSION_CHANNEL || !message.payload) return;
    // A payload that is not ours is ignored; the next poll corrects anything missed.
    const change = parseChange(message.payload);
    if (change) this.learn(change);
  }

  /**
   * Reads the version on the listening connection, once it is connected and has read it first.
   * A read and the notifications can pass each other by a hair. A read can see a version whose
   * notification has not arrived yet (the writer's commit became visible before PostgreSQL
   * signalled the listening backend), and a notification can arrive before its commit is visible
   * to a read (the listener reads the queue as soon as the commit is recorded). Taken for a gap
   * or a database gone back, each was a change of everything: 12 of 100 single-merchant writes
   * while requests settled the version thousands of times a second. So a read behind what was
   * announced is no news, and a read ahead waits up to NOTIFY_GRACE_MS for the notifications it
   * is ahead of; only a version still unannounced then is a gap. (A database restored to an
   * older version is seen when the listener reconnects: `connect` reads the version whole.)
   */
  private async readNow(): Promise<void> {
    const c = this.client;
    if (!c || !this.trusted) return;
    try {
      const version = await readVersion(c);
      if (this.client !== c || version <= this.known) return;
      const deadline = performance.now() + NOTIFY_GRACE_MS;
      while (this.known >= 0n && this.known < version && performance.now() < deadline && this.client === c) {
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      if (this.client === c && this.known < version) this.learn({ version, scope: EVERYTHING }, true);
    } catch (error) {
      this.drop(error);
    }
  }

  // Notifications only move forward, one version at a time; a read of the row is the truth (a
  // restored database may have gone back), and on one connection no notification arrives
  // after a newer read. Anything but the next version in order is a gap: everything changed.
  private learn(change: DirectoryChange, read = false): void {
    if (read ? change.version === this.known : change.version <= this.known) return;
    const inOrder = !read && this.known >= 0n && change.version === this.known + 1n;
    this.announce(inOrder ? change : { version: change.version, scope: EVERYTHING });
    this.known = change.version;
  }

  private announce(change: DirectoryChange): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch (error) {
        this.log?.error({ err: error }, 'a directory change listener failed');
      }
    }
  }
}
