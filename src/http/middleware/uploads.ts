// Screenshots arrive as multipart forms, parsed into memory only on the routes that take them
// (after the Origin check and the sign-in, before the CSRF check, which needs the form's
// fields). Upload limits become a form error; a body that is not valid multipart is a 400.
import type { RequestHandler } from 'express';
import multer from 'multer';
import { MAX_SCREENSHOT_BYTES, MAX_SCREENSHOTS } from '../../modules/evidence/screenshots.js';
import { HttpProblem } from '../problem.js';

const parse = multer({
  storage: multer.memoryStorage(),
  limits: { fileSize: MAX_SCREENSHOT_BYTES, files: MAX_SCREENSHOTS, fields: 50, fieldSize: 16_384, parts: 60 },
}).fields([{ name: 'screenshots', maxCount: MAX_SCREENSHOTS }]);

export const screenshotUpload: RequestHandler = (req, res, next) => {
  if (!req.is('multipart/form-data')) return next();
  parse(req, res, (error?: unknown) => {
    if (error instanceof multer.MulterError) {
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
