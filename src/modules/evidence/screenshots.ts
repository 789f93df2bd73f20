// Screenshot evidence from the browser form: checked by content (not by name), stored under
// DATA_DIR/evidence/ with random names, outside any static path. Paths never leave the server.
import { createHash, randomBytes } from 'node:crypto';
import { constants, createReadStream } from 'node:fs';
import { chmod, copyFile, mkdir, open, readdir, stat, unlink } from 'node:fs/promises';
import path from 'node:path';

export const MAX_SCREENSHOTS = 3;
export const MAX_SCREENSHOT_BYTES = 5 * 1024 * 1024;
export type ScreenshotType = 'image/png' | 'image/jpeg' | 'image/webp';

export const evidenceDir = (dataDir: string) => path.join(dataDir, 'evidence');
/** Where the multipart parser streams uploads while their request runs (web/middleware/uploads.ts). */
export const uploadsDir = (dataDir: string) => path.join(dataDir, 'uploads');

/** Older than this, an upload belongs to no live request (REQUEST_TIMEOUT_MS, then DATABASE_TIMEOUT_MS, are far shorter). */
const ABANDONED_UPLOAD_MS = 60 * 60 * 1000;

/** Deletes uploads left by a process that died mid-request (older than an hour, by the real clock). Returns how many. */
export async function sweepAbandonedUploads(dataDir: string, now = Date.now()): Promise<number> {
  const dir = uploadsDir(dataDir);
  let removed = 0;
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const file = path.join(dir, name);
    const modified = await stat(file).then(
      (s) => s.mtimeMs,
      () => now,
    );
    if (now - modified < ABANDONED_UPLOAD_MS) continue;
    await unlink(file).then(
      () => (removed += 1),
      () => undefined,
    );
  }
  return removed;
}

/** The image type that the bytes are, whatever the file is called. */
function sniffImageType(bytes: Buffer): ScreenshotType | null {
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.length >= 12 && bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP') return 'image/webp';
  return null;
}

/** The image type of the file's first bytes, whatever the file is called. */
export async function sniffImageFile(file: string): Promise<ScreenshotType | null> {
  const handle = await open(file, 'r');
  try {
    const head = Buffer.alloc(12);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return sniffImageType(head.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}

/** An upload that is an accepted image: its file on disk (the request's, web/middleware/uploads.ts). */
export interface CheckedScreenshot {
  file: string;
  size: number;
  mediaType: ScreenshotType;
}

const EXTENSIONS: Record<ScreenshotType, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' };

export interface StoredScreenshot {
  storagePath: string;
  mediaType: ScreenshotType;
  sizeBytes: number;
  sha256: string;
}

/** The SHA-256 (hex) of a file, read as a stream. */
async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * Copies the uploads (into DATA_DIR/evidence, or `dir`) under new random names; the caller
 * records them, or removes them with discardScreenshots. The uploads themselves stay where they
 * are (the request deletes them when it is done), so a failed save can still keep them as a
 * draft. A copy, not a rename: a clone where the file system can (COPYFILE_FICLONE).
 */
export async function storeScreenshots(
  dataDir: string,
  screenshots: readonly CheckedScreenshot[],
  dir: string = evidenceDir(dataDir),
): Promise<StoredScreenshot[]> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const stored: StoredScreenshot[] = [];
  try {
    for (const shot of screenshots) {
      const storagePath = path.join(dir, `${randomBytes(18).toString('base64url')}.${EXTENSIONS[shot.mediaType]}`);
      await copyFile(shot.file, storagePath, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
      const record = { storagePath, mediaType: shot.mediaType, sizeBytes: shot.size, sha256: '' };
      stored.push(record);
      await chmod(storagePath, 0o600);
      record.sha256 = await sha256Of(storagePath);
    }
  } catch (error) {
    await discardScreenshots(stored);
    throw error;
  }
  return stored;
}

export async function discardScreenshots(stored: readonly StoredScreenshot[]): Promise<void> {
  await Promise.all(stored.map((s) => unlink(s.storagePath).catch(() => undefined)));
}
