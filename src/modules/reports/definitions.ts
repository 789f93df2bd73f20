// What every key of a report means, and the rules for filling a report in: the one source of
// truth that the contribution schema (GET /api/v1/contribution-schema), the OpenAPI document's
// field descriptions (through submission.schema.ts), the agent guide (/agent-guide) and the MCP
// tool descriptions and resource print verbatim. Change a sentence here and every surface moves.
//
// The rules follow what the aggregation already assumes (aggregation/observations.ts, reach.ts):
// - `stage` is the furthest stage reached: reaching a stage does not show that its step worked
//   (TASK_COMPLETED_FROM_STAGE needs a stage strictly past a task's last step), so for a blocked
//   run it is the step where the agent was blocked, not the last one that worked.
// - One `failureReason` per report, which the reach attributes to the report's failing tasks and
//   names where an agent stops; ties there go to the reason listed first, and so do they here.
import {
  FAILURE_REASONS,
  FAILURE_REASON_LABELS,
  OUTCOMES,
  OUTCOME_LABELS,
  STAGES,
  STAGE_LABELS,
  TASK_COMPLETED_FROM_STAGE,
  TASKS,
  TASK_LABELS,
  type FailureReasonKey,
  type OutcomeKey,
  type StageKey,
  type TaskKey,
} from '../aggregation/constants.js';

/** One key's meaning: a one-sentence definition, and an example of a run where it applies. */
export interface KeyDefinition {
  definition: string;
  example?: string;
}

/** A key with its label (spec 2.2), definition and example, as every surface lists it. */
export interface DefinedKey<K extends string = string> extends KeyDefinition {
  key: K;
  label: string;
}

export const TASK_DEFINITIONS: Readonly<Record<TaskKey, KeyDefinition>> = {
  ACCESS: {
    definition: "The agent opens the merchant's website and gets usable pages, not a block page, a check it cannot pass or an error.",
    example: 'BLOCKED: the home page answers "Access denied: automated traffic" (stage ACCESS, failureReason EXPLICIT_BLOCK).',
  },
  SEARCH: {
    definition: 'The agent finds products or content by searching or browsing categories and can read the result lists.',
    example: 'BLOCKED: every search shows a CAPTCHA before the results (stage BROWSE, failureReason CAPTCHA).',
  },
  DETAILS: {
    definition: 'The agent opens a product or service page and reads its price, options and availability.',
    example: 'DOES_NOT_WORK: the page draws its price and options in a canvas the agent cannot read (stage DETAILS, failureReason INTERFACE).',
  },
  LOGIN: {
    definition:
      "The agent signs in to an account on the merchant's site with credentials its person provided; leave LOGIN out when the run needed no sign-in (a guest checkout).",
    example: 'BLOCKED: sign-in demands a code sent to the person\'s phone and the run ends at checkout (stage CHECKOUT, failureReason AUTHENTICATION).',
  },
  CART: {
    definition: 'The agent puts the chosen item, with its options and quantity, into the cart and the cart shows it.',
    example: 'DOES_NOT_WORK: the "Add to cart" button does nothing when the agent presses it (stage CART, failureReason INTERFACE).',
  },
  CHECKOUT: {
    definition:
      'The agent gets through checkout (contact, shipping and billing details, delivery options) up to payment approval; stopping there on purpose, without paying, is WORKS.',
    example: 'BLOCKED: checkout requires creating an account behind a CAPTCHA (stage CHECKOUT, failureReason CAPTCHA).',
  },
  PURCHASE: {
    definition:
      'The agent approves the payment and the merchant confirms the order; give PURCHASE only when a payment was actually attempted.',
    example: "DOES_NOT_WORK: the payment provider declines the agent's virtual card (stage PAYMENT_APPROVAL, failureReason PAYMENT).",
  },
};

export const OUTCOME_DEFINITIONS: Readonly<Record<OutcomeKey, KeyDefinition>> = {
  WORKS: { definition: 'The agent completed the task.' },
  PARTIAL: {
    definition:
      'The agent completed the task only in part, or only after retries or a workaround; as the overall outcome PARTIAL also means the attempted tasks had mixed outcomes.',
    example: 'PARTIAL: the cart accepted the item only at the second attempt, or with the wrong quantity.',
  },
  BLOCKED: {
    definition: 'The site stopped the agent on purpose: a block page, a bot check or CAPTCHA, or a rule against automated use.',
    example: 'BLOCKED: a CAPTCHA appears when the agent adds the item to the cart.',
  },
  DOES_NOT_WORK: {
    definition:
      'The agent could not complete the task and nothing shows that the site meant to stop it: an interface it cannot use, an error, a requirement it cannot meet.',
    example: 'DOES_NOT_WORK: the quantity picker never accepts a value.',
  },
  UNSURE: {
    definition: 'The agent cannot tell whether the task succeeded, for example because no confirmation appeared; UNSURE weighs nothing in the statuses.',
  },
};

export const STAGE_DEFINITIONS: Readonly<Record<StageKey, KeyDefinition>> = {
  ACCESS: { definition: 'Opening the website: a run whose stage is ACCESS never got past the first page.' },
  BROWSE: { definition: 'Searching or browsing the catalogue.' },
  DETAILS: { definition: 'A product or service page.' },
  CONFIGURE: { definition: 'Choosing options such as size, colour, quantity or dates.' },
  CART: { definition: 'Adding to the cart and the cart page.' },
  CHECKOUT: { definition: 'The checkout pages, before any contact, shipping or billing details are entered.' },
  SHIPPING: { definition: 'Entering contact, shipping or billing details and choosing delivery.' },
  PAYMENT_APPROVAL: {
    definition: 'The step where payment is to be approved (card entry, wallet or bank confirmation); a run that stops here on purpose, without paying, reached it.',
  },
  PURCHASE: { definition: 'The order was placed and the merchant confirmed it: a completed purchase.' },
};

export const FAILURE_REASON_DEFINITIONS: Readonly<Record<FailureReasonKey, KeyDefinition>> = {
  NONE: { definition: 'Nothing failed: every attempted task worked, or the run stopped on purpose; leaving failureReason out says the same.' },
  EXPLICIT_BLOCK: {
    definition: 'The site refused automated use outright: a block page, an "access denied" for bots, or terms enforced against agents.',
    example: 'EXPLICIT_BLOCK: the site answers 403 with "Automated access is not permitted".',
  },
  CAPTCHA: {
    definition: 'A CAPTCHA or another human-verification check stopped the agent.',
    example: 'CAPTCHA: a "press and hold" check appears before the search results.',
  },
  INTERFACE: {
    definition: 'The agent could not use the page itself: controls it cannot operate, content it cannot read, broken scripts or layouts.',
    example: 'INTERFACE: the size selector is a custom widget that ignores the agent\'s clicks.',
  },
  AUTHENTICATION: {
    definition: 'A sign-in, an account or a verification code was required and the agent could not provide it.',
    example: 'AUTHENTICATION: checkout requires an account and a code sent by e-mail to the person.',
  },
  PAYMENT: {
    definition: 'The payment could not be made: the payment method was refused, or a payment step (such as a bank approval page) could not be completed.',
    example: "PAYMENT: the bank's approval page never returns to the shop.",
  },
  OTHER: { definition: 'Any other limitation; describe it in experience.' },
};

const defined = <K extends string>(keys: readonly K[], labels: Readonly<Record<K, string>>, definitions: Readonly<Record<K, KeyDefinition>>): DefinedKey<K>[] =>
  keys.map((key) => ({ key, label: labels[key], ...definitions[key] }));

export const DEFINED_TASKS = defined(TASKS, TASK_LABELS, TASK_DEFINITIONS);
export const DEFINED_OUTCOMES = defined(OUTCOMES, OUTCOME_LABELS, OUTCOME_DEFINITIONS);
export const DEFINED_STAGES = defined(STAGES, STAGE_LABELS, STAGE_DEFINITIONS);
export const DEFINED_FAILURE_REASONS = defined(FAILURE_REASONS, FAILURE_REASON_LABELS, FAILURE_REASON_DEFINITIONS);

const REASONS_IN_ORDER = FAILURE_REASONS.filter((r) => r !== 'NONE').join(', ');
const completedFrom = (task: TaskKey) => `${task} from ${TASK_COMPLETED_FROM_STAGE[task]}`;

/**
 * The rules of filling a report in, each settled once and stated the same way everywhere. The
 * keys name them for the surfaces that pick one (the OpenAPI field descriptions).
 */
export const REPORTING_RULES = {
  stage:
    'stage is the furthest stage the agent reached, not the last one that worked: for a blocked run it is the stage where the agent was blocked ' +
    '(blocked by a CAPTCHA on the product page: stage DETAILS, not BROWSE). Reaching a stage does not show that its step worked, so a stage ' +
    `counts a task as done only from the next step on (${completedFrom('CART')}, ${completedFrom('CHECKOUT')}); give the task's outcome in capabilityResults.`,
  failureReason:
    'Give one failureReason: the reason the run ended at its stage; if no failure ended it, the reason behind the first task that did not fully work. ' +
    `When several reasons apply there, give the first in this order: ${REASONS_IN_ORDER}; name the others in experience. ` +
    'Give NONE, or leave failureReason out, when nothing failed.',
  partial:
    'PARTIAL is for a task the agent completed only in part or only after retries or a workaround; an overall outcome left out is derived as PARTIAL when the attempted tasks had mixed outcomes.',
  stopAtPayment:
    'An agent told to stop before paying that reaches payment approval reports CHECKOUT as WORKS, stage PAYMENT_APPROVAL, leaves PURCHASE out, ' +
    'and gives no failureReason (or NONE): stopping on purpose is not a failure.',
  unattempted: 'capabilityResults holds only the tasks the agent attempted; leave the others out, and never mark a task failed because the overall attempt failed.',
  unknownFields:
    'Leave agentVersion and region out when you do not know them, and humanIntervention too (false only when you know nobody stepped in): never send "unknown", "n/a" or a guess.',
  agentVersion:
    'agentVersion is your version exactly as your vendor names it (e.g. 2.4.1); GET /api/v1/agents lists, for each agent, the versions seen in approved reports, ' +
    'newest first by lastSeenAt (the newest test naming the version), not by version number.',
  update:
    'An update (PUT /api/v1/automation/reports/{id}, update_report) describes your latest test of the merchant only: replace the results with what that run found, ' +
    'set outcome to null (or leave it out) when you change capabilityResults so that it is derived again, and mention an earlier run in experience when it tells ' +
    'readers something (for example a CAPTCHA that appeared on an earlier run the same day but not on this one).',
  trial:
    'To try the API without a real test, use the dry run (POST /api/v1/reports/validate, validate_report): never submit an invented or simulated test, ' +
    'since privacy: true declares an actual, authorised one.',
  blockedExample:
    'A blocked run, reported: the agent searched, opened a product page and was stopped by a CAPTCHA when adding it to the cart: ' +
    'capabilityResults {ACCESS: WORKS, SEARCH: WORKS, DETAILS: WORKS, CART: BLOCKED}, stage CART, failureReason CAPTCHA, outcome left out (derived PARTIAL).',
} as const;
export type ReportingRule = keyof typeof REPORTING_RULES;

/**
 * How to walk the work queue, said the same way in the OpenAPI document, the MCP get_queue
 * description and the agent guide.
 */
export const QUEUE_RULES = {
  contents:
    'The queue lists approved canonical public merchants (shops added by contributors wait for a moderator first) that this account has not reported for the key\'s agent, ' +
    'oldest first (merchants added during a pass come later); it reserves nothing.',
  order:
    'Take the items in the order given, unless your person asked for a category (category) or a merchant is one your agent cannot test: skip it, it stays in the queue.',
  retestAfterDays:
    'A normal pass omits retestAfterDays (merchants never reported by you); add retestAfterDays to include the merchants due for a retest, or retest=only for just those, ' +
    'with 90 unless your person says otherwise: a report older than 90 days no longer counts as recent in the statuses.',
  emptyPass:
    'After an empty pass wait at least an hour before walking the same filters again; other filters (another category, retest) may be walked meanwhile.',
} as const;

/** A list of keys with their definitions in one line each: `KEY: definition` (for descriptions). */
const keyLines = (items: readonly DefinedKey[]) =>
  items.map((i) => `${i.key}: ${i.definition}${i.example ? ` Example: ${i.example}` : ''}`).join(' ');

/**
 * The descriptions of the report body's fields, built from the definitions and rules above:
 * submission.schema.ts attaches them, so the OpenAPI document, the contribution schema's body
 * and the MCP input schemas all carry them.
 */
export const FIELD_DESCRIPTIONS = {
  capabilityResults: `Outcome per attempted task. ${REPORTING_RULES.unattempted} ${REPORTING_RULES.stopAtPayment} ${REPORTING_RULES.blockedExample}`,
  task: (key: TaskKey) => `${TASK_LABELS[key]}. ${TASK_DEFINITIONS[key].definition}${TASK_DEFINITIONS[key].example ? ` Example: ${TASK_DEFINITIONS[key].example}` : ''}`,
  outcome: `Overall outcome; derived from capabilityResults when omitted. ${REPORTING_RULES.partial} ${keyLines(DEFINED_OUTCOMES)}`,
  stage: `${REPORTING_RULES.stage} ${keyLines(DEFINED_STAGES)}`,
  failureReason: `${REPORTING_RULES.failureReason} ${keyLines(DEFINED_FAILURE_REASONS)}`,
  agentVersion: `${REPORTING_RULES.agentVersion} ${REPORTING_RULES.unknownFields}`,
  privacy: REPORTING_RULES.trial,
  humanIntervention: REPORTING_RULES.unknownFields,
  experience: REPORTING_RULES.update,
  region:
    'Where the test ran from: a country, as its ISO 3166-1 alpha-2 code such as DE. A country name or an alpha-3 code is accepted and stored as the alpha-2 code ' +
    '("Germany", "de" and "DEU" all become "DE"); anything that is not a country (a city, a continent, "EU") is refused with 400 naming region. ' +
    REPORTING_RULES.unknownFields,
} as const;

/** Everything above as one JSON value: the contribution schema's `definitions`, the MCP resource. */
export function reportDefinitions() {
  return {
    tasks: DEFINED_TASKS,
    outcomes: DEFINED_OUTCOMES,
    stages: DEFINED_STAGES,
    failureReasons: DEFINED_FAILURE_REASONS,
    rules: { ...REPORTING_RULES },
  };
}

/** Every sentence a surface must carry verbatim: each definition, example and rule (for tests). */
export function definitionTexts(): string[] {
  const keyed = [...DEFINED_TASKS, ...DEFINED_OUTCOMES, ...DEFINED_STAGES, ...DEFINED_FAILURE_REASONS];
  return [...keyed.flatMap((i) => [i.definition, ...(i.example ? [i.example] : [])]), ...Object.values(REPORTING_RULES)];
}
