// Every Cache-Control the service sends, by what may keep the answer and for how long: one
// place to read the caching policy (issue 36). The response cache's stale-if-error bound lives
// here too, since public answers announce it.
import type { Response } from 'express';

/** How long past its life a cached public answer may be served while the database fails. */
export const STALE_IF_ERROR_SECONDS = 600;

export type CacheProfile =
  /** Private or personal answers (keys, forms, admin, health): kept nowhere. */
  | 'no-store'
  /** Public pages whose header shows who is signed in: the browser only, revalidated each time. */
  | 'browser-revalidate'
  /** Public answers: any cache, for `seconds`; `staleIfError` adds the stale-if-error bound. */
  | { publicSeconds: number; staleIfError?: boolean };

function cacheControlValue(profile: CacheProfile): string {
  if (profile === 'no-store') return 'no-store';
  if (profile === 'browser-revalidate') return 'private, max-age=0, must-revalidate';
  const base = `public, max-age=${profile.publicSeconds}`;
  return profile.staleIfError ? `${base}, stale-if-error=${STALE_IF_ERROR_SECONDS}` : base;
}

/** Sets the answer's Cache-Control for `profile`; returns `res` for chaining. */
export const cacheControl = (res: Response, profile: CacheProfile): Response => res.set('Cache-Control', cacheControlValue(profile));
