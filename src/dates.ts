// How dates are written, the same on every page and in every form: UTC, whatever the locale.
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

const toDate = (value: string | Date): Date => (typeof value === 'string' ? new Date(value.length === 10 ? `${value}T00:00:00Z` : value) : value);

/** "22 Nov 2026" for a date or an ISO date(-time); '' for none. */
export function formatDate(value: string | Date | null | undefined): string {
  if (!value) return '';
  const date = toDate(value);
  if (Number.isNaN(date.getTime())) return '';
  return `${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()}`;
}

/** "Nov 2026" for a date or an ISO date(-time); '' for none. */
export function formatMonth(value: string | Date | null | undefined): string {
  if (!value) return '';
  const date = toDate(value);
  if (Number.isNaN(date.getTime())) return '';
  return `${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()}`;
}

/** "2026-11-22": a <time> element's value, and what date inputs take. */
export function isoDay(value: string | Date | null | undefined): string {
  if (!value) return '';
  return (typeof value === 'string' ? value : value.toISOString()).slice(0, 10);
}

/** "2026-11-22 14:05 UTC". */
export const formatTime = (date: Date | null | undefined): string =>
  date ? `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC` : '';

/** The earliest day any input takes (before it, a date is a typo; PostgreSQL has no year 0). */
export const EARLIEST_DAY = '2000-01-01';

/**
 * The one date rule of every input (issue 36: a report's testedAt, the admin forms' days): a
 * real calendar day written YYYY-MM-DD; each input also takes none before EARLIEST_DAY. Each
 * edge words its refusals.
 */
export function isCalendarDay(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}
