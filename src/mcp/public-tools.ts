// The tools for anyone (spec 4.1): the public directory, read through the same services and
// schemas as GET /api/v1/….
import { z } from 'zod';
import { activeAgent, agents, categories } from '../modules/catalog/catalog.service.js';
import { independentParam, pageParam } from '../modules/directory/query.js';
import { listEnvelope, notice } from '../modules/directory/notice.js';
import { agentMerchantQuery, merchantQuery, type MerchantQuery } from '../modules/merchants/merchants.schemas.js';
import { merchantProfile, searchDirectory, searchDirectoryCompact } from '../modules/merchants/merchants.service.js';
import { contributionSchema, CONTRIBUTION_SCHEMA_PATH } from '../modules/reports/contribution-schema.js';
import { publicReport, recentReports } from '../modules/reports/public-reports.service.js';
import { reportQuery } from '../modules/reports/public-reports.schemas.js';
import { Answers, type JsonSchema } from './schemas.js';
import { directory, noArgs, publicTool, queryArgs, READ, type Tool, type ToolServices, withoutDescriptions } from './tool-kit.js';

const PAGED = 'Answer: { data: [...], total, page, pageSize }.';

const pageOnly = z.strictObject({ page: pageParam.describe('Page number, from 1; 24 items a page.') });
/** `independent` where search_merchants has already said what it means. */
const independentArg = independentParam.describe('"only" (the default) or "all", as in search_merchants.');
const merchantId = z.strictObject({
  slugOrId: z.string().min(1).max(200).describe('The merchant\'s slug (e.g. "example-shop") or id (a UUID), as search_merchants gives them.'),
  independent: independentArg,
});

/** GET /merchants and GET /agents/{slug}/merchants: the standard or the compact view. */
async function merchantPage(services: ToolServices, q: MerchantQuery, agent?: Parameters<typeof searchDirectory>[2]) {
  const { total, data }: { total: number; data: unknown[] } =
    q.view === 'compact' ? await searchDirectoryCompact(directory(services), q, agent) : await searchDirectory(directory(services), q, agent);
  return listEnvelope(services, data, total, q.page);
}

const searchMerchants = publicTool({
  name: 'search_merchants',
  title: 'Search merchants',
  description:
    "Search the directory's merchants, 24 a page; each argument's description says what it keeps, and unknown filters and values are refused. " +
    `Sponsored listings come first and are advertising, never evidence. ${PAGED}`,
  input: merchantQuery,
  output: Answers.merchantList,
  annotations: READ,
  async run(services, _caller, args) {
    return merchantPage(services, queryArgs(merchantQuery, args));
  },
});

const agentSlug = z.string().min(1).max(100).describe('The agent\'s slug, as list_agents gives it (e.g. "example-agent").');
const agentMerchantsDoc = z.strictObject({ agent: agentSlug, ...agentMerchantQuery.shape });

const listAgentMerchants: Tool = (() => {
  const tool = publicTool({
  name: 'list_agent_merchants',
  title: "List one agent's merchants",
  description: "The merchants with a summary of one agent (its slug): the filters of search_merchants but agent. An unknown agent is a 404. " + PAGED,
  input: agentMerchantsDoc,
  output: Answers.merchantList,
  annotations: READ,
  async run(services, _caller, args) {
    const { agent: slug, ...filters } = args;
    // As on the API: the filters are validated first, then the agent of the path is looked up.
    const q = queryArgs(agentMerchantQuery, filters);
    const { agent } = queryArgs(z.strictObject({ agent: agentSlug }), { agent: slug });
    return merchantPage(services, q, await activeAgent(directory(services), agent));
  },
  });
  // The filters are search_merchants', described there once.
  const { properties } = tool.inputJsonSchema as { properties: Record<string, JsonSchema> };
  return { ...tool, inputJsonSchema: { ...tool.inputJsonSchema, properties: { ...withoutDescriptions(properties), agent: properties.agent } } };
})();

const getMerchant = publicTool({
  name: 'get_merchant',
  title: 'Get a merchant',
  description:
    "One merchant's profile with a summary per active agent: its verdict, reach, status per task, counts, dates, evidence (report ids for get_report), the versions reported and any regression.",
  input: merchantId,
  output: Answers.merchant,
  annotations: READ,
  async run(services, _caller, args) {
    const { slugOrId, independent } = queryArgs(merchantId, args);
    return { data: await merchantProfile(directory(services), slugOrId, independent), ...notice(services) };
  },
});

const listAgents = publicTool({
  name: 'list_agents',
  title: 'List agents',
  description: `The active AI agents: id, slug (the agent argument elsewhere), name, vendor, versions seen. ${PAGED}`,
  input: pageOnly,
  output: Answers.agentList,
  annotations: READ,
  async run(services, _caller, args) {
    const { page } = queryArgs(pageOnly, args);
    const { total, data } = await agents(directory(services), page);
    return listEnvelope(services, data, total, page);
  },
});

const listCategories = publicTool({
  name: 'list_categories',
  title: 'List categories',
  description: 'The merchant categories: name, slug (the category argument elsewhere), page URL, number of public merchants.',
  input: pageOnly,
  output: Answers.categoryList,
  annotations: READ,
  async run(services, _caller, args) {
    const { page } = queryArgs(pageOnly, args);
    const { total, data } = await categories(directory(services), page);
    return listEnvelope(services, data, total, page);
  },
});

const listReports = publicTool({
  name: 'list_reports',
  title: 'List recent reports',
  description: 'Published (approved) reports, newest first: agent (a slug), merchant (an id), outcome, independent, page.',
  input: reportQuery.extend({ independent: independentArg }),
  output: Answers.reportList,
  annotations: READ,
  async run(services, _caller, args) {
    const q = queryArgs(reportQuery, args);
    const { total, data } = await recentReports(directory(services), q);
    return listEnvelope(services, data, total, q.page);
  },
});

const publicReportId = z.strictObject({
  id: z.string().min(1).max(100).describe('The report id: the reportId of evidence in get_merchant, or an id from list_reports.'),
});

const getReport = publicTool({
  name: 'get_report',
  title: 'Get a published report',
  description: "One published report by id: what an agent found at a merchant, the evidence behind get_merchant's statuses.",
  input: publicReportId,
  output: Answers.report,
  annotations: READ,
  async run(services, _caller, args) {
    const { id } = queryArgs(publicReportId, args);
    return { data: await publicReport(directory(services), id), ...notice(services) };
  },
});

/** The contribution schema, as GET /api/v1/contribution-schema answers it (also the MCP resource). */
export function contributionSchemaOf(services: ToolServices) {
  if (!services.limits) throw new Error('The MCP tools were built without the configured limits.');
  return contributionSchema(services.baseUrl, services.limits);
}

export const CONTRIBUTION_SCHEMA_RESOURCE = {
  name: 'contribution-schema',
  title: 'Contribution schema',
  description:
    'Everything needed to report correctly: every task, outcome, stage and failure reason defined, the rules and the cases real runs hit, ' +
    'the privacy conditions, the limits and the JSON Schema of a report.',
  mimeType: 'application/json',
  uri: (baseUrl: string) => `${baseUrl}${CONTRIBUTION_SCHEMA_PATH}`,
};

const getContributionSchema = publicTool({
  name: 'get_contribution_schema',
  title: 'Get the contribution schema',
  description: 'The contribution schema (also a resource): the definitions, rules, cases and limits every report follows.',
  input: noArgs,
  output: Answers.contributionSchema,
  annotations: READ,
  async run(services, _caller, args) {
    queryArgs(noArgs, args);
    return { data: contributionSchemaOf(services), ...notice(services) };
  },
});
/** The tools for anyone, in the order tools/list gives them. */
export const PUBLIC_TOOLS: readonly Tool[] = [
  searchMerchants,
  getMerchant,
  listAgents,
  listCategories,
  listAgentMerchants,
  listReports,
  getReport,
  getContributionSchema,
];
