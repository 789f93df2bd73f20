// The central error pipeline: every error of an API route becomes problem+json; nothing
// internal (stack, database message) ever reaches a client.
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { HttpProblem, notFoundProblem, sendProblem, type ProblemInit } from '../problem.js';

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

export const apiNotFound: RequestHandler = () => {
  throw notFoundProblem();
};

export function problemErrorHandler(): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    if (error instanceof HttpProblem) {
      sendProblem(res, error.init);
      return;
    }
    const known = error instanceof Error ? fromKnownError(error as BodyParserError) : undefined;
    if (known) {
      sendProblem(res, known);
      return;
    }
    req.log?.error({ err: error }, 'unhandled error');
    sendProblem(res, {
      status: 500,
      code: 'internal-error',
      title: 'Internal server error',
      detail: 'Something went wrong on our side. Retry later with a bounded backoff.',
    });
  };
}
