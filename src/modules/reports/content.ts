// A report's content as stored and compared: the submission body less what cannot change
// (adId, agentId) and what is not content (privacy, always true once accepted).
import type { OutcomeKey, TaskKey } from '../aggregation/constants.js';
import { TASKS } from '../aggregation/constants.js';
import type { ReportSubmission } from './submission.schema.js';

export interface ReportContent {
  capabilityResults: Partial<Record<TaskKey, OutcomeKey>>;
  outcome: OutcomeKey;
  outcomeSupplied: boolean;
  experience: string | null;
  testedAt: string | null;
  agentVersion: string | null;
  region: string | null;
  task: string | null;
  stage: NonNullable<ReportSubmission['stage']> | null;
  failureReason: NonNullable<ReportSubmission['failureReason']> | null;
  humanIntervention: boolean | null;
}

/**
 * The overall outcome when the body gives none (spec 2.1): all task outcomes identical →
 * that outcome (so all UNSURE stays UNSURE); mixed → PARTIAL; no task outcome → null.
 */
export function deriveOutcome(results: Partial<Record<TaskKey, OutcomeKey>>): OutcomeKey | null {
  const outcomes = new Set(Object.values(results).filter((v): v is OutcomeKey => v !== undefined));
  if (outcomes.size > 1) return 'PARTIAL';
  return outcomes.values().next().value ?? null;
}

/**
 * The outcome trap: a body that sends back, as read, an outcome that was derived
 * (outcomeDerived true) while its new task results derive another one. Returns that other
 * outcome, or null when the body is no such case (an outcome given before, a new one, null, or
 * task results that derive the same).
 */
export function frozenOutcome(stored: ReportContent, sent: ReportContent): OutcomeKey | null {
  if (stored.outcomeSupplied || !sent.outcomeSupplied || sent.outcome !== stored.outcome) return null;
  const derived = deriveOutcome(sent.capabilityResults);
  return derived !== null && derived !== sent.outcome ? derived : null;
}

export function contentOf(body: ReportSubmission): ReportContent {
  // Tasks in the spec's order, attempted ones only.
  const capabilityResults: Partial<Record<TaskKey, OutcomeKey>> = {};
  for (const task of TASKS) {
    const outcome = body.capabilityResults?.[task];
    if (outcome) capabilityResults[task] = outcome;
  }
  return {
    capabilityResults,
    // The schema requires a task result when the overall outcome is absent.
    outcome: body.outcome ?? deriveOutcome(capabilityResults) ?? 'UNSURE',
    outcomeSupplied: body.outcome != null,
    experience: body.experience?.trim() ? body.experience : null,
    testedAt: body.testedAt ?? null,
    agentVersion: body.agentVersion ?? null,
    region: body.region ?? null,
    task: body.task ?? null,
    stage: body.stage ?? null,
    failureReason: body.failureReason ?? null,
    humanIntervention: body.humanIntervention ?? null,
  };
}

// Whether the overall outcome was given or derived does not make two reports differ: one
// sent back as it was read (the derived outcome now given) says the same thing.
const canonical = ({ outcomeSupplied: _supplied, ...content }: ReportContent) =>
  JSON.stringify(content, (_key, value: unknown) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)))
      : value,
  );

export const sameContent = (a: ReportContent, b: ReportContent) => canonical(a) === canonical(b);
