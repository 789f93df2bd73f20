// The moderators' merchant pages: the list, the merchant form, its sponsorship and its owner
// statement. A form that does not validate comes back with its errors and the values typed
// (400); a saved one redirects with a message. Routes: http/routers/admin.ts.
import type { Request, RequestHandler, Response } from 'express';
import type { Clock } from '../../clock.js';
import type { PrismaClient } from '../../db/client.js';
import { isoDay } from '../../dates.js';
import type { FieldErrors, FormValues } from '../../forms.js';
import type { ChangeContext } from '../audit/audit.repository.js';
import { actorOf, formPost, idParam, notFoundPage, renderAdmin, setFlash } from '../../web/admin-pages.js';
import { Refusal } from '../../errors.js';
import { isStorableText } from '../../text.js';
import { OUTCOMES, TASKS } from '../aggregation/constants.js';
import { categoryChoices } from '../catalog/catalog-admin.repository.js';
import {
  adminMerchantPage,
  findMerchant,
  merchantForEditing,
  merchantWithOwnerStatement,
  merchantWithSponsorship,
  type Visibility,
} from './merchant-admin.repository.js';
import { createMerchant, merchantFormValues, updateMerchant } from './merchant-admin.service.js';
import {
  ownerStatementFormValues,
  removeOwnerStatement,
  removeSponsorship,
  setOwnerStatement,
  setSponsorship,
  SPONSORSHIP_PLACEMENTS,
  SPONSORSHIP_SOURCES,
  sponsorshipFormValues,
} from './merchant-extras.service.js';

const MERCHANT_PAGE_SIZE = 50;

export function merchantAdminHandlers(deps: { prisma: PrismaClient; clock: Clock }) {
  const { prisma } = deps;
  const now = () => deps.clock.now();
  /** The change a moderator's form post makes: by them, now. */
  const change = (res: Response): ChangeContext => ({ prisma, actorId: actorOf(res), now: now() });

  async function merchantForm(req: Request, res: Response, merchantId: string | null, values: FormValues, errors: FieldErrors, status = 200) {
    const editing = merchantId ? await merchantForEditing(prisma, merchantId) : null;
    if (merchantId && !editing) throw notFoundPage('Merchant');
    const merchant = editing?.merchant ?? null;
    renderAdmin(
      req,
      res,
      'merchant',
      {
        title: merchant ? `Edit ${merchant.name}` : 'Add a merchant',
        section: 'merchants',
        merchant,
        reportCounts: editing?.reportCounts ?? {},
        categories: await categoryChoices(prisma),
        values,
        errors,
        now: now(),
      },
      status,
    );
  }

  async function sponsorshipForm(req: Request, res: Response, merchantId: string, values: FormValues | null, errors: FieldErrors, status = 200) {
    const merchant = await merchantWithSponsorship(prisma, merchantId);
    if (!merchant) throw notFoundPage('Merchant');
    const shown = values ?? (merchant.sponsorship ? sponsorshipFormValues(merchant.sponsorship) : { startsOn: isoDay(now()) });
    renderAdmin(
      req,
      res,
      'sponsorship',
      { title: `Sponsorship of ${merchant.name}`, section: 'merchants', merchant, values: shown, errors, sources: SPONSORSHIP_SOURCES, placements: SPONSORSHIP_PLACEMENTS },
      status,
    );
  }

  async function ownerStatementForm(req: Request, res: Response, merchantId: string, values: FormValues | null, errors: FieldErrors, status = 200) {
    const merchant = await merchantWithOwnerStatement(prisma, merchantId);
    if (!merchant) throw notFoundPage('Merchant');
    const shown = values ?? (merchant.ownerStatement ? ownerStatementFormValues(merchant.ownerStatement) : {});
    renderAdmin(
      req,
      res,
      'owner-statement',
      { title: `Owner statement of ${merchant.name}`, section: 'merchants', merchant, values: shown, errors, claimTasks: TASKS, claimOutcomes: OUTCOMES },
      status,
    );
  }

  const list: RequestHandler = async (req, res) => {
    const q = typeof req.query.q === 'string' ? req.query.q.trim().slice(0, 100) : '';
    if (!isStorableText(q)) {
      throw new Refusal({ kind: 'invalid', code: 'validation-failed', title: 'Invalid search', detail: 'The search text must not contain control characters.' });
    }
    const visibility: Visibility = req.query.visibility === 'public' || req.query.visibility === 'hidden' ? req.query.visibility : 'all';
    const page = typeof req.query.page === 'string' && /^\d{1,5}$/.test(req.query.page) ? Math.max(1, Number(req.query.page)) : 1;
    const { total, merchants } = await adminMerchantPage(prisma, { q, visibility }, (page - 1) * MERCHANT_PAGE_SIZE, MERCHANT_PAGE_SIZE);
    const pageUrl = (p: number) => {
      const params = new URLSearchParams();
      if (q) params.set('q', q);
      if (visibility !== 'all') params.set('visibility', visibility);
      if (p > 1) params.set('page', String(p));
      const qs = params.toString();
      return `/admin/merchants${qs ? `?${qs}` : ''}`;
    };
    const pages = Math.max(1, Math.ceil(total / MERCHANT_PAGE_SIZE));
    renderAdmin(req, res, 'merchants', { title: 'Merchants', section: 'merchants', q, visibility, merchants, total, page, pages, pageUrl });
  };

  return {
    list,
    newForm: (async (req, res) => merchantForm(req, res, null, { isPublic: 'on' }, {})) as RequestHandler,

    create: formPost({
      save: ({ res, values }) => createMerchant(change(res), values),
      saved: ({ id }) => ({ to: `/admin/merchants/${id}`, message: 'Merchant added.' }),
      again: (errors, { req, res, values }) => merchantForm(req, res, null, values, errors, 400),
    }),

    show: (async (req, res) => {
      const id = idParam(req, 'Merchant');
      const merchant = await findMerchant(prisma, id);
      if (!merchant) throw notFoundPage('Merchant');
      await merchantForm(req, res, id, merchantFormValues(merchant), {});
    }) as RequestHandler,

    update: formPost({
      idOf: 'Merchant',
      save: ({ res, id, values }) => updateMerchant(change(res), id, values),
      saved: ({ changed, visibility }, { id }) => ({
        to: `/admin/merchants/${id}`,
        message:
          changed.length === 0
            ? 'Nothing changed.'
            : visibility === 'hidden'
              ? 'Merchant hidden: it and its reports are gone from every public page and API response.'
              : visibility === 'shown'
                ? 'Merchant shown again: it and its approved reports are public.'
                : 'Merchant saved.',
      }),
      again: (errors, { req, res, id, values }) => merchantForm(req, res, id, values, errors, 400),
    }),

    sponsorship: (async (req, res) => sponsorshipForm(req, res, idParam(req, 'Merchant'), null, {})) as RequestHandler,

    saveSponsorship: formPost({
      idOf: 'Merchant',
      save: ({ res, id, values }) => setSponsorship(change(res), id, values),
      saved: ({ created }, { id }) => ({ to: `/admin/merchants/${id}/sponsorship`, message: created ? 'Sponsorship added.' : 'Sponsorship saved.' }),
      again: (errors, { req, res, id, values }) => sponsorshipForm(req, res, id, values, errors, 400),
    }),

    removeSponsorship: (async (req, res) => {
      const id = idParam(req, 'Merchant');
      const removed = await removeSponsorship(change(res), id);
      setFlash(req, 'ok', removed ? 'Sponsorship removed.' : 'There was no sponsorship to remove.');
      res.redirect(303, `/admin/merchants/${id}`);
    }) as RequestHandler,

    ownerStatement: (async (req, res) => ownerStatementForm(req, res, idParam(req, 'Merchant'), null, {})) as RequestHandler,

    saveOwnerStatement: formPost({
      idOf: 'Merchant',
      save: ({ res, id, values }) => setOwnerStatement(change(res), id, values),
      saved: ({ created }, { id }) => ({ to: `/admin/merchants/${id}/owner-statement`, message: created ? 'Owner statement added.' : 'Owner statement saved.' }),
      again: (errors, { req, res, id, values }) => ownerStatementForm(req, res, id, values, errors, 400),
    }),

    removeOwnerStatement: (async (req, res) => {
      const id = idParam(req, 'Merchant');
      const removed = await removeOwnerStatement(change(res), id);
      setFlash(req, 'ok', removed ? 'Owner statement removed.' : 'There was no owner statement to remove.');
      res.redirect(303, `/admin/merchants/${id}`);
    }) as RequestHandler,
  };
}
