// The MCP example agent (examples/mcp-agent.ts) against the real test server: the whole flow,
// dry run included, on the tools' { data, …, limits } answers.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMPTY_QUEUE_WAIT_MS, runAgent, type Findings } from '../../examples/mcp-agent.js';
import { aCategory, contributionTargets } from '../factories/index.js';
import { createTestApp, type TestApp } from '../setup/app.js';
import { accountWithKey } from '../setup/actors.js';

describe('examples/mcp-agent.ts', () => {
  let t: TestApp;
  let server: Server;
  let baseUrl: string;
  let key: string;
  let accountId: string;
  let T: Awaited<ReturnType<typeof contributionTargets>>;
  const sleeps: number[] = [];
  const sleep = async (ms: number) => {
    sleeps.push(ms);
    t.clock.advance(ms); // the server's limits see the time pass
  };
  const log = () => {};
  const test = (): Findings => ({ capabilityResults: { ACCESS: 'WORKS', SEARCH: 'WORKS' }, testedAt: '2026-11-21', region: 'DE' });
  const retest = (): Findings => ({ ...test(), capabilityResults: { ACCESS: 'WORKS', SEARCH: 'WORKS', CART: 'BLOCKED' }, failureReason: 'CAPTCHA' });

  beforeAll(async () => {
    // 3 private requests a minute and one changed submission an hour: the flow must wait twice over.
    t = await createTestApp({ env: { LIMIT_PRIVATE_PER_MINUTE: '3', LIMIT_AGENT_SUBMISSIONS_PER_HOUR: '1' } });
    T = await contributionTargets(t.db.prisma, 4);
    server = t.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const actor = await accountWithKey(t, 'mcp-example@example.org', T.agents[0]!.id);
    key = actor.key;
    accountId = actor.account.id;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await t.close();
  });

  it('checks, submits and updates a report for the first queue item, pacing itself by the limits it is told', async () => {
    sleeps.length = 0;
    const lines: string[] = [];
    const result = await runAgent({ baseUrl, key, test, retest, sleep, log: (line) => lines.push(line) });
    expect(result).toMatchObject({ outcome: 'done', status: 'PENDING', unchanged: false });
    if (result.outcome !== 'done') return;
    const report = await t.db.prisma.report.findUniqueOrThrow({ where: { id: result.reportId } });
    expect(report).toMatchObject({ accountId, agentId: T.agents[0]!.id, merchantId: result.merchant, status: 'PENDING', channel: 'AGENT_KEY' });
    expect(report.capabilityResults).toEqual({ ACCESS: 'WORKS', SEARCH: 'WORKS', CART: 'BLOCKED' });
    // The dry run came first and wrote nothing of its own.
    expect(lines.some((line) => /valid, would be created with outcome WORKS/.test(line))).toBe(true);
    // Told by limits when a limit was spent: the private requests (seconds to the next minute)
    // and the submission quota (up to an hour), waited out before the calls they would refuse.
    expect(lines.some((line) => /^private:account: spent, waiting \d+ s/.test(line))).toBe(true);
    expect(lines.some((line) => /^agent-submissions: spent, waiting \d+ s/.test(line))).toBe(true);
    expect(sleeps.length).toBeGreaterThanOrEqual(2);
    expect(sleeps.every((ms) => ms > 0 && ms <= 3_600_000)).toBe(true);
    expect(sleeps.some((ms) => ms <= 60_000)).toBe(true);
    expect(sleeps.some((ms) => ms > 60_000)).toBe(true);
  });

  it('stops at once on 401', async () => {
    let calls = 0;
    const counting: typeof fetch = (input, init) => {
      calls++;
      return fetch(input, init);
    };
    const result = await runAgent({ baseUrl, key: 'acd_revoked-or-unknown', test, fetch: counting, sleep, log });
    expect(result).toMatchObject({ outcome: 'stopped', status: 401, detail: expect.stringContaining('Stop retrying') });
    expect(calls).toBe(1);
  });

  it('stops at once on 403 (a suspended account)', async () => {
    const suspended = await accountWithKey(t, 'suspended@example.org', T.agents[1]!.id);
    await t.db.prisma.account.update({ where: { id: suspended.account.id }, data: { suspended: true } });
    let calls = 0;
    const counting: typeof fetch = (input, init) => {
      calls++;
      return fetch(input, init);
    };
    const result = await runAgent({ baseUrl, key: suspended.key, test, fetch: counting, sleep, log });
    expect(result).toMatchObject({ outcome: 'stopped', status: 403 });
    expect(calls).toBe(1);
  });

  it('backs off boundedly on server errors and network failures, then gives up', async () => {
    sleeps.length = 0;
    let calls = 0;
    const failing: typeof fetch = async () => {
      calls++;
      if (calls % 2) throw new TypeError('connection refused');
      return new Response('{}', { status: 502 });
    };
    const result = await runAgent({ baseUrl, key, test, fetch: failing, sleep, log, maxAttempts: 4 });
    expect(result).toEqual({ outcome: 'gave-up', reason: 'server error 502' });
    expect(calls).toBe(4);
    expect(sleeps).toEqual([1000, 2000, 4000]);
  });

  it('waits an hour after an empty queue', async () => {
    const empty = await aCategory(t.db.prisma);
    sleeps.length = 0;
    const result = await runAgent({ baseUrl, key, test, queue: { category: empty.slug }, sleep, log });
    expect(result).toEqual({ outcome: 'empty' });
    expect(sleeps.at(-1)).toBe(EMPTY_QUEUE_WAIT_MS);
  });

  it('stops on a refusal that retrying cannot fix', async () => {
    const result = await runAgent({ baseUrl, key, test: () => ({ ...test(), testedAt: '2026-13-01' }), sleep, log });
    expect(result).toMatchObject({ outcome: 'stopped', status: 400 });
  });
});
