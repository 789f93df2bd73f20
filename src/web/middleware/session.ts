// Browser sessions: express-session over the `session` table (created by our migrations), so
// several app processes share them.
import type { Request, RequestHandler } from 'express';
import session from 'express-session';
import connectPgSimple from 'connect-pg-simple';
import type pg from 'pg';
import type { Config } from '../../config/env.js';

declare module 'express-session' {
  interface SessionData {
    accountId: string;
    csrfToken: string;
    /** A freshly issued key, shown exactly once on the next page view. */
    revealKey: { key: string; agentName: string };
  }
}

export const SESSION_COOKIE = 'acd.sid';

/** Whether the request carries our session cookie at all (valid or not). */
export const hasSessionCookie = (req: Request): boolean =>
  (req.headers.cookie ?? '').split(';').some((c) => c.trim().startsWith(`${SESSION_COOKIE}=`));
const SESSION_MAX_AGE_MS = 30 * 24 * 60 * 60 * 1000;
/** A session begun only for a form's CSRF token (nobody signed in) lives this long. */
export const ANONYMOUS_SESSION_MAX_AGE_MS = 2 * 60 * 60 * 1000;

export function sessionMiddleware(pool: pg.Pool, config: Config): RequestHandler {
  const PgStore = connectPgSimple(session);
  const middleware = session({
    name: SESSION_COOKIE,
    secret: config.sessionSecret,
    store: new PgStore({ pool, tableName: 'session', createTableIfMissing: false, pruneSessionInterval: 15 * 60 }),
    resave: false,
    saveUninitialized: false,
    rolling: true,
    proxy: config.trustProxy !== false,
    cookie: {
      httpOnly: true,
      sameSite: 'lax',
      secure: config.secureCookies,
      maxAge: SESSION_MAX_AGE_MS,
      path: '/',
    },
  });
  // express-session saves a changed session when the response ends and reports a failed save
  // by calling next(error) once more, after the response has begun. Express's final handler
  // would then destroy the socket and cut the response short (a compressed body is still in
  // zlib), so such a late failure is logged instead: the response itself is complete.
  return (req, res, next) => {
    let passed = false;
    void middleware(req, res, (error?: unknown) => {
      if (!passed) {
        passed = true;
        next(error);
        return;
      }
      if (error) req.log?.error({ err: error }, 'the session could not be saved after the response');
    });
  };
}
