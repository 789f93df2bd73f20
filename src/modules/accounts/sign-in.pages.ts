// Sign-in pages: ask for an address, send the link, follow the link, sign out. Routes:
// http/routers/pages.ts.
import type { Request, RequestHandler, Response } from 'express';
import { createHash } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config/env.js';
import { clientAddress, createLimiter } from '../../http/middleware/rate-limit.js';
import type pg from 'pg';
import { setPageFlash } from '../../forms.js';
import { MY_REPORTS_PATH } from '../reports/my-reports.pages.js';
import { SESSION_COOKIE } from '../../http/middleware/session.js';
import { completeSignIn, emailSchema, requestSignInLink, safeNextPath, SIGN_IN_LINK_MINUTES, type SignInDeps } from './sign-in.service.js';

export interface SignInPageDeps extends SignInDeps {
  pool: pg.Pool;
  clock: Clock;
  limits: Config['limits'];
}

const HOUR = 3_600_000;

function renderLimited(_req: Request, res: Response, retryAfter: number) {
  res.status(429).render('errors/error', {
    title: 'Too many sign-in requests',
    detail: `Too many sign-in links were requested. Try again in ${Math.ceil(retryAfter / 60)} minutes.`,
  });
}

export function signInHandlers(deps: SignInPageDeps) {
  const emailOf = (req: Request) => emailSchema.safeParse((req.body as { email?: unknown })?.email).data;

  // Per client address, and per e-mail address (hashed: the counter key is not an address).
  const perClient = createLimiter({
    pool: deps.pool,
    clock: deps.clock,
    name: 'sign-in:client',
    limit: deps.limits.signInPerClientPerHour,
    windowMs: HOUR,
    keyGenerator: clientAddress,
    onLimited: renderLimited,
  });
  const perAddress = createLimiter({
    pool: deps.pool,
    clock: deps.clock,
    name: 'sign-in:address',
    limit: deps.limits.signInPerAddressPerHour,
    windowMs: HOUR,
    keyGenerator: (req) => createHash('sha256').update(emailOf(req) ?? '').digest('hex'),
    skip: (req) => emailOf(req) === undefined,
    onLimited: renderLimited,
  });

  const form: RequestHandler = (req, res) => {
    res.render('pages/sign-in', {
      title: 'Sign in',
      next: safeNextPath(req.query.next, deps.baseUrl) ?? '',
      email: '',
      error: null,
    });
  };

  const sendLink: RequestHandler = async (req, res) => {
    const body = req.body as { email?: unknown; next?: unknown };
    const next = safeNextPath(body.next, deps.baseUrl);
    const email = emailSchema.safeParse(body.email);
    if (!email.success) {
      const given = typeof body.email === 'string' ? body.email.trim() : '';
      res.status(400).render('pages/sign-in', {
        title: 'Sign in',
        hasErrors: true,
        next: next ?? '',
        email: typeof body.email === 'string' ? body.email : '',
        error: given ? 'Enter a valid e-mail address.' : 'Enter your e-mail address.',
      });
      return;
    }
    await requestSignInLink(deps, email.data, next, deps.clock.now());
    // The same answer whether or not an account exists for this address.
    res.render('pages/sign-in-sent', { title: 'Check your e-mail', email: email.data, minutes: SIGN_IN_LINK_MINUTES });
  };

  const verify: RequestHandler = async (req, res) => {
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

  const signOut: RequestHandler = async (req, res) => {
    await new Promise<void>((resolve, reject) => req.session.destroy((error) => (error ? reject(error) : resolve())));
    res.clearCookie(SESSION_COOKIE, { path: '/' });
    res.redirect(303, '/');
  };

  return { form, perClient, perAddress, sendLink, verify, signOut };
}
