// Signals for moderators against gaming (issue 37): one test per signal, read as the queue and
// the report page read them (signalsOf), plus the queue's signal filter and sorts.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raised } from '../../src/modules/moderation/signals.js';
import { clearOldAddressHashes, signalsOf } from '../../src/modules/moderation/signals.repository.js';
import { queuePage } from '../../src/modules/moderation/queue.repository.js';
import { reportAddressHash } from '../../src/modules/reports/address-hash.js';
import { aMerchant, anAccount, anAgent, aReport } from '../factories/index.js';
import { accountWithKey } from '../setup/actors.js';
import { createTestApp, type TestApp } from '../setup/app.js';

const NOW = new Date('2026-11-22T12:00:00Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const ago = (ms: number) => new Date(NOW.getTime() - ms);
const SECRET = 'test-session-secret-that-is-long-enough-0123456789';

describe('moderators\' signals', () => {
  let t: TestApp;
  const prisma = () => t.db.prisma;
  let agent: { id: string };
  const shop = () => aMerchant(prisma());
  /** A pending report with these private fields, by this account (a new one by default, created a year ago). */
  async function pending(fields: { accountId?: string; experience?: string; address?: string; createdAt?: Date; merchantId?: string; capabilityResults?: Record<string, string> } = {}) {
    const accountId = fields.accountId ?? (await oldAccount()).id;
    const merchantId = fields.merchantId ?? (await shop()).id;
    const report = await aReport(prisma(), { merchantId, agentId: agent.id, accountId, createdAt: fields.createdAt ?? ago(HOUR), capabilityResults: fields.capabilityResults as never }, NOW);
    await prisma().report.update({
      where: { id: report.id },
      data: { experience: fields.experience ?? null, addressHash: reportAddressHash(SECRET, fields.address) },
    });
    return report;
  }
  async function oldAccount() {
    const account = await anAccount(prisma());
    await prisma().account.update({ where: { id: account.id }, data: { createdAt: ago(365 * DAY) } });
    return account;
  }
  const signalsFor = async (id: string) => (await signalsOf(prisma(), [id])).get(id)!;

  beforeAll(async () => {
    t = await createTestApp({ now: NOW.toISOString(), checkResponses: false });
    agent = await anAgent(prisma(), { vendorWebsite: 'https://vendor.signals.test/' });
  });
  afterAll(() => t.close());

  it('account age, and the author\'s approved and rejected counts', async () => {
    const fresh = await anAccount(prisma());
    await prisma().account.update({ where: { id: fresh.id }, data: { createdAt: ago(2 * DAY) } });
    const report = await pending({ accountId: fresh.id });
    const old = await oldAccount();
    await aReport(prisma(), { merchantId: (await shop()).id, agentId: agent.id, accountId: old.id, status: 'APPROVED' }, NOW);
    await aReport(prisma(), { merchantId: (await shop()).id, agentId: agent.id, accountId: old.id, status: 'APPROVED' }, NOW);
    await aReport(prisma(), { merchantId: (await shop()).id, agentId: agent.id, accountId: old.id, status: 'REJECTED' }, NOW);
    const seasoned = await pending({ accountId: old.id });

    const young = await signalsFor(report.id);
    expect(young.accountAgeDays).toBe(1);
    expect(raised(young)).toContain('new-account');
    const s = await signalsFor(seasoned.id);
    expect(s.accountAgeDays).toBeGreaterThan(300);
    expect([s.authorApproved, s.authorRejected]).toEqual([2, 1]);
    expect(raised(s)).not.toContain('new-account');
  });

  it('reports from the same account within a day', async () => {
    const account = await oldAccount();
    const first = await pending({ accountId: account.id, createdAt: ago(3 * HOUR) });
    await pending({ accountId: account.id, createdAt: ago(2 * HOUR) });
    await pending({ accountId: account.id, createdAt: ago(3 * DAY) });
    const s = await signalsFor(first.id);
    expect(s.sameAccount).toBe(1);
    expect(raised(s)).toContain('same-account');
  });

  it('reports from the same address within a day, by how many accounts; the address itself is never stored', async () => {
    const first = await pending({ address: '203.0.113.7', createdAt: ago(5 * HOUR) });
    await pending({ address: '203.0.113.7', createdAt: ago(4 * HOUR) });
    await pending({ address: '203.0.113.7', createdAt: ago(2 * DAY) });
    await pending({ address: '203.0.113.8', createdAt: ago(4 * HOUR) });
    // An IPv6 client counts by its /64, as the limits do.
    const v6 = await pending({ address: '2001:db8:1:2::10', createdAt: ago(HOUR) });
    await pending({ address: '2001:db8:1:2::99', createdAt: ago(HOUR) });
    const s = await signalsFor(first.id);
    expect([s.sameAddress, s.sameAddressAccounts]).toEqual([1, 1]);
    expect(raised(s)).toContain('same-address');
    expect((await signalsFor(v6.id)).sameAddress).toBe(1);
    const stored = await t.db.pool.query<{ address_hash: string }>('SELECT address_hash FROM reports WHERE id = $1', [first.id]);
    expect(stored.rows[0]!.address_hash).toMatch(/^[0-9a-f]{32}$/);
    const all = await t.db.pool.query<{ row: string }>('SELECT row_to_json(r)::text AS row FROM reports r');
    expect(all.rows.map((r) => r.row).join('\n')).not.toContain('203.0.113');
    // The upkeep forgets them after 30 days.
    await t.db.pool.query(`UPDATE reports SET updated_at = $2 WHERE id = $1`, [first.id, ago(31 * DAY)]);
    expect(await clearOldAddressHashes(prisma(), NOW)).toBeGreaterThanOrEqual(1);
    expect((await t.db.pool.query('SELECT address_hash FROM reports WHERE id = $1', [first.id])).rows[0].address_hash).toBeNull();
  });

  it('near-identical text across accounts (trigram similarity)', async () => {
    const text = 'Checkout worked perfectly with this agent, fast and smooth, five stars from me';
    const one = await pending({ experience: text });
    await pending({ experience: `${text}!` });
    await pending({ experience: text.replace('five', '5') });
    await pending({ experience: 'The cart page refused to load after the second product was added to it.' });
    const unrelated = await pending({ experience: 'Search returned nothing for any product name I typed into the box.' });
    const s = await signalsFor(one.id);
    expect([s.nearDuplicates, s.nearDuplicateAccounts]).toEqual([2, 2]);
    expect(raised(s)).toContain('near-duplicate');
    expect((await signalsFor(unrelated.id)).nearDuplicates).toBe(0);
    // One account's own similar texts are not a cluster across accounts.
    const author = await oldAccount();
    const mine = await pending({ accountId: author.id, experience: 'Login failed every single time I tried it today on my phone' });
    await pending({ accountId: author.id, experience: 'Login failed every single time I tried it today on my phone!' });
    expect((await signalsFor(mine.id)).nearDuplicates).toBe(0);
  });

  it('self-reported: by a verified owner or vendor', async () => {
    const vendor = await oldAccount();
    await prisma().claim.create({
      data: { accountId: vendor.id, side: 'AGENT', agentId: agent.id, host: 'vendor.signals.test', pageUrl: 'https://vendor.signals.test/', token: 'signals-token-1', status: 'VERIFIED', method: 'DNS', verifiedAt: ago(DAY) },
    });
    const report = await pending({ accountId: vendor.id });
    const s = await signalsFor(report.id);
    expect(s.selfReported).toBe('vendor');
    expect(raised(s)).toContain('self-reported');
  });

  it('contradicts strong, recent evidence for the pair', async () => {
    const merchant = await shop();
    for (let i = 0; i < 6; i += 1) {
      await aReport(prisma(), { merchantId: merchant.id, agentId: agent.id, status: 'APPROVED', capabilityResults: { CHECKOUT: 'WORKS' }, testedAt: ago(i * DAY), createdAt: ago(i * DAY) }, NOW);
    }
    const against = await pending({ merchantId: merchant.id, capabilityResults: { CHECKOUT: 'BLOCKED' } });
    const agreeing = await pending({ merchantId: merchant.id, capabilityResults: { CHECKOUT: 'WORKS' } });
    const s = await signalsFor(against.id);
    expect(s.contradicts).toEqual(['CHECKOUT']);
    expect(raised(s)).toContain('contradicts');
    expect((await signalsFor(agreeing.id)).contradicts).toEqual([]);
  });

  it('filters and sorts the queue by signals', async () => {
    const base = { status: 'PENDING' as const, page: 1, now: NOW };
    const nearDuplicates = await queuePage(prisma(), { ...base, signal: 'near-duplicate' });
    expect(nearDuplicates.total).toBe(3);
    expect(nearDuplicates.rows.every((r) => raised(nearDuplicates.signals.get(r.id)!).includes('near-duplicate'))).toBe(true);
    const byAge = await queuePage(prisma(), { ...base, sort: 'account-age' });
    const ages = byAge.rows.map((r) => byAge.signals.get(r.id)!.accountAgeDays);
    expect(ages).toEqual([...ages].sort((a, b) => a - b));
    const bySignals = await queuePage(prisma(), { ...base, sort: 'signals' });
    const counts = bySignals.rows.map((r) => raised(bySignals.signals.get(r.id)!).length);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
  });

  it('stores the address hash with a report sent by key, and again with its changed replacement over HTTP and MCP', async () => {
    const { auth } = await accountWithKey(t, 'signals-key@example.org', agent.id);
    const merchant = await shop();
    await prisma().merchant.update({ where: { id: merchant.id }, data: { approvedCanonical: true } });
    const created = await request(t.app).post('/api/v1/reports').set(auth).send({ adId: merchant.id, agentId: agent.id, privacy: true, capabilityResults: { ACCESS: 'WORKS' } }).expect(201);
    const id = created.body.id as string;
    const hashOf = async () => (await t.db.pool.query<{ address_hash: string | null }>('SELECT address_hash FROM reports WHERE id = $1', [id])).rows[0]!.address_hash;
    const submitted = await hashOf();
    expect(submitted).toMatch(/^[0-9a-f]{32}$/);
    const read = async () => (await request(t.app).get(`/api/v1/automation/reports/${id}`).set(auth).expect(200)).body as Record<string, unknown>;

    // A changed replacement records where it came from (the same client here: the same hash).
    await t.db.pool.query('UPDATE reports SET address_hash = NULL WHERE id = $1', [id]);
    const first = await read();
    await request(t.app).put(`/api/v1/automation/reports/${id}`).set(auth).set('If-Match', `"${first.updatedAt as string}"`)
      .send({ ...first, capabilityResults: { ACCESS: 'WORKS', SEARCH: 'WORKS' }, outcome: null }).expect(200);
    expect(await hashOf()).toBe(submitted);

    await t.db.pool.query('UPDATE reports SET address_hash = NULL WHERE id = $1', [id]);
    t.clock.advance(1000);
    const second = await read();
    const { methodology: _m, disclaimer: _d, ...report } = second;
    const answer = await request(t.app).post('/mcp').set({ ...auth, Accept: 'application/json, text/event-stream' }).send({
      jsonrpc: '2.0', id: 1, method: 'tools/call',
      params: { name: 'update_report', arguments: { id, version: second.updatedAt, report: { ...report, capabilityResults: { ACCESS: 'WORKS', SEARCH: 'PARTIAL' }, outcome: null } } },
    }).expect(200);
    expect(answer.body.result.isError, JSON.stringify(answer.body.result)).toBeFalsy();
    expect(await hashOf()).toBe(submitted);
  });
});
