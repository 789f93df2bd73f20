// A request target in absolute form (`GET http://host/path?query HTTP/1.1`) is legal HTTP/1.1
// (RFC 9112 3.2.2: a server must accept it) and Express routes it by its path, but everything
// built from `req.originalUrl` (Link headers, the response cache's key, redirects to sign-in,
// the log) took the scheme and host along: the links read `<http://directory.testhttp://...>`.
// The target is answered as its origin form, path and query, before Express's router reads it
// (the router keeps the scheme and host aside when it sees them, so no middleware can do this).
// Which host the client named does not matter: the service answers for BASE_URL only.
import type { IncomingMessage } from 'node:http';
import type { Express } from 'express';

const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/;

/** The origin form of an absolute-form target (`/` for an empty path); other targets unchanged. */
function originForm(target: string): string {
  if (target.charCodeAt(0) === 47 /* "/" */) return target;
  const authority = ABSOLUTE_FORM.exec(target);
  if (!authority) return target;
  const rest = target.slice(authority[0].length);
  return rest.startsWith('/') ? rest : `/${rest}`;
}

/** Makes `app` answer every absolute-form target as its origin form. */
export function acceptAbsoluteForm(app: Express): void {
  type Handle = (req: IncomingMessage, ...rest: unknown[]) => void;
  const inner = app as unknown as { handle: Handle };
  const handle = inner.handle.bind(app);
  inner.handle = (req, ...rest) => {
    if (req.url !== undefined) req.url = originForm(req.url);
    handle(req, ...rest);
  };
}
