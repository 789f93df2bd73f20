// Sign-in pages: ask for an address, send the link, follow the link, sign out. One function per
// use case. Routes: http/routers/pages.ts.
import type { Request, RequestHandler, Response } from 'express';
import { createHash } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config/env.js';
import { clientAddress, createLimiter } from '../../web/middleware/rate-limit.js';
import type pg from 'pg';
import { setPageFlash } from '../../forms.js';
import { MY_REPORTS_PATH } from '../reports/my-reports.pages.js';
import { SESSION_COOKIE } from '../../web/middleware/session.js';
import { MailUnavailableError } from '../../mail/mailer.js';
import { completeSignIn, emailSchema, requestSignInLink, safeNextPath, SIGN_IN_LINK_MINUTES, type SignInDeps } from './sign-in.service.js';
import { PAGE_PATHS } from '../../paths.js';

export interface SignInPageDeps extends SignInDeps {
  pool: pg.Pool;
  clock: Clock;
  limits: Config['limits'];
}

const HOUR = 3_600_000;

/** Where signing out lands: a page of its own that says so (shared by everyone, so cacheable). */
export const SIGNED_OUT_PATH = '/sign-out/done';

/**
 * Why the sign-in page is shown, from the page it returns to afterwards (`next`): a person sent
 * here by "Report a test" reads "Sign in to report a test". Null for a plain visit.
 */
function signInReason(next: string | null): string | null {
  if (!next) return null;
  const path = next.split(/[?#]/)[0]!;
  if (path === PAGE_PATHS.newReport) return 'Sign in to report a test';
  if (/^\/reports\/[^/]+\/edit$/.test(path)) return 'Sign in to change your report';
  if (path.startsWith('/reports/') || path === PAGE_PATHS.myReports) return 'Sign in to see your reports';
  if (path === PAGE_PATHS.keys) return 'Sign in to manage the keys for your agents';
  if (path === '/admin' || path.startsWith('/admin/')) return 'Sign in to moderate';
  return null;
}

function renderLimited(_req: Request, res: Response, retryAfter: number) {
  res.status(429).render('errors/error', {
    title: 'Too many sign-in requests',
    detail: `Too many sign-in links were requested. Try again in ${Math.ceil(retryAfter / 60)} minutes.`,
  });
}

const emailOf = (req: Request) => emailSchema.safeParse((req.body as { email?: unknown })?.email).data;

/** POST /sign-in's limit per client address. */
export function signInClientLimit(deps: SignInPageDeps): RequestHandler {
  return createLimiter({
    pool: deps.pool,
    clock: deps.clock,
    name: 'sign-in:client',
    limit: deps.limits.signInPerClientPerHour,
    windowMs: HOUR,
    keyGenerator: clientAddress,
    onLimited: renderLimited,
  });
}

/** POST /sign-in's limit per e-mail address (hashed: the counter key is not an address). */
export function signInAddressLimit(deps: SignInPageDeps): RequestHandler {
  return createLimiter({
    pool: deps.pool,
    clock: deps.clock,
    name: 'sign-in:address',
    limit: deps.limits.signInPerAddressPerHour,
    windowMs: HOUR,
    keyGenerator: (req) => createHash('sha256').update(emailOf(req) ?? '').digest('hex'),
    skip: (req) => emailOf(req) === undefined,
    onLimited: renderLimited,
  });
}

/** GET /sign-in?next=: the form asking for an e-mail address. */
export function signInPage(deps: SignInPageDeps): RequestHandler {
  return (req, res) => {
    const next = safeNextPath(req.query.next, deps.baseUrl);
    res.render('pages/sign-in', {
      title: 'Sign in',
      next: next ?? '',
      reason: signInReason(next),
      email: '',
      error: null,
    });
  };
}

/** POST /sign-in: send the sign-in link, the same answer whether or not an account exists. */
export function sendSignInLink(deps: SignInPageDeps): RequestHandler {
  return async (req, res) => {
    const body = req.body as { email?: unknown; next?: unknown };
    const next = safeNextPath(body.next, deps.baseUrl);
    const email = emailSchema.safeParse(body.email);
    if (!email.success) {
      const given = typeof body.email === 'string' ? body.email.trim() : '';
      res.status(400).render('pages/sign-in', {
        title: 'Sign in',
        hasErrors: true,
        next: next ?? '',
        reason: signInReason(next),
        email: typeof body.email === 'string' ? body.email : '',
        error: given ? 'Enter a valid e-mail address.' : 'Enter your e-mail address.',
      });
      return;
    }
    try {
      await requestSignInLink(deps, email.data, next, deps.clock.now());
    } catch (error) {
      if (!(error instanceof MailUnavailableError)) throw error;
      // The mail server is down or does not answer (within MAIL_SEND_TIMEOUT_MS): say so, not
      // a 500, and not the database's outage page. Nothing to undo: an unsent link is unused.
      req.log.warn({ failure: [error.code, error.responseCode].filter(Boolean).join(' ') }, 'the sign-in link could not be sent');
      res.status(503).set('Retry-After', '60').render('errors/error', {
        title: 'The sign-in e-mail could not be sent',
        detail: 'Our mail server did not take the message just now, so no link was sent. Try again in a minute or two.',
      });
      return;
    }
    // The same answer whether or not an account exists for this address.
    res.render('pages/sign-in-sent', { title: 'Check your e-mail', email: email.data, minutes: SIGN_IN_LINK_MINUTES, reason: signInReason(next) });
  };
}

/** GET /sign-in/verify?token=: follow the link: a new session, signed in, then where it leads. */
export function verifySignIn(deps: SignInPageDeps): RequestHandler {
  return async (req, res) => {
    const token = typeof req.query.token === 'string' ? req.query.token : '';
    const result = token ? await completeSignIn(deps, token, deps.clock.now()) : null;
    if (!result) {
      res.status(400).render('errors/error', {
        title: 'This sign-in link cannot be used',
        detail: 'It has expired or was already used. Ask for a new link on the sign-in page.',
      });
      return;
    }
    // A new session id at sign-in: an id planted before sign-in is worth nothing after it.
    await new Promise<void>((resolve, reject) => req.session.regenerate((error) => (error ? reject(error) : resolve())));
    req.session.accountId = result.account.id;
    // Without a page to go back to, a person lands on their own reports, greeted.
    if (!result.next) setPageFlash(req.session, `Welcome. You are signed in as ${result.account.email}.`);
    await new Promise<void>((resolve, reject) => req.session.save((error) => (error ? reject(error) : resolve())));
    res.redirect(303, result.next ?? MY_REPORTS_PATH);
  };
}

/** POST /sign-out: the session ends, its cookie goes, and the confirmation follows. */
export const signOut: RequestHandler = async (req, res) => {
  await new Promise<void>((resolve, reject) => req.session.destroy((error) => (error ? reject(error) : resolve())));
  res.clearCookie(SESSION_COOKIE, { path: '/' });
  res.redirect(303, SIGNED_OUT_PATH);
};

/** GET /sign-out/done: the confirmation, the same for everyone (nothing personal: a shared page can hold it). */
export const signedOutPage: RequestHandler = (_req, res) => {
  // Someone still signed in (a bookmark, another tab signed in again) is not told otherwise.
  if (res.locals.account) return res.redirect(303, '/');
  res.render('pages/signed-out', { title: 'You are signed out' });
};
