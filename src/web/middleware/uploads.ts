// Screenshots arrive as multipart forms, parsed only on the routes that take them (after the
// Origin check and the sign-in, before the CSRF check, which needs the form's fields). Each file
// is streamed to disk as it arrives (DATA_DIR/uploads, multer's disk storage), never held in
// memory: 30 concurrent forms of three 5 MB files took the process from 276 MB to 805 MB when
// they were buffered, before any check and before the per-account lock. The handler copies the
// files it keeps; whatever is left goes when the answer is done. Upload limits become a form
// error; a body that is not valid multipart is a 400.
import { randomBytes } from 'node:crypto';
import { mkdir, unlink } from 'node:fs/promises';
import type { Request, RequestHandler } from 'express';
import multer from 'multer';
import { MAX_SCREENSHOT_BYTES, MAX_SCREENSHOTS, uploadsDir } from '../../modules/evidence/screenshots.js';
import { HttpProblem } from '../problem.js';

/**
 * Uploads of a request whose client went away while it ran are deleted this long after (its
 * handler may still be copying them); the upkeep deletes those of a process that died.
 */
const LATE_DISCARD_MS = 60_000;

function uploadedFiles(req: Request): Express.Multer.File[] {
  const files = req.files as Record<string, Express.Multer.File[]> | Express.Multer.File[] | undefined;
  if (!files) return [];
  return Array.isArray(files) ? files : Object.values(files).flat();
}

const discard = (files: readonly Express.Multer.File[]) => Promise.all(files.map((f) => unlink(f.path).catch(() => undefined)));

/** The multipart parser of the routes that take screenshots, writing into DATA_DIR/uploads. */
export function screenshotUploads(dataDir: string): RequestHandler {
  const dir = uploadsDir(dataDir);
  const parse = multer({
    storage: multer.diskStorage({
      destination: (_req, _file, done) => {
        mkdir(dir, { recursive: true, mode: 0o700 }).then(
          () => done(null, dir),
          (error: Error) => done(error, dir),
        );
      },
      filename: (_req, _file, done) => done(null, `${randomBytes(18).toString('base64url')}.upload`),
    }),
    limits: { fileSize: MAX_SCREENSHOT_BYTES, files: MAX_SCREENSHOTS, fields: 50, fieldSize: 16_384, parts: 60 },
  }).fields([{ name: 'screenshots', maxCount: MAX_SCREENSHOTS }]);

  return (req, res, next) => {
    if (!req.is('multipart/form-data')) return next();
    // The answer is done: the files the handler kept are copies, the uploads go. A client that
    // left before its answer leaves the handler running: its files go a minute later.
    res.once('close', () => {
      const files = uploadedFiles(req);
      if (files.length === 0) return;
      if (res.writableEnded) void discard(files);
      else setTimeout(() => void discard(files), LATE_DISCARD_MS).unref();
    });
    parse(req, res, (error?: unknown) => {
      if (error instanceof multer.MulterError) {
        // multer has deleted what it had written of the refused upload.
        res.locals.uploadError =
          error.code === 'LIMIT_FILE_SIZE'
            ? 'Each screenshot must be at most 5 MB.'
            : error.code === 'LIMIT_FILE_COUNT' || error.code === 'LIMIT_UNEXPECTED_FILE'
              ? `Attach at most ${MAX_SCREENSHOTS} screenshots.`
              : 'The upload could not be read.';
        req.body ??= {};
        return next();
      }
      if (error) {
        next(
          new HttpProblem({
            status: 400,
            code: 'malformed-form',
            title: 'The form could not be read',
            detail: 'The form arrived incomplete or malformed. Go back, and send it again.',
          }),
        );
        return;
      }
      next();
    });
  };
}
