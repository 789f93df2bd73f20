// Embeddable status badges (shields style, rendered by shields.io's own badge-maker, which
// escapes its text): one agent's status on one merchant, overall or for one task. Public
// summaries only, the same the API shows; an unknown merchant or agent is a grey "unknown".
import { makeBadge } from 'badge-maker';
import type { PrismaClient } from '../../db/client.js';
import { TASK_LABELS, TASKS, type CapabilityStatus, type TaskKey } from '../aggregation/constants.js';
import type { AgentSummary } from '../aggregation/engine.js';
import { findActiveAgent } from '../catalog/catalog.repository.js';
import { findPublicMerchant, summariesFor } from '../merchants/merchants.repository.js';
import { SLUG_PATTERN } from '../../text.js';

/** The words and colour of each status on a badge (short: badges are small). */
export const BADGE_STATUS: Readonly<Record<CapabilityStatus, { message: string; color: string }>> = {
  supported: { message: 'supported', color: '#2e7d32' },
  partial: { message: 'partial', color: '#b26a00' },
  blocked: { message: 'blocked', color: '#c62828' },
  unsupported: { message: 'unsupported', color: '#c62828' },
  unknown: { message: 'unknown evidence', color: '#6e6e6e' },
  untested: { message: 'untested', color: '#6e6e6e' },
};

export interface Badge {
  status: 200 | 400 | 404;
  svg: string;
}

const grey = (status: 400 | 404, label: string, message: string): Badge => ({ status, svg: makeBadge({ label, message, color: '#6e6e6e' }) });

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
  const status: CapabilityStatus = summary ? (task ? summary.capabilities[task].status : summary.status) : 'untested';
  const shown = BADGE_STATUS[status];
  const label = task ? `${agent.name} · ${TASK_LABELS[task].toLowerCase()}` : agent.name;
  const confidence = summary && status !== 'untested' ? `, ${(task ? summary.capabilities[task].confidence : summary.confidence)} confidence` : '';
  return { status: 200, svg: makeBadge({ label, message: `${shown.message}${confidence}`, color: shown.color }) };
}
