// The moderators' audit log page: every decision and change, newest first, filtered by what
// it changed and by action. Routes: http/routers/admin.ts.
import type { RequestHandler } from 'express';
import type { PrismaClient } from '../../db/client.js';
import { renderAdmin } from '../../web/admin-pages.js';
import { AUDIT_TARGET_TYPES, auditPage, type AuditTargetType } from './audit.repository.js';

const AUDIT_PAGE_SIZE = 50;

const SECTIONS: Record<AuditTargetType, string> = {
  report: 'reports',
  merchant: 'merchants',
  category: 'categories',
  agent: 'agents',
  account: 'accounts',
  claim: 'claims',
  reply: 'replies',
  correction: 'corrections',
};

/** Where an audit row's target is managed. */
export function auditTargetUrl(targetType: string, targetId: string): string | null {
  const section = Object.hasOwn(SECTIONS, targetType) ? SECTIONS[targetType as AuditTargetType] : undefined;
  return section ? `/admin/${section}/${targetId}` : null;
}

/** GET /admin/audit: a page of the audit log (?targetType=, ?action=, ?page=). */
export function auditLog(deps: { prisma: PrismaClient }): RequestHandler {
  return async (req, res) => {
    const targetTypes: readonly string[] = AUDIT_TARGET_TYPES;
    const targetType = typeof req.query.targetType === 'string' && targetTypes.includes(req.query.targetType) ? req.query.targetType : '';
    const action = typeof req.query.action === 'string' ? req.query.action.trim().slice(0, 100) : '';
    const page = typeof req.query.page === 'string' && /^\d{1,5}$/.test(req.query.page) ? Math.max(1, Number(req.query.page)) : 1;
    const { total, entries, actions } = await auditPage(deps.prisma, { targetType, action }, (page - 1) * AUDIT_PAGE_SIZE, AUDIT_PAGE_SIZE);
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
      actions,
      auditTargetUrl,
    });
  };
}
