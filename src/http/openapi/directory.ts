// The public directory's categories, merchants and agents in the OpenAPI document (http/openapi.ts).
import { z } from 'zod';
import { agentMerchantQuery, merchantDetailQuery, merchantQuery } from '../../modules/merchants/merchants.schemas.js';
import { pageParam } from '../../modules/directory/query.js';
import { componentRef, listHeaders, ok, pathParam, problem, publicHeaders, publicRead, queryParameters, SLUG_MAX_LENGTH } from './operations.js';

const merchantList = (description: string) => ({
  ...ok(
    `${description} The standard view gives every field of each per-agent summary, with the newest observation and evidence reference per task (the merchant's \`url\` has up to five); \`view=compact\` gives status and confidence per agent and task.`,
    { anyOf: [componentRef('MerchantList'), componentRef('CompactMerchantList')] },
    listHeaders,
  ),
});

/** The categories, the merchant search, a merchant, the agent registry and the search scoped to an agent. */
export function directoryPaths(): Record<string, unknown> {
  const page = queryParameters(z.strictObject({ page: pageParam }));
  return {
    '/categories': {
      get: publicRead({
        operationId: 'listCategories',
        summary: 'Canonical categories with their public merchant counts',
        description: 'Every canonical category with its slug (the category filter of the merchant endpoints and the queue), page URL and public merchant count, by name.',
        parameters: page,
        responses: { '200': ok('A page of categories.', componentRef('CategoryList'), listHeaders) },
      }),
    },
    '/merchants': {
      get: publicRead({
        operationId: 'searchMerchants',
        summary: 'Search the merchant directory',
        description:
          'Sponsored listings come first within the matching results, then the chosen order. agent, outcome, stage and days together select merchants with one approved report meeting all of them. Only agents with published reports appear in `agents`. reaches, task with taskStatus, minConfidence and sort=reach select and order by what the agent\'s summary says (its `reach` and `capabilities`) and need agent; a combination that breaks a rule is a 400 naming it. Unknown parameters are a 400, except cache busters and tracking parameters (`_`, `utm_*`, `fbclid`, `gclid`, …), which are ignored.',
        parameters: queryParameters(merchantQuery),
        responses: { '200': merchantList('A page of merchants.') },
      }),
    },
    '/merchants/{slugOrId}': {
      get: publicRead({
        operationId: 'getMerchant',
        summary: 'A merchant profile with a summary for every active agent',
        description:
          'One public merchant by slug or id, with a per-agent summary (reach, status, confidence, capabilities per task, evidence links, agent versions and regressions) for every active agent, tested or not. ' +
          'Summaries count independent reports by default and name self-reported ones (by a verified owner of the shop or vendor of the agent) beside them in `sources` and the verdict; independent=all counts them too.',
        parameters: [pathParam('slugOrId', 'Merchant slug or id.', SLUG_MAX_LENGTH), ...queryParameters(merchantDetailQuery)],
        responses: {
          '200': ok('The merchant.', componentRef('MerchantDetail'), publicHeaders),
          '400': problem('An invalid value of independent.'),
          '404': problem('No public merchant has this slug or id.'),
        },
      }),
    },
    '/agents': {
      get: publicRead({
        operationId: 'listAgents',
        summary: 'The active agent registry',
        description:
          "Active agents by name: id (a report's agentId), slug (the agent filter), name, vendor, and `versions`: the agentVersion values seen in approved reports, newest first, so an agent can find and name its own. Versions are observed, never declared by vendors.",
        parameters: page,
        responses: { '200': ok('A page of agents.', componentRef('RegistryAgentList'), listHeaders) },
      }),
    },
    '/agents/{slug}/merchants': {
      get: publicRead({
        operationId: 'searchAgentMerchants',
        summary: 'The merchant directory scoped to one agent',
        description: 'The merchant search of GET /merchants for one agent (its slug in the path): merchants with approved reports for it, with the same filters, the reach filters and sort=reach.',
        parameters: [pathParam('slug', 'Agent slug.', SLUG_MAX_LENGTH), ...queryParameters(agentMerchantQuery)],
        responses: {
          '200': merchantList('A page of merchants with approved reports for this agent.'),
          '404': problem('No active agent has this slug.'),
        },
      }),
    },
  };
}
