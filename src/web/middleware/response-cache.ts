// A per-process cache of finished public responses: the body serialized once, compressed once
// per encoding, and filed under the directory version it was built for, with the headers the
// whole middleware stack gave it. A repeated read, or a conditional one, is answered at the
// front door of the app, before the router (`answer`, called from app.handle's wrapper, with
// the request's id, its rate limiter's count, its log line and metrics), without touching the
// database, the session or any renderer; cached-answer.ts keys and writes the answers. Entries live for at most `ttlMs` by the
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
import type { Request, RequestHandler, Response } from 'express';
import { LRUCache } from 'lru-cache';
import type { Clock } from '../../clock.js';
import type { DirectoryChange, DirectoryVersions } from '../../modules/directory/version.js';
import type { PageCheck } from '../../modules/directory/listing.js';
import { MAX_QUERY_PAIRS, queryPairCount } from './validate.js';
import { routeTemplate } from './metrics.js';
import { answeredByDeadline } from './deadline.js';
import {
  blockOf,
  cacheKey,
  clientHasCopy,
  encodingFor,
  heldBytes,
  keepCompressed,
  send,
  serveStale,
  targetKey,
  sealEtag,
  type CacheRule,
  type Entry,
  type FrontDoor,
  type Scope,
} from './cached-answer.js';
import { STALE_IF_ERROR_SECONDS } from '../cache-control.js';



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
const SCOPE = Symbol('response cache scope');
const SHOWS = Symbol('response cache shows');
const PAGE = Symbol('response cache page');

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

/**
 * Declares how the page of a list answer (with `cacheShows`) is found again. When the answer is
 * stale and due to be rebuilt, its page is found first: the same page (the same matches,
 * sponsored matches and merchants in order) means the same answer, since a change of a merchant
 * it shows drops it and a change of everything empties the cache; it is then kept, fresh
 * (`X-Cache: REVALIDATED`), within its life. Only answers made of their page alone (the API's
 * lists) may declare it: a page that also shows when the directory last changed may not.
 */
export function cachePage(res: Response, page: PageCheck): void {
  (res.locals as { [PAGE]?: PageCheck })[PAGE] = page;
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
      // The bodies held and room for the encodings still to make, and the key (up to the 16 KB a
      // request line may have).
      sizeCalculation: (entry, key) => heldBytes(entry) + 2 * key.length + 512,
    });
    this.stopListening = options.versions.onChange((change) => this.changed(change));
  }

  /** Entries held now (for tests and metrics). */
  get size(): number {
    return this.entries.size;
  }

  /** The bytes the entries held now are counted for (metrics). */
  get bytes(): number {
    return this.entries.calculatedSize;
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
   * The front door: answers a GET or HEAD whose answer is cached, before the app's router
   * (app.ts calls it from app.handle, once Express has set the request up), and returns true;
   * anything else (false) goes on to the routers, which answer it as they always did. A cached
   * answer costs its limiter's count, the request's id, one histogram observation and a log
   * line (`door`), and one writeHead of headers made once per entry and encoding: no router
   * dispatch, no per-request listener, timer or header map.
   */
  answer(req: Request, res: Response, door: FrontDoor, started: number): boolean {
    const method = req.method;
    if (method !== 'GET' && method !== 'HEAD') return false;
    if (this.options.versions.current() === null) return false;
    const url = req.url;
    // A query string the app refuses (validate.ts refuseLongQuery) is refused by the router.
    if (queryPairCount(url) > MAX_QUERY_PAIRS) return false;
    const key = targetKey(url);
    if (key === undefined) return false;
    const found = this.lookup(key);
    if (found.kind !== 'serve') return false;
    const entry = found.entry;
    if (entry.rule.anonymousOnly && req.headers.cookie) return false;
    const notModified = clientHasCopy(req, entry.etag);
    const encoding = notModified ? 'identity' : encodingFor(req, entry);
    // An encoding still being made, or identity bytes to unzip, are waited for on the router's way.
    const body = notModified ? EMPTY : encoding === 'identity' ? entry.identity : entry.ready.get(encoding);
    if (!body) return false;
    const id = door.requestId(req);
    const head: Array<string | string[]> = ['X-Request-Id', id];
    if (entry.rule.limiter) {
      // A refused request goes on to its route, whose limiter answers it (counted once).
      const limits = entry.rule.limiter.admit(req, res);
      if (limits === null) return false;
      head.push('RateLimit-Policy', limits.policy, 'RateLimit', limits.remaining);
    }
    head.push('ETag', entry.etag, 'X-Cache', found.status);
    if (notModified) {
      res.writeHead(304, head.concat(entry.notModified));
      res.end();
    } else {
      res.writeHead(200, head.concat(blockOf(entry, encoding, body)));
      res.end(body);
    }
    door.answered(req, res, id, entry.route, found.status, started);
    return true;
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
        if (found.kind === 'build') {
          // Not awaited unless there is a page to check: a build files itself synchronously.
          const checking = this.revalidation(key);
          if (checking) {
            const kept = await checking;
            if (kept) return send(req, res, kept, 'REVALIDATED');
            if (res.headersSent || res.destroyed || answeredByDeadline(res)) return;
          }
          return this.build(key, req, res, rule, next, nextHandler);
        }
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

  /**
   * The check of a stale list due to be rebuilt whose page may be the same now (cachePage), or
   * undefined when there is none to make. It resolves to the entry, kept and fresh from the
   * changes it was checked against, or to undefined when it must be built. It runs as the key's
   * build would (single flight): readers meanwhile get the stale answer.
   */
  private revalidation(key: string): Promise<Entry | undefined> | undefined {
    const entry = this.entries.peek(key);
    if (!entry?.page || entry.staleSince === null || this.filling.has(key) || entry.expiresAt <= this.now()) return undefined;
    const since = this.seq;
    const check = entry.page;
    // Out of the builds in flight as soon as it is known, before any reader waiting for it resumes.
    const settled = () => {
      if (this.filling.get(key) === checking) this.filling.delete(key);
    };
    const checking: Promise<Entry | undefined> = check.identityAt(this.options.clock.now()).then(
      (identity) => {
        settled();
        // Still the entry filed (a change of a merchant it shows dropped it), the same page, and
        // stale only from the changes heard since the check began (which it may not have seen).
        const kept = identity === check.identity && this.entries.peek(key) === entry ? this.fileable(since, entry) : null;
        if (!kept) return undefined;
        entry.staleSince = kept.staleSince;
        entry.builtAt = this.now();
        return entry;
      },
      () => {
        settled();
        return undefined;
      },
    );
    this.filling.set(key, checking);
    return checking;
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
      sealEtag(entry)
        .then(() => send(req, res, entry, 'MISS'))
        .then(
          () => {
            // Only now are all headers known: a response that set a cookie (a session began,
            // say for a form's CSRF token) belongs to its requester alone. An answer that a
            // change heard meanwhile may have altered is not filed (or is filed stale).
            const fileable = res.getHeader('Set-Cookie') === undefined && this.options.versions.current() !== null ? this.fileable(since, entry) : null;
            if (fileable) {
              entry.staleSince = fileable.staleSince;
              keepCompressed(entry);
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
    const identity = typeof body === 'string' ? utf8(body) : body;
    const type = String(res.getHeader('Content-Type') ?? (typeof body === 'string' ? 'text/html' : 'application/octet-stream'));
    res.setHeader('Content-Type', typeof body === 'string' && !/charset=/i.test(type) ? `${type}; charset=utf-8` : type);
    // Every encoding of the answer is chosen by Accept-Encoding.
    const vary = String(res.getHeader('Vary') ?? '');
    if (!/(^|,)\s*(accept-encoding|\*)\s*(,|$)/i.test(vary)) res.setHeader('Vary', vary ? `${vary}, Accept-Encoding` : 'Accept-Encoding');
    const headers: Entry['headers'] = [];
    const flat: Entry['flat'] = [];
    const notModified: Entry['notModified'] = [];
    for (const [name, value] of Object.entries(res.getHeaders())) {
      if (value === undefined || PER_REQUEST_HEADERS.has(name)) continue;
      const text = typeof value === 'number' ? String(value) : value;
      headers.push([name, text]);
      flat.push(name, text);
      // A 304 repeats only what guides caches (RFC 9110 15.4.5): ETag, Cache-Control, Vary.
      if (name === 'cache-control' || name === 'vary') notModified.push(name, text);
    }
    return {
      expiresAt: this.now() + this.ttlMs,
      builtAt,
      scope: (res.locals as { [SCOPE]?: Scope })[SCOPE] ?? 'many',
      shows: (res.locals as { [SHOWS]?: ReadonlySet<string> })[SHOWS] ?? null,
      page: (res.locals as { [PAGE]?: PageCheck })[PAGE] ?? null,
      staleSince: null,
      // Given by sealEtag before the entry is sent or filed.
      etag: '',
      rule,
      route: routeTemplate(res.req),
      headers,
      flat,
      notModified,
      blocks: new Map(),
      identity,
      length: identity.length,
      encoded: new Map(),
      ready: new Map(),
    };
  }
}

const UTF8 = new TextEncoder();
const EMPTY = Buffer.alloc(0);

/**
 * A string's UTF-8 bytes, as a Buffer over the encoder's own memory. A list page with verdict
 * symbols (✓ ◐ ✕) is held by V8 as a two-byte string; Buffer.from encoded its 850 KB in 4-7 ms,
 * TextEncoder does it in about 1.5 ms (and one-byte strings as fast).
 */
function utf8(text: string): Buffer {
  const bytes = UTF8.encode(text);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
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
