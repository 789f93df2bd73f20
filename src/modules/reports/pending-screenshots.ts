// Screenshots attached to a contribution form that came back (with errors, or from a merchant
// search without JavaScript) wait here, so nobody has to attach them again: the files in
// DATA_DIR/evidence-pending/<account>/, their description in the person's session (one draft
// per session). The report that is finally accepted adopts them: the files move into
// DATA_DIR/evidence within its transaction. Opening the form afresh discards them.
//
// Concurrent posts of one person would each read the session's draft, write their files and
// save their own draft, the last save winning and the other files belonging to nobody. So every
// change to an account's drafts runs under that account's lock (withDraftLock): the request reads
// its session afresh, deletes the files it replaces, and saves the session before the next
// request of the account goes in (draft-session.ts). The store is bounded per account and in total (PENDING_LIMITS),
// and sweepPending deletes the files no live session refers to (a session that ended, or one
// whose draft another page's save overwrote).
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, rmdir, stat, unlink, utimes } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PrismaClient } from '../../db/client.js';
import {
  discardScreenshots,
  evidenceDir,
  MAX_SCREENSHOT_BYTES,
  MAX_SCREENSHOTS,
  storeScreenshots,
  type CheckedScreenshot,
  type ScreenshotType,
  type StoredScreenshot,
} from '../evidence/screenshots.js';

export interface PendingScreenshot {
  /** Names the screenshot in the form (keep_<id>); not the file's name. */
  id: string;
  /** The file under the pending directory: `<account>/<name>` (a bare name from before accounts had directories). */
  file: string;
  /** The name it had on the person's computer, for the form to show. */
  name: string;
  mediaType: ScreenshotType;
  sizeBytes: number;
  sha256: string;
  storedAt: number;
}

declare module 'express-session' {
  interface SessionData {
    /** Screenshots of the contribution form's draft, kept across its round trips. */
    pendingScreenshots: PendingScreenshot[];
  }
}

type Session = { pendingScreenshots?: PendingScreenshot[] };

export interface PendingLimits {
  /** Files and bytes waiting for one account, across all its sessions. */
  accountFiles: number;
  accountBytes: number;
  /** Files and bytes waiting for everyone together. */
  totalFiles: number;
  totalBytes: number;
}

/**
 * A session's draft holds at most MAX_SCREENSHOTS (the form's rule); an account, two drafts'
 * worth (two browsers), the oldest files of its other drafts making room for a new one; all
 * accounts together, 1 GiB in 2,000 files, beyond which new uploads are not kept.
 */
export const PENDING_LIMITS: Readonly<PendingLimits> = Object.freeze({
  accountFiles: 2 * MAX_SCREENSHOTS,
  accountBytes: 2 * MAX_SCREENSHOTS * MAX_SCREENSHOT_BYTES,
  totalFiles: 2_000,
  totalBytes: 1024 * 1024 * 1024,
});

const PENDING_LIFETIME_MS = 24 * 3600_000;
export const pendingDir = (dataDir: string) => path.join(dataDir, 'evidence-pending');
const locksDir = (dataDir: string) => path.join(pendingDir(dataDir), '.locks');

/** The account's directory name: its id (a UUID), or a digest of anything else. */
function accountKey(accountId: string): string {
  return /^[0-9A-Za-z-]{1,64}$/.test(accountId) ? accountId : createHash('sha256').update(accountId).digest('hex');
}

/** A file's name as the form shows it: no control characters, at most 80 characters (the end kept). */
export function displayName(original: string): string {
  let name = original;
  // Browsers send UTF-8 names; the multipart parser reads them as Latin-1.
  const utf8 = Buffer.from(name, 'latin1').toString('utf8');
  if (!utf8.includes('\uFFFD') && Buffer.from(utf8, 'utf8').toString('latin1') === name) name = utf8;
  // eslint-disable-next-line no-control-regex
  name = name.replace(/[\u0000-\u001F\u007F]/g, '').trim() || 'screenshot';
  return name.length > 80 ? `…${name.slice(-79)}` : name;
}

/** The session's pending screenshots that are still within their lifetime. */
export function pendingOf(session: Session, now: Date): PendingScreenshot[] {
  return (session.pendingScreenshots ?? []).filter((p) => now.getTime() - p.storedAt < PENDING_LIFETIME_MS);
}

export function setPending(session: Session, list: PendingScreenshot[]): void {
  if (list.length > 0) session.pendingScreenshots = list;
  else delete session.pendingScreenshots;
}

/** `<account>/<name>` or `<name>`, never anything outside the pending directory. */
function relativeFile(file: string): string | null {
  const parts = String(file).split('/');
  if (parts.length > 2 || parts.some((part) => !part || part.startsWith('.') || part !== path.basename(part))) return null;
  return parts.join('/');
}

const filePath = (dataDir: string, p: PendingScreenshot) => path.join(pendingDir(dataDir), relativeFile(p.file) ?? '.invalid');

/** Those of the list whose files are still there (another draft of the account may have made room). */
export async function existingPending(dataDir: string, list: readonly PendingScreenshot[]): Promise<PendingScreenshot[]> {
  const present = await Promise.all(list.map((p) => stat(filePath(dataDir, p)).then((info) => info.isFile(), () => false)));
  return list.filter((_, i) => present[i]);
}

export async function discardPending(dataDir: string, list: readonly PendingScreenshot[]): Promise<void> {
  await Promise.all(list.map((p) => unlink(filePath(dataDir, p)).catch(() => undefined)));
}

// Locks: one per account (its drafts) and one for the store's total. A lock is held in this
// process (a queue per lock, so waiting costs no database connection) and across the processes
// that share DATA_DIR, as they share the store (a file created exclusively). A holder refreshes
// its file; a file left by a process that died goes stale and is broken. Real time, not the
// injected clock: this is about processes, not a rule of the service.
const LOCK_STALE_MS = 30_000;
const LOCK_WAIT_MS = 45_000;
const queues = new Map<string, Promise<void>>();

export class DraftLockTimeout extends Error {
  override name = 'DraftLockTimeout';
}

async function lockFile(file: string, wait: boolean): Promise<(() => Promise<void>) | null> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (let delay = 5; ; delay = Math.min(delay * 2, 250)) {
    try {
      await (await open(file, 'wx', 0o600)).close();
      const beat = setInterval(() => {
        const at = new Date();
        void utimes(file, at, at).catch(() => undefined);
      }, LOCK_STALE_MS / 3);
      beat.unref();
      return async () => {
        clearInterval(beat);
        await unlink(file).catch(() => undefined);
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const info = await stat(file).catch(() => null);
    if (info && Date.now() - info.mtimeMs > LOCK_STALE_MS) {
      await unlink(file).catch(() => undefined);
      continue;
    }
    if (!wait) return null;
    if (Date.now() > deadline) throw new DraftLockTimeout('the pending screenshots are locked by another process');
    await sleep(delay);
  }
}

/** Takes the lock (waiting for it, or not at all when `wait` is false): its release, or null. */
async function acquire(file: string, wait: boolean): Promise<(() => Promise<void>) | null> {
  const previous = queues.get(file);
  if (previous && !wait) return null;
  let unlockHere!: () => void;
  const mine = new Promise<void>((resolve) => (unlockHere = resolve));
  const tail = (previous ?? Promise.resolve()).then(() => mine);
  queues.set(file, tail);
  const releaseHere = () => {
    unlockHere();
    if (queues.get(file) === tail) queues.delete(file);
  };
  await previous;
  let releaseFile: (() => Promise<void>) | null;
  try {
    releaseFile = await lockFile(file, wait);
  } catch (error) {
    releaseHere();
    throw error;
  }
  if (!releaseFile) {
    releaseHere();
    return null;
  }
  return async () => {
    await releaseFile();
    releaseHere();
  };
}

async function withLock<T>(file: string, work: () => Promise<T>): Promise<T> {
  const release = (await acquire(file, true))!;
  try {
    return await work();
  } finally {
    await release();
  }
}

const accountLock = (dataDir: string, key: string) => path.join(locksDir(dataDir), `${key}.lock`);

/**
 * Runs `work` as the only change to the account's drafts, here or in another process: read the
 * session afresh inside, and save it before returning. Throws DraftLockTimeout when another
 * process holds the lock for longer than any request should.
 */
export function withDraftLock<T>(dataDir: string, accountId: string, work: () => Promise<T>): Promise<T> {
  return withLock(accountLock(dataDir, accountKey(accountId)), work);
}

interface FileOnDisk {
  /** `<account>/<name>`, or `<name>` at the top. */
  rel: string;
  account: string | null;
  size: number;
  mtimeMs: number;
}

/** Every file in the pending store (not the locks). */
async function filesOnDisk(dataDir: string): Promise<FileOnDisk[]> {
  const root = pendingDir(dataDir);
  const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
  const found: FileOnDisk[] = [];
  await Promise.all(
    entries
      .filter((e) => !e.name.startsWith('.'))
      .map(async (entry) => {
        const names = entry.isDirectory() ? await readdir(path.join(root, entry.name)).catch(() => [] as string[]) : [entry.name];
        for (const name of names) {
          const rel = entry.isDirectory() ? `${entry.name}/${name}` : name;
          const info = await stat(path.join(root, rel)).catch(() => null);
          if (info?.isFile()) found.push({ rel, account: entry.isDirectory() ? entry.name : null, size: info.size, mtimeMs: info.mtimeMs });
        }
      }),
  );
  return found;
}

export const DRAFT_FULL_MESSAGE =
  'Your new screenshots were not kept: there is no room for more screenshots of unsent forms just now. Attach them again when you send the form.';

/**
 * Writes the accepted uploads of a session's new draft into the account's directory, within
 * the bounds: the account's oldest files outside `keep` (its other drafts, or files of a draft
 * that ended) make room; when the total has no room, nothing is written and `refused` says so
 * for the form. Call under withDraftLock, `keep` being what the draft keeps of the session's.
 */
export async function storeDraft(input: {
  dataDir: string;
  accountId: string;
  keep: readonly PendingScreenshot[];
  add: ReadonlyArray<CheckedScreenshot & { name: string }>;
  now: Date;
  limits?: PendingLimits;
}): Promise<{ added: PendingScreenshot[]; refused: string | null }> {
  const { dataDir, add, now } = input;
  const limits = input.limits ?? PENDING_LIMITS;
  if (add.length === 0) return { added: [], refused: null };
  const key = accountKey(input.accountId);
  const needBytes = add.reduce((sum, shot) => sum + shot.size, 0);
  // The total is checked and used in one step: two accounts at once would both see room.
  return withLock(path.join(locksDir(dataDir), 'total.lock'), async () => {
    const files = await filesOnDisk(dataDir);
    const kept = new Set(input.keep.map((p) => relativeFile(p.file)));
    const mine = files.filter((f) => f.account === key);
    const droppable = mine.filter((f) => !kept.has(f.rel)).sort((a, b) => a.mtimeMs - b.mtimeMs || a.rel.localeCompare(b.rel));
    let accountFiles = mine.length + add.length;
    let accountBytes = mine.reduce((sum, f) => sum + f.size, 0) + needBytes;
    const drop: FileOnDisk[] = [];
    while ((accountFiles > limits.accountFiles || accountBytes > limits.accountBytes) && droppable.length > drop.length) {
      const oldest = droppable[drop.length]!;
      drop.push(oldest);
      accountFiles -= 1;
      accountBytes -= oldest.size;
    }
    const totalFiles = files.length - drop.length + add.length;
    const totalBytes = files.reduce((sum, f) => sum + f.size, 0) - drop.reduce((sum, f) => sum + f.size, 0) + needBytes;
    if (accountFiles > limits.accountFiles || accountBytes > limits.accountBytes || totalFiles > limits.totalFiles || totalBytes > limits.totalBytes) {
      return { added: [], refused: DRAFT_FULL_MESSAGE };
    }
    await Promise.all(drop.map((f) => unlink(path.join(pendingDir(dataDir), f.rel)).catch(() => undefined)));
    const stored = await storeScreenshots(dataDir, add, path.join(pendingDir(dataDir), key));
    return {
      added: stored.map((s, i) => ({
        id: randomBytes(9).toString('base64url'),
        file: `${key}/${path.basename(s.storagePath)}`,
        name: displayName(add[i]!.name),
        mediaType: s.mediaType,
        sizeBytes: s.sizeBytes,
        sha256: s.sha256,
        storedAt: now.getTime(),
      })),
      refused: null,
    };
  });
}

/** The files that live sessions' drafts (within their lifetime) refer to. */
async function referencedFiles(prisma: PrismaClient, now: Date): Promise<Set<string>> {
  const rows = await prisma.$queryRaw<Array<{ list: unknown }>>`
    SELECT sess -> 'pendingScreenshots' AS list FROM "session"
    WHERE expire > now() AND sess -> 'pendingScreenshots' IS NOT NULL`;
  const referenced = new Set<string>();
  for (const { list } of rows) {
    if (!Array.isArray(list)) continue;
    for (const p of list as Array<Partial<PendingScreenshot>>) {
      const rel = typeof p?.file === 'string' ? relativeFile(p.file) : null;
      if (rel && typeof p.storedAt === 'number' && now.getTime() - p.storedAt < PENDING_LIFETIME_MS) referenced.add(rel);
    }
  }
  return referenced;
}

/**
 * Deletes the files that no live session refers to: drafts of sessions that ended (signed out,
 * replaced at sign-in, expired) or passed their lifetime, and files a lost session update left
 * behind. An account whose lock is held is left for the next sweep, so a file being written is
 * never taken for an orphan. Returns how many files went.
 */
export async function sweepPending(prisma: PrismaClient, dataDir: string, now: Date): Promise<number> {
  const root = pendingDir(dataDir);
  const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
  if (!entries.some((e) => !e.name.startsWith('.'))) return 0;
  const releases: Array<() => Promise<void>> = [];
  let removed = 0;
  try {
    const swept: string[] = [];
    for (const entry of entries) {
      if (entry.name.startsWith('.') || !entry.isDirectory()) continue;
      const release = await acquire(accountLock(dataDir, entry.name), false);
      if (!release) continue;
      releases.push(release);
      swept.push(entry.name);
    }
    // Read only now: every draft saved by a request that held one of these locks is in it.
    const referenced = await referencedFiles(prisma, now);
    const loose = entries.filter((e) => e.isFile() && !e.name.startsWith('.')).map((e) => e.name);
    const owned = await Promise.all(swept.map(async (key) => (await readdir(path.join(root, key)).catch(() => [] as string[])).map((name) => `${key}/${name}`)));
    for (const rel of [...loose, ...owned.flat()]) {
      if (referenced.has(rel)) continue;
      await unlink(path.join(root, rel)).then(
        () => (removed += 1),
        () => undefined,
      );
    }
    // An empty directory goes while its account's lock is held: no request is writing into it.
    await Promise.all(swept.map((key) => rmdir(path.join(root, key)).catch(() => undefined)));
  } finally {
    await Promise.all(releases.map((release) => release()));
  }
  return removed;
}

const SWEEP_INTERVAL_MS = 60_000;
const lastSweep = new Map<string, number>();

/** sweepPending at most once a minute per process and store: cheap enough for any form request. */
export async function sweepPendingNowAndThen(prisma: PrismaClient, dataDir: string, now: Date): Promise<void> {
  const at = performance.now();
  const last = lastSweep.get(dataDir);
  if (last !== undefined && at - last < SWEEP_INTERVAL_MS) return;
  lastSweep.set(dataDir, at);
  await sweepPending(prisma, dataDir, now);
}

/**
 * Moves pending screenshots into the evidence directory for a report being created: their
 * StoredScreenshot records, and `undo` to move them back when the report is not written.
 * A pending file that is gone (swept) is left out.
 */
export async function adoptPending(
  dataDir: string,
  list: readonly PendingScreenshot[],
): Promise<{ stored: StoredScreenshot[]; undo(): Promise<void> }> {
  const moved: Array<{ from: string; to: string }> = [];
  const stored: StoredScreenshot[] = [];
  if (list.length > 0) await mkdir(evidenceDir(dataDir), { recursive: true, mode: 0o700 });
  for (const p of list) {
    const from = filePath(dataDir, p);
    const to = path.join(evidenceDir(dataDir), path.basename(p.file));
    try {
      await rename(from, to);
    } catch {
      continue;
    }
    moved.push({ from, to });
    stored.push({ storagePath: to, mediaType: p.mediaType, sizeBytes: p.sizeBytes, sha256: p.sha256 });
  }
  return {
    stored,
    async undo() {
      await Promise.all(moved.map(({ from, to }) => rename(to, from).catch(() => discardScreenshots([{ storagePath: to } as StoredScreenshot]))));
    },
  };
}
