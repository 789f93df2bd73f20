import { z } from 'zod';
import { OUTCOMES, STAGES } from '../aggregation/constants.js';
import { intParam, pageParam, slugParam } from '../directory/query.js';
import { storable } from '../../text.js';

export const MERCHANT_SORTS = ['recent', 'popular', 'name', 'rating'] as const;
export const MERCHANT_VIEWS = ['standard', 'compact'] as const;

const merchantFilters = {
  q: z.string().trim().min(1, 'must not be empty').max(200).superRefine(storable()).optional().describe('Case-insensitive text in the name, slug or website.'),
  category: z.string().trim().min(1, 'must not be empty').max(100).superRefine(storable()).optional()
    .describe('Canonical category slug, or a category name as originally given (legacy names too).'),
  outcome: z.enum(OUTCOMES).optional().describe('Merchants with an approved report of this overall outcome.'),
  region: z
    .string()
    .regex(/^([A-Za-z]{2}|GLOBAL|global)$/, 'must be a two-letter country code or GLOBAL')
    .transform((s) => s.toUpperCase())
    .optional()
    .describe('Merchants known to serve this region (ISO 3166-1 alpha-2), including those serving GLOBAL.'),
  stage: z.enum(STAGES).optional().describe('Merchants with an approved report whose furthest stage is exactly this.'),
  days: intParam(1, 3650).optional().describe('Merchants with an approved report made in the last N days.'),
  minReports: intParam(1, 100_000).optional().describe('Merchants with at least N approved reports (for the agent, when given).'),
  sort: z.enum(MERCHANT_SORTS).optional().default('recent')
    .describe('recent (newest report first), popular (most reports), name, rating (needs agent). Sponsored listings come first.'),
  page: pageParam,
  view: z.enum(MERCHANT_VIEWS).optional().default('standard')
    .describe('standard: every field of each per-agent summary, with the newest observation and evidence reference per task (the merchant URL has up to five). compact: status and confidence per agent and task only.'),
};

export const merchantQuery = z
  .strictObject({ ...merchantFilters, agent: slugParam.optional().describe('Agent slug.') })
  .refine((query) => query.sort !== 'rating' || query.agent !== undefined, {
    path: ['sort'],
    message: 'sort=rating needs the agent parameter',
  });

/** /agents/:slug/merchants takes the agent from the path. */
export const agentMerchantQuery = z.strictObject(merchantFilters);

export type MerchantQuery = z.output<typeof merchantQuery>;
