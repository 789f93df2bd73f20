// The one country validator (issue 36): where a test ran from (a report's region) and where a
// merchant delivers (its service regions: countries, or GLOBAL) are countries, stored as ISO
// 3166-1 alpha-2 codes. People type "Germany", "germany", "de", "DEU" or "Deutschland"; each
// becomes "DE". Anything that is not a country (a city, a continent, "EU") is refused, by the
// forms, the API and the directory's region filter alike: "EU" is ISO's reserved code, not an
// assigned country, and a shop listed for "EU" would never match a country's filter. The country list is i18n-iso-countries' (kept up to date with ISO
// 3166-1), with its English, German, French and Spanish names and their common short forms
// (UK, USA), plus the ISO short names and usual short forms those lists leave out (ALIASES).
//
// Codes are recognised only as typed in ASCII letters: upper-casing first turned "ß" into
// "SS" (South Sudan), "ﬁ" into "FI" and "ﬆ" into "ST". Names are compared in Unicode NFC with
// typographic apostrophes read as "'" ("Côte d’Ivoire").
import { createRequire } from 'node:module';
import countries from 'i18n-iso-countries';

const require = createRequire(import.meta.url);
const NAME_LOCALES = ['en', 'de', 'fr', 'es'] as const;
for (const locale of NAME_LOCALES) countries.registerLocale(require(`i18n-iso-countries/langs/${locale}.json`) as countries.LocaleData);

/** The refusal, as the API words it (the form says it in its own words: form-messages.ts). */
export const REGION_MESSAGE = 'must be a country: its ISO 3166-1 alpha-2 code such as DE, or its name such as Germany';

/**
 * Names of countries that the locale lists do not carry, lower case: ISO 3166-1's own short
 * names where they differ ("Viet Nam"), and short forms in everyday use. "Korea" alone is the
 * Republic of Korea, as in everyday English and in the ISO short name "Korea, Republic of".
 */
const ALIASES: ReadonlyMap<string, string> = new Map([
  ['viet nam', 'VN'],
  ['korea', 'KR'],
  ['republic of korea', 'KR'],
  ['syria', 'SY'],
  ['moldova', 'MD'],
  ['brunei', 'BN'],
  ['holy see', 'VA'],
  ['vatican', 'VA'],
  ['vatican city', 'VA'],
  ['burma', 'MM'],
  ['east timor', 'TL'],
  ['swaziland', 'SZ'],
  ['macedonia', 'MK'],
  ['dr congo', 'CD'],
  ['drc', 'CD'],
  ['czech republic', 'CZ'],
]);

/** Whether `code` is an ISO 3166-1 alpha-2 code as stored: two capital letters of an assigned country. */
export const isCountryCode = (code: string): boolean => /^[A-Z]{2}$/.test(code) && countries.isValid(code);

/** Apostrophes people and keyboards type for "'" (right and left single quotes, modifier letter, prime). */
const APOSTROPHES = /[\u2018\u2019\u02BC\u2032\u0060\u00B4]/g;

/** The alpha-2 code of what a person typed for a country (a code or a name), or null when it is not one. */
export function countryCode(input: string): string | null {
  const text = input.normalize('NFC').replace(APOSTROPHES, "'").trim().replace(/\s+/g, ' ');
  if (!text || text.length > 100) return null;
  if (/^[A-Za-z]{2}$/.test(text) && countries.isValid(text.toUpperCase())) return text.toUpperCase();
  if (/^[A-Za-z]{3}$/.test(text)) {
    const fromAlpha3 = countries.alpha3ToAlpha2(text.toUpperCase());
    if (fromAlpha3) return fromAlpha3;
  }
  const alias = ALIASES.get(text.toLowerCase());
  if (alias) return alias;
  for (const locale of NAME_LOCALES) {
    const code = countries.getSimpleAlpha2Code(text, locale) ?? countries.getAlpha2Code(text, locale);
    if (code) return code;
  }
  return null;
}

/** The service region meaning everywhere. */
export const GLOBAL_REGION = 'GLOBAL';

/** Whether `code` is a service region as stored: an assigned country's alpha-2 code, or GLOBAL. */
export const isServiceRegion = (code: string): boolean => code === GLOBAL_REGION || isCountryCode(code);

/** The stored service region of what a person typed (a country's code or name, or "global"), or null. */
export function serviceRegion(input: string): string | null {
  return input.trim().toUpperCase() === GLOBAL_REGION ? GLOBAL_REGION : countryCode(input);
}
