// Directory management pages: merchants (with sponsorship and owner statement), categories
// (with legacy names) and agents. Every form re-renders with its errors and the typed
// values (400) when it does not validate; a successful post redirects with a message.
import { Router, type Request, type Response } from 'express';
import type { Clock } from '../../clock.js';
import type { PrismaClient } from '../../db/client.js';
import { HttpProblem } from '../../http/problem.js';
import { OUTCOMES, TASKS } from '../aggregation/constants.js';
import {
  formValues,
  idParam,
  notFound,
  renderAdmin,
  setFlash,
  type FieldErrors,
  type FormResult,
  type FormValues,
} from './admin.http.js';
import {
  addLegacyName,
  createAgent,
  createCategory,
  createMerchant,
  merchantFormValues,
  NotFoundError,
  ownerStatementFormValues,
  removeLegacyName,
  removeOwnerStatement,
  removeSponsorship,
  setAgentActive,
  setOwnerStatement,
  setSponsorship,
  SPONSORSHIP_PLACEMENTS,
  SPONSORSHIP_SOURCES,
  sponsorshipFormValues,
  updateAgent,
  updateCategory,
  updateMerchant,
} from './directory.service.js';
import { isStorableText } from '../../text.js';
import { escapeLike } from '../../db/like.js';

export interface DirectoryPagesDeps {
  prisma: PrismaClient;
  clock: Clock;
}

const MERCHANT_PAGE_SIZE = 50;

/** Service "not found" errors become the 404 page. */
async function orNotFound<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof NotFoundError) throw notFound(error.what);
    throw error;
  }
}

export function directoryPages(deps: DirectoryPagesDeps): Router {
  const router = Router();
  const { prisma } = deps;
  const actor = (res: Response) => res.locals.account!.id;
  const now = () => deps.clock.now();
  const categoryChoices = () => prisma.category.findMany({ select: { id: true, name: true }, orderBy: [{ name: 'asc' }, { id: 'asc' }] });

  /** Redirects with `message` on success; otherwise re-renders through `again` with status 400. */
  async function settle<T>(
    req: Request,
    res: Response,
    result: FormResult<T>,
    success: (value: T) => { to: string; message: string },
    again: (errors: FieldErrors) => Promise<void>,
  ): Promise<void> {
    if (!result.ok) {
      await again(result.errors);
      return;
    }
    const { to, message } = success(result.value);
    setFlash(req, 'ok', message);
    res.redirect(303, to);
  }

  // ---------------------------------------------------------------------------------------
  // Merchants

  router.get('/merchants', async (req, res) => {
    const q = typeof req.query.q === 'string' ? req.query.q.trim().slice(0, 100) : '';
    if (!isStorableText(q)) {
      throw new HttpProblem({ status: 400, code: 'validation-failed', title: 'Invalid search', detail: 'The search text must not contain control characters.' });
    }
    const visibility = req.query.visibility === 'public' || req.query.visibility === 'hidden' ? req.query.visibility : 'all';
    const page = typeof req.query.page === 'string' && /^\d{1,5}$/.test(req.query.page) ? Math.max(1, Number(req.query.page)) : 1;
    const where = {
      ...(q
        ? {
            OR: [
              { name: { contains: escapeLike(q), mode: 'insensitive' as const } },
              { slug: { contains: escapeLike(q), mode: 'insensitive' as const } },
              { website: { contains: escapeLike(q), mode: 'insensitive' as const } },
            ],
          }
        : {}),
      ...(visibility === 'all' ? {} : { isPublic: visibility === 'public' }),
    };
    const [total, merchants] = await Promise.all([
      prisma.merchant.count({ where }),
      prisma.merchant.findMany({
        where,
        orderBy: [{ name: 'asc' }, { id: 'asc' }],
        skip: (page - 1) * MERCHANT_PAGE_SIZE,
        take: MERCHANT_PAGE_SIZE,
        select: {
          id: true,
          name: true,
          slug: true,
          website: true,
          isPublic: true,
          approvedCanonical: true,
          reportCount: true,
          categoryRef: { select: { name: true } },
          sponsorship: { select: { id: true } },
          ownerStatement: { select: { id: true } },
        },
      }),
    ]);
    const pageUrl = (p: number) => {
      const params = new URLSearchParams();
      if (q) params.set('q', q);
      if (visibility !== 'all') params.set('visibility', visibility);
      if (p > 1) params.set('page', String(p));
      const qs = params.toString();
      return `/admin/merchants${qs ? `?${qs}` : ''}`;
    };
    renderAdmin(req, res, 'merchants', {
      title: 'Merchants',
      section: 'merchants',
      q,
      visibility,
      merchants,
      total,
      page,
      pages: Math.max(1, Math.ceil(total / MERCHANT_PAGE_SIZE)),
      pageUrl,
    });
  });

  async function showMerchantForm(req: Request, res: Response, merchantId: string | null, values: FormValues, errors: FieldErrors, status = 200) {
    const merchant = merchantId
      ? await prisma.merchant.findUnique({
          where: { id: merchantId },
          include: { sponsorship: true, ownerStatement: { select: { id: true, declaredAt: true } }, categoryRef: { select: { name: true } } },
        })
      : null;
    if (merchantId && !merchant) throw notFound('Merchant');
    const reportCounts = merchant
      ? Object.fromEntries(
          (await prisma.report.groupBy({ by: ['status'], where: { merchantId: merchant.id }, _count: { _all: true } })).map((r) => [
            r.status,
            r._count._all,
          ]),
        )
      : {};
    renderAdmin(
      req,
      res,
      'merchant',
      {
        title: merchant ? `Edit ${merchant.name}` : 'Add a merchant',
        section: 'merchants',
        merchant,
        reportCounts,
        categories: await categoryChoices(),
        values,
        errors,
        now: now(),
      },
      status,
    );
  }

  router.get('/merchants/new', async (req, res) => {
    await showMerchantForm(req, res, null, { isPublic: 'on' }, {});
  });

  router.post('/merchants', async (req, res) => {
    const values = formValues(req.body);
    await settle(
      req,
      res,
      await createMerchant(prisma, actor(res), values, now()),
      ({ id }) => ({ to: `/admin/merchants/${id}`, message: 'Merchant added.' }),
      (errors) => showMerchantForm(req, res, null, values, errors, 400),
    );
  });

  router.get('/merchants/:id', async (req, res) => {
    const id = idParam(req, 'Merchant');
    const merchant = await prisma.merchant.findUnique({ where: { id } });
    if (!merchant) throw notFound('Merchant');
    await showMerchantForm(req, res, id, merchantFormValues(merchant), {});
  });

  router.post('/merchants/:id', async (req, res) => {
    const id = idParam(req, 'Merchant');
    const values = formValues(req.body);
    await settle(
      req,
      res,
      await orNotFound(updateMerchant(prisma, actor(res), id, values, now())),
      ({ changed, visibility }) => ({
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
      (errors) => showMerchantForm(req, res, id, values, errors, 400),
    );
  });

  // Sponsorship

  async function showSponsorship(req: Request, res: Response, merchantId: string, values: FormValues | null, errors: FieldErrors, status = 200) {
    const merchant = await prisma.merchant.findUnique({ where: { id: merchantId }, include: { sponsorship: true } });
    if (!merchant) throw notFound('Merchant');
    renderAdmin(
      req,
      res,
      'sponsorship',
      {
        title: `Sponsorship of ${merchant.name}`,
        section: 'merchants',
        merchant,
        values: values ?? (merchant.sponsorship ? sponsorshipFormValues(merchant.sponsorship) : { startsOn: now().toISOString().slice(0, 10) }),
        errors,
        sources: SPONSORSHIP_SOURCES,
        placements: SPONSORSHIP_PLACEMENTS,
      },
      status,
    );
  }

  router.get('/merchants/:id/sponsorship', async (req, res) => {
    await showSponsorship(req, res, idParam(req, 'Merchant'), null, {});
  });

  router.post('/merchants/:id/sponsorship', async (req, res) => {
    const id = idParam(req, 'Merchant');
    const values = formValues(req.body);
    await settle(
      req,
      res,
      await orNotFound(setSponsorship(prisma, actor(res), id, values, now())),
      ({ created }) => ({ to: `/admin/merchants/${id}/sponsorship`, message: created ? 'Sponsorship added.' : 'Sponsorship saved.' }),
      (errors) => showSponsorship(req, res, id, values, errors, 400),
    );
  });

  router.post('/merchants/:id/sponsorship/remove', async (req, res) => {
    const id = idParam(req, 'Merchant');
    const removed = await removeSponsorship(prisma, actor(res), id, now());
    setFlash(req, 'ok', removed ? 'Sponsorship removed.' : 'There was no sponsorship to remove.');
    res.redirect(303, `/admin/merchants/${id}`);
  });

  // Owner statement

  async function showOwnerStatement(req: Request, res: Response, merchantId: string, values: FormValues | null, errors: FieldErrors, status = 200) {
    const merchant = await prisma.merchant.findUnique({ where: { id: merchantId }, include: { ownerStatement: true } });
    if (!merchant) throw notFound('Merchant');
    renderAdmin(
      req,
      res,
      'owner-statement',
      {
        title: `Owner statement of ${merchant.name}`,
        section: 'merchants',
        merchant,
        values: values ?? (merchant.ownerStatement ? ownerStatementFormValues(merchant.ownerStatement) : {}),
        errors,
        claimTasks: TASKS,
        claimOutcomes: OUTCOMES,
      },
      status,
    );
  }

  router.get('/merchants/:id/owner-statement', async (req, res) => {
    await showOwnerStatement(req, res, idParam(req, 'Merchant'), null, {});
  });

  router.post('/merchants/:id/owner-statement', async (req, res) => {
    const id = idParam(req, 'Merchant');
    const values = formValues(req.body);
    await settle(
      req,
      res,
      await orNotFound(setOwnerStatement(prisma, actor(res), id, values, now())),
      ({ created }) => ({ to: `/admin/merchants/${id}/owner-statement`, message: created ? 'Owner statement added.' : 'Owner statement saved.' }),
      (errors) => showOwnerStatement(req, res, id, values, errors, 400),
    );
  });

  router.post('/merchants/:id/owner-statement/remove', async (req, res) => {
    const id = idParam(req, 'Merchant');
    const removed = await removeOwnerStatement(prisma, actor(res), id, now());
    setFlash(req, 'ok', removed ? 'Owner statement removed.' : 'There was no owner statement to remove.');
    res.redirect(303, `/admin/merchants/${id}`);
  });

  // ---------------------------------------------------------------------------------------
  // Categories

  async function showCategories(req: Request, res: Response, values: FormValues, errors: FieldErrors, status = 200) {
    const categories = await prisma.category.findMany({
      orderBy: [{ name: 'asc' }, { id: 'asc' }],
      include: { legacyNames: { select: { name: true, slug: true }, orderBy: { name: 'asc' } }, _count: { select: { merchants: true } } },
    });
    renderAdmin(req, res, 'categories', { title: 'Categories', section: 'categories', categories, values, errors }, status);
  }

  router.get('/categories', async (req, res) => {
    await showCategories(req, res, {}, {});
  });

  router.post('/categories', async (req, res) => {
    const values = formValues(req.body);
    await settle(
      req,
      res,
      await createCategory(prisma, actor(res), values, now()),
      ({ id }) => ({ to: `/admin/categories/${id}`, message: 'Category added.' }),
      (errors) => showCategories(req, res, values, errors, 400),
    );
  });

  async function showCategory(
    req: Request,
    res: Response,
    id: string,
    forms: { category?: { values: FormValues; errors: FieldErrors }; legacy?: { values: FormValues; errors: FieldErrors } },
    status = 200,
  ) {
    const category = await prisma.category.findUnique({
      where: { id },
      include: { legacyNames: { orderBy: { name: 'asc' } }, _count: { select: { merchants: true } } },
    });
    if (!category) throw notFound('Category');
    renderAdmin(
      req,
      res,
      'category',
      {
        title: `Category ${category.name}`,
        section: 'categories',
        category,
        categoryForm: forms.category ?? { values: { name: category.name, slug: category.slug }, errors: {} },
        legacyForm: forms.legacy ?? { values: {}, errors: {} },
      },
      status,
    );
  }

  router.get('/categories/:id', async (req, res) => {
    await showCategory(req, res, idParam(req, 'Category'), {});
  });

  router.post('/categories/:id', async (req, res) => {
    const id = idParam(req, 'Category');
    const values = formValues(req.body);
    await settle(
      req,
      res,
      await orNotFound(updateCategory(prisma, actor(res), id, values, now())),
      ({ changed, keptLegacy }) => ({
        to: `/admin/categories/${id}`,
        message: !changed
          ? 'Nothing changed.'
          : keptLegacy
            ? 'Category saved. Its previous name and slug are kept as a legacy name, so old links still work.'
            : 'Category saved.',
      }),
      (errors) => showCategory(req, res, id, { category: { values, errors } }, 400),
    );
  });

  router.post('/categories/:id/legacy-names', async (req, res) => {
    const id = idParam(req, 'Category');
    const values = formValues(req.body);
    await settle(
      req,
      res,
      await orNotFound(addLegacyName(prisma, actor(res), id, values, now())),
      () => ({ to: `/admin/categories/${id}`, message: 'Legacy name added.' }),
      (errors) => showCategory(req, res, id, { legacy: { values, errors } }, 400),
    );
  });

  router.post('/categories/:id/legacy-names/:legacyId/remove', async (req, res) => {
    const id = idParam(req, 'Category');
    const legacyId = idParam(req, 'Legacy name', 'legacyId');
    const removed = await removeLegacyName(prisma, actor(res), id, legacyId, now());
    if (!removed) throw notFound('Legacy name');
    setFlash(req, 'ok', 'Legacy name removed.');
    res.redirect(303, `/admin/categories/${id}`);
  });

  // ---------------------------------------------------------------------------------------
  // Agents

  async function showAgents(req: Request, res: Response, values: FormValues, errors: FieldErrors, status = 200) {
    const agents = await prisma.agent.findMany({
      orderBy: [{ name: 'asc' }, { id: 'asc' }],
      include: { _count: { select: { reports: true, agentKeys: true } } },
    });
    renderAdmin(req, res, 'agents', { title: 'Agents', section: 'agents', agents, values, errors }, status);
  }

  router.get('/agents', async (req, res) => {
    await showAgents(req, res, {}, {});
  });

  router.post('/agents', async (req, res) => {
    const values = formValues(req.body);
    await settle(
      req,
      res,
      await createAgent(prisma, actor(res), values, now()),
      ({ id }) => ({ to: `/admin/agents/${id}`, message: 'Agent added. It is active: people can issue keys for it and report on it.' }),
      (errors) => showAgents(req, res, values, errors, 400),
    );
  });

  async function showAgent(req: Request, res: Response, id: string, values: FormValues | null, errors: FieldErrors, status = 200) {
    const agent = await prisma.agent.findUnique({
      where: { id },
      include: { _count: { select: { reports: true, agentKeys: true, summaries: true } } },
    });
    if (!agent) throw notFound('Agent');
    renderAdmin(
      req,
      res,
      'agent',
      {
        title: `Agent ${agent.name}`,
        section: 'agents',
        agent,
        values: values ?? { name: agent.name, vendor: agent.vendor, description: agent.description ?? '' },
        errors,
      },
      status,
    );
  }

  router.get('/agents/:id', async (req, res) => {
    await showAgent(req, res, idParam(req, 'Agent'), null, {});
  });

  router.post('/agents/:id', async (req, res) => {
    const id = idParam(req, 'Agent');
    const values = formValues(req.body);
    await settle(
      req,
      res,
      await orNotFound(updateAgent(prisma, actor(res), id, values, now())),
      ({ changed }) => ({ to: `/admin/agents/${id}`, message: changed ? 'Agent saved.' : 'Nothing changed.' }),
      (errors) => showAgent(req, res, id, values, errors, 400),
    );
  });

  for (const [path, active] of [
    ['activate', true],
    ['deactivate', false],
  ] as const) {
    router.post(`/agents/:id/${path}`, async (req, res) => {
      const id = idParam(req, 'Agent');
      const { changed } = await orNotFound(setAgentActive(prisma, actor(res), id, active, now()));
      setFlash(
        req,
        'ok',
        !changed
          ? `The agent was already ${active ? 'active' : 'inactive'}: nothing changed.`
          : active
            ? 'Agent activated: it and its approved reports are public again, and its keys work.'
            : 'Agent deactivated: it and its reports are gone from every public output, and its keys are refused.',
      );
      res.redirect(303, `/admin/agents/${id}`);
    });
  }

  router.use((error: unknown, _req: Request, _res: Response, next: (error?: unknown) => void) => {
    next(error instanceof NotFoundError ? new HttpProblem({ status: 404, code: 'not-found', title: `${error.what} not found` }) : error);
  });

  return router;
}
