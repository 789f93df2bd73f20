// Signals for moderators against gaming (issue 37): what the directory already knows that may
// show someone gaming it, shown on each report's page and in the queue, and never public. Each
// is a fact, not a verdict: a new account may be an honest first tester, one address may be an
// office. The rules and thresholds are said once here; signals.repository.ts reads the facts.
import { TASKS, type CapabilityStatus, type Confidence, type OutcomeKey, type TaskKey } from '../aggregation/constants.js';

/** An account younger than this (at the report's submission) is new. */
export const NEW_ACCOUNT_DAYS = 7;
/** "In the last day": reports within this many hours of the report, before or after it. */
export const BURST_WINDOW_HOURS = 24;
/** Texts at least this similar (pg_trgm similarity, 0 to 1) are near-identical. */
export const NEAR_DUPLICATE_SIMILARITY = 0.7;
/** Texts shorter than this are not compared (short notes are alike by nature). */
export const NEAR_DUPLICATE_MIN_LENGTH = 20;
/** How far apart in time near-identical texts are looked for. */
export const NEAR_DUPLICATE_WINDOW_DAYS = 30;
/** Signal sorts and filters consider at most this many matching reports (oldest first). */
export const SIGNAL_SCAN_LIMIT = 2_000;

export const SIGNAL_KEYS = ['new-account', 'same-account', 'same-address', 'near-duplicate', 'self-reported', 'contradicts'] as const;
export type SignalKey = (typeof SIGNAL_KEYS)[number];

export const SIGNAL_LABELS: Readonly<Record<SignalKey, string>> = {
  'new-account': `New account (under ${NEW_ACCOUNT_DAYS} days old when it reported)`,
  'same-account': `Other reports from the same account within ${BURST_WINDOW_HOURS} hours`,
  'same-address': `Reports from the same address within ${BURST_WINDOW_HOURS} hours`,
  'near-duplicate': 'Near-identical text from other accounts',
  'self-reported': "By the shop's verified owner or the agent's verified vendor",
  contradicts: 'Contradicts strong recent evidence for this shop and agent',
};

/** The facts behind the signals of one report. */
export interface ReportSignals {
  reportId: string;
  /** The author's account age when the report was submitted, in whole days. */
  accountAgeDays: number;
  /** The author's other reports, approved and rejected. */
  authorApproved: number;
  authorRejected: number;
  /** Other reports by the same account within BURST_WINDOW_HOURS. */
  sameAccount: number;
  /** Other reports from the same address within BURST_WINDOW_HOURS, and by how many other accounts. */
  sameAddress: number;
  sameAddressAccounts: number;
  /** Reports by other accounts with near-identical text, and how many accounts. */
  nearDuplicates: number;
  nearDuplicateAccounts: number;
  selfReported: 'owner' | 'vendor' | null;
  /** Tasks where the report says the opposite of a high-confidence status of the pair. */
  contradicts: TaskKey[];
}

/** Which signals a report raises. */
export function raised(s: ReportSignals): SignalKey[] {
  const keys: SignalKey[] = [];
  if (s.accountAgeDays < NEW_ACCOUNT_DAYS) keys.push('new-account');
  if (s.sameAccount > 0) keys.push('same-account');
  if (s.sameAddress > 0) keys.push('same-address');
  if (s.nearDuplicates > 0) keys.push('near-duplicate');
  if (s.selfReported) keys.push('self-reported');
  if (s.contradicts.length > 0) keys.push('contradicts');
  return keys;
}

/** How much a report calls for a look: the signals it raises, then the size of its burst. */
export const signalWeight = (s: ReportSignals): number => raised(s).length * 1_000 + s.nearDuplicates + s.sameAddress + s.sameAccount;

const isNegative = (o: OutcomeKey) => o === 'BLOCKED' || o === 'DOES_NOT_WORK';

/**
 * The tasks where a report contradicts strong recent evidence for its pair: the pair's task has
 * a high-confidence status (at least 5 effective reports, 80 % agreeing, the newest within 90
 * days: task-status.ts) and the report's explicit result for it says the opposite: WORKS where
 * the status is blocked or unsupported, BLOCKED or DOES_NOT_WORK where it is supported.
 */
export function contradictions(
  results: Partial<Record<TaskKey, OutcomeKey>>,
  capabilities: Partial<Record<TaskKey, { status: CapabilityStatus; confidence: Confidence }>> | undefined,
): TaskKey[] {
  if (!capabilities) return [];
  return TASKS.filter((task) => {
    const outcome = results[task];
    const held = capabilities[task];
    if (!outcome || !held || held.confidence !== 'high') return false;
    if (outcome === 'WORKS') return held.status === 'blocked' || held.status === 'unsupported';
    if (isNegative(outcome)) return held.status === 'supported';
    return false;
  });
}

/** What readers are told about the moderators' signals (never their values): /how-it-works. */
export const SIGNAL_RULES =
  `Moderators see, on each pending report and in their queue, signals that may show someone gaming the directory: the author's account age and their approved and rejected reports; ` +
  `other reports from the same account, or from the same address, within ${BURST_WINDOW_HOURS} hours; near-identical text from other accounts; whether the report is self-reported; ` +
  'and whether it contradicts strong, recent evidence for the shop and agent. They can sort and filter by these and reject a burst in one step. ' +
  'The address is never stored, only a keyed hash of it, kept 30 days; none of these signals is ever published. All of it is computed by the directory itself, with no third-party service.';
