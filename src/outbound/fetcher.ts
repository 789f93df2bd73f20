// The service's one outbound fetcher (issue 34): ownership checks fetch pages and read TXT
// records through it, and nothing else opens sockets to hosts that users type. Its rules and
// limits are in docs/decisions.md, "The outbound fetcher (issue 34)".
//
// Every connection goes through request-filtering-agent, which checks the address that the
// lookup resolved (or the IP literal) just before the socket connects: a check before the
// request would leave room for DNS rebinding between the check and the connection.
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';
import type { Config, OutboundTestHosts } from '../config/env.js';
import { bareHost, checkUrl, matchTestHost, portOf, redirectTarget, refusedAddressDetail } from './addresses.js';
import { createResolver, lookupTxt, resolverLookup } from './dns.js';
import { failure, seconds, size, type Failed, type FetchResult, type TxtResult } from './results.js';

export type { FetchFailure,    } from './results.js';
;

export interface Fetcher {
  /** GET an http(s) URL and read its body as text, within the limits. Never throws. */
  fetchText(url: string): Promise<FetchResult>;
  /** The TXT records at a DNS name, through the same resolver and time limit. Never throws. */
  resolveTxt(name: string): Promise<TxtResult>;
}

export interface FetcherOptions {
  /** Names served by local test servers over plain HTTP (OUTBOUND_TEST_HOSTS; never in production). */
  testHosts?: OutboundTestHosts;
  /** Resolvers (DNS_SERVERS, `host` or `host:port`); unset: the system's resolver. */
  dnsServers?: readonly string[];
  userAgent: string;
  /** Largest body read, in bytes. */
  maxBytes?: number;
  /** Longest a whole fetch (every redirect included) or a TXT lookup may take. */
  timeoutMs?: number;
  maxRedirects?: number;
}

export const DEFAULT_MAX_BYTES = 65_536;
export const DEFAULT_TIMEOUT_MS = 5_000;
const DEFAULT_MAX_REDIRECTS = 3;
const MAX_HEADER_BYTES = 16_384;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** The User-Agent of the checker: the service's name and a page that explains the checks. */
export function checkerUserAgent(baseUrl: string): string {
  return `AgentCompatibilityDirectory-Checker/1.0 (+${baseUrl.replace(/\/+$/, '')}/how-it-works#ownership)`;
}

/** The fetcher as the configuration sets it up. */
export function fetcherFromConfig(config: Pick<Config, 'baseUrl' | 'outboundTestHosts' | 'dnsServers'>): Fetcher {
  return createFetcher({
    testHosts: config.outboundTestHosts,
    dnsServers: config.dnsServers,
    userAgent: checkerUserAgent(config.baseUrl),
  });
}

interface Settings {
  testHosts: OutboundTestHosts;
  dnsServers: readonly string[] | undefined;
  userAgent: string;
  maxBytes: number;
  timeoutMs: number;
  maxRedirects: number;
  agents: { http: http.Agent; https: https.Agent; testHost: http.Agent };
}

// One fetch: its deadline and, with DNS_SERVERS, its own resolver.
interface Attempt extends Settings {
  signal: AbortSignal;
  lookup: LookupFunction | undefined;
}

type Hop = { kind: 'redirect'; status: number; location: string | undefined } | { kind: 'done'; result: FetchResult };

export function createFetcher(options: FetcherOptions): Fetcher {
  const wholeNumber = (value: number | undefined, fallback: number, name: string) => {
    const chosen = value ?? fallback;
    if (!Number.isInteger(chosen) || chosen < 0) throw new RangeError(`${name} must be a whole number, at least 0`);
    return chosen;
  };
  const settings: Settings = {
    testHosts: options.testHosts ?? [],
    // An empty list names no resolver at all: the system's, as when it is unset.
    dnsServers: options.dnsServers?.length ? options.dnsServers : undefined,
    userAgent: options.userAgent,
    maxBytes: wholeNumber(options.maxBytes, DEFAULT_MAX_BYTES, 'maxBytes'),
    timeoutMs: wholeNumber(options.timeoutMs, DEFAULT_TIMEOUT_MS, 'timeoutMs'),
    maxRedirects: wholeNumber(options.maxRedirects, DEFAULT_MAX_REDIRECTS, 'maxRedirects'),
    // No keep-alive: each connection is made (and its address checked) anew, and no socket
    // outlives its fetch.
    agents: {
      http: new RequestFilteringHttpAgent({ keepAlive: false }),
      https: new RequestFilteringHttpsAgent({ keepAlive: false }),
      // The test door: plain HTTP to a loopback address the configuration named.
      testHost: new http.Agent({ keepAlive: false }),
    },
  };
  return {
    fetchText: (url) => fetchText(url, settings),
    resolveTxt: (name) => lookupTxt(name, settings.dnsServers, settings.timeoutMs),
  };
}

async function fetchText(raw: string, settings: Settings): Promise<FetchResult> {
  const checked = checkUrl(raw);
  if (!checked.ok) return checked.failure;
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), settings.timeoutMs);
  const resolver = settings.dnsServers === undefined ? undefined : createResolver(settings.dnsServers, settings.timeoutMs);
  const attempt: Attempt = { ...settings, signal: deadline.signal, lookup: resolver && resolverLookup(resolver) };
  try {
    let url = checked.url;
    for (let redirects = 0; ; redirects += 1) {
      const hop = await requestOnce(url, attempt);
      if (hop.kind === 'done') return hop.result;
      const next = redirectTarget(url, hop.status, hop.location, redirects, settings.maxRedirects);
      if (!next.ok) return next.failure;
      url = next.url;
    }
  } finally {
    clearTimeout(timer);
    resolver?.cancel();
  }
}

function requestOnce(url: URL, attempt: Attempt): Promise<Hop> {
  return new Promise((resolve) => {
    const done = (result: FetchResult) => resolve({ kind: 'done', result });
    const base = {
      method: 'GET',
      path: `${url.pathname}${url.search}`,
      headers: {
        host: url.host,
        'user-agent': attempt.userAgent,
        accept: 'text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.8',
        'accept-encoding': 'identity',
      },
      signal: attempt.signal,
      maxHeaderSize: MAX_HEADER_BYTES,
    };
    const testHost = matchTestHost(attempt.testHosts, url.hostname);
    let request: http.ClientRequest;
    if (testHost) {
      request = http.request({ ...base, host: testHost.address, port: testHost.port, agent: attempt.agents.testHost });
    } else {
      const target = { ...base, host: bareHost(url), port: portOf(url), lookup: attempt.lookup };
      request =
        url.protocol === 'https:'
          ? https.request({ ...target, agent: attempt.agents.https })
          : http.request({ ...target, agent: attempt.agents.http });
    }
    // Stays attached after the answer: a late socket error must not become an uncaught one.
    request.on('error', (error) => done(failureFrom(error, url, attempt)));
    // Resolving with the reading's promise settles the outcome now: from here on, a broken
    // connection is the body's failure, told by readResponse.
    request.on('response', (response) => {
      resolve(
        readResponse(response, request, url, attempt).catch((error: unknown): Hop => ({
          kind: 'done',
          result: failureFrom(error, url, attempt),
        })),
      );
    });
    request.end();
  });
}

async function readResponse(
  response: http.IncomingMessage,
  request: http.ClientRequest,
  url: URL,
  attempt: Attempt,
): Promise<Hop> {
  const status = response.statusCode ?? 0;
  const stop = () => request.destroy();
  if (REDIRECTS.has(status)) {
    stop();
    return { kind: 'redirect', status, location: response.headers.location };
  }
  if (status < 200 || status > 299) {
    stop();
    return { kind: 'done', result: statusFailure(status) };
  }
  const tooLarge: Hop = { kind: 'done', result: failure('too-large', `The answer was larger than ${size(attempt.maxBytes)}.`) };
  const declared = Number(response.headers['content-length']);
  if (Number.isFinite(declared) && declared > attempt.maxBytes) {
    stop();
    return tooLarge;
  }
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of decoded(response)) {
      length += (chunk as Buffer).length;
      if (length > attempt.maxBytes) {
        stop();
        return tooLarge;
      }
      chunks.push(chunk as Buffer);
    }
  } finally {
    // Whatever ended the loop (a limit, a deadline, a broken stream), the socket goes with it.
    if (!response.complete) stop();
  }
  const contentType = response.headers['content-type'] ?? null;
  return {
    kind: 'done',
    result: { ok: true, status, url: url.href, contentType, body: text(Buffer.concat(chunks), contentType) },
  };
}

// We ask for no encoding; a server that compresses anyway is still read, and the size limit
// counts what it decompresses to (a small compressed bomb stops at the limit too).
function decoded(response: http.IncomingMessage): Readable {
  const encoding = (response.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? createGunzip()
      : encoding === 'deflate'
        ? createInflate()
        : encoding === 'br'
          ? createBrotliDecompress()
          : undefined;
  if (!decoder) return response;
  response.on('error', (error) => decoder.destroy(error));
  return response.pipe(decoder);
}

function text(body: Buffer, contentType: string | null): string {
  const charset = /charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '')?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

function statusFailure(status: number): Failed {
  if (status === 404) return failure('not-found', 'The server answered 404: nothing was found at this address.', status);
  if (status === 410) return failure('not-found', 'The server answered 410: the page is gone.', status);
  return failure('http-error', `The server answered ${status} instead of the page.`, status);
}

const TLS = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH)/;

function failureFrom(error: unknown, url: URL, attempt: Attempt): Failed {
  // Whatever broke once the deadline passed broke because of it.
  if (attempt.signal.aborted) return failure('too-slow', `The server took longer than ${seconds(attempt.timeoutMs)}.`);
  const err = error instanceof Error ? error : new Error(String(error));
  const refused = refusedAddressDetail(err, url);
  if (refused) return failure('address-refused', refused);
  const code = (err as NodeJS.ErrnoException).code ?? '';
  const host = bareHost(url);
  if (code === 'ENOTFOUND' || code === 'ENODATA') return failure('unreachable', `No address was found for ${host}.`);
  if (code === 'ETIMEOUT') return failure('too-slow', `The name server did not answer for ${host} in time.`);
  if (code === 'ECONNREFUSED') return failure('unreachable', `${host} refused the connection.`);
  if (code === 'HPE_HEADER_OVERFLOW') return failure('too-large', `The answer's headers were larger than ${size(MAX_HEADER_BYTES)}.`);
  if (code.startsWith('HPE_')) return failure('unreachable', `The answer from ${host} was not valid HTTP.`);
  if (code.startsWith('Z_')) return failure('unreachable', `The compressed answer from ${host} could not be read.`);
  if (TLS.test(code)) return failure('unreachable', `The secure (HTTPS) connection to ${host} could not be verified.`);
  if (code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE') {
    return failure('unreachable', `${host} closed the connection before its answer was complete.`);
  }
  return failure('unreachable', `${host} could not be reached.`);
}
