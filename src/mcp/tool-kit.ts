// What every MCP tool is made of: the services behind the tools, the caller, a tool's shape,
// how a tool reads its arguments (the API's own schemas and problems), and the two kinds of
// tool: one for anyone, one that needs the caller's agent key (and answers its limits).
import { z } from 'zod';
import type { Clock } from '../clock.js';
import type { Config } from '../config/env.js';
import type pg from 'pg';
import type { PrismaClient } from '../db/client.js';
import { Refusal, validationRefusal, type LimitUsage } from '../errors.js';
import type { AgentKeyContext } from '../web/middleware/bearer.js';
import { MAX_JSON_BODY_BYTES } from '../web/middleware/body.js';
import type { AutomationDeps, KeyScope } from '../modules/automation/automation.service.js';
import type { ListContext } from '../modules/merchants/merchants.service.js';
import type { CountCache } from '../modules/directory/counts.js';
import type { SubmissionDeps } from '../modules/reports/submissions.service.js';
import { jsonSchemaOf, type JsonSchema } from './schemas.js';

/** The services behind the tools, built once per app (the same deps as the API's routers). */
export interface ToolServices {
  prisma: PrismaClient;
  /** What the lists read their summary texts through (merchants.service.ts ListContext). */
  pool: pg.Pool;
  baseUrl: string;
  clock: Clock;
  /**
   * The configured limits, which the contribution schema states. Until the router passes them
   * (mcp/router.ts), the contribution schema is not offered.
   */
  limits?: Config['limits'];
  submissions: SubmissionDeps;
  automation: AutomationDeps;
  counts: CountCache;
}

/** Who calls, as the HTTP request that carries the call established it. */
export interface Caller {
  /** The agent key the bearer guard accepted, or null for an anonymous request. */
  key: AgentKeyContext | null;
  /** The limits this request was counted against (whoami and every private answer list them). */
  counted: readonly LimitUsage[];
  /** A submission quota this call used (the router lists it in the RateLimit headers). */
  onUsage(usage: LimitUsage): void;
  /** The client's address: only its keyed hash is stored with a new report (moderators' signals). */
  address?: string;
}

export interface Tool {
  name: string;
  title: string;
  description: string;
  /** Public tools answer anyone; private ones need an agent key and answer `limits` too. */
  access: 'public' | 'private';
  /** The JSON Schema of the arguments, from the API's zod schema (what tools/list shows). */
  inputJsonSchema: JsonSchema;
  /** The answer (structuredContent) of a call that succeeds, and its JSON Schema (tools/list's outputSchema). */
  output: z.ZodObject;
  outputJsonSchema: JsonSchema;
  annotations: { readOnlyHint: boolean; idempotentHint: boolean; destructiveHint: boolean; openWorldHint: boolean };
  /**
   * Checks the key (private tools: refused without one, never hidden), validates the arguments
   * and answers the envelope around the body the HTTP API answers; throws refusals.
   */
  run(services: ToolServices, caller: Caller, args: Record<string, unknown>): Promise<Record<string, unknown>>;
}

type ToolInit = Omit<Tool, 'inputJsonSchema' | 'outputJsonSchema' | 'access' | 'run'> & {
  input: z.ZodType;
  run(services: ToolServices, caller: Caller, args: Record<string, unknown>): Promise<Record<string, unknown>>;
};

export const publicTool = ({ input, ...init }: ToolInit): Tool => ({
  ...init,
  access: 'public',
  inputJsonSchema: jsonSchemaOf(input, 'input'),
  outputJsonSchema: jsonSchemaOf(init.output, 'output'),
});

/**
 * Query-string schemas read digit strings (intParam); MCP arguments are JSON, so numbers and
 * booleans are given to them as the strings a query string would carry, and a null is a
 * parameter left out. Errors name parameters, as for GET requests.
 */
export function queryArgs<S extends z.ZodType>(schema: S, args: Record<string, unknown>): z.output<S> {
  const query = Object.fromEntries(
    Object.entries(args)
      .filter(([, value]) => value !== null && value !== undefined)
      .map(([name, value]) => [name, typeof value === 'number' || typeof value === 'boolean' ? String(value) : value]),
  );
  const result = schema.safeParse(query);
  if (!result.success) throw validationRefusal(result.error, 'query');
  return result.data;
}

/** A report, validated as the API validates it: errors are JSON pointers into it. */
export function bodyArgs<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  // The API reads at most MAX_JSON_BODY_BYTES of report (as JSON); an MCP call carries no more.
  if (Buffer.byteLength(JSON.stringify(body ?? null)) > MAX_JSON_BODY_BYTES) {
    throw new Refusal({
      kind: 'too-large',
      code: 'payload-too-large',
      title: 'Report too large',
      detail: `The report must be at most ${MAX_JSON_BODY_BYTES} bytes of JSON.`,
    });
  }
  const result = schema.safeParse(body);
  if (!result.success) throw validationRefusal(result.error, 'body');
  return result.data;
}

export const READ = { readOnlyHint: true, idempotentHint: true, destructiveHint: false, openWorldHint: false };

export const noArgs = z.strictObject({});

export const directory = (services: ToolServices): ListContext => ({
  prisma: services.prisma,
  pool: services.pool,
  counts: services.counts,
  baseUrl: services.baseUrl,
  now: services.clock.now(),
});

/** The key's scope; a call without a key is refused with what to do (spec 5 rule 8: do not retry as is). */
function keyOf(services: ToolServices, caller: Caller): AgentKeyContext {
  if (caller.key) return caller.key;
  throw new Refusal({
    kind: 'unauthenticated',
    code: 'missing-credentials',
    title: 'Agent key required',
    detail:
      "This tool needs an agent key. Configure the MCP client's connection with the key as its bearer token; " +
      `keys are issued on ${services.baseUrl}/profile/agents. Do not retry without one; never put the key in an argument or a URL.`,
  });
}

export const scopeOf = (key: AgentKeyContext): KeyScope => ({ accountId: key.accountId, agentId: key.agentId });
/**
 * What remains of every limit the call counted against: the request's own limits (public,
 * private per address and per account), then the account's changed-submissions quota, as this
 * call used it or, when it wrote nothing, as it stands. The RateLimit headers' partition key
 * (a hash) stays out, as in whoami.
 */
async function remainingBudget(services: ToolServices, caller: Caller, key: AgentKeyContext, written: LimitUsage[]) {
  const submissions = written.at(-1) ?? (await services.automation.agentQuota.usage(key.accountId));
  const byName = new Map<string, LimitUsage>();
  for (const usage of [...caller.counted, submissions]) byName.set(usage.name, usage);
  return [...byName.values()].map(({ partition: _partition, ...usage }) => usage);
}

type PrivateInit = Omit<ToolInit, 'run'> & {
  run(services: ToolServices, caller: Caller, key: AgentKeyContext, args: Record<string, unknown>): Promise<Record<string, unknown>>;
};

export const privateTool = ({ input, run, ...init }: PrivateInit): Tool => ({
  ...init,
  access: 'private',
  inputJsonSchema: jsonSchemaOf(input, 'input'),
  outputJsonSchema: jsonSchemaOf(init.output, 'output'),
  async run(services, caller, args) {
    // The key first: without one, nothing else is looked at.
    const key = keyOf(services, caller);
    const written: LimitUsage[] = [];
    const answer = await run(
      services,
      {
        ...caller,
        onUsage(usage) {
          written.push(usage);
          caller.onUsage(usage);
        },
      },
      key,
      args,
    );
    return { ...answer, limits: await remainingBudget(services, caller, key, written) };
  },
});

/** A schema with its descriptions left out: a tool whose arguments another tool already describes. */
export const withoutDescriptions = <T>(node: T): T =>
  (Array.isArray(node)
    ? node.map(withoutDescriptions)
    : node && typeof node === 'object'
      ? Object.fromEntries(Object.entries(node).filter(([key]) => key !== 'description').map(([key, value]) => [key, key === 'properties' || typeof value === 'object' ? withoutDescriptions(value) : value]))
      : node) as T;

