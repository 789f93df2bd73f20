// What every admin page shares: the moderator gate, one-time messages after a form post
// (Post/Redirect/Get), rendering with the admin helpers, and form value helpers.
import type { Request, RequestHandler, Response } from 'express';
import type { z } from 'zod';
import { HttpProblem } from '../../http/problem.js';
import {
  FAILURE_REASON_LABELS,
  OUTCOME_LABELS,
  OUTCOMES,
  STAGE_LABELS,
  TASK_LABELS,
  TASKS,
} from '../aggregation/constants.js';
import { redirectToSignIn } from '../../http/middleware/auth.js';

export interface Flash {
  kind: 'ok' | 'error';
  text: string;
}

declare module 'express-session' {
  interface SessionData {
    /** A message for the next admin page view, after a form post redirected there. */
    adminFlash: Flash;
  }
}

export const MODERATOR_ROLES: ReadonlySet<string> = new Set(['MODERATOR', 'ADMIN']);

/**
 * /admin and below: a signed-in browser session of a MODERATOR or ADMIN that is not
 * suspended. The role is read from the database on every request (loadSessionAccount), so
 * a revoked role or a suspension takes effect at once. A request that carries an
 * Authorization header is refused whoever is signed in: an agent key never administers the
 * site (spec 5 rule 4), and such a request is a bearer request everywhere else too.
 */
export const requireModerator: RequestHandler = (req, res, next) => {
  res.set('Cache-Control', 'no-store');
  res.set('X-Robots-Tag', 'noindex, nofollow');
  if (req.get('authorization') !== undefined) {
    throw new HttpProblem({
      status: 403,
      code: 'agent-key-refused',
      title: 'Agent keys cannot be used here',
      detail: 'The moderation pages need a moderator signed in with a browser session. An agent key never administers the site.',
    });
  }
  const account = res.locals.account;
  if (!account) {
    // A form posted after the session ended goes back to the page, not to the POST URL.
    const next = req.method === 'GET' || req.method === 'HEAD' ? req.originalUrl : '/admin';
    redirectToSignIn(res, next);
    return;
  }
  if (account.suspended) {
    throw new HttpProblem({
      status: 403,
      code: 'account-suspended',
      title: 'Account suspended',
      detail: 'Your account is suspended, so it cannot use the moderation pages.',
    });
  }
  if (!MODERATOR_ROLES.has(account.role)) {
    throw new HttpProblem({
      status: 403,
      code: 'moderators-only',
      title: 'Moderators only',
      detail: 'These pages are for the directory’s moderators. Your account does not have the moderator role.',
    });
  }
  next();
};

export const notFound = (what: string): HttpProblem =>
  new HttpProblem({ status: 404, code: 'not-found', title: `${what} not found`, detail: `There is no ${what.toLowerCase()} at this address.` });

export function setFlash(req: Request, kind: Flash['kind'], text: string): void {
  req.session.adminFlash = { kind, text };
}

export const formatTime = (date: Date | null | undefined): string =>
  date ? `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC` : '';
export const formatDate = (date: Date | null | undefined): string => (date ? date.toISOString().slice(0, 10) : '');

const helpers = {
  formatTime,
  formatDate,
  taskLabels: TASK_LABELS,
  outcomeLabels: OUTCOME_LABELS,
  stageLabels: STAGE_LABELS,
  failureReasonLabels: FAILURE_REASON_LABELS,
  tasks: TASKS,
  outcomes: OUTCOMES,
  statusLabels: { PENDING: 'Pending', APPROVED: 'Approved', REJECTED: 'Rejected' } as Record<string, string>,
};

export type Section = 'overview' | 'reports' | 'merchants' | 'categories' | 'agents' | 'accounts' | 'audit';

/** Renders views/admin/<view> with the helpers, the section for the navigation, and any message. */
export function renderAdmin(
  req: Request,
  res: Response,
  view: string,
  locals: { title: string; section: Section } & Record<string, unknown>,
  status = 200,
): void {
  const flash = req.session.adminFlash ?? null;
  if (flash) delete req.session.adminFlash;
  res.status(status).render(`admin/${view}`, { ...helpers, flash, errors: {}, values: {}, ...locals });
}

// ------------------------------------------------------------------------------------------
// Forms

export type FormValues = Record<string, string>;
export type FieldErrors = Record<string, string>;

/** The single-valued text fields of a posted form (a repeated field keeps its last value). */
export function formValues(body: unknown): FormValues {
  const values: FormValues = {};
  for (const [name, value] of Object.entries((body ?? {}) as Record<string, unknown>)) {
    if (typeof value === 'string') values[name] = value;
    else if (Array.isArray(value) && typeof value.at(-1) === 'string') values[name] = value.at(-1) as string;
  }
  delete values._csrf;
  return values;
}

/** Every value of a repeated field (checkboxes). */
export function formList(body: unknown, name: string): string[] {
  const value = ((body ?? {}) as Record<string, unknown>)[name];
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** The first message for each top-level field of a zod failure. */
export function zodFieldErrors(error: z.ZodError): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of error.issues) {
    const field = String(issue.path[0] ?? 'form');
    errors[field] ??= issue.message;
  }
  return errors;
}

export type FormResult<T> = { ok: true; value: T } | { ok: false; errors: FieldErrors };

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A route's :id, or a 404 when it cannot be an id. */
export function idParam(req: Request, what: string, name = 'id'): string {
  const value = (req.params as Record<string, string | undefined>)[name];
  if (!value || !UUID.test(value)) throw notFound(what);
  return value.toLowerCase();
}
