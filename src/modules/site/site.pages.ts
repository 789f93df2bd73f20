// The public site's small pages, and what every public page shares: the site icon,
// `/how-it-works`, the problem types, the agent guide, the footer's date and the browser's
// caching. The directory (`/`, `/categories/:slug`, `/agents/:slug`) is in ./directory.pages.ts,
// a merchant's page in ./merchant.pages.ts. Every page reads through the same services as the
// JSON API (searchDirectory, merchantProfile, recentReports, categories, agents) and the same
// aggregation constants, so a merchant looks the same everywhere. One function per use case.
// Routes: http/routers/pages.ts.
import type { RequestHandler } from 'express';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config/env.js';
import type { PrismaClient } from '../../db/client.js';
import { isProblemCode, PROBLEM_TYPES, problemTypeUrl } from '../../problem-types.js';
import { MAX_EVIDENCE_REFERENCES } from '../aggregation/constants.js';
import { TREND_DAYS, TREND_MONTHS } from '../aggregation/trends.js';
import { methodology } from '../aggregation/methodology.js';
import { DISCLAIMER, PAGE_SIZE } from '../directory/notice.js';
import { OWNER_STATEMENT_ATTRIBUTION, type DirectoryContext } from '../merchants/merchants.service.js';
import type { CountCache } from '../directory/counts.js';
import { CONTRIBUTION_SCHEMA_PATH } from '../reports/contribution-schema.js';
import { agentGuide, agentGuideReference, type McpFacts } from './agent-guide.js';
import { confidenceInWords, SPONSORED_LABEL, viewHelpers } from './present.js';
import { newestApprovedReportAt } from './site.repository.js';
import { notFound } from '../../errors.js';
import { formatDate } from '../../dates.js';
import { CLAIM_RULES } from '../claims/rules.js';
import { EVIDENCE_RULES } from '../aggregation/evidence-rules.js';
import { SIGNAL_RULES } from '../moderation/signals.js';
import { checkerUserAgent } from '../../outbound/fetcher.js';
import { cacheControl } from '../../web/cache-control.js';

export interface SitePagesDeps {
  config: Config;
  prisma: PrismaClient;
  clock: Clock;
  /** What the agent guide prints about the MCP server (app.ts hands it over from src/mcp). */
  mcp: McpFacts;
  /** The directory lists' totals, cached per directory version. */
  counts: CountCache;
}

const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#0a58ca"/>' +
  '<path d="M8 17l5 5 11-12" fill="none" stroke="#fff" stroke-width="4" stroke-linecap="round" stroke-linejoin="round"/></svg>';

/** What the directory's services read with: the database, the links' base URL, and now. */
export const directoryContext = (deps: SitePagesDeps): DirectoryContext => ({
  prisma: deps.prisma,
  counts: deps.counts,
  baseUrl: deps.config.baseUrl,
  now: deps.clock.now(),
});

/** What the footer of every public page shows: the date of the newest approved report. */
export async function freshness(prisma: PrismaClient) {
  const at = await newestApprovedReportAt(prisma);
  return { updated: at ? { iso: at.toISOString(), text: formatDate(at) } : null };
}

/** Public pages may be cached briefly by the browser only: the header shows who is signed in. */
export const browserCachedPage: RequestHandler = (_req, res, next) => {
  cacheControl(res, 'browser-revalidate');
  next();
};

/** GET /favicon.ico and /favicon.svg: the site icon (browsers ask for /favicon.ico even for plain-text pages). */
export const favicon: RequestHandler = (_req, res) => {
  cacheControl(res, { publicSeconds: 86_400 }).type('image/svg+xml').send(FAVICON_SVG);
};

/** GET /how-it-works: the methodology, the rules and the labels, printed from the code. */
export function howItWorksPage(deps: SitePagesDeps): RequestHandler {
  return async (_req, res) => {
    res.render('pages/how-it-works', {
      trendDays: TREND_DAYS,
      trendMonths: TREND_MONTHS,
      ...viewHelpers,
      ...(await freshness(deps.prisma)),
      confidenceExplained: confidenceInWords(),
      title: 'How it works',
      m: methodology(deps.clock.now()),
      disclaimer: DISCLAIMER,
      ownerAttribution: OWNER_STATEMENT_ATTRIBUTION,
      claimRules: CLAIM_RULES,
      evidenceRules: EVIDENCE_RULES,
      signalRules: SIGNAL_RULES,
      checkerUserAgent: checkerUserAgent(deps.config.baseUrl),
      sponsoredLabel: SPONSORED_LABEL,
      maxEvidence: MAX_EVIDENCE_REFERENCES,
      pageSize: PAGE_SIZE,
      contributionSchemaUrl: CONTRIBUTION_SCHEMA_PATH,
    });
  };
}

/** GET /problems: every problem type the API answers with. */
export function problemsPage(deps: SitePagesDeps): RequestHandler {
  return async (_req, res) => {
    res.render('pages/problems', {
      ...(await freshness(deps.prisma)),
      title: 'Problem types',
      problems: Object.entries(PROBLEM_TYPES).map(([code, p]) => ({ code, ...p })),
    });
  };
}

/** GET /problems/:code: one problem type (the address its `type` URL names). */
export function problemPage(deps: SitePagesDeps): RequestHandler {
  return async (req, res) => {
    const code = String(req.params.code);
    if (!isProblemCode(code)) {
      throw notFound('No problem type has this code; /problems lists them all.', 'Problem type not found');
    }
    res.render('pages/problem', { ...(await freshness(deps.prisma)), title: PROBLEM_TYPES[code].title, code, problem: PROBLEM_TYPES[code], typeUrl: problemTypeUrl(deps.config.baseUrl, code) });
  };
}

/** GET /agent-guide: the guide for AI agents (the flow, the rules of a report, a worked example), plain text. */
export function agentGuidePage(deps: SitePagesDeps): RequestHandler {
  return (_req, res) => {
    cacheControl(res, { publicSeconds: 300, staleIfError: true });
    res.type('text/plain; charset=utf-8').send(agentGuide(deps.config.baseUrl, deps.config.limits, deps.mcp));
  };
}

/** GET /agent-guide/reference: the rest of what an agent may need, plain text. */
export function agentGuideReferencePage(deps: SitePagesDeps): RequestHandler {
  return (_req, res) => {
    cacheControl(res, { publicSeconds: 300, staleIfError: true });
    res.type('text/plain; charset=utf-8').send(agentGuideReference(deps.config.baseUrl, deps.config.limits, deps.mcp));
  };
}
