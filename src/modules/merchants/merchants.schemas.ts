import { z } from 'zod';
import { CAPABILITY_STATUSES, CONFIDENCE_LEVELS, FUNNEL_TASKS, OUTCOMES, STAGES, TASKS } from '../aggregation/constants.js';
import { independentParam, intParam, pageParam, slugParam } from '../directory/query.js';
import { invalidInput } from '../../errors.js';
import { storable } from '../../text.js';
import { isServiceRegion } from '../../countries.js';

export const MERCHANT_SORTS = ['recent', 'popular', 'name', 'rating', 'reach'] as const;
const MERCHANT_VIEWS = ['standard', 'compact'] as const;

const LADDER = FUNNEL_TASKS.join(', ');
const STATUS_LIST = new RegExp(`^(${CAPABILITY_STATUSES.join('|')})(,(${CAPABILITY_STATUSES.join('|')}))*$`);

/**
 * The rules that name why a combination of filters is refused, by id. A refusal carries the id
 * (FieldError.rule) beside these words, and the edges that word a rule their own way (MCP, the
 * pages) match on the id.
 */
export const FILTER_RULES = {
  reachNeedsAgent: 'reaches needs an agent: a reach is one agent\'s (add agent=<slug>, or use /api/v1/agents/{slug}/merchants)',
  confidenceNeedsAgent:
    'minConfidence needs an agent: it is the confidence of one agent\'s reach (add agent=<slug>, or use /api/v1/agents/{slug}/merchants)',
  taskNeedsAgent: 'task and taskStatus need an agent: a task status is one agent\'s (add agent=<slug>, or use /api/v1/agents/{slug}/merchants)',
  taskNeedsStatus: 'task needs taskStatus: say which statuses to match (e.g. task=CART&taskStatus=blocked,unsupported)',
  statusNeedsTask: 'taskStatus needs task: say which task the statuses are of (e.g. task=CART&taskStatus=blocked,unsupported)',
  loginOffLadder:
    `LOGIN is not on the reach ladder (${LADDER}): a guest checkout needs no login. Filter on its status with task=LOGIN&taskStatus=…`,
  notOnLadder: `must be a step of the reach ladder: ${LADDER}`,
  sortReachNeedsAgent: 'sort=reach needs the agent parameter',
  sortRatingNeedsAgent: 'sort=rating needs the agent parameter',
} as const;

export type FilterRule = keyof typeof FILTER_RULES;

/** A zod issue refusing a filter by its rule: the words for the API, the id for the edges. */
const ruleIssue = (rule: FilterRule, path: string) => ({ code: 'custom' as const, path: [path], message: FILTER_RULES[rule], params: { rule } });

/** The same refusal, for a caller that skipped the schemas (the service checks again). */
export const filterRefusal = (rule: FilterRule, parameter: string) => invalidInput([{ parameter, detail: FILTER_RULES[rule], rule }], 'query');

const merchantFilters = {
  q: z.string().trim().min(1, 'must not be empty').max(200).superRefine(storable()).optional().describe('Case-insensitive text in the name, slug or website.'),
  category: z.string().trim().min(1, 'must not be empty').max(100).superRefine(storable()).optional()
    .describe('Canonical category slug, or a category name as originally given (legacy names too).'),
  outcome: z.enum(OUTCOMES).optional().describe('Merchants with an approved report of this overall outcome.'),
  region: z
    .string()
    .regex(/^([A-Za-z]{2}|GLOBAL|global)$/, 'must be a two-letter country code or GLOBAL')
    .transform((s) => s.toUpperCase())
    .refine(isServiceRegion, 'must be a two-letter country code or GLOBAL')
    .optional()
    .describe('Merchants known to serve this region (ISO 3166-1 alpha-2), including those serving GLOBAL.'),
  stage: z.enum(STAGES).optional().describe('Merchants with an approved report whose furthest stage is exactly this.'),
  days: intParam(1, 3650).optional().describe('Merchants with an approved report made in the last N days.'),
  minReports: intParam(1, 100_000).optional().describe('Merchants with at least N approved reports (for the agent, when given).'),
  // A step off the ladder is refused by a rule of its own (LOGIN gets the way to its status),
  // so the check is a refinement; the metadata documents the ladder as the enum it is.
  reaches: z
    .string()
    .superRefine((value, ctx) => {
      if (!(FUNNEL_TASKS as readonly string[]).includes(value)) ctx.addIssue(ruleIssue(value === 'LOGIN' ? 'loginOffLadder' : 'notOnLadder', 'reaches'));
    })
    .pipe(z.enum(FUNNEL_TASKS))
    .meta({ enum: [...FUNNEL_TASKS] })
    .optional()
    .describe(
      `Needs an agent. Merchants where the agent's reach (the furthest of ${LADDER} it is known to get through) is this step or a later one. ` +
        'LOGIN is not on this ladder: use task and taskStatus.',
    ),
  task: z
    .enum(TASKS)
    .optional()
    .describe('Needs an agent and taskStatus. Merchants where the agent\'s status of this task (`capabilities.<task>.status`) is one of taskStatus.'),
  taskStatus: z
    .string()
    .regex(STATUS_LIST, `must be one or more of ${CAPABILITY_STATUSES.join(', ')}, separated by commas`)
    .transform((text) => [...new Set(text.split(','))] as Array<(typeof CAPABILITY_STATUSES)[number]>)
    .optional()
    .describe(
      `Needs an agent and task. The statuses to keep, comma-separated (${CAPABILITY_STATUSES.join(', ')}), e.g. blocked,unsupported.`,
    ),
  minConfidence: z
    .enum(CONFIDENCE_LEVELS)
    .optional()
    .describe('Needs an agent. Merchants where the agent\'s `reach.confidence` is at least this: low < medium < high.'),
  sort: z
    .enum(MERCHANT_SORTS)
    .optional()
    .default('recent')
    .describe(
      'recent (newest report first), popular (most reports), name, reach (needs agent: furthest first, then surest, then newest), ' +
        'rating (needs agent: an older score of how reliably tasks work, not how far).',
    ),
  page: pageParam,
  independent: independentParam,
  view: z.enum(MERCHANT_VIEWS).optional().default('standard')
    .describe('standard: each per-agent summary whole, with its newest evidence per task. compact: status and confidence per agent and task only.'),
};

type Filters = {
  agent?: string;
  reaches?: unknown;
  task?: unknown;
  taskStatus?: unknown;
  minConfidence?: unknown;
  sort: (typeof MERCHANT_SORTS)[number];
};

/**
 * The combinations a query may not make, each refused naming its rule. `agentInPath`: the
 * agent-scoped path always has an agent.
 */
const combinationRules = (agentInPath: boolean) => (query: Filters, ctx: z.RefinementCtx) => {
  const refuse = (path: string, rule: FilterRule) => ctx.addIssue(ruleIssue(rule, path));
  const agent = agentInPath || query.agent !== undefined;
  if (query.task !== undefined && query.taskStatus === undefined) refuse('taskStatus', 'taskNeedsStatus');
  if (query.taskStatus !== undefined && query.task === undefined) refuse('task', 'statusNeedsTask');
  if (agent) return;
  if (query.reaches !== undefined) refuse('reaches', 'reachNeedsAgent');
  if (query.minConfidence !== undefined) refuse('minConfidence', 'confidenceNeedsAgent');
  if (query.task !== undefined || query.taskStatus !== undefined) refuse(query.task !== undefined ? 'task' : 'taskStatus', 'taskNeedsAgent');
  if (query.sort === 'rating') refuse('sort', 'sortRatingNeedsAgent');
  if (query.sort === 'reach') refuse('sort', 'sortReachNeedsAgent');
};

export const merchantQuery = z
  .strictObject({ ...merchantFilters, agent: slugParam.optional().describe('Agent slug.') })
  .superRefine(combinationRules(false));

/** /agents/:slug/merchants takes the agent from the path. */
export const agentMerchantQuery = z.strictObject(merchantFilters).superRefine(combinationRules(true));

export type MerchantQuery = z.output<typeof merchantQuery>;

/** GET /merchants/{slugOrId}: which reports its summaries count (other parameters are ignored, as they always were). */
export const merchantDetailQuery = z.object({ independent: independentParam });
export type MerchantDetailQuery = z.output<typeof merchantDetailQuery>;
