// Every admin page is valid HTML (html-validate's recommended rules), with and without errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../setup/app.js';
import { htmlProblems } from '../pages/html-validate.js';
import { adminTestApp, MODERATOR, postForm, type Client } from './helpers.js';

describe('admin pages are valid HTML', () => {
  let t: TestApp;
  let moderator: Client;

  beforeAll(async () => {
    let as: (email: string) => Promise<Client>;
    ({ t, as } = await adminTestApp());
    moderator = await as(MODERATOR);
  });
  afterAll(() => t.close());

  it('renders valid pages', async () => {
    const report = await t.db.prisma.report.findFirstOrThrow({ where: { status: 'PENDING', evidence: { none: {} } } });
    const approved = await t.db.prisma.report.findFirstOrThrow({ where: { status: 'APPROVED' } });
    await t.db.prisma.reportRevision.create({ data: { reportId: approved.id, status: 'APPROVED', content: { outcome: 'WORKS', experience: 'old' } } });
    const merchant = await t.db.prisma.merchant.findFirstOrThrow({ where: { sponsorship: { isNot: null } } });
    const category = await t.db.prisma.category.findFirstOrThrow();
    const agent = await t.db.prisma.agent.findFirstOrThrow();
    const account = await t.db.prisma.account.findFirstOrThrow({ where: { reports: { some: {} } } });
    await postForm(moderator, `/admin/reports/${approved.id}/notes`, { notes: 'a note' });
    const pages = [
      '/admin',
      '/admin/reports',
      '/admin/reports?status=APPROVED&minAgeDays=1',
      `/admin/reports/${report.id}`,
      `/admin/reports/${approved.id}`,
      '/admin/audit',
      '/admin/merchants',
      '/admin/merchants/new',
      `/admin/merchants/${merchant.id}`,
      `/admin/merchants/${merchant.id}/sponsorship`,
      `/admin/merchants/${merchant.id}/owner-statement`,
      '/admin/categories',
      `/admin/categories/${category.id}`,
      '/admin/agents',
      `/admin/agents/${agent.id}`,
      `/admin/accounts?email=${encodeURIComponent(account.email.slice(0, 4))}`,
      `/admin/accounts/${account.id}`,
    ];
    const problems: string[] = [];
    for (const path of pages) {
      const res = await moderator.get(path);
      expect(res.status, path).toBe(200);
      for (const p of await htmlProblems(res.text)) problems.push(`${path} ${p}`);
    }
    const failures: Array<[string, Record<string, string>]> = [
      [`/admin/reports/${report.id}/reject`, { feedback: '' }],
      [`/admin/reports/${approved.id}/withdraw`, { reason: '' }],
      ['/admin/merchants', { name: '', website: 'x' }],
      [`/admin/merchants/${merchant.id}/sponsorship`, { disclosure: '' }],
      [`/admin/merchants/${merchant.id}/owner-statement`, { statement: '', declaredOn: 'x' }],
      ['/admin/categories', { name: '' }],
      [`/admin/categories/${category.id}/legacy-names`, { name: '' }],
      ['/admin/agents', { slug: 'X X' }],
      [`/admin/agents/${agent.id}`, { name: '' }],
      [`/admin/accounts/${account.id}/suspend`, { reason: '' }],
      ['/admin/reports/bulk-approve', {}],
    ];
    for (const [path, fields] of failures) {
      const res = await postForm(moderator, path, fields);
      expect(res.status, path).toBe(400);
      for (const p of await htmlProblems(res.text)) problems.push(`POST ${path} ${p}`);
    }
    expect(problems).toEqual([]);
  });
});
