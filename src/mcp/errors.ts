// A refusal in the MCP channel's own terms. The services word a few refusals for the HTTP API
// (the If-Match header, PUT and the API's paths, query-string syntax such as `retest=only`); an
// MCP client sends none of those, so the tool error names the tool and its arguments instead. Everything else
// of the problem (type, status, title, errors, extension members) stays as the HTTP API has it.
import { FUNNEL_TASKS } from '../modules/aggregation/constants.js';
import { FILTER_RULES, type FilterRule } from '../modules/merchants/merchants.schemas.js';
import type { FieldError } from '../errors.js';
import type { ProblemInit } from '../web/problem.js';

const LADDER = FUNNEL_TASKS.join(', ');
const OR_AGENT_TOOL = 'pass agent (a slug from list_agents), or use list_agent_merchants';

/** Every combination rule of the merchant filters, worded with arguments and tools (a new rule must be added here). */
export const MCP_FILTER_RULES: Readonly<Record<FilterRule, string>> = {
  reachNeedsAgent: `reaches needs an agent: a reach is one agent's (${OR_AGENT_TOOL})`,
  confidenceNeedsAgent: `minConfidence needs an agent: it is the confidence of one agent's reach (${OR_AGENT_TOOL})`,
  taskNeedsAgent: `task and taskStatus need an agent: a task status is one agent's (${OR_AGENT_TOOL})`,
  taskNeedsStatus: 'task needs taskStatus: say which statuses to match (e.g. task "CART" with taskStatus "blocked,unsupported")',
  statusNeedsTask: 'taskStatus needs task: say which task the statuses are of (e.g. task "CART" with taskStatus "blocked,unsupported")',
  loginOffLadder: `LOGIN is not on the reach ladder (${LADDER}): a guest checkout needs no login. Filter on its status with task "LOGIN" and taskStatus instead`,
  notOnLadder: FILTER_RULES.notOnLadder,
  sortReachNeedsAgent: `sort "reach" needs an agent (${OR_AGENT_TOOL})`,
  sortRatingNeedsAgent: `sort "rating" needs an agent (${OR_AGENT_TOOL})`,
};
const isFilterRule = (rule: string | undefined): rule is FilterRule => rule !== undefined && Object.hasOwn(MCP_FILTER_RULES, rule);

/** The HTTP header that carries what update_report's `version` argument carries. */
const ARGUMENT_OF_HEADER: Record<string, string> = { 'If-Match': 'version' };

/** Query-string syntax (`retest=only`) said of arguments: `retest "only"`. */
const asArguments = (text: string) => text.replace(/\b([a-zA-Z]+)=([\w,.<>…-]+)/g, '$1 "$2"');

function fieldError(error: FieldError): FieldError {
  const parameter = error.parameter && (ARGUMENT_OF_HEADER[error.parameter] ?? error.parameter);
  const detail = isFilterRule(error.rule) ? MCP_FILTER_RULES[error.rule] : asArguments(error.detail);
  return { ...error, ...(parameter ? { parameter } : {}), detail };
}

/** The problem of a refused tool call, worded for MCP (see above). */
export function mcpProblem(problem: ProblemInit): ProblemInit {
  const extensions = problem.extensions ?? {};
  const errors = problem.errors?.map(fieldError);
  const renamed = problem.errors?.some((error) => error.parameter !== undefined && error.parameter in ARGUMENT_OF_HEADER);
  const worded: ProblemInit = {
    ...problem,
    ...(problem.detail ? { detail: asArguments(problem.detail) } : {}),
    ...(errors ? { errors } : {}),
    ...(renamed ? { detail: `Invalid argument${errors!.length > 1 ? 's' : ''}: ${errors!.map((e) => e.parameter ?? e.pointer).join(', ')}.` } : {}),
  };
  switch (problem.code) {
    case 'if-match-required':
      return {
        ...worded,
        title: 'Version required',
        detail:
          "update_report changes a report only at a known version: pass version, the report's updatedAt from your latest read " +
          '(get_my_report or list_my_reports). Content identical to the stored report needs none.',
        errors: [{ parameter: 'version', detail: 'is required to change a report' }],
      };
    case 'stale-version':
      return {
        ...worded,
        detail:
          `version does not name the report's current version (its updatedAt is now ${String(extensions.updatedAt)}): it changed since your read. ` +
          'Read it again with get_my_report, re-apply your change and call update_report with that updatedAt as version.',
      };
    case 'duplicate-report': {
      // The HTTP API's address for a PUT means nothing here: update_report is the way.
      const { updateUrl: _updateUrl, ...rest } = extensions;
      return {
        ...worded,
        detail:
          'This account already reported this merchant for this agent, with different content; submit_report replaces nothing. ' +
          `Change that report with update_report: id ${String(extensions.reportId)}, version ${String(extensions.updatedAt)} ` +
          '(get_my_report shows it as stored).',
        extensions: rest,
      };
    }
    default:
      return worded;
  }
}
