// Summary labels are the verdict's sentence: how far the agent gets, in words that claim no more
// than the evidence (the past tense on one report, "usually" from three at medium confidence, the
// present from three at high), in the API (full, compact and agent-scoped views) and on the pages
// alike; the colour is by how far only: one report through checkout is as green as six.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Confidence } from '../../src/modules/aggregation/constants.js';
import { COMPACT_VERDICT_FIELDS } from '../../src/modules/aggregation/verdict.js';
import { aCategory, aMerchant, anAgent, aReport } from '../factories/index.js';
import { createTestApp, type TestApp } from '../setup/app.js';

interface Summary {
  agent: { slug: string };
  label: string;
  status: string;
  scoreBand: string;
  confidence: Confidence;
  reach: { tone: string; [field: string]: unknown };
  verdict: { colour: string; sentence: string; evidenceText: string; [field: string]: unknown };
}

const THROUGH_CHECKOUT = { ACCESS: 'WORKS', SEARCH: 'WORKS', DETAILS: 'WORKS', CART: 'WORKS', CHECKOUT: 'WORKS' } as const;
const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&#34;').replace(/'/g, '&#39;');

describe('labels: the verdict\'s sentence, by its evidence', () => {
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

  it('one approved report through checkout: what it saw, in the past tense, green, the same in every view of the API', async () => {
    const summary = await summaryOf(shops.low.slug);
    expect(summary).toMatchObject({ status: 'supported', scoreBand: 'checkout', confidence: 'low' });
    expect(summary.label).toBe('Got through checkout');
    expect(summary.verdict).toMatchObject({ sentence: summary.label, colour: 'green', confidence: 'low', evidenceText: '1 report · last tested Nov 2026' });
    expect(summary.reach).toMatchObject({ task: 'CHECKOUT', level: 5, stop: null, untestedNext: 'PURCHASE', confidence: 'low', label: summary.label, tone: 'green' });

    const compact = await request(t.app).get(`/api/v1/merchants?view=compact&q=${shops.low.slug}`).expect(200);
    const [merchant] = compact.body.data as Array<{ slug: string; agents: Summary[] }>;
    expect(merchant!.slug).toBe(shops.low.slug);
    const compactSummary = merchant!.agents.find((a) => a.agent.slug === agentSlug)!;
    expect(compactSummary.label).toBe(summary.label);
    expect(compactSummary.reach).toEqual(summary.reach);
    // The compact view selects the verdict's fields, the same values.
    expect(summary.verdict).toMatchObject(compactSummary.verdict);
    expect(Object.keys(compactSummary.verdict)).toEqual([...COMPACT_VERDICT_FIELDS]);

    const standard = await request(t.app).get(`/api/v1/merchants?q=${shops.low.slug}`).expect(200);
    expect(standard.body.data[0].agents.find((a: Summary) => a.agent.slug === agentSlug).reach).toEqual(summary.reach);
    const scoped = await request(t.app).get(`/api/v1/agents/${agentSlug}/merchants?q=${shops.low.slug}`).expect(200);
    expect(scoped.body.data[0].agents[0].reach).toEqual(summary.reach);
  });

  it('says "usually" from three reports at medium confidence and speaks in the present from six at high, green all the same', async () => {
    const medium = await summaryOf(shops.medium.slug);
    expect(medium).toMatchObject({ label: 'Usually gets through checkout' });
    expect(medium.verdict).toMatchObject({ confidence: 'medium', colour: 'green', evidenceText: '3 reports · last tested Nov 2026' });
    const high = await summaryOf(shops.high.slug);
    expect(high).toMatchObject({ label: 'Gets through checkout' });
    expect(high.verdict).toMatchObject({ confidence: 'high', colour: 'green', evidenceText: '6 reports · last tested Nov 2026' });
  });

  it('shows the same words on the merchant page and the directory card', async () => {
    for (const confidence of ['low', 'medium', 'high'] as const) {
      const { label } = await summaryOf(shops[confidence].slug);
      const page = await request(t.app).get(`/merchants/${shops[confidence].slug}`).expect(200);
      expect(page.text).toContain(escapeHtml(label));
      const card = await request(t.app).get(`/?q=${shops[confidence].slug}`).expect(200);
      expect(card.text).toContain(escapeHtml(label));
    }
  });
});
