// Summary labels say no more than their confidence, in the API (full and compact views) and on
// the pages alike: one report through checkout is "so far", never "reliably".
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scoreBandLabel, summaryLabel, type Confidence } from '../../src/modules/aggregation/constants.js';
import { aCategory, aMerchant, anAgent, aReport } from '../factories/index.js';
import { createTestApp, type TestApp } from '../setup/app.js';

interface Summary {
  agent: { slug: string };
  label: string;
  status: string;
  scoreBand: string;
  confidence: Confidence;
}

const THROUGH_CHECKOUT = { ACCESS: 'WORKS', SEARCH: 'WORKS', DETAILS: 'WORKS', CART: 'WORKS', CHECKOUT: 'WORKS' } as const;
const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&#34;').replace(/'/g, '&#39;');

describe('summary labels by confidence', () => {
  let t: TestApp;
  const shops: Record<Confidence, { slug: string }> = {} as never;
  let agentSlug = '';

  beforeAll(async () => {
    t = await createTestApp();
    const now = t.clock.now();
    const category = await aCategory(t.db.prisma);
    const agent = await anAgent(t.db.prisma);
    agentSlug = agent.slug;
    // One report is low confidence, three agreeing recent ones medium, six high.
    for (const [confidence, reports] of [['low', 1], ['medium', 3], ['high', 6]] as const) {
      const merchant = await aMerchant(t.db.prisma, { categoryId: category.id, name: `Checkout shop ${confidence}`, slug: `checkout-${confidence}` });
      shops[confidence] = merchant;
      for (let i = 0; i < reports; i += 1) {
        await aReport(
          t.db.prisma,
          { merchantId: merchant.id, agentId: agent.id, status: 'APPROVED', outcome: 'WORKS', capabilityResults: THROUGH_CHECKOUT, testedAt: now },
          now,
        );
      }
    }
  });
  afterAll(() => t.close());

  const summaryOf = async (slug: string): Promise<Summary> => {
    const res = await request(t.app).get(`/api/v1/merchants/${slug}`).expect(200);
    return (res.body.data.agents as Summary[]).find((a) => a.agent.slug === agentSlug)!;
  };

  it('one approved report through checkout: a low-confidence label without "reliably" in the API', async () => {
    const summary = await summaryOf(shops.low.slug);
    expect(summary).toMatchObject({ status: 'supported', scoreBand: 'checkout', confidence: 'low' });
    expect(summary.label).toBe('Supported; checkout worked so far');
    expect(summary.label).not.toMatch(/reliabl/i);

    const compact = await request(t.app).get(`/api/v1/merchants?view=compact&q=${shops.low.slug}`).expect(200);
    const [merchant] = compact.body.data as Array<{ slug: string; agents: Summary[] }>;
    expect(merchant!.slug).toBe(shops.low.slug);
    const compactSummary = merchant!.agents.find((a) => a.agent.slug === agentSlug)!;
    expect(compactSummary.label).toBe(summary.label);

    const standard = await request(t.app).get(`/api/v1/merchants?q=${shops.low.slug}`).expect(200);
    expect(standard.body.data[0].agents.find((a: Summary) => a.agent.slug === agentSlug).label).toBe(summary.label);
  });

  it('says "usually" at medium and "reliably" only at high confidence', async () => {
    const medium = await summaryOf(shops.medium.slug);
    expect(medium).toMatchObject({ status: 'supported', scoreBand: 'checkout', confidence: 'medium' });
    expect(medium.label).toBe('Supported; usually gets through checkout');
    const high = await summaryOf(shops.high.slug);
    expect(high).toMatchObject({ status: 'supported', scoreBand: 'checkout', confidence: 'high' });
    expect(high.label).toBe('Supported; reliably gets through checkout');
    for (const s of [medium, high]) expect(s.label).toBe(summaryLabel('supported', 'checkout', s.confidence));
  });

  it('shows the same words on the merchant page, never "reliably" at low confidence', async () => {
    const res = await request(t.app).get(`/merchants/${shops.low.slug}`).expect(200);
    expect(res.text).not.toMatch(/reliabl/i);
    const row = new RegExp(`<tr id="agent-${agentSlug}">([\\s\\S]*?)</tr>`).exec(res.text)![1]!;
    expect(row).toContain('Supported; checkout worked so far');
    const article = new RegExp(`<article class="agent-summary" aria-labelledby="summary-${agentSlug}">([\\s\\S]*?)</article>`).exec(res.text)![1]!;
    expect(article).toContain('Supported; checkout worked so far');
    expect(article).toContain(`<dt>How far it gets</dt><dd>${escapeHtml(scoreBandLabel('checkout', 'low'))}</dd>`);
    expect(article).toContain('<dt>Confidence</dt><dd><a href="/how-it-works#confidence">overall: low confidence</a></dd>');

    const high = await request(t.app).get(`/merchants/${shops.high.slug}`).expect(200);
    expect(high.text).toContain('Supported; reliably gets through checkout');
    expect(high.text).toContain(`<dt>How far it gets</dt><dd>${scoreBandLabel('checkout', 'high')}</dd>`);
  });

  it('shows the same label in the directory card, beside its confidence', async () => {
    const res = await request(t.app).get(`/?q=${shops.low.slug}`).expect(200);
    expect(res.text).toMatch(
      /Supported; checkout worked so far <span class="badge-detail">\(<a href="\/how-it-works#confidence">overall: low confidence<\/a>, 1 report\)<\/span>/,
    );
    expect(res.text).not.toMatch(/reliabl/i);
  });
});
