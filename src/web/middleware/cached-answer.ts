// How a cached answer is keyed and written (response-cache.ts files and drops them): its key
// from a request or a raw target, the encoding a client accepts, the 304 a client's copy earns,
// and the header blocks the front door hands to writeHead, made once per entry and encoding.
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { Request, Response } from 'express';
import type { PageCheck } from '../../modules/directory/listing.js';
import { canonicalQuery, parseQuery } from './validate.js';
import type { SyncedLimiter } from './rate-limit.js';
import { answeredFor } from './metrics.js';
import { gzip } from '../gzip.js';

/** What an answer was built from: one merchant (and the directory's agents), or many merchants. */
export type Scope = { merchants: ReadonlySet<string> } | 'many';

export interface CacheRule {
  /** Pages show who is signed in: only answers to requests without a cookie are shared. */
  anonymousOnly?: boolean;
  /** The rate limiter the route runs first; the front door counts a cached answer with it. */
  limiter?: SyncedLimiter;
}

export interface Entry {
  expiresAt: number;
  /** For a list: the merchants it shows (cacheShows), whose changes drop it at once. */
  shows: ReadonlySet<string> | null;
  /** For a list the in-memory listing found: its page, found again before it is rebuilt (cachePage). */
  page: PageCheck | null;
  /** When the build of this answer began (the app's clock). */
  builtAt: number;
  scope: Scope;
  /** Set when a change may have altered it: from then on it is served for at most STALE_LISTS_MS. */
  staleSince: number | null;
  etag: string;
  rule: CacheRule;
  /** The route template that built it (metrics label the answers served from it with it). */
  route: string | undefined;
  headers: Array<[string, string | string[]]>;
  /** The same headers flat ([name, value, …]), as the front door hands them to writeHead. */
  flat: Array<string | string[]>;
  /** What a 304 repeats of them (Cache-Control, Vary), flat. */
  notModified: Array<string | string[]>;
  /** Per encoding: the flat headers of a 200 with that body, Content-Encoding and Content-Length included. */
  blocks: Map<'br' | 'gzip' | 'identity', Array<string | string[]>>;
  /** The answer's bytes as built; null once only its gzip copy is kept (`keepCompressed`). */
  identity: Buffer | null;
  /** Their length. */
  length: number;
  encoded: Map<'br' | 'gzip', Promise<Buffer>>;
  /** The encodings already made (served synchronously when the answer is a stale-if-error one). */
  ready: Map<'br' | 'gzip', Buffer>;
}

/** Bodies smaller than this are sent as they are (as the compression middleware does). */
const COMPRESSION_THRESHOLD = 1024;
const brotli = promisify(zlib.brotliCompress);
const gunzip = promisify(zlib.gunzip);
const ENCODERS: Record<'br' | 'gzip', (body: Buffer) => Promise<Buffer>> = {
  // Quality 4: nearly gzip's speed at a smaller size (the compression middleware's choice too).
  br: (body) => brotli(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } }),
  // Large answers in slices side by side (web/gzip.ts).
  gzip: (body) => gzip(body),
};

/**
 * Answers at least this large keep only their gzip copy once it is made. A list page of every
 * agent is 620 KB as built and 41 KB gzipped. Buffers are memory outside V8's heap that only a
 * full collection frees once they have aged, and V8 starts one whenever such memory has grown
 * by 64 MB since the last: each answer filed with its identity bytes brought the next one
 * (50-80 ms of main thread, landing on two or three requests) 620 KB closer, about one every
 * hundred uncached list pages. Clients that take no gzip (few: browsers, fetch, curl
 * --compressed and HTTP libraries all ask for it) get the bytes unzipped again, and brotli is
 * made from them.
 */
const KEEP_ONLY_GZIP_FROM = 64 * 1024;

/** Drops a large entry's identity bytes once its gzip copy is made (before it is filed). */
export function keepCompressed(entry: Entry): void {
  if (entry.identity !== null && entry.length >= KEEP_ONLY_GZIP_FROM && entry.ready.has('gzip')) entry.identity = null;
}

/** The bytes the cache counts for an entry: what it holds, with room for the encodings it may still make. */
export function heldBytes(entry: Entry): number {
  return entry.identity !== null ? Math.ceil(entry.length * 1.5) : Math.ceil(entry.ready.get('gzip')!.length * 2.5);
}

/** The entry's identity bytes: as built, or unzipped again. */
const identityOf = (entry: Entry): Promise<Buffer> => (entry.identity !== null ? Promise.resolve(entry.identity) : gunzip(entry.ready.get('gzip')!));

/** Headers of a failed answer that are the request's own and stay on the stale one served instead. */
const KEPT_ON_FALLBACK = new Set(['x-request-id', 'ratelimit', 'ratelimit-policy']);

/** Escapes the key's own separators, so that distinct queries never share a key. */
const keyPart = (text: string) => (/[%&=]/.test(text) ? text.replace(/[%&=]/g, (c) => (c === '%' ? '%25' : c === '&' ? '%26' : '%3D')) : text);

const KEY = Symbol('response cache key');

/**
 * The key an answer is filed under: the request's path as sent, and the query exactly as its
 * handler reads it (`req.query`, from the app's one query parser) without the parameters every
 * endpoint ignores, in canonical order (validate.ts canonicalQuery). Never the raw text after
 * `?`: a parser reading less of it (a limit on pairs, a fragment, a leading `?`) would file an
 * answer for one query under another's key. Everything else a cached route reads is in the
 * path (params, the raw path in links) or is the same for every request (see docs/decisions.md).
 */
export function cacheKey(req: Request): string {
  const known = (req as Request & { [KEY]?: string })[KEY];
  if (known !== undefined) return known;
  const url = req.originalUrl;
  const mark = url.indexOf('?');
  const key = keyOf(mark < 0 ? url : url.slice(0, mark), mark < 0 ? null : req.query);
  (req as Request & { [KEY]?: string })[KEY] = key;
  return key;
}

/** The key of a path as sent and its parsed query (null: the target had no `?`). */
function keyOf(path: string, query: Record<string, unknown> | null): string {
  let key = path;
  if (query !== null) {
    let separator = '?';
    for (const [name, value] of canonicalQuery(query)) {
      key += `${separator}${keyPart(name)}=${keyPart(value)}`;
      separator = '&';
    }
  }
  return key;
}

/** Characters after which Express's URL parser (parseurl) gives up its fast form and parses the whole URL. */
const NOT_PLAIN = /[\t\n\f\r #\u00a0\ufeff]/;

/**
 * The key of a raw request target as `cacheKey` would make it once Express has read it: the
 * path before `?`, and the query as the app's query parser reads what follows. Undefined for a
 * target that Express's URL parser reads otherwise (not starting with "/", or with a fragment
 * or white space): those go the router's way.
 */
export function targetKey(url: string): string | undefined {
  if (url.charCodeAt(0) !== 47 /* "/" */ || NOT_PLAIN.test(url)) return undefined;
  const mark = url.indexOf('?');
  if (mark < 0) return url;
  // Parsing and ordering a query costs 1.5 µs; clients ask the same few targets again and again.
  let key = queryTargetKeys.get(url);
  if (key === undefined) {
    key = keyOf(url.slice(0, mark), parseQuery(url.slice(mark + 1)));
    if (url.length <= KEYED_TARGET_MAX_LENGTH) {
      if (queryTargetKeys.size >= KEYED_TARGETS_KEPT) queryTargetKeys.clear();
      queryTargetKeys.set(url, key);
    }
  }
  return key;
}

/** Targets with a query and their keys (a key depends on the target alone), at most this many of at most this length. */
const queryTargetKeys = new Map<string, string>();
const KEYED_TARGETS_KEPT = 1024;
const KEYED_TARGET_MAX_LENGTH = 512;

export const weakEtag = (body: Buffer) => `W/"${createHash('sha1').update(body).digest('base64url')}"`;

/**
 * Gives a built entry its ETag, a digest of its bytes. An entry large enough to be kept gzipped
 * only (`keepCompressed`) is digested from its gzip copy, made now (the cache keeps that copy
 * anyway): SHA-1 of a 620 KB list page took about 2 ms of the main thread, of its 41 KB gzip
 * copy a tenth of that. The same bytes gzip to the same bytes (one zlib, one way of slicing,
 * web/gzip.ts), and different bytes to different ones, so the ETag still changes exactly when
 * the answer does.
 */
export async function sealEtag(entry: Entry): Promise<void> {
  entry.etag = entry.length < KEEP_ONLY_GZIP_FROM ? weakEtag(entry.identity!) : weakEtag(await encodedAs(entry, 'gzip'));
}

/** The entry in this encoding, made once (and kept once made). */
function encodedAs(entry: Entry, encoding: 'br' | 'gzip'): Promise<Buffer> {
  let encoded = entry.encoded.get(encoding);
  if (!encoded) {
    encoded = identityOf(entry).then(ENCODERS[encoding]);
    entry.encoded.set(encoding, encoded);
    encoded.then(
      (bytes) => entry.ready.set(encoding, bytes),
      () => entry.encoded.delete(encoding),
    );
  }
  return encoded;
}

/** What the front door does for every answer besides sending it: the request's own work. */
export interface FrontDoor {
  /** The request's id (X-Request-Id), as the request log gives it. */
  requestId(req: Request): string;
  /** After the answer went out: its metrics and its log line. */
  answered(req: Request, res: Response, id: string, route: string | undefined, cache: 'HIT' | 'STALE', started: number): void;
}

/** Accept-Encoding values seen and the encoding each picks (clients send a handful of distinct ones). */
const encodingChoices = new Map<string, 'br' | 'gzip' | 'identity'>();
const ENCODING_CHOICES_KEPT = 256;

/** The encoding of `entry` that the request accepts (br, then gzip, else identity). */
export function encodingFor(req: Request, entry: Entry): 'br' | 'gzip' | 'identity' {
  const header = req.headers['accept-encoding'];
  if (entry.length < COMPRESSION_THRESHOLD || !header) return 'identity';
  let choice = encodingChoices.get(header);
  if (choice === undefined) {
    const accepted = req.acceptsEncodings('br', 'gzip', 'identity');
    choice = accepted === 'br' || accepted === 'gzip' ? accepted : 'identity';
    if (encodingChoices.size >= ENCODING_CHOICES_KEPT) encodingChoices.clear();
    encodingChoices.set(header, choice);
  }
  return choice;
}

/** The flat headers of the entry's 200 in this encoding, after ETag and X-Cache: made once per entry and encoding. */
export function blockOf(entry: Entry, encoding: 'br' | 'gzip' | 'identity', body: Buffer): Array<string | string[]> {
  let block = entry.blocks.get(encoding);
  if (block === undefined) {
    block = encoding === 'identity' ? [...entry.flat] : [...entry.flat, 'Content-Encoding', encoding];
    block.push('Content-Length', String(body.length));
    entry.blocks.set(encoding, block);
  }
  return block;
}

/** Whether the client's copy (If-None-Match, weak comparison) is this entry's. */
export function clientHasCopy(req: Request, etag: string): boolean {
  const match = req.headers['if-none-match'];
  if (!match) return false;
  // A request that insists on revalidation with the origin gets the whole answer.
  if (/(?:^|,)\s*no-cache\s*(?:,|$)/.test(req.headers['cache-control'] ?? '')) return false;
  if (match.trim() === '*') return true;
  const opaque = etag.slice(2);
  return match.split(',').some((tag) => {
    const t = tag.trim();
    return t === etag || t === opaque || t === `W/${opaque}`;
  });
}

export async function send(req: Request, res: Response, entry: Entry, status: 'HIT' | 'STALE' | 'MISS' | 'REVALIDATED'): Promise<void> {
  res.setHeader('ETag', entry.etag);
  res.setHeader('X-Cache', status);
  answeredFor(res, entry.route);
  if (clientHasCopy(req, entry.etag)) {
    // A 304 repeats only what guides caches (RFC 9110 15.4.5): ETag, Cache-Control, Vary.
    for (const [name, value] of entry.headers) if (name === 'cache-control' || name === 'vary') res.setHeader(name, value);
    res.statusCode = 304;
    res.end();
    return;
  }
  for (const [name, value] of entry.headers) res.setHeader(name, value);
  res.statusCode = 200;
  const accepted = encodingFor(req, entry);
  let body: Buffer;
  if (accepted === 'br' || accepted === 'gzip') {
    body = await encodedAs(entry, accepted);
    res.setHeader('Content-Encoding', accepted);
  } else body = await identityOf(entry);
  res.setHeader('Content-Length', body.length);
  res.end(body);
}

/**
 * A cached answer served in place of a failed one (stale if error): synchronously (a deadline's
 * 503 silences the response right after its error handler returns), with Age (seconds since it
 * was built), Warning 111 and X-Cache: STALE-IF-ERROR, and none of the failed answer's headers
 * but the request's own (id, rate limits). An encoding not made yet is not made now: identity.
 */
export function serveStale(req: Request, res: Response, entry: Entry, now: number): void {
  for (const name of res.getHeaderNames()) if (!KEPT_ON_FALLBACK.has(name)) res.removeHeader(name);
  for (const [name, value] of entry.headers) res.setHeader(name, value);
  res.setHeader('ETag', entry.etag);
  res.setHeader('Age', String(Math.max(0, Math.floor((now - entry.builtAt) / 1000))));
  res.setHeader('Warning', '111 - "Revalidation Failed"');
  res.setHeader('X-Cache', 'STALE-IF-ERROR');
  answeredFor(res, entry.route);
  res.statusCode = 200;
  const accepted = encodingFor(req, entry);
  const encoded = accepted === 'identity' ? undefined : entry.ready.get(accepted);
  if (encoded) res.setHeader('Content-Encoding', accepted);
  const body = encoded ?? entry.identity ?? zlib.gunzipSync(entry.ready.get('gzip')!);
  res.setHeader('Content-Length', body.length);
  res.end(body);
}
