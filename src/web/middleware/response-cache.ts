// A per-process cache of finished public responses: the body serialized once, compressed once
// per encoding, and filed under the directory version it was built for, with the headers the
// whole middleware stack gave it. A repeated read, or a conditional one, is answered at the
// front door of the app (after the request log and the answer's own rate limiter) without
// touching the database, the session or any renderer. Entries live for at most `ttlMs` by the
// app's clock, since some answers also move with time (sponsorships running now, `days`).
//
// What a change throws away depends on what it changed (modules/directory/version.ts):
//   - a change of everything (agents, categories, a gap in what this process heard) empties
//     the cache;
//   - a change of some merchants drops the answers built from those merchants alone (their
//     profiles, pages, badges and feeds: `cacheScope`), keeps every other merchant's, and
//     drops the lists that show one of them (their page of results: `cacheShows`), and marks
//     every other answer (lists, counts, feeds, indexes: anything built from many merchants)
//     stale: a stale answer is still served for at most `staleMs` after the change, while one
//     request rebuilds it, and no sooner than `rebuildEveryMs` after it was built (so a list is
//     rebuilt at most once per interval however fast the directory changes);
//   - a change of nothing public (a statement that rewrote equal values) keeps everything.
// Requests for one answer that is missing, or stale past its bound, wait for the one request
// building it (single flight) rather than each building it again.
//
// Stale if error: while the database cannot be reached, a request whose build fails with a 503
// is answered with the cached answer it would have replaced, for at most `staleIfErrorMs` past
// that answer's normal life (a CDN's `stale-if-error`), with `Age`, `Warning: 111` and
// `X-Cache: STALE-IF-ERROR`. After such a failure, and while the directory version is unknown
// (the listener has lost the database), the next requests get it at once for OUTAGE_RECHECK_MS
// rather than each waiting for the database's deadline; then one tries the database again.
// Nothing is served this way once the version is known again: the normal bounds apply, and a
// change announced meanwhile drops what it changed (a gap drops everything).
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { Request, RequestHandler, Response } from 'express';
import { LRUCache } from 'lru-cache';
import type { Clock } from '../../clock.js';
import type { DirectoryChange, DirectoryVersions } from '../../modules/directory/version.js';
import { canonicalQuery } from './validate.js';
import type { SyncedLimiter } from './rate-limit.js';
import { answeredFor, routeTemplate } from './metrics.js';
import { answeredByDeadline } from './deadline.js';
import { STALE_IF_ERROR_SECONDS } from '../cache-control.js';

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

/**
 * How long an answer built from many merchants may be served after a change of a merchant it
 * does not show (which may still move that merchant into it, or change its order or total).
 */
export const STALE_LISTS_MS = 10_000;
/** The shortest time between two builds of such an answer while the directory keeps changing. */
export const REBUILD_LISTS_EVERY_MS = 5_000;
/** Changes remembered to check the answers being built meanwhile; older builds are not filed. */
const CHANGES_KEPT = 1_024;
/** After an outage answer, how long stale answers go out at once before a request tries the database again. */
const OUTAGE_RECHECK_MS = 5_000;
/** Headers of a failed answer that are the request's own and stay on the stale one served instead. */
const KEPT_ON_FALLBACK = new Set(['x-request-id', 'ratelimit', 'ratelimit-policy']);

/** What an answer was built from: one merchant (and the directory's agents), or many merchants. */
type Scope = { merchants: ReadonlySet<string> } | 'many';

const SCOPE = Symbol('response cache scope');
const SHOWS = Symbol('response cache shows');

/**
 * Declares that the answer being built shows these merchants alone (a merchant's profile, page,
 * badge or feed): a change of other merchants keeps it. Without it an answer is taken to be
 * built from many merchants (a list, a count), which any merchant's change may alter.
 */
export function cacheScope(res: Response, merchantIds: readonly string[]): void {
  (res.locals as { [SCOPE]?: Scope })[SCOPE] = { merchants: new Set(merchantIds.map((id) => id.toLowerCase())) };
}

/**
 * Declares the merchants a list answer shows (its page of results): a change of one of them
 * drops the answer at once, like a profile; a change of any other merchant only makes it stale.
 */
export function cacheShows(res: Response, merchantIds: Iterable<string>): void {
  (res.locals as { [SHOWS]?: ReadonlySet<string> })[SHOWS] = new Set([...merchantIds].map((id) => id.toLowerCase()));
}

interface Entry {
  expiresAt: number;
  /** For a list: the merchants it shows (cacheShows), whose changes drop it at once. */
  shows: ReadonlySet<string> | null;
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
  identity: Buffer;
  encoded: Map<'br' | 'gzip', Promise<Buffer>>;
  /** The encodings already made (served synchronously when the answer is a stale-if-error one). */
  ready: Map<'br' | 'gzip', Buffer>;
}

export interface ResponseCacheOptions {
  versions: DirectoryVersions;
  clock: Clock;
  /** Longest life of an entry, whatever the version (default 60 s, the public max-age). */
  ttlMs?: number;
  /** Memory budget for bodies (default 64 MB). */
  maxBytes?: number;
  /** Longest service of a stale answer built from many merchants (default STALE_LISTS_MS). */
  staleMs?: number;
  /** Shortest time between two builds of such an answer (default REBUILD_LISTS_EVERY_MS). */
  rebuildEveryMs?: number;
  /** How long past its life an answer may be served while the database fails (default STALE_IF_ERROR_SECONDS). */
  staleIfErrorMs?: number;
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
function cacheKey(req: Request): string {
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

type Change = { seq: number; at: number; change: DirectoryChange };

/** What the cache can do for a request now. */
type Lookup =
  | { kind: 'serve'; entry: Entry; status: 'HIT' | 'STALE' }
  | { kind: 'wait'; pending: Promise<Entry | undefined> }
  | { kind: 'build' };

export class ResponseCache {
  private readonly entries: LRUCache<string, Entry>;
  private readonly filling = new Map<string, Promise<Entry | undefined>>();
  private readonly ttlMs: number;
  private readonly staleMs: number;
  private readonly rebuildEveryMs: number;
  private readonly staleIfErrorMs: number;
  /** When a build last failed with a 503 while answers were cached (the app clock), or null. */
  private outageAt: number | null = null;
  /** The changes heard lately, oldest first, numbered by `seq`. */
  private readonly changes: Change[] = [];
  private seq = 0;
  private readonly stopListening: () => void;

  constructor(private readonly options: ResponseCacheOptions) {
    this.ttlMs = options.ttlMs ?? 60_000;
    this.staleMs = options.staleMs ?? STALE_LISTS_MS;
    this.rebuildEveryMs = options.rebuildEveryMs ?? REBUILD_LISTS_EVERY_MS;
    this.staleIfErrorMs = options.staleIfErrorMs ?? STALE_IF_ERROR_SECONDS * 1000;
    this.entries = new LRUCache<string, Entry>({
      maxSize: options.maxBytes ?? 64 * 1024 * 1024,
      // The identity body plus room for its compressed copies, and the key (up to the 16 KB a
      // request line may have).
      sizeCalculation: (entry, key) => Math.ceil(entry.identity.length * 1.5) + 2 * key.length + 512,
    });
    this.stopListening = options.versions.onChange((change) => this.changed(change));
  }

  /** Entries held now (for tests and metrics). */
  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }

  /** Stops hearing of changes (the app is closing). */
  close(): void {
    this.stopListening();
  }

  private now(): number {
    return this.options.clock.now().getTime();
  }

  /** Applies a change the version listener heard, before it names the change's version. */
  private changed(change: DirectoryChange): void {
    const { scope } = change;
    if (!scope.all && scope.merchants.length === 0) return;
    const at = this.now();
    this.changes.push({ seq: ++this.seq, at, change });
    if (this.changes.length > CHANGES_KEPT) this.changes.shift();
    if (scope.all) {
      this.entries.clear();
      return;
    }
    const dropped: string[] = [];
    for (const [key, entry] of this.entries.entries()) {
      const shown = entry.scope === 'many' ? entry.shows : entry.scope.merchants;
      if (shown && scope.merchants.some((id) => shown.has(id))) dropped.push(key);
      else if (entry.scope === 'many') entry.staleSince ??= at;
    }
    for (const key of dropped) this.entries.delete(key);
  }

  /**
   * Whether an answer built since change number `since` may be filed, and from when it is
   * stale: no when a change since then may have altered it (a change of everything, or of a
   * merchant it shows alone) or when those changes are no longer all remembered.
   */
  private fileable(since: number, entry: Entry): { staleSince: number | null } | null {
    if (this.seq === since) return { staleSince: null };
    const first = this.changes[0];
    if (!first || first.seq > since + 1) return null;
    const shown = entry.scope === 'many' ? entry.shows : entry.scope.merchants;
    let staleSince: number | null = null;
    for (const { seq, at, change } of this.changes) {
      if (seq <= since) continue;
      if (change.scope.all) return null;
      if (shown && change.scope.merchants.some((id) => shown.has(id))) return null;
      if (entry.scope === 'many') staleSince ??= at;
    }
    return { staleSince };
  }

  /** Serve, wait for the build in flight, or build: the one rule for the front door and the routes. */
  private lookup(key: string): Lookup {
    const now = this.now();
    const entry = this.entries.get(key);
    const pending = this.filling.get(key);
    if (entry && entry.expiresAt > now) {
      if (entry.staleSince === null) return { kind: 'serve', entry, status: 'HIT' };
      if (now - entry.staleSince < this.staleMs) {
        // One request rebuilds it (not before the interval is up); the others meanwhile get it.
        if (pending || now - entry.builtAt < this.rebuildEveryMs) return { kind: 'serve', entry, status: 'STALE' };
        return { kind: 'build' };
      }
    }
    // Past its life it is never served as usual, but kept while it may still stand in for an
    // answer the database cannot give (stale if error).
    if (entry && !this.usableOnError(entry, now)) this.entries.delete(key);
    return pending ? { kind: 'wait', pending } : { kind: 'build' };
  }

  private usableOnError(entry: Entry, now: number): boolean {
    return now < entry.expiresAt + this.staleIfErrorMs;
  }

  /** The cached answer that may stand in for a failed build of `key` now, if any. */
  private fallback(key: string): Entry | undefined {
    const entry = this.entries.peek(key);
    return entry && this.usableOnError(entry, this.now()) ? entry : undefined;
  }

  /**
   * Makes a 503 that the build (or bypass) of `key` answers a stale-if-error answer instead,
   * when one is cached; any answer clears the outage mark unless it is such a 503.
   */
  private standInOnError(key: string, req: Request, res: Response, rule: CacheRule): void {
    const send = res.send;
    res.send = (body?: unknown) => {
      res.send = send;
      if (res.statusCode === 503) {
        const entry = rule.anonymousOnly && req.headers.cookie ? undefined : this.fallback(key);
        if (entry) {
          this.outageAt = this.now();
          serveStale(req, res, entry, this.now());
          return res;
        }
      } else if (res.statusCode < 500) {
        this.outageAt = null;
      }
      return send.call(res, body);
    };
  }

  /**
   * Answers a request whose answer is cached, before the rest of the stack: its limiter counts
   * it, then the stored answer (or a 304) goes out. Anything else goes on to the routers.
   */
  frontDoor(): RequestHandler {
    return (req, res, next) => {
      if (req.method !== 'GET' && req.method !== 'HEAD') return next();
      if (this.options.versions.current() === null) return next();
      const found = this.lookup(cacheKey(req));
      if (found.kind !== 'serve') return next();
      const entry = found.entry;
      if (entry.rule.anonymousOnly && req.headers.cookie) return next();
      // A refused request goes on to its route, whose limiter answers it (counted once).
      if (entry.rule.limiter && !entry.rule.limiter.decide(req, res)) return next();
      void send(req, res, entry, found.status).catch(next);
    };
  }

  /** Middleware for GET routes whose 200 answers depend only on the URL and the directory. */
  middleware(rule: CacheRule = {}): RequestHandler {
    const proceed = this.options.proceed;
    return async (req, res, nextHandler) => {
      const next = proceed ? () => proceed(req, res, nextHandler) : nextHandler;
      const bypass = () => {
        res.setHeader('X-Cache', 'BYPASS');
        next();
      };
      if ((req.method !== 'GET' && req.method !== 'HEAD') || (rule.anonymousOnly && req.headers.cookie)) {
        bypass();
        return;
      }
      const key = cacheKey(req);
      if (this.options.versions.current() === null) {
        // The database may be away: a cached answer stands in for a 503 (stale if error), at
        // once while an outage was seen a moment ago.
        const entry = this.fallback(key);
        if (entry && this.outageAt !== null && this.now() - this.outageAt < OUTAGE_RECHECK_MS) {
          serveStale(req, res, entry, this.now());
          return;
        }
        if (entry) this.standInOnError(key, req, res, rule);
        bypass();
        return;
      }
      this.outageAt = null;
      for (;;) {
        const found = this.lookup(key);
        if (found.kind === 'serve') return send(req, res, found.entry, found.status);
        if (found.kind === 'build') return this.build(key, req, res, rule, next, nextHandler);
        // Requests arriving while the same answer is being built wait for it instead of
        // building it again (after a change, every reader of it misses at once).
        const entry = await found.pending;
        if (entry) return send(req, res, entry, entry.staleSince === null ? 'HIT' : 'STALE');
        // The build was abandoned (an answer that is not a 200, a client that went away, a
        // deadline's 503): exactly when the database is slow. Not every waiter builds at once:
        // the first to get here takes the build over (build() files itself synchronously) and
        // the others go round again and wait for it. A waiter already answered (its own
        // deadline) or gone has nothing left to do.
        if (res.headersSent || res.destroyed || answeredByDeadline(res)) return;
        if (this.options.versions.current() === null) {
          bypass();
          return;
        }
      }
    };
  }

  /** Builds the answer through the rest of the stack, filed (when it may be) for the requests to come. */
  private build(key: string, req: Request, res: Response, rule: CacheRule, next: () => void, nextHandler: (error?: unknown) => void): void {
    const since = this.seq;
    const builtAt = this.now();
    let settle!: (entry: Entry | undefined) => void;
    const filling = new Promise<Entry | undefined>((resolve) => (settle = resolve));
    this.filling.set(key, filling);
    const done = (entry: Entry | undefined) => {
      if (this.filling.get(key) === filling) this.filling.delete(key);
      settle(entry);
    };
    res.once('close', () => done(undefined));
    // A build that fails with a 503 (the database slow or gone) answers the answer it replaces.
    if (this.entries.peek(key)) this.standInOnError(key, req, res, rule);
    const originalSend = res.send;
    res.send = (body?: unknown) => {
      res.send = originalSend;
      const entry = this.entryOf(res, body, builtAt, rule);
      if (!entry) {
        done(undefined);
        return originalSend.call(res, body);
      }
      send(req, res, entry, 'MISS').then(
        () => {
          // Only now are all headers known: a response that set a cookie (a session began,
          // say for a form's CSRF token) belongs to its requester alone. An answer that a
          // change heard meanwhile may have altered is not filed (or is filed stale).
          const fileable = res.getHeader('Set-Cookie') === undefined && this.options.versions.current() !== null ? this.fileable(since, entry) : null;
          if (fileable) {
            entry.staleSince = fileable.staleSince;
            this.entries.set(key, entry);
          }
          done(fileable ? entry : undefined);
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
  }

  /** A cacheable copy of a finished 200 answer, or undefined when it must not be shared. */
  private entryOf(res: Response, body: unknown, builtAt: number, rule: CacheRule): Entry | undefined {
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
      expiresAt: this.now() + this.ttlMs,
      builtAt,
      scope: (res.locals as { [SCOPE]?: Scope })[SCOPE] ?? 'many',
      shows: (res.locals as { [SHOWS]?: ReadonlySet<string> })[SHOWS] ?? null,
      staleSince: null,
      etag: weakEtag(identity),
      rule,
      route: routeTemplate(res.req),
      headers,
      identity,
      encoded: new Map(),
      ready: new Map(),
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

async function send(req: Request, res: Response, entry: Entry, status: 'HIT' | 'STALE' | 'MISS'): Promise<void> {
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
      encoded.then(
        (bytes) => entry.ready.set(accepted, bytes),
        () => entry.encoded.delete(accepted),
      );
    }
    body = await encoded;
    res.setHeader('Content-Encoding', accepted);
  }
  res.setHeader('Content-Length', body.length);
  res.end(body);
}

/**
 * A cached answer served in place of a failed one (stale if error): synchronously (a deadline's
 * 503 silences the response right after its error handler returns), with Age (seconds since it
 * was built), Warning 111 and X-Cache: STALE-IF-ERROR, and none of the failed answer's headers
 * but the request's own (id, rate limits). An encoding not made yet is not made now: identity.
 */
function serveStale(req: Request, res: Response, entry: Entry, now: number): void {
  for (const name of res.getHeaderNames()) if (!KEPT_ON_FALLBACK.has(name)) res.removeHeader(name);
  for (const [name, value] of entry.headers) res.setHeader(name, value);
  res.setHeader('ETag', entry.etag);
  res.setHeader('Age', String(Math.max(0, Math.floor((now - entry.builtAt) / 1000))));
  res.setHeader('Warning', '111 - "Revalidation Failed"');
  res.setHeader('X-Cache', 'STALE-IF-ERROR');
  answeredFor(res, entry.route);
  res.statusCode = 200;
  const accepted =
    entry.identity.length >= COMPRESSION_THRESHOLD && req.headers['accept-encoding'] ? req.acceptsEncodings('br', 'gzip', 'identity') : 'identity';
  const encoded = accepted === 'br' || accepted === 'gzip' ? entry.ready.get(accepted) : undefined;
  if (encoded) res.setHeader('Content-Encoding', accepted as string);
  const body = encoded ?? entry.identity;
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
