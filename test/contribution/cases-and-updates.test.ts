// Issue 35: the cases real runs hit, each accepted as its rule says and read back as the dry run
// shows it; the testedAt rule; the dry run of an update over HTTP and MCP (the same checks and
// problems as the update, nothing written); the derived outcome read back and derived again;
// the queue's total and remaining.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPORTING_CASES, frozenOutcomeDetail } from '../../src/modules/reports/definitions.js';
import { contributionTargets } from '../factories/index.js';
import { accountWithKey } from '../setup/actors.js';
import { createTestApp, type TestApp } from '../setup/app.js';

/** A problem without what differs per request. */
const problemOf = (res: request.Response) => {
  const { instance: _instance, ...rest } = res.body as Record<string, unknown>;
  return { status: res.status, body: rest };
};

describe('report cases, the update dry run and honest read-back', () => {
  let t: TestApp;
  let T: Awaited<ReturnType<typeof contributionTargets>>;
  let agentId: string;
  let auth: Record<string, string>;
  beforeAll(async () => {
    t = await createTestApp({ now: '2026-11-23T02:00:00Z', env: { LIMIT_PRIVATE_PER_MINUTE: '1000', LIMIT_AGENT_SUBMISSIONS_PER_HOUR: '100' } });
    T = await contributionTargets(t.db.prisma, 16);
    agentId = T.agents[0]!.id;
    ({ auth } = await accountWithKey(t, 'cases@example.org', agentId));
  });
  afterAll(() => t.close());

  const post = (path: string, body: unknown, headers: Record<string, string> = auth) => request(t.app).post(path).set(headers).send(body as object);
  const put = (id: string, body: unknown, ifMatch?: string) => {
    const req = request(t.app).put(`/api/v1/automation/reports/${id}`).set(auth);
    return (ifMatch === undefined ? req : req.set('If-Match', ifMatch)).send(body as object);
  };
  const validateUpdate = (id: string, body: unknown, ifMatch?: string) => {
    const req = request(t.app).post(`/api/v1/automation/reports/${id}/validate`).set(auth);
    return (ifMatch === undefined ? req : req.set('If-Match', ifMatch)).send(body as object);
  };
  const read = async (id: string) => (await request(t.app).get(`/api/v1/automation/reports/${id}`).set(auth).expect(200)).body as Record<string, unknown>;
  const written = () => Promise.all([t.db.prisma.report.count(), t.db.prisma.reportRevision.count(), t.db.prisma.report.aggregate({ _max: { updatedAt: true } })]);

  it('accepts each case as its rule says, and the dry run shows how it is read', async () => {
    for (const [i, c] of REPORTING_CASES.entries()) {
      const body = { adId: T.merchants[i]!.id, agentId, privacy: true, testedAt: '2026-11-22', ...c.example };
      const dry = await post('/api/v1/reports/validate', body).expect(200);
      expect(dry.body, c.id).toMatchObject({ valid: true, wouldBe: 'created', report: { capabilityResults: c.example.capabilityResults, stage: c.example.stage } });
      const report = dry.body.report as Record<string, unknown>;
      expect(report.outcomeDerived, c.id).toBe(true);
      expect(dry.body.notes, c.id).toContain(`outcome is derived from capabilityResults: ${report.outcome as string}.`);
      if (c.id === 'signedIn') expect(report.capabilityResults, c.id).not.toHaveProperty('LOGIN');
      if (c.id === 'humanLogin') expect(report, c.id).toMatchObject({ humanIntervention: true, failureReason: 'AUTHENTICATION', capabilityResults: { LOGIN: 'PARTIAL' } });
      if (c.id === 'stopAtPayment') {
        expect(report, c.id).toMatchObject({ stage: 'PAYMENT_APPROVAL', failureReason: 'INTERFACE', outcome: 'PARTIAL' });
        expect(report.capabilityResults, c.id).not.toHaveProperty('PURCHASE');
      }
      if (c.id === 'accountWall') expect(report, c.id).toMatchObject({ failureReason: 'AUTHENTICATION', capabilityResults: { CHECKOUT: 'DOES_NOT_WORK' } });
      if (c.id === 'cloudRegion') expect(report.region, c.id).toBe('US');
      if (c.id === 'newVersion') {
        expect(report.agentVersion).toBe('3.0.0-beta.2');
        expect(dry.body.notes).toContain('agentVersion "3.0.0-beta.2" is new for this agent: it is accepted as given and listed once a report naming it is approved.');
      } else {
        expect((dry.body.notes as string[]).some((note) => note.startsWith('agentVersion')), c.id).toBe(false);
      }
      await post('/api/v1/reports', body).expect(201);
    }
  });

  it('takes testedAt as the date on the person\'s calendar: a day past the UTC date is accepted, two are not', async () => {
    const body = { adId: T.merchants[10]!.id, agentId, privacy: true, capabilityResults: { ACCESS: 'WORKS' } };
    await post('/api/v1/reports/validate', { ...body, testedAt: '2026-11-24' }).expect(200);
    const late = await post('/api/v1/reports/validate', { ...body, testedAt: '2026-11-25' }).expect(400);
    expect(late.body.errors).toEqual([{ pointer: '#/testedAt', detail: 'must not be in the future' }]);
  });

  it('checks an update over HTTP with the PUT\'s checks and problems, writing nothing', async () => {
    const created = await post('/api/v1/reports', { adId: T.merchants[11]!.id, agentId, privacy: true, capabilityResults: { ACCESS: 'WORKS', CART: 'PARTIAL' } }).expect(201);
    const id = created.body.id as string;
    const asRead = await read(id);
    const v1 = asRead.updatedAt as string;
    const changed = { ...asRead, capabilityResults: { ACCESS: 'WORKS', CART: 'WORKS' }, outcome: null };
    const before = await written();

    const dry = await validateUpdate(id, changed, `"${v1}"`).expect(200);
    expect(dry.body).toMatchObject({ valid: true, wouldBe: 'updated', submitStatus: 200, report: { outcome: 'WORKS', outcomeDerived: true }, existingReport: { id, updatedAt: v1 } });
    expect(await validateUpdate(id, asRead, `"${v1}"`).expect(200)).toMatchObject({ body: { wouldBe: 'unchanged' } });
    // The refusals, each the PUT's own.
    const stale = '"2026-01-01T00:00:00.000Z"';
    for (const [ifMatch, body] of [[stale, changed], [undefined, changed], [`"${v1}"`, { ...changed, adId: T.merchants[12]!.id }], [`"${v1}"`, { ...changed, capabilityResults: { CART: 'MAYBE' } }]] as const) {
      const dryRefusal = await validateUpdate(id, body, ifMatch);
      expect(dryRefusal.status).toBeGreaterThanOrEqual(400);
      expect(await written()).toEqual(before);
      expect(problemOf(dryRefusal)).toEqual(problemOf(await put(id, body, ifMatch)));
    }
    expect(problemOf(await validateUpdate('01a21b01-0000-7000-8000-000000000000', changed, `"${v1}"`)).status).toBe(404);
    expect(await written()).toEqual(before);
    // And the real update does what the dry run said.
    await put(id, changed, `"${v1}"`).expect(200);
    expect(await read(id)).toMatchObject({ outcome: 'WORKS', outcomeDerived: true, status: 'PENDING' });
  });

  it('checks an update over MCP with validate_report (id, version, report), writing nothing', async () => {
    const created = await post('/api/v1/reports', { adId: T.merchants[13]!.id, agentId, privacy: true, capabilityResults: { ACCESS: 'BLOCKED' } }).expect(201);
    const id = created.body.id as string;
    const { methodology: _m, disclaimer: _d, ...asRead } = await read(id);
    const call = (args: Record<string, unknown>) =>
      request(t.app)
        .post('/mcp')
        .set({ ...auth, Accept: 'application/json, text/event-stream' })
        .send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'validate_report', arguments: args } });
    const before = await written();
    // The derived BLOCKED sent back as read with results that derive WORKS: the PUT's refusal.
    const frozen = (await call({ id, version: asRead.updatedAt, report: { ...asRead, capabilityResults: { ACCESS: 'WORKS', SEARCH: 'WORKS' } } }).expect(200)).body.result;
    expect(frozen.isError).toBe(true);
    expect(JSON.parse(frozen.content[0].text)).toMatchObject({ status: 400, errors: [{ pointer: '#/outcome', detail: frozenOutcomeDetail('BLOCKED', 'WORKS') }] });
    const report = { ...asRead, capabilityResults: { ACCESS: 'WORKS', SEARCH: 'WORKS' }, outcome: null };
    const ok = (await call({ id, version: asRead.updatedAt, report }).expect(200)).body.result;
    expect(ok.isError).toBeUndefined();
    expect(ok.structuredContent.data).toMatchObject({ valid: true, wouldBe: 'updated', report: { outcome: 'WORKS', outcomeDerived: true } });
    const stale = (await call({ id, version: '2026-01-01T00:00:00.000Z', report }).expect(200)).body.result;
    expect(stale.isError).toBe(true);
    expect(JSON.parse(stale.content[0].text)).toMatchObject({ status: 409, type: expect.stringMatching(/stale-version$/) });
    const missing = JSON.parse((await call({ id, report }).expect(200)).body.result.content[0].text);
    expect(missing).toMatchObject({ status: 428, errors: [{ parameter: 'version' }] });
    expect(await written()).toEqual(before);
  });

  it('reads a derived outcome back as derived; null derives it again, one sent back frozen is refused, and every retry is harmless', async () => {
    const created = await post('/api/v1/reports', { adId: T.merchants[14]!.id, agentId, privacy: true, capabilityResults: { ACCESS: 'WORKS', CART: 'BLOCKED' } }).expect(201);
    const id = created.body.id as string;
    const asRead = await read(id);
    expect(asRead).toMatchObject({ outcome: 'PARTIAL', outcomeDerived: true });
    const v1 = `"${asRead.updatedAt as string}"`;

    // The trap: PARTIAL sent back as read, with results that now derive WORKS. Refused by the PUT
    // and its dry run alike, nothing written; a retry is refused the same way.
    const trap = { ...asRead, capabilityResults: { ACCESS: 'WORKS', CART: 'WORKS' } };
    const before = await written();
    const refusal = await put(id, trap, v1).expect(400);
    expect(refusal.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refusal.body.errors).toEqual([{ pointer: '#/outcome', detail: frozenOutcomeDetail('PARTIAL', 'WORKS') }]);
    expect(problemOf(await put(id, trap, v1))).toEqual(problemOf(refusal));
    expect(problemOf(await validateUpdate(id, trap, v1))).toEqual(problemOf(refusal));
    expect(await written()).toEqual(before);
    expect(await read(id)).toEqual(asRead);

    // Not the trap: the derived outcome sent back as read with the same results (a no-op), or with
    // new results that derive the same outcome.
    await put(id, asRead, v1).expect(200);
    expect(await written()).toEqual(before);
    expect((await validateUpdate(id, { ...asRead, capabilityResults: { ACCESS: 'WORKS', CART: 'PARTIAL' } }, v1).expect(200)).body).toMatchObject({ wouldBe: 'updated', report: { outcome: 'PARTIAL' } });

    // As the update rule says: outcome null with the new task results; its retry (after a lost
    // answer, with the version it first named) is 200 and writes nothing more.
    const corrected = { ...trap, outcome: null };
    await put(id, corrected, v1).expect(200);
    const after = await read(id);
    expect(after).toMatchObject({ outcome: 'WORKS', outcomeDerived: true });
    const retried = await put(id, corrected, v1).expect(200);
    expect(retried.body.updatedAt ?? after.updatedAt).toBe(after.updatedAt);
    expect(await read(id)).toEqual(after);
    // The trap's body after the correction: WORKS is now the derived outcome, PARTIAL sent again
    // is an outcome of the client's own, a change, which needs the current version.
    await put(id, trap, v1).expect(409);

    // An outcome the client chose stays as given, whatever the results say.
    await put(id, { ...after, outcome: 'PARTIAL', capabilityResults: { ACCESS: 'WORKS', CART: 'PARTIAL' } }, `"${after.updatedAt as string}"`).expect(200);
    const chosen = await read(id);
    expect(chosen).toMatchObject({ outcome: 'PARTIAL', outcomeDerived: false });
    await put(id, { ...chosen, capabilityResults: { ACCESS: 'WORKS', CART: 'WORKS' } }, `"${chosen.updatedAt as string}"`).expect(200);
    expect(await read(id)).toMatchObject({ outcome: 'PARTIAL', outcomeDerived: false });
  });

  it('gives the queue pass its total and what remains after each page', async () => {
    const first = (await request(t.app).get('/api/v1/automation/queue?limit=2').set(auth).expect(200)).body;
    expect(first.items).toHaveLength(2);
    expect(first.total).toBeGreaterThan(2);
    expect(first.remaining).toBe(first.total - 2);
    const second = (await request(t.app).get(`/api/v1/automation/queue?limit=2&after=${encodeURIComponent(first.nextCursor)}`).set(auth).expect(200)).body;
    expect(second).toMatchObject({ total: first.total, remaining: Math.max(first.total - 4, 0) });
    // A merchant reported drops out of the pass.
    await post('/api/v1/reports', { adId: first.items[0].id, agentId, privacy: true, capabilityResults: { ACCESS: 'WORKS' } }).expect(201);
    expect((await request(t.app).get('/api/v1/automation/queue?limit=2').set(auth).expect(200)).body.total).toBe(first.total - 1);
  });
});
