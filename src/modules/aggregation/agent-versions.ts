// Agent versions and regressions (issue 37). What approved reports say per version of an agent
// at one merchant: the versions seen, per task the last version seen working, and a regression
// when a newer version fails a task an older one passed. Pure, like the rest of the engine.
//
// The rule, said once (docs/decisions.md and /how-it-works print it from here):
//   - A version is the report's `agentVersion`, trimmed; empty means none.
//   - A semantic version (MAJOR[.MINOR[.PATCH]][-prerelease][+build], an optional leading "v";
//     missing parts count as 0) is ordered by SemVer 2.0 precedence, build metadata ignored.
//   - Any other string is ordered as text (code units) among the other non-semantic strings.
//   - The two kinds are never compared with each other: a regression needs two versions of the
//     same kind. In lists, semantic versions come first (newest first), then the others.
//   - A regression of a task: among its observations of the last REGRESSION_WINDOW_DAYS, the
//     newest version with a result failed it (Blocked or Doesn't work) and none of its reports
//     saw it work, while an older version of the same kind worked (Works, explicit or a stage
//     reached past it). It names the newest version that worked ("worked up to 0.7.1"), the
//     oldest version since which every version with a result failed ("fails since 0.7.3"), and
//     its evidence: the reports behind each side.
import { FUNNEL_TASKS, MS_PER_DAY, TASKS, type TaskKey } from './constants.js';
import { compareNewestFirst, observedAtMs, observationsFor, type EvidenceReport } from './observations.js';

/** How far back a regression looks: both the working and the failing runs are this recent. */
export const REGRESSION_WINDOW_DAYS = 90;
/** Versions a summary lists (the most recently seen first). */
const MAX_VERSIONS_LISTED = 20;

type VersionKind = 'semver' | 'text';

/** The summary's status token of a regression at a task (GIN-indexed beside the "TASK:status" tokens). */
export const regressionToken = (task: TaskKey) => `REGRESSION:${task}`;
export const REGRESSION_TOKENS = TASKS.map(regressionToken);

interface ParsedVersion {
  text: string;
  kind: VersionKind;
  /** Semantic versions only. */
  core?: [number, number, number];
  prerelease?: Array<number | string>;
}

const SEMVER = /^[vV]?(0|[1-9]\d*)(?:\.(0|[1-9]\d*))?(?:\.(0|[1-9]\d*))?(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

/** The version as stored and compared: trimmed; null when empty. */
export function normalizeVersion(value: string | null | undefined): string | null {
  const text = value?.trim() ?? '';
  return text === '' ? null : text;
}

/**
 * A pair's reports per version named, as the agents' version lists count them (stored beside the
 * summary as version_counts; triggers sum them into agent_version_totals): keyed as the reports'
 * generated version_key is, `nullif(btrim(agent_version), '')` (spaces trimmed; what a submission
 * stores is trimmed already), so that the counts and the index that says when each version was
 * last observed name the same versions.
 */
export function versionCounts(reports: readonly EvidenceReport[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const report of reports) {
    const key = report.agentVersion?.replace(/^ +| +$/g, '');
    if (key) counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

function parseVersion(value: string): ParsedVersion {
  const text = value.trim();
  const match = SEMVER.exec(text);
  if (!match) return { text, kind: 'text' };
  const part = (s: string | undefined) => (s === undefined ? 0 : Number(s));
  if (![match[1], match[2], match[3]].every((s) => s === undefined || Number.isSafeInteger(Number(s)))) return { text, kind: 'text' };
  return {
    text,
    kind: 'semver',
    core: [part(match[1]), part(match[2]), part(match[3])],
    prerelease: match[4] ? match[4].split('.').map((id) => (/^\d+$/.test(id) ? Number(id) : id)) : [],
  };
}

const sign = (n: number) => (n < 0 ? -1 : n > 0 ? 1 : 0);
const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function comparePrerelease(a: Array<number | string>, b: Array<number | string>): number {
  // A version without a prerelease ranks above the same version with one.
  if (a.length === 0 || b.length === 0) return sign(b.length - a.length);
  for (let i = 0; i < Math.max(a.length, b.length); i += 1) {
    if (i >= a.length) return -1;
    if (i >= b.length) return 1;
    const x = a[i]!;
    const y = b[i]!;
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return sign(x - y);
    // Numeric identifiers rank below alphanumeric ones.
    if (typeof x === 'number') return -1;
    if (typeof y === 'number') return 1;
    return compareText(x, y);
  }
  return 0;
}

/**
 * The order of two versions: negative when `a` is older, positive when newer, 0 when equal in
 * precedence, and null when they cannot be compared (one semantic, one not).
 */
export function compareVersions(a: string, b: string): number | null {
  const x = parseVersion(a);
  const y = parseVersion(b);
  if (x.kind !== y.kind) return null;
  if (x.kind === 'text') return compareText(x.text, y.text);
  for (let i = 0; i < 3; i += 1) {
    const d = x.core![i]! - y.core![i]!;
    if (d !== 0) return sign(d);
  }
  return comparePrerelease(x.prerelease!, y.prerelease!);
}

/** Newest first, for lists: semantic versions (by precedence, then text), then the others (text descending). */
export function compareVersionsNewestFirst(a: string, b: string): number {
  const x = parseVersion(a);
  const y = parseVersion(b);
  if (x.kind !== y.kind) return x.kind === 'semver' ? -1 : 1;
  return -(compareVersions(a, b) ?? 0) || -compareText(a, b);
}

interface VersionSeen {
  version: string;
  reports: number;
  /** The newest test date naming it (else its report date), YYYY-MM-DD. */
  lastSeenOn: string;
}

interface TaskVersions {
  /** The newest version seen working at this task (any time), and when. */
  lastWorking: { version: string; on: string } | null;
}

interface Regression {
  task: TaskKey;
  /** The newest version seen working within the window. */
  workedUpTo: string;
  /** The oldest version since which every version with a result failed. */
  failsSince: string;
  /** The newest failing version. */
  newest: string;
  /** The reports behind it: those that saw `workedUpTo` work, and those that saw the newer versions fail (newest first, at most 5 each). */
  evidence: { working: string[]; failing: string[] };
  /** When the oldest failing run of the newer versions was observed, YYYY-MM-DD. */
  since: string;
}

export interface VersionFacts {
  seen: VersionSeen[];
  tasks: Partial<Record<TaskKey, TaskVersions>>;
  regressions: Regression[];
}

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const MAX_EVIDENCE = 5;

const isWorking = (outcome: string) => outcome === 'WORKS';
const isFailing = (outcome: string) => outcome === 'BLOCKED' || outcome === 'DOES_NOT_WORK';

/** Versions, last working versions and regressions of one pair, from its reports. */
export function versionFacts(reports: readonly EvidenceReport[], now: Date): VersionFacts {
  const newestFirst = [...reports].sort(compareNewestFirst);
  const seen = new Map<string, VersionSeen>();
  for (const report of newestFirst) {
    const version = normalizeVersion(report.agentVersion);
    if (!version) continue;
    const on = dayOf(observedAtMs(report));
    const known = seen.get(version);
    if (known) known.reports += 1;
    else seen.set(version, { version, reports: 1, lastSeenOn: on });
  }
  const seenList = [...seen.values()]
    .sort((a, b) => compareText(b.lastSeenOn, a.lastSeenOn) || b.reports - a.reports || compareVersionsNewestFirst(a.version, b.version))
    .slice(0, MAX_VERSIONS_LISTED);

  const tasks: Partial<Record<TaskKey, TaskVersions>> = {};
  const regressions: Regression[] = [];
  const windowFrom = now.getTime() - REGRESSION_WINDOW_DAYS * MS_PER_DAY;
  for (const task of TASKS) {
    // Each version's results at this task: who saw it work, who saw it fail (newest first).
    const byVersion = new Map<string, { working: EvidenceReport[]; failing: EvidenceReport[] }>();
    const inWindow = new Map<string, { working: EvidenceReport[]; failing: EvidenceReport[] }>();
    for (const report of newestFirst) {
      const version = normalizeVersion(report.agentVersion);
      if (!version) continue;
      const observation = observationsFor(report).find((o) => o.task === task);
      if (!observation) continue;
      const into = (map: typeof byVersion) => {
        const entry = map.get(version) ?? { working: [], failing: [] };
        if (isWorking(observation.outcome)) entry.working.push(report);
        else if (isFailing(observation.outcome)) entry.failing.push(report);
        map.set(version, entry);
      };
      into(byVersion);
      if (observedAtMs(report) >= windowFrom) into(inWindow);
    }
    // The newest working version across all kinds: the newest by precedence within the kind of
    // the most recently seen working run.
    const working = [...byVersion.entries()].filter(([, e]) => e.working.length > 0);
    if (working.length > 0) {
      const latestRun = working.map(([v, e]) => ({ v, at: observedAtMs(e.working[0]!) })).sort((a, b) => b.at - a.at)[0]!;
      const kind = parseVersion(latestRun.v).kind;
      const best = working.filter(([v]) => parseVersion(v).kind === kind).map(([v]) => v).sort(compareVersionsNewestFirst)[0]!;
      const bestRun = byVersion.get(best)!.working[0]!;
      tasks[task] = { lastWorking: { version: best, on: dayOf(observedAtMs(bestRun)) } };
    }
    const regression = regressionOf(task, inWindow);
    if (regression) regressions.push(regression);
  }
  // The funnel's order, LOGIN last (it stands beside the ladder).
  const order = [...FUNNEL_TASKS, 'LOGIN'] as TaskKey[];
  regressions.sort((a, b) => order.indexOf(a.task) - order.indexOf(b.task));
  return { seen: seenList, tasks, regressions };
}

function regressionOf(task: TaskKey, results: Map<string, { working: EvidenceReport[]; failing: EvidenceReport[] }>): Regression | null {
  for (const kind of ['semver', 'text'] as const) {
    const versions = [...results.entries()]
      .filter(([v, e]) => parseVersion(v).kind === kind && (e.working.length > 0 || e.failing.length > 0))
      .sort(([a], [b]) => -compareVersionsNewestFirst(a, b)); // oldest first
    // Versions equal in precedence (0.7 and 0.7.0) are one step: merge them.
    const steps: Array<{ versions: string[]; working: EvidenceReport[]; failing: EvidenceReport[] }> = [];
    for (const [v, e] of versions) {
      const last = steps[steps.length - 1];
      if (last && compareVersions(last.versions[0]!, v) === 0) {
        last.versions.push(v);
        last.working.push(...e.working);
        last.failing.push(...e.failing);
      } else steps.push({ versions: [v], working: [...e.working], failing: [...e.failing] });
    }
    const newest = steps[steps.length - 1];
    if (!newest || newest.working.length > 0 || newest.failing.length === 0) continue;
    // Walk down while versions only failed; the first one that worked is "worked up to".
    let i = steps.length - 1;
    while (i >= 0 && steps[i]!.working.length === 0) i -= 1;
    if (i < 0) continue;
    const workedStep = steps[i]!;
    const failingSteps = steps.slice(i + 1);
    const failing = failingSteps.flatMap((s) => s.failing).sort(compareNewestFirst);
    return {
      task,
      workedUpTo: workedStep.versions.sort(compareVersionsNewestFirst)[0]!,
      failsSince: failingSteps[0]!.versions.sort(compareVersionsNewestFirst)[0]!,
      newest: newest.versions.sort(compareVersionsNewestFirst)[0]!,
      evidence: {
        working: [...workedStep.working].sort(compareNewestFirst).slice(0, MAX_EVIDENCE).map((r) => r.id),
        failing: failing.slice(0, MAX_EVIDENCE).map((r) => r.id),
      },
      since: dayOf(observedAtMs(failing[failing.length - 1]!)),
    };
  }
  return null;
}
