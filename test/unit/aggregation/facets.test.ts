import { describe, expect, it } from 'vitest';
import { facetToken, reportFacets } from '../../../src/modules/aggregation/facets.js';

describe('report facets', () => {
  it('name an outcome, a stage, or both on one report', () => {
    expect(facetToken('WORKS', undefined)).toBe('WORKS');
    expect(facetToken(undefined, 'CART')).toBe('@CART');
    expect(facetToken('BLOCKED', 'CHECKOUT')).toBe('BLOCKED@CHECKOUT');
    expect(facetToken(undefined, undefined)).toBeNull();
  });

  it('keep each token with its newest report, whatever the order of the reports', () => {
    const reports = [
      { outcome: 'WORKS' as const, stage: 'CART' as const, createdAt: new Date('2026-10-01T00:00:00Z') },
      { outcome: 'WORKS' as const, stage: null, createdAt: new Date('2026-11-01T08:30:00Z') },
      { outcome: 'BLOCKED' as const, stage: 'CART' as const, createdAt: new Date('2026-09-15T12:00:00Z') },
    ];
    const expected = {
      '@CART': '2026-10-01T00:00:00.000Z',
      BLOCKED: '2026-09-15T12:00:00.000Z',
      'BLOCKED@CART': '2026-09-15T12:00:00.000Z',
      WORKS: '2026-11-01T08:30:00.000Z',
      'WORKS@CART': '2026-10-01T00:00:00.000Z',
    };
    expect(reportFacets(reports)).toEqual(expected);
    expect(JSON.stringify(reportFacets([...reports].reverse()))).toBe(JSON.stringify(reportFacets(reports)));
    expect(reportFacets([])).toEqual({});
  });
});
