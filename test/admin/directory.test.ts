// Directory management on /admin: merchants (hiding takes a merchant and its reports out of
// every public output at once), categories with legacy names, sponsorships and owner
// statements. Every form answers a validation failure with 400, its errors and the typed values.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../setup/app.js';
import { adminTestApp, MODERATOR, postForm, redirectedTo, reportPicker, type Client } from './helpers.js';
import { merchantFormValues } from '../../src/modules/merchants/merchant-admin.service.js';

describe('directory management on /admin', () => {
  let t: TestApp;
  let moderator: Client;
  let pick: ReturnType<typeof reportPicker>;
  const api = (path: string) => request(t.app).get(`/api/v1${path}`);
  const auditOf = (targetId: string) => t.db.prisma.moderationAuditLog.findMany({ where: { targetId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });

  beforeAll(async () => {
    let as: (email: string) => Promise<Client>;
    ({ t, as } = await adminTestApp());
    moderator = await as(MODERATOR);
    pick = reportPicker(t);
  });
  afterAll(() => t.close());

  describe('merchants', () => {
    it('refuses an invalid new merchant with errors next to the fields, keeping what was typed', async () => {
      const existing = await t.db.prisma.merchant.findFirstOrThrow({ where: { isPublic: true } });
      const res = await postForm(moderator, '/admin/merchants', {
        name: 'Typed Name Shop',
        slug: existing.slug,
        website: 'ftp://files.example',
        categoryId: '',
        serviceRegions: 'DE, XX',
        isPublic: 'on',
      });
      expect(res.status).toBe(400);
      expect(res.text).toContain('value="Typed Name Shop"');
      expect(res.text).toContain('value="DE, XX"');
      expect(res.text).toMatch(/id="website"[^>]*aria-invalid="true"/);
      expect(res.text).toContain('https:// or http://');
      expect(res.text).toContain('is not a country code');
      expect(res.text).toContain('Choose a category');
      expect(await t.db.prisma.merchant.count({ where: { name: 'Typed Name Shop' } })).toBe(0);
      // The same country rule as a report's region (issue 36): EU is no country.
      const eu = await postForm(moderator, '/admin/merchants', { name: 'Union Shop', slug: '', website: 'https://union.example', categoryId: '', serviceRegions: 'DE EU' });
      expect(eu.status).toBe(400);
      expect(eu.text).toContain('&#34;EU&#34; is not a country code');
      expect(await t.db.prisma.merchant.count({ where: { name: 'Union Shop' } })).toBe(0);

      const category = await t.db.prisma.category.findFirstOrThrow();
      const taken = await postForm(moderator, '/admin/merchants', {
        name: 'Typed Name Shop',
        slug: existing.slug,
        website: 'https://typed.example',
        categoryId: category.id,
      });
      expect(taken.status).toBe(400);
      expect(taken.text).toContain(`The slug &#34;${existing.slug}&#34; is already used`);
      for (const website of ['not a url', 'https://localhost', 'https://user:pw@shop.example', 'javascript:alert(1)']) {
        const bad = await postForm(moderator, '/admin/merchants', { name: 'X', website, categoryId: category.id });
        expect(bad.status, website).toBe(400);
        expect(bad.text).toMatch(/id="website"[^>]*aria-invalid="true"/);
      }
    });

    it('adds a merchant (slug from the name) and edits it, with audit rows', async () => {
      const category = await t.db.prisma.category.findFirstOrThrow({ orderBy: { name: 'asc' } });
      const res = await postForm(moderator, '/admin/merchants', {
        name: 'Zebra Crossing Café',
        slug: '',
        website: 'https://zebra.example',
        categoryId: category.id,
        serviceRegions: 'fr de global',
        isPublic: 'on',
        approvedCanonical: 'on',
      });
      const merchant = await t.db.prisma.merchant.findUniqueOrThrow({ where: { slug: 'zebra-crossing-cafe' } });
      redirectedTo(res, `/admin/merchants/${merchant.id}`);
      expect(merchant).toMatchObject({
        website: 'https://zebra.example',
        category: category.name,
        categoryId: category.id,
        serviceRegions: ['DE', 'FR', 'GLOBAL'],
        isPublic: true,
        approvedCanonical: true,
      });
      const profile = await api('/merchants/zebra-crossing-cafe').expect(200);
      expect(profile.body.data.categoryInfo.slug).toBe(category.slug);

      const badEdit = await postForm(moderator, `/admin/merchants/${merchant.id}`, { ...merchantFormValues(merchant), website: 'zebra' });
      expect(badEdit.status).toBe(400);
      expect(badEdit.text).toContain('value="zebra"');
      expect((await t.db.prisma.merchant.findUniqueOrThrow({ where: { id: merchant.id } })).website).toBe('https://zebra.example');

      redirectedTo(
        await postForm(moderator, `/admin/merchants/${merchant.id}`, { ...merchantFormValues(merchant), name: 'Zebra Café', approvedCanonical: '' }),
        `/admin/merchants/${merchant.id}`,
      );
      expect(await t.db.prisma.merchant.findUniqueOrThrow({ where: { id: merchant.id } })).toMatchObject({ name: 'Zebra Café', approvedCanonical: false });
      expect((await auditOf(merchant.id)).map((e) => [e.action, e.targetType])).toEqual([
        ['merchant.create', 'merchant'],
        ['merchant.update', 'merchant'],
      ]);
      const page = await moderator.get(`/admin/merchants/${merchant.id}`).expect(200);
      expect(page.text).toContain('Merchant saved.');
    });

    it('hiding a merchant removes it and its reports from every public output at once; showing brings them back', async () => {
      const r = await pick('APPROVED');
      const merchant = await t.db.prisma.merchant.findUniqueOrThrow({ where: { id: r.merchantId }, include: { categoryRef: true } });
      const approved = await t.db.prisma.report.count({ where: { merchantId: merchant.id, agentId: r.agentId, status: 'APPROVED' } });
      const snapshot = async () => {
        const [search, agentSearch, profile, reports, report, agentReports, categories, htmlPage] = await Promise.all([
          api(`/merchants?q=${merchant.slug}`),
          api(`/agents/${r.agentSlug}/merchants?q=${merchant.slug}`),
          api(`/merchants/${merchant.slug}`),
          api(`/reports?merchant=${merchant.id}`),
          api(`/reports/${r.id}`),
          api(`/reports?agent=${r.agentSlug}`),
          api('/categories'),
          request(t.app).get(`/merchants/${merchant.slug}`),
        ]);
        const listed = (res: request.Response) => (res.body.data as Array<{ id: string }>).some((m) => m.id === merchant.id);
        return {
          search: listed(search),
          agentSearch: listed(agentSearch),
          profile: profile.status,
          reports: reports.status,
          report: report.status,
          agentReportTotal: agentReports.body.total as number,
          categoryCount: (categories.body.data as Array<{ slug: string; merchantCount: number }>).find((c) => c.slug === merchant.categoryRef!.slug)!
            .merchantCount,
          htmlPage: htmlPage.status,
        };
      };
      const before = await snapshot();
      expect(before).toMatchObject({ search: true, agentSearch: true, profile: 200, reports: 200, report: 200 });

      redirectedTo(
        await postForm(moderator, `/admin/merchants/${merchant.id}`, { ...merchantFormValues(merchant), isPublic: '' }),
        `/admin/merchants/${merchant.id}`,
      );
      const hidden = await snapshot();
      expect(hidden).toMatchObject({ search: false, agentSearch: false, profile: 404, reports: 400, report: 404 });
      expect(hidden.agentReportTotal).toBe(before.agentReportTotal - approved);
      expect(hidden.categoryCount).toBe(before.categoryCount - 1);
      if (before.htmlPage === 200) expect(hidden.htmlPage).toBe(404);
      expect(await t.db.prisma.merchantAgentSummary.count({ where: { merchantId: merchant.id } })).toBe(0);
      expect((await t.db.prisma.merchant.findUniqueOrThrow({ where: { id: merchant.id } })).reportCount).toBe(0);
      expect((await auditOf(merchant.id)).at(-1)).toMatchObject({ action: 'merchant.hide', targetType: 'merchant' });
      const page = await moderator.get(`/admin/merchants/${merchant.id}`).expect(200);
      expect(page.text).toContain('Merchant hidden');

      redirectedTo(
        await postForm(moderator, `/admin/merchants/${merchant.id}`, { ...merchantFormValues(merchant), isPublic: 'on' }),
        `/admin/merchants/${merchant.id}`,
      );
      expect(await snapshot()).toEqual(before);
      expect((await auditOf(merchant.id)).at(-1)).toMatchObject({ action: 'merchant.show' });
    });

    it('lists hidden and public merchants for moderators', async () => {
      const hidden = await t.db.prisma.merchant.findFirstOrThrow({ where: { isPublic: false } });
      const res = await moderator.get(`/admin/merchants?visibility=hidden`).expect(200);
      expect(res.text).toContain(`data-merchant-id="${hidden.id}"`);
    });
  });

  describe('sponsorships', () => {
    it('refuses a sponsorship without disclosure or with its end before its start, keeping the typed values', async () => {
      const merchant = await t.db.prisma.merchant.findFirstOrThrow({ where: { isPublic: true, sponsorship: null } });
      const res = await postForm(moderator, `/admin/merchants/${merchant.id}/sponsorship`, {
        source: 'subscription',
        placement: 'directory-top',
        disclosure: '  ',
        startsOn: '2026-11-01',
        endsOn: '2026-10-01',
        billingId: 'BILL-TYPED-1',
      });
      expect(res.status).toBe(400);
      expect(res.text).toContain('The disclosure text is required');
      expect(res.text).toContain('The last day cannot be before the first day');
      expect(res.text).toContain('value="BILL-TYPED-1"');
      const noSource = await postForm(moderator, `/admin/merchants/${merchant.id}/sponsorship`, { disclosure: 'Ad', startsOn: 'soon' });
      expect(noSource.status).toBe(400);
      expect(noSource.text).toContain('Choose a paid subscription');
      expect(noSource.text).toContain('Enter a date as YYYY-MM-DD');
      expect(await t.db.prisma.sponsorship.count({ where: { merchantId: merchant.id } })).toBe(0);
    });

    it('adds a running sponsorship: public as sponsored with its disclosure, the billing id never public', async () => {
      const merchant = await t.db.prisma.merchant.findFirstOrThrow({ where: { isPublic: true, sponsorship: null }, orderBy: { slug: 'desc' } });
      const res = await postForm(moderator, `/admin/merchants/${merchant.id}/sponsorship`, {
        source: 'publisher_owned',
        placement: 'category-top',
        disclosure: 'Promoted by its publisher. Advertising, not evidence.',
        startsOn: '2026-11-01',
        endsOn: '2026-11-30',
        billingId: 'BILLING-SECRET-99',
      });
      redirectedTo(res, `/admin/merchants/${merchant.id}/sponsorship`);
      const stored = await t.db.prisma.sponsorship.findUniqueOrThrow({ where: { merchantId: merchant.id } });
      expect(stored).toMatchObject({ startsAt: new Date('2026-11-01T00:00:00Z'), endsAt: new Date('2026-12-01T00:00:00Z'), billingId: 'BILLING-SECRET-99' });
      const profile = await api(`/merchants/${merchant.slug}`).expect(200);
      expect(profile.body.data).toMatchObject({
        sponsored: true,
        placement: 'category-top',
        sponsorshipSource: 'publisher_owned',
        sponsorshipDisclosure: 'Promoted by its publisher. Advertising, not evidence.',
      });
      for (const path of [`/merchants/${merchant.slug}`, `/merchants?q=${merchant.slug}`, '/merchants']) {
        expect((await api(path)).text).not.toContain('BILLING-SECRET-99');
      }
      expect((await request(t.app).get(`/merchants/${merchant.slug}`)).text).not.toContain('BILLING-SECRET-99');
      const page = await moderator.get(`/admin/merchants/${merchant.id}/sponsorship`).expect(200);
      expect(page.text).toContain('value="BILLING-SECRET-99"');
      expect(page.text).toContain('value="2026-11-30"');
      expect((await auditOf(merchant.id)).map((e) => e.action).filter((a) => a.startsWith('sponsorship'))).toEqual(['sponsorship.create']);

      redirectedTo(await postForm(moderator, `/admin/merchants/${merchant.id}/sponsorship/remove`), `/admin/merchants/${merchant.id}`);
      expect((await api(`/merchants/${merchant.slug}`).expect(200)).body.data.sponsored).toBe(false);
    });
  });

  describe('owner statements', () => {
    it('refuses a statement without text or with a future declaration date', async () => {
      const merchant = await t.db.prisma.merchant.findFirstOrThrow({ where: { isPublic: true, ownerStatement: null } });
      const res = await postForm(moderator, `/admin/merchants/${merchant.id}/owner-statement`, {
        statement: '',
        declaredOn: '2027-01-01',
        claim_CART: 'WORKS',
        claim_LOGIN: 'SOMETIMES',
        ownershipEvidence: 'typed evidence',
      });
      expect(res.status).toBe(400);
      expect(res.text).toContain('Enter the owner’s statement');
      expect(res.text).toContain('cannot be in the future');
      expect(res.text).toContain('Choose one of the listed outcomes');
      expect(res.text).toContain('>typed evidence</textarea>');
      expect(res.text).toMatch(/<option value="WORKS" selected>/);
    });

    it('takes a declaration date by the one date rule of every input: a real day, from 2000 on (issue 36)', async () => {
      const merchant = await t.db.prisma.merchant.findFirstOrThrow({ where: { isPublic: true, ownerStatement: null } });
      for (const [declaredOn, message] of [['0000-01-01', 'Enter a date from 2000-01-01 on'], ['1999-12-31', 'Enter a date from 2000-01-01 on'], ['2026-02-30', 'Not a real date']] as const) {
        const res = await postForm(moderator, `/admin/merchants/${merchant.id}/owner-statement`, { statement: 'Agents welcome.', declaredOn });
        expect(res.status, declaredOn).toBe(400);
        expect(res.text, declaredOn).toContain(message);
      }
      expect(await t.db.prisma.ownerStatement.count({ where: { merchantId: merchant.id } })).toBe(0);
    });

    it('publishes a statement attributed to the owner; it never counts and the ownership evidence stays private', async () => {
      const r = await pick('APPROVED');
      const merchant = await t.db.prisma.merchant.findUniqueOrThrow({ where: { id: r.merchantId } });
      await t.db.prisma.ownerStatement.deleteMany({ where: { merchantId: merchant.id } });
      const before = (await api(`/merchants/${merchant.slug}`).expect(200)).body.data;
      const res = await postForm(moderator, `/admin/merchants/${merchant.id}/owner-statement`, {
        statement: 'Agents are welcome to buy here.',
        declaredOn: '2026-11-20',
        claim_CART: 'WORKS',
        claim_PURCHASE: 'WORKS',
        ownershipEvidence: 'OWNERSHIP-PROOF-DNS-TXT',
      });
      redirectedTo(res, `/admin/merchants/${merchant.id}/owner-statement`);
      const after = (await api(`/merchants/${merchant.slug}`).expect(200)).body.data;
      expect(after.ownerCompatibility).toMatchObject({
        statement: 'Agents are welcome to buy here.',
        taskClaims: { CART: 'WORKS', PURCHASE: 'WORKS' },
        declaredAt: '2026-11-20',
      });
      expect(after.reportCount).toBe(before.reportCount);
      expect(after.agents).toEqual(before.agents);
      expect(JSON.stringify(after)).not.toContain('OWNERSHIP-PROOF-DNS-TXT');
      expect((await api(`/merchants?q=${merchant.slug}`)).text).not.toContain('OWNERSHIP-PROOF-DNS-TXT');
      const page = await moderator.get(`/admin/merchants/${merchant.id}/owner-statement`).expect(200);
      expect(page.text).toContain('OWNERSHIP-PROOF-DNS-TXT');
      expect((await auditOf(merchant.id)).map((e) => e.action)).toContain('owner-statement.create');
    });
  });

  describe('categories', () => {
    it('refuses a bad or taken category name and slug, keeping what was typed', async () => {
      const existing = await t.db.prisma.category.findFirstOrThrow({ include: { legacyNames: true } });
      const res = await postForm(moderator, '/admin/categories', { name: 'Typed Category', slug: 'Not A Slug!' });
      expect(res.status).toBe(400);
      expect(res.text).toContain('value="Typed Category"');
      expect(res.text).toContain('value="Not A Slug!"');
      expect(res.text).toContain('Use lowercase letters, digits and single hyphens');
      expect(res.text).toMatch(/id="slug"[^>]*aria-invalid="true"/);
      const taken = await postForm(moderator, '/admin/categories', { name: existing.name.toUpperCase(), slug: 'brand-new-slug' });
      expect(taken.status).toBe(400);
      expect(taken.text).toContain(`value="${existing.name.toUpperCase().replace(/&/g, '&amp;')}"`);
      expect(taken.text).toContain('already names the category');
      const legacy = existing.legacyNames[0];
      if (legacy) {
        const clash = await postForm(moderator, '/admin/categories', { name: 'Fresh Name', slug: legacy.slug });
        expect(clash.status).toBe(400);
        expect(clash.text).toContain('is a legacy slug of');
      }
    });

    it('adds and renames a category; the old slug stays a legacy name the public filter accepts', async () => {
      const res = await postForm(moderator, '/admin/categories', { name: 'Garden Tools', slug: '' });
      const category = await t.db.prisma.category.findUniqueOrThrow({ where: { slug: 'garden-tools' } });
      redirectedTo(res, `/admin/categories/${category.id}`);
      expect((await api('/categories').expect(200)).body.data.map((c: { slug: string }) => c.slug)).toContain('garden-tools');

      const bad = await postForm(moderator, `/admin/categories/${category.id}`, { name: '', slug: 'garden-tools' });
      expect(bad.status).toBe(400);
      expect(bad.text).toContain('Enter the category’s name');

      redirectedTo(await postForm(moderator, `/admin/categories/${category.id}`, { name: 'Garden Equipment', slug: 'garden-equipment' }), `/admin/categories/${category.id}`);
      const legacy = await t.db.prisma.categoryLegacyName.findMany({ where: { categoryId: category.id } });
      expect(legacy.map((l) => [l.name, l.slug])).toEqual([['Garden Tools', 'garden-tools']]);
      await api('/merchants?category=garden-tools').expect(200);
      await api('/merchants?category=garden-equipment').expect(200);
      expect((await auditOf(category.id)).map((e) => [e.action, e.targetType])).toEqual([
        ['category.create', 'category'],
        ['category.update', 'category'],
      ]);
    });

    it('adds and removes legacy names, refusing one that names another category', async () => {
      const [a, b] = await t.db.prisma.category.findMany({ orderBy: { name: 'asc' }, take: 2 });
      const clash = await postForm(moderator, `/admin/categories/${a!.id}/legacy-names`, { name: b!.name, slug: '' });
      expect(clash.status).toBe(400);
      expect(clash.text).toContain('already names the category');
      expect(clash.text).toMatch(/id="legacy-name"[^>]*aria-invalid="true"/);
      redirectedTo(await postForm(moderator, `/admin/categories/${a!.id}/legacy-names`, { name: 'Old Shelf Name', slug: '' }), `/admin/categories/${a!.id}`);
      const added = await t.db.prisma.categoryLegacyName.findUniqueOrThrow({ where: { slug: 'old-shelf-name' } });
      expect(added.categoryId).toBe(a!.id);
      await api('/merchants?category=Old%20Shelf%20Name').expect(200);
      redirectedTo(await postForm(moderator, `/admin/categories/${a!.id}/legacy-names/${added.id}/remove`), `/admin/categories/${a!.id}`);
      await api('/merchants?category=old-shelf-name').expect(400);
    });
  });
});
