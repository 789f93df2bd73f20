// Self-reported evidence, versions and regressions on every public surface (issue 37): the
// API's summaries and reports, independent=all, the merchant and agent pages, the feeds; and
// what a claim that arrives after its holder's reports, lapses, or is revoked does.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkClaim, recheckDueClaims, setClaimRevoked, startClaim } from '../../src/modules/claims/claims.service.js';
import { aMerchant, anAccount, anAgent, aReport } from '../factories/index.js';
import { createTestApp, type TestApp } from '../setup/app.js';
import { FAILING_FETCHER, provingFetcher } from '../setup/claim-fetchers.js';

const NOW = new Date('2026-11-22T12:00:00Z');
const DAY = 86_400_000;
const daysAgo = (n: number) => new Date(NOW.getTime() - n * DAY);

describe('self-reported evidence and versions, in public', () => {
  let t: TestApp;
  let shop: { id: string; slug: string };
  let agent: { id: string; slug: string };
  let vendor: { id: string };
  let moderator: { id: string };
  const prisma = () => t.db.prisma;
  const proving = provingFetcher(prisma);
  const failing = FAILING_FETCHER;
  const detail = async (query = '') => {
    const res = await request(t.app).get(`/api/v1/merchants/${shop.slug}${query}`).expect(200);
    return res.body.data.agents.find((a: { agent: { slug: string } }) => a.agent.slug === agent.slug);
  };

  beforeAll(async () => {
    t = await createTestApp({ now: NOW.toISOString() });
    shop = await aMerchant(prisma(), { name: 'Weighable Wares', website: 'https://weighable.self.test/' });
    agent = await anAgent(prisma(), { name: 'Versioned Vole', vendorWebsite: 'https://vole.self.test/' });
    vendor = await anAccount(prisma());
    moderator = await anAccount(prisma(), { role: 'MODERATOR' });
    // Three independent reports: 0.7.1 got through checkout, 0.7.3 is blocked there.
    const results = (checkout: 'WORKS' | 'BLOCKED') => ({ ACCESS: 'WORKS', SEARCH: 'WORKS', DETAILS: 'WORKS', CART: 'WORKS', CHECKOUT: checkout }) as const;
    await aReport(prisma(), { merchantId: shop.id, agentId: agent.id, status: 'APPROVED', outcome: 'WORKS', capabilityResults: results('WORKS'), testedAt: daysAgo(20), createdAt: daysAgo(20) }, NOW);
    await aReport(prisma(), { merchantId: shop.id, agentId: agent.id, status: 'APPROVED', outcome: 'PARTIAL', capabilityResults: results('BLOCKED'), testedAt: daysAgo(3), createdAt: daysAgo(3) }, NOW);
    const [first, second] = await prisma().report.findMany({ where: { merchantId: shop.id }, orderBy: { createdAt: 'asc' } });
    await prisma().report.update({ where: { id: first!.id }, data: { agentVersion: '0.7.1' } });
    await prisma().report.update({ where: { id: second!.id }, data: { agentVersion: ' 0.7.3 ' } });
    // The vendor's own two reports, written before any claim.
    const otherShop = await aMerchant(prisma());
    await aReport(prisma(), { merchantId: shop.id, agentId: agent.id, accountId: vendor.id, status: 'APPROVED', outcome: 'WORKS', capabilityResults: results('WORKS'), testedAt: daysAgo(1), createdAt: daysAgo(1) }, NOW);
    await aReport(prisma(), { merchantId: otherShop.id, agentId: agent.id, accountId: vendor.id, status: 'APPROVED', outcome: 'WORKS', capabilityResults: results('WORKS'), testedAt: daysAgo(1), createdAt: daysAgo(1) }, NOW);
    // The versions were set after the approvals: recompute through the one write path.
    await prisma().$transaction(async (tx) => {
      const { evidenceChanged } = await import('../../src/modules/aggregation/evidence.js');
      await evidenceChanged(tx, { pairs: [{ merchantId: shop.id, agentId: agent.id }] }, NOW);
    });
  });
  afterAll(() => t.close());

  it('counts a vendor\'s reports as independent until the vendor proves its claim; then counts them apart, everywhere', async () => {
    const before = await detail();
    expect(before.sources).toEqual({ independent: 3, selfReported: 0, byOwner: 0, byVendor: 0 });

    const { claim } = await startClaim({ prisma: prisma(), fetcher: proving }, vendor.id, { agent: agent.slug }, NOW);
    const checked = await checkClaim({ prisma: prisma(), fetcher: proving }, vendor.id, claim.id, 'dns', NOW);
    expect(checked.status).toBe('verified');

    const after = await detail();
    expect(after.independent).toBe('only');
    expect(after.sources).toEqual({ independent: 2, selfReported: 1, byOwner: 0, byVendor: 1 });
    expect(after.counts.total).toBe(2);
    expect(after.verdict.selfReported).toEqual({ owner: 0, vendor: 1, counted: false });
    expect(after.label).toMatch(/; plus 1 report by the vendor$/);

    const all = await detail('?independent=all');
    expect(all.independent).toBe('all');
    expect(all.counts.total).toBe(3);
    expect(all.label).toMatch(/; including 1 report by the vendor$/);
    await request(t.app).get(`/api/v1/merchants/${shop.slug}?independent=some`).expect(400).expect('Content-Type', /problem\+json/);

    // Reports: independent ones by default; with independent=all, the vendor's too, marked, with no identity.
    const only = await request(t.app).get(`/api/v1/reports?merchant=${shop.id}`).expect(200);
    expect(only.body.total).toBe(2);
    expect(only.body.data.every((r: { selfReported: boolean }) => !r.selfReported)).toBe(true);
    const every = await request(t.app).get(`/api/v1/reports?merchant=${shop.id}&independent=all`).expect(200);
    expect(every.body.total).toBe(3);
    const mine = every.body.data.filter((r: { selfReported: boolean }) => r.selfReported);
    expect(mine).toHaveLength(1);
    expect(mine[0].selfReportedBy).toBe('vendor');
    expect(JSON.stringify(every.body)).not.toContain(vendor.id);

    // The merchant page says so, and marks the report when asked for all.
    const page = await request(t.app).get(`/merchants/${shop.slug}`).expect(200);
    expect(page.text).toContain('plus 1 report by the vendor');
    expect(page.text).toContain('Count self-reported reports too');
    const pageAll = await request(t.app).get(`/merchants/${shop.slug}?independent=all`).expect(200);
    expect(pageAll.text).toContain('Self-reported:</strong> by the agent’s verified vendor');

    // The compact list carries the same sources.
    const list = await request(t.app).get(`/api/v1/merchants?agent=${agent.slug}&view=compact`).expect(200);
    const row = list.body.data.find((m: { slug: string }) => m.slug === shop.slug);
    expect(row.agents[0].sources.selfReported).toBe(1);
  });

  it('keeps the reports self-reported when the claim lapses, and counts them again once a moderator revokes it', async () => {
    const claim = await prisma().claim.findFirstOrThrow({ where: { accountId: vendor.id } });
    await prisma().claim.update({ where: { id: claim.id }, data: { status: 'GRACE', graceUntil: daysAgo(1), checkedAt: daysAgo(2) } });
    const { lapsed } = await recheckDueClaims({ prisma: prisma(), fetcher: failing }, NOW);
    expect(lapsed).toBe(1);
    expect((await detail()).sources.selfReported).toBe(1);

    await setClaimRevoked({ prisma: prisma(), actorId: moderator.id, now: NOW }, claim.id, true, 'Not the vendor');
    expect((await detail()).sources).toEqual({ independent: 3, selfReported: 0, byOwner: 0, byVendor: 0 });
    await setClaimRevoked({ prisma: prisma(), actorId: moderator.id, now: NOW }, claim.id, false, 'It was');
    expect((await detail()).sources.selfReported).toBe(1);
  });

  it('shows the versions, the last version working per task and the regression: API, verdict, pages, feeds', async () => {
    const summary = await detail();
    expect(summary.versions.seen.map((v: { version: string }) => v.version)).toEqual(['0.7.3', '0.7.1']);
    expect(summary.versions.tasks.CHECKOUT.lastWorking.version).toBe('0.7.1');
    expect(summary.versions.regressions).toEqual([
      expect.objectContaining({ task: 'CHECKOUT', workedUpTo: '0.7.1', failsSince: '0.7.3', newest: '0.7.3' }),
    ]);
    expect(summary.label).toContain('worked up to 0.7.1, fails at checkout since 0.7.3');

    const page = await request(t.app).get(`/merchants/${shop.slug}`).expect(200);
    expect(page.text).toContain('Agent checkout worked up to 0.7.1 and fails since 0.7.3');
    const agentPage = await request(t.app).get(`/agents/${agent.slug}`).expect(200);
    expect(agentPage.text).toContain('Versions and regressions');
    expect(agentPage.text).toMatch(/Weighable Wares<\/a>: Agent checkout worked up to 0\.7\.1, fails since 0\.7\.3/);

    // A regression is a feed entry when a recomputation first finds it: here, the one after the
    // versions were named. The agent's feed has it too.
    for (const feed of [`/agents/${agent.slug}/feed.atom`, `/merchants/${shop.slug}/feed.atom`, '/feed.atom']) {
      const res = await request(t.app).get(feed).expect(200);
      expect(res.text).toContain('Agent checkout regressed in version 0.7.3');
    }
  });
});
