// Shared pieces of the admin route tests: a demo directory with moderators, form posts with
// the CSRF token and the Origin rule, and picking reports no other test touches.
import type request from 'supertest';
import { expect } from 'vitest';
import { createDemoApp } from '../setup/demo.js';
import { TEST_BASE_URL, type TestApp } from '../setup/app.js';
import { captureMailer, csrfTokenOf, signIn } from '../setup/session.js';

export type Client = Awaited<ReturnType<typeof signIn>>;

export const MODERATOR = 'mod@example.org';
export const MODERATOR_2 = 'mod2@example.org';
export const ADMIN = 'admin@example.org';
export const USER = 'user@example.org';

export async function adminTestApp(env: Record<string, string> = {}) {
  const mailer = captureMailer();
  const t = await createDemoApp({ mailer, env: { MODERATOR_EMAILS: `${MODERATOR},${MODERATOR_2}`, ...env } });
  const as = (email: string) => signIn(t.app, mailer, email);
  return { t, mailer, as };
}

/** Posts a form as a browser would: the CSRF token of `pagePath`, our Origin. */
export async function postForm(client: Client, path: string, fields: Record<string, string | string[]> = {}, pagePath = '/admin') {
  const page = await client.get(pagePath);
  const token = csrfTokenOf(page.text);
  return client.post(path).set('Origin', TEST_BASE_URL).type('form').send({ _csrf: token, ...fields });
}

/** The revision a report page's decision forms carry (their hidden `revision` field). */
export function revisionIn(html: string): string {
  const values = new Set([...html.matchAll(/name="revision" value="([^"]+)"/g)].map((m) => m[1]!));
  if (values.size !== 1) throw new Error(`expected one revision in the page's decision forms, found ${values.size}`);
  return [...values][0]!;
}

/**
 * Posts a decision form as a moderator who has just read the report page does: the page's
 * CSRF token and the revision it showed (unless `fields` names another).
 */
export async function decideOnPage(client: Client, reportId: string, action: 'approve' | 'reject' | 'withdraw', fields: Record<string, string> = {}) {
  const page = await client.get(`/admin/reports/${reportId}`);
  expect(page.status).toBe(200);
  return client
    .post(`/admin/reports/${reportId}/${action}`)
    .set('Origin', TEST_BASE_URL)
    .type('form')
    .send({ _csrf: csrfTokenOf(page.text), revision: revisionIn(page.text), ...fields });
}

export interface ReportRef {
  id: string;
  merchantId: string;
  merchantSlug: string;
  agentId: string;
  agentSlug: string;
  accountId: string;
}

/** Hands out reports of public merchants and active agents, each merchant at most once. */
export function reportPicker(t: TestApp) {
  const used = new Set<string>();
  return async function pick(status: 'PENDING' | 'APPROVED', exclude: { merchantIds?: string[] } = {}): Promise<ReportRef> {
    const rows = await t.db.prisma.report.findMany({
      where: { status, merchant: { isPublic: true }, agent: { active: true } },
      orderBy: { id: 'asc' },
      select: { id: true, merchantId: true, agentId: true, accountId: true, merchant: { select: { slug: true } }, agent: { select: { slug: true } } },
    });
    const row = rows.find((r) => !used.has(r.merchantId) && !exclude.merchantIds?.includes(r.merchantId));
    if (!row) throw new Error(`no unused ${status} report`);
    used.add(row.merchantId);
    return {
      id: row.id,
      merchantId: row.merchantId,
      merchantSlug: row.merchant.slug,
      agentId: row.agentId,
      agentSlug: row.agent.slug,
      accountId: row.accountId,
    };
  };
}

/** What the public API says about one merchant and agent. */
export async function publicCounts(client: request.Agent | ReturnType<typeof request>, r: { merchantSlug: string; agentSlug: string }) {
  const res = await (client as request.Agent).get(`/api/v1/merchants/${r.merchantSlug}`);
  expect(res.status).toBe(200);
  const body = res.body as { data: { reportCount: number; agents: Array<{ agent: { slug: string }; counts: { total: number } }> } };
  return {
    merchant: body.data.reportCount,
    agent: body.data.agents.find((a) => a.agent.slug === r.agentSlug)?.counts.total ?? 0,
  };
}

export const redirectedTo = (res: request.Response, location: string) => {
  expect(res.status, res.text.slice(0, 500)).toBe(303);
  expect(res.headers.location).toBe(location);
};
