// A per-process cache of finished public responses: the body serialized once, compressed once
// per encoding, and filed under the directory version it was built for, with the headers the
// whole middleware stack gave it. A repeated read, or a conditional one, is answered at the
// front door of the app (after the request log and the answer's own rate limiter) without
// touching the database, the session or any renderer. An entry is served only while its
// version is the current one (see modules/directory/version.ts) and for at most `ttlMs` by the
// app's clock, since some answers also move with time (sponsorships running now, `days`).
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { Request, RequestHandler, Response } from 'express';
import { LRUCache } from 'lru-cache';
import type { Clock } from '../../clock.js';
import type { DirectoryVersions } from '../../modules/directory/version.js';
import { canonicalQuery } from './validate.js';
import type { SyncedLimiter } from './rate-limit.js';
import { answeredFor, routeTemplate } from './metrics.js';

/** Bodies smaller than this are sent as they are (as the compression middleware does). */
const COMPRESSION_THRESHOLD = 1024;
/** Headers that belong to one request or one encoding; every other header is kept and repeated. */
const PER_REQUEST_HEADERS = new Set([
  'x-request-id',
  'ratelimit',
  'ratelimit-policy',
  'retry-after',
  'x-cache',
  'content-length',
  'content-encoding',
  'etag',
  'set-cookie',
  'date',
]);

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);
const ENCODERS: Record<'br' | 'gzip', (body: Buffer) => Promise<Buffer>> = {
  // Quality 4: nearly gzip's speed at a smaller size (the compression middleware's choice too).
  br: (body) => brotli(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } }),
  gzip: (body) => gzip(body),
};

interface Entry {
  version: bigint;
  expiresAt: number;
  etag: string;
  rule: CacheRule;
  /** The route template that built it (metrics label the answers served from it with it). */
  route: string | undefined;
  headers: Array<[string, string | string[]]>;
  identity: Buffer;
  encoded: Map<'br' | 'gzip', Promise<Buffer>>;
}

export interface ResponseCacheOptions {
  versions: DirectoryVersions;
  clock: Clock;
  /** Longest life of an entry, whatever the version (default 60 s, the public max-age). */
  ttlMs?: number;
  /** Memory budget for bodies (default 64 MB). */
  maxBytes?: number;
  /**
   * Runs instead of `next` for every answer not served from the cache (compression): a cached
   * answer is compressed once, and skipping the middleware for it saves its per-request cost.
   */
  proceed?: RequestHandler;
}

export interface CacheRule {
  /** Pages show who is signed in: only answers to requests without a cookie are shared. */
  anonymousOnly?: boolean;
  /** The rate limiter the route runs first; the front door counts a cached answer with it. */
  limiter?: SyncedLimiter;
}

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
  let key = mark < 0 ? url : url.slice(0, mark);
  if (mark >= 0) {
    let separator = '?';
    for (const [name, value] of canonicalQuery(req.query)) {
      key += `${separator}${keyPart(name)}=${keyPart(value)}`;
      separator = '&';
    }
  }
  (req as Request & { [KEY]?: string })[KEY] = key;
  return key;
}

const weakEtag = (body: Buffer) => `W/"${createHash('sha1').update(body).digest('base64url')}"`;

export class ResponseCache {
  private readonly entries: LRUCache<string, Entry>;
  private readonly filling = new Map<string, Promise<Entry | undefined>>();
  private readonly ttlMs: number;

  constructor(private readonly options: ResponseCacheOptions) {
    this.ttlMs = options.ttlMs ?? 60_000;
    this.entries = new LRUCache<string, Entry>({
      maxSize: options.maxBytes ?? 64 * 1024 * 1024,
      // The identity body plus room for its compressed copies, and the key (up to the 16 KB a
      // request line may have).
      sizeCalculation: (entry, key) => Math.ceil(entry.identity.length * 1.5) + 2 * key.length + 512,
    });
  }

  /** Entries held now (for tests and metrics). */
  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }

  private fresh(key: string, version: bigint): Entry | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.version === version && entry.expiresAt > this.options.clock.now().getTime()) return entry;
    this.entries.delete(key);
    return undefined;
  }

  /**
   * Answers a request whose answer is cached, before the rest of the stack: its limiter counts
   * it, then the stored answer (or a 304) goes out. Anything else goes on to the routers.
   */
  frontDoor(): RequestHandler {
    return (req, res, next) => {
      if (req.method !== 'GET' && req.method !== 'HEAD') return next();
      const version = this.options.versions.current();
      if (version === null) return next();
      const entry = this.fresh(cacheKey(req), version);
      if (!entry || (entry.rule.anonymousOnly && req.headers.cookie)) return next();
      // A refused request goes on to its route, whose limiter answers it (counted once).
      if (entry.rule.limiter && !entry.rule.limiter.decide(req, res)) return next();
      void send(req, res, entry, 'HIT').catch(next);
    };
  }

  /** Middleware for GET routes whose 200 answers depend only on the URL and the directory. */
  middleware(rule: CacheRule = {}): RequestHandler {
    const proceed = this.options.proceed;
    return async (req, res, nextHandler) => {
      const next = proceed ? () => proceed(req, res, nextHandler) : nextHandler;
      const version = this.options.versions.current();
      if ((req.method !== 'GET' && req.method !== 'HEAD') || version === null || (rule.anonymousOnly && req.headers.cookie)) {
        res.setHeader('X-Cache', 'BYPASS');
        next();
        return;
      }
      const key = cacheKey(req);
      const cached = this.fresh(key, version);
      if (cached) return send(req, res, cached, 'HIT');
      // Requests arriving while the same answer is being built wait for it instead of
      // building it again (after each directory change, every reader misses at once).
      const pending = this.filling.get(key);
      if (pending) {
        const entry = await pending;
        if (entry && entry.version === version) return send(req, res, entry, 'HIT');
        res.setHeader('X-Cache', 'MISS');
        next();
        return;
      }
      let settle!: (entry: Entry | undefined) => void;
      const filling = new Promise<Entry | undefined>((resolve) => (settle = resolve));
      this.filling.set(key, filling);
      const done = (entry: Entry | undefined) => {
        if (this.filling.get(key) === filling) this.filling.delete(key);
        settle(entry);
      };
      res.once('close', () => done(undefined));
      const originalSend = res.send;
      res.send = (body?: unknown) => {
        res.send = originalSend;
        const entry = this.entryOf(res, body, version, rule);
        if (!entry) {
          done(undefined);
          return originalSend.call(res, body);
        }
        send(req, res, entry, 'MISS').then(
          () => {
            // Only now are all headers known: a response that set a cookie (a session began,
            // say for a form's CSRF token) belongs to its requester alone.
            const shared = res.getHeader('Set-Cookie') === undefined && this.options.versions.current() === version;
            if (shared) this.entries.set(key, entry);
            done(shared ? entry : undefined);
          },
          (error: unknown) => {
            done(undefined);
            nextHandler(error);
          },
        );
        return res;
      };
      res.setHeader('X-Cache', 'MISS');
      next();
    };
  }

  /** A cacheable copy of a finished 200 answer, or undefined when it must not be shared. */
  private entryOf(res: Response, body: unknown, version: bigint, rule: CacheRule): Entry | undefined {
    if (res.statusCode !== 200) return undefined;
    if (typeof body !== 'string' && !Buffer.isBuffer(body)) return undefined;
    const identity = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    const type = String(res.getHeader('Content-Type') ?? (typeof body === 'string' ? 'text/html' : 'application/octet-stream'));
    res.setHeader('Content-Type', typeof body === 'string' && !/charset=/i.test(type) ? `${type}; charset=utf-8` : type);
    // Every encoding of the answer is chosen by Accept-Encoding.
    const vary = String(res.getHeader('Vary') ?? '');
    if (!/(^|,)\s*(accept-encoding|\*)\s*(,|$)/i.test(vary)) res.setHeader('Vary', vary ? `${vary}, Accept-Encoding` : 'Accept-Encoding');
    const headers: Entry['headers'] = [];
    for (const [name, value] of Object.entries(res.getHeaders())) {
      if (value !== undefined && !PER_REQUEST_HEADERS.has(name)) headers.push([name, typeof value === 'number' ? String(value) : value]);
    }
    return {
      version,
      expiresAt: this.options.clock.now().getTime() + this.ttlMs,
      etag: weakEtag(identity),
      rule,
      route: routeTemplate(res.req),
      headers,
      identity,
      encoded: new Map(),
    };
  }
}

/** Whether the client's copy (If-None-Match, weak comparison) is this entry's. */
function clientHasCopy(req: Request, etag: string): boolean {
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

async function send(req: Request, res: Response, entry: Entry, status: 'HIT' | 'MISS'): Promise<void> {
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
  const accepted =
    entry.identity.length >= COMPRESSION_THRESHOLD && req.headers['accept-encoding']
      ? req.acceptsEncodings('br', 'gzip', 'identity')
      : 'identity';
  let body = entry.identity;
  if (accepted === 'br' || accepted === 'gzip') {
    let encoded = entry.encoded.get(accepted);
    if (!encoded) {
      encoded = ENCODERS[accepted](entry.identity);
      entry.encoded.set(accepted, encoded);
      encoded.catch(() => entry.encoded.delete(accepted));
    }
    body = await encoded;
    res.setHeader('Content-Encoding', accepted);
  }
  res.setHeader('Content-Length', body.length);
  res.end(body);
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Holds the end of every state-changing response until this process has learnt the directory
 * version the request may have committed, so that the writer's next read (and, as every
 * process is told at the same moment, anyone's) never gets an answer cached before the change.
 */
export function settleWrites(versions: DirectoryVersions): RequestHandler {
  return (req, res, next) => {
    if (SAFE_METHODS.has(req.method)) return next();
    const end = res.end;
    res.end = function (this: Response, ...args: unknown[]) {
      res.end = end;
      // A refused request changed nothing.
      if (res.statusCode >= 400) return (end as (...a: unknown[]) => Response).apply(res, args);
      void versions.settle().finally(() => (end as (...a: unknown[]) => Response).apply(res, args));
      return res;
    } as Response['end'];
    next();
  };
}
