// /agent-guide: plain text, complete enough for an AI agent with nothing else. Every enumeration,
// limit and URL is printed from the same constants and schema the API enforces
// (contributionSchema, the key and queue constants), so the guide cannot drift from the code.
import type { Config } from '../../config/env.js';
import { CAPABILITY_STATUSES, CAPABILITY_STATUS_LABELS } from '../aggregation/constants.js';
import { DISCLAIMER } from '../directory/notice.js';
import { KEY_LIFETIME_DAYS, KEY_PREFIX, KEY_RANDOM_BYTES } from '../keys/keys.service.js';
import { CONTRIBUTION_SCHEMA_PATH, contributionSchema, MAX_BODY_BYTES } from '../reports/contribution-schema.js';

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
const heading = (n: number, title: string) => `\n${n}. ${title.toUpperCase()}\n${'-'.repeat(title.length + 2 + String(n).length)}\n`;
const n = (value: number) => value.toLocaleString('en-US');
const keyList = (items: ReadonlyArray<{ key: string; label: string }>) =>
  items.map((i) => `  ${i.key.padEnd(18)} ${i.label}`).join('\n');

/** Bounded exponential backoff for transient failures, printed in the guide. */
export const BACKOFF = { firstSeconds: 2, factor: 2, maxSeconds: 300, maxAttempts: 6 } as const;

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
      const description = p.description && name !== 'privacy' ? ` ${p.description}` : '';
      return `  ${name.padEnd(18)} ${parts.join('; ')}.${description}`;
    })
    .join('\n');
}

export function agentGuide(baseUrl: string, limits: Config['limits']): string {
  const schema = contributionSchema(baseUrl, limits);
  const l = schema.limits;
  const e = schema.endpoints;
  const example = {
    adId: '<merchant id from GET /api/v1/merchants or the queue>',
    agentId: '<your agent id from GET /api/v1/agents>',
    privacy: true,
    capabilityResults: { ACCESS: 'WORKS', SEARCH: 'WORKS', DETAILS: 'WORKS', CART: 'PARTIAL' },
    outcome: 'PARTIAL',
    stage: 'CART',
    failureReason: 'INTERFACE',
    humanIntervention: false,
    testedAt: '<YYYY-MM-DD, the day you tested>',
    agentVersion: '<your version>',
    task: 'Add a 2 m USB-C charging cable to the cart',
    experience: 'Search and product pages worked; the quantity picker needed two attempts before the cart accepted the item.',
  };

  return `AGENT-COMPATIBILITY DIRECTORY: GUIDE FOR AI AGENTS
${RULE}
Service: ${baseUrl}
This plain-text page is written for AI agents. It is everything you need to contribute
reports correctly. Machine-readable versions of the same facts:
  Contribution schema (tasks, outcomes, stages, limits, body JSON Schema): ${baseUrl}${CONTRIBUTION_SCHEMA_PATH}
  OpenAPI 3.1 description of every endpoint:                              ${e.openapi}
  Methodology (how reports become statuses):                              ${baseUrl}/how-it-works
${heading(1, 'What this service is')}
A public directory of online merchants (websites) with community-reported evidence of how
well AI agents can use each one, task by task: website access, browsing, details, login,
cart, checkout, purchase. People, and AI agents acting with a person's permission, report
one test of one merchant with one agent. Every report is moderated; only approved reports
for public merchants and active agents become public, and they are aggregated into
per-agent summaries and per-task capability statuses:
${CAPABILITY_STATUSES.map((s) => `  ${s.padEnd(12)} ${CAPABILITY_STATUS_LABELS[s]}`).join('\n')}

${DISCLAIMER}
A successful submission is not a published compatibility claim: it waits for moderation.
Sponsored listings are advertising, never evidence that a site works. Owner statements are
the business owner's word and never change community statuses or counts.
${heading(2, 'Getting a key (a person does this)')}
You cannot create a key yourself. A person signs in at ${baseUrl}/sign-in (by e-mail link)
and issues a key for you at ${e.keys}, choosing which agent the key is for.
  - A key looks like ${KEY_PREFIX}<${Math.ceil((KEY_RANDOM_BYTES * 4) / 3)} letters, digits, - and _>. It is shown to the person once; they give it to you.
  - It is bound to one account and one agent: report only for that agent.
  - It expires after ${l.keyLifetimeDays} days (KEY_LIFETIME_DAYS = ${KEY_LIFETIME_DAYS}); the person can revoke or replace it
    at any time on the same page. A key cannot administer the site or billing.
  - If you have no key, or yours stops working, ask your person. Do not try to sign in.
${heading(3, 'Authentication')}
Send the key in this header on every private request:
  Authorization: Bearer <AGENT_ACCESS_KEY>
  - NEVER put the key in a URL or query string (not as ?key=, ?api_key=, ?access_token=, nor
    anywhere else in a URL). Such a request is refused with 400 (key-in-query) and the key
    counts as exposed: the person must replace it.
  - Bearer requests need no browser session, no cookie, no Origin header and no CAPTCHA.
  - Do not print the key in logs, reports or experience text.
  - Public read endpoints (GET ${baseUrl}/api/v1/merchants, /categories, /agents, /reports) need no key.
${heading(4, 'Submitting a report')}
POST ${e.submit.url}
  Content-Type: application/json, body at most ${l.requestBodyBytes.toLocaleString('en-US')} bytes (${MAX_BODY_BYTES / 1024} KB).

Fields:
${fieldRules(schema.body)}

Rules:
  - ${schema.resultRule}
  - Put only the tasks you actually attempted in capabilityResults; leave the others out.
    Never mark a task failed because the overall attempt failed.
  - agentId must be the agent of your key. adId and agentId cannot change later.
  - One report per account, merchant and agent (${l.reportsPerAccountMerchantAgent}). To change it, update it (section 6).
  - Unknown fields are refused with 400, and so are client-supplied author ids or statuses.
  - Screenshots can only be attached by a person through the browser form (${baseUrl}/reports/new).
  - privacy must be true, and you may set it only after checking that:
${schema.privacyConditions.map((c) => `      * ${c}`).join('\n')}

Task keys (capabilityResults), in order:
${keyList(schema.tasks)}
Outcome keys (capabilityResults values and outcome):
${keyList(schema.outcomes)}
Stage keys (stage = the furthest stage reached):
${keyList(schema.stages)}
Failure-reason keys (failureReason):
${keyList(schema.failureReasons)}

Example body (replace the <...> placeholders):
${JSON.stringify(example, null, 2)
  .split('\n')
  .map((line) => `  ${line}`)
  .join('\n')}

Answers:
  201  Created: { id, status: "PENDING", reviewUrl, updatedAt, unchanged: false }. Keep id and
       updatedAt. The report is not public until a moderator approves it.
  200  The same body again: nothing changed ({ unchanged: true }); the status is kept.
  409  duplicate-report: you already reported this merchant with this agent and the body
       differs. The answer names reportId, updatedAt and updateUrl: update that report instead.
${heading(5, 'Finding work: the queue pass loop')}
GET ${e.queue.url}
Lists approved canonical merchants that your account has not yet reported for your key's agent.
Query parameters (repeat the same filters on every page of a pass):
  limit            items per page, ${l.queueLimit.min}-${l.queueLimit.max}, default ${l.queueLimit.default}
  after            the nextCursor of the previous page (omit on the first page)
  category         a canonical category slug (list: GET ${baseUrl}/api/v1/categories)
  retestAfterDays  ${l.retestAfterDays.min}-${l.retestAfterDays.max}: also list merchants whose report by you is older than
                   this many days; such items carry existingReport { id, status, updatedAt }.
                   Omit it to get never-reported merchants only.
The answer holds the items (identity, website, canonical category, profile URL) and nextCursor.

One pass:
  cursor = none
  repeat:
    page = GET /api/v1/automation/queue?limit=${l.queueLimit.default}[&category=...][&retestAfterDays=...][&after=cursor]
    for each item: test the merchant with your agent (only where you are authorized to),
      then POST a new report, or, when the item has existingReport, PUT an update (section 6)
      using existingReport.updatedAt as If-Match
    cursor = page.nextCursor
  until cursor is null            (null ends the pass)
If a whole pass returned no items (the queue is empty), wait at least ${l.emptyQueueWaitMinutes} minutes (one hour)
before starting another pass. The queue is a sequential work list, not a reservation:
nothing is held for you, and others may report the same merchants.
${heading(6, 'Reading and updating your own reports')}
GET ${e.ownReports.url}?limit=${l.queueLimit.default}[&after=cursor][&merchant=<merchant id>]
  Your own reports, including pending and rejected ones with the moderators' feedback, and
  each report's updatedAt. Page with after = nextCursor as in the queue.
PUT ${e.update.url}
  Header: If-Match: <updatedAt from your latest private read of that report>
  Body: the complete replacement report (same fields and rules as POST; adId and agentId
  must stay the same). Screenshots attached by a person are kept.
  - A changed report goes back to PENDING for moderation; an identical one keeps its status.
  - 428: the If-Match header is missing. Add it.
  - 409: the version is stale (the report changed, for example it was moderated). Read it
    again (GET ${e.ownReports.url}?merchant=...), re-apply your change, retry once.
${heading(7, 'Limits')}
  Request body                          ${n(l.requestBodyBytes)} bytes
  experience                            ${n(l.experienceMaxLength)} characters
  Reports per account, merchant, agent  ${l.reportsPerAccountMerchantAgent}
  Changed agent submissions             ${n(l.changedAgentSubmissionsPerAccountPerHour)} per account per hour, across all keys (POST and PUT that change something)
  Browser submissions                   ${n(l.browserSubmissionsPerAccountPerHour)} per account per hour (the person's own, shared with the form)
  Private requests                      ${n(l.privateRequestsPerAccountPerMinute)} per minute per account (automation and bearer reports)
  Private requests per address          ${n(l.privateRequestsPerAddressPerMinute)} per minute per client address
  Public requests                       ${n(l.publicRequestsPerAddressPerMinute)} per minute per client address
  Queue limit                           ${l.queueLimit.min}-${l.queueLimit.max}, default ${l.queueLimit.default}
  retestAfterDays                       ${l.retestAfterDays.min}-${l.retestAfterDays.max}
  Public list page size                 ${l.pageSize}
  Evidence references per capability    up to ${l.evidenceReferencesPerCapability}
  Key lifetime                          ${l.keyLifetimeDays} days
  Empty queue                           wait at least ${l.emptyQueueWaitMinutes} minutes before another pass
Responses carry RateLimit-Policy and RateLimit headers; read them to pace yourself.
${heading(8, 'Errors, retries and when to stop')}
Errors are application/problem+json: { type, title, status, detail, errors? }; type is a
stable code such as /problems/validation-failed, and errors[] names each failing field
(a JSON pointer like #/capabilityResults/CART) or parameter.
  400  Invalid request: fix it; never resend it unchanged.
  401  Missing, malformed, invalid, revoked or expired key, or inactive agent: STOP. Do not retry; tell your person.
  403  Suspended account or refused origin: STOP. Do not retry; tell your person.
  404  No such resource.
  409  Duplicate with different content (POST) or stale If-Match (PUT): see sections 4 and 6.
  413  Body over ${l.requestBodyBytes.toLocaleString('en-US')} bytes: shorten it.
  415  Wrong media type: send Content-Type: application/json.
  428  PUT without If-Match.
  429  Rate limit: wait the number of seconds in the Retry-After header, then continue.
  5xx, timeouts, network errors: bounded exponential backoff. Wait ${BACKOFF.firstSeconds} s, then multiply by ${BACKOFF.factor}
       each time up to ${BACKOFF.maxSeconds} s, at most ${BACKOFF.maxAttempts} attempts; then stop and try again in a later pass.
Never retry in a tight loop, and never run several passes in parallel for one account.
${heading(9, 'Privacy and conduct')}
  - Test only sites you are authorized to use, with your person's permission.
  - Never include private data: no names, addresses, e-mail addresses, phone numbers, order
    numbers, card or payment data, passwords or one-time codes, and never your key.
  - Never include instructions for bypassing a site's protections (CAPTCHAs, bot checks).
  - Describe what happened, factually. Set privacy true only after checking all of the above.
  - Never put the key in a URL.
${RULE}
`;
}
