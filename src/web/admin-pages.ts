// What every moderators' page shares: the gate, one-time messages after a form post
// (Post/Redirect/Get), rendering with the admin view helpers, and reading posted forms.
import type { Request, RequestHandler, Response } from 'express';
import { formatDate, formatTime, isoDay } from '../dates.js';
import { notFound, Refusal } from '../errors.js';
import { fieldErrorsOf, type FieldErrors, type FormValues } from '../forms.js';
import { FAILURE_REASON_LABELS, OUTCOME_LABELS, OUTCOMES, STAGE_LABELS, TASK_LABELS, TASKS } from '../modules/aggregation/constants.js';
import { authorHandle } from '../modules/moderation/author-handle.js';
import { UUID_PATTERN } from '../text.js';
import { redirectToSignIn } from './middleware/auth.js';
import { HttpProblem } from './problem.js';
import { cacheControl } from './cache-control.js';

export interface Flash {
  kind: 'ok' | 'error';
  text: string;
  /** A link after the text (after a decision: back to the report decided). */
  link?: { href: string; text: string };
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
  cacheControl(res, 'no-store');
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

/** The 404 page of an admin thing ("Merchant not found"). */
export const notFoundPage = (what: string) => notFound(`There is no ${what.toLowerCase()} at this address.`, `${what} not found`);

export function setFlash(req: Request, kind: Flash['kind'], text: string, link?: Flash['link']): void {
  req.session.adminFlash = link ? { kind, text, link } : { kind, text };
}

const helpers = {
  formatTime,
  formatDate,
  isoDay,
  taskLabels: TASK_LABELS,
  outcomeLabels: OUTCOME_LABELS,
  stageLabels: STAGE_LABELS,
  failureReasonLabels: FAILURE_REASON_LABELS,
  tasks: TASKS,
  outcomes: OUTCOMES,
  statusLabels: { PENDING: 'Pending', APPROVED: 'Approved', REJECTED: 'Rejected' } as Record<string, string>,
  /** How moderators' pages name an author without the address (modules/moderation/author-handle.ts). */
  authorHandle,
};

export type Section = 'overview' | 'reports' | 'merchants' | 'categories' | 'agents' | 'owners' | 'accounts' | 'audit';

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

/** A route's :id, or the 404 page when it cannot be an id. */
export function idParam(req: Request, what: string, name = 'id'): string {
  const value = (req.params as Record<string, string | undefined>)[name];
  if (!value || !UUID_PATTERN.test(value)) throw notFoundPage(what);
  return value.toLowerCase();
}

/** The moderator behind this request (the gate has checked there is one). */
export const actorOf = (res: Response): string => res.locals.account!.id;

/** A posted form: the request, the values typed, and the :id of the thing it changes. */
export interface PostedForm {
  req: Request;
  res: Response;
  values: FormValues;
  /** The route's :id (checked by idParam), or '' for a form that creates something. */
  id: string;
}

/**
 * A form post's handler (Post/Redirect/Get): `save` validates the values typed (formInput) and
 * runs the service; on success a message and a redirect to `saved`'s address. A Refusal that
 * names the form's fields brings the form again through `again`, with its errors and the
 * values typed, as a 400; any other error goes on to the error page. `idOf` names what the
 * route's :id is (for its 404 page), when it has one.
 */
export function formPost<T>(handle: {
  idOf?: string;
  save: (form: PostedForm) => Promise<T>;
  saved: (value: T, form: PostedForm) => { to: string; message: string };
  again: (errors: FieldErrors, form: PostedForm) => Promise<void>;
}): RequestHandler {
  return async (req, res) => {
    const form: PostedForm = { req, res, values: formValues(req.body), id: handle.idOf ? idParam(req, handle.idOf) : '' };
    let value: T;
    try {
      value = await handle.save(form);
    } catch (error) {
      const errors = error instanceof Refusal ? fieldErrorsOf(error) : null;
      if (!errors) throw error;
      await handle.again(errors, form);
      return;
    }
    const { to, message } = handle.saved(value, form);
    setFlash(req, 'ok', message);
    res.redirect(303, to);
  };
}
