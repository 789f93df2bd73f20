// Embeddable badges (shields style, rendered by shields.io's own badge-maker, which escapes its
// text): how far one agent gets on one merchant (its reach label, coloured by the reach's tone),
// or one task's status with ?task=. Public summaries only, the same the API shows; an unknown
// merchant or agent is a grey "unknown".
import { makeBadge } from 'badge-maker';
import type { PrismaClient } from '../../db/client.js';
import { TASK_LABELS, TASKS, UNTESTED_SUMMARY_LABEL, type CapabilityStatus, type TaskKey } from '../aggregation/constants.js';
import type { AgentSummary } from '../aggregation/engine.js';
import { reachView, type ReachTone } from '../aggregation/reach.js';
import { findActiveAgent } from '../catalog/catalog.repository.js';
import { findPublicMerchant, summariesFor } from '../merchants/merchants.repository.js';
import { printableLine, SLUG_PATTERN } from '../../text.js';

/** The words and colour of each task status on a per-task badge (short: badges are small). */
export const BADGE_STATUS: Readonly<Record<CapabilityStatus, { message: string; color: string }>> = {
  supported: { message: 'supported', color: '#2e7d32' },
  partial: { message: 'partial', color: '#b26a00' },
  blocked: { message: 'blocked', color: '#c62828' },
  unsupported: { message: 'unsupported', color: '#c62828' },
  unknown: { message: 'unknown evidence', color: '#6e6e6e' },
  untested: { message: 'untested', color: '#6e6e6e' },
};

/**
 * The colour of each reach tone on an agent's badge. Amber is light enough that badge-maker
 * writes dark text on it (contrast above 7:1); the others carry white text.
 */
export const BADGE_TONE: Readonly<Record<ReachTone, string>> = {
  green: '#2e7d32',
  amber: '#ffc107',
  red: '#c62828',
  grey: '#6e6e6e',
};

/** Characters of a badge's message past which its optional clauses are dropped. */
export const BADGE_MESSAGE_MAX = 64;

/**
 * A reach label as a badge says it: its first letter lower-case (it follows the agent's name),
 * how far the agent gets and where it stops, with the reason, always kept; the clauses after
 * them ("… only partly works", "… not confirmed yet") kept only while it fits BADGE_MESSAGE_MAX.
 */
export function badgeMessage(label: string): string {
  const clauses = label.split('; ');
  const stop = clauses.findIndex((clause) => /^(usually )?stop/i.test(clause));
  const kept = clauses.slice(0, stop === 1 ? 2 : 1);
  for (const clause of clauses.slice(kept.length)) {
    if ([...kept, clause].join('; ').length > BADGE_MESSAGE_MAX) break;
    kept.push(clause);
  }
  const message = kept.join('; ');
  return message.charAt(0).toLowerCase() + message.slice(1);
}

export interface Badge {
  status: 200 | 400 | 404;
  svg: string;
  /** The merchant it shows (a 200's); its answer changes with that merchant alone. */
  merchantId?: string;
}

/**
 * badge-maker escapes markup but passes control characters through, which XML 1.0 cannot carry:
 * a name holding one made the whole badge ill-formed. Every text goes in as one printable line.
 */
const svgBadge = (format: { label: string; message: string; color: string }) =>
  makeBadge({ ...format, label: printableLine(format.label), message: printableLine(format.message) });

const grey = (status: 400 | 404, label: string, message: string): Badge => ({ status, svg: svgBadge({ label, message, color: '#6e6e6e' }) });

export async function badge(prisma: PrismaClient, input: { merchantSlug: string; agentSlug: string; task?: string }, now: Date): Promise<Badge> {
  if (input.task !== undefined && !(TASKS as readonly string[]).includes(input.task)) {
    return grey(400, 'agent compatibility', `task must be one of ${TASKS.join(', ')}`);
  }
  const task = input.task as TaskKey | undefined;
  const [merchant, agent] =
    SLUG_PATTERN.test(input.merchantSlug) && SLUG_PATTERN.test(input.agentSlug)
      ? await Promise.all([findPublicMerchant(prisma, { slug: input.merchantSlug }, now), findActiveAgent(prisma, input.agentSlug)])
      : [null, null];
  if (!merchant || !agent) return grey(404, 'agent compatibility', 'unknown');
  const [row] = await summariesFor(prisma, [merchant.id], agent.id);
  const summary = row?.summary as AgentSummary | undefined;
  if (task) {
    const capability = summary?.capabilities[task];
    const status: CapabilityStatus = capability?.status ?? 'untested';
    const confidence = capability && status !== 'untested' ? `, ${capability.confidence} confidence` : '';
    const shown = BADGE_STATUS[status];
    return { status: 200, merchantId: merchant.id, svg: svgBadge({ label: `${agent.name} · ${TASK_LABELS[task].toLowerCase()}`, message: `${shown.message}${confidence}`, color: shown.color }) };
  }
  // How far the agent gets: the API's label (reach.label), coloured by reach and confidence.
  const reach = summary ? reachView(summary) : null;
  const message = badgeMessage(reach?.label ?? UNTESTED_SUMMARY_LABEL);
  return { status: 200, merchantId: merchant.id, svg: svgBadge({ label: agent.name, message, color: BADGE_TONE[reach?.tone ?? 'grey'] }) };
}
