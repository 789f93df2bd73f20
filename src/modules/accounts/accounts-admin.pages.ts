// The moderators' account pages: search by e-mail, an account with its keys and reports, and
// suspension (accounts.service.ts, the one the command line uses too). Routes:
// http/routers/admin.ts.
import type { Request, RequestHandler, Response } from 'express';
import type { Clock } from '../../clock.js';
import type { PrismaClient } from '../../db/client.js';
import type { FieldErrors, FormValues } from '../../forms.js';
import { formValues, idParam, notFoundPage, renderAdmin, setFlash } from '../../web/admin-pages.js';
import { accountDetail, ACCOUNT_SEARCH_LIMIT, searchAccounts } from './accounts.repository.js';
import { suspendAccount, unsuspendAccount } from './accounts.service.js';

export function accountAdminHandlers(deps: { prisma: PrismaClient; clock: Clock }) {
  const { prisma } = deps;
  const now = () => deps.clock.now();

  async function accountPage(req: Request, res: Response, id: string, values: FormValues, errors: FieldErrors, status = 200) {
    const account = await accountDetail(prisma, id);
    if (!account) throw notFoundPage('Account');
    renderAdmin(req, res, 'account', { title: `Account ${account.email}`, section: 'accounts', subject: account, values, errors, now: now() }, status);
  }

  return {
    search: (async (req, res) => {
      const email = typeof req.query.email === 'string' ? req.query.email.trim().slice(0, 320) : '';
      const accounts = email ? await searchAccounts(prisma, email) : [];
      renderAdmin(req, res, 'accounts', { title: 'Accounts', section: 'accounts', email, accounts, limit: ACCOUNT_SEARCH_LIMIT });
    }) as RequestHandler,

    show: (async (req, res) => accountPage(req, res, idParam(req, 'Account'), {}, {})) as RequestHandler,

    suspend: (async (req, res) => {
      const id = idParam(req, 'Account');
      const values = formValues(req.body);
      const me = res.locals.account!;
      const result = await suspendAccount(prisma, { id: me.id, role: me.role }, { id }, values, now());
      if (!result.ok) {
        await accountPage(req, res, id, values, result.errors, 400);
        return;
      }
      setFlash(req, 'ok', result.value.changed ? 'Account suspended: its contributions and agent keys are refused.' : 'Already suspended for this reason: nothing changed.');
      res.redirect(303, `/admin/accounts/${id}`);
    }) as RequestHandler,

    unsuspend: (async (req, res) => {
      const id = idParam(req, 'Account');
      const me = res.locals.account!;
      const { changed } = await unsuspendAccount(prisma, { id: me.id, role: me.role }, { id }, now());
      setFlash(req, 'ok', changed ? 'Suspension lifted.' : 'The account was not suspended: nothing changed.');
      res.redirect(303, `/admin/accounts/${id}`);
    }) as RequestHandler,
  };
}
