// Screenshot evidence from the browser form: checked by content (not by name), stored under
// DATA_DIR/evidence/ with random names, outside any static path. Paths never leave the server.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';

export const MAX_SCREENSHOTS = 3;
export const MAX_SCREENSHOT_BYTES = 5 * 1024 * 1024;
export const SCREENSHOT_TYPES = ['image/png', 'image/jpeg', 'image/webp'] as const;
export type ScreenshotType = (typeof SCREENSHOT_TYPES)[number];

export const evidenceDir = (dataDir: string) => path.join(dataDir, 'evidence');

/** The image type that the bytes are, whatever the file is called. */
export function sniffImageType(bytes: Buffer): ScreenshotType | null {
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.length >= 12 && bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP') return 'image/webp';
  return null;
}

export interface CheckedScreenshot {
  bytes: Buffer;
  mediaType: ScreenshotType;
}

/** Checks each upload; returns the accepted ones, or an error message for the form. */
export function checkScreenshots(files: ReadonlyArray<{ buffer: Buffer; size: number; originalname: string }>):
  | { ok: true; screenshots: CheckedScreenshot[] }
  | { ok: false; error: string } {
  if (files.length > MAX_SCREENSHOTS) return { ok: false, error: `Attach at most ${MAX_SCREENSHOTS} screenshots.` };
  const screenshots: CheckedScreenshot[] = [];
  for (const file of files) {
    if (file.size > MAX_SCREENSHOT_BYTES) return { ok: false, error: `Each screenshot must be at most 5 MB.` };
    const mediaType = sniffImageType(file.buffer);
    if (!mediaType) return { ok: false, error: 'Screenshots must be PNG, JPEG or WebP images.' };
    screenshots.push({ bytes: file.buffer, mediaType });
  }
  return { ok: true, screenshots };
}

const EXTENSIONS: Record<ScreenshotType, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' };

export interface StoredScreenshot {
  storagePath: string;
  mediaType: ScreenshotType;
  sizeBytes: number;
  sha256: string;
}

/**
 * Writes the files (into DATA_DIR/evidence, or `dir`); the caller records them, or removes them
 * with discardScreenshots.
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
      await writeFile(storagePath, shot.bytes, { mode: 0o600, flag: 'wx' });
      stored.push({
        storagePath,
        mediaType: shot.mediaType,
        sizeBytes: shot.bytes.length,
        sha256: createHash('sha256').update(shot.bytes).digest('hex'),
      });
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
