// The one date rule of every input (issue 36): a real calendar day written YYYY-MM-DD.
import { describe, expect, it } from 'vitest';
import { EARLIEST_DAY, isCalendarDay } from '../../src/dates.js';

describe('isCalendarDay', () => {
  it('takes real days written YYYY-MM-DD, leap days included', () => {
    for (const day of ['2026-11-27', '2024-02-29', '2000-01-01', EARLIEST_DAY]) expect(isCalendarDay(day), day).toBe(true);
  });
  it('refuses days that do not exist and other spellings', () => {
    for (const day of ['2026-02-29', '2026-13-01', '2026-04-31', '2026-1-5', '27.11.2026', '2026-11-27T00:00:00Z', '', '+02026-01-01']) {
      expect(isCalendarDay(day), day).toBe(false);
    }
  });
});
