// The region rule's edges (issue 33): a letter that upper-cases into two ASCII letters is not a
// country code, and the names people and agents actually write (the ISO short names, common
// short forms, typographic apostrophes) are countries.
import { describe, expect, it } from 'vitest';
import { countryCode, isServiceRegion, serviceRegion } from '../../src/countries.js';

describe('countryCode', () => {
  it('refuses letters whose upper case spells a code: ß is not South Sudan, ﬁ not Finland, ﬆ not São Tomé', () => {
    for (const typed of ['ß', 'ẞ', 'ﬁ', 'ﬆ', 'ﬀ', 'ﬃ', 'ǆ', 'ı', 'ﬅ']) expect(countryCode(typed), typed).toBeNull();
    // Two or three letters count as a code only when they are ASCII letters as typed.
    expect(countryCode('ss')).toBe('SS');
    expect(countryCode('fi')).toBe('FI');
    expect(countryCode('deu')).toBe('DE');
  });

  it('takes the ISO short names and the usual short forms that the name lists leave out', () => {
    for (const [typed, code] of [
      ['Viet Nam', 'VN'],
      ['viet nam', 'VN'],
      ['Korea', 'KR'],
      ['Korea, Republic of', 'KR'],
      ['Republic of Korea', 'KR'],
      ['Syria', 'SY'],
      ['Moldova', 'MD'],
      ['Brunei', 'BN'],
      ['Holy See', 'VA'],
      ['Vatican City', 'VA'],
      ['Burma', 'MM'],
      ['East Timor', 'TL'],
      ['Swaziland', 'SZ'],
      ['Macedonia', 'MK'],
      ['DR Congo', 'CD'],
      ['Czech Republic', 'CZ'],
      ['UK', 'GB'],
      ['uk', 'GB'],
    ] as const) {
      expect(countryCode(typed), typed).toBe(code);
    }
  });

  it('reads typographic apostrophes and composed or decomposed accents alike', () => {
    for (const typed of ['Côte d’Ivoire', "Côte d'Ivoire", 'Côte dʼIvoire', 'Côte d‘Ivoire', 'Co\u0302te d’Ivoire', 'COTE D’IVOIRE']) {
      expect(countryCode(typed), typed).toBe('CI');
    }
  });

  it('still refuses what is not a country', () => {
    for (const typed of ['Atlantis', 'EU', 'Europe', 'Berlin', 'XX', '', 'Korea Town', 'Viet']) expect(countryCode(typed), typed).toBeNull();
  });

  it('reads a service region as a country or GLOBAL, the same rule for merchants as for reports; EU is no country', () => {
    for (const [typed, code] of [['de', 'DE'], ['Germany', 'DE'], ['global', 'GLOBAL'], [' GLOBAL ', 'GLOBAL'], ['FRA', 'FR']] as const) {
      expect(serviceRegion(typed), typed).toBe(code);
    }
    for (const typed of ['EU', 'eu', 'Europe', 'XX', 'worldwide', '']) expect(serviceRegion(typed), typed).toBeNull();
    expect(['DE', 'GLOBAL'].every(isServiceRegion)).toBe(true);
    expect(['EU', 'XX', 'de', 'Global'].some(isServiceRegion)).toBe(false);
  });
});
