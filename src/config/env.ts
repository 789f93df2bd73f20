// The one place that reads process.env. Validated with zod, typed, frozen.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const emptyToUndefined = (value: unknown) =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;

const postgresUrl = z.preprocess(
  emptyToUndefined,
  z
    .url({ protocol: /^postgres(ql)?$/, error: 'must be a postgres:// or postgresql:// URL' })
    .optional(),
);

const positiveInt = (fallback: number) =>
  z.preprocess(emptyToUndefined, z.coerce.number().int().positive().default(fallback));

// TRUST_PROXY takes what Express's "trust proxy" setting takes: false/true, a hop count,
// or a comma-separated list of addresses/subnets. Unset means false: the socket address counts.
const trustProxy = z.preprocess(
  emptyToUndefined,
  z
    .string()
    .optional()
    .transform((value, ctx): boolean | number | string[] => {
      if (value === undefined || value === 'false') return false;
      if (value === 'true') return true;
      if (/^\d+$/.test(value)) return Number(value);
      const list = value.split(',').map((s) => s.trim()).filter(Boolean);
      if (list.length === 0 || list.some((s) => !/^[0-9a-fA-F:./]+$|^(loopback|linklocal|uniquelocal)$/.test(s))) {
        ctx.addIssue({
          code: 'custom',
          message: 'must be true, false, a hop count, or a comma-separated list of addresses/subnets',
        });
        return z.NEVER;
      }
      return list;
    }),
);

const emailList = z.preprocess(
  emptyToUndefined,
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      const list = (value ?? '').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
      for (const email of list) {
        if (!z.email().safeParse(email).success) {
          ctx.addIssue({ code: 'custom', message: `"${email}" is not an e-mail address` });
          return z.NEVER;
        }
      }
      return list;
    }),
);

/** A name the outbound fetcher reaches at a local address over plain HTTP (tests only). */
export interface OutboundTestHost {
  /** A lower-case host name, or `*.suffix` for any name under suffix (not suffix itself). */
  readonly name: string;
  /** A loopback address: the test door only ever leads to this machine. */
  readonly address: string;
  readonly port: number;
}
export type OutboundTestHosts = readonly OutboundTestHost[];

const HOST_NAME = /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;
const PORT_NUMBER = /^\d{1,5}$/;

const isLoopback = (address: string) => ipaddr.isValid(address) && ipaddr.parse(address).range() === 'loopback';

// OUTBOUND_TEST_HOSTS: name=127.0.0.1:port pairs. Parsed strictly, since a loose entry here
// would be a way around the fetcher's address guard; production refuses the setting (below).
const outboundTestHosts = z.preprocess(
  emptyToUndefined,
  z
    .string()
    .optional()
    .transform((value, ctx): OutboundTestHost[] => {
      if (value === undefined) return [];
      const hosts: OutboundTestHost[] = [];
      const fail = (message: string) => {
        ctx.addIssue({ code: 'custom', message });
        return z.NEVER;
      };
      for (const entry of value.split(',').map((s) => s.trim()).filter(Boolean)) {
        const match = /^([^=\s]+)=(\[[0-9a-fA-F:.]+\]|[0-9.]+):([^:]+)$/.exec(entry);
        if (!match) return fail(`"${entry}" is not a name=127.0.0.1:port pair`);
        const name = match[1]!.toLowerCase();
        const address = match[2]!.replace(/^\[|\]$/g, '');
        const bare = name.startsWith('*.') ? name.slice(2) : name;
        if (!HOST_NAME.test(bare) || isIP(bare) !== 0) return fail(`"${match[1]}" is not a host name or *.suffix`);
        if (!isLoopback(address)) return fail(`"${match[2]}" is not a loopback address (test hosts lead to this machine only)`);
        const port = Number(match[3]);
        if (!PORT_NUMBER.test(match[3]!) || port < 1 || port > 65535) return fail(`"${match[3]}" is not a port number`);
        if (hosts.some((host) => host.name === name)) return fail(`lists ${name} twice`);
        hosts.push(Object.freeze({ name, address, port }));
      }
      if (hosts.length === 0) return fail('lists no name=127.0.0.1:port pair');
      return hosts;
    }),
);

// DNS_SERVERS: host or host:port, host an IP address ([v6]:port for IPv6 with a port), in the
// forms dns.Resolver#setServers takes. Names are refused: a resolver must not need a resolver.
const dnsServers = z.preprocess(
  emptyToUndefined,
  z
    .string()
    .optional()
    .transform((value, ctx): string[] | undefined => {
      if (value === undefined) return undefined;
      const servers: string[] = [];
      for (const entry of value.split(',').map((s) => s.trim()).filter(Boolean)) {
        const bracketed = /^\[([^\]]+)\](?::([^:]+))?$/.exec(entry);
        const v4WithPort = /^([0-9.]+):([^:]+)$/.exec(entry);
        const host = bracketed?.[1] ?? v4WithPort?.[1] ?? entry;
        const port = bracketed ? bracketed[2] : v4WithPort?.[2];
        const family = isIP(host);
        const portOk = port === undefined || (PORT_NUMBER.test(port) && Number(port) >= 1 && Number(port) <= 65535);
        if (family === 0 || !portOk || (bracketed && family !== 6)) {
          ctx.addIssue({ code: 'custom', message: `"${entry}" is not an IP address with an optional port (host or host:port)` });
          return z.NEVER;
        }
        const shown = family === 6 ? `[${host}]` : host;
        servers.push(port === undefined ? shown : `${shown}:${port}`);
      }
      if (servers.length === 0) {
        ctx.addIssue({ code: 'custom', message: 'lists no server' });
        return z.NEVER;
      }
      return servers;
    }),
);

// true/false, or unset: the default depends on other settings (see loadConfig).
const optionalBoolean = z.preprocess(
  emptyToUndefined,
  z.enum(['true', 'false'], { error: 'must be true or false' }).optional(),
);

const envSchema = z.object({
  NODE_ENV: z.preprocess(emptyToUndefined, z.enum(['development', 'production', 'test']).default('development')),
  PORT: z.preprocess(emptyToUndefined, z.coerce.number().int().min(0).max(65535).default(3000)),
  HOST: z.preprocess(emptyToUndefined, z.string().optional()),
  BASE_URL: z.preprocess(
    emptyToUndefined,
    z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).optional(),
  ),
  DATABASE_URL: postgresUrl,
  DATA_DIR: z.preprocess(emptyToUndefined, z.string().default('./.data')),
  EMBEDDED_PG_PORT: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(65535).optional()),
  DATABASE_TIMEOUT_MS: positiveInt(10_000),
  SESSION_SECRET: z.preprocess(
    emptyToUndefined,
    z.string().min(32, 'must be at least 32 characters').optional(),
  ),
  SMTP_URL: z.preprocess(
    emptyToUndefined,
    z.url({ protocol: /^smtps?$/, error: 'must be an smtp:// or smtps:// URL' }).optional(),
  ),
  MAIL_FROM: z.preprocess(
    emptyToUndefined,
    z.string().default('Agent-Compatibility Directory <no-reply@directory.example>'),
  ),
  TRUST_PROXY: trustProxy,
  MODERATOR_EMAILS: emailList,
  LOG_LEVEL: z.preprocess(emptyToUndefined, z.enum(LOG_LEVELS).default('info')),
  METRICS_TOKEN: z.preprocess(emptyToUndefined, z.string().min(16, 'must be at least 16 characters').optional()),
  SEED_DEMO_DATA: optionalBoolean,
  MIGRATE_ON_START: optionalBoolean,
  SHUTDOWN_TIMEOUT_MS: positiveInt(10_000),
  REQUEST_TIMEOUT_MS: positiveInt(60_000),
  HEADERS_TIMEOUT_MS: positiveInt(20_000),
  WEB_CONCURRENCY: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(64).default(1)),
  // Limits (spec section 8); raise them for a benchmark, the limiters stay in the request path.
  LIMIT_PUBLIC_PER_MINUTE: positiveInt(120),
  LIMIT_PRIVATE_PER_MINUTE: positiveInt(120),
  LIMIT_PRIVATE_ADDRESS_PER_MINUTE: positiveInt(240),
  LIMIT_BROWSER_SUBMISSIONS_PER_HOUR: positiveInt(12),
  LIMIT_AGENT_SUBMISSIONS_PER_HOUR: positiveInt(60),
  LIMIT_SIGN_IN_PER_ADDRESS_PER_HOUR: positiveInt(5),
  LIMIT_SIGN_IN_PER_CLIENT_PER_HOUR: positiveInt(20),
  LIMIT_FAILED_KEYS_PER_ADDRESS_PER_MINUTE: positiveInt(10),
  // The outbound fetcher (issue 34, src/outbound/).
  OUTBOUND_TEST_HOSTS: outboundTestHosts,
  DNS_SERVERS: dnsServers,
}).superRefine((env, ctx) => {
  // The test door must not exist in production: with it set, the service does not start.
  if (env.NODE_ENV === 'production' && env.OUTBOUND_TEST_HOSTS.length > 0) {
    ctx.addIssue({
      code: 'custom',
      path: ['OUTBOUND_TEST_HOSTS'],
      message: 'must not be set when NODE_ENV is production (it lets the checker reach local test servers)',
    });
  }
});

export type Env = z.infer<typeof envSchema>;

export interface Config {
  readonly env: Env['NODE_ENV'];
  readonly port: number;
  /** Interface to listen on; unset: every interface. */
  readonly host: string | undefined;
  /** Public origin, without a trailing slash, used for links and the Origin check. */
  readonly baseUrl: string;
  readonly origin: string;
  readonly secureCookies: boolean;
  /** Unset: start the embedded PostgreSQL under dataDir. */
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  /** Unset: a free port, remembered under DATA_DIR (src/db/embedded.ts). */
  readonly embeddedPgPort: number | undefined;
  /** Longest statement of a request; a database that does not answer becomes a 503 by then. */
  readonly databaseTimeoutMs: number;
  readonly sessionSecret: string;
  readonly smtpUrl: string | undefined;
  readonly mailFrom: string;
  readonly trustProxy: boolean | number | readonly string[];
  readonly moderatorEmails: readonly string[];
  readonly logLevel: Env['LOG_LEVEL'];
  /** Bearer token that /metrics requires; unset: /metrics answers 404 to everyone. */
  readonly metricsToken: string | undefined;
  /** Load the demo directory into an empty database on start. Unset: only the embedded one. */
  readonly seedDemoData: boolean;
  /**
   * Apply pending migrations on start. Unset: with the embedded database only; with
   * DATABASE_URL start refuses to run on a database with pending migrations instead.
   */
  readonly migrateOnStart: boolean;
  readonly shutdownTimeoutMs: number;
  /**
   * Longest a client may take to send a whole request, body included (REQUEST_TIMEOUT_MS), and
   * its header section (HEADERS_TIMEOUT_MS); past either, 408 and the connection is closed.
   */
  readonly requestTimeoutMs: number;
  readonly headersTimeoutMs: number;
  /** HTTP processes serving one port (Node's cluster module); 1 serves from this process. */
  readonly webConcurrency: number;
  readonly limits: Readonly<{
    publicPerMinute: number;
    privatePerMinute: number;
    privateAddressPerMinute: number;
    browserSubmissionsPerHour: number;
    agentSubmissionsPerHour: number;
    signInPerAddressPerHour: number;
    signInPerClientPerHour: number;
    failedKeysPerAddressPerMinute: number;
  }>;
  /** Names the outbound fetcher reaches at local test servers; empty unless OUTBOUND_TEST_HOSTS is set. */
  readonly outboundTestHosts: OutboundTestHosts;
  /** Resolvers for the outbound fetcher and TXT lookups; unset: the system's resolver. */
  readonly dnsServers: readonly string[] | undefined;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parses an environment into a frozen Config. Throws ConfigError naming the variable. */
export function parseEnv(source: NodeJS.ProcessEnv): Env {
  const result = envSchema
    .superRefine((env, ctx) => {
      // Node refuses a header bound longer than the whole request's.
      if (env.HEADERS_TIMEOUT_MS > env.REQUEST_TIMEOUT_MS) {
        ctx.addIssue({ code: 'custom', path: ['HEADERS_TIMEOUT_MS'], message: 'must not be longer than REQUEST_TIMEOUT_MS' });
      }
    })
    .safeParse(source);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const name = String(issue.path[0] ?? 'environment');
    throw new ConfigError(`Invalid configuration: ${name} ${issue.message}`);
  }
  return result.data;
}

// A secret generated once and kept under DATA_DIR, so sessions survive restarts without
// anyone having to invent a secret, and no default secret exists in the code.
function persistedSessionSecret(dataDir: string): string {
  const file = path.join(dataDir, 'session-secret');
  if (existsSync(file)) {
    const secret = readFileSync(file, 'utf8').trim();
    if (secret.length >= 32) return secret;
  }
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  const env = parseEnv(source);
  const dataDir = path.resolve(env.DATA_DIR);
  const baseUrl = (env.BASE_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, '');
  const origin = new URL(baseUrl).origin;
  return Object.freeze({
    env: env.NODE_ENV,
    port: env.PORT,
    host: env.HOST,
    baseUrl,
    origin,
    secureCookies: origin.startsWith('https:'),
    databaseUrl: env.DATABASE_URL,
    dataDir,
    embeddedPgPort: env.EMBEDDED_PG_PORT,
    databaseTimeoutMs: env.DATABASE_TIMEOUT_MS,
    sessionSecret: env.SESSION_SECRET ?? persistedSessionSecret(dataDir),
    smtpUrl: env.SMTP_URL,
    mailFrom: env.MAIL_FROM,
    trustProxy: Object.freeze(env.TRUST_PROXY) as Config['trustProxy'],
    moderatorEmails: Object.freeze([...env.MODERATOR_EMAILS]),
    logLevel: env.LOG_LEVEL,
    metricsToken: env.METRICS_TOKEN,
    // Unset: the embedded database is a demo or development one; a configured server is
    // someone's real database, which gets neither fictional shops nor unasked-for migrations.
    seedDemoData: (env.SEED_DEMO_DATA ?? String(env.DATABASE_URL === undefined)) === 'true',
    migrateOnStart: (env.MIGRATE_ON_START ?? String(env.DATABASE_URL === undefined)) === 'true',
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    requestTimeoutMs: env.REQUEST_TIMEOUT_MS,
    headersTimeoutMs: env.HEADERS_TIMEOUT_MS,
    webConcurrency: env.WEB_CONCURRENCY,
    limits: Object.freeze({
      publicPerMinute: env.LIMIT_PUBLIC_PER_MINUTE,
      privatePerMinute: env.LIMIT_PRIVATE_PER_MINUTE,
      privateAddressPerMinute: env.LIMIT_PRIVATE_ADDRESS_PER_MINUTE,
      browserSubmissionsPerHour: env.LIMIT_BROWSER_SUBMISSIONS_PER_HOUR,
      agentSubmissionsPerHour: env.LIMIT_AGENT_SUBMISSIONS_PER_HOUR,
      signInPerAddressPerHour: env.LIMIT_SIGN_IN_PER_ADDRESS_PER_HOUR,
      signInPerClientPerHour: env.LIMIT_SIGN_IN_PER_CLIENT_PER_HOUR,
      failedKeysPerAddressPerMinute: env.LIMIT_FAILED_KEYS_PER_ADDRESS_PER_MINUTE,
    }),
    outboundTestHosts: Object.freeze([...env.OUTBOUND_TEST_HOSTS]),
    dnsServers: env.DNS_SERVERS === undefined ? undefined : Object.freeze([...env.DNS_SERVERS]),
  });
}
