import { z } from 'zod';
import { OUTCOMES } from '../aggregation/constants.js';
import { independentParam, pageParam, slugParam, uuidParam } from '../directory/query.js';

export const reportQuery = z.strictObject({
  agent: slugParam.optional().describe('Agent slug.'),
  merchant: uuidParam.optional().describe('Merchant id.'),
  outcome: z.enum(OUTCOMES).optional(),
  independent: independentParam,
  page: pageParam,
});

export type ReportQuery = z.output<typeof reportQuery>;
