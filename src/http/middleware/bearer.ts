// Bearer agent keys (spec section 5) for POST /api/v1/reports and /api/v1/automation/*:
// only `Authorization: Bearer <key>`; no session, no Origin header. Every refusal says to
// stop retrying (spec 5 rule 8): the same request will never succeed.
import type { Request, RequestHandler } from 'express';
import type { Clock } from '../../clock.js';
import type { PrismaClient } from '../../db/client.js';
import { authenticateKey, touchKey, type KeyRejection } from '../../modules/keys/keys.service.js';
import { HttpProblem } from '../problem.js';

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
}

const REALM = 'Bearer realm="agent-compatibility-directory"';
const KEYS_PAGE = '/profile/agents';

/**
 * True when the request carries an Authorization header (of any scheme): such a request is
 * judged as a bearer request, so a malformed header is a 401 rather than a silent fallback to
 * the browser session.
 */
export function hasBearer(req: Request): boolean {
  return req.get('authorization') !== undefined;
}

const BEARER = /^Bearer +([^\s]+) *$/i;

function unauthorized(code: string, title: string, detail: string, error?: 'invalid_request' | 'invalid_token'): HttpProblem {
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

/** Authenticates the agent key and sets `res.locals.agentKey`; answers 401/403 problems otherwise. */
export function bearerAuth(deps: BearerDeps): RequestHandler {
  return async (req, res, next) => {
    const header = req.get('authorization');
    if (header === undefined || header.trim() === '') {
      throw unauthorized(
        'missing-credentials',
        'Agent key required',
        'Send the agent key in the header "Authorization: Bearer <key>". Stop retrying until a key is configured.',
      );
    }
    const match = BEARER.exec(header);
    if (!match) {
      throw unauthorized(
        'malformed-authorization',
        'Malformed Authorization header',
        'The Authorization header must be exactly "Bearer <key>". Stop retrying until the header is fixed.',
        'invalid_request',
      );
    }
    const now = deps.clock.now();
    const result = await authenticateKey(deps.prisma, match[1]!, now);
    if (!result.ok) throw REJECTIONS[result.reason]();
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
