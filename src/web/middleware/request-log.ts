// One log line per request (method, redacted URL, status, time), a request id echoed in
// X-Request-Id, and `req.log` for handlers. pino-http did this too, but built a child logger
// and serialized the request on every request even when nothing was logged: about 35 µs of a
// public read that the response cache answers in well under 100 µs. Here the child logger is
// made only when a handler asks for it.
import { randomUUID } from 'node:crypto';
import type { Express, Request, RequestHandler, Response } from 'express';
import type { Logger } from '../../logger.js';
import { accessLogger, redactUrl } from '../../logger.js';

declare module 'express-serve-static-core' {
  interface Request {
    /** The request id (X-Request-Id). */
    id: string;
    /** A logger whose lines carry the request id. */
    log: Logger;
  }
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
const QUIET_PATHS = new Set(['/healthz', '/readyz']);

const childLogger = Symbol('request logger');

/**
 * Whether an answer that its handler had not ended had nevertheless handed the socket all of
 * its declared Content-Length (after its header): a client that has every byte it was promised
 * may close the connection at once, before a streaming writer (hono's, under the MCP SDK; a
 * file being sent) calls end(). Such an answer was complete, not aborted.
 */
function wholeBodyWritten(req: Request, res: Response, sentBefore: number): boolean {
  const declared = Number(res.getHeader('content-length'));
  const header = (res as Response & { _header?: string | null })._header;
  if (!res.headersSent || !Number.isInteger(declared) || typeof header !== 'string') return false;
  return req.socket.bytesWritten - sentBefore >= Buffer.byteLength(header, 'latin1') + declared;
}

/** The request's id: the caller's X-Request-Id when it is a plain token that does not look like an agent key, else a new one. */
export function requestIdOf(req: Request): string {
  const incoming = req.headers['x-request-id'];
  // A caller's id is echoed and logged: never one that looks like an agent key.
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) && !/acd_/i.test(incoming) ? incoming : randomUUID();
}

/**
 * The log line of an answer the response cache's front door gave (app.ts): the same line as
 * the middleware's, written once the answer was handed to the socket (it was whole by then).
 */
export function logAnswered(logger: Logger): (req: Request, statusCode: number, id: string, started: number) => void {
  const access = accessLogger(logger);
  return (req, statusCode, id, started) => {
    if (!access.isLevelEnabled('info')) return;
    access.info(
      // Before the router, req.url is the target as sent (the router sets originalUrl to it).
      { req: { id, method: req.method, url: redactUrl(req.url) }, res: { statusCode }, responseTime: Math.round(performance.now() - started) },
      'request completed',
    );
  };
}

/** Installs the request log on `app` (its request prototype gets a lazy `log`). */
export function requestLog(logger: Logger, app: Express): RequestHandler {
  // Defined once on the app's request prototype rather than on every request.
  Object.defineProperty(app.request, 'log', {
    configurable: true,
    get(this: Request & { [childLogger]?: Logger }) {
      return (this[childLogger] ??= logger.child({ reqId: this.id }));
    },
  });
  const access = accessLogger(logger);
  return (req, res, next) => {
    const started = performance.now();
    const id = requestIdOf(req);
    req.id = id;
    res.setHeader('X-Request-Id', id);
    if (!QUIET_PATHS.has(req.url)) {
      const sentBefore = req.socket.bytesWritten;
      res.once('close', () => {
        const finished = res.writableEnded || wholeBodyWritten(req, res, sentBefore);
        // A client's mistake or a refusal (4xx, 429 included) is routine: only failures and
        // answers cut short warn.
        const level = res.statusCode >= 500 ? 'error' : finished ? 'info' : 'warn';
        if (!access.isLevelEnabled(level)) return;
        access[level](
          {
            req: { id, method: req.method, url: redactUrl(req.originalUrl) },
            res: { statusCode: res.statusCode },
            responseTime: Math.round(performance.now() - started),
          },
          finished ? 'request completed' : 'request aborted',
        );
      });
    }
    next();
  };
}
