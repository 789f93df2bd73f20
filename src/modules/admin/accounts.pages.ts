// Account pages for moderators: search by e-mail, an account with its reports, suspension.
import { Router, type Request, type Response } from 'express';
import type { Clock } from '../../clock.js';
import type { PrismaClient } from '../../db/client.js';
import { formValues, idParam, notFound, renderAdmin, setFlash, type FieldErrors, type FormValues } from './admin.http.js';
import { accountDetail, ACCOUNT_SEARCH_LIMIT, searchAccounts, suspendAccountById, unsuspendAccountById } from './accounts.service.js';
import { NotFoundError } from './directory.service.js';

export interface AccountPagesDeps {
  prisma: PrismaClient;
  clock: Clock;
}

export function accountPages(deps: AccountPagesDeps): Router {
  const router = Router();
  const { prisma } = deps;

  router.get('/accounts', async (req, res) => {
    const email = typeof req.query.email === 'string' ? req.query.email.trim().slice(0, 320) : '';
    const accounts = email ? await searchAccounts(prisma, email) : [];
    renderAdmin(req, res, 'accounts', { title: 'Accounts', section: 'accounts', email, accounts, limit: ACCOUNT_SEARCH_LIMIT });
  });

  async function showAccount(req: Request, res: Response, id: string, values: FormValues, errors: FieldErrors, status = 200) {
    const account = await accountDetail(prisma, id);
    if (!account) throw notFound('Account');
    renderAdmin(
      req,
      res,
      'account',
      { title: `Account ${account.email}`, section: 'accounts', subject: account, values, errors, now: deps.clock.now() },
      status,
    );
  }

  router.get('/accounts/:id', async (req, res) => {
    await showAccount(req, res, idParam(req, 'Account'), {}, {});
  });

  router.post('/accounts/:id/suspend', async (req, res) => {
    const id = idParam(req, 'Account');
    const values = formValues(req.body);
    const me = res.locals.account!;
    let result;
    try {
      result = await suspendAccountById(prisma, { id: me.id, role: me.role }, id, values, deps.clock.now());
    } catch (error) {
      if (error instanceof NotFoundError) throw notFound('Account');
      throw error;
    }
    if (!result.ok) {
      await showAccount(req, res, id, values, result.errors, 400);
      return;
    }
    setFlash(req, 'ok', result.value.changed ? 'Account suspended: its contributions and agent keys are refused.' : 'Already suspended for this reason: nothing changed.');
    res.redirect(303, `/admin/accounts/${id}`);
  });

  router.post('/accounts/:id/unsuspend', async (req, res) => {
    const id = idParam(req, 'Account');
    let result;
    try {
      result = await unsuspendAccountById(prisma, res.locals.account!.id, id, deps.clock.now());
    } catch (error) {
      if (error instanceof NotFoundError) throw notFound('Account');
      throw error;
    }
    setFlash(req, 'ok', result.changed ? 'Suspension lifted.' : 'The account was not suspended: nothing changed.');
    res.redirect(303, `/admin/accounts/${id}`);
  });

  return router;
}
