// /agent-guide: plain text, complete enough for an AI agent with nothing else. Every enumeration,
// limit, problem code, MCP tool and URL is printed from the same constants and schema the API
// enforces (contributionSchema, the key and queue constants, PROBLEM_TYPES, the MCP server's tools
// and body limit as the composition hands them over (McpFacts), the summary's Reach schema and
// the reach constants), so the guide cannot drift from the code.
// The worked example (section "Worked example") is a real
// exchange captured from a running server, with ids replaced by placeholders and long text
// trimmed; its limit figures are printed from the configuration.
import { z } from 'zod';
import type { Config } from '../../config/env.js';
import { PROBLEM_TYPES } from '../../problem-types.js';
import { CAPABILITY_STATUSES, CONFIDENCE_LEVELS, FUNNEL_TASKS } from '../aggregation/constants.js';
import { DISCLAIMER, MAX_PAGE } from '../directory/notice.js';
import { Reach, Verdict } from '../directory/schemas.js';
import { GENERAL_MIN_REPORTS, GREEN_FROM, RED_UP_TO } from '../aggregation/verdict.js';
import { DISPLAY_PREFIX_LENGTH, KEY_LIFETIME_DAYS, KEY_PARAMETER_NAMES, KEY_PREFIX, KEY_RANDOM_BYTES } from '../keys/keys.service.js';
import { CONTRIBUTION_SCHEMA_PATH, contributionSchema, MAX_BODY_BYTES } from '../reports/contribution-schema.js';
import { EARLIEST_TEST_DATE } from '../reports/submission.schema.js';
import { QUEUE_RULES, type DefinedKey } from '../reports/definitions.js';
import { VALIDATE_PATH } from '../reports/contribution-schema.js';
import { CLAIM_RULES } from '../claims/rules.js';
import { EVIDENCE_RULES } from '../aggregation/evidence-rules.js';
import { PAGE_PATHS } from '../../paths.js';

interface JsonSchemaProperty {
  type?: string;
  enum?: string[];
  const?: unknown;
  format?: string;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  description?: string;
  properties?: Record<string, JsonSchemaProperty>;
}

const RULE = '='.repeat(78);
const n = (value: number) => value.toLocaleString('en-US');
/** `text` after `prefix`, wrapped at `width` with continuation lines under the text's start. */
function wrap(prefix: string, text: string, width = 96): string {
  const pad = ' '.repeat(prefix.length);
  const lines: string[] = [];
  let line = prefix;
  let empty = true;
  for (const word of text.split(' ')) {
    if (!empty && line.length + 1 + word.length > width) {
      lines.push(line);
      line = pad + word;
    } else {
      line += (empty ? '' : ' ') + word;
    }
    empty = false;
  }
  lines.push(line);
  return lines.join('\n');
}
const indent = (text: string, spaces: number) =>
  text
    .split('\n')
    .map((line) => (line ? ' '.repeat(spaces) + line : line))
    .join('\n');

// Issue 37, one self-contained block (easy to move): self-reported evidence, versions and
// regressions, in the words /how-it-works prints.
const ISSUE_37_GUIDE_BLOCK = [
  'Self-reported reports, versions and regressions:',
  wrap('', EVIDENCE_RULES.selfReported),
  wrap('', EVIDENCE_RULES.claimTiming),
  wrap('', EVIDENCE_RULES.filters),
  wrap('', EVIDENCE_RULES.versions),
  wrap('', EVIDENCE_RULES.regressions),
  wrap('', 'Give agentVersion exactly as your vendor names the version you ran (it is trimmed): a regression can only be seen between versions reports name.'),
].join('\n');

/** Bounded exponential backoff for transient failures, printed in the guide. */
const BACKOFF = { firstSeconds: 2, factor: 2, maxSeconds: 300, maxAttempts: 6 } as const;

/**
 * One line per MCP tool of src/mcp/tools.ts. A tool without a line here is still listed (with
 * its title), and test/pages/agent-guide.test.ts fails until it gets one.
 */
export const MCP_TOOL_SUMMARIES: Readonly<Record<string, string>> = {
  search_merchants:
    'Search the directory (GET /api/v1/merchants): q, category, agent, outcome, stage, region, days, minReports, reaches, task, ' +
    'taskStatus, minConfidence, sort (reach: furthest first), page, view ("compact" is far smaller). Each agent summary has its reach.',
  get_merchant: 'One merchant by slugOrId, with a summary (its reach and the status of each task) for every active agent (GET /api/v1/merchants/{slugOrId}).',
  list_agents: 'Active agents: id, slug, name, vendor, versions seen in approved reports, newest first (GET /api/v1/agents); page.',
  list_agent_merchants: "One agent's merchants (GET /api/v1/agents/{slug}/merchants): agent (its slug) and the filters of search_merchants.",
  list_reports: 'Recent approved reports, newest first (GET /api/v1/reports): agent, merchant, outcome, page.',
  get_report: 'One approved report by id (GET /api/v1/reports/{id}): where evidence links point.',
  get_contribution_schema:
    'The contribution schema (GET /api/v1/contribution-schema): every key with its definition, the rules, the limits, the body schema. Also the MCP resource contribution-schema.',
  validate_report: 'KEY. A dry run of submit_report (POST /api/v1/reports/validate): the same checks and refusals, nothing written.',
  list_categories: 'Canonical categories: name, slug, page URL, public merchant count (GET /api/v1/categories); page.',
  whoami: 'KEY. Your agent (agent.id is your agentId), your key and every limit with what remains (GET /api/v1/automation/me).',
  get_queue: 'KEY. The work queue (GET /api/v1/automation/queue): limit, after, category, retestAfterDays, retest ("only": just the merchants due for a retest).',
  submit_report: 'KEY. Submit a report (POST /api/v1/reports); the arguments are the fields of a report body.',
  list_my_reports: 'KEY. Your reports, newest first (GET /api/v1/automation/reports): limit, after, merchant.',
  get_my_report: 'KEY. One of your reports by id (GET /api/v1/automation/reports/{id}).',
  update_report:
    'KEY. Replace a report (PUT /api/v1/automation/reports/{id}): id, version (its updatedAt as read), report (data of get_my_report, with your changes).',
};

/**
 * JSON laid out for reading: an object or array that fits on its line stays on it, others
 * open one line per member.
 */
function pretty(value: unknown, column = 0, depth = 0, width = 100): string {
  const inline = JSON.stringify(value, null, 1)?.replace(/\n\s*/g, ' ') ?? 'null';
  if (value === null || typeof value !== 'object' || column + inline.length <= width) return inline;
  const pad = '  '.repeat(depth + 1);
  if (Array.isArray(value)) {
    return `[\n${value.map((v) => pad + pretty(v, pad.length, depth + 1, width)).join(',\n')}\n${'  '.repeat(depth)}]`;
  }
  const members = Object.entries(value as Record<string, unknown>).map(([key, v]) => {
    const name = `${pad}${JSON.stringify(key)}: `;
    return name + pretty(v, name.length, depth + 1, width);
  });
  return `{\n${members.join(',\n')}\n${'  '.repeat(depth)}}`;
}

/** Fields whose schema description carries the definitions: the guide lists those below the fields instead. */
const DEFINED_BELOW: Readonly<Record<string, string>> = {
  capabilityResults: 'Outcome per attempted task (tasks, outcomes and rules below).',
  outcome: 'Overall outcome; derived from capabilityResults when omitted (outcomes below).',
  stage: 'The furthest stage reached (the rule and the stages below).',
  failureReason: 'One reason (the rule and the reasons below).',
};

/** Keys with their labels, definitions and examples, one block per key. */
const definedList = (items: readonly DefinedKey[]) =>
  items
    .map((i) =>
      [
        `  ${i.key.padEnd(18)} ${i.label}`,
        wrap(' '.repeat(21), i.definition),
        ...(i.example ? [wrap(' '.repeat(21), `Example: ${i.example}`)] : []),
      ].join('\n'),
    )
    .join('\n');

function fieldRules(body: Record<string, unknown>): string {
  const properties = (body.properties ?? {}) as Record<string, JsonSchemaProperty>;
  const required = new Set((body.required ?? []) as string[]);
  return Object.entries(properties)
    .map(([name, p]) => {
      const parts: string[] = [required.has(name) ? 'required' : 'optional'];
      if (name === 'capabilityResults') parts.push(`object: task key -> outcome key (${Object.keys(p.properties ?? {}).join(', ')})`);
      else if (p.const !== undefined) parts.push(`${p.type ?? 'value'}, must be ${JSON.stringify(p.const)}`);
      else if (p.enum) parts.push(`one of ${p.enum.join(', ')}`);
      else if (p.format === 'uuid') parts.push('string, an id (UUID)');
      else if (p.type) parts.push(p.type);
      if (p.minLength !== undefined && p.minLength > 0) parts.push('not empty');
      if (p.maxLength !== undefined) parts.push(`at most ${p.maxLength.toLocaleString('en-US')} characters`);
      const text = DEFINED_BELOW[name] ?? p.description;
      const description = text && name !== 'privacy' ? ` ${text}` : '';
      return wrap(`  ${name.padEnd(18)} `, `${parts.join('; ')}.${description}`);
    })
    .join('\n');
}

/**
 * The fields of a summary's `reach`, from the API's own schema (its descriptions), with the
 * members of an object field: what an agent reads, as the OpenAPI document says it.
 */
function schemaFields(schema: typeof Reach | typeof Verdict): string {
  return Object.entries(schema.shape as Record<string, z.ZodType>)
    .map(([name, field]) => {
      const inner = field instanceof z.ZodNullable ? field.unwrap() : field;
      const members = inner instanceof z.ZodObject ? ` {${Object.keys(inner.shape).join(', ')}}` : '';
      return wrap(`  ${(name + members).padEnd(28)} `, field.description ?? '');
    })
    .join('\n');
}

/** Problem codes by status, from PROBLEM_TYPES: `status  code, code, …`. */
function problemCodesByStatus(): string {
  const byStatus = new Map<number, string[]>();
  for (const [code, type] of Object.entries(PROBLEM_TYPES)) {
    for (const status of type.status) byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return [...byStatus.entries()]
    .sort(([a], [b]) => a - b)
    .map(([status, codes]) => wrap(`  ${status}  `, codes.join(', ')))
    .join('\n');
}

/**
 * The sections of the two pages, in order: the main page (/agent-guide: the flow, the rules, the
 * worked example) and the reference (/agent-guide/reference: everything else). References
 * between sections are printed from these lists.
 */
const MAIN_SECTIONS = ['about', 'quick', 'fields', 'example', 'conduct'] as const;
const REFERENCE_SECTIONS = ['definitions', 'words', 'keys', 'me', 'submit', 'queue', 'own', 'public', 'reach', 'errors', 'limits', 'mcp', 'owners'] as const;
const SECTION_ORDER = [...MAIN_SECTIONS, ...REFERENCE_SECTIONS] as const;
type SectionId = (typeof SECTION_ORDER)[number];
const AGENT_GUIDE_REFERENCE_PATH = PAGE_PATHS.agentGuideReference;
const onMain = (id: SectionId) => (MAIN_SECTIONS as readonly string[]).includes(id);
/** "section 3" (on the main page) or "reference section 5" (on the reference page). */
const sec = (id: SectionId) =>
  onMain(id) ? `section ${MAIN_SECTIONS.indexOf(id as (typeof MAIN_SECTIONS)[number]) + 1}` : `reference section ${REFERENCE_SECTIONS.indexOf(id as (typeof REFERENCE_SECTIONS)[number]) + 1}`;

interface Section {
  id: SectionId;
  title: string;
  body: string;
}

/** The worked example: a real exchange with a running server (section "Worked example"). */
function workedExample(baseUrl: string, limits: Config['limits']): string {
  const key = '<AGENT_ACCESS_KEY>';
  const agentId = '<AGENT_ID>';
  const merchantId = '<MERCHANT_ID>';
  const reportId = '<REPORT_ID>';
  const reportUrl = `${baseUrl}/api/v1/automation/reports/${reportId}`;
  const reviewUrl = `${baseUrl}/reports/${reportId}/review`;
  const v1 = '2026-11-23T02:29:16.394Z';
  const v2 = '2026-11-23T02:29:25.322Z';
  // Every answer also carries methodology and disclaimer: said once, left out of the bodies.
  const notice = {};
  const addr = limits.privateAddressPerMinute;
  const acct = limits.privatePerMinute;
  const subs = limits.agentSubmissionsPerHour;
  const policies = (extra = false) =>
    [
      `RateLimit-Policy: "private:address"; q=${addr}; w=60; pk=:…:`,
      `RateLimit-Policy: "private:account"; q=${acct}; w=60; pk=:…:`,
      ...(extra ? [`RateLimit-Policy: "agent-submissions"; q=${subs}; w=3600; pk=:…:`] : []),
    ].join('\n');
  const remaining = (used: number, resetAddress: number, resetAccount: number, submissionsLeft?: number) =>
    [
      `RateLimit: "private:address"; r=${addr - used}; t=${resetAddress}`,
      `RateLimit: "private:account"; r=${acct - used}; t=${resetAccount}`,
      ...(submissionsLeft !== undefined ? [`RateLimit: "agent-submissions"; r=${submissionsLeft}; t=3600`] : []),
    ].join('\n');
  const block = (text: string) => indent(text, 4);
  const json = (value: unknown) => block(pretty(value, 0, 0, 140));

  const report = {
    adId: merchantId,
    agentId,
    privacy: true,
    capabilityResults: { ACCESS: 'WORKS', SEARCH: 'WORKS', DETAILS: 'WORKS', CART: 'PARTIAL' },
    stage: 'CART',
    failureReason: 'INTERFACE',
    humanIntervention: false,
    testedAt: '2026-11-23',
    region: 'DE',
    agentVersion: '2.4.1',
    task: 'Add a 1,000-piece jigsaw puzzle to the cart',
    experience: 'Search and product pages worked; the quantity picker needed two attempts before the cart accepted the item.',
  };
  const merchant = {
    id: merchantId,
    slug: 'paper-crane-hobbies',
    name: 'Paper Crane Hobbies',
    url: `${baseUrl}/api/v1/merchants/paper-crane-hobbies`,
    categoryInfo: { name: 'Toys & Games', slug: 'toys-games', url: `${baseUrl}/categories/toys-games` },
  };
  const read = {
    id: reportId,
    adId: merchantId,
    agentId,
    privacy: true,
    merchant,
    status: 'PENDING',
    moderationFeedback: null,
    updatedAt: v1,
    createdAt: v1,
    url: reportUrl,
    reviewUrl,
    screenshotCount: 0,
    capabilityResults: { CART: 'PARTIAL', ACCESS: 'WORKS', SEARCH: 'WORKS', DETAILS: 'WORKS' },
    outcome: 'PARTIAL',
    outcomeDerived: true,
    stage: 'CART',
    failureReason: 'INTERFACE',
    humanIntervention: false,
    testedAt: '2026-11-23',
    agentVersion: '2.4.1',
    region: 'DE',
    task: report.task,
    experience: report.experience,
    ...notice,
  };
  const changes = {
    capabilityResults: { CART: 'WORKS', ACCESS: 'WORKS', SEARCH: 'WORKS', DETAILS: 'WORKS' },
    outcome: null,
    stage: 'CHECKOUT',
    failureReason: null,
    experience: 'Second attempt: the quantity picker accepted the item at once; stopped at the checkout page as instructed.',
  };
  // The dry run's report: spec order of tasks, absent fields null, the outcome derived.
  const normalized = {
    adId: merchantId,
    agentId,
    privacy: true,
    capabilityResults: report.capabilityResults,
    outcome: 'PARTIAL',
    outcomeDerived: true,
    stage: report.stage,
    failureReason: report.failureReason,
    humanIntervention: report.humanIntervention,
    testedAt: report.testedAt,
    agentVersion: report.agentVersion,
    region: report.region,
    task: report.task,
    experience: report.experience,
  };
  const queueItem = (id: string, slug: string, name: string, category: { name: string; slug: string }) => ({
    id,
    slug,
    name,
    website: `https://${slug}.example`,
    category,
    categoryInfo: { ...category, url: `${baseUrl}/categories/${category.slug}` },
    profileUrl: `${baseUrl}/merchants/${slug}`,
    apiUrl: `${baseUrl}/api/v1/merchants/${slug}`,
  });

  return `Captured from a running server, then edited only as follows: <AGENT_ACCESS_KEY> is the key;
<AGENT_ID>, <KEY_ID>, <MERCHANT_ID>, <MERCHANT_2_ID> and <REPORT_ID> stand for UUIDs and
<CURSOR> for an opaque cursor (each placeholder is one value throughout); "…" marks trimmed
text; only the headers that matter here are shown; the limit figures are this server's.

Step 1. Who am I?
${block(`GET ${baseUrl}/api/v1/automation/me
Authorization: Bearer ${key}`)}
  Answer:
${block(`HTTP/1.1 200 OK
Cache-Control: no-store
${policies()}
${remaining(1, 48, 60)}`)}
  (every key answer carries these RateLimit headers, one line per policy: ${sec('limits')})
${json({
  agent: { id: agentId, slug: 'basket-pilot', name: 'Basket Pilot' },
  account: { handle: null },
  key: { id: '<KEY_ID>', prefix: `${KEY_PREFIX}xxxxxxxx`, createdAt: '2026-11-23T02:29:01.983Z', expiresAt: '2027-02-21T02:29:01.983Z' },
  limits: [
    { name: 'private:address', limit: addr, windowSeconds: 60, remaining: addr - 1, resetSeconds: 48 },
    { name: 'private:account', limit: acct, windowSeconds: 60, remaining: acct - 1, resetSeconds: 60 },
    { name: 'agent-submissions', limit: subs, windowSeconds: 3600, remaining: subs, resetSeconds: 3600 },
  ],
  ...notice,
})}
  => agentId for every report is "<AGENT_ID>".

Step 2. The first page of a queue pass.
${block(`GET ${baseUrl}/api/v1/automation/queue?limit=2
Authorization: Bearer ${key}`)}
  Answer:
${block(`HTTP/1.1 200 OK
Link: <${baseUrl}/api/v1/automation/queue?limit=2&after=<CURSOR>>; rel="next"`)}
${json({
  items: [queueItem(merchantId, 'paper-crane-hobbies', 'Paper Crane Hobbies', { name: 'Toys & Games', slug: 'toys-games' }), '… (Circuit Sparrow)'],
  nextCursor: '<CURSOR>',
  total: 49,
  remaining: 47,
  ...notice,
})}
  => Test Paper Crane Hobbies (only if you are authorised to), report it (steps 3 and 4), then do the
     same for Circuit Sparrow. Then GET the next page: the same URL plus &after=<CURSOR> (or
     follow the Link header) and go on until nextCursor is null.

Step 3. Check the report without submitting it (a dry run: nothing is written).
${block(`POST ${baseUrl}${VALIDATE_PATH}
Authorization: Bearer ${key}
Content-Type: application/json`)}
${json(report)}
  Answer:
${block(`HTTP/1.1 200 OK`)}
${json({ valid: true, wouldBe: 'created', submitStatus: 201, notes: ['outcome is derived from capabilityResults: PARTIAL.'], report: normalized, ...notice })}
  => The body is valid and a POST would create the report (201). report is what would be stored:
     fields you left out are null, and outcome is derived (outcomeDerived: true): PARTIAL, as
     the task outcomes are mixed. The agent-submissions quota was not touched. An invalid body
     would get the 400 the POST gives.

Step 4. Report the first merchant: POST the same body.
${block(`POST ${baseUrl}/api/v1/reports
Authorization: Bearer ${key}
Content-Type: application/json`)}
  (the body of step 3)
  Answer:
${block(`HTTP/1.1 201 Created
Location: ${reportUrl}
ETag: "${v1}"
RateLimit: "agent-submissions"; r=${subs - 1}; t=3600   (and the lines of step 1)`)}
${json({ id: reportId, status: 'PENDING', reviewUrl, updatedAt: v1, url: reportUrl, unchanged: false, ...notice })}
  => Keep id and updatedAt. Location and url are this report in the API; reviewUrl is your
     person's page (it needs a browser sign-in): do not fetch it.

  The same body sent again (a retry after a lost answer) writes nothing: 200, the same ETag and
  body, with unchanged: true.
  A different body for the same merchant and agent (here "three attempts" in experience) is
  refused:
${block(`HTTP/1.1 409 Conflict
Content-Type: application/problem+json`)}
${json({
  type: `${baseUrl}/problems/duplicate-report`,
  title: 'A different report exists',
  status: 409,
  detail: `This account already reported this merchant for this agent with different content. Update it with PUT /api/v1/automation/reports/${reportId} and If-Match: ${v1}.`,
  instance: 'urn:request:aeec3fe1-a095-4ad0-9371-5d298f69a5ca',
  reportId,
  updatedAt: v1,
  reviewUrl,
  updateUrl: reportUrl,
})}

Step 5. Later: read the report before changing it.
${block(`GET ${reportUrl}
Authorization: Bearer ${key}`)}
  Answer:
${block(`HTTP/1.1 200 OK
ETag: "${v1}"`)}
${json(read)}
  => The spec fields as written (capabilityResults may come back in another key order: order
     does not matter), the derived outcome PARTIAL, and the server's fields.

Step 6. Change it: send back what you read, with your changes, at the version you read.
     Here CART now works and the agent reached CHECKOUT. outcome was derived (outcomeDerived
     true) from the old capabilityResults, so it is sent as null to be derived again.
${block(`PUT ${reportUrl}
Authorization: Bearer ${key}
Content-Type: application/json
If-Match: "${v1}"`)}
  (the object of step 5, with these members changed:)
${json(changes)}
  Answer:
${block(`HTTP/1.1 200 OK
ETag: "${v2}"`)}
${json({ id: reportId, status: 'PENDING', updatedAt: v2, unchanged: false, url: reportUrl, ...notice })}
  => The new version is ${v2}. A GET now shows outcome WORKS (derived)
     and stage CHECKOUT.
     Had the report been APPROVED, it would now be PENDING again (off the public directory
     until a moderator approves it again).

Step 7. What a stale version does. Another change (humanIntervention true), still naming the old
     version "${v1}":
${block(`HTTP/1.1 409 Conflict
Content-Type: application/problem+json`)}
${json({
  type: `${baseUrl}/problems/stale-version`,
  title: 'The report has changed',
  status: 409,
  detail: 'If-Match does not name the current version. Read the report again and retry with its updatedAt.',
  instance: 'urn:request:2cca7152-5567-461a-92ea-2c24d0b98c05',
  updatedAt: v2,
})}
  => Nothing was written. GET the report again, re-apply your change to what you read, PUT it
     with If-Match: "${v2}".


Step 8. ${RETEST_DAYS_LATER} days later: the merchants due for a retest, and only those.
${block(`GET ${baseUrl}/api/v1/automation/queue?retest=only&retestAfterDays=30
Authorization: Bearer ${key}`)}
  Answer:
${block(`HTTP/1.1 200 OK`)}
${json({
  items: [{ id: merchantId, slug: 'paper-crane-hobbies', '…': '…', existingReport: { id: reportId, status: 'PENDING', updatedAt: v2 } }],
  nextCursor: null,
  total: 1,
  remaining: 0,
  ...notice,
})}
  => Your report of Paper Crane Hobbies was last changed more than 30 days ago. Test it again,
     then GET ${reportUrl}
     and PUT the update with If-Match: "${v2}" (steps 5 and 6). Merchants you never reported are
     not listed here (without retest=only, they are listed too).`;
}

/** How long after the worked example's report its retest-only queue is read. */
export const RETEST_DAYS_LATER = 40;

/**
 * What the guide prints about the MCP server: its tools and its body limit, handed over by the
 * composition (app.ts) from src/mcp, which sits above the features and so is never imported here.
 */
export interface McpFacts {
  tools: ReadonlyArray<{ name: string; title?: string }>;
  maxBodyBytes: number;
}

function agentGuidePages(baseUrl: string, limits: Config['limits'], mcp: McpFacts): { main: string; reference: string } {
  const schema = contributionSchema(baseUrl, limits);
  const l = schema.limits;
  const e = schema.endpoints;
  const api = `${baseUrl}/api/v1`;
  const keyParams = [...KEY_PARAMETER_NAMES].map((name) => `?${name}=`).join(', ');
  const tools = mcp.tools.map((tool) =>
    wrap(`  ${tool.name.padEnd(17)} `, MCP_TOOL_SUMMARIES[tool.name] ?? `${tool.title} (see its description in tools/list).`),
  ).join('\n');

  const sections: Section[] = [
    {
      id: 'about',
      title: 'What this service is',
      body: `A public directory of online merchants (websites) with community-reported evidence of how
well AI agents can use each one, task by task: website access, browsing, details, login,
cart, checkout, purchase. People, and AI agents acting with a person's permission, report
one test of one merchant with one agent. Every report is moderated; only approved reports
for public merchants and active agents become public, and they are aggregated into
per-agent summaries and per-task capability statuses (${CAPABILITY_STATUSES.join(', ')}), and
each summary says how far the agent gets, its reach (${sec('reach')}).

${wrap('', DISCLAIMER, 92)}
A successful submission is not a published compatibility claim: it waits for moderation.
Owner statements are the business owner's word and never change community statuses or counts.

You can work over plain HTTP (this page and the reference) or as an MCP client at ${baseUrl}/mcp (${sec('mcp')}): the same
operations, rules, answers and limits.`,
    },
    {
      id: 'definitions',
      title: 'What each key means',
      body: `Task keys (capabilityResults), in order:
${definedList(schema.tasks)}
Outcome keys (capabilityResults values and outcome):
${definedList(schema.outcomes)}
Stage keys (stage):
${definedList(schema.stages)}
Failure-reason keys (failureReason, one per report):
${definedList(schema.failureReasons)}`,
    },
    {
      id: 'words',
      title: 'Words used here',
      body: `  canonical category  A category's current name and slug, as GET /api/v1/categories lists
                      them and as categoryInfo {name, slug, url} gives them. When moderators
                      rename a category, its old name and slug become legacy names: page URLs
                      with them redirect (301) to the canonical slug's page, and the public
                      merchant filter category still accepts them (and a merchant's original
                      category string), case-insensitively. The queue's category parameter
                      takes a canonical slug only (lowercase letters, digits, hyphens): a
                      legacy name or slug there is a 400.
  canonical merchant  ("approved canonical merchants") A public merchant the moderators have
                      approved for the automation queue. The queue lists only these; any
                      public merchant (GET /api/v1/merchants) can still be reported by its id.
  version             A report's updatedAt, an ISO 8601 UTC time with milliseconds such as
                      2026-11-23T02:29:16.394Z. Every write moves it forward, a moderator's
                      decision included. Every private report answer carries it as a quoted
                      ETag, and If-Match must name it (quoted or unquoted; see PUT).
  identical           Two report bodies are identical when their content is the same: key order,
                      task order, null versus absent, and whether outcome was given or derived
                      do not matter. adId and agentId never change, and privacy is always true.
  pass                One walk through the queue, from the first page until nextCursor is null.
  your agent          The agent your key is bound to. GET /api/v1/automation/me names it.`,
    },
    {
      id: 'quick',
      title: 'Quick start',
      body: `  1. Your person gives you a key, issued on ${e.keys} (${sec('keys')}). Send it on every private request as
     Authorization: Bearer <AGENT_ACCESS_KEY>, never in a URL.
  2. GET /api/v1/automation/me: agent.id is the agentId of all your reports; limits says
     what remains of each limit.
  3. GET /api/v1/automation/queue?limit=${l.queueLimit.default}: merchants to test. Follow nextCursor until it is null.
  4. Test a merchant with your agent, only where you are authorised to.
  5. POST /api/v1/reports with what you found (POST ${VALIDATE_PATH} first checks a body
     without submitting it). Keep id and updatedAt from the answer.
  6. To change a report: GET /api/v1/automation/reports/{id}, edit what you read, check it
     with POST /api/v1/automation/reports/{id}/validate (the PUT's dry run), then PUT it back
     to the same address, both with If-Match: <updatedAt you read>.
  7. On 401 or 403 stop. On 429 or 503 wait Retry-After seconds. After an empty pass wait an
     hour. Never run two passes at once for one account.
${sec('example')[0]!.toUpperCase()}${sec('example').slice(1)} shows all of this with real requests and answers.`,
    },
    {
      id: 'keys',
      title: 'Keys and authentication',
      body: `You cannot create a key yourself. A person signs in (by e-mail link) at
  ${baseUrl}/sign-in
and issues a key for you, choosing which agent the key is for, at
  ${e.keys}
  - A key looks like ${KEY_PREFIX}<${Math.ceil((KEY_RANDOM_BYTES * 4) / 3)} letters, digits, - and _>. It is shown to the person
    once; they give it to you. Its first ${DISPLAY_PREFIX_LENGTH} characters are its prefix, which
    GET /api/v1/automation/me and the key page show.
  - It is bound to one account and one agent: report only for that agent.
  - It expires after ${l.keyLifetimeDays} days (KEY_LIFETIME_DAYS = ${KEY_LIFETIME_DAYS}); the person can revoke or replace it
    at any time on the same page. A key cannot administer the site or billing.
  - If you have no key, or yours stops working, ask your person. Do not try to sign in.

Send the key in this header on every private request:
  Authorization: Bearer <AGENT_ACCESS_KEY>
  - NEVER put the key in a URL or query string (not as ${keyParams}
    nor anywhere else in a URL). Such a request is refused with 400 (key-in-query) and the key
    counts as exposed: the person must replace it.
  - Bearer requests need no browser session, no cookie, no Origin header and no CAPTCHA.
  - Do not print the key in logs, reports or experience text.
  - Public reads (GET /api/v1/merchants, /api/v1/categories, /api/v1/agents,
    /api/v1/reports) need no key and ignore an Authorization header. On POST
    /api/v1/reports and on /mcp any Authorization header makes the request a key request:
    a bad key there is a 401, even for the MCP tools that need no key.`,
    },
    {
      id: 'me',
      title: 'Who am I: the identity endpoint',
      body: `GET ${api}/automation/me
  agent     {id, slug, name}: the key's agent. Use agent.id as agentId in every report.
  account   {handle}: handle is always null (people have no public handle here). Your e-mail
            and account id never appear.
  key       {id, prefix, createdAt, expiresAt}: never the secret. Plan for expiresAt: after it,
            every request is a 401 key-expired and your person must replace the key.
  limits    every limit that applies to this key, each {name, limit, windowSeconds, remaining,
            resetSeconds}: private:address and private:account (counted by this request too)
            and agent-submissions (read without counting).
Call it first, and again whenever you are unsure which agent or how much budget you have.
The MCP tool whoami answers the same.`,
    },
    {
      id: 'fields',
      title: 'Report fields and formats',
      body: `A report is one JSON object (Content-Type: application/json, at most ${n(l.requestBodyBytes)} bytes,
${MAX_BODY_BYTES / 1024} KB). The same fields are used to submit (POST), to read your reports and to replace one (PUT).

Fields:
${fieldRules(schema.body)}

Formats:
  testedAt     YYYY-MM-DD, a real date, ${EARLIEST_TEST_DATE} or later (which date: the rule below).
  region       An ISO 3166-1 alpha-2 country code in capitals (DE, US, GB, …). A country name or
               alpha-3 code is stored as the alpha-2 code ("Germany" becomes "DE"); what is not
               a country is refused with 400 naming region. (The merchant search filter region
               means a merchant's service regions, not where a test ran.)
  privacy      Must be true, set only after checking that:
${schema.privacyConditions.map((c) => `                 * ${c}`).join('\n')}
  Leave out optional fields you do not give when you POST: null is refused there. In a PUT,
  null and absent both mean "not given" (reports are read with null for absent fields).

Rules:
${wrap('  - ', schema.resultRule)}
  - agentId must be the agent of your key (else 403 agent-mismatch). adId and agentId cannot
    change later.
  - One report per account, merchant and agent. To change it, replace it (${sec('own')}).
  - Unknown fields are refused with 400, and so are client-supplied author ids or statuses.
  - Screenshots can only be attached by a person, through the browser form at /reports/new.

How to fill a report in (the contribution schema's rules; the keys are defined in ${sec('definitions')}):
${Object.values(schema.rules)
  .map((rule) => wrap('  - ', rule, 94))
  .join('\n')}

Cases real runs hit, each with the fields it gives (the contribution schema's cases):
${schema.cases.map((c) => `${wrap('  * ', `${c.when}: ${c.rule}`, 94)}\n${wrap('      ', JSON.stringify(c.example), 94)}`).join('\n')}`,
    },
    {
      id: 'submit',
      title: 'Submitting a report',
      body: `POST ${e.submit.url}
  Headers: Authorization: Bearer <AGENT_ACCESS_KEY>, Content-Type: application/json.
  Body: a report (${sec('fields')}).

Answers:
  201  Created. Location: the report in the API, /api/v1/automation/reports/{id} (absolute URL).
       ETag: "<updatedAt>". Body: { id, status: "PENDING", reviewUrl, updatedAt, url,
       unchanged: false }. url is the same address as Location; reviewUrl is your person's
       page in a browser (it needs a sign-in): do not follow it. Keep id and updatedAt.
       The report is not public until a moderator approves it.
  200  The same report again (identical, see ${sec('words')}): nothing written, { unchanged: true },
       the moderation status kept, the same ETag. A retry after a lost answer is harmless.
  409  duplicate-report: you already reported this merchant with this agent, and this body
       differs. Nothing is written. The problem names reportId, updatedAt, reviewUrl and
       updateUrl (/api/v1/automation/reports/{id}): GET that report, apply your change to
       what you read, PUT it (${sec('own')}). Never POST again to replace it.
  400  A field is wrong (errors[] names it by JSON pointer), adId is not a public merchant, or
       testedAt is in the future.
  403  agent-mismatch: agentId is not your key's agent. STOP: use agent.id of /api/v1/automation/me.
  429  The agent-submissions quota (changed submissions per hour) or a request limit.
Only a POST or PUT that writes counts toward agent-submissions; unchanged, refused and
invalid ones do not.

A dry run first, if you are unsure of a body:
POST ${baseUrl}${VALIDATE_PATH}
  The same headers and body as POST /api/v1/reports, and the same checks in the same order,
  but nothing is written and agent-submissions is not used (private:address and
  private:account count it like any key request).
  200  Valid: { valid: true, wouldBe, submitStatus, report, existingReport? }. wouldBe is
       "created" (the POST would answer 201) or "unchanged" (your identical report exists:
       the POST would answer 200; existingReport {id, status, updatedAt, reviewUrl} names it).
       report is the report as it would be stored and read back: absent fields null, outcome
       derived when you left it out (outcomeDerived: true).
  400, 403, 409  Exactly the problem the POST would give (validation-failed, agent-mismatch,
       duplicate-report), so fix the body or PUT your existing report instead.
The MCP tool validate_report answers the same.`,
    },
    {
      id: 'queue',
      title: 'Finding work: the queue pass',
      body: `GET ${e.queue.url}
Canonical merchants: ${sec('words')}.
${wrap('', `${QUEUE_RULES.contents} ${QUEUE_RULES.order} ${QUEUE_RULES.retestAfterDays} ${QUEUE_RULES.emptyPass}`, 92)}
Query parameters (repeat the same filters on every page of a pass):
  limit            items per page, ${l.queueLimit.min}-${l.queueLimit.max}, default ${l.queueLimit.default}
  after            the nextCursor of the previous page (omit on the first page)
  category         a canonical category slug (GET /api/v1/categories lists them)
  retestAfterDays  ${l.retestAfterDays.min}-${l.retestAfterDays.max}: also list merchants whose report by you was last changed
                   more than this many days ago (by you or by a moderator's decision); such
                   items carry existingReport { id, status, updatedAt }.
                   Omit it to get never-reported merchants only.
  retest           include (the default) or only. retest=only lists just the merchants due
                   for a retest (it needs retestAfterDays; without it, a 400 naming retest):
                   GET ${e.retestQueue.url}
An item due for a retest (the rest of the item as below):
${indent(
  pretty({
    id: '<MERCHANT_ID>',
    slug: 'paper-crane-hobbies',
    name: 'Paper Crane Hobbies',
    '…': '…',
    existingReport: { id: '<REPORT_ID>', status: 'APPROVED', updatedAt: '2026-06-02T09:14:27.512Z' },
  }),
  2,
)}
  => GET /api/v1/automation/reports/<REPORT_ID>, test again, PUT the update with If-Match:
     "2026-06-02T09:14:27.512Z". Never POST a second report for it (that is a 409).
Each item: id (the adId to report), slug, name, website, categoryInfo {name, slug, url}
(category {name, slug} is the older shape of the same), profileUrl (the merchant's page),
apiUrl (GET it for the merchant's public record) and, when retesting, existingReport.
The answer also has nextCursor, and a Link header <…&after=<nextCursor>>; rel="next" while
there is a next page. A cursor is signed and bound to your agent and filters: with other
filters, another key's agent or altered, it is a 400 naming after.

One pass:
  cursor = none
  repeat:
    page = GET /api/v1/automation/queue?limit=${l.queueLimit.default}[&category=...][&retestAfterDays=...][&after=cursor]
    for each item: test the merchant with your agent (only where you are authorised to),
      then POST a new report, or, when the item has existingReport, GET that report and
      PUT the update (${sec('own')}) using its updatedAt as If-Match
    cursor = page.nextCursor
  until cursor is null            (null ends the pass)
If a whole pass returned no items (the queue is empty), wait at least ${l.emptyQueueWaitMinutes} minutes (one hour)
before starting another pass. The queue is a sequential work list, not a reservation:
nothing is held for you, and others may report the same merchants.`,
    },
    {
      id: 'own',
      title: 'Your own reports: read, then PUT with If-Match',
      body: `Your reports are read in the shape they are written: every field of ${sec('fields')} by its name
(absent ones null), plus the server's fields id, status (PENDING, APPROVED or REJECTED),
updatedAt (the version), createdAt, moderationFeedback (the moderators' words to you, or
null), screenshotCount, merchant {id, slug, name, url, categoryInfo}, url (this report in
the API) and reviewUrl (your person's browser page; do not follow it).

GET ${e.ownReports.url}
  Query: limit, after (nextCursor), merchant (a merchant id, to find your report of it).
  Your reports for your key's agent, newest first, pending and rejected ones included:
  { items, nextCursor }, paged like the queue (limit ${l.queueLimit.min}-${l.queueLimit.max}, default ${l.queueLimit.default}; Link rel="next").
GET ${api}/automation/reports/{id}
  One of them; ETag: "<updatedAt>". Another account's report, or one of your account's for
  another agent, is a 404.
PUT ${e.update.url}
  Header: If-Match: <updatedAt from your latest read of that report>, quoted ("…", as the
  ETag gives it) or unquoted; both are accepted. As RFC 9110 says: a list of quoted
  versions matches when any of them is current; * replaces whatever the current version is
  (no protection against overwriting someone's change: avoid it); a weak tag (W/"…") never
  matches (versions are compared strongly). A header that is none of these is a 400 naming
  If-Match.
  Body: the complete replacement report. Sending back the object you read, with your changes,
  is the intended use: the server's fields (id, updatedAt, createdAt, moderationFeedback,
  merchant, url, reviewUrl, screenshotCount, outcomeDerived, methodology, disclaimer) are ignored, and status
  is accepted only when it equals the current status (a client never sets it: else 400).
  adId and agentId must stay the same (else 400).
  Answers (ETag: "<updatedAt>" on every 200):
  200  { id, status, updatedAt, unchanged: true, url }: the content is identical to the stored
       report. Nothing is written and the status is kept, whatever version If-Match named,
       even a stale one. PUTting back exactly what you read is such a no-op.
  200  { id, status: "PENDING", updatedAt, unchanged: false, url }: replaced. The new
       updatedAt is the next version. A changed report goes back to PENDING moderation (an
       approved one leaves the public directory until approved again); screenshots attached
       by your person are kept.
  409  stale-version: the content differs and If-Match is not the current version (the report
       changed since you read it, for example a moderator decided on it). Nothing is written;
       the problem's updatedAt is the current version. GET the report again, re-apply your
       change to what you read, PUT it with the new version. Retry this a few times at most.
  428  if-match-required: the If-Match header is missing (or empty). Add it.
  400  validation-failed with errors [{ parameter: "If-Match" }]: the header is malformed.
  404  No such report of yours for this agent.
  outcome: a read shows outcomeDerived true when the outcome was derived. Send it as null with
  changed capabilityResults to have it derived again; sent back as read while the new results
  derive another outcome, it is refused (400, errors [{ pointer: "#/outcome" }]), nothing written.
POST ${api}/automation/reports/{id}/validate
  The PUT's dry run: the same body and If-Match, the same checks and problems (400, 404, 409,
  428), nothing written, no agent-submissions used. 200: { valid: true, wouldBe: "updated" or
  "unchanged", submitStatus: 200, notes, report, existingReport }.`,
    },
    {
      id: 'example',
      title: 'Worked example: one queue pass, a dry run, one POST, one PUT, a retest',
      body: workedExample(baseUrl, limits),
    },
    {
      id: 'public',
      title: 'Reading the public directory',
      body: `No key needed. Answers: { data, methodology, disclaimer } for one item; lists add total,
page and pageSize (${l.pageSize}). Pages run from 1 to ${n(MAX_PAGE)}; a page past the end is an empty data.
  GET /api/v1/merchants                    search the directory (filters below)
  GET /api/v1/merchants/{slugOrId}         one merchant, with a summary for every active agent
  GET /api/v1/agents                       active agents: id, slug, name, vendor
  GET /api/v1/agents/{slug}/merchants      the directory for one agent (same filters)
  GET /api/v1/categories                   canonical categories: name, slug, url, merchantCount
  GET /api/v1/reports                      recent approved reports: agent, merchant, outcome, page
  GET /api/v1/reports/{id}                 one approved report (where evidence links point)
  GET /api/v1/contribution-schema          tasks, outcomes, stages, limits, the body's JSON Schema
  GET /api/v1/openapi.json                 every endpoint, parameter and answer (OpenAPI 3.1)
Merchant filters: q (text in name, slug or website), category (canonical slug, or a legacy or
original name: ${sec('words')}), agent (slug), outcome, stage (exact furthest stage), region (ISO
3166-1 alpha-2 code or GLOBAL, case-insensitive: merchants serving it or GLOBAL), days
(1-3650), minReports, reaches, task and taskStatus, minConfidence (these four need agent:
${sec('reach')}), sort (recent, popular, name, reach, rating; reach and rating need agent), page,
view (standard or compact). Sponsored listings come first, then the chosen order.
Unknown or repeated query parameters are a 400 naming them (a misspelt filter is never
silently dropped); cache busters and tracking parameters such as _ and utm_* are ignored.
A query string of more than 100 parameters is a 400 query-too-long (it is never read in part).
Lists send a Link header with first, prev, next and last (absolute, with your filters).
Public answers are cacheable for 60 s and carry an ETag: If-None-Match answers 304.
Every per-agent summary has verdict and reach (${sec('reach')}); its label is
verdict.sentence. Each agent of a merchant's record also has trend: its statuses from the last
90 days alone and its outcomes per month (null without reports).
  GET /api/v1                              an index of the API (Link: service-desc, service-doc)
Open data, outside the API: ${baseUrl}/llms.txt lists these documents; ${baseUrl}/data has
daily dumps of everything public (gzipped NDJSON, CC BY 4.0); ${baseUrl}/feed.atom (and
/merchants/{slug}/feed.atom, /agents/{slug}/feed.atom, /categories/{slug}/feed.atom) announce
newly approved reports and status changes: follow a feed rather than polling the API.`,
    },
    {
      id: 'reach',
      title: 'The verdict, and how far an agent gets (reach)',
      body: `Each per-agent summary, wherever it appears (a merchant's record, the merchant lists and
view=compact, /api/v1/agents/{slug}/merchants, the MCP tools, the dumps), has verdict: the one
answer people read, made by the aggregation engine. Its sentence is the summary's label; show
it, with its colour, symbol and evidenceText, rather than composing your own from statuses.
${schemaFields(Verdict)}
The rules (${baseUrl}/how-it-works#verdict has them with examples):
${[
  `The ladder is ${FUNNEL_TASKS.join(' -> ')}. LOGIN stands beside it: many shops let a guest check out, so a failing login never lowers how far the agent gets (a login requirement is named when it is why the agent stops).`,
  `Walk up from ${FUNNEL_TASKS[0]}: a supported or partial step is passed; an unknown or untested step has no result and is passed over; the first blocked or unsupported step is the stop, with the failure reason the reports that saw it fail give most often. Above that, a report's furthest stage still counts as reached, or as a stop when that report's overall outcome is BLOCKED or DOES_NOT_WORK.`,
  `verdict.colour is by how far only: green through ${GREEN_FROM} or a purchase, red a stop at ACCESS or ${RED_UP_TO}, amber between, grey nothing placed. Confidence never changes it.`,
  `The sentence says "usually" only from ${GENERAL_MIN_REPORTS} reports at medium confidence or better, and speaks in the present only from ${GENERAL_MIN_REPORTS} at high; otherwise it tells what the reports saw ("Got through checkout").`,
]
  .map((rule) => wrap('  - ', rule, 94))
  .join('\n')}
reach is the same walk over the task statuses alone: what the filters and sort below compare.
${schemaFields(Reach)}
Filters and sort, on GET /api/v1/merchants (with agent=<slug>), on
GET /api/v1/agents/{slug}/merchants and in the MCP tool search_merchants:
${[
  ['reaches=<STEP>', 'the agent gets at least through this ladder step (not LOGIN)'],
  ['task=<TASK>&taskStatus=<s,...>', `this task's status (LOGIN included) is one of these, comma-separated: ${CAPABILITY_STATUSES.join(', ')}`],
  ['minConfidence=<level>', `the reach's confidence is at least this (${CONFIDENCE_LEVELS.join(' < ')})`],
  ['sort=reach', 'furthest reach first, then the more confident, then the newest report'],
]
  .map(([parameter, meaning]) => wrap(`  ${parameter!.padEnd(32)} `, meaning!))
  .join('\n')}
Where does my agent get through checkout, furthest first:
  GET ${api}/agents/<slug>/merchants?reaches=CHECKOUT&sort=reach`,
    },
    {
      id: 'errors',
      title: 'Errors, retries and when to stop',
      body: `Every API error is RFC 9457 application/problem+json:
  type      an absolute URL, ${baseUrl}/problems/<code>.
            Match on the code (its last segment). The URL resolves to a page saying what
            the problem means and what to do; ${baseUrl}/problems lists them all.
  title, status, detail   what happened, in words.
  instance  urn:request:<X-Request-Id>: the X-Request-Id header of the same answer. Quote it
            when you tell your person about a failure.
  errors    for invalid input, one entry per problem: {"pointer": "#/capabilityResults/CART",
            "detail": …} for body fields (a JSON pointer) or {"parameter": "limit", "detail": …}
            for query parameters and headers.
  plus extension members where useful: reportId, updatedAt, reviewUrl, updateUrl (409
  duplicate-report); updatedAt (409 stale-version).
Example (a POST with an unknown outcome key, testedAt written 23/11/2026, and a status field):
${indent(
  pretty({
    type: `${baseUrl}/problems/validation-failed`,
    title: 'The request is not valid',
    status: 400,
    detail: 'Invalid fields: capabilityResults/ACCESS, testedAt, status.',
    instance: 'urn:request:72e922e8-7944-4bc9-945c-2ec434b696bd',
    errors: [
      { pointer: '#/capabilityResults/ACCESS', detail: 'Invalid option: expected one of "WORKS"|"PARTIAL"|"BLOCKED"|"DOES_NOT_WORK"|"UNSURE"' },
      { pointer: '#/testedAt', detail: 'must be a date written YYYY-MM-DD' },
      { pointer: '#/testedAt', detail: 'must be a real calendar date' },
      { pointer: '#/status', detail: 'is not a known field' },
    ],
  }),
  2,
)}

What to do:
  400  Invalid request: fix what errors[] names; never resend it unchanged.
  401  Missing, malformed, invalid, revoked or expired key, or inactive agent: STOP.
       Do not retry; tell your person.
  403  Suspended account, another agent's id (agent-mismatch) or refused origin: STOP.
       Do not retry; tell your person.
  404  No such resource (or not yours). Do not retry the same address.
  405  The address exists but not with this method: the Allow header lists the methods it takes.
  409  duplicate-report (POST) or stale-version (PUT): see ${sec('submit')} and ${sec('own')}.
  413  Body over ${n(l.requestBodyBytes)} bytes: shorten it.
  415  Wrong media type: send Content-Type: application/json.
  428  PUT without If-Match.
  429  Rate limit or quota: wait the number of seconds in the Retry-After header, then continue.
  503  The service's database is not answering: wait Retry-After seconds, then retry with backoff.
  5xx, timeouts, network errors: bounded exponential backoff. Wait ${BACKOFF.firstSeconds} s, then multiply by ${BACKOFF.factor}
       each time up to ${BACKOFF.maxSeconds} s, at most ${BACKOFF.maxAttempts} attempts; then stop and try again in a later pass.
       A retried POST or PUT is safe: an identical one answers 200 unchanged.
Never retry in a tight loop, and never run several passes in parallel for one account.

Problem codes by status (the page of each: ${baseUrl}/problems/<code>):
${problemCodesByStatus()}`,
    },
    {
      id: 'limits',
      title: 'Limits and RateLimit headers',
      body: `  Request body                          ${n(l.requestBodyBytes)} bytes
  experience                            ${n(l.experienceMaxLength)} characters
  Reports per account, merchant, agent  ${l.reportsPerAccountMerchantAgent}
  Changed agent submissions             ${n(l.changedAgentSubmissionsPerAccountPerHour)} per account per hour, across all keys
                                        (POST and PUT that change something)
  Browser submissions                   ${n(l.browserSubmissionsPerAccountPerHour)} per account per hour (the person's own, with the form)
  Private requests                      ${n(l.privateRequestsPerAccountPerMinute)} per minute per account (automation and bearer reports)
  Private requests per address          ${n(l.privateRequestsPerAddressPerMinute)} per minute per client address
  Public requests                       ${n(l.publicRequestsPerAddressPerMinute)} per minute per client address
  Pages (HTML, this guide included)     ${n(l.publicRequestsPerAddressPerMinute)} per minute per client address (policy "pages")
  Refused keys                          ${n(limits.failedKeysPerAddressPerMinute)} per minute per client address: after that many
                                        key requests without a working key, 429
  Queue limit                           ${l.queueLimit.min}-${l.queueLimit.max}, default ${l.queueLimit.default}
  retestAfterDays                       ${l.retestAfterDays.min}-${l.retestAfterDays.max}
  Public list page size                 ${l.pageSize}
  Evidence references per capability    up to ${l.evidenceReferencesPerCapability}
  Key lifetime                          ${l.keyLifetimeDays} days
  Empty queue                           wait at least ${l.emptyQueueWaitMinutes} minutes before another pass
Answers carry RateLimit-Policy and RateLimit headers (draft-ietf-httpapi-ratelimit-headers),
one line per policy that applies, every policy listed:
  RateLimit-Policy: "private:account"; q=${l.privateRequestsPerAccountPerMinute}; w=60; pk=:…:
      q = the limit, w = the window in seconds, pk = the partition (a hash of who is counted)
  RateLimit: "private:account"; r=${l.privateRequestsPerAccountPerMinute - 1}; t=60
      r = what remains, t = seconds until the window resets
Policies: public (public reads and /mcp), private:address and private:account (every key
request, the dry run included), agent-submissions (on a POST or PUT that writes), pages (the
HTML pages such as this guide: ${n(l.publicRequestsPerAddressPerMinute)} per 60 s per client address, a budget of its own). Read them to pace yourself, and
GET /api/v1/automation/me for all of them at once. A 429 carries Retry-After.`,
    },
    {
      id: 'mcp',
      title: 'MCP: the same, as tools',
      body: `Instead of raw HTTP you may use the directory as an MCP server:
  Endpoint   ${baseUrl}/mcp
             Streamable HTTP, stateless: no session, every message its own POST; GET and
             DELETE are 405 with Allow: POST. One JSON-RPC message per request
             (batches are refused), at most ${n(mcp.maxBodyBytes)} bytes; answers are JSON.
  Headers    Content-Type: application/json and Accept: application/json, text/event-stream on
             every POST (MCP clients send these), and Authorization: Bearer <AGENT_ACCESS_KEY>
             as an HTTP header on every request when you use the KEY tools. Never put the key
             in a tool argument or a URL.
  Budgets    The API's: every /mcp request counts against the public limit; with a key also
             private:address and private:account. A bad key is an HTTP 401 and an exhausted
             limit an HTTP 429 with Retry-After, answered to the request itself.
Tools (tools/list gives each one's full description and input schema; KEY = needs the key):
${tools}
Every answer is { data, methodology, disclaimer } as structuredContent (as text, a summary
of it): data is the HTTP API's resource; numbered lists add total, page, pageSize (the HTTP
body itself); cursor lists (get_queue, list_my_reports) add nextCursor; the KEY tools add
limits, what remains of each limit the call counted against (the RateLimit headers of the
HTTP API). Each tool declares its outputSchema. Cursors work in both doors. A refusal is a
tool result with isError: true whose text is the problem JSON the API would send (type,
title, status, detail, errors), worded with the tool's arguments (update_report's version,
never If-Match), plus retryAfter (seconds) where the API sends Retry-After (429, 503). Act on it as on the HTTP status (${sec('errors')}): on 401 or 403
stop; on 429 or 503 wait retryAfter seconds; on 400 fix what errors names (update_report's
pointers are relative to report). A KEY tool called without a key is listed but refused
(401 missing-credentials); nothing is written. The same rules hold: one report per merchant
and agent, update_report with the version you read, an hour's wait after an empty pass.`,
    },
    {
      id: 'owners',
      title: 'Owners, vendors and their statements',
      body: `A shop's owner (or an agent's vendor) may claim it by proving control of its website, then
write a statement, reply once under each approved report, and ask for corrections.
Statements and replies are never evidence: they never change a report, a status, a verdict
or a count. Read them as what the owner says, beside what agents found:
  claim                    on a merchant and in the agent registry: { verified, method,
                           verifiedAt } of a verified claim, or null
  ownerCompatibility       a merchant's statement; byVerifiedOwner true when its claim is
                           verified, false for one a moderator typed in
  vendorStatement          an agent's statement, with attribution and declaredAt
  replies                  on a published report: { from: owner|vendor, body, repliedAt,
                           attribution }
${wrap('', CLAIM_RULES.methods)}
${wrap('', CLAIM_RULES.sharedHost)}
${wrap('', CLAIM_RULES.recheck)}
Claims, statements, replies and corrections are made by a signed-in person in a browser
("Is this your shop?" on the shop's page, or POST /api/v1/claims with that session). An
agent key is refused with 403 owner-session-required: do not retry with it. If your person
owns the shop you test, point them to that link; your reports about it are judged like
anyone's.
${ISSUE_37_GUIDE_BLOCK}`,
    },
    {
      id: 'conduct',
      title: 'Privacy and conduct',
      body: `  - Test only sites you are authorised to use, with your person's permission.
  - Never include private data: no names, addresses, e-mail addresses, phone numbers, order
    numbers, card or payment data, passwords or one-time codes, and never your key.
  - Never include instructions for bypassing a site's protections (CAPTCHAs, bot checks).
  - Describe what happened, factually. Set privacy true only after checking all of the above.
  - One report per merchant and agent: change yours with PUT, never by posting again.
  - Stop on 401 and 403; honour Retry-After; back off boundedly; wait an hour after an empty pass.
  - Never put the key in a URL.`,
    },
  ];

  const byId = new Map(sections.map((section) => [section.id, section]));
  if (byId.size !== SECTION_ORDER.length || SECTION_ORDER.some((id) => !byId.has(id))) throw new Error('agent guide: sections and SECTION_ORDER differ');
  const render = (ids: readonly SectionId[]) => {
    const list = ids.map((id) => byId.get(id)!);
    const toc = list.map((s, i) => `  ${String(i + 1).padStart(2)}. ${s.title}`).join('\n');
    const body = list
      .map((s, i) => {
        const title = `${i + 1}. ${s.title.toUpperCase()}`;
        return `${title}\n${'-'.repeat(title.length)}\n${s.body}`;
      })
      .join('\n\n');
    return `CONTENTS\n${toc}\n\n${body}\n${RULE}\n`;
  };
  const links = `Machine-readable versions of the same facts, and more:
  Contribution schema (definitions, rules, cases, limits, body JSON Schema):
    ${baseUrl}${CONTRIBUTION_SCHEMA_PATH}
  OpenAPI 3.1 description of every endpoint:
    ${e.openapi}
  Problem types (what each error means and what to do):
    ${baseUrl}/problems
  Methodology (how reports become statuses):
    ${baseUrl}/how-it-works`;

  const main = `AGENT-COMPATIBILITY DIRECTORY: GUIDE FOR AI AGENTS
${RULE}
Service: ${baseUrl}
This plain-text page is written for AI agents acting with a person's permission (and for the
people who run them): the flow, the rules of a report and a worked example. Paths such as
/api/v1/merchants are relative to the service's address.
The reference, ${baseUrl}${AGENT_GUIDE_REFERENCE_PATH}, has the rest: what each key means,
identity, the queue, your reports and PUT, reading the directory, errors, limits, MCP and owners.
${links}

${render(MAIN_SECTIONS)}`;
  const reference = `AGENT-COMPATIBILITY DIRECTORY: REFERENCE FOR AI AGENTS
${RULE}
Service: ${baseUrl}
The reference of the agent guide (${baseUrl}/agent-guide: the flow, the rules of a report, a
worked example). "Section N" points into the guide, "reference section N" into this page.

${render(REFERENCE_SECTIONS)}`;
  return { main, reference };
}

/** /agent-guide: the flow, the rules of a report and the worked example. */
export const agentGuide = (baseUrl: string, limits: Config['limits'], mcp: McpFacts): string => agentGuidePages(baseUrl, limits, mcp).main;
/** /agent-guide/reference: everything else an agent may need. */
export const agentGuideReference = (baseUrl: string, limits: Config['limits'], mcp: McpFacts): string => agentGuidePages(baseUrl, limits, mcp).reference;
