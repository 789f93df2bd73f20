// A request target in absolute form (`GET http://host/path?query HTTP/1.1`) is legal HTTP/1.1
// (RFC 9112 3.2.2: a server must accept it) and Express routes it by its path, but everything
// built from `req.originalUrl` (Link headers, the response cache's key, redirects to sign-in,
// the log) took the scheme and host along: the links read `<http://directory.testhttp://...>`.
// The target is answered as its origin form, path and query, before Express's router reads it
// (the router keeps the scheme and host aside when it sees them, so no middleware can do this).
// Which host the client named does not matter: the service answers for BASE_URL only.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Express, Request, Response } from 'express';

const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/;

/** The origin form of an absolute-form target (`/` for an empty path); other targets unchanged. */
function originForm(target: string): string {
  if (target.charCodeAt(0) === 47 /* "/" */) return target;
  const authority = ABSOLUTE_FORM.exec(target);
  if (!authority) return target;
  const rest = target.slice(authority[0].length);
  return rest.startsWith('/') ? rest : `/${rest}`;
}

/**
 * Makes `app` answer every absolute-form target as its origin form; then, for a GET or HEAD,
 * gives `front` (the response cache's front door) the request, set up as app.handle sets it
 * up (Express's prototypes, `res.locals`), before the router: when it answers (true), the
 * router never sees the request. `started` is performance.now() at the request's arrival here.
 */
export function acceptAbsoluteForm(app: Express, front?: (req: Request, res: Response, started: number) => boolean): void {
  type Handle = (req: IncomingMessage, res: ServerResponse, ...rest: unknown[]) => void;
  const inner = app as unknown as { handle: Handle };
  const handle = inner.handle.bind(app);
  inner.handle = (req, res, ...rest) => {
    if (req.url !== undefined) req.url = originForm(req.url);
    if (front && (req.method === 'GET' || req.method === 'HEAD')) {
      const started = performance.now();
      // What app.handle does before its router (it does it again, harmlessly, when `front` declines).
      const request = req as Request;
      const response = res as Response;
      request.res = response;
      response.req = request;
      Object.setPrototypeOf(req, app.request);
      Object.setPrototypeOf(res, app.response);
      (response as { locals?: Response['locals'] }).locals ??= Object.create(null) as Response['locals'];
      if (front(request, response, started)) return;
    }
    handle(req, res, ...rest);
  };
}
