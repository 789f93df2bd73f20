// The building blocks of the OpenAPI document's operations (http/openapi.ts): the headers,
// answers and parameters they share, and the three kinds of operation (a public read, a
// private bearer operation, an owner's session operation).
import { z } from 'zod';
import { IF_MATCH_MAX_LENGTH } from '../../modules/reports/versions.js';

export type JsonSchema = Record<string, unknown>;

export const componentRef = (id: string) => ({ $ref: `#/components/schemas/${id}` });

function toSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const json = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    metadata: z.globalRegistry,
  }) as JsonSchema;
  delete json.$schema;
  return json;
}

/** Query parameters of a strict object schema, one OpenAPI parameter per key. */
export function queryParameters(schema: z.ZodObject): JsonSchema[] {
  const json = toSchema(schema, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, property]) => {
    const { description, ...rest } = property;
    return {
      name,
      in: 'query',
      required: json.required?.includes(name) ?? false,
      ...(description ? { description } : {}),
      schema: rest,
    };
  });
}

export const header = (description: string, schema: JsonSchema = { type: 'string' }) => ({ description, schema });

/** The response headers the API sends, described once. */
export const HEADERS = {
  ETag: header('Public reads: a weak validator of the body, for If-None-Match. Private reports: the version (the quoted updatedAt), for If-Match.'),
  CacheControl: header(
    '`public, max-age=60, stale-if-error=600` on public reads (a cache may serve the answer up to 600 s past its life while we answer errors, as we do: X-Cache `STALE-IF-ERROR`, with Age and Warning); `no-store` on every private answer.',
  ),
  RateLimit: header('Each limit this request was counted against: `"<policy>"; r=<remaining>; t=<seconds to reset>`, one per policy (draft-ietf-httpapi-ratelimit-headers).'),
  RateLimitPolicy: header('Each policy that applies: `"<policy>"; q=<quota>; w=<window seconds>; pk=:<partition>:`.'),
  Link: header('RFC 8288: `first`, `prev`, `next`, `last` on numbered pages; `next` (with the cursor) on private lists.'),
  Location: header('The created report: for a bearer key its automation API address, for a browser session its review page.'),
  RetryAfter: header('Seconds to wait before the next request.', { type: 'integer', minimum: 0 }),
  Allow: header('The methods this address takes.'),
  WWWAuthenticate: header('`Bearer realm="agent-compatibility-directory"` with an error code when a key was refused.'),
  XRequestId: header('The request id; problem bodies name it as `instance` (urn:request:<id>).'),
} as const;

const limitHeaders = { RateLimit: HEADERS.RateLimit, 'RateLimit-Policy': HEADERS.RateLimitPolicy };

export const problem = (description: string, headers: Record<string, unknown> = {}) => ({
  description,
  headers: { ...limitHeaders, ...headers },
  content: { 'application/problem+json': { schema: componentRef('Problem') } },
});

export const ok = (description: string, schema: JsonSchema, headers: Record<string, unknown> = {}) => ({
  description,
  headers: { ...limitHeaders, ...headers },
  content: { 'application/json': { schema } },
});

/** The answers any operation can give: a request that cannot be read, a limit, an outage. */
export const COMMON = {
  '400': problem(
    'The request is not valid: `errors` names each parameter or field (or it could not be read at all). A query string of more than 100 parameters is a `query-too-long` problem.',
  ),
  '429': problem('Too many requests: wait `Retry-After` seconds.', { 'Retry-After': HEADERS.RetryAfter }),
  '500': problem('An unexpected error: retry with bounded backoff; quote `instance` when you report it.'),
  '503': problem('The database is not answering for a moment: retry after `Retry-After` seconds.', { 'Retry-After': HEADERS.RetryAfter }),
};

export const publicHeaders = { ETag: HEADERS.ETag, 'Cache-Control': HEADERS.CacheControl };
export const listHeaders = { ...publicHeaders, Link: HEADERS.Link };
export const privateHeaders = { 'Cache-Control': HEADERS.CacheControl };

const notModified = { description: 'Not modified: the body named by If-None-Match is still current.', headers: publicHeaders };

/** The longest conditional header (If-Match, If-None-Match) a client needs: an ETag here is under 100 characters. */
export const CONDITIONAL_HEADER_MAX_LENGTH = IF_MATCH_MAX_LENGTH;

/** If-None-Match on every public GET (answered 304 when the ETag still matches). */
const ifNoneMatch = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description: 'An ETag of an earlier answer: 304 when it is still current.',
  schema: { type: 'string', maxLength: CONDITIONAL_HEADER_MAX_LENGTH },
};

/** A public read: no credentials, cacheable, conditional. */
export function publicRead(operation: Record<string, unknown> & { parameters?: JsonSchema[]; responses: Record<string, unknown> }) {
  return {
    ...operation,
    tags: operation.tags ?? ['Public directory'],
    security: [],
    parameters: [...(operation.parameters ?? []), ifNoneMatch],
    responses: { ...operation.responses, '304': notModified, ...COMMON, ...pick(operation.responses, ['400']) },
  };
}

const pick = (responses: Record<string, unknown>, keys: string[]) => Object.fromEntries(keys.filter((k) => k in responses).map((k) => [k, responses[k]]));

const refusedKey = problem('No key, or a malformed, unknown, revoked or expired key, or a deactivated agent. Stop retrying with this key.', {
  'WWW-Authenticate': HEADERS.WWWAuthenticate,
});
const suspended = problem('The account is suspended. Stop retrying.');

const bearer = [{ agentKey: [] }];

/** A private operation: a bearer key, never stored by caches, RateLimit on every answer. */
export function privateOperation(operation: Record<string, unknown> & { responses: Record<string, unknown> }) {
  return {
    ...operation,
    tags: ['Automation'],
    security: bearer,
    responses: { ...COMMON, '401': refusedKey, '403': suspended, ...operation.responses },
  };
}

const session = [{ session: [] }];

/**
 * An owner's operation: a signed-in browser session with its Origin; an agent key is refused.
 * One that takes a JSON body also answers 413 and 415.
 */
export function ownerOperation(operation: Record<string, unknown> & { responses: Record<string, unknown> }) {
  return {
    ...operation,
    tags: ['Owners'],
    security: session,
    responses: {
      ...COMMON,
      '401': problem('Not signed in: sign in at /sign-in in a browser first.'),
      '403': problem(
        'A rejected origin, a suspended account, an agent key (`owner-session-required`: owners act in a browser session), or, for statements, replies and corrections, no verified claim of this merchant or agent (`claim-required`, or `claim-revoked`).',
      ),
      ...operation.responses,
      ...(operation.requestBody ? { '413': bodyTooLarge, '415': notJson } : {}),
    },
  };
}

export const pathParam = (name: string, description: string, maxLength: number) => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: { type: 'string', minLength: 1, maxLength },
});
/** A slug is at most 100 characters; an id (UUID) 36. */
export const SLUG_MAX_LENGTH = 100;
export const ID_LENGTH = 36;

export const reportId = pathParam('id', 'Report id (a UUID).', ID_LENGTH);
export const jsonBody = (id: string) => ({ required: true, content: { 'application/json': { schema: componentRef(id) } } });
export const bodyTooLarge = problem('The body is larger than 16,384 bytes.');
export const notJson = problem('The body is not `application/json`.');
