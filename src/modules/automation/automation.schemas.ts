import { z } from 'zod';
import { intParam, slugParam, uuidParam } from '../directory/query.js';
import { QUEUE_LIMIT, RETEST_AFTER_DAYS } from '../reports/contribution-schema.js';

const limit = intParam(QUEUE_LIMIT.min, QUEUE_LIMIT.max).optional().default(QUEUE_LIMIT.default);
const after = z.string().min(1).max(500).optional().describe('nextCursor of the previous page.');

export const queueQuery = z.strictObject({
  limit,
  after,
  category: slugParam.optional().describe('Canonical category slug.'),
  retestAfterDays: intParam(RETEST_AFTER_DAYS.min, RETEST_AFTER_DAYS.max)
    .optional()
    .describe('Also merchants whose report by this account for this agent was last changed more than this many days ago.'),
});
export type QueueQuery = z.output<typeof queueQuery>;

export const ownReportsQuery = z.strictObject({
  limit,
  after,
  merchant: uuidParam.optional().describe('Merchant id.'),
});
export type OwnReportsQuery = z.output<typeof ownReportsQuery>;
