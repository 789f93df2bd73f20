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
const AGENT_KEY_PREFIX = 'acd_';

/** Whether a piece of a URL holds what looks like an agent key, percent-encoded or not. */
const holdsKey = (text: string) => text.toLowerCase().includes(AGENT_KEY_PREFIX) || /acd%5f/i.test(text);

/** A URL as it may be logged: secret-looking path segments and query values replaced. */
export function redactUrl(url: string): string {
  const queryStart = url.indexOf('?');
  const rawPath = queryStart === -1 ? url : url.slice(0, queryStart);
  // A key pasted into the path (`/automation/queue/acd_…`).
  const path = rawPath
    .split('/')
    .map((segment) => (holdsKey(segment) ? '[redacted]' : segment))
    .join('/');
  if (queryStart === -1) return path;
  const params = new URLSearchParams(url.slice(queryStart + 1));
  let changed = false;
  const kept = new URLSearchParams();
  for (const [name, value] of params) {
    // A key pasted bare (`?acd_…`) arrives as a parameter name.
    if (holdsKey(name)) {
      kept.append('[redacted]', '');
      changed = true;
    } else if (SECRET_PARAM_NAMES.has(name.toLowerCase()) || holdsKey(value)) {
      kept.append(name, '[redacted]');
      changed = true;
    } else {
      kept.append(name, value);
    }
  }
  return changed ? `${path}?${kept.toString()}` : `${path}${url.slice(queryStart)}`;
}
