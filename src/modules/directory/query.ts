// Shared pieces of the public query schemas.
import { z } from 'zod';
import { SLUG_PATTERN, UUID_PATTERN } from '../../text.js';
import { MAX_PAGE } from './notice.js';

/** An integer query parameter within bounds; "1.5", "1e3", "" and "abc" are refused. */
export const intParam = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`))
    // Documented as the integer it is, not as the digit string it arrives as.
    .meta({ type: 'integer', minimum: min, maximum: max, pattern: undefined });

export const pageParam = intParam(1, MAX_PAGE).optional().default(1);

export const slugParam = z.string().min(1).max(100).regex(SLUG_PATTERN, 'must be a slug (lowercase letters, digits and hyphens)');

export const uuidParam = z.string().regex(UUID_PATTERN, 'must be an id (a UUID)').transform((s) => s.toLowerCase());

/** Which reports statuses and lists count (issue 37): the independent ones (default), or all, self-reported ones included. */
const INDEPENDENT_VALUES = ['only', 'all'] as const;
export type Independent = (typeof INDEPENDENT_VALUES)[number];

export const independentParam = z
  .enum(INDEPENDENT_VALUES)
  .optional()
  .default('only')
  .describe(
    'only (the default): statuses, reach, scores, verdicts and report lists count independent reports, naming the self-reported ones ' +
      '(by a verified owner of the shop or vendor of the agent) beside them. all: every approved report counts. Filters and sorts always read independent reports.',
  );
