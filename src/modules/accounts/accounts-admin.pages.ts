// The moderators' account pages: search by e-mail, an account with its keys and reports, and
// suspension (accounts.service.ts, the one the command line uses too). One function per use
// case. Routes: http/routers/admin.ts.
import type { Request, RequestHandler, Response } from 'express';
import type { Clock } from '../../clock.js';
import type { PrismaClient } from '../../db/client.js';
import { formInput, type FieldErrors, type FormValues } from '../../forms.js';
import { formPost, idParam, notFoundPage, renderAdmin, setFlash } from '../../web/admin-pages.js';
import { accountDetail, ACCOUNT_SEARCH_LIMIT, searchAccounts } from './accounts.repository.js';
import { suspendAccount, suspendForm, unsuspendAccount, type AccountActor } from './accounts.service.js';

export interface AccountAdminDeps {
  prisma: PrismaClient;
  clock: Clock;
}

/** The moderator signed in, as the account service names who acts. */
const moderatorOf = (res: Response): AccountActor => ({ id: res.locals.account!.id, role: res.locals.account!.role });

/** An account with its keys and reports, and the suspension form. */
async function accountPage(deps: AccountAdminDeps, req: Request, res: Response, id: string, values: FormValues, errors: FieldErrors, status = 200) {
  const account = await accountDetail(deps.prisma, id);
  if (!account) throw notFoundPage('Account');
  renderAdmin(req, res, 'account', { title: `Account ${account.email}`, section: 'accounts', subject: account, values, errors, now: deps.clock.now() }, status);
}

/** GET /admin/accounts?email=: accounts whose address matches. */
export function accountsSearch(deps: AccountAdminDeps): RequestHandler {
  return async (req, res) => {
    const email = typeof req.query.email === 'string' ? req.query.email.trim().slice(0, 320) : '';
    const accounts = email ? await searchAccounts(deps.prisma, email) : [];
    renderAdmin(req, res, 'accounts', { title: 'Accounts', section: 'accounts', email, accounts, limit: ACCOUNT_SEARCH_LIMIT });
  };
}

/** GET /admin/accounts/:id: one account, its keys and reports, and the suspension form. */
export function accountShow(deps: AccountAdminDeps): RequestHandler {
  return async (req, res) => accountPage(deps, req, res, idParam(req, 'Account'), {}, {});
}

/** POST /admin/accounts/:id/suspend: suspends the account (or replaces its suspension's reason). */
export function accountSuspend(deps: AccountAdminDeps): RequestHandler {
  return formPost({
    idOf: 'Account',
    save: ({ res, id, values }) => suspendAccount(deps.prisma, moderatorOf(res), { id }, formInput(suspendForm, values), deps.clock.now()),
    saved: ({ changed }, { id }) => ({
      to: `/admin/accounts/${id}`,
      message: changed ? 'Account suspended: its contributions and agent keys are refused.' : 'Already suspended for this reason: nothing changed.',
    }),
    again: (errors, { req, res, id, values }) => accountPage(deps, req, res, id, values, errors, 400),
  });
}

/** POST /admin/accounts/:id/unsuspend: lifts the account's suspension. */
export function accountUnsuspend(deps: AccountAdminDeps): RequestHandler {
  return async (req, res) => {
    const id = idParam(req, 'Account');
    const { changed } = await unsuspendAccount(deps.prisma, moderatorOf(res), { id }, deps.clock.now());
    setFlash(req, 'ok', changed ? 'Suspension lifted.' : 'The account was not suspended: nothing changed.');
    res.redirect(303, `/admin/accounts/${id}`);
  };
}
