// Validation at the edge: parsed input goes to res.locals (Express 5's req.query is read-only).
import type { RequestHandler } from 'express';
import type { z } from 'zod';
import { validationRefusal } from '../../errors.js';

export function validateQuery<S extends z.ZodType>(schema: S): RequestHandler {
  return (req, res, next) => {
    const result = schema.safeParse(req.query);
    if (!result.success) throw validationRefusal(result.error, 'query');
    res.locals.query = result.data;
    next();
  };
}
