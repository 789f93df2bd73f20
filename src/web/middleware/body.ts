// JSON bodies of the contribution and automation endpoints: read only after the request is
// authenticated and counted, so that a refused body (413, malformed JSON) carries no-store and
// the RateLimit headers like every other private answer.
import express, { type RequestHandler } from 'express';
import type { z } from 'zod';
import { validationRefusal } from '../../errors.js';
import { HttpProblem } from '../problem.js';

/** 415 for anything but application/json (checked before the body is looked at). */
export const requireJson: RequestHandler = (req, _res, next) => {
  if (req.is('application/json')) {
    next();
    return;
  }
  throw new HttpProblem({
    status: 415,
    code: 'unsupported-media-type',
    title: 'Unsupported media type',
    detail: 'Send the body as application/json.',
    headers: { 'Accept-Post': 'application/json' },
  });
};

/** Largest accepted JSON body (spec section 8). */
export const MAX_JSON_BODY_BYTES = 16_384;

/** Parses an application/json body of at most MAX_JSON_BODY_BYTES (413 beyond, 400 when malformed). */
export const parseJson: RequestHandler = express.json({ limit: MAX_JSON_BODY_BYTES, type: 'application/json', strict: true });

export function validateBody<S extends z.ZodType>(schema: S): RequestHandler {
  return (req, res, next) => {
    const result = schema.safeParse(req.body);
    if (!result.success) throw validationRefusal(result.error, 'body');
    res.locals.body = result.data;
    next();
  };
}
