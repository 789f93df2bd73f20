// What changed between two versions of a report, field by field, for the moderators' report
// page. A report's earlier versions are its `report_revisions` rows: each holds the content an
// author's edit replaced (in the submission body's shape, reports/content.ts), written at the
// moment of the edit. So the versions, oldest first, are the revision rows oldest first and then
// the report as it is now, and each edit is the step from one to the next. The experience text
// is compared word by word; every other field as a whole.
import {
  FAILURE_REASON_LABELS,
  OUTCOME_LABELS,
  STAGE_LABELS,
  TASK_LABELS,
  TASKS,
  type FailureReasonKey,
  type OutcomeKey,
  type StageKey,
} from '../aggregation/constants.js';
import type { ReportStatus } from '../../generated/prisma/enums.js';

/** One version's content as stored: a revision's JSON, or the report's columns. */
export interface VersionContent {
  capabilityResults?: Record<string, unknown> | null;
  outcome?: unknown;
  stage?: unknown;
  failureReason?: unknown;
  testedAt?: unknown;
  agentVersion?: unknown;
  region?: unknown;
  task?: unknown;
  humanIntervention?: unknown;
  experience?: unknown;
}

export interface WordPart {
  kind: 'same' | 'removed' | 'added';
  text: string;
}

export interface FieldDiff {
  key: string;
  label: string;
  before: string;
  after: string;
  changed: boolean;
  /** The experience text word by word (absent when unchanged, or too long to compare so). */
  beforeParts?: WordPart[];
  afterParts?: WordPart[];
}

export interface EditDiff {
  /** When the author's edit replaced the earlier version. */
  replacedAt: Date;
  /** The status the earlier version had when it was replaced. */
  statusBefore: ReportStatus;
  /** Whether the later version is the report as it is now. */
  afterIsCurrent: boolean;
  fields: FieldDiff[];
  changedCount: number;
}

const NONE = '—';
const text = (v: unknown): string => (typeof v === 'string' && v.trim() !== '' ? v : NONE);
const label = (labels: Readonly<Record<string, string>>, v: unknown): string =>
  typeof v === 'string' && v !== '' ? (labels[v] ?? v) : NONE;
const day = (v: unknown): string => (v instanceof Date ? v.toISOString().slice(0, 10) : typeof v === 'string' && v ? v.slice(0, 10) : NONE);

/** A version's fields as the report page words them, in the page's order. */
function displayFields(c: VersionContent): Array<{ key: string; label: string; value: string }> {
  const results = (c.capabilityResults && typeof c.capabilityResults === 'object' ? c.capabilityResults : {}) as Record<string, unknown>;
  return [
    ...TASKS.map((t) => ({
      key: `task:${t}`,
      label: TASK_LABELS[t],
      value: typeof results[t] === 'string' ? (OUTCOME_LABELS[results[t] as OutcomeKey] ?? String(results[t])) : 'Not attempted',
    })),
    { key: 'outcome', label: 'Overall outcome', value: label(OUTCOME_LABELS as Record<OutcomeKey, string>, c.outcome) },
    { key: 'stage', label: 'Furthest stage', value: label(STAGE_LABELS as Record<StageKey, string>, c.stage) },
    { key: 'failureReason', label: 'Failure reason', value: label(FAILURE_REASON_LABELS as Record<FailureReasonKey, string>, c.failureReason) },
    { key: 'testedAt', label: 'Tested on', value: day(c.testedAt) },
    { key: 'agentVersion', label: 'Agent version', value: text(c.agentVersion) },
    { key: 'region', label: 'Region', value: text(c.region) },
    { key: 'task', label: 'Task attempted', value: text(c.task) },
    {
      key: 'humanIntervention',
      label: 'Human intervention',
      value: c.humanIntervention === true ? 'Yes' : c.humanIntervention === false ? 'No' : NONE,
    },
    { key: 'experience', label: 'Experience', value: text(c.experience) },
  ];
}

/** Beyond this many word pairs the experience is shown whole, before and after. */
const WORD_DIFF_MAX_CELLS = 2_000_000;

/** The experience text compared word by word (a longest common subsequence of words). */
export function wordDiff(before: string, after: string): { before: WordPart[]; after: WordPart[] } | null {
  const a = before.split(/(\s+)/).filter((s) => s !== '');
  const b = after.split(/(\s+)/).filter((s) => s !== '');
  if (a.length * b.length > WORD_DIFF_MAX_CELLS) return null;
  const n = a.length;
  const m = b.length;
  // lcs[i][j]: the longest common subsequence of a[i..] and b[j..], in one flat array.
  const lcs = new Uint32Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i -= 1) {
    for (let j = m - 1; j >= 0; j -= 1) {
      lcs[i * (m + 1) + j] = a[i] === b[j] ? lcs[(i + 1) * (m + 1) + j + 1]! + 1 : Math.max(lcs[(i + 1) * (m + 1) + j]!, lcs[i * (m + 1) + j + 1]!);
    }
  }
  const left: WordPart[] = [];
  const right: WordPart[] = [];
  const push = (parts: WordPart[], kind: WordPart['kind'], word: string) => {
    const last = parts.at(-1);
    if (last && last.kind === kind) last.text += word;
    else parts.push({ kind, text: word });
  };
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      push(left, 'same', a[i]!);
      push(right, 'same', b[j]!);
      i += 1;
      j += 1;
    } else if (lcs[(i + 1) * (m + 1) + j]! >= lcs[i * (m + 1) + j + 1]!) {
      push(left, 'removed', a[i]!);
      i += 1;
    } else {
      push(right, 'added', b[j]!);
      j += 1;
    }
  }
  for (; i < n; i += 1) push(left, 'removed', a[i]!);
  for (; j < m; j += 1) push(right, 'added', b[j]!);
  return { before: joinChanges(left), after: joinChanges(right) };
}

/** Spaces alone between two changed runs join them: "BENIGN A" reads as one change, not two. */
function joinChanges(parts: WordPart[]): WordPart[] {
  const out: WordPart[] = [];
  for (let k = 0; k < parts.length; k += 1) {
    const part = parts[k]!;
    const prev = out.at(-1);
    const next = parts[k + 1];
    if (part.kind === 'same' && /^\s+$/.test(part.text) && prev && prev.kind !== 'same' && next && next.kind === prev.kind) {
      prev.text += part.text + next.text;
      k += 1;
    } else if (prev && prev.kind === part.kind) {
      prev.text += part.text;
    } else {
      out.push({ ...part });
    }
  }
  return out;
}

/** Every field of two versions side by side, the changed ones marked. */
export function diffContent(before: VersionContent, after: VersionContent): FieldDiff[] {
  const a = displayFields(before);
  const b = displayFields(after);
  return a.map((field, index) => {
    const next = b[index]!;
    const changed = field.value !== next.value;
    const diff: FieldDiff = { key: field.key, label: field.label, before: field.value, after: next.value, changed };
    if (changed && field.key === 'experience' && field.value !== NONE && next.value !== NONE) {
      const words = wordDiff(field.value, next.value);
      if (words) {
        diff.beforeParts = words.before;
        diff.afterParts = words.after;
      }
    }
    return diff;
  });
}

export interface RevisionRow {
  content: unknown;
  status: ReportStatus;
  createdAt: Date;
}

/**
 * Each edit of a report, newest first: the version it replaced against the version it made
 * (the next revision row, or the report as it is now for the newest edit).
 */
export function editDiffs(current: VersionContent, revisions: readonly RevisionRow[]): EditDiff[] {
  const newestFirst = [...revisions].sort((x, y) => y.createdAt.getTime() - x.createdAt.getTime());
  return newestFirst.map((rev, index) => {
    const later = index === 0 ? current : ((newestFirst[index - 1]!.content ?? {}) as VersionContent);
    const fields = diffContent((rev.content ?? {}) as VersionContent, later);
    return {
      replacedAt: rev.createdAt,
      statusBefore: rev.status,
      afterIsCurrent: index === 0,
      fields,
      changedCount: fields.filter((f) => f.changed).length,
    };
  });
}

/**
 * The content the report had at `revision` (an updatedAt a moderator reviewed): the first
 * revision row written after that moment holds it (an edit keeps what it replaced), and with
 * none the content is still the current one.
 */
export function contentAt(current: VersionContent, revisions: readonly RevisionRow[], revision: Date): VersionContent {
  const after = revisions
    .filter((r) => r.createdAt.getTime() > revision.getTime())
    .sort((x, y) => x.createdAt.getTime() - y.createdAt.getTime())[0];
  return after ? ((after.content ?? {}) as VersionContent) : current;
}
