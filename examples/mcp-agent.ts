// An agent's whole contribution flow over MCP, with the official SDK's client: connect to /mcp
// with an agent key, whoami, get_queue, test the first merchant, validate_report (a dry run),
// submit_report, list_my_reports, then update_report at the version read. Every answer is
// { data, …, methodology, disclaimer }; the answers of the key's tools add limits, what remains of
// each limit the call counted against. Polite like examples/queue-pass.ts:
//   - paces itself by limits: when one is spent, it waits resetSeconds before the next call
//     that would count against it (a write for agent-submissions),
//   - stops for good on 401 and 403, whether HTTP answers them or a tool's problem does (the
//     same key will never be accepted),
//   - waits as told on 429: the Retry-After header of an HTTP 429, the retryAfter of a tool's
//     problem (the JSON text of an isError result),
//   - backs off boundedly on 5xx answers and network errors (a 503's retryAfter when it has one),
//   - waits an hour after an empty queue.
// Run: BASE_URL=http://localhost:3000 AGENT_KEY=acd_… npx tsx examples/mcp-agent.ts
// The key goes in the Authorization header of the MCP requests only; never in a URL or an argument.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export interface QueueItem {
  id: string;
  slug: string;
  name: string;
  website: string;
}

type Outcome = 'WORKS' | 'PARTIAL' | 'BLOCKED' | 'DOES_NOT_WORK' | 'UNSURE';

/** What a test found: only the tasks actually attempted, and when (a UTC date, YYYY-MM-DD). */
export interface Findings {
  capabilityResults?: Partial<Record<'ACCESS' | 'SEARCH' | 'DETAILS' | 'LOGIN' | 'CART' | 'CHECKOUT' | 'PURCHASE', Outcome>>;
  outcome?: Outcome;
  stage?: string;
  failureReason?: string;
  humanIntervention?: boolean;
  experience?: string;
  testedAt: string;
  /** Where the test ran from: an ISO 3166-1 alpha-2 country code. */
  region?: string;
  agentVersion?: string;
  task?: string;
}

export interface AgentOptions {
  baseUrl: string;
  key: string;
  /** Tests one merchant. A real agent drives its browser through the tasks it attempts. */
  test: (merchant: QueueItem) => Promise<Findings> | Findings;
  /** A second look at the same merchant, replacing the report (defaults to `test` again). */
  retest?: (merchant: QueueItem) => Promise<Findings> | Findings;
  /** Queue filters, e.g. a category slug. */
  queue?: { category?: string };
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  log?: (line: string) => void;
  /** Attempts per step on 5xx answers and network errors. */
  maxAttempts?: number;
}

/** One limit as the key's tools list it: what remains, and when it resets. */
export interface Limit {
  name: string;
  limit: number;
  windowSeconds: number;
  remaining: number;
  resetSeconds: number;
}

/** Every tool answers { data, methodology, disclaimer } (lists add nextCursor, the key's tools limits). */
export type Answer<T> = { data: T; nextCursor?: string | null; limits?: Limit[]; methodology: string; disclaimer: string };

export type AgentResult =
  | { outcome: 'done'; merchant: string; reportId: string; status: string; unchanged: boolean }
  | { outcome: 'empty' }
  | { outcome: 'stopped'; status: number; detail: string }
  | { outcome: 'gave-up'; reason: string };

export const EMPTY_QUEUE_WAIT_MS = 60 * 60 * 1000;
const BACKOFF_BASE_MS = 1_000;
const BACKOFF_MAX_MS = 60_000;

/** A tool's refusal: the problem JSON the directory answers (status, detail, retryAfter …). */
class ToolProblem extends Error {
  constructor(readonly problem: { status: number; type?: string; detail?: string; retryAfter?: number } & Record<string, unknown>) {
    super(problem.detail ?? `problem ${problem.status}`);
  }
}

class Stop extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
  ) {
    super(detail);
  }
}

class GiveUp extends Error {}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The problem JSON in an HTTP error the SDK reports ("… endpoint: {json}"), when there is one. */
function httpProblemDetail(error: StreamableHTTPError): string {
  const json = error.message.slice(error.message.indexOf('{'));
  try {
    return (JSON.parse(json) as { detail?: string }).detail ?? error.message;
  } catch {
    return error.message;
  }
}

export async function runAgent(options: AgentOptions): Promise<AgentResult> {
  const sleep = options.sleep ?? defaultSleep;
  const log = options.log ?? ((line: string) => console.log(line));
  const maxAttempts = options.maxAttempts ?? 5;
  const baseFetch = options.fetch ?? fetch;
  // The SDK reports an HTTP error by its status only: remember the Retry-After of the last 429 or 503.
  let lastRetryAfter: number | undefined;
  const recordingFetch = async (input: string | URL, init?: RequestInit): Promise<Response> => {
    const res = await baseFetch(input, init);
    const seconds = Number(res.headers.get('retry-after'));
    if ((res.status === 429 || res.status === 503) && Number.isFinite(seconds) && seconds > 0) lastRetryAfter = seconds;
    return res;
  };

  /** One step with the rules above; other refusals (400, 404, 409 …) go to the caller. */
  async function polite<T>(step: string, attempt: () => Promise<T>): Promise<T> {
    for (let failures = 1; ; ) {
      try {
        return await attempt();
      } catch (error) {
        const problem = error instanceof ToolProblem ? error.problem : undefined;
        const status = problem?.status ?? (error instanceof StreamableHTTPError ? error.code : undefined);
        const retryAfter = problem ? problem.retryAfter : lastRetryAfter;
        lastRetryAfter = undefined;
        if (status === 401 || status === 403) {
          throw new Stop(status, problem?.detail ?? (error instanceof StreamableHTTPError ? httpProblemDetail(error) : 'refused'));
        }
        if (status === 429) {
          const wait = (retryAfter ?? 60) * 1000;
          log(`${step}: rate limited, waiting ${wait} ms as told`);
          await sleep(wait);
          continue; // waiting as told is not a failed attempt
        }
        // fetch fails with a TypeError when the network does.
        const transient = status === undefined ? error instanceof TypeError : status >= 500;
        if (!transient) throw error;
        const reason = status === undefined ? `network error: ${(error as Error).message}` : `server error ${status}`;
        if (failures >= maxAttempts) throw new GiveUp(reason);
        const wait = retryAfter ? retryAfter * 1000 : Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** (failures - 1));
        log(`${step}: ${reason}, retrying in ${wait} ms`);
        await sleep(wait);
        failures++;
      }
    }
  }

  let client: Client | undefined;
  const connect = async () => {
    const candidate = new Client({ name: 'acd-example-agent', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL('/mcp', options.baseUrl), {
      requestInit: { headers: { Authorization: `Bearer ${options.key}` } },
      fetch: recordingFetch,
    });
    try {
      await candidate.connect(transport);
    } catch (error) {
      await candidate.close().catch(() => {});
      throw error;
    }
    client = candidate;
  };
  /** What remained of each limit after the last answer that listed them (the key's tools list them all). */
  let limits: Limit[] = [];
  /** Waits out a spent limit before a call that would count against it. */
  const pace = async (write: boolean) => {
    for (const limit of limits) {
      const counts = limit.name === 'agent-submissions' ? write : true;
      if (counts && limit.remaining === 0 && limit.resetSeconds > 0) {
        log(`${limit.name}: spent, waiting ${limit.resetSeconds} s for it to reset`);
        await sleep(limit.resetSeconds * 1000);
      }
    }
    limits = [];
  };
  /** A tool's answer ({ data, … }); a refusal is thrown as its problem. */
  const tool = <T>(name: string, args: Record<string, unknown>, write = false) =>
    polite(name, async () => {
      await pace(write);
      const result = (await client!.callTool({ name, arguments: args })) as CallToolResult;
      const text = result.content.find((c) => c.type === 'text');
      // A refusal's problem is its JSON text; an answer is structuredContent (its text is a short summary of it).
      const body = (result.isError ? undefined : result.structuredContent) ?? JSON.parse(text?.type === 'text' ? text.text : '{}');
      if (result.isError) throw new ToolProblem(body as ToolProblem['problem']);
      limits = (body as { limits?: Limit[] }).limits ?? [];
      return body as Answer<T>;
    });

  try {
    await polite('connect', connect);
    const { data: me } = await tool<{ agent: { id: string; slug: string } }>('whoami', {});
    log(`connected as agent ${me.agent.slug}`);
    const queue = await tool<QueueItem[]>('get_queue', { limit: 1, ...options.queue });
    const merchant = queue.data[0];
    if (!merchant) {
      log('the queue is empty: waiting an hour before another pass');
      await sleep(EMPTY_QUEUE_WAIT_MS);
      return { outcome: 'empty' };
    }

    // privacy: true is a promise that the findings hold no personal or payment data.
    const report = { adId: merchant.id, agentId: me.agent.id, privacy: true, ...(await options.test(merchant)) };
    try {
      // The dry run first: the same checks and problems as submit_report, nothing written.
      const { data: checked } = await tool<{ wouldBe: string; report: { outcome: string } }>('validate_report', report);
      log(`${merchant.name}: valid, would be ${checked.wouldBe} with outcome ${checked.report.outcome}`);
      const { data: created } = await tool<{ id: string; status: string; unchanged: boolean }>('submit_report', report, true);
      log(`${merchant.name}: report ${created.id} ${created.unchanged ? 'unchanged' : 'submitted'} (${created.status})`);
    } catch (error) {
      // Reported already (by an earlier run): one report per merchant and agent, so update it below.
      if (!(error instanceof ToolProblem && error.problem.status === 409)) throw error;
      log(`${merchant.name}: reported before, updating that report instead`);
    }

    // Read the report back: its updatedAt is the version an update must name.
    const read = async () => {
      const mine = await tool<({ id: string; updatedAt: string } & Record<string, unknown>)[]>('list_my_reports', { merchant: merchant.id });
      if (!mine.data[0]) throw new Error('the report just submitted is not listed');
      return mine.data[0];
    };
    const findings = await (options.retest ?? options.test)(merchant);
    for (let tries = 1; ; tries++) {
      const current = await read();
      try {
        const { data: updated } = await tool<{ id: string; status: string; unchanged: boolean }>(
          'update_report',
          // A derived outcome is sent as null, to be derived again from the new results (sent back
          // as read, it would be refused); an outcome the agent gave stays unless the findings change it.
          { id: current.id, version: current.updatedAt, report: { ...current, outcome: current.outcomeDerived ? null : current.outcome, ...findings } },
          true,
        );
        log(`${merchant.name}: report ${updated.id} ${updated.unchanged ? 'unchanged' : 'updated'} (${updated.status})`);
        return { outcome: 'done', merchant: merchant.id, reportId: updated.id, status: updated.status, unchanged: updated.unchanged };
      } catch (error) {
        // Changed meanwhile (a moderator's decision moves the version): read again and re-apply.
        if (!(error instanceof ToolProblem && error.problem.status === 409 && tries < 3)) throw error;
      }
    }
  } catch (error) {
    if (error instanceof Stop) {
      log(`stopping: ${error.status} ${error.detail}`);
      return { outcome: 'stopped', status: error.status, detail: error.detail };
    }
    if (error instanceof GiveUp) return { outcome: 'gave-up', reason: error.message };
    // Any other refusal (400, 404, 409 …) will not change by retrying: report it and stop.
    if (error instanceof ToolProblem) return { outcome: 'stopped', status: error.problem.status, detail: error.problem.detail ?? error.message };
    if (error instanceof StreamableHTTPError) return { outcome: 'stopped', status: error.code ?? 0, detail: httpProblemDetail(error) };
    throw error;
  } finally {
    await client?.close().catch(() => {});
  }
}

/**
 * The simplest honest test: fetch the merchant's home page and report ACCESS alone, since
 * nothing else was attempted. A real agent reports the tasks it drove its browser through.
 */
export async function homePageTest(merchant: QueueItem): Promise<Findings> {
  const testedAt = new Date().toISOString().slice(0, 10);
  try {
    const res = await fetch(merchant.website, { signal: AbortSignal.timeout(15_000) });
    await res.body?.cancel();
    const blocked = res.status === 401 || res.status === 403 || res.status === 429;
    return {
      capabilityResults: { ACCESS: res.ok ? 'WORKS' : blocked ? 'BLOCKED' : 'DOES_NOT_WORK' },
      ...(res.ok ? {} : { failureReason: blocked ? 'EXPLICIT_BLOCK' : 'OTHER' }),
      experience: `The home page answered HTTP ${res.status} to an automated request.`,
      testedAt,
    };
  } catch {
    return { capabilityResults: { ACCESS: 'UNSURE' }, experience: 'The home page could not be reached.', testedAt };
  }
}

const isMain = import.meta.url === new URL(`file://${process.argv[1] ?? ''}`).href;
if (isMain) {
  const baseUrl = process.env.BASE_URL ?? 'http://localhost:3000';
  const key = process.env.AGENT_KEY;
  if (!key) {
    console.error('Set AGENT_KEY to an agent key issued at /profile/agents.');
    process.exit(1);
  }
  const result = await runAgent({ baseUrl, key, test: homePageTest });
  console.log(JSON.stringify(result));
  process.exit(result.outcome === 'done' || result.outcome === 'empty' ? 0 : 1);
}
