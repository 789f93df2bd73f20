// Bearer agent keys (spec section 5) for POST /api/v1/reports and /api/v1/automation/*:
// only `Authorization: Bearer <key>`; no session, no Origin header. Every refusal says to
// stop retrying (spec 5 rule 8): the same request will never succeed.
import type { Request, RequestHandler } from 'express';
import type pg from 'pg';
import type { Clock } from '../../clock.js';
import type { PrismaClient } from '../../db/client.js';
import { authenticateKey, touchKey, type KeyRejection } from '../../modules/keys/keys.service.js';
import type { ProblemCode } from '../../problem-types.js';
import { HttpProblem } from '../problem.js';
import { SyncedRateLimitStore } from '../../modules/limits/counters.js';
import { clientAddress } from './rate-limit.js';
import { PAGE_PATHS } from '../../paths.js';

export interface AgentKeyContext {
  keyId: string;
  accountId: string;
  agentId: string;
  agentSlug: string;
}

declare module 'express-serve-static-core' {
  interface Locals {
    agentKey?: AgentKeyContext;
  }
}

export interface BearerDeps {
  prisma: PrismaClient;
  clock: Clock;
  /** Refused keys per client address (synced counters); past the limit, 429 before any lookup. */
  failures: { store: SyncedRateLimitStore; limit: number; windowMs: number };
}

const REALM = 'Bearer realm="agent-compatibility-directory"';
const KEYS_PAGE = PAGE_PATHS.keys;

/**
 * True when the request carries an Authorization header (of any scheme): such a request is
 * judged as a bearer request, so a malformed header is a 401 rather than a silent fallback to
 * the browser session.
 */
export function hasBearer(req: Request): boolean {
  return req.get('authorization') !== undefined;
}

const BEARER = /^Bearer +([^\s]+) *$/i;

function unauthorized(code: ProblemCode, title: string, detail: string, error?: 'invalid_request' | 'invalid_token'): HttpProblem {
  return new HttpProblem({
    status: 401,
    code,
    title,
    detail,
    headers: { 'WWW-Authenticate': error ? `${REALM}, error="${error}"` : REALM },
  });
}

const REJECTIONS: Record<KeyRejection, () => HttpProblem> = {
  unknown: () =>
    unauthorized(
      'invalid-key',
      'Unknown agent key',
      `This agent key is not valid. Stop retrying: check the key, or issue a new one on ${KEYS_PAGE}.`,
      'invalid_token',
    ),
  revoked: () =>
    unauthorized(
      'key-revoked',
      'Agent key revoked',
      `This agent key was revoked. Stop retrying: issue a new key on ${KEYS_PAGE}.`,
      'invalid_token',
    ),
  expired: () =>
    unauthorized(
      'key-expired',
      'Agent key expired',
      `This agent key has expired (keys last 90 days). Stop retrying: replace it on ${KEYS_PAGE}.`,
      'invalid_token',
    ),
  'agent-inactive': () =>
    unauthorized(
      'agent-inactive',
      'Agent no longer active',
      'The agent this key is bound to is no longer active in the directory. Stop retrying: the key cannot be used.',
      'invalid_token',
    ),
};

/** The counter of refused keys per client address, shared by every bearer route of a process. */
export function refusedKeyCounter(pool: pg.Pool, clock: Clock, limit: number, windowMs = 60_000): BearerDeps['failures'] {
  const store = new SyncedRateLimitStore(pool, clock, 'refused-keys');
  store.init({ windowMs, limit } as Parameters<SyncedRateLimitStore['init']>[0]);
  return { store, limit, windowMs };
}

/** Authenticates the agent key and sets `res.locals.agentKey`; answers 401/403 problems otherwise. */
export function bearerAuth(deps: BearerDeps): RequestHandler {
  const { store, limit, windowMs } = deps.failures;
  // Counts a refused key against the client's address, and gives back the problem to throw.
  const refused = (req: Request, problem: HttpProblem): HttpProblem => {
    store.hit(clientAddress(req));
    return problem;
  };
  return async (req, res, next) => {
    // An address that keeps sending keys that do not work is told to wait, and costs no lookup.
    const failed = store.count(clientAddress(req));
    if (failed && failed.totalHits >= limit) {
      const retryAfter = Math.max(1, Math.ceil((failed.resetTime.getTime() - deps.clock.now().getTime()) / 1000));
      throw new HttpProblem({
        status: 429,
        code: 'rate-limited',
        title: 'Too many refused keys',
        detail: `More than ${limit} requests from this address carried a key that does not work in ${Math.round(windowMs / 60_000)} minute(s). Fix the key, then retry after ${retryAfter} seconds.`,
        headers: { 'Retry-After': String(retryAfter) },
      });
    }
    const header = req.get('authorization');
    if (header === undefined || header.trim() === '') {
      throw refused(req, unauthorized(
        'missing-credentials',
        'Agent key required',
        'Send the agent key in the header "Authorization: Bearer <key>". Stop retrying until a key is configured.',
      ));
    }
    const match = BEARER.exec(header);
    if (!match) {
      throw refused(req, unauthorized(
        'malformed-authorization',
        'Malformed Authorization header',
        'The Authorization header must be exactly "Bearer <key>". Stop retrying until the header is fixed.',
        'invalid_request',
      ));
    }
    const now = deps.clock.now();
    const result = await authenticateKey(deps.prisma, match[1]!, now);
    if (!result.ok) throw refused(req, REJECTIONS[result.reason]());
    if (result.accountSuspended) {
      throw new HttpProblem({
        status: 403,
        code: 'account-suspended',
        title: 'Account suspended',
        detail: 'The account this key belongs to is suspended. Stop retrying: no request with this key will be accepted.',
      });
    }
    await touchKey(deps.prisma, result.keyId, now);
    res.locals.agentKey = {
      keyId: result.keyId,
      accountId: result.accountId,
      agentId: result.agentId,
      agentSlug: result.agentSlug,
    };
    next();
  };
}
