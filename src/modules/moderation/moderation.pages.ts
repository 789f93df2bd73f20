// The moderators' overview and the screenshots streamed to moderators only, and what the
// report pages share: the queue and bulk decisions are in report-queue.pages.ts, one report and
// its decisions in report-review.pages.ts. Routes: http/routers/admin.ts.
import type { RequestHandler } from 'express';
import type { Clock } from '../../clock.js';
import type { PrismaClient } from '../../db/client.js';
import type { ReportStatus } from '../../generated/prisma/enums.js';
import { screenshotFile } from '../evidence/screenshots.repository.js';
import { sendScreenshot } from '../evidence/screenshot.pages.js';
import { idParam, notFoundPage, renderAdmin } from '../../web/admin-pages.js';
import { recentAuditEntries } from '../audit/audit.repository.js';
import { auditTargetUrl } from '../audit/audit.pages.js';
import { oldestPending, queueCounts } from './queue.repository.js';

export interface ModerationDeps {
  prisma: PrismaClient;
  clock: Clock;
}

export const STATUS_LABEL: Record<ReportStatus, string> = { PENDING: 'Pending', APPROVED: 'Approved', REJECTED: 'Rejected' };

/** GET /admin: the overview, with the queue's counts, its oldest pending report and the latest audit rows. */
export function moderationOverview(deps: ModerationDeps): RequestHandler {
  return async (req, res) => {
    const [counts, oldest, recent] = await Promise.all([queueCounts(deps.prisma), oldestPending(deps.prisma), recentAuditEntries(deps.prisma, 10)]);
    renderAdmin(req, res, 'index', { title: 'Moderation', section: 'overview', counts, oldest, recent, auditTargetUrl, now: deps.clock.now() });
  };
}

/**
 * GET /admin/evidence/:id: a report's screenshot. Screenshots: only through this route (or the
 * author's own), only for moderators (the gate runs first), never from a static path
 * (evidence/screenshot.pages.ts).
 */
export function evidenceScreenshot(deps: { prisma: PrismaClient; dataDir: string }): RequestHandler {
  return async (req, res) => {
    const id = idParam(req, 'Screenshot');
    const file = await screenshotFile(deps.prisma, id);
    if (!file || !(await sendScreenshot(res, deps.dataDir, id, file))) throw notFoundPage('Screenshot');
  };
}
