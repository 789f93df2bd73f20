// Which methods an API address takes, read from the routers themselves: OPTIONS on a known
// address answers 204 with `Allow` (and CORS preflight headers, set before), and a method the
// address does not take is a 405 problem with `Allow` rather than a 404.
import type { RequestHandler, Router } from 'express';
import { match } from 'path-to-regexp';
import { HttpProblem } from '../problem.js';

interface RouteLayer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
}

/** The routers as mounted: `[prefix, router]`, in mounting order. */
export type Mounts = ReadonlyArray<readonly [prefix: string, router: Router]>;

export function methodTable(mounts: Mounts) {
  let routes: Array<{ matches: (path: string) => boolean; methods: string[] }> | undefined;
  // Read on first use: by then every route is registered.
  const table = () =>
    (routes ??= mounts.flatMap(([prefix, router]) =>
      (router.stack as RouteLayer[]).flatMap(({ route }) =>
        route
          ? [route.path].flat().map((path) => {
              const matcher = match(`${prefix}${path}`, { decode: false });
              return { matches: (p: string) => matcher(p) !== false, methods: Object.keys(route.methods).filter((m) => m !== '_all') };
            })
          : [],
      ),
    ));
  const allowed = (path: string): string[] => {
    const methods = new Set(table().flatMap((r) => (r.matches(path) ? r.methods.map((m) => m.toUpperCase()) : [])));
    if (methods.size === 0) return [];
    if (methods.has('GET')) methods.add('HEAD');
    methods.add('OPTIONS');
    return [...methods];
  };

  const options: RequestHandler = (req, res, next) => {
    if (req.method !== 'OPTIONS') return next();
    const allow = allowed(req.path);
    if (allow.length === 0) return next();
    res.set('Allow', allow.join(', ')).status(204).end();
  };

  const notAllowed: RequestHandler = (req, _res, next) => {
    const allow = allowed(req.path);
    if (allow.length === 0) return next();
    throw new HttpProblem({
      status: 405,
      code: 'method-not-allowed',
      title: 'Method not allowed',
      detail: `This address takes ${allow.join(', ')}, not ${req.method}.`,
      headers: { Allow: allow.join(', ') },
    });
  };
  return { options, notAllowed };
}
