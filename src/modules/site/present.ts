// What the directory pages show, shaped from the same service output as the JSON API
// (merchantProfile, searchDirectory, recentReports): the pages never aggregate on their own.
import {
  CAPABILITY_STATUS_LABELS,
  CONFIDENCE_LABELS,
  FAILURE_REASON_LABELS,
  OUTCOME_LABELS,
  OUTCOMES,
  scoreBandLabel,
  STAGE_LABELS,
  TASK_LABELS,
  TASKS,
  type CapabilityStatus,
  type OutcomeKey,
  type TaskKey,
} from '../aggregation/constants.js';
import type { AgentSummaryView, MerchantView } from '../merchants/merchants.service.js';
import { formatDate, isoDay } from '../../dates.js';

/** A status in one or two words for a matrix cell; the full label is in the legend and the details. */
export const STATUS_SHORT_LABELS: Readonly<Record<CapabilityStatus, string>> = {
  supported: 'Supported',
  partial: 'Partial',
  blocked: 'Blocked',
  unsupported: 'Unsupported',
  unknown: 'Unknown',
  untested: 'Not tested',
};

/** A shape next to the colour, so status never depends on colour (hidden from screen readers). */
export const STATUS_SYMBOLS: Readonly<Record<CapabilityStatus, string>> = {
  supported: '✓',
  partial: '◐',
  blocked: '⊘',
  unsupported: '✕',
  unknown: '?',
  untested: '–',
};

export const SPONSORED_LABEL = 'Sponsored — advertising, not evidence that the site works';

export const SPONSORSHIP_SOURCE_LABELS: Readonly<Record<'subscription' | 'publisher_owned', string>> = {
  subscription: 'Paid sponsorship',
  publisher_owned: "Promotion of a site owned by the directory's publisher, shown with the owner's authorization",
};


export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export interface EvidenceEntry {
  reportId: string;
  href: string;
  /** From the capability's recent observations; absent for an older evidence reference. */
  outcomeLabel: string | null;
  kindLabel: string | null;
  observedAt: string | null;
}

export interface CellView {
  task: TaskKey;
  taskLabel: string;
  status: CapabilityStatus;
  shortLabel: string;
  fullLabel: string;
  symbol: string;
  confidenceLabel: string;
  reportCount: number;
  recentCount: number;
  conflicting: boolean;
  lastTestedAt: string | null;
  evidence: EvidenceEntry[];
}

export interface AgentRowView {
  agent: AgentSummaryView['agent'];
  summary: AgentSummaryView;
  status: CapabilityStatus;
  shortLabel: string;
  symbol: string;
  label: string;
  tested: boolean;
  statusTaskLabel: string | null;
  scoreBandLabel: string;
  confidenceLabel: string;
  counts: Array<{ outcome: OutcomeKey; label: string; count: number }>;
  cells: CellView[];
}

/** A task no report says anything about (the summaries always carry all seven; this is a guard). */
const UNTESTED_TASK: AgentSummaryView['capabilities'][string] & object = {
  status: 'untested',
  reportCount: 0,
  recentCount: 0,
  explicitCount: 0,
  reachedStageCount: 0,
  confidence: 'low',
  conflicting: false,
  lastTestedAt: null,
  lastReportedAt: null,
  latestEvidenceAt: null,
  recentObservations: [],
  evidence: [],
};

/**
 * The capability matrix: one row per agent, one cell per task. `reportHref` says where a report
 * is shown (an anchor on this page, or its public API record).
 */
export function matrixRows(merchant: MerchantView, reportHref: (reportId: string, apiUrl: string) => string): AgentRowView[] {
  return merchant.agents.map((summary) => ({
    agent: summary.agent,
    summary,
    status: summary.status,
    shortLabel: STATUS_SHORT_LABELS[summary.status],
    symbol: STATUS_SYMBOLS[summary.status],
    label: summary.label,
    tested: summary.status !== 'untested',
    statusTaskLabel: summary.statusTask ? TASK_LABELS[summary.statusTask] : null,
    scoreBandLabel: scoreBandLabel(summary.scoreBand, summary.confidence),
    confidenceLabel: CONFIDENCE_LABELS[summary.confidence],
    counts: OUTCOMES.map((outcome) => ({ outcome, label: OUTCOME_LABELS[outcome], count: summary.counts[outcome] })),
    cells: TASKS.map((task) => {
      const capability = summary.capabilities[task] ?? UNTESTED_TASK;
      const urls = new Map(capability.evidence.map((ref) => [ref.reportId, ref.url]));
      const evidence: EvidenceEntry[] = capability.recentObservations.map((o) => ({
        reportId: o.reportId,
        href: reportHref(o.reportId, urls.get(o.reportId) ?? `/api/v1/reports/${o.reportId}`),
        outcomeLabel: OUTCOME_LABELS[o.outcome],
        kindLabel: o.kind === 'explicit' ? 'task result given in the report' : 'shown by the furthest stage reached (half weight)',
        observedAt: o.observedAt,
      }));
      for (const ref of capability.evidence) {
        if (evidence.some((e) => e.reportId === ref.reportId)) continue;
        evidence.push({ reportId: ref.reportId, href: reportHref(ref.reportId, ref.url), outcomeLabel: null, kindLabel: null, observedAt: null });
      }
      return {
        task,
        taskLabel: TASK_LABELS[task],
        status: capability.status,
        shortLabel: STATUS_SHORT_LABELS[capability.status],
        fullLabel: CAPABILITY_STATUS_LABELS[capability.status],
        symbol: STATUS_SYMBOLS[capability.status],
        confidenceLabel: CONFIDENCE_LABELS[capability.confidence],
        reportCount: capability.reportCount,
        recentCount: capability.recentCount,
        conflicting: capability.conflicting,
        lastTestedAt: capability.lastTestedAt,
        evidence,
      };
    }),
  }));
}

/** Labels and helpers every directory template may use. */
export const viewHelpers = {
  TASKS,
  TASK_LABELS,
  OUTCOMES,
  OUTCOME_LABELS,
  STAGE_LABELS,
  FAILURE_REASON_LABELS,
  CAPABILITY_STATUS_LABELS,
  CONFIDENCE_LABELS,
  scoreBandLabel,
  STATUS_SHORT_LABELS,
  STATUS_SYMBOLS,
  SPONSORED_LABEL,
  SPONSORSHIP_SOURCE_LABELS,
  formatDate,
  isoDay,
  plural,
};
