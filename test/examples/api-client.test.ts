// The typed example client (examples/api-client.ts) against the real test server, and the
// generated types it compiles against kept in step with the document.
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oneStep } from '../../examples/api-client.js';
import { API_TYPES_PATH, apiTypes } from '../../scripts/api-types.js';
import { contributionTargets } from '../factories/index.js';
import { accountWithKey } from '../setup/actors.js';
import { createTestApp, type TestApp } from '../setup/app.js';

describe('examples/api-client.ts', () => {
  let t: TestApp;
  let server: Server;
  let baseUrl: string;
  let key: string;
  let targets: Awaited<ReturnType<typeof contributionTargets>>;
  beforeAll(async () => {
    t = await createTestApp();
    targets = await contributionTargets(t.db.prisma, 2);
    server = t.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    ({ key } = await accountWithKey(t, 'typed-client@example.org', targets.agents[0]!.id));
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await t.close();
  });

  it('uses types that are up to date with the OpenAPI document (npm run api:types)', async () => {
    expect(readFileSync(API_TYPES_PATH, 'utf8')).toBe(await apiTypes());
  });

  it('submits, reads back and replaces a report with the generated types', async () => {
    const result = await oneStep({ baseUrl, key, testedAt: '2026-11-21' });
    expect(result.agent).toBe(targets.agents[0]!.slug);
    expect(result.submitted).toMatchObject({ status: 'PENDING', unchanged: false });
    expect(result.replaced).toMatchObject({ id: result.submitted!.id, status: 'PENDING', unchanged: false });
    const stored = await t.db.prisma.report.findUniqueOrThrow({ where: { id: result.submitted!.id } });
    expect(stored.capabilityResults).toEqual({ ACCESS: 'WORKS', SEARCH: 'WORKS', DETAILS: 'PARTIAL' });
  });
});
