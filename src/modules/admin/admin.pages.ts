// The moderators' route, /admin: server-rendered pages behind the moderator gate. Mounted by
// the pages router, which already gives sessions, CSRF tokens and the Origin rule on every
// POST; this router adds the role check and never answers to agent keys.
import { Router } from 'express';
import type { Clock } from '../../clock.js';
import type { PrismaClient } from '../../db/client.js';
import { accountPages } from './accounts.pages.js';
import { renderAdmin, requireModerator } from './admin.http.js';
import { directoryPages } from './directory.pages.js';
import { oldestPending, queueCounts } from './reports.repository.js';
import { reportPages } from './reports.pages.js';

export interface AdminPagesDeps {
  prisma: PrismaClient;
  clock: Clock;
  baseUrl: string;
  dataDir: string;
}

export const AUDIT_PAGE_SIZE = 50;

/** Where an audit row's target is managed. */
export function auditTargetUrl(targetType: string, targetId: string): string | null {
  const section = { report: 'reports', merchant: 'merchants', category: 'categories', agent: 'agents', account: 'accounts' }[targetType];
  return section ? `/admin/${section}/${targetId}` : null;
}

export function adminPages(deps: AdminPagesDeps): Router {
  const router = Router();
  const { prisma } = deps;
  router.use(requireModerator);

  router.get('/', async (req, res) => {
    const [counts, oldest, recent] = await Promise.all([
      queueCounts(prisma),
      oldestPending(prisma),
      prisma.moderationAuditLog.findMany({
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        take: 10,
        include: { actor: { select: { email: true } } },
      }),
    ]);
    renderAdmin(req, res, 'index', {
      title: 'Moderation',
      section: 'overview',
      counts,
      oldest,
      recent,
      auditTargetUrl,
      now: deps.clock.now(),
    });
  });

  router.use(reportPages({ prisma, clock: deps.clock, dataDir: deps.dataDir }));
  router.use(directoryPages({ prisma, clock: deps.clock }));
  router.use(accountPages({ prisma, clock: deps.clock }));

  router.get('/audit', async (req, res) => {
    const targetTypes = ['report', 'merchant', 'category', 'agent', 'account'];
    const targetType = typeof req.query.targetType === 'string' && targetTypes.includes(req.query.targetType) ? req.query.targetType : '';
    const action = typeof req.query.action === 'string' ? req.query.action.trim().slice(0, 100) : '';
    const page = typeof req.query.page === 'string' && /^\d{1,5}$/.test(req.query.page) ? Math.max(1, Number(req.query.page)) : 1;
    const where = { ...(targetType ? { targetType } : {}), ...(action ? { action } : {}) };
    const [total, entries, actions] = await Promise.all([
      prisma.moderationAuditLog.count({ where }),
      prisma.moderationAuditLog.findMany({
        where,
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        skip: (page - 1) * AUDIT_PAGE_SIZE,
        take: AUDIT_PAGE_SIZE,
        include: { actor: { select: { email: true } } },
      }),
      prisma.moderationAuditLog.findMany({ distinct: ['action'], select: { action: true }, orderBy: { action: 'asc' } }),
    ]);
    const pageUrl = (p: number) => {
      const params = new URLSearchParams();
      if (targetType) params.set('targetType', targetType);
      if (action) params.set('action', action);
      if (p > 1) params.set('page', String(p));
      const qs = params.toString();
      return `/admin/audit${qs ? `?${qs}` : ''}`;
    };
    renderAdmin(req, res, 'audit', {
      title: 'Audit log',
      section: 'audit',
      entries,
      total,
      page,
      pages: Math.max(1, Math.ceil(total / AUDIT_PAGE_SIZE)),
      pageUrl,
      targetTypes,
      targetType,
      action,
      actions: actions.map((a) => a.action),
      auditTargetUrl,
    });
  });

  return router;
}
