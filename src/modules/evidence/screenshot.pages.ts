// Sends one stored screenshot: for the moderators (/admin/evidence/:id) and for the report's
// author (/reports/:id/screenshots/:screenshotId). Never from a static path: the stored path is
// only a name under DATA_DIR/evidence, so a row cannot point the route at any other file, and
// moving DATA_DIR keeps the files reachable.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Response } from 'express';
import { cacheControl } from '../../web/cache-control.js';
import { evidenceDir } from './screenshots.js';

/** Streams the file; false (nothing sent) when it is no longer on disk. */
export async function sendScreenshot(
  res: Response,
  dataDir: string,
  id: string,
  file: { storagePath: string; mediaType: string },
): Promise<boolean> {
  const filePath = path.join(evidenceDir(dataDir), path.basename(file.storagePath));
  const info = await stat(filePath).catch(() => null);
  if (!info?.isFile()) return false;
  res.set({
    'Content-Type': file.mediaType,
    'Content-Length': String(info.size),
    'Content-Disposition': `inline; filename="screenshot-${id}${path.extname(filePath)}"`,
    'Content-Security-Policy': "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'",
  });
  cacheControl(res, 'no-store');
  await pipeline(createReadStream(filePath), res);
  return true;
}
