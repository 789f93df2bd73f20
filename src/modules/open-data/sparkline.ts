// A small server-rendered SVG of a trend's reports per month (bars, no client library), for the
// merchant page. One neutral colour: the page's colours are the verdict's (how far an agent
// gets), so the outcomes of each month are said in the title and label, not in hues. Text is
// escaped; the SVG names what it shows for screen readers (role="img" with a label and a title).
import ejs from 'ejs';
import { OUTCOME_LABELS, OUTCOMES } from '../aggregation/constants.js';
import type { AgentTrend } from '../aggregation/trends.js';

const BAR_COLOUR = '#4c5a6b';

const BAR = 7;
const GAP = 2;
const HEIGHT = 24;

const escapeXml = (text: string) => ejs.escapeXML(text);

export function sparklineSvg(months: AgentTrend['months'], subject: string): string {
  const totals = months.map((m) => OUTCOMES.reduce((n, o) => n + m[o], 0));
  const peak = Math.max(1, ...totals);
  const described = months
    .filter((_, i) => totals[i]! > 0)
    .map((m) => `${m.month}: ${OUTCOMES.filter((o) => m[o] > 0).map((o) => `${m[o]} ${OUTCOME_LABELS[o].toLowerCase()}`).join(', ')}`);
  const label = `${subject}: reports per month over the last ${months.length} months${described.length ? ` (${described.join('; ')})` : ', none'}`;
  const bars = months.flatMap((_, i) => {
    if (totals[i] === 0) return [];
    const h = Math.max(1, Math.round((totals[i]! / peak) * (HEIGHT - 2)));
    return [`<rect x="${i * (BAR + GAP)}" y="${HEIGHT - h}" width="${BAR}" height="${h}" fill="${BAR_COLOUR}"/>`];
  });
  const width = months.length * (BAR + GAP) - GAP;
  return `<svg class="sparkline" xmlns="http://www.w3.org/2000/svg" width="${width}" height="${HEIGHT}" viewBox="0 0 ${width} ${HEIGHT}" role="img" aria-label="${escapeXml(label)}"><title>${escapeXml(label)}</title><line x1="0" y1="${HEIGHT - 0.5}" x2="${width}" y2="${HEIGHT - 0.5}" stroke="#bbb" stroke-width="1"/>${bars.join('')}</svg>`;
}
