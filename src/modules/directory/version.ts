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

/** Starts listening; resolves once the first version is known (or the first attempt failed). */
export async function watchDirectoryVersion(pool: pg.Pool, options: WatchOptions = {}): Promise<DirectoryVersions> {
  const pollMs = options.pollMs ?? 5_000;
  const maxBackoffMs = options.maxBackoffMs ?? 10_000;
  const log = options.logger;
  let known: bigint = -1n;
  let trusted = false;
  let client: pg.Client | null = null;
  let closed = false;
  let failures = 0;
  let reconnectTimer: NodeJS.Timeout | undefined;
  const listeners = new Set<(change: DirectoryChange) => void>();
  const announce = (change: DirectoryChange) => {
    for (const listener of listeners) {
      try {
        listener(change);
      } catch (error) {
        log?.error({ err: error }, 'a directory change listener failed');
      }
    }
  };

  // Notifications only move forward, one version at a time; a read of the row is the truth (a
  // restored database may have gone back), and on one connection no notification arrives
  // after a newer read. Anything but the next version in order is a gap: everything changed.
  const learn = (change: DirectoryChange, read = false) => {
    if (read ? change.version === known : change.version <= known) return;
    const next = !read && known >= 0n && change.version === known + 1n;
    announce(next ? change : { version: change.version, scope: EVERYTHING });
    known = change.version;
  };

  const readVersion = async (c: pg.Client | pg.Pool): Promise<bigint> => {
    const { rows } = await c.query<{ version: string }>(READ_VERSION);
    return BigInt(rows[0]?.version ?? 0);
  };

  const drop = (reason: unknown) => {
    if (!client) return;
    const dead = client;
    client = null;
    trusted = false;
    dead.removeAllListeners();
    dead.on('error', () => undefined);
    void dead.end().catch(() => undefined);
    if (closed) return;
    failures += 1;
    const delay = Math.min(maxBackoffMs, 100 * 2 ** Math.min(failures, 10));
    if (failures === 1) log?.warn({ err: reason }, 'directory version listener lost; cached answers are bypassed until it is back');
    reconnectTimer = setTimeout(() => void connect(), delay);
    reconnectTimer.unref();
  };

  async function connect(): Promise<void> {
    if (closed || client) return;
    const c = new pg.Client({
      ...pool.options,
      application_name: LISTENER_APPLICATION_NAME,
      query_timeout: 2_000,
      connectionTimeoutMillis: 2_000,
    } as pg.ClientConfig);
    client = c;
    c.on('error', (error) => drop(error));
    c.on('end', () => drop(new Error('connection ended')));
    c.on('notification', (message) => {
      if (message.channel !== VERSION_CHANNEL || !message.payload) return;
      // A payload that is not ours is ignored; the next poll corrects anything missed.
      const change = parseChange(message.payload);
      if (change) learn(change);
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${VERSION_CHANNEL}`);
      // Listening first, then reading: no bump can fall between the two unseen.
      learn({ version: await readVersion(c), scope: EVERYTHING }, true);
      if (client !== c) return;
      trusted = true;
      if (failures > 0) log?.info('directory version listener is back');
      failures = 0;
    } catch (error) {
      drop(error);
    }
  }

  let reading: Promise<void> | undefined;
  let next: Promise<void> | undefined;
  const readNow = async () => {
    const c = client;
    if (!c || !trusted) return;
    await readVersion(c).then(
      (version) => learn({ version, scope: EVERYTHING }, true),
      (error: unknown) => drop(error),
    );
  };

  const poller = setInterval(() => {
    if (!reading) void versions.settle();
  }, pollMs);
  poller.unref();

  await connect();

  const versions: DirectoryVersions = {
    current: () => (trusted ? known : null),
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    settle() {
      // Read on the listening connection itself: any notification sent before the answer
      // arrives first, and the answer is the newest committed version. Callers share reads: one
      // runs at a time, and whoever comes while it runs shares the next one (which starts after
      // their commit), so the connection never has two queries at once.
      if (!reading) {
        reading = readNow().finally(() => (reading = undefined));
        return reading;
      }
      next ??= reading.then(() => {
        next = undefined;
        return versions.settle();
      });
      return next;
    },
    async close() {
      closed = true;
      clearInterval(poller);
      clearTimeout(reconnectTimer);
      const c = client;
      client = null;
      trusted = false;
      if (c) {
        c.removeAllListeners();
        c.on('error', () => undefined);
        await c.end().catch(() => undefined);
      }
    },
  };
  return versions;
}
