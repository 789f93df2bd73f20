// Agents and accounts on /admin: adding, renaming, deactivating an agent (it and its reports
// leave every public output at once and its keys stop working), and account search and
// suspension. Each form answers a validation failure with 400, its errors and the typed values.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_BASE_URL, type TestApp } from '../setup/app.js';
import { accountWithKey } from '../setup/actors.js';
import { adminTestApp, MODERATOR, postForm, redirectedTo, type Client } from './helpers.js';

describe('agents and accounts on /admin', () => {
  let t: TestApp;
  let as: (email: string) => Promise<Client>;
  let moderator: Client;
  const api = (path: string) => request(t.app).get(`/api/v1${path}`);
  const auditOf = (targetId: string) => t.db.prisma.moderationAuditLog.findMany({ where: { targetId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });

  beforeAll(async () => {
    ({ t, as } = await adminTestApp());
    moderator = await as(MODERATOR);
  });
  afterAll(() => t.close());

  describe('agents', () => {
    it('refuses a bad or taken slug and a taken name, keeping what was typed', async () => {
      const existing = await t.db.prisma.agent.findFirstOrThrow({ where: { active: true } });
      const bad = await postForm(moderator, '/admin/agents', { slug: 'Bad Slug', name: 'Typed Agent', vendor: '', description: 'typed description' });
      expect(bad.status).toBe(400);
      expect(bad.text).toContain('value="Bad Slug"');
      expect(bad.text).toContain('value="Typed Agent"');
      expect(bad.text).toContain('>typed description</textarea>');
      expect(bad.text).toContain('Enter the vendor');
      expect(bad.text).toMatch(/id="slug"[^>]*aria-invalid="true"/);
      const taken = await postForm(moderator, '/admin/agents', { slug: existing.slug, name: existing.name.toLowerCase(), vendor: 'V' });
      expect(taken.status).toBe(400);
      expect(taken.text).toContain('is already used by another agent');
      expect(taken.text).toContain('Another agent is already called');
    });

    it('refuses a control character in a name or description, which would break badges and feeds, and saves nothing', async () => {
      const count = await t.db.prisma.agent.count();
      const added = await postForm(moderator, '/admin/agents', { slug: 'control-agent', name: 'Control\u0001Agent', vendor: 'V\u0007', description: 'fine\nlines\u000b' });
      expect(added.status).toBe(400);
      expect(added.text).toContain('must not contain control characters');
      expect(await t.db.prisma.agent.count()).toBe(count);

      const agent = await t.db.prisma.agent.findFirstOrThrow({ where: { active: true } });
      const renamed = await postForm(moderator, `/admin/agents/${agent.id}`, { name: `${agent.name}\u0001`, vendor: agent.vendor ?? 'V', description: '' });
      expect(renamed.status).toBe(400);
      expect(renamed.text).toContain('must not contain control characters');
      expect((await t.db.prisma.agent.findUniqueOrThrow({ where: { id: agent.id } })).name).toBe(agent.name);
      // Line breaks are text in a description.
      const lines = await postForm(moderator, `/admin/agents/${agent.id}`, { name: agent.name, vendor: agent.vendor ?? 'V', description: 'one\r\ntwo\tthree' });
      redirectedTo(lines, `/admin/agents/${agent.id}`);
    });

    it('adds an agent (public at once) and renames it; its slug stays', async () => {
      const res = await postForm(moderator, '/admin/agents', { slug: 'new-shop-agent', name: 'New Shop Agent', vendor: 'Example Labs', description: '' });
      const agent = await t.db.prisma.agent.findUniqueOrThrow({ where: { slug: 'new-shop-agent' } });
      redirectedTo(res, `/admin/agents/${agent.id}`);
      expect(agent.active).toBe(true);
      const listed = (await api('/agents').expect(200)).body.data as Array<{ slug: string; name: string }>;
      expect(listed.find((a) => a.slug === 'new-shop-agent')?.name).toBe('New Shop Agent');

      const bad = await postForm(moderator, `/admin/agents/${agent.id}`, { name: '  ', vendor: 'Example Labs', description: 'kept text' });
      expect(bad.status).toBe(400);
      expect(bad.text).toContain('Enter the agent’s name');
      expect(bad.text).toContain('>kept text</textarea>');

      redirectedTo(await postForm(moderator, `/admin/agents/${agent.id}`, { name: 'Renamed Agent', vendor: 'Example Labs', slug: 'ignored' }), `/admin/agents/${agent.id}`);
      expect(await t.db.prisma.agent.findUniqueOrThrow({ where: { id: agent.id } })).toMatchObject({ name: 'Renamed Agent', slug: 'new-shop-agent' });
      expect((await auditOf(agent.id)).map((e) => [e.action, e.targetType])).toEqual([
        ['agent.create', 'agent'],
        ['agent.update', 'agent'],
      ]);
    });

    it('deactivating an agent removes it and its reports from every public output at once, and refuses its keys', async () => {
      // The active agent with the most approved reports of public merchants.
      const { rows: [top] } = await t.db.pool.query<{ id: string }>(
        `SELECT a.id FROM agents a JOIN reports r ON r.agent_id = a.id AND r.status = 'APPROVED'
           JOIN merchants m ON m.id = r.merchant_id AND m.is_public
          WHERE a.active GROUP BY a.id ORDER BY count(*) DESC LIMIT 1`,
      );
      const agent = await t.db.prisma.agent.findUniqueOrThrow({ where: { id: top!.id } });
      const report = await t.db.prisma.report.findFirstOrThrow({
        where: { agentId: agent.id, status: 'APPROVED', merchant: { isPublic: true } },
        include: { merchant: true },
      });
      const { auth } = await accountWithKey(t, 'key-holder@example.org', agent.id);
      const keyWorks = async () => (await request(t.app).post('/api/v1/reports').set(auth).send({})).status;

      const snapshot = async () => {
        const [agents, scoped, profile, reports, one, byAgent, htmlPage] = await Promise.all([
          api('/agents'),
          api(`/agents/${agent.slug}/merchants`),
          api(`/merchants/${report.merchant.slug}`),
          api(`/reports?agent=${agent.slug}`),
          api(`/reports/${report.id}`),
          api(`/merchants?agent=${agent.slug}`),
          request(t.app).get(`/agents/${agent.slug}`),
        ]);
        return {
          listed: (agents.body.data as Array<{ slug: string }>).some((a) => a.slug === agent.slug),
          scoped: scoped.status,
          inProfile: (profile.body.data.agents as Array<{ agent: { slug: string } }>).some((a) => a.agent.slug === agent.slug),
          merchantReportCount: profile.body.data.reportCount as number,
          reports: reports.status,
          report: one.status,
          byAgent: byAgent.status,
          htmlPage: htmlPage.status,
        };
      };
      const before = await snapshot();
      expect(before).toMatchObject({ listed: true, scoped: 200, inProfile: true, reports: 200, report: 200, byAgent: 200 });
      expect(await keyWorks()).toBe(400); // the key is accepted; the empty body is not

      redirectedTo(await postForm(moderator, `/admin/agents/${agent.id}/deactivate`), `/admin/agents/${agent.id}`);
      const after = await snapshot();
      const ownApproved = await t.db.prisma.report.count({ where: { agentId: agent.id, merchantId: report.merchantId, status: 'APPROVED' } });
      expect(after).toMatchObject({ listed: false, scoped: 404, inProfile: false, reports: 400, report: 404, byAgent: 400 });
      expect(after.merchantReportCount).toBe(before.merchantReportCount - ownApproved);
      if (before.htmlPage === 200) expect(after.htmlPage).toBe(404);
      expect(await t.db.prisma.merchantAgentSummary.count({ where: { agentId: agent.id } })).toBe(0);
      const refused = await request(t.app).post('/api/v1/reports').set(auth).send({});
      expect(refused.status).toBe(401);
      expect(refused.body.type).toBe(`${TEST_BASE_URL}/problems/agent-inactive`);
      expect((await auditOf(agent.id)).at(-1)).toMatchObject({ action: 'agent.deactivate', targetType: 'agent' });
      expect((await moderator.get(`/admin/agents/${agent.id}`).expect(200)).text).toContain('Agent deactivated');

      // Deactivating twice changes nothing and writes no second row.
      redirectedTo(await postForm(moderator, `/admin/agents/${agent.id}/deactivate`), `/admin/agents/${agent.id}`);
      expect((await auditOf(agent.id)).filter((e) => e.action === 'agent.deactivate')).toHaveLength(1);

      redirectedTo(await postForm(moderator, `/admin/agents/${agent.id}/activate`), `/admin/agents/${agent.id}`);
      expect(await snapshot()).toEqual(before);
      expect(await keyWorks()).toBe(400);
    });
  });

  describe('accounts', () => {
    it('finds accounts by part of the e-mail and shows an account with its reports', async () => {
      const author = await t.db.prisma.account.findFirstOrThrow({ where: { reports: { some: { status: 'REJECTED' } } }, include: { reports: true } });
      const part = author.email.slice(0, Math.max(3, author.email.indexOf('@')));
      const res = await moderator.get(`/admin/accounts?email=${encodeURIComponent(part.toUpperCase())}`).expect(200);
      expect(res.text).toContain(`href="/admin/accounts/${author.id}"`);
      const page = await moderator.get(`/admin/accounts/${author.id}`).expect(200);
      for (const report of author.reports) expect(page.text).toContain(`/admin/reports/${report.id}`);
      expect(page.text).toContain('Rejected');
    });

    it('suspends only with a reason, refuses the account’s keys, and lifts the suspension', async () => {
      const agent = await t.db.prisma.agent.findFirstOrThrow({ where: { active: true } });
      const { account, auth } = await accountWithKey(t, 'to-suspend@example.org', agent.id);
      const noReason = await postForm(moderator, `/admin/accounts/${account.id}/suspend`, { reason: ' ' });
      expect(noReason.status).toBe(400);
      expect(noReason.text).toContain('Give the reason for the suspension');
      expect(noReason.text).toMatch(/id="reason"[^>]*aria-invalid="true"/);
      expect((await t.db.prisma.account.findUniqueOrThrow({ where: { id: account.id } })).suspended).toBe(false);

      redirectedTo(await postForm(moderator, `/admin/accounts/${account.id}/suspend`, { reason: 'Spam reports' }), `/admin/accounts/${account.id}`);
      expect(await t.db.prisma.account.findUniqueOrThrow({ where: { id: account.id } })).toMatchObject({
        suspended: true,
        suspendedReason: 'Spam reports',
        suspendedAt: t.clock.now(),
      });
      const refused = await request(t.app).post('/api/v1/reports').set(auth).send({});
      expect(refused.status).toBe(403);
      expect(refused.body.type).toBe(`${TEST_BASE_URL}/problems/account-suspended`);
      expect((await moderator.get(`/admin/accounts/${account.id}`).expect(200)).text).toContain('Spam reports');

      redirectedTo(await postForm(moderator, `/admin/accounts/${account.id}/unsuspend`), `/admin/accounts/${account.id}`);
      expect((await t.db.prisma.account.findUniqueOrThrow({ where: { id: account.id } })).suspended).toBe(false);
      expect((await request(t.app).post('/api/v1/reports').set(auth).send({})).status).toBe(400);
      expect((await auditOf(account.id)).map((e) => [e.action, e.targetType, e.reason])).toEqual([
        ['account.suspend', 'account', 'Spam reports'],
        ['account.unsuspend', 'account', null],
      ]);
    });

    it('refuses to let a moderator suspend themselves or an admin', async () => {
      const me = await t.db.prisma.account.findUniqueOrThrow({ where: { email: MODERATOR } });
      const self = await postForm(moderator, `/admin/accounts/${me.id}/suspend`, { reason: 'oops' });
      expect(self.status).toBe(400);
      expect(self.text).toContain('You cannot suspend your own account');
      const admin = await t.db.prisma.account.create({ data: { email: 'the-admin@example.org', role: 'ADMIN' } });
      const res = await postForm(moderator, `/admin/accounts/${admin.id}/suspend`, { reason: 'nope' });
      expect(res.status).toBe(400);
      expect(res.text).toContain('Only an admin can suspend an admin');
      expect((await t.db.prisma.account.findUniqueOrThrow({ where: { id: admin.id } })).suspended).toBe(false);
    });
  });
});
