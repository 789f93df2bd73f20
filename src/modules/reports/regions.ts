// Where a test ran from: a country, stored as its ISO 3166-1 alpha-2 code. People type
// "Germany", "germany", "de", "DEU" or "Deutschland"; each becomes "DE". Anything that is not a
// country (a city, a continent, "EU") is refused, by the form and the API alike (the submission
// schema applies this rule). The country list is i18n-iso-countries' (kept up to date with ISO
// 3166-1), with its English, German, French and Spanish names and their common short forms
// (UK, USA).
import { createRequire } from 'node:module';
import countries from 'i18n-iso-countries';

const require = createRequire(import.meta.url);
const NAME_LOCALES = ['en', 'de', 'fr', 'es'] as const;
for (const locale of NAME_LOCALES) countries.registerLocale(require(`i18n-iso-countries/langs/${locale}.json`) as countries.LocaleData);

/** The refusal, as the API words it (the form says it in its own words: form-messages.ts). */
export const REGION_MESSAGE = 'must be a country: its ISO 3166-1 alpha-2 code such as DE, or its name such as Germany';

/** Whether `code` is an ISO 3166-1 alpha-2 code as stored: two capital letters of an assigned country. */
export const isCountryCode = (code: string): boolean => /^[A-Z]{2}$/.test(code) && countries.isValid(code);

/** The alpha-2 code of what a person typed for a country (a code or a name), or null when it is not one. */
export function countryCode(input: string): string | null {
  const text = input.trim().replace(/\s+/g, ' ');
  if (!text || text.length > 100) return null;
  const upper = text.toUpperCase();
  if (/^[A-Z]{2}$/.test(upper) && countries.isValid(upper)) return upper;
  if (/^[A-Z]{3}$/.test(upper)) {
    const fromAlpha3 = countries.alpha3ToAlpha2(upper);
    if (fromAlpha3) return fromAlpha3;
  }
  for (const locale of NAME_LOCALES) {
    const code = countries.getSimpleAlpha2Code(text, locale) ?? countries.getAlpha2Code(text, locale);
    if (code) return code;
  }
  return null;
}
