// One bound for a whole request's wait on the database. Each statement is bounded by itself
// (statement_timeout, and the pool's connect and query timeouts), but a request may run several
// one after the other, and code that cleans up after a failure (a refund, a session save) runs
// more: with the database hung, those waits added up to well past DATABASE_TIMEOUT_MS. Here the
// request answers 503 with Retry-After once DATABASE_TIMEOUT_MS has passed, whatever is still
// waiting: counted from its arrival, or for a large body (a form with screenshots) from when
// the body has arrived, since a slow upload is the client's time, not the database's.
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';

/** What a request that outlived its deadline fails with: classified as an outage (503). */
export class RequestDeadlineError extends Error {
  readonly code = 'ETIMEDOUT';
  constructor(readonly ms: number) {
    super(`The request waited on the database for longer than ${ms} ms`);
    this.name = 'RequestDeadlineError';
  }
}

const ANSWERED = Symbol('answered by the deadline');

/** Whether the request's deadline gave its answer (whatever the request's own work does later). */
export const answeredByDeadline = (res: Response): boolean => (res.locals as Record<symbol, unknown>)[ANSWERED] === true;

/** Bodies up to this size (every JSON body: at most 16 KB) arrive with the request itself. */
const SMALL_BODY_BYTES = 64 * 1024;
const largeBody = (req: Request) =>
  req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > SMALL_BODY_BYTES;

/** What the request's own work may still call to answer; the deadline's answer went out instead. */
const ANSWERING = ['send', 'json', 'jsonp', 'render', 'redirect', 'sendFile', 'sendStatus', 'end', 'write', 'writeHead'] as const;

/**
 * Makes every later attempt to answer a no-op (logged once): a page that finishes rendering
 * after the deadline would otherwise throw "headers already sent" outside any handler. The
 * deadline's own answer is complete when this runs (error pages render synchronously), and a
 * compressed one finishes through the compression stream's own reference to `end`.
 */
function silence(req: Request, res: Response): void {
  let told = false;
  const dropped = function (this: Response) {
    if (!told) req.log?.warn('an answer came after the deadline had answered; dropped');
    told = true;
    return res;
  };
  for (const method of ANSWERING) Object.defineProperty(res, method, { value: dropped, configurable: true, writable: true });
}

/**
 * After `ms`, a request that has not begun its answer gets the 503 its audience's error handler
 * gives an outage. The work still running finishes on its own: its answer is then dropped (a
 * submission it committed is recognised when retried: an identical one answers 200 unchanged).
 */
export function requestDeadline(ms: number, fail: ErrorRequestHandler, exempt: (req: Request) => boolean = () => false): RequestHandler {
  return (req, res, next) => {
    if (exempt(req)) return next();
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      timer = setTimeout(() => {
        if (res.headersSent || res.writableEnded) return;
        (res.locals as Record<symbol, unknown>)[ANSWERED] = true;
        fail(new RequestDeadlineError(ms), req, res, () => undefined);
        silence(req, res);
      }, ms);
      timer.unref();
    };
    const disarm = () => clearTimeout(timer);
    res.once('finish', disarm);
    res.once('close', disarm);
    if (largeBody(req) && !req.complete) req.once('end', arm);
    else arm();
    next();
  };
}
