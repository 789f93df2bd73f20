// Atom feeds of the directory's news: newly approved reports, and changes of a status for a
// merchant, agent and task (written by the aggregation when it recomputes a summary), each
// naming how far the agent gets there now (its reach label, the API's). Site-wide, or for one
// merchant, agent or category. Public data only, through the same views as the API;
// sponsorship never appears. Written with the `feed` library.
import ejs from 'ejs';
import { Feed } from 'feed';
import type { PrismaClient } from '../../db/client.js';
import { notFound } from '../../errors.js';
import { CAPABILITY_STATUS_LABELS, OUTCOME_LABELS, TASK_LABELS, TASKS, type CapabilityStatus, type TaskKey } from '../aggregation/constants.js';
import { REGRESSION_WINDOW_DAYS } from '../aggregation/agent-versions.js';
import { summaryVerdict } from '../aggregation/verdict.js';
import { findActiveAgent } from '../catalog/catalog.repository.js';
import { agentPageUrl, categoryPageUrl, DISCLAIMER, merchantPageUrl, methodologyUrl, type Links } from '../directory/notice.js';
import { findPublicMerchant } from '../merchants/merchants.repository.js';
import { latestApprovedReports, type PublicReportRow } from '../reports/public-reports.repository.js';
import { reportView } from '../reports/public-reports.service.js';
import { currentVerdicts, latestStatusChanges, type StatusChangeRow, type StoredVerdict } from './feeds.repository.js';
import { DATA_LICENCE } from './licence.js';
import { SLUG_PATTERN } from '../../text.js';

/** Entries per feed: the newest of both kinds together. */
const FEED_ENTRIES = 50;

export type FeedScope = { kind: 'site' } | { kind: 'merchant' | 'agent' | 'category'; slug: string };

/** Characters XML 1.0 cannot carry at all: one in a name would make every feed that lists it ill-formed. */
// eslint-disable-next-line no-control-regex
const NOT_XML = /[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/**
 * The pages' own escaping (EJS's), for every text that goes into an entry: titles and contents
 * are `type="html"`, so a name is HTML text there, and an escaped `>` can never close the
 * library's CDATA section early.
 */
const xmlText = (text: string) => text.replace(NOT_XML, '\uFFFD');
const escapeHtml = (text: string) => ejs.escapeXML(xmlText(text));

interface Entry {
  id: string;
  title: string;
  link: string;
  date: Date;
  content: string;
}

/** Where the scope's feed and page live, and which rows belong to it; 404 for an unknown slug. */
async function resolveScope(prisma: PrismaClient, links: Links, scope: FeedScope, now: Date) {
  const base = links.baseUrl;
  // A slug that cannot exist is a 404 before any query.
  if (scope.kind !== 'site' && !SLUG_PATTERN.test(scope.slug)) throw notFound('Nothing has this address.');
  switch (scope.kind) {
    case 'site':
      return { title: 'Agent-Compatibility Directory', page: `${base}/`, self: `${base}/feed.atom`, filter: {} };
    case 'merchant': {
      const merchant = await findPublicMerchant(prisma, { slug: scope.slug }, now);
      if (!merchant) throw notFound('No public merchant has this address.');
      const page = merchantPageUrl(links, merchant.slug);
      return { title: `${merchant.name} — Agent-Compatibility Directory`, page, self: `${page}/feed.atom`, filter: { merchantId: merchant.id } };
    }
    case 'agent': {
      const agent = await findActiveAgent(prisma, scope.slug);
      if (!agent) throw notFound('No active agent has this name.');
      const page = agentPageUrl(links, agent.slug);
      return { title: `${agent.name} — Agent-Compatibility Directory`, page, self: `${page}/feed.atom`, filter: { agentId: agent.id } };
    }
    case 'category': {
      const category = await prisma.category.findUnique({ where: { slug: scope.slug }, select: { id: true, name: true, slug: true } });
      if (!category) throw notFound('There is no category at this address.');
      const page = categoryPageUrl(links, category.slug);
      return { title: `${category.name} — Agent-Compatibility Directory`, page, self: `${page}/feed.atom`, filter: { categoryId: category.id } };
    }
  }
}

/** The verdict on the agent at the merchant now, when it has public evidence there: the API's label. */
function verdictNow(
  verdicts: Map<string, StoredVerdict>,
  verdictUrl: string,
  row: { merchantId: string; agentId: string; agentName: string; merchantName: string },
): string {
  const stored = verdicts.get(`${row.merchantId}:${row.agentId}`);
  if (!stored) return '';
  const verdict = summaryVerdict(stored);
  return `<p data-verdict="${verdict.colour}">${escapeHtml(row.agentName)} at ${escapeHtml(row.merchantName)} now: <strong>${escapeHtml(verdict.symbol)} ${escapeHtml(verdict.sentence)}</strong> (${escapeHtml(verdict.colour)}; ${escapeHtml(verdict.evidenceText)}; <a href="${escapeHtml(verdictUrl)}">how the verdict is made</a>).</p>`;
}

/** The entry of a newly approved report, ending with the verdict now (`verdict`, from verdictNow). */
function reportEntry(links: Links, row: PublicReportRow & { approvedAt: Date }, verdict: string): Entry {
  const report = reportView(links, row);
  const page = merchantPageUrl(links, row.merchantSlug);
  const tasks = TASKS.filter((t) => report.capabilityResults[t]).map(
    (t) => `<li>${escapeHtml(TASK_LABELS[t])}: ${escapeHtml(OUTCOME_LABELS[report.capabilityResults[t]!])}</li>`,
  );
  return {
    id: `urn:uuid:${report.id}`,
    title: escapeHtml(`${row.agentName} on ${row.merchantName}: ${OUTCOME_LABELS[report.outcome]}${report.selfReported ? ' (self-reported)' : ''}`),
    link: page,
    date: row.approvedAt,
    content: [
      `<p>A report was approved: <strong>${escapeHtml(row.agentName)}</strong> on <a href="${escapeHtml(page)}">${escapeHtml(row.merchantName)}</a>, overall <strong>${escapeHtml(OUTCOME_LABELS[report.outcome])}</strong>${report.testedAt ? `, tested ${report.testedAt}` : ''}.</p>`,
      report.selfReported
        ? `<p><strong>Self-reported:</strong> by ${report.selfReportedBy === 'owner' ? 'the shop’s verified owner' : 'the agent’s verified vendor'}; not counted in the statuses.</p>`
        : '',
      tasks.length ? `<ul>${tasks.join('')}</ul>` : '',
      report.experience ? `<blockquote><p>${escapeHtml(report.experience)}</p></blockquote>` : '',
      verdict,
      `<p><a href="${escapeHtml(report.url)}">The report (JSON)</a> · <a href="${escapeHtml(page)}">the merchant's page</a></p>`,
      `<p><small>${escapeHtml(DISCLAIMER)}</small></p>`,
    ].join(''),
  };
}

/** The entry of a change written by the aggregation: a regression, or a status that changed; ending with the verdict now. */
function changeEntry(links: Links, change: StatusChangeRow, verdict: string): Entry {
  const page = merchantPageUrl(links, change.merchantSlug);
  const what = change.task ? TASK_LABELS[change.task as TaskKey] : 'Overall status';
  if (change.kind === 'regression') {
    // Issue 37: a newer agent version fails a task an older one passed (agent-versions.ts).
    return {
      id: `urn:uuid:${change.id}`,
      title: escapeHtml(`${change.agentName} on ${change.merchantName}: ${what} regressed in version ${change.toStatus}`),
      link: page,
      date: change.changedAt,
      content: [
        `<p>A regression: <strong>${escapeHtml(what)}</strong> for <strong>${escapeHtml(change.agentName)}</strong> on <a href="${escapeHtml(page)}">${escapeHtml(change.merchantName)}</a> worked up to version <strong>${escapeHtml(change.fromStatus)}</strong> and fails since version <strong>${escapeHtml(change.toStatus)}</strong>, by approved reports of the last ${REGRESSION_WINDOW_DAYS} days.</p>`,
        verdict,
        `<p><a href="${escapeHtml(methodologyUrl(links))}#versions">How versions and regressions are read</a></p>`,
        `<p><small>${escapeHtml(DISCLAIMER)}</small></p>`,
      ].join(''),
    };
  }
  const from = CAPABILITY_STATUS_LABELS[change.fromStatus as CapabilityStatus];
  const to = CAPABILITY_STATUS_LABELS[change.toStatus as CapabilityStatus];
  return {
    id: `urn:uuid:${change.id}`,
    title: escapeHtml(`${change.agentName} on ${change.merchantName}: ${what} changed from ${from} to ${to}`),
    link: page,
    date: change.changedAt,
    content: [
      `<p>${escapeHtml(what)} for <strong>${escapeHtml(change.agentName)}</strong> on <a href="${escapeHtml(page)}">${escapeHtml(change.merchantName)}</a> changed from <strong>${escapeHtml(from)}</strong> to <strong>${escapeHtml(to)}</strong>, as approved reports were added, changed or aged.</p>`,
      verdict,
      `<p><a href="${escapeHtml(methodologyUrl(links))}">How statuses are computed</a></p>`,
      `<p><small>${escapeHtml(DISCLAIMER)}</small></p>`,
    ].join(''),
  };
}

/** The Atom document of the scope (`where`, from resolveScope) with these entries, newest first. */
function feedXml(links: Links, where: { title: string; page: string; self: string }, entries: Entry[]): string {
  const feed = new Feed({
    id: where.self,
    title: xmlText(where.title),
    description: `Newly approved reports and status changes. ${DISCLAIMER}`,
    link: where.page,
    feedLinks: { atom: where.self },
    updated: entries[0]?.date ?? new Date(0),
    copyright: `${DATA_LICENCE.name} — ${DATA_LICENCE.attribution}`,
    author: { name: 'Agent-Compatibility Directory contributors', link: `${links.baseUrl}/` },
    generator: false,
  });
  for (const entry of entries) {
    feed.addItem({ id: entry.id, title: entry.title, link: entry.link, date: entry.date, content: entry.content });
  }
  return feed.atom1();
}

/** The feed's XML, and for a merchant's feed that merchant's id (it shows that merchant alone). */
export async function atomFeed(deps: { prisma: PrismaClient } & Links, scope: FeedScope, now: Date): Promise<{ xml: string; merchantId: string | null }> {
  const where = await resolveScope(deps.prisma, deps, scope, now);
  const [reports, changes] = await Promise.all([
    latestApprovedReports(deps.prisma, where.filter, FEED_ENTRIES),
    latestStatusChanges(deps.prisma, where.filter, FEED_ENTRIES),
  ]);
  const pairs = new Map([...reports, ...changes].map((row) => [`${row.merchantId}:${row.agentId}`, { merchantId: row.merchantId, agentId: row.agentId }]));
  const verdicts = await currentVerdicts(deps.prisma, [...pairs.values()]);
  const verdictUrl = `${methodologyUrl(deps)}#verdict`;
  const entries: Entry[] = [
    ...reports.map((row) => reportEntry(deps, row, verdictNow(verdicts, verdictUrl, row))),
    ...changes.map((change) => changeEntry(deps, change, verdictNow(verdicts, verdictUrl, change))),
  ]
    .sort((a, b) => b.date.getTime() - a.date.getTime() || (a.id < b.id ? 1 : -1))
    .slice(0, FEED_ENTRIES);
  return { xml: feedXml(deps, where, entries), merchantId: 'merchantId' in where.filter ? (where.filter.merchantId ?? null) : null };
}
