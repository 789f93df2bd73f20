// The moderators' category and agent pages. A form that does not validate comes back with its
// errors and the values typed (400); a saved one redirects with a message. Routes:
// http/routers/admin.ts.
import type { Request, RequestHandler, Response } from 'express';
import type { Clock } from '../../clock.js';
import type { PrismaClient } from '../../db/client.js';
import type { FieldErrors, FormValues } from '../../forms.js';
import type { ChangeContext } from '../audit/audit.repository.js';
import { actorOf, formPost, idParam, notFoundPage, renderAdmin, setFlash } from '../../web/admin-pages.js';
import { setAgentActive, createAgent, updateAgent } from './agent-admin.service.js';
import { agentForAdmin, agentsForAdmin, categoriesForAdmin, categoryForAdmin } from './catalog-admin.repository.js';
import { addLegacyName, createCategory, removeLegacyName, updateCategory } from './category-admin.service.js';

interface TypedForm {
  values: FormValues;
  errors: FieldErrors;
}

export function catalogAdminHandlers(deps: { prisma: PrismaClient; clock: Clock }) {
  const { prisma } = deps;
  const now = () => deps.clock.now();
  /** The change a moderator's form post makes: by them, now. */
  const change = (res: Response): ChangeContext => ({ prisma, actorId: actorOf(res), now: now() });

  async function categoriesPage(req: Request, res: Response, values: FormValues, errors: FieldErrors, status = 200) {
    const categories = await categoriesForAdmin(prisma);
    renderAdmin(req, res, 'categories', { title: 'Categories', section: 'categories', categories, values, errors }, status);
  }

  async function categoryPage(req: Request, res: Response, id: string, forms: { category?: TypedForm; legacy?: TypedForm }, status = 200) {
    const category = await categoryForAdmin(prisma, id);
    if (!category) throw notFoundPage('Category');
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

  async function agentsPage(req: Request, res: Response, values: FormValues, errors: FieldErrors, status = 200) {
    const agents = await agentsForAdmin(prisma);
    renderAdmin(req, res, 'agents', { title: 'Agents', section: 'agents', agents, values, errors }, status);
  }

  async function agentPage(req: Request, res: Response, id: string, values: FormValues | null, errors: FieldErrors, status = 200) {
    const agent = await agentForAdmin(prisma, id);
    if (!agent) throw notFoundPage('Agent');
    const shown = values ?? { name: agent.name, vendor: agent.vendor, description: agent.description ?? '', vendorWebsite: agent.vendorWebsite ?? '' };
    renderAdmin(req, res, 'agent', { title: `Agent ${agent.name}`, section: 'agents', agent, values: shown, errors }, status);
  }

  /** Activates or deactivates the agent at :id. */
  const agentActivation =
    (active: boolean): RequestHandler =>
    async (req, res) => {
      const id = idParam(req, 'Agent');
      const { changed } = await setAgentActive(change(res), id, active);
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
    };

  return {
    categories: (async (req, res) => categoriesPage(req, res, {}, {})) as RequestHandler,

    createCategory: formPost({
      save: ({ res, values }) => createCategory(change(res), values),
      saved: ({ id }) => ({ to: `/admin/categories/${id}`, message: 'Category added.' }),
      again: (errors, { req, res, values }) => categoriesPage(req, res, values, errors, 400),
    }),

    category: (async (req, res) => categoryPage(req, res, idParam(req, 'Category'), {})) as RequestHandler,

    updateCategory: formPost({
      idOf: 'Category',
      save: ({ res, id, values }) => updateCategory(change(res), id, values),
      saved: ({ changed, keptLegacy }, { id }) => ({
        to: `/admin/categories/${id}`,
        message: !changed
          ? 'Nothing changed.'
          : keptLegacy
            ? 'Category saved. Its previous name and slug are kept as a legacy name, so old links still work.'
            : 'Category saved.',
      }),
      again: (errors, { req, res, id, values }) => categoryPage(req, res, id, { category: { values, errors } }, 400),
    }),

    addLegacyName: formPost({
      idOf: 'Category',
      save: ({ res, id, values }) => addLegacyName(change(res), id, values),
      saved: (_added, { id }) => ({ to: `/admin/categories/${id}`, message: 'Legacy name added.' }),
      again: (errors, { req, res, id, values }) => categoryPage(req, res, id, { legacy: { values, errors } }, 400),
    }),

    removeLegacyName: (async (req, res) => {
      const id = idParam(req, 'Category');
      const legacyId = idParam(req, 'Legacy name', 'legacyId');
      if (!(await removeLegacyName(change(res), id, legacyId))) throw notFoundPage('Legacy name');
      setFlash(req, 'ok', 'Legacy name removed.');
      res.redirect(303, `/admin/categories/${id}`);
    }) as RequestHandler,

    agents: (async (req, res) => agentsPage(req, res, {}, {})) as RequestHandler,

    createAgent: formPost({
      save: ({ res, values }) => createAgent(change(res), values),
      saved: ({ id }) => ({ to: `/admin/agents/${id}`, message: 'Agent added. It is active: people can issue keys for it and report on it.' }),
      again: (errors, { req, res, values }) => agentsPage(req, res, values, errors, 400),
    }),

    agent: (async (req, res) => agentPage(req, res, idParam(req, 'Agent'), null, {})) as RequestHandler,

    updateAgent: formPost({
      idOf: 'Agent',
      save: ({ res, id, values }) => updateAgent(change(res), id, values),
      saved: ({ changed }, { id }) => ({ to: `/admin/agents/${id}`, message: changed ? 'Agent saved.' : 'Nothing changed.' }),
      again: (errors, { req, res, id, values }) => agentPage(req, res, id, values, errors, 400),
    }),

    activateAgent: agentActivation(true),
    deactivateAgent: agentActivation(false),
  };
}
