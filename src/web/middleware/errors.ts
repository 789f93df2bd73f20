// The central error pipeline: every error of an API route becomes problem+json; nothing
// internal (stack, database message) ever reaches a client.
import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';
import { isDataException, isDatabaseUnavailable } from '../../db/errors.js';
import { answeredByDeadline, RequestDeadlineError } from './deadline.js';
import { notFound, Refusal } from '../../errors.js';
import { HttpProblem, problemOf, sendProblem, type ProblemInit } from '../problem.js';

interface BodyParserError extends Error {
  type?: string;
  status?: number;
  limit?: number;
}

// body-parser and Express attach `type`/`status` to the errors they raise.
function fromKnownError(error: BodyParserError): ProblemInit | undefined {
  switch (error.type) {
    case 'entity.too.large':
      return {
        status: 413,
        code: 'payload-too-large',
        title: 'Request body too large',
        detail: `The request body must be at most ${error.limit ?? 16384} bytes.`,
      };
    case 'entity.parse.failed':
      return {
        status: 400,
        code: 'malformed-json',
        title: 'Malformed JSON',
        detail: 'The request body is not valid JSON.',
      };
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return {
        status: 415,
        code: 'unsupported-media-type',
        title: 'Unsupported media type',
        detail: 'The request body must be UTF-8 encoded application/json.',
      };
    case 'request.aborted':
      return { status: 400, code: 'request-aborted', title: 'Request aborted' };
    default:
      return undefined;
  }
}

/** Seconds a client should wait before retrying while the database is unavailable. */
const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

export interface ClassifiedError {
  problem: ProblemInit;
  /** How the error deserves to be logged; nothing for the client's own mistakes. */
  log?: 'warn' | 'error';
}

/**
 * What any error means for the client: its own mistake (4xx, named), an outage it can wait
 * out (503 with Retry-After), or our bug (500). Shared by the API's problem+json and the pages.
 */
export function classifyError(error: unknown): ClassifiedError {
  if (error instanceof HttpProblem) return { problem: error.init };
  if (error instanceof Refusal) return { problem: problemOf(error) };
  const known = error instanceof Error ? fromKnownError(error as BodyParserError) : undefined;
  if (known) return { problem: known };
  const status = (error as { status?: unknown; statusCode?: unknown } | null)?.status ?? (error as { statusCode?: unknown } | null)?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const decoding = error instanceof URIError || /decode param/i.test(String((error as Error).message));
    return {
      problem: {
        status,
        code: decoding ? 'malformed-path' : 'bad-request',
        title: decoding ? 'Malformed path' : 'Bad request',
        detail: decoding
          ? 'The path contains malformed percent-encoding.'
          : 'The request could not be read. Check its encoding, content type and body.',
      },
    };
  }
  if (isDatabaseUnavailable(error)) {
    return {
      log: 'error',
      problem: {
        status: 503,
        code: 'service-unavailable',
        title: 'Service unavailable',
        detail: `The directory's database is not answering. Retry after ${UNAVAILABLE_RETRY_AFTER_SECONDS} seconds; a retried submission is recognised (an identical one answers 200 unchanged).`,
        headers: { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_SECONDS) },
      },
    };
  }
  if (isDataException(error)) {
    return {
      log: 'warn',
      problem: {
        status: 400,
        code: 'invalid-input',
        title: 'Invalid input',
        detail: 'A value in the request cannot be stored or searched for (for example a NUL character or a date out of range).',
      },
    };
  }
  return {
    log: 'error',
    problem: {
      status: 500,
      code: 'internal-error',
      title: 'Internal server error',
      detail: 'Something went wrong on our side. Retry later with a bounded backoff.',
    },
  };
}

export const apiNotFound: RequestHandler = () => {
  throw notFound();
};

/**
 * True when the answer has begun, so an error can no longer change it. A complete answer, or
 * one its deadline gave (a 503 while the request's own work went on), stays as it went out:
 * the error is logged, and the connection is kept for the client to read it. A half-sent one
 * goes on to Express, which cuts the connection.
 */
export function answeredAlready(error: unknown, req: Request, res: Response, next: NextFunction): boolean {
  if (error instanceof RequestDeadlineError || (!res.headersSent && !answeredByDeadline(res))) return false;
  if (res.writableEnded || answeredByDeadline(res)) req.log?.warn({ err: error }, 'failed after its answer was given');
  else next(error);
  return true;
}

export function problemErrorHandler(): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (answeredAlready(error, req, res, next)) return;
    const { problem, log } = classifyError(error);
    if (log) req.log?.[log]({ err: error }, problem.status >= 500 ? 'request failed' : 'input refused by the database');
    sendProblem(res, problem);
  };
}
