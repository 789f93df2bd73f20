import { describe, expect, it } from 'vitest';
import {
  CAPABILITY_STATUS_LABELS,
  CAPABILITY_STATUSES,
  CONFIDENCE_LEVELS,
  methodology,
  SCORE_BAND_LABELS_BY_CONFIDENCE,
  SCORE_BANDS,
  scoreBandLabel,
  summaryLabel,
  type Confidence,
} from '../../../src/modules/aggregation/constants.js';

const RELIABLE = /reliabl/i;
/** Words that may only come with high confidence: each states an established, repeatable result. */
const STRONG = /reliabl|always|guarantee/i;
const TENTATIVE: Readonly<Record<Confidence, RegExp>> = {
  high: /^(?!.*(so far|yet)).*$/i,
  medium: /usually|consistently/i,
  low: /so far|yet/i,
};
const combinations = SCORE_BANDS.flatMap((band) => CONFIDENCE_LEVELS.map((confidence) => [band, confidence] as const));

describe('score band labels by confidence', () => {
  it.each(combinations)('%s at %s confidence says "reliably" only when the confidence is high', (band, confidence) => {
    const label = scoreBandLabel(band, confidence);
    expect(label).toBe(SCORE_BAND_LABELS_BY_CONFIDENCE[band][confidence]);
    expect(RELIABLE.test(label)).toBe(confidence === 'high');
    if (confidence !== 'high') expect(label).not.toMatch(STRONG);
    expect(label).toMatch(TENTATIVE[confidence]);
    expect(label.length).toBeLessThanOrEqual(40);
  });

  it.each(SCORE_BANDS)('%s reads differently at each confidence', (band) => {
    const labels = CONFIDENCE_LEVELS.map((confidence) => scoreBandLabel(band, confidence));
    expect(new Set(labels).size).toBe(CONFIDENCE_LEVELS.length);
  });

  it('gives every band its own words at each confidence', () => {
    for (const confidence of CONFIDENCE_LEVELS) {
      const labels = SCORE_BANDS.map((band) => scoreBandLabel(band, confidence));
      expect(new Set(labels).size).toBe(SCORE_BANDS.length);
    }
  });

  it('phrases the "none" band by confidence: nothing confirmed yet at low confidence', () => {
    expect(scoreBandLabel('none', 'low')).toBe('No task confirmed yet');
    expect(scoreBandLabel('none', 'medium')).not.toMatch(RELIABLE);
    expect(scoreBandLabel('none', 'high')).toMatch(RELIABLE);
  });
});

describe('summary labels', () => {
  const tested = CAPABILITY_STATUSES.filter((status) => status !== 'untested');

  it('are the status, then the band phrase of the confidence', () => {
    expect(summaryLabel('supported', 'checkout', 'high')).toBe('Supported; reliably gets through checkout');
    expect(summaryLabel('supported', 'checkout', 'medium')).toBe('Supported; usually gets through checkout');
    expect(summaryLabel('supported', 'checkout', 'low')).toBe('Supported; checkout worked so far');
    expect(summaryLabel('blocked', 'none', 'low')).toBe('Blocked; no task confirmed yet');
  });

  it('never claim "reliably" below high confidence, for any status and band, and always show doubt at low confidence', () => {
    for (const status of tested) {
      for (const [band, confidence] of combinations) {
        const label = summaryLabel(status, band, confidence);
        expect(label.startsWith(`${CAPABILITY_STATUS_LABELS[status]}; `)).toBe(true);
        expect(label.toLowerCase()).toContain(scoreBandLabel(band, confidence).toLowerCase());
        expect(RELIABLE.test(label)).toBe(confidence === 'high');
        if (confidence === 'low') expect(label).toMatch(/so far|yet/);
      }
    }
  });

  it('read "Not tested" for an untested agent, whatever the band and confidence', () => {
    for (const [band, confidence] of combinations) expect(summaryLabel('untested', band, confidence)).toBe('Not tested');
  });
});

describe('the methodology page', () => {
  it('prints the band × confidence table from the same words the labels use', () => {
    const m = methodology();
    expect(m.scoreBands.map((b) => b.key)).toEqual([...SCORE_BANDS]);
    for (const row of m.scoreBands) {
      for (const confidence of CONFIDENCE_LEVELS) expect(row.labels[confidence]).toBe(scoreBandLabel(row.key, confidence));
    }
    expect(m.bandConfidences.map((c) => c.confidence)).toEqual(['high', 'medium', 'low']);
  });
});
