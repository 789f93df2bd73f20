// The moderators' category and agent pages. One function per use case. A form that does not
// validate comes back with its errors and the values typed (400); a saved one redirects with a
// message. Routes: http/routers/admin.ts.
import type { Request, RequestHandler, Response } from 'express';
import type { Clock } from '../../clock.js';
import type { PrismaClient } from '../../db/client.js';
import { formInput, type FieldErrors, type FormValues } from '../../forms.js';
import type { ChangeContext } from '../audit/audit.repository.js';
import { actorOf, formPost, idParam, notFoundPage, renderAdmin, setFlash } from '../../web/admin-pages.js';
import { agentForm, createAgent, newAgentForm, setAgentActive, updateAgent } from './agent-admin.service.js';
import { agentForAdmin, agentsForAdmin, categoriesForAdmin, categoryForAdmin } from './catalog-admin.repository.js';
import { addLegacyName, categoryForm, createCategory, legacyForm, removeLegacyName, updateCategory } from './category-admin.service.js';

export interface CatalogAdminDeps {
  prisma: PrismaClient;
  clock: Clock;
}

interface TypedForm {
  values: FormValues;
  errors: FieldErrors;
}

/** The change a moderator's form post makes: by them, now. */
const change = (deps: CatalogAdminDeps, res: Response): ChangeContext => ({ prisma: deps.prisma, actorId: actorOf(res), now: deps.clock.now() });

/** The categories, with the form adding one. */
async function categoriesPage(deps: CatalogAdminDeps, req: Request, res: Response, values: FormValues, errors: FieldErrors, status = 200) {
  const categories = await categoriesForAdmin(deps.prisma);
  renderAdmin(req, res, 'categories', { title: 'Categories', section: 'categories', categories, values, errors }, status);
}

/** A category with its legacy names: its own form and the one adding a legacy name. */
async function categoryPage(deps: CatalogAdminDeps, req: Request, res: Response, id: string, forms: { category?: TypedForm; legacy?: TypedForm }, status = 200) {
  const category = await categoryForAdmin(deps.prisma, id);
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

/** The agents, with the form adding one. */
async function agentsPage(deps: CatalogAdminDeps, req: Request, res: Response, values: FormValues, errors: FieldErrors, status = 200) {
  const agents = await agentsForAdmin(deps.prisma);
  renderAdmin(req, res, 'agents', { title: 'Agents', section: 'agents', agents, values, errors }, status);
}

/** An agent and its form: the values typed, else its own. */
async function agentPage(deps: CatalogAdminDeps, req: Request, res: Response, id: string, values: FormValues | null, errors: FieldErrors, status = 200) {
  const agent = await agentForAdmin(deps.prisma, id);
  if (!agent) throw notFoundPage('Agent');
  const shown = values ?? { name: agent.name, vendor: agent.vendor, description: agent.description ?? '', vendorWebsite: agent.vendorWebsite ?? '' };
  renderAdmin(req, res, 'agent', { title: `Agent ${agent.name}`, section: 'agents', agent, values: shown, errors }, status);
}

/** GET /admin/categories: the categories, and the form adding one. */
export function categoriesList(deps: CatalogAdminDeps): RequestHandler {
  return async (req, res) => categoriesPage(deps, req, res, {}, {});
}

/** POST /admin/categories: adds a category. */
export function categoryCreate(deps: CatalogAdminDeps): RequestHandler {
  return formPost({
    save: ({ res, values }) => createCategory(change(deps, res), formInput(categoryForm, values)),
    saved: ({ id }) => ({ to: `/admin/categories/${id}`, message: 'Category added.' }),
    again: (errors, { req, res, values }) => categoriesPage(deps, req, res, values, errors, 400),
  });
}

/** GET /admin/categories/:id: one category, its form and its legacy names. */
export function categoryShow(deps: CatalogAdminDeps): RequestHandler {
  return async (req, res) => categoryPage(deps, req, res, idParam(req, 'Category'), {});
}

/** POST /admin/categories/:id: renames the category (its previous name kept as a legacy name). */
export function categoryUpdate(deps: CatalogAdminDeps): RequestHandler {
  return formPost({
    idOf: 'Category',
    save: ({ res, id, values }) => updateCategory(change(deps, res), id, formInput(categoryForm, values)),
    saved: ({ changed, keptLegacy }, { id }) => ({
      to: `/admin/categories/${id}`,
      message: !changed
        ? 'Nothing changed.'
        : keptLegacy
          ? 'Category saved. Its previous name and slug are kept as a legacy name, so old links still work.'
          : 'Category saved.',
    }),
    again: (errors, { req, res, id, values }) => categoryPage(deps, req, res, id, { category: { values, errors } }, 400),
  });
}

/** POST /admin/categories/:id/legacy-names: adds a legacy name to the category. */
export function legacyNameAdd(deps: CatalogAdminDeps): RequestHandler {
  return formPost({
    idOf: 'Category',
    save: ({ res, id, values }) => addLegacyName(change(deps, res), id, formInput(legacyForm, values)),
    saved: (_added, { id }) => ({ to: `/admin/categories/${id}`, message: 'Legacy name added.' }),
    again: (errors, { req, res, id, values }) => categoryPage(deps, req, res, id, { legacy: { values, errors } }, 400),
  });
}

/** POST /admin/categories/:id/legacy-names/:legacyId/remove: removes one legacy name. */
export function legacyNameRemove(deps: CatalogAdminDeps): RequestHandler {
  return async (req, res) => {
    const id = idParam(req, 'Category');
    const legacyId = idParam(req, 'Legacy name', 'legacyId');
    if (!(await removeLegacyName(change(deps, res), id, legacyId))) throw notFoundPage('Legacy name');
    setFlash(req, 'ok', 'Legacy name removed.');
    res.redirect(303, `/admin/categories/${id}`);
  };
}

/** GET /admin/agents: the agents, and the form adding one. */
export function agentsList(deps: CatalogAdminDeps): RequestHandler {
  return async (req, res) => agentsPage(deps, req, res, {}, {});
}

/** POST /admin/agents: adds an agent (active). */
export function agentCreate(deps: CatalogAdminDeps): RequestHandler {
  return formPost({
    save: ({ res, values }) => createAgent(change(deps, res), formInput(newAgentForm, values)),
    saved: ({ id }) => ({ to: `/admin/agents/${id}`, message: 'Agent added. It is active: people can issue keys for it and report on it.' }),
    again: (errors, { req, res, values }) => agentsPage(deps, req, res, values, errors, 400),
  });
}

/** GET /admin/agents/:id: one agent and its form. */
export function agentShow(deps: CatalogAdminDeps): RequestHandler {
  return async (req, res) => agentPage(deps, req, res, idParam(req, 'Agent'), null, {});
}

/** POST /admin/agents/:id: saves the agent's name, vendor, description and website. */
export function agentUpdate(deps: CatalogAdminDeps): RequestHandler {
  return formPost({
    idOf: 'Agent',
    save: ({ res, id, values }) => updateAgent(change(deps, res), id, formInput(agentForm, values)),
    saved: ({ changed }, { id }) => ({ to: `/admin/agents/${id}`, message: changed ? 'Agent saved.' : 'Nothing changed.' }),
    again: (errors, { req, res, id, values }) => agentPage(deps, req, res, id, values, errors, 400),
  });
}

/** POST /admin/agents/:id/activate and /deactivate. */
export function agentActivation(deps: CatalogAdminDeps, active: boolean): RequestHandler {
  return async (req, res) => {
    const id = idParam(req, 'Agent');
    const { changed } = await setAgentActive(change(deps, res), id, active);
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
}
