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
interface KeyDefinition {
  definition: string;
  example?: string;
}

/** A key with its label (spec 2.2), definition and example, as every surface lists it. */
export interface DefinedKey<K extends string = string> extends KeyDefinition {
  key: K;
  label: string;
}

const TASK_DEFINITIONS: Readonly<Record<TaskKey, KeyDefinition>> = {
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
    example:
      "DOES_NOT_WORK: sign-in demands a code sent to the person's phone and nobody is there to type it (stage CHECKOUT, failureReason AUTHENTICATION).",
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

const OUTCOME_DEFINITIONS: Readonly<Record<OutcomeKey, KeyDefinition>> = {
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

const STAGE_DEFINITIONS: Readonly<Record<StageKey, KeyDefinition>> = {
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

const FAILURE_REASON_DEFINITIONS: Readonly<Record<FailureReasonKey, KeyDefinition>> = {
  NONE: { definition: 'Nothing failed: every attempted task worked, in a run stopped on purpose too; leaving failureReason out says the same.' },
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
  OTHER: { definition: 'Any other limitation, such as a site search that found nothing until the query was rephrased; describe it in experience.' },
};

const defined = <K extends string>(keys: readonly K[], labels: Readonly<Record<K, string>>, definitions: Readonly<Record<K, KeyDefinition>>): DefinedKey<K>[] =>
  keys.map((key) => ({ key, label: labels[key], ...definitions[key] }));

const DEFINED_TASKS = defined(TASKS, TASK_LABELS, TASK_DEFINITIONS);
const DEFINED_OUTCOMES = defined(OUTCOMES, OUTCOME_LABELS, OUTCOME_DEFINITIONS);
const DEFINED_STAGES = defined(STAGES, STAGE_LABELS, STAGE_DEFINITIONS);
const DEFINED_FAILURE_REASONS = defined(FAILURE_REASONS, FAILURE_REASON_LABELS, FAILURE_REASON_DEFINITIONS);

const REASONS_IN_ORDER = FAILURE_REASONS.filter((r) => r !== 'NONE').join(', ');
const completedFrom = (task: TaskKey) => `${task} from ${TASK_COMPLETED_FROM_STAGE[task]}`;

/**
 * The rules of filling a report in, each settled once and stated once: every surface quotes
 * them (the contribution schema's rules, the agent guide, the MCP resource), none restates them.
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
  unattempted: 'capabilityResults holds only the tasks the agent attempted; leave the others out, and never mark a task failed because the overall attempt failed.',
  unknownFields:
    'Leave agentVersion and region out when you do not know them, and humanIntervention too (false only when you know nobody stepped in): never send "unknown", "n/a" or a guess.',
  testedAt:
    "testedAt is the date of the test on your person's calendar (for a cloud-run agent too), YYYY-MM-DD (the UTC date is fine when you do not know); " +
    "it must not be in the future: up to one day past today's UTC date is accepted, as some time zones are already a day ahead.",
  agentVersion:
    'agentVersion is your version exactly as your vendor names it (e.g. 2.4.1). A version the directory has not seen yet is accepted as given ' +
    "and listed in the agent's versions once a report naming it is approved.",
  update:
    'An update describes your latest test of the merchant only: replace the results with what that run found, and mention an earlier run in ' +
    'experience when it tells readers something (a CAPTCHA seen on an earlier run the same day but not on this one). ' +
    'An outcome read back as derived (outcomeDerived true) is derived from capabilityResults: set outcome to null when you change them, so that it is derived again (sent back as read with results that derive another outcome, it is refused).',
  trial:
    'To try the API without a real test, use the dry run (validate): never submit an invented or simulated test, ' +
    'since privacy: true declares an actual, authorised one.',
} as const;

/** The refusal of an update that sends back a derived outcome its new task results no longer give. */
export const frozenOutcomeDetail = (sent: string, derived: string) =>
  `${sent} was derived from the earlier capabilityResults (outcomeDerived true); these derive ${derived}. Send outcome as null to have it derived again.`;

/** One case real runs hit, settled by a rule, with the report it gives. */
export interface ReportingCase {
  id: string;
  /** When it applies, in a few words. */
  when: string;
  rule: string;
  /** The report's fields for this case (adId, agentId and privacy aside). */
  example: {
    capabilityResults: Partial<Record<TaskKey, OutcomeKey>>;
    stage: StageKey;
    failureReason?: FailureReasonKey;
    humanIntervention?: boolean;
    region?: string;
    agentVersion?: string;
  };
}

/** The cases both blind agents met and the general rules left open: one rule each, with its report. */
export const REPORTING_CASES: readonly ReportingCase[] = [
  {
    id: 'blocked',
    when: 'A CAPTCHA stops the agent at add-to-cart',
    rule: 'Report the tasks that worked, the blocked one as BLOCKED, the stage where it was blocked and the reason; leave outcome out (it is derived).',
    example: { capabilityResults: { ACCESS: 'WORKS', SEARCH: 'WORKS', DETAILS: 'WORKS', CART: 'BLOCKED' }, stage: 'CART', failureReason: 'CAPTCHA' },
  },
  {
    id: 'humanLogin',
    when: 'The login worked because your person stepped in (typed a one-time code, approved a sign-in)',
    rule:
      'LOGIN is PARTIAL, humanIntervention is true, and the reason is AUTHENTICATION when LOGIN is the first task that did not fully work; ' +
      'say in experience what the person did, never the code itself.',
    example: {
      capabilityResults: { ACCESS: 'WORKS', SEARCH: 'WORKS', DETAILS: 'WORKS', LOGIN: 'PARTIAL', CART: 'WORKS' },
      stage: 'CHECKOUT',
      failureReason: 'AUTHENTICATION',
      humanIntervention: true,
    },
  },
  {
    id: 'signedIn',
    when: 'The session was already signed in when the run began',
    rule: 'Leave LOGIN out: it was not attempted. Say in experience that the session was already signed in.',
    example: { capabilityResults: { ACCESS: 'WORKS', SEARCH: 'WORKS', DETAILS: 'WORKS', CART: 'WORKS' }, stage: 'CHECKOUT', failureReason: 'NONE' },
  },
  {
    id: 'stopAtPayment',
    when: 'Your person told the agent to stop before paying, and it reached payment approval',
    rule:
      'CHECKOUT is WORKS, stage PAYMENT_APPROVAL, PURCHASE left out. The stop is never a failure: failureReason is the reason of the first ' +
      'task that did not fully work (here the cart needed a second attempt), and NONE only when every attempted task worked.',
    example: {
      capabilityResults: { ACCESS: 'WORKS', SEARCH: 'WORKS', DETAILS: 'WORKS', CART: 'PARTIAL', CHECKOUT: 'WORKS' },
      stage: 'PAYMENT_APPROVAL',
      failureReason: 'INTERFACE',
    },
  },
  {
    id: 'accountWall',
    when: 'Checkout demands an account the agent has no credentials for, with no guest checkout',
    rule:
      'CHECKOUT is DOES_NOT_WORK with failureReason AUTHENTICATION and stage CHECKOUT: an account requirement is not a block. ' +
      'BLOCKED is only for a site that stops agents on purpose (a CAPTCHA on sign-up, a block page).',
    example: { capabilityResults: { ACCESS: 'WORKS', SEARCH: 'WORKS', DETAILS: 'WORKS', CART: 'WORKS', CHECKOUT: 'DOES_NOT_WORK' }, stage: 'CHECKOUT', failureReason: 'AUTHENTICATION' },
  },
  {
    id: 'cloudRegion',
    when: 'The agent runs on its vendor\'s servers, not on your person\'s device',
    rule:
      "region is the country the agent's traffic came from: for a cloud-run agent the servers' country when you know it, never your person's country " +
      'by default; leave region out when you do not know it.',
    example: { capabilityResults: { ACCESS: 'WORKS', SEARCH: 'WORKS' }, stage: 'BROWSE', failureReason: 'NONE', region: 'US' },
  },
  {
    id: 'newVersion',
    when: 'Your agent version is not in the agent\'s list of versions yet',
    rule: 'Send it exactly as your vendor names it, as the agentVersion rule says; the dry run notes that it is new.',
    example: { capabilityResults: { ACCESS: 'WORKS', SEARCH: 'WORKS', DETAILS: 'WORKS' }, stage: 'DETAILS', failureReason: 'NONE', agentVersion: '3.0.0-beta.2' },
  },
];

/**
 * How to walk the work queue, said once: the OpenAPI document's queue description and the
 * agent guide quote it.
 */
export const QUEUE_RULES = {
  contents:
    'The queue lists approved canonical public merchants (shops added by contributors wait for a moderator first) that this account has not reported for the key\'s agent, ' +
    'oldest first (merchants added during a pass come later); it reserves nothing. total counts the merchants the filters match now (one you report drops out), remaining those after this page.',
  order:
    'Take the items in the order given, unless your person asked for a category (category) or a merchant is one your agent cannot test: skip it, it stays in the queue.',
  retestAfterDays:
    'A normal pass omits retestAfterDays (merchants never reported by you); add retestAfterDays to include the merchants due for a retest, or retest=only for just those, ' +
    'with 90 unless your person says otherwise: a report older than 90 days no longer counts as recent in the statuses.',
  emptyPass:
    'After an empty pass wait at least an hour before walking the same filters again; other filters (another category, retest) may be walked meanwhile.',
} as const;

/** Where every key's definition is: the field descriptions point there instead of repeating it. */
const SEE_DEFINITIONS = 'Definitions: the contribution schema.';

/**
 * The descriptions of the report body's fields: one short sentence each, pointing to the
 * contribution schema for the keys' definitions and rules (submission.schema.ts attaches them).
 */
export const FIELD_DESCRIPTIONS = {
  adId: "The merchant's id (the spec calls it adId): a merchant's id from the queue or the merchants endpoints. Cannot change later.",
  agentId: "Your agent's id, agent.id of whoami. Cannot change later.",
  capabilityResults: `The outcome of each task the agent attempted, keyed by task. ${SEE_DEFINITIONS}`,
  taskKey: (key: TaskKey) => `${TASK_LABELS[key]}.`,
  outcome: `The overall outcome; derived from capabilityResults when left out. ${SEE_DEFINITIONS}`,
  stage: `The furthest stage the agent reached (for a blocked run, where it was blocked). ${SEE_DEFINITIONS}`,
  failureReason: `One reason, why the run ended or the first task fell short. ${SEE_DEFINITIONS}`,
  agentVersion: 'Your version as your vendor names it; leave it out when unknown.',
  privacy: 'Set true only after checking the privacy conditions of the contribution schema.',
  humanIntervention: 'Whether your person did a step for the agent (a code, a check); leave it out when unknown.',
  experience: 'What happened, in your words, for readers.',
  testedAt: 'The date of the test where it ran, YYYY-MM-DD.',
  region: 'Where the agent\'s traffic came from: an ISO 3166-1 alpha-2 country code such as DE ("Germany", "de" and "DEU" all become "DE").',
  task: "What the agent was asked to do, in a sentence: your person's instruction.",
} as const;

/** Everything above as one JSON value: the contribution schema's `definitions`, the MCP resource. */
export function reportDefinitions() {
  return {
    tasks: DEFINED_TASKS,
    outcomes: DEFINED_OUTCOMES,
    stages: DEFINED_STAGES,
    failureReasons: DEFINED_FAILURE_REASONS,
    rules: { ...REPORTING_RULES },
    cases: REPORTING_CASES,
  };
}

/** Every sentence a surface must carry verbatim: each definition, example and rule (for tests). */
export function definitionTexts(): string[] {
  const keyed = [...DEFINED_TASKS, ...DEFINED_OUTCOMES, ...DEFINED_STAGES, ...DEFINED_FAILURE_REASONS];
  return [
    ...keyed.flatMap((i) => [i.definition, ...(i.example ? [i.example] : [])]),
    ...Object.values(REPORTING_RULES),
    ...REPORTING_CASES.map((c) => c.rule),
  ];
}
