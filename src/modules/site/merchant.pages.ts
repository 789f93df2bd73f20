// A merchant's page (`/merchants/:slug`): every agent's verdict there, task by task, the recent
// reports, trends and badges, read through the same services as the JSON API (merchantProfile,
// recentReports). Routes: http/routers/pages.ts.
import type { RequestHandler } from 'express';
import { cacheScope } from '../../web/middleware/response-cache.js';
import { sparklineSvg } from '../open-data/sparkline.js';
import { CAPABILITY_STATUS_LABELS as STATUS_WORDS, TASK_LABELS as TASK_WORDS, TASKS as TASK_KEYS } from '../aggregation/constants.js';
import type { AgentTrend } from '../aggregation/trends.js';
import { PAGE_SIZE } from '../directory/notice.js';
import { independentParam as INDEPENDENT_QUERY, pageParam } from '../directory/query.js';
import { merchantProfile } from '../merchants/merchants.service.js';
import { recentReports } from '../reports/public-reports.service.js';
import { matrixRows, PLACEMENT_LABELS, viewHelpers } from './present.js';
import { notFound, Refusal } from '../../errors.js';
import { formatDate } from '../../dates.js';
import { METHOD_SHORT } from '../claims/proof.js';
import { PAGE_PATHS } from '../../paths.js';
import { directoryContext, type SitePagesDeps } from './site.pages.js';

/** An agent's trend for the merchant page: the 90-day status, the tasks that moved, the sparkline. */
function trendView(summary: { agent: { name: string }; status: keyof typeof STATUS_WORDS; capabilities: Record<string, { status: keyof typeof STATUS_WORDS }> }, trend: AgentTrend) {
  return {
    reportCount: trend.reportCount,
    windowDays: trend.windowDays,
    statusLabel: STATUS_WORDS[trend.status],
    changed: trend.status !== summary.status,
    movedTasks: TASK_KEYS.filter((t) => trend.capabilities[t] !== 'untested' && trend.capabilities[t] !== summary.capabilities[t]?.status).map((t) => ({
      label: TASK_WORDS[t],
      lately: STATUS_WORDS[trend.capabilities[t]],
      allTime: STATUS_WORDS[summary.capabilities[t]!.status],
    })),
    sparkline: sparklineSvg(trend.months, summary.agent.name),
  };
}

/** GET /merchants/:slug?independent=&reports=: one merchant, its agents' verdicts and a page of its reports. */
export function merchantPage(deps: SitePagesDeps): RequestHandler {
  return async (req, res) => {
    const { config } = deps;
    const requested = String(req.params.slug);
    const c = directoryContext(deps);
    // Issue 37: independent reports alone (the default), or all, self-reported ones included.
    const independentParam = INDEPENDENT_QUERY.safeParse(typeof req.query.independent === 'string' ? req.query.independent : undefined);
    if (!independentParam.success) {
      throw new Refusal({ kind: 'invalid', code: 'validation-failed', title: 'Invalid choice of reports', detail: 'independent must be only or all.' });
    }
    const independent = independentParam.data;
    const merchant = await merchantProfile(c, requested, independent).catch((error: unknown) => {
      if (error instanceof Refusal && error.kind === 'not-found') {
        throw notFound('No public merchant has this address.', 'Merchant not found');
      }
      throw error;
    });
    if (merchant.slug !== requested) {
      res.redirect(301, `/merchants/${merchant.slug}`);
      return;
    }
    const reportsPageParam = pageParam.safeParse(typeof req.query.reports === 'string' ? req.query.reports : undefined);
    if (!reportsPageParam.success) {
      throw new Refusal({ kind: 'invalid', code: 'validation-failed', title: 'Invalid page', detail: 'The page of reports must be a whole number from 1.' });
    }
    const reportsPage = reportsPageParam.data;
    const reports = await recentReports(c, { merchant: merchant.id, page: reportsPage, independent });
    const selfReported = merchant.agents.reduce((n, a) => n + a.sources.selfReported, 0);
    // Built from this merchant alone (its footer dates its own newest report, not the
    // directory's): other merchants' changes keep it cached.
    cacheScope(res, [merchant.id]);
    const shown = new Set(reports.data.map((r) => r.id));
    const rows = matrixRows(merchant, (id, apiUrl) => (shown.has(id) ? `#report-${id}` : apiUrl));
    res.render('pages/merchant', {
      ...viewHelpers,
      updated: merchant.lastReportedAt
        ? { iso: merchant.lastReportedAt, text: formatDate(new Date(merchant.lastReportedAt)), of: 'the date of this merchant’s newest approved report' }
        : null,
      placementLabels: PLACEMENT_LABELS,
      claimMethodWords: METHOD_SHORT,
      title: merchant.name,
      merchant,
      rows,
      reports,
      reportsPage,
      reportsPages: Math.max(1, Math.ceil(reports.total / PAGE_SIZE)),
      independent,
      selfReported,
      versionRows: merchant.agents.filter((a) => a.versions.seen.length > 0),
      reportHref: `${PAGE_PATHS.newReport}?adId=${encodeURIComponent(merchant.id)}`,
      apiUrl: merchant.url,
      feeds: [{ title: `${merchant.name}: new reports and status changes`, href: `/merchants/${merchant.slug}/feed.atom` }],
      // Trends (last 90 days beside all time) with a sparkline of outcomes per month, and badges to embed.
      trends: new Map(merchant.agents.map((a) => [a.agent.slug, a.trend ? trendView(a, a.trend) : null])),
      badgeUrl: (agentSlug: string) => `${config.baseUrl}/badges/${merchant.slug}/${agentSlug}.svg`,
      pageUrl: `${config.baseUrl}/merchants/${merchant.slug}`,
    });
  };
}
