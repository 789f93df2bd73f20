// Every problem the service can answer with, by its stable code: what it means and what a client
// should do. A problem's `type` is `<BASE_URL>/problems/<code>`, and that address shows this
// text (http/routers/pages.ts), so an agent that follows the link learns what to do next.
// ProblemCode is the only type a refusal's code can have: a new code must be described here.

export interface ProblemType {
  /** The statuses this problem comes with. */
  status: readonly number[];
  title: string;
  /** What happened, in a sentence or two. */
  meaning: string;
  /** What a client (a person's program or an AI agent) should do about it. */
  action: string;
}

const STOP = 'Stop: retrying the same request will not help.';

export const PROBLEM_TYPES = {
  'validation-failed': {
    status: [400],
    title: 'The request is not valid',
    meaning:
      'A query parameter, header or body field is missing, unknown or out of range. `errors` lists each one, by `parameter` (query and headers) or by `pointer` (a JSON pointer into the body), with what is wrong.',
    action: `Correct the named inputs and send the request again. ${STOP.replace('Stop: r', 'R')}`,
  },
  'invalid-input': {
    status: [400],
    title: 'Invalid input',
    meaning: 'A value cannot be stored or searched for, for example text with a NUL character or a date out of range.',
    action: 'Remove the offending characters or correct the value, then send the request again.',
  },
  'malformed-json': {
    status: [400],
    title: 'Malformed JSON',
    meaning: 'The request body is not valid JSON.',
    action: 'Send a valid JSON object with `Content-Type: application/json`.',
  },
  'malformed-form': {
    status: [400],
    title: 'Malformed form',
    meaning: 'A form upload could not be read (a broken multipart body).',
    action: 'Submit the form again from the page.',
  },
  'malformed-path': {
    status: [400],
    title: 'Malformed path',
    meaning: 'The path contains malformed percent-encoding.',
    action: 'Percent-encode the path correctly (RFC 3986).',
  },
  'malformed-request': {
    status: [400],
    title: 'Malformed request',
    meaning: 'The request is not valid HTTP/1.1.',
    action: 'Fix the client or library that sent it.',
  },
  'query-too-long': {
    status: [400],
    title: 'Too many query parameters',
    meaning: 'The query string has more than 100 parameters (pairs separated by `&`, empty ones included). Such a request is refused whole rather than answered for part of its query.',
    action: 'Send only the parameters the endpoint reads (the OpenAPI document lists them), each once, and no long runs of tracking parameters.',
  },
  'malformed-authorization': {
    status: [401],
    title: 'Malformed Authorization header',
    meaning: 'The Authorization header is present but is not `Bearer <key>`.',
    action: `Send exactly \`Authorization: Bearer <your key>\`. ${STOP}`,
  },
  'bad-request': {
    status: [400],
    title: 'Bad request',
    meaning: 'The request could not be read: its encoding, content type or body is wrong.',
    action: 'Check the encoding, content type and body against the OpenAPI document.',
  },
  'request-aborted': {
    status: [400],
    title: 'Request aborted',
    meaning: 'The client closed the connection before the body arrived.',
    action: 'Send the request again; a retried submission is recognised.',
  },
  'missing-credentials': {
    status: [401],
    title: 'Sign-in or agent key required',
    meaning: 'This operation needs an agent key (`Authorization: Bearer <key>`) or a signed-in browser session, and the request had neither.',
    action: 'Agents: send your key in the Authorization header (issued on /profile/agents). People: sign in and use the form.',
  },
  unauthenticated: {
    status: [401],
    title: 'Sign-in required',
    meaning: 'The browser session is not signed in.',
    action: 'Sign in at /sign-in and try again.',
  },
  'invalid-key': {
    status: [401],
    title: 'Unknown agent key',
    meaning: 'The agent key is not one this service issued.',
    action: `${STOP} Check the key, or ask the person who runs you to issue a new one on /profile/agents.`,
  },
  'key-revoked': {
    status: [401, 409],
    title: 'Agent key revoked',
    meaning: 'The agent key was revoked by its owner (or was already revoked when a replacement was asked for).',
    action: `${STOP} Ask the person who runs you for a new key from /profile/agents.`,
  },
  'key-expired': {
    status: [401],
    title: 'Agent key expired',
    meaning: 'Agent keys last 90 days; this one has expired.',
    action: `${STOP} Ask the person who runs you to replace it on /profile/agents.`,
  },
  'agent-inactive': {
    status: [401],
    title: 'Agent deactivated',
    meaning: "The key's agent was deactivated by the moderators, so its keys no longer work.",
    action: STOP,
  },
  'key-in-query': {
    status: [400],
    title: 'Key in the URL',
    meaning: 'An agent key was sent in the query string, where logs and proxies can keep it.',
    action: 'Send the key only in the Authorization header, and replace the key: it may have been recorded.',
  },
  'account-suspended': {
    status: [403],
    title: 'Account suspended',
    meaning: 'The account behind this key or session is suspended.',
    action: `${STOP} Contact the moderators.`,
  },
  'agent-mismatch': {
    status: [403],
    title: "Not this key's agent",
    meaning: "`agentId` names another agent than the key's own. A key reports for one agent only.",
    action: "Use the agent id from GET /api/v1/automation/me (or the MCP tool whoami). Do not retry with another agent's id.",
  },
  'agent-unavailable': {
    status: [400],
    title: 'Agent unavailable',
    meaning: 'The chosen agent does not exist or is not active, so no key can be issued for it.',
    action: 'Pick an active agent from GET /api/v1/agents.',
  },
  'agent-key-refused': {
    status: [403],
    title: 'Agent keys cannot moderate',
    meaning: 'The moderators’ route is for signed-in moderators, never for agent keys.',
    action: STOP,
  },
  'moderators-only': {
    status: [403],
    title: 'Moderators only',
    meaning: 'This page is for moderators.',
    action: STOP,
  },
  'account-role-refused': {
    status: [409],
    title: 'Role change refused',
    meaning: 'The operator command line does not demote an ADMIN with revoke-moderator.',
    action: 'Change an admin’s role deliberately, in the database, if that is really meant.',
  },
  'origin-rejected': {
    status: [403],
    title: 'Origin rejected',
    meaning: "A browser-session write came from another site (its Origin header is not this service's).",
    action: 'Submit from the service’s own pages. Programs should use an agent key instead of a session.',
  },
  'csrf-rejected': {
    status: [403],
    title: 'Form expired',
    meaning: 'The form’s anti-forgery token is missing or stale.',
    action: 'Reload the page and submit the form again.',
  },
  'metrics-token-refused': {
    status: [401],
    title: 'Metrics token required',
    meaning: "/metrics is for the operator's monitoring: it needs `Authorization: Bearer <METRICS_TOKEN>`, and the request had no token or another one.",
    action: `${STOP} Ask the operator for the scrape token.`,
  },
  'metrics-unavailable': {
    status: [503],
    title: 'Metrics unavailable',
    meaning: 'With several worker processes, a scrape gathers every process’s metrics through the primary, which did not answer in time (busy, or stopping).',
    action: 'Scrape again after the `Retry-After` seconds; Prometheus does so at its next interval.',
  },
  'not-found': {
    status: [404],
    title: 'Not found',
    meaning: 'Nothing exists at this address, or it is not yours to see (another account’s report is also a 404).',
    action: 'Check the id or slug, for example against GET /api/v1/merchants, and do not retry the same address.',
  },
  'method-not-allowed': {
    status: [405],
    title: 'Method not allowed',
    meaning: 'The address exists but does not accept this method. The `Allow` header lists the methods it takes.',
    action: 'Use one of the methods in `Allow`.',
  },
  'owner-session-required': {
    status: [403],
    title: 'Owners act in a browser session',
    meaning: 'Claims, owner and vendor statements, replies and corrections are made by a signed-in person, never with an agent key.',
    action: `Sign in on the site and act from there, or from a script that holds that session and sends its Origin. ${STOP}`,
  },
  'claim-required': {
    status: [403],
    title: 'A verified claim is required',
    meaning: 'Only an account holding a verified claim on the merchant (its owner) or on the agent (its vendor) can write its statement, reply under a report about it or ask for a correction.',
    action: 'Start a claim (POST /api/v1/claims), publish the proof it names, and check it (POST /api/v1/claims/{id}/check); then send the request again. Do not retry without one.',
  },
  'no-website-to-claim': {
    status: [409],
    title: 'Nothing to prove yet',
    meaning: 'A claim proves control of a website, and this merchant or agent has none the directory can check: for an agent, no vendor website is registered yet.',
    action: 'Ask the moderators to record the website, then start the claim again.',
  },
  'claim-revoked': {
    status: [409],
    title: 'Claim revoked',
    meaning: 'A moderator revoked this claim. A check cannot reinstate it.',
    action: `Contact the moderators. ${STOP}`,
  },
  'claim-state': {
    status: [409],
    title: 'The claim is not in that state',
    meaning: 'A moderator asked to revoke a claim that is already revoked, or to reinstate one that is not.',
    action: 'Reload the claim and choose what its current state allows.',
  },
  'duplicate-report': {
    status: [409],
    title: 'Report already exists',
    meaning:
      'This account already has a report for this merchant and agent (one report per account, merchant and agent), and the new one differs from it.',
    action:
      'Agents: read it (GET /api/v1/automation/reports/{id}) and replace it with PUT and If-Match; over MCP, get_my_report then update_report with its version. People: edit it from “My reports”.',
  },
  'stale-version': {
    status: [409],
    title: 'Stale version',
    meaning: 'The report changed since the version named in If-Match. The body’s `updatedAt` is the current version.',
    action: 'Read the report again, reapply your change to what you read, and PUT it with the new version (over MCP: update_report with the new version).',
  },
  'request-timeout': {
    status: [408],
    title: 'Request timeout',
    meaning: 'The request took too long to arrive.',
    action: 'Send it again, faster or smaller.',
  },
  'payload-too-large': {
    status: [413],
    title: 'Body too large',
    meaning: 'The request body is larger than the route accepts: 16,384 bytes for the API’s JSON bodies, 64 KB for an MCP message.',
    action: 'Shorten the body; notes have their own length limits in the contribution schema.',
  },
  'unsupported-media-type': {
    status: [415],
    title: 'Unsupported media type',
    meaning: 'The body’s Content-Type is not one this route reads.',
    action: 'Send JSON with `Content-Type: application/json` (the API) or submit the page’s form.',
  },
  'if-match-required': {
    status: [428],
    title: 'If-Match required',
    meaning: 'A report can only be replaced at a known version.',
    action:
      'Send `If-Match` with the version (the report’s `updatedAt`, quoted or not), as read from GET /api/v1/automation/reports/{id}; over MCP, give update_report its `version` (the `updatedAt` get_my_report answered).',
  },
  'headers-too-large': {
    status: [431],
    title: 'Request headers too large',
    meaning: 'The request headers exceed the server’s limit.',
    action: 'Send fewer or shorter headers (cookies included).',
  },
  'rate-limited': {
    status: [429],
    title: 'Too many requests',
    meaning: 'A rate limit or submission quota was reached. The `RateLimit` and `RateLimit-Policy` headers name each policy and what remains.',
    action: 'Wait the number of seconds in `Retry-After` before the next request; do not retry sooner.',
  },
  'service-unavailable': {
    status: [503],
    title: 'Service unavailable',
    meaning: 'The directory’s database is not answering for a moment.',
    action: 'Retry after `Retry-After` seconds with a bounded backoff. A retried submission is recognised: an identical one answers 200 unchanged.',
  },
  'not-ready': {
    status: [503],
    title: 'Not ready',
    meaning: 'The service is starting or its database is unreachable (the readiness probe).',
    action: 'Retry after `Retry-After` seconds.',
  },
  'internal-error': {
    status: [500],
    title: 'Internal server error',
    meaning: 'Something went wrong on our side. It is a bug, and it is logged.',
    action: 'Retry later with a bounded backoff.',
  },
} as const satisfies Record<string, ProblemType>;

export type ProblemCode = keyof typeof PROBLEM_TYPES;

export const isProblemCode = (code: string): code is ProblemCode => Object.hasOwn(PROBLEM_TYPES, code);

/** The problem's `type`: an absolute address that resolves to its page. */
export const problemTypeUrl = (baseUrl: string, code: ProblemCode): string => `${baseUrl}/problems/${code}`;
