// JSON bodies of the contribution and automation endpoints.
import type { RequestHandler } from 'express';
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

export function validateBody<S extends z.ZodType>(schema: S): RequestHandler {
  return (req, res, next) => {
    const result = schema.safeParse(req.body);
    if (!result.success) throw validationRefusal(result.error, 'body');
    res.locals.body = result.data;
    next();
  };
}
