// The aggregation engine's entry: approved reports in, the per-agent summary of one merchant
// out, with per-task capability statuses (task-status.ts) from the reports' observations
// (observations.ts). No I/O, no clock (time arrives as `now`), no Prisma, so the JSON API, the
// HTML pages and the precomputed summary rows all get the same answer from the same rows. The
// rules and every number are documented in constants.ts and printed on /how-it-works.
import {
  BAND_OF_TASK,
  CONFIDENCE_LEVELS,
  FUNNEL_TASKS,
  MAX_EVIDENCE_REFERENCES,
  TASKS,
  type CapabilityStatus,
  type Confidence,
  type ScoreBand,
  type TaskKey,
} from './constants.js';
import { compareNewestFirst, iso, maxOrNull, observationsFor, type EvidenceReport, type Observation } from './observations.js';
import { computeTaskCapability, type RecentObservation, type TaskAssessment } from './task-status.js';
import { reachOf, type Reach } from './reach.js';
import { computeVerdictFacts, type SelfReportedFacts, type VerdictFacts } from './verdict.js';
import { versionFacts, type VersionFacts } from './agent-versions.js';

interface EvidenceReference {
  reportId: string;
  url: string;
}

/** One task of a per-agent summary, as published. */
interface TaskCapability {
  status: CapabilityStatus;
  reportCount: number;
  recentCount: number;
  explicitCount: number;
  reachedStageCount: number;
  confidence: Confidence;
  conflicting: boolean;
  lastTestedAt: string | null;
  lastReportedAt: string | null;
  latestEvidenceAt: string | null;
  recentObservations: RecentObservation[];
  evidence: EvidenceReference[];
}

export interface OutcomeCounts {
  WORKS: number;
  PARTIAL: number;
  BLOCKED: number;
  DOES_NOT_WORK: number;
  UNSURE: number;
  total: number;
}

/** The per-agent summary on a merchant. JSON-serialisable: dates are ISO strings or null. */
export interface AgentSummary {
  status: CapabilityStatus;
  /** The task whose status is `status`; null when unknown or untested. */
  statusTask: TaskKey | null;
  scoreBand: ScoreBand;
  rating: number;
  confidence: Confidence;
  counts: OutcomeCounts;
  lastTestedAt: string | null;
  lastReportedAt: string | null;
  latestEvidenceAt: string | null;
  evidence: EvidenceReference[];
  capabilities: Record<TaskKey, TaskCapability>;
  /** How far the agent gets, where it stops and why (reach.ts); additive to the spec's fields. */
  reach: Reach;
  /** What the verdict every surface shows is made of (verdict.ts); additive. */
  verdict: VerdictFacts;
  /** The agent versions these reports name, the last working one per task, and regressions (agent-versions.ts); additive. */
  versions: VersionFacts;
}

export interface SummaryOptions {
  now: Date;
  /** The public link of a report, for evidence references. */
  reportUrl: (reportId: string) => string;
  /** Self-reported reports beside (or among) these, for the verdict's words (summaries.service.ts). */
  selfReported?: SelfReportedFacts;
}

const hasVerdict = (status: CapabilityStatus): boolean => status !== 'unknown' && status !== 'untested';
const isNegativeStatus = (status: CapabilityStatus): boolean => status === 'blocked' || status === 'unsupported';

/**
 * The most informative single word: the weakest verdict along the funnel, earliest first among
 * equals (first blocked/unsupported task, else first partial task, else supported, then set by
 * the furthest supported task). This refines the design's "blocked if ACCESS is blocked, else the
 * furthest task with evidence": that rule let one old completed purchase hide a run of recent
 * BLOCKED cart reports (the furthest task, PURCHASE, stayed supported), and called an agent
 * "supported" while an earlier step only partly worked and the band said it reliably got nowhere.
 * ACCESS blocked still gives blocked. LOGIN sits beside the funnel (guest checkout exists), so it
 * decides only when no funnel task has a verdict.
 */
function agentStatusOf(capabilities: Record<TaskKey, TaskAssessment>): { status: CapabilityStatus; task: TaskKey | null } {
  const withVerdict = FUNNEL_TASKS.filter((task) => hasVerdict(capabilities[task].status));
  const firstWhere = (match: (status: CapabilityStatus) => boolean) => withVerdict.find((task) => match(capabilities[task].status));
  const negative = firstWhere(isNegativeStatus);
  if (negative) return { status: capabilities[negative].status, task: negative };
  const partial = firstWhere((status) => status === 'partial');
  if (partial) return { status: 'partial', task: partial };
  const furthest = withVerdict[withVerdict.length - 1];
  if (furthest) return { status: 'supported', task: furthest };
  if (hasVerdict(capabilities.LOGIN.status)) return { status: capabilities.LOGIN.status, task: 'LOGIN' };
  const observed = TASKS.some((task) => capabilities[task].status !== 'untested');
  return { status: observed ? 'unknown' : 'untested', task: null };
}

/**
 * The furthest supported funnel task with no earlier task partial, blocked or unsupported. The
 * design asked every earlier task to be supported; earlier tasks without a verdict (untested,
 * unknown) no longer cap the band, because a report may state only `PURCHASE: WORKS` without a
 * stage, and a completed purchase shows the earlier steps were passed. Returns the band and the
 * supported tasks that set it.
 */
function scoreBandOf(capabilities: Record<TaskKey, TaskAssessment>): { band: ScoreBand; tasks: TaskKey[] } {
  let band: ScoreBand = 'none';
  const tasks: TaskKey[] = [];
  for (const task of FUNNEL_TASKS) {
    const status = capabilities[task].status;
    if (status === 'supported') {
      band = BAND_OF_TASK[task];
      tasks.push(task);
    } else if (hasVerdict(status)) {
      break;
    }
  }
  return { band, tasks };
}

const lowestConfidence = (levels: readonly Confidence[]): Confidence =>
  levels.reduce<Confidence>(
    (lowest, level) => (CONFIDENCE_LEVELS.indexOf(level) < CONFIDENCE_LEVELS.indexOf(lowest) ? level : lowest),
    'high',
  );

const emptyCounts = (): OutcomeCounts => ({ WORKS: 0, PARTIAL: 0, BLOCKED: 0, DOES_NOT_WORK: 0, UNSURE: 0, total: 0 });

/** The regression the verdict names: the first along the funnel (LOGIN last). */
const firstRegression = (versions: VersionFacts) => {
  const first = versions.regressions[0];
  return first ? { task: first.task, workedUpTo: first.workedUpTo, failsSince: first.failsSince } : null;
};

/** Each task's observations from the reports (observations.ts), assessed into its status, confidence and weights (task-status.ts). */
function assessTasks(reports: readonly EvidenceReport[], now: Date): Record<TaskKey, TaskAssessment> {
  const byTask = new Map<TaskKey, Observation[]>(TASKS.map((task) => [task, []]));
  for (const report of reports) {
    for (const observation of observationsFor(report)) byTask.get(observation.task)?.push(observation);
  }
  return Object.fromEntries(
    TASKS.map((task) => [task, computeTaskCapability(byTask.get(task) ?? [], now)]),
  ) as Record<TaskKey, TaskAssessment>;
}

/** Each task as published: its assessment without the weights and score, its evidence as links. */
function publishedCapabilities(assessments: Record<TaskKey, TaskAssessment>, reportUrl: SummaryOptions['reportUrl']): Record<TaskKey, TaskCapability> {
  return Object.fromEntries(
    TASKS.map((task): [TaskKey, TaskCapability] => {
      const { evidenceReportIds, weights: _weights, score: _score, ...rest } = assessments[task];
      return [task, { ...rest, evidence: evidenceReportIds.map((reportId) => ({ reportId, url: reportUrl(reportId) })) }];
    }),
  ) as Record<TaskKey, TaskCapability>;
}

/**
 * The lowest confidence among the band's tasks plus the task behind the status: a summary reading
 * "blocked, band cart" must not claim high confidence when the blocked checkout rests on one report.
 */
function summaryConfidence(assessments: Record<TaskKey, TaskAssessment>, bandTasks: readonly TaskKey[], statusTask: TaskKey | null): Confidence {
  const confidenceTasks = [...new Set<TaskKey>([...bandTasks, ...(statusTask ? [statusTask] : [])])];
  return confidenceTasks.length === 0 ? 'low' : lowestConfidence(confidenceTasks.map((task) => assessments[task].confidence));
}

/** The rating: the mean score (Wilson lower bound of WORKS) over the tasks with any weight; 0 when none has. */
function ratingOf(assessments: Record<TaskKey, TaskAssessment>): number {
  const weighted = TASKS.filter((task) => assessments[task].weights.total > 0);
  // To the four decimals the API publishes, stored so too: a recomputation a moment later
  // (decay moves every weight continuously) then finds the same rating and writes nothing.
  return weighted.length === 0 ? 0 : Math.round((weighted.reduce((sum, task) => sum + assessments[task].score, 0) / weighted.length) * 10_000) / 10_000;
}

/** Reports per overall outcome, and the total. */
function outcomeCounts(reports: readonly EvidenceReport[]): OutcomeCounts {
  const counts = emptyCounts();
  for (const report of reports) {
    counts[report.outcome] += 1;
    counts.total += 1;
  }
  return counts;
}

/** The newest test, report and evidence dates; all null when the summary is untested. */
function summaryDates(reports: readonly EvidenceReport[], capabilities: Record<TaskKey, TaskCapability>, status: CapabilityStatus) {
  // Spec 2.4: an untested summary has null dates, even when reports without any task observation
  // (overall outcome only) exist; those still appear in counts and evidence.
  const untested = status === 'untested';
  const lastTestedAt = untested ? null : iso(maxOrNull(reports.flatMap((r) => (r.testedAt ? [r.testedAt.getTime()] : []))));
  const lastReportedAt = untested ? null : iso(maxOrNull(reports.map((r) => r.createdAt.getTime())));
  // Reports that gave a kept observation are exactly those behind the capabilities' dates.
  const latestEvidenceAt = untested
    ? null
    : iso(maxOrNull(TASKS.flatMap((task) => {
        const at = capabilities[task].latestEvidenceAt;
        return at === null ? [] : [Date.parse(at)];
      })));
  return { lastTestedAt, lastReportedAt, latestEvidenceAt };
}

/** The newest reports (at most MAX_EVIDENCE_REFERENCES), as links. */
function evidenceReferences(reports: readonly EvidenceReport[], reportUrl: SummaryOptions['reportUrl']): EvidenceReference[] {
  return [...reports]
    .sort(compareNewestFirst)
    .slice(0, MAX_EVIDENCE_REFERENCES)
    .map((report) => ({ reportId: report.id, url: reportUrl(report.id) }));
}

/**
 * The per-agent summary of one merchant from its approved reports (any order). The output holds
 * no account ids and no Date objects, so it can be stored as JSON and served as is.
 */
export function computeAgentSummary(reports: readonly EvidenceReport[], options: SummaryOptions): AgentSummary {
  const { now, reportUrl } = options;
  const assessments = assessTasks(reports, now);
  const capabilities = publishedCapabilities(assessments, reportUrl);
  const { status, task: statusTask } = agentStatusOf(assessments);
  const { band, tasks: bandTasks } = scoreBandOf(assessments);
  const confidence = summaryConfidence(assessments, bandTasks, statusTask);
  const rating = ratingOf(assessments);
  const reach = reachOf(assessments, reports);
  const versions = versionFacts(reports, now);
  const counts = outcomeCounts(reports);
  const { lastTestedAt, lastReportedAt, latestEvidenceAt } = summaryDates(reports, capabilities, status);
  const evidence = evidenceReferences(reports, reportUrl);

  return {
    status,
    statusTask,
    scoreBand: band,
    rating,
    confidence,
    counts,
    lastTestedAt,
    lastReportedAt,
    latestEvidenceAt,
    evidence,
    capabilities,
    reach,
    verdict: computeVerdictFacts({
      capabilities: assessments,
      reach,
      reports,
      now,
      selfReported: options.selfReported,
      regression: firstRegression(versions),
    }),
    versions,
  };
}
