import { pino, type Logger } from 'pino';

export type { Logger };

// Values that must never reach a log line, wherever they appear in a logged object.
const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["proxy-authorization"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  '*.password',
  '*.sessionSecret',
  '*.databaseUrl',
];

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}

// Query parameters whose values are secrets (agent keys belong in the Authorization
// header; a client that puts one in a URL must not have it logged).
const SECRET_PARAM_NAMES = new Set(['key', 'api_key', 'apikey', 'access_token', 'token', 'password']);
export const AGENT_KEY_PREFIX = 'acd_';

/** A URL as it may be logged: secret-looking query values replaced. */
export function redactUrl(url: string): string {
  const queryStart = url.indexOf('?');
  if (queryStart === -1) return url;
  const params = new URLSearchParams(url.slice(queryStart + 1));
  let changed = false;
  const kept = new URLSearchParams();
  for (const [name, value] of params) {
    // A key pasted bare (`?acd_…`) arrives as a parameter name.
    if (name.includes(AGENT_KEY_PREFIX)) {
      kept.append('[redacted]', '');
      changed = true;
    } else if (SECRET_PARAM_NAMES.has(name.toLowerCase()) || value.includes(AGENT_KEY_PREFIX)) {
      kept.append(name, '[redacted]');
      changed = true;
    } else {
      kept.append(name, value);
    }
  }
  return changed ? `${url.slice(0, queryStart)}?${kept.toString()}` : url;
}
