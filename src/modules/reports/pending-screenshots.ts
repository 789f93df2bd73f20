// Screenshots attached to a contribution form that came back (with errors, or from a merchant
// search without JavaScript) wait here, so nobody has to attach them again: the files in
// DATA_DIR/evidence-pending/, their description in the person's session (one draft per
// session). The report that is finally accepted adopts them: the files move into
// DATA_DIR/evidence within its transaction. Opening the form afresh discards them; files of a
// draft nobody came back to (a session that ended) are swept after a day.
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import {
  discardScreenshots,
  evidenceDir,
  storeScreenshots,
  type CheckedScreenshot,
  type ScreenshotType,
  type StoredScreenshot,
} from '../evidence/screenshots.js';

export interface PendingScreenshot {
  /** Names the screenshot in the form (keep_<id>); not the file's name. */
  id: string;
  /** The file's name in the pending directory. */
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

export const PENDING_LIFETIME_MS = 24 * 3600_000;
export const pendingDir = (dataDir: string) => path.join(dataDir, 'evidence-pending');

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

const filePath = (dataDir: string, p: PendingScreenshot) => path.join(pendingDir(dataDir), path.basename(p.file));

/** Writes accepted uploads to the pending directory (and sweeps files older than a day). */
export async function storePending(
  dataDir: string,
  shots: ReadonlyArray<CheckedScreenshot & { name: string }>,
  now: Date,
): Promise<PendingScreenshot[]> {
  if (shots.length === 0) return [];
  await sweepPending(dataDir, now).catch(() => undefined);
  const stored = await storeScreenshots(dataDir, shots, pendingDir(dataDir));
  return stored.map((s, i) => ({
    id: randomBytes(9).toString('base64url'),
    file: path.basename(s.storagePath),
    name: displayName(shots[i]!.name),
    mediaType: s.mediaType,
    sizeBytes: s.sizeBytes,
    sha256: s.sha256,
    storedAt: now.getTime(),
  }));
}

export async function discardPending(dataDir: string, list: readonly PendingScreenshot[]): Promise<void> {
  await Promise.all(list.map((p) => unlink(filePath(dataDir, p)).catch(() => undefined)));
}

/** Files in the pending directory older than a day: drafts nobody came back to. */
export async function sweepPending(dataDir: string, now: Date): Promise<void> {
  const dir = pendingDir(dataDir);
  const names = await readdir(dir).catch(() => [] as string[]);
  await Promise.all(
    names.map(async (name) => {
      const info = await stat(path.join(dir, name)).catch(() => null);
      if (info?.isFile() && now.getTime() - info.mtimeMs > PENDING_LIFETIME_MS) await unlink(path.join(dir, name)).catch(() => undefined);
    }),
  );
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
