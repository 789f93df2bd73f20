// The fetcher's resolver: the configured DNS servers (DNS_SERVERS) for both the HTTP
// connection's lookup and TXT records, or the system's resolver without them. One Resolver per
// fetch or lookup, so a deadline can cancel its queries without touching anyone else's.
import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { seconds, type TxtResult } from './results.js';

// Answers that mean "this name has no such record", as opposed to a server that failed.
const NO_RECORD = new Set(['ENODATA', 'ENOTFOUND']);
const TIMED_OUT = new Set(['ETIMEOUT', 'ECANCELLED']);

const codeOf = (error: unknown) => (error as NodeJS.ErrnoException | undefined)?.code ?? '';

/**
 * A resolver whose queries give up within about timeoutMs: two tries per server, so one lost
 * UDP packet is not a failure. The caller's deadline cancels it in any case.
 */
export function createResolver(servers: readonly string[] | undefined, timeoutMs: number): dns.promises.Resolver {
  const resolver = new dns.promises.Resolver({ timeout: Math.max(1, Math.ceil(timeoutMs / 2)), tries: 2 });
  if (servers !== undefined) resolver.setServers([...servers]);
  return resolver;
}

async function records(query: Promise<string[]>): Promise<string[]> {
  try {
    return await query;
  } catch (error) {
    if (NO_RECORD.has(codeOf(error))) return [];
    throw error;
  }
}

async function addressesOf(resolver: dns.promises.Resolver, hostname: string, family: number): Promise<dns.LookupAddress[]> {
  let v4: string[] = [];
  if (family !== 6) {
    try {
      v4 = await resolver.resolve4(hostname);
    } catch (error) {
      // Only "no A record" goes on to AAAA: a name that does not exist (ENOTFOUND) has none either.
      if (codeOf(error) !== 'ENODATA') throw error;
    }
  }
  const v6 = family === 4 ? [] : await records(resolver.resolve6(hostname));
  const all = [
    ...v4.map((address) => ({ address, family: 4 })),
    ...v6.map((address) => ({ address, family: 6 })),
  ];
  if (all.length === 0) {
    throw Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND', hostname });
  }
  return all;
}

/**
 * A `lookup` for net.connect that asks the resolver (A, then AAAA). request-filtering-agent
 * wraps it and checks every address it returns before a socket connects.
 */
export function resolverLookup(resolver: dns.promises.Resolver): LookupFunction {
  return (hostname, options, callback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : (options.family ?? 0);
    addressesOf(resolver, hostname, family).then(
      (addresses) => {
        if (options.all) callback(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, options.all ? [] : ''),
    );
  };
}

const LABEL = /^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/;

/** A DNS name to look TXT records up at: labels of letters, digits, '-' and '_', no IP address. */
function txtName(name: string): string | undefined {
  const normal = name.trim().toLowerCase().replace(/\.$/, '');
  if (normal.length === 0 || normal.length > 253) return undefined;
  const labels = normal.split('.');
  if (labels.length < 2 || !labels.every((label) => LABEL.test(label))) return undefined;
  if (/^[0-9.]+$/.test(normal)) return undefined;
  return normal;
}

/** The TXT records at name, each record's strings joined (as a record longer than 255 bytes is split). */
export async function lookupTxt(
  name: string,
  servers: readonly string[] | undefined,
  timeoutMs: number,
): Promise<TxtResult> {
  const normal = txtName(name);
  if (normal === undefined) return { ok: false, reason: 'bad-url', detail: `"${name}" is not a valid domain name.` };
  const resolver = createResolver(servers, timeoutMs);
  const tooSlow: TxtResult = {
    ok: false,
    reason: 'too-slow',
    detail: `The name server did not answer within ${seconds(timeoutMs)}.`,
  };
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<TxtResult>((resolve) => {
    timer = setTimeout(() => resolve(tooSlow), timeoutMs);
  });
  const query = resolver.resolveTxt(normal).then(
    (answer): TxtResult => {
      const found = answer.map((strings) => strings.join(''));
      return found.length > 0
        ? { ok: true, records: found }
        : { ok: false, reason: 'not-found', detail: `No TXT record was found at ${normal}.` };
    },
    (error: unknown): TxtResult => {
      const code = codeOf(error);
      if (NO_RECORD.has(code)) return { ok: false, reason: 'not-found', detail: `No TXT record was found at ${normal}.` };
      if (TIMED_OUT.has(code)) return tooSlow;
      return { ok: false, reason: 'unreachable', detail: `The name server could not answer for ${normal}.` };
    },
  );
  try {
    return await Promise.race([query, deadline]);
  } finally {
    clearTimeout(timer);
    resolver.cancel();
  }
}
