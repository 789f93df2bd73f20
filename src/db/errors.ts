// What kind of failure a database error is, whichever layer raised it: pg itself (sessions,
// rate-limit counters), Prisma through the pg driver adapter (everything else), or a
// connection that never came. The HTTP layer turns "unavailable" into a 503 with Retry-After
// and "data exception" into a 400; everything else stays a bug (500).

/** The fields of the errors met on the way down, as far as they are needed here. */
interface Layer {
  code?: unknown;
  message?: unknown;
  kind?: unknown;
  severity?: unknown;
  originalCode?: unknown;
  cause?: unknown;
  meta?: { driverAdapterError?: { cause?: unknown } };
}

function* layers(error: unknown): Generator<Layer> {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    const layer = current as Layer;
    yield layer;
    const adapter = layer.meta?.driverAdapterError?.cause;
    if (adapter && typeof adapter === 'object') yield adapter as Layer;
    current = layer.cause;
  }
}

/**
 * The SQLSTATE of the error, when PostgreSQL gave one: pg's own errors carry it as `code` (with
 * a `severity`), the driver adapter's as `originalCode`. Prisma's own codes (P2010…) are not.
 */
function sqlState(error: unknown): string | undefined {
  for (const layer of layers(error)) {
    const value = typeof layer.originalCode === 'string' ? layer.originalCode : typeof layer.severity === 'string' ? layer.code : undefined;
    if (typeof value === 'string' && /^[0-9A-Z]{5}$/.test(value)) return value;
  }
  return undefined;
}

// Connection exceptions (08), operator intervention (57: shutdown, cannot connect now,
// statement timeout), too many connections (53300), and the server's own failures (58, XX).
const UNAVAILABLE_STATES = /^(08|57|58|XX)|^53300$/;
// Socket failures, pg's own timeouts and closed connections, Prisma's connection errors
// (P1001 unreachable, P1002/P1008 timed out, P1017 closed, P2024 pool timeout, P2028 a
// transaction that could not start or was closed under it), and the adapter's kinds for them.
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2028']);
const UNAVAILABLE_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);
const UNAVAILABLE_MESSAGES =
  /timeout exceeded when trying to connect|Connection terminated|Query read timeout|connection timeout|Client has encountered a connection error|Cannot use a pool after calling end|the database system is (starting up|shutting down)|terminating connection/i;

/** True when the database could not be reached or stopped answering: an outage, not a bug. */
export function isDatabaseUnavailable(error: unknown): boolean {
  const state = sqlState(error);
  if (state) return UNAVAILABLE_STATES.test(state);
  for (const layer of layers(error)) {
    if (typeof layer.code === 'string' && UNAVAILABLE_CODES.has(layer.code)) return true;
    if (typeof layer.kind === 'string' && UNAVAILABLE_KINDS.has(layer.kind)) return true;
    if (typeof layer.message === 'string' && UNAVAILABLE_MESSAGES.test(layer.message)) return true;
  }
  return false;
}

/**
 * True when PostgreSQL refused a value itself (SQLSTATE class 22: a NUL byte, a date out of
 * range, a malformed uuid). Validation should catch these first; this is the safety net that
 * keeps such input a 400.
 */
export function isDataException(error: unknown): boolean {
  return sqlState(error)?.startsWith('22') ?? false;
}

/** A unique constraint refused the write (Prisma's P2002, or PostgreSQL's 23505 underneath). */
export function isUniqueViolation(error: unknown): boolean {
  if ((error as { code?: unknown } | null)?.code === 'P2002') return true;
  return sqlState(error) === '23505';
}
