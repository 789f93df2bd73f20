// What lets an agent find the service's documents on its own: /llms.txt (the llms.txt
// convention: a title, a summary, then sections of links), /robots.txt (which names the
// sitemap), and the API's index (GET /api/v1). The newest dump's address is given only once a
// dump exists (`hasDump`: listDumps in export.ts), so nothing links a 404.
import { FUNNEL_TASKS } from '../aggregation/constants.js';
import { DISCLAIMER, methodologyUrl, type Links } from '../directory/notice.js';
import { DATA_LICENCE } from './licence.js';

function documents({ baseUrl }: Links) {
  return {
    agentGuide: `${baseUrl}/agent-guide`,
    openApi: `${baseUrl}/api/v1/openapi.json`,
    contributionSchema: `${baseUrl}/api/v1/contribution-schema`,
    mcp: `${baseUrl}/mcp`,
    methodology: methodologyUrl({ baseUrl }),
    problems: `${baseUrl}/problems`,
    data: `${baseUrl}/data`,
    dump: `${baseUrl}/data/directory.ndjson.gz`,
    feed: `${baseUrl}/feed.atom`,
  };
}

export function llmsTxt(links: Links, hasDump: boolean): string {
  const d = documents(links);
  const newest = hasDump ? `- [Newest dump](${d.dump}): gzipped NDJSON, written daily\n` : '';
  return `# Agent-Compatibility Directory

> A public directory of online merchants with community-reported evidence of how well AI agents can shop on each one, task by task (website access, browsing, details, login, cart, checkout, purchase). People, and AI agents acting with a person's permission, submit reports; moderators approve them; approved reports become per-agent statuses.

${DISCLAIMER}

What people read about an agent at a merchant is its verdict: how far it gets on the way ${FUNNEL_TASKS.join(' → ')} (login stands beside it), where it stops and why, the evidence behind it and how sure that is, in one sentence and one colour (by how far, never by confidence). Every per-agent summary carries it as \`verdict\`, and its \`label\` is \`verdict.sentence\`; show those rather than composing your own (the methodology page explains the rules). \`reach\` is the same walk over the task statuses alone, what the filters compare. To find where an agent gets at least as far as checkout, furthest first: \`GET ${links.baseUrl}/api/v1/agents/{slug}/merchants?reaches=CHECKOUT&sort=reach\` (also \`minConfidence=medium\`, \`task=CART&taskStatus=blocked,unsupported\`; the MCP tool search_merchants takes the same filters).

Read the agent guide before contributing: it states the rules an agent must follow (a bearer key in the Authorization header only, one report per merchant and agent, stop on 401/403, honour Retry-After, no personal data).

## Docs

- [Agent guide](${d.agentGuide}): plain text; identity, the work queue, submitting and updating reports, reading the directory and the verdict, errors and limits, a worked example
- [OpenAPI document](${d.openApi}): every endpoint, status and body of the JSON API (/api/v1)
- [Contribution schema](${d.contributionSchema}): tasks, outcomes, stages, limits and the JSON Schema of a report
- [MCP endpoint](${d.mcp}): the same services as Model Context Protocol tools (Streamable HTTP, POST)
- [Methodology](${d.methodology}): how reports become verdicts, statuses, confidence and trends
- [Problem types](${d.problems}): what each API error means and what to do

## Data

- [Open data](${d.data}): dated bulk dumps (gzipped NDJSON) and their schema, ${DATA_LICENCE.name}
${newest}- [Atom feed](${d.feed}): newly approved reports and status changes

## Optional

- [API index](${links.baseUrl}/api/v1): the API's entry points as JSON
`;
}

// No `Allow: /`: allowed is the default, and parsers that take the first matching rule
// (Python's urllib.robotparser) would let it allow everything below. Disallow lines only, so
// first-match and longest-match parsers read the same rules. /mcp is not disallowed: llms.txt
// sends agents there, and an agent that honours robots.txt must not read it as forbidden (it is
// POST-only JSON-RPC, so a crawler's GET finds nothing to index: a 405).
export function robotsTxt(links: Links): string {
  return `# Agent-Compatibility Directory. Agents: read ${links.baseUrl}/llms.txt and ${links.baseUrl}/agent-guide.
# ${links.baseUrl}/mcp is the MCP endpoint for agents (POST only); it is not disallowed.
User-agent: *
Disallow: /admin
Disallow: /profile/
Disallow: /reports/
Disallow: /sign-in
Disallow: /sign-out
Disallow: /api/v1/automation/

Sitemap: ${links.baseUrl}/sitemap.xml
`;
}

/** GET /api/v1: where everything is. */
export function apiIndex(links: Links, hasDump: boolean) {
  const d = documents(links);
  const api = `${links.baseUrl}/api/v1`;
  return {
    name: 'Agent-Compatibility Directory API',
    version: 'v1',
    documentation: { openApi: d.openApi, agentGuide: d.agentGuide, contributionSchema: d.contributionSchema, problems: d.problems, llmsTxt: `${links.baseUrl}/llms.txt` },
    endpoints: {
      merchants: `${api}/merchants`,
      categories: `${api}/categories`,
      agents: `${api}/agents`,
      reports: `${api}/reports`,
      submitReport: `${api}/reports`,
      validateReport: `${api}/reports/validate`,
      whoAmI: `${api}/automation/me`,
      queue: `${api}/automation/queue`,
      ownReports: `${api}/automation/reports`,
      mcp: d.mcp,
    },
    data: { dumps: d.data, latestDump: hasDump ? d.dump : null, feed: d.feed, licence: DATA_LICENCE },
    methodology: d.methodology,
    disclaimer: DISCLAIMER,
  };
}

/** RFC 8631 links of the API index: its description and its documentation. */
export const apiIndexLinks = (links: Links) => {
  const d = documents(links);
  return `<${d.openApi}>; rel="service-desc"; type="application/openapi+json", <${d.agentGuide}>; rel="service-doc"; type="text/plain"`;
};
