// Agent keys never go in a URL (spec 5 rule 5): URLs end up in logs, histories and proxies.
// A request that looks like it carries one in its query string is refused, and the key is
// to be treated as exposed. The value itself is never echoed or logged (the request logger
// logs URLs through redactUrl, which hides the same names and values).
import type { RequestHandler } from 'express';
import { KEY_PARAMETER_NAMES, KEY_PREFIX } from '../../modules/keys/keys.service.js';
import { HttpProblem } from '../problem.js';

/** The names of query parameters that look like they carry a key (never their values). */
function keyLikeParameters(originalUrl: string): string[] {
  const start = originalUrl.indexOf('?');
  if (start === -1) return [];
  const query = originalUrl.slice(start + 1).split('#')[0] ?? '';
  const names = new Set<string>();
  for (const [name, value] of new URLSearchParams(query)) {
    // A key pasted as a bare parameter (`?acd_...`) is in the name.
    if (KEY_PARAMETER_NAMES.has(name.toLowerCase()) || value.includes(KEY_PREFIX) || name.includes(KEY_PREFIX)) {
      names.add(name.includes(KEY_PREFIX) ? '(a parameter name)' : name);
    }
  }
  return [...names];
}

export const refuseKeyInQuery: RequestHandler = (req, _res, next) => {
  const names = keyLikeParameters(req.originalUrl);
  if (names.length === 0) {
    next();
    return;
  }
  throw new HttpProblem({
    status: 400,
    code: 'key-in-query',
    title: 'Agent key in the URL',
    detail:
      'Agent keys belong in the Authorization header ("Authorization: Bearer <key>"), never in a URL. ' +
      'Consider this key exposed: revoke or replace it on /profile/agents, then send the new key in the header only. ' +
      'Do not retry this URL.',
    errors: names.map((parameter) => ({ parameter, detail: 'must not carry an agent key' })),
  });
};
