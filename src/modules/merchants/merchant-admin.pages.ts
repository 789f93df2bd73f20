// The moderators' merchant pages: the list, the merchant form, its sponsorship and its owner
// statement. One function per use case. A form that does not validate comes back with its
// errors and the values typed (400); a saved one redirects with a message. Routes:
// http/routers/admin.ts.
import type { Request, RequestHandler, Response } from 'express';
import type { Clock } from '../../clock.js';
import type { PrismaClient } from '../../db/client.js';
import { isoDay } from '../../dates.js';
import { formInput, type FieldErrors, type FormValues } from '../../forms.js';
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
import { createMerchant, merchantForm, merchantFormValues, updateMerchant } from './merchant-admin.service.js';
import {
  ownerStatementForm,
  ownerStatementFormValues,
  removeOwnerStatement,
  removeSponsorship,
  setOwnerStatement,
  setSponsorship,
  SPONSORSHIP_PLACEMENTS,
  SPONSORSHIP_SOURCES,
  sponsorshipForm,
  sponsorshipFormValues,
} from './merchant-extras.service.js';

export interface MerchantAdminDeps {
  prisma: PrismaClient;
  clock: Clock;
}

const MERCHANT_PAGE_SIZE = 50;

/** The change a moderator's form post makes: by them, now. */
const change = (deps: MerchantAdminDeps, res: Response): ChangeContext => ({ prisma: deps.prisma, actorId: actorOf(res), now: deps.clock.now() });

/** The merchant form: a new merchant's (`merchantId` null) or the merchant's at :id. */
async function merchantFormPage(deps: MerchantAdminDeps, req: Request, res: Response, merchantId: string | null, values: FormValues, errors: FieldErrors, status = 200) {
  const editing = merchantId ? await merchantForEditing(deps.prisma, merchantId) : null;
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
      categories: await categoryChoices(deps.prisma),
      values,
      errors,
      now: deps.clock.now(),
    },
    status,
  );
}

/** The sponsorship form of a merchant: the values typed, else its sponsorship's, else a start today. */
async function sponsorshipFormPage(deps: MerchantAdminDeps, req: Request, res: Response, merchantId: string, values: FormValues | null, errors: FieldErrors, status = 200) {
  const merchant = await merchantWithSponsorship(deps.prisma, merchantId);
  if (!merchant) throw notFoundPage('Merchant');
  const shown = values ?? (merchant.sponsorship ? sponsorshipFormValues(merchant.sponsorship) : { startsOn: isoDay(deps.clock.now()) });
  renderAdmin(
    req,
    res,
    'sponsorship',
    { title: `Sponsorship of ${merchant.name}`, section: 'merchants', merchant, values: shown, errors, sources: SPONSORSHIP_SOURCES, placements: SPONSORSHIP_PLACEMENTS },
    status,
  );
}

/** The owner statement form of a merchant: the values typed, else its statement's. */
async function ownerStatementFormPage(deps: MerchantAdminDeps, req: Request, res: Response, merchantId: string, values: FormValues | null, errors: FieldErrors, status = 200) {
  const merchant = await merchantWithOwnerStatement(deps.prisma, merchantId);
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

/** GET /admin/merchants?q=&visibility=&page=: the merchants, searched by name, slug or website. */
export function merchantList(deps: MerchantAdminDeps): RequestHandler {
  return async (req, res) => {
    const q = typeof req.query.q === 'string' ? req.query.q.trim().slice(0, 100) : '';
    if (!isStorableText(q)) {
      throw new Refusal({ kind: 'invalid', code: 'validation-failed', title: 'Invalid search', detail: 'The search text must not contain control characters.' });
    }
    const visibility: Visibility = req.query.visibility === 'public' || req.query.visibility === 'hidden' ? req.query.visibility : 'all';
    const page = typeof req.query.page === 'string' && /^\d{1,5}$/.test(req.query.page) ? Math.max(1, Number(req.query.page)) : 1;
    const { total, merchants } = await adminMerchantPage(deps.prisma, { q, visibility }, (page - 1) * MERCHANT_PAGE_SIZE, MERCHANT_PAGE_SIZE);
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
}

/** GET /admin/merchants/new: the form adding a merchant (public by default). */
export function merchantNew(deps: MerchantAdminDeps): RequestHandler {
  return async (req, res) => merchantFormPage(deps, req, res, null, { isPublic: 'on' }, {});
}

/** POST /admin/merchants: adds a merchant. */
export function merchantCreate(deps: MerchantAdminDeps): RequestHandler {
  return formPost({
    save: ({ res, values }) => createMerchant(change(deps, res), formInput(merchantForm, values)),
    saved: ({ id }) => ({ to: `/admin/merchants/${id}`, message: 'Merchant added.' }),
    again: (errors, { req, res, values }) => merchantFormPage(deps, req, res, null, values, errors, 400),
  });
}

/** GET /admin/merchants/:id: the merchant's form, with its report counts. */
export function merchantShow(deps: MerchantAdminDeps): RequestHandler {
  return async (req, res) => {
    const id = idParam(req, 'Merchant');
    const merchant = await findMerchant(deps.prisma, id);
    if (!merchant) throw notFoundPage('Merchant');
    await merchantFormPage(deps, req, res, id, merchantFormValues(merchant), {});
  };
}

/** POST /admin/merchants/:id: saves the merchant; hiding or showing it says so. */
export function merchantUpdate(deps: MerchantAdminDeps): RequestHandler {
  return formPost({
    idOf: 'Merchant',
    save: ({ res, id, values }) => updateMerchant(change(deps, res), id, formInput(merchantForm, values)),
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
    again: (errors, { req, res, id, values }) => merchantFormPage(deps, req, res, id, values, errors, 400),
  });
}

/** GET /admin/merchants/:id/sponsorship: the merchant's sponsorship form. */
export function sponsorshipShow(deps: MerchantAdminDeps): RequestHandler {
  return async (req, res) => sponsorshipFormPage(deps, req, res, idParam(req, 'Merchant'), null, {});
}

/** POST /admin/merchants/:id/sponsorship: adds or replaces the merchant's sponsorship. */
export function sponsorshipSave(deps: MerchantAdminDeps): RequestHandler {
  return formPost({
    idOf: 'Merchant',
    save: ({ res, id, values }) => setSponsorship(change(deps, res), id, formInput(sponsorshipForm, values)),
    saved: ({ created }, { id }) => ({ to: `/admin/merchants/${id}/sponsorship`, message: created ? 'Sponsorship added.' : 'Sponsorship saved.' }),
    again: (errors, { req, res, id, values }) => sponsorshipFormPage(deps, req, res, id, values, errors, 400),
  });
}

/** POST /admin/merchants/:id/sponsorship/remove: removes the merchant's sponsorship. */
export function sponsorshipRemove(deps: MerchantAdminDeps): RequestHandler {
  return async (req, res) => {
    const id = idParam(req, 'Merchant');
    const removed = await removeSponsorship(change(deps, res), id);
    setFlash(req, 'ok', removed ? 'Sponsorship removed.' : 'There was no sponsorship to remove.');
    res.redirect(303, `/admin/merchants/${id}`);
  };
}

/** GET /admin/merchants/:id/owner-statement: the merchant's owner statement form. */
export function ownerStatementShow(deps: MerchantAdminDeps): RequestHandler {
  return async (req, res) => ownerStatementFormPage(deps, req, res, idParam(req, 'Merchant'), null, {});
}

/** POST /admin/merchants/:id/owner-statement: adds or replaces the merchant's owner statement. */
export function ownerStatementSave(deps: MerchantAdminDeps): RequestHandler {
  return formPost({
    idOf: 'Merchant',
    save: ({ res, id, values }) => {
      const saving = change(deps, res);
      // A declaration dated after the change's day is refused.
      return setOwnerStatement(saving, id, formInput(ownerStatementForm(isoDay(saving.now)), values));
    },
    saved: ({ created }, { id }) => ({ to: `/admin/merchants/${id}/owner-statement`, message: created ? 'Owner statement added.' : 'Owner statement saved.' }),
    again: (errors, { req, res, id, values }) => ownerStatementFormPage(deps, req, res, id, values, errors, 400),
  });
}

/** POST /admin/merchants/:id/owner-statement/remove: removes the merchant's owner statement. */
export function ownerStatementRemove(deps: MerchantAdminDeps): RequestHandler {
  return async (req, res) => {
    const id = idParam(req, 'Merchant');
    const removed = await removeOwnerStatement(change(deps, res), id);
    setFlash(req, 'ok', removed ? 'Owner statement removed.' : 'There was no owner statement to remove.');
    res.redirect(303, `/admin/merchants/${id}`);
  };
}
