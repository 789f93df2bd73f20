// Embeddable badges (shields style, rendered by shields.io's own badge-maker, which escapes its
// text): the agent on the left; on the right the verdict's few words and symbol ("checkout ✓"),
// in the verdict's colour, outlined by a hatch when the verdict is low confidence (confidence
// never changes the hue); the whole sentence and its evidence in the title. Or one task's status
// with ?task=. Public summaries only, the same the API shows; an unknown merchant or agent is a
// grey "unknown".
import ejs from 'ejs';
import { makeBadge } from 'badge-maker';
import type { PrismaClient } from '../../db/client.js';
import { CONFIDENCE_LABELS, TASK_LABELS, TASKS, type CapabilityStatus, type TaskKey } from '../aggregation/constants.js';
import type { AgentSummary } from '../aggregation/engine.js';
import { summaryVerdict, UNTESTED_FACTS, verdictOf, type Verdict, type VerdictColour } from '../aggregation/verdict.js';
import { findActiveAgent } from '../catalog/catalog.repository.js';
import { findPublicMerchant, summariesFor } from '../merchants/merchants.repository.js';
import { printableLine, SLUG_PATTERN } from '../../text.js';

/**
 * The words and symbol of each task status on a per-task badge. One colour for all of them: the
 * colours belong to the verdict (how far the agent gets), and a single task is not that answer.
 */
export const BADGE_STATUS: Readonly<Record<CapabilityStatus, string>> = {
  supported: 'works ✓',
  partial: 'partly works ◐',
  blocked: 'blocked ⊘',
  unsupported: "doesn't work ✕",
  unknown: 'unclear ?',
  untested: 'not tested –',
};

/** The one colour of per-task badges (a neutral slate, white text). */
export const TASK_BADGE_COLOUR = '#4c5a6b';

/**
 * The colour of each verdict colour on a badge. Amber is light enough that badge-maker writes
 * dark text on it (contrast above 7:1); the others carry white text.
 */
export const BADGE_COLOURS: Readonly<Record<VerdictColour, string>> = {
  green: '#2e7d32',
  amber: '#ffc107',
  red: '#c62828',
  grey: '#6e6e6e',
};

// badge-maker escapes markup but passes control characters through, which XML 1.0 cannot carry:
// a name holding one made the whole badge ill-formed. Every text goes in as one printableLine.

/** The badge's title: who, where, the verdict's sentence, its evidence and confidence. */
function badgeTitle(agentName: string, merchantName: string, verdict: Verdict): string {
  const sure = verdict.evidence.reports > 0 ? `, ${CONFIDENCE_LABELS[verdict.confidence].toLowerCase()}` : '';
  return `${agentName} at ${merchantName}: ${verdict.sentence} (${verdict.evidenceText}${sure})`;
}

/** Widest badge, in pixels: it must sit in a line of a README. */
const BADGE_MAX_WIDTH = 200;

const widthOf = (svg: string) => Number(/^<svg [^>]*width="(\d+)"/.exec(svg)?.[1] ?? 0);

/** A badge no wider than BADGE_MAX_WIDTH: a long agent name is shortened with "…" (the title has it whole). */
function fittedBadge(agentName: string, message: string, color: string): string {
  let label = printableLine(agentName);
  let svg = makeBadge({ label, message, color });
  while (widthOf(svg) > BADGE_MAX_WIDTH && label.length > 4) {
    label = `${[...label].slice(0, -2).join('').trimEnd()}…`;
    svg = makeBadge({ label, message, color });
  }
  return svg;
}

/** The verdict's badge: "agent | checkout ✓", hatched when low confidence, the sentence as its title. */
function verdictBadge(agentName: string, merchantName: string, verdict: Verdict): string {
  const title = ejs.escapeXML(printableLine(badgeTitle(agentName, merchantName, verdict)));
  let svg = fittedBadge(agentName, `${verdict.short} ${verdict.symbol}`, BADGE_COLOURS[verdict.colour]);
  svg = svg.replace(/aria-label="[^"]*"/, `aria-label="${title}"`).replace(/<title>[^<]*<\/title>/, `<title>${title}</title>`);
  if (verdict.confidence === 'low' && verdict.evidence.reports > 0) {
    // A hatch over the message's half: the same hue, marked as tentative.
    svg = svg.replace(
      /(<rect x="(\d+)" width="(\d+)" height="20" fill="#[0-9a-f]{6}"\/>)/,
      '<defs><pattern id="low" width="4" height="4" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="2" height="4" fill="#fff" fill-opacity=".35"/></pattern></defs>$1<rect x="$2" width="$3" height="20" fill="url(#low)" data-confidence="low"/>',
    );
  }
  return svg;
}

export interface Badge {
  status: 200 | 400 | 404;
  svg: string;
  /** The merchant it shows (a 200's); its answer changes with that merchant alone. */
  merchantId?: string;
}

const grey = (status: 400 | 404, label: string, message: string): Badge => ({ status, svg: makeBadge({ label: printableLine(label), message: printableLine(message), color: '#6e6e6e' }) });

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
    const label = printableLine(`${agent.name} · ${TASK_LABELS[task].toLowerCase()}`);
    return { status: 200, merchantId: merchant.id, svg: makeBadge({ label, message: `${BADGE_STATUS[status]}${confidence}`, color: TASK_BADGE_COLOUR }) };
  }
  // The verdict, as every surface shows it.
  const verdict = summary ? summaryVerdict(summary) : verdictOf(UNTESTED_FACTS);
  return { status: 200, merchantId: merchant.id, svg: verdictBadge(agent.name, merchant.name, verdict) };
}
