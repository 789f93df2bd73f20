// Claims end to end (issue 34): a signed-in owner claims a merchant (or a vendor an agent), the
// directory looks for the proof through the one fetcher, reaching local fixture servers and an
// in-process DNS server only through the test door (OUTBOUND_TEST_HOSTS, DNS_SERVERS); then
// re-checks with the injected clock, grace and lapse, and a moderator's revoke and reinstate.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_BASE_URL, createTestApp, type TestApp } from '../setup/app.js';
import { captureMailer, signIn } from '../setup/session.js';
import { aMerchant, anAgent, aReport } from '../factories/index.js';
import { accountWithKey } from '../setup/actors.js';
import { postForm } from '../admin/helpers.js';
import { startFixture, startTestDns, type Fixture, type TestDns } from '../setup/outbound.js';
import { recheckDueClaims } from '../../src/modules/claims/claims.service.js';
import { fetcherFromConfig } from '../../src/outbound/fetcher.js';
import { GRACE_DAYS, RECHECK_DAYS } from '../../src/modules/claims/rules.js';
import { DIGEST_INTERVAL_MS, queueOwnerDigests } from '../../src/modules/claims/owner-digest.js';
import { sendDueDecisionNotices } from '../../src/modules/moderation/decision-notices.js';
import { createMailer, ownerDigestMessage } from '../../src/mail/mailer.js';
import { createLogger } from '../../src/logger.js';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const DAY = 86_400_000;
const MODERATOR = 'claims-mod@example.org';
const PROBLEM = /^application\/problem\+json/;
const textOf = (html: string) => html.replace(/<[^>]+>/g, '');

/** What the fixture serves: `${host}${path}` to a status and body. */
type Pages = Map<string, { status?: number; body: string; type?: string }>;

describe('claims', () => {
  let t: TestApp;
  let dns: TestDns;
  let site: Fixture;
  const pages: Pages = new Map();
  const mailer = captureMailer();
  let owner: Awaited<ReturnType<typeof signIn>>;
  let moderator: Awaited<ReturnType<typeof signIn>>;
  let n = 0;

  beforeAll(async () => {
    dns = await startTestDns();
    site = await startFixture((req, res) => {
      const host = (req.headers.host ?? '').replace(/:\d+$/, '');
      const page = pages.get(`${host}${req.url}`);
      if (!page) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('Not here');
      res.writeHead(page.status ?? 200, { 'content-type': page.type ?? 'text/plain; charset=utf-8' }).end(page.body);
    });
    t = await createTestApp({
      mailer,
      env: { MODERATOR_EMAILS: MODERATOR, OUTBOUND_TEST_HOSTS: `*.claims.test=127.0.0.1:${site.port}`, DNS_SERVERS: dns.server },
    });
    owner = await signIn(t.app, mailer, 'owner@riverstone.example');
    moderator = await signIn(t.app, mailer, MODERATOR);
  });
  afterAll(async () => {
    await t?.close();
    await site?.close();
    await dns?.close();
  });

  /** A public merchant of its own host under the test door (or a given website). */
  const aShop = (website?: string) => {
    n += 1;
    return aMerchant(t.db.prisma, { name: `Riverstone Cycles ${n}`, website: website ?? `https://shop-${n}.claims.test/` });
  };
  const api = (client = owner) => ({
    post: (path: string, body?: unknown) => {
      const req = client.post(`/api/v1${path}`).set('Origin', TEST_BASE_URL);
      return body === undefined ? req : req.set('Content-Type', 'application/json').send(JSON.stringify(body));
    },
    put: (path: string, body: unknown) => client.put(`/api/v1${path}`).set('Origin', TEST_BASE_URL).set('Content-Type', 'application/json').send(JSON.stringify(body)),
    get: (path: string) => client.get(`/api/v1${path}`).set('Origin', TEST_BASE_URL),
  });
  const claimOf = async (slug: string) => {
    const res = await api().post('/claims', { merchant: slug }).expect(201);
    return res.body.data as { id: string; host: string; methods: { dns: { name: string; value: string }; file: { url: string; content: string }; meta: { tag: string; url: string } } };
  };
  const publicClaim = async (slug: string) => (await request(t.app).get(`/api/v1/merchants/${slug}`).expect(200)).body.data.claim;
  const serveFile = (claim: { host: string; methods: { file: { content: string } } }) =>
    pages.set(`${claim.host}/.well-known/agent-directory-verification.txt`, { body: `# ours\n${claim.methods.file.content}\n` });

  describe('starting a claim', () => {
    it('answers 201 with exactly what to publish for each method, and the same claim again (200)', async () => {
      const shop = await aShop();
      const res = await api().post('/claims', { merchant: shop.slug }).expect(201);
      const claim = res.body.data;
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers.location).toBe(claim.url);
      const token = /content="([^"]+)"/.exec(claim.methods.meta.tag)![1]!;
      expect(token.length).toBeGreaterThanOrEqual(20);
      expect(claim).toMatchObject({
        status: 'pending',
        host: `shop-${n}.claims.test`,
        sharedHost: false,
        method: null,
        verifiedAt: null,
        subject: { type: 'merchant', slug: shop.slug, name: shop.name },
        methods: {
          dns: { name: `_agent-directory.shop-${n}.claims.test`, value: `agent-directory-verification=${token}` },
          file: { url: `https://shop-${n}.claims.test/.well-known/agent-directory-verification.txt`, content: `agent-directory-verification=${token}` },
          meta: { tag: `<meta name="agent-directory-verification" content="${token}">`, url: `https://shop-${n}.claims.test/` },
        },
        pageUrl: `${TEST_BASE_URL}/claims/${claim.id}`,
      });
      const again = await api().post('/claims', { merchant: shop.id }).expect(200);
      expect(again.body.data.id).toBe(claim.id);
      expect(again.body.created).toBe(false);
      const mine = await api().get('/claims').expect(200);
      expect(mine.body.data.map((c: { id: string }) => c.id)).toContain(claim.id);
      await api().get(`/claims/${claim.id}`).expect(200);
      // Nothing is public until it is proved.
      expect(await publicClaim(shop.slug)).toBeNull();
    });

    it('refuses bad bodies, unknown merchants, keys, strangers and other origins, writing nothing', async () => {
      const shop = await aShop();
      const before = await t.db.prisma.claim.count();
      const both = await api().post('/claims', { merchant: shop.slug, agent: 'x' }).expect(400);
      expect(both.headers['content-type']).toMatch(PROBLEM);
      await api().post('/claims', {}).expect(400);
      await api().post('/claims', { merchant: shop.slug, extra: 1 }).expect(400);
      expect((await api().post('/claims', { merchant: 'no-such-shop' }).expect(404)).body.detail).toContain('No public merchant');
      // An agent key speaks for no shop.
      const agent = await anAgent(t.db.prisma);
      const { auth } = await accountWithKey(t, 'key-holder@example.org', agent.id);
      const keyed = await request(t.app).post('/api/v1/claims').set(auth).set('Content-Type', 'application/json').send(JSON.stringify({ merchant: shop.slug })).expect(403);
      expect(keyed.body.type).toBe(`${TEST_BASE_URL}/problems/owner-session-required`);
      // Not signed in; signed in but from another origin.
      await request(t.app).post('/api/v1/claims').set('Origin', TEST_BASE_URL).set('Content-Type', 'application/json').send(JSON.stringify({ merchant: shop.slug })).expect(401);
      await owner.post('/api/v1/claims').set('Origin', 'https://evil.example').set('Content-Type', 'application/json').send(JSON.stringify({ merchant: shop.slug })).expect(403);
      expect(await t.db.prisma.claim.count()).toBe(before);
    });

    it('refuses a merchant without a checkable website and an agent without a vendor website', async () => {
      const agent = await anAgent(t.db.prisma);
      const res = await api().post('/claims', { agent: agent.slug }).expect(409);
      expect(res.body.type).toBe(`${TEST_BASE_URL}/problems/no-website-to-claim`);
    });

    it("keeps another account's claim private: its id is not found", async () => {
      const shop = await aShop();
      const claim = await claimOf(shop.slug);
      const stranger = await signIn(t.app, mailer, 'stranger@example.org');
      await api(stranger).get(`/claims/${claim.id}`).expect(404);
      await api(stranger).post(`/claims/${claim.id}/check`).expect(404);
      // A second claimant gets a claim (and token) of their own.
      const theirs = (await api(stranger).post('/claims', { merchant: shop.slug }).expect(201)).body.data;
      expect(theirs.id).not.toBe(claim.id);
      expect(theirs.methods.meta.tag).not.toBe(claim.methods.meta.tag);
    });
  });

  describe('each method', () => {
    it('the file under /.well-known/: not found, wrong content, then verified; readers see the method and date', async () => {
      const shop = await aShop();
      const claim = await claimOf(shop.slug);
      const missing = await api().post(`/claims/${claim.id}/check`, { method: 'file' }).expect(200);
      expect(missing.body.data).toMatchObject({ status: 'failed', method: 'file', reason: 'not-found', checkedAt: t.clock.now().toISOString() });
      expect(missing.body.data.detail).toContain(claim.methods.file.url);
      pages.set(`${claim.host}/.well-known/agent-directory-verification.txt`, { body: 'agent-directory-verification=not-the-token\n' });
      const wrong = await api().post(`/claims/${claim.id}/check`, { method: 'file' }).expect(200);
      expect(wrong.body.data).toMatchObject({ status: 'failed', reason: 'wrong-content' });
      expect(await publicClaim(shop.slug)).toBeNull();

      serveFile(claim);
      const ok = await api().post(`/claims/${claim.id}/check`, { method: 'file' }).expect(200);
      expect(ok.body.data).toMatchObject({ status: 'verified', method: 'file', reason: null, claim: { status: 'verified', method: 'file' } });
      expect(await publicClaim(shop.slug)).toEqual({ verified: true, method: 'file', verifiedAt: '2026-11-22' });
      // The checker named itself and the page about it.
      expect(site.requests.at(-1)).toMatchObject({ host: claim.host, path: '/.well-known/agent-directory-verification.txt' });
      expect(site.requests.at(-1)!.userAgent).toContain(`${TEST_BASE_URL}/how-it-works#ownership`);
      const page = await request(t.app).get(`/merchants/${shop.slug}`).expect(200);
      expect(textOf(page.text)).toMatch(/Claimed by its owner, verified by a file on its website on 22 Nov 2026/);
    });

    it('the DNS TXT record: none, wrong value, then verified (a record split in strings counts as one)', async () => {
      const shop = await aShop();
      const claim = await claimOf(shop.slug);
      const none = await api().post(`/claims/${claim.id}/check`, { method: 'dns' }).expect(200);
      expect(none.body.data).toMatchObject({ status: 'failed', method: 'dns', reason: 'not-found' });
      dns.set(claim.methods.dns.name, { TXT: [['v=spf1 -all'], ['agent-directory-verification=someone-else']] });
      const wrong = await api().post(`/claims/${claim.id}/check`, { method: 'dns' }).expect(200);
      expect(wrong.body.data).toMatchObject({ status: 'failed', reason: 'wrong-content' });
      const [head, tail] = [claim.methods.dns.value.slice(0, 20), claim.methods.dns.value.slice(20)];
      dns.set(claim.methods.dns.name, { TXT: [['v=spf1 -all'], [head, tail]] });
      const ok = await api().post(`/claims/${claim.id}/check`, { method: 'dns' }).expect(200);
      expect(ok.body.data).toMatchObject({ status: 'verified', method: 'dns' });
      expect(dns.queries).toContain(`TXT ${claim.methods.dns.name}`);
      expect(await publicClaim(shop.slug)).toMatchObject({ verified: true, method: 'dns' });
      const page = await request(t.app).get(`/merchants/${shop.slug}`).expect(200);
      expect(textOf(page.text)).toMatch(/verified by DNS on 22 Nov 2026/);
    });

    it('the meta tag on the home page: missing, another token, then verified', async () => {
      const shop = await aShop();
      const claim = await claimOf(shop.slug);
      pages.set(`${claim.host}/`, { type: 'text/html', body: '<!doctype html><html><head><title>Riverstone</title></head><body>Bikes</body></html>' });
      const missing = await api().post(`/claims/${claim.id}/check`, { method: 'meta' }).expect(200);
      expect(missing.body.data).toMatchObject({ status: 'failed', method: 'meta', reason: 'wrong-content' });
      pages.set(`${claim.host}/`, { type: 'text/html', body: '<html><head><meta name="agent-directory-verification" content="someone-else"></head></html>' });
      const other = await api().post(`/claims/${claim.id}/check`, { method: 'meta' }).expect(200);
      expect(other.body.data.detail).toContain('not with this claim');
      pages.set(`${claim.host}/`, { type: 'text/html', body: `<html><head>\n<meta charset="utf-8">\n  ${claim.methods.meta.tag.replace('<meta ', '<META ')}\n</head></html>` });
      const ok = await api().post(`/claims/${claim.id}/check`, { method: 'meta' }).expect(200);
      expect(ok.body.data).toMatchObject({ status: 'verified', method: 'meta' });
      expect(await publicClaim(shop.slug)).toMatchObject({ verified: true, method: 'meta' });
    });

    it('without a method, tries each in turn until one verifies, and says what each found', async () => {
      const shop = await aShop();
      const claim = await claimOf(shop.slug);
      pages.set(`${claim.host}/`, { type: 'text/html', body: `<head>${claim.methods.meta.tag}</head>` });
      const res = await api().post(`/claims/${claim.id}/check`).expect(200);
      expect(res.body.data.status).toBe('verified');
      expect(res.body.data.tried.map((r: { method: string; outcome: string }) => `${r.method}:${r.outcome}`)).toEqual(['dns:failed', 'file:failed', 'meta:verified']);
    });

    it('a website whose name leads to a private address is refused, and no connection is made there', async () => {
      const shop = await aMerchant(t.db.prisma, { website: 'https://internal.claims-private.example/' });
      dns.set('internal.claims-private.example', { A: ['10.1.2.3'] });
      const claim = await claimOf(shop.slug);
      const res = await api().post(`/claims/${claim.id}/check`, { method: 'file' }).expect(200);
      expect(res.body.data).toMatchObject({ status: 'failed', reason: 'address-refused' });
      expect(res.body.data.detail).toContain('private network address');
    });

    it('refuses a check body that is not a method, and a revoked-free check of a claim that is not yours', async () => {
      const shop = await aShop();
      const claim = await claimOf(shop.slug);
      const bad = await api().post(`/claims/${claim.id}/check`, { method: 'carrier-pigeon' }).expect(400);
      expect(bad.body.errors[0].pointer).toBe('#/method');
      await api().post('/claims/not-a-uuid/check').expect(404);
    });
  });

  describe('a website that is a path on a shared host', () => {
    it('can only be proved by the meta tag on its own page; the record and the file are refused with the reason', async () => {
      const shop = await aShop('https://mall.claims.test/shops/riverstone');
      const claim = (await api().post('/claims', { merchant: shop.slug }).expect(201)).body.data;
      expect(claim).toMatchObject({ sharedHost: true, host: 'mall.claims.test' });
      expect(claim.methods.dns.refused).toContain('a host others share');
      expect(claim.methods.file.refused).toContain('a host others share');
      expect(claim.methods.meta.url).toBe('https://mall.claims.test/shops/riverstone');
      // Whoever controls the host could publish these; they still prove nothing for this shop.
      const token = /content="([^"]+)"/.exec(claim.methods.meta.tag)![1]!;
      pages.set('mall.claims.test/.well-known/agent-directory-verification.txt', { body: `agent-directory-verification=${token}` });
      dns.set('_agent-directory.mall.claims.test', { TXT: [[`agent-directory-verification=${token}`]] });
      for (const method of ['dns', 'file']) {
        const res = await api().post(`/claims/${claim.id}/check`, { method }).expect(200);
        expect(res.body.data).toMatchObject({ status: 'failed', method, reason: 'method-refused' });
      }
      // The host's home page does not count either: only the shop's own page.
      pages.set('mall.claims.test/', { type: 'text/html', body: `<head>${claim.methods.meta.tag}</head>` });
      const home = await api().post(`/claims/${claim.id}/check`).expect(200);
      expect(home.body.data).toMatchObject({ status: 'failed', method: 'meta' });
      expect(home.body.data.tried).toHaveLength(1);
      pages.set('mall.claims.test/shops/riverstone', { type: 'text/html', body: `<head>${claim.methods.meta.tag}</head>` });
      const ok = await api().post(`/claims/${claim.id}/check`).expect(200);
      expect(ok.body.data).toMatchObject({ status: 'verified', method: 'meta' });
    });
  });

  describe('re-checks, grace and lapse', () => {
    it('a failed re-check starts a grace; proof found again ends it; at the end of a grace the claim lapses and the statement leaves', async () => {
      const shop = await aShop();
      const claim = await claimOf(shop.slug);
      serveFile(claim);
      await api().post(`/claims/${claim.id}/check`, { method: 'file' }).expect(200);
      await api().put(`/merchants/${shop.slug}/owner-statement`, { statement: 'Agents may browse and buy here.', taskClaims: { CHECKOUT: 'WORKS' } }).expect(200);
      const deps = { prisma: t.db.prisma, fetcher: fetcherFromConfig(t.config) };
      const start = t.clock.now();
      const at = (days: number) => new Date(start.getTime() + days * DAY);
      const status = async () => (await t.db.prisma.claim.findUniqueOrThrow({ where: { id: claim.id } })).status;

      // Not due before RECHECK_DAYS.
      await recheckDueClaims(deps, at(RECHECK_DAYS - 1));
      expect(await status()).toBe('VERIFIED');
      // Due, and the proof is still there.
      await recheckDueClaims(deps, at(RECHECK_DAYS + 1));
      expect(await status()).toBe('VERIFIED');

      // The proof is gone: grace, still shown.
      pages.delete(`${claim.host}/.well-known/agent-directory-verification.txt`);
      const failedAt = at(2 * RECHECK_DAYS + 2);
      await recheckDueClaims(deps, failedAt);
      const inGrace = await t.db.prisma.claim.findUniqueOrThrow({ where: { id: claim.id } });
      expect(inGrace.status).toBe('GRACE');
      expect(inGrace.graceUntil!.getTime()).toBe(failedAt.getTime() + GRACE_DAYS * DAY);
      expect(await publicClaim(shop.slug)).toMatchObject({ verified: true, method: 'file' });
      const merchant = await request(t.app).get(`/api/v1/merchants/${shop.slug}`).expect(200);
      expect(merchant.body.data.ownerCompatibility).toMatchObject({ statement: 'Agents may browse and buy here.', byVerifiedOwner: true });
      // The owner's own claim says when it lapses.
      expect((await api().get(`/claims/${claim.id}`).expect(200)).body.data).toMatchObject({ status: 'grace', graceUntil: inGrace.graceUntil!.toISOString() });

      // Put back during the grace: verified again at the next daily check.
      serveFile(claim);
      await recheckDueClaims(deps, new Date(failedAt.getTime() + DAY));
      expect(await status()).toBe('VERIFIED');

      // Gone again: grace, daily checks, then lapse at its end.
      pages.delete(`${claim.host}/.well-known/agent-directory-verification.txt`);
      const second = new Date(failedAt.getTime() + (RECHECK_DAYS + 2) * DAY);
      await recheckDueClaims(deps, second);
      expect(await status()).toBe('GRACE');
      await recheckDueClaims(deps, new Date(second.getTime() + 3 * DAY));
      expect(await status()).toBe('GRACE');
      const lapsed = await recheckDueClaims(deps, new Date(second.getTime() + GRACE_DAYS * DAY));
      expect(lapsed.lapsed).toBeGreaterThanOrEqual(1);
      expect(await status()).toBe('LAPSED');
      expect(await publicClaim(shop.slug)).toBeNull();
      const after = await request(t.app).get(`/api/v1/merchants/${shop.slug}`).expect(200);
      expect(after.body.data.ownerCompatibility).toBeNull();
      const denied = await api().put(`/merchants/${shop.slug}/owner-statement`, { statement: 'Still ours.' }).expect(403);
      expect(denied.body.type).toBe(`${TEST_BASE_URL}/problems/claim-required`);

      // Proved again by its owner: verified, and the statement is back.
      serveFile(claim);
      const again = await api().post(`/claims/${claim.id}/check`).expect(200);
      expect(again.body.data.status).toBe('verified');
      expect((await request(t.app).get(`/api/v1/merchants/${shop.slug}`).expect(200)).body.data.ownerCompatibility.statement).toBe('Agents may browse and buy here.');
      // Every check is logged privately.
      const checks = await t.db.prisma.claimCheck.count({ where: { claimId: claim.id, scheduled: true } });
      expect(checks).toBeGreaterThanOrEqual(6);
    });

    it('the upkeep re-checks once across instances: a pass that finds nothing due checks nothing', async () => {
      const deps = { prisma: t.db.prisma, fetcher: fetcherFromConfig(t.config) };
      const requests = site.requests.length;
      const result = await recheckDueClaims(deps, t.clock.now());
      expect(result.checked).toBe(0);
      expect(site.requests.length).toBe(requests);
    });
  });

  describe('revoke and reinstate', () => {
    it('a moderator revokes a claim (it stops counting at once, with an audit row) and reinstates it', async () => {
      const shop = await aShop();
      const claim = await claimOf(shop.slug);
      serveFile(claim);
      await api().post(`/claims/${claim.id}/check`).expect(200);
      await api().put(`/merchants/${shop.slug}/owner-statement`, { statement: 'We welcome agents.' }).expect(200);

      const list = await moderator.get('/admin/claims').expect(200);
      expect(list.text).toContain(shop.name);
      const detail = await moderator.get(`/admin/claims/${claim.id}`).expect(200);
      expect(detail.text).toContain('owner@riverstone.example');
      const revoked = await postForm(moderator, `/admin/claims/${claim.id}/revoke`, { reason: 'Not the owner: the registrar says so.' }, `/admin/claims/${claim.id}`);
      expect(revoked.status).toBe(303);
      expect((await t.db.prisma.claim.findUniqueOrThrow({ where: { id: claim.id } })).status).toBe('REVOKED');
      expect(await publicClaim(shop.slug)).toBeNull();
      expect((await request(t.app).get(`/api/v1/merchants/${shop.slug}`).expect(200)).body.data.ownerCompatibility).toBeNull();
      // The holder can neither check it back nor claim again, nor speak for the shop.
      expect((await api().post(`/claims/${claim.id}/check`).expect(409)).body.type).toBe(`${TEST_BASE_URL}/problems/claim-revoked`);
      expect((await api().post('/claims', { merchant: shop.slug }).expect(409)).body.type).toBe(`${TEST_BASE_URL}/problems/claim-revoked`);
      await api().put(`/merchants/${shop.slug}/owner-statement`, { statement: 'Ours!' }).expect(403);
      // A second revoke is refused on the page, changing nothing.
      await postForm(moderator, `/admin/claims/${claim.id}/revoke`, {}, `/admin/claims/${claim.id}`);

      await postForm(moderator, `/admin/claims/${claim.id}/reinstate`, { reason: 'Registrar confirmed after all.' }, `/admin/claims/${claim.id}`);
      expect((await t.db.prisma.claim.findUniqueOrThrow({ where: { id: claim.id } })).status).toBe('VERIFIED');
      expect(await publicClaim(shop.slug)).toMatchObject({ verified: true, method: 'file' });
      expect((await request(t.app).get(`/api/v1/merchants/${shop.slug}`).expect(200)).body.data.ownerCompatibility.statement).toBe('We welcome agents.');

      const audit = await t.db.prisma.moderationAuditLog.findMany({ where: { targetType: 'claim', targetId: claim.id }, orderBy: { createdAt: 'asc' } });
      expect(audit.map((a) => a.action)).toEqual(['claim.revoke', 'claim.reinstate']);
      expect(audit[0]!.reason).toBe('Not the owner: the registrar says so.');
    });

    it('only moderators reach the claims', async () => {
      await owner.get('/admin/claims').expect(403);
    });
  });

  describe('what a verified claim allows', () => {
    let shop: Awaited<ReturnType<typeof aShop>>;
    let agent: Awaited<ReturnType<typeof anAgent>>;
    beforeAll(async () => {
      shop = await aShop();
      agent = await anAgent(t.db.prisma);
      const claim = await claimOf(shop.slug);
      serveFile(claim);
      await api().post(`/claims/${claim.id}/check`).expect(200);
    });

    it('a statement: 403 without a claim, published with the attribution and the date, never evidence', async () => {
      const other = await aShop();
      expect((await api().put(`/merchants/${other.slug}/owner-statement`, { statement: 'Mine too.' }).expect(403)).body.type).toBe(`${TEST_BASE_URL}/problems/claim-required`);
      await aReport(t.db.prisma, { merchantId: shop.id, agentId: agent.id, status: 'APPROVED', outcome: 'BLOCKED', stage: 'CART' }, t.clock.now());
      const before = (await request(t.app).get(`/api/v1/merchants/${shop.slug}`).expect(200)).body.data;
      const res = await api().put(`/merchants/${shop.slug}/owner-statement`, { statement: 'Checkout works for every agent.', taskClaims: { CHECKOUT: 'WORKS', PURCHASE: 'WORKS' } }).expect(200);
      expect(res.body.data).toMatchObject({ merchant: shop.slug, declaredAt: '2026-11-22', byVerifiedOwner: true });
      const after = (await request(t.app).get(`/api/v1/merchants/${shop.slug}`).expect(200)).body.data;
      expect(after.ownerCompatibility).toMatchObject({
        statement: 'Checkout works for every agent.',
        taskClaims: { CHECKOUT: 'WORKS', PURCHASE: 'WORKS' },
        declaredAt: '2026-11-22',
        byVerifiedOwner: true,
        attribution: expect.stringContaining('owner'),
      });
      // The community's evidence is untouched.
      const summary = (m: typeof before) => m.agents.find((a: { agent: { slug: string } }) => a.agent.slug === agent.slug);
      expect(summary(after).capabilities).toEqual(summary(before).capabilities);
      expect(summary(after).verdict).toEqual(summary(before).verdict);
      expect(summary(after).reportCount).toBe(summary(before).reportCount);
      const bad = await api().put(`/merchants/${shop.slug}/owner-statement`, { statement: '', taskClaims: { TELEPORT: 'WORKS' } }).expect(400);
      expect(bad.body.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(['#/statement', '#/taskClaims/TELEPORT']);
    });

    it('a reply under an approved report: moderated, shown with who and when, never changing the report', async () => {
      const report = await aReport(t.db.prisma, { merchantId: shop.id, agentId: agent.id, status: 'APPROVED', outcome: 'BLOCKED', stage: 'CHECKOUT' }, t.clock.now());
      const before = (await request(t.app).get(`/api/v1/reports/${report.id}`).expect(200)).body.data;
      expect(before.replies).toEqual([]);
      const posted = await api().post(`/reports/${report.id}/replies`, { body: 'We removed the bot check on checkout on 20 Nov.' }).expect(201);
      expect(posted.body.data).toMatchObject({ status: 'PENDING', from: 'owner', unchanged: false });
      await api().post(`/reports/${report.id}/replies`, { body: 'We removed the bot check on checkout on 20 Nov.' }).expect(200);
      expect((await request(t.app).get(`/api/v1/reports/${report.id}`).expect(200)).body.data.replies).toEqual([]);

      const queue = await moderator.get('/admin/owners').expect(200);
      expect(queue.text).toContain('We removed the bot check');
      await postForm(moderator, `/admin/replies/${posted.body.data.id}/approve`, {}, '/admin/owners');
      const after = (await request(t.app).get(`/api/v1/reports/${report.id}`).expect(200)).body.data;
      expect(after.replies).toEqual([{ from: 'owner', body: 'We removed the bot check on checkout on 20 Nov.', repliedAt: t.clock.now().toISOString(), attribution: expect.stringContaining('verified owner') }]);
      const { replies: _r, ...rest } = after;
      const { replies: _b, ...restBefore } = before;
      expect(rest).toEqual(restBefore);
      const page = await request(t.app).get(`/merchants/${shop.slug}`).expect(200);
      expect(page.text).toContain('We removed the bot check on checkout on 20 Nov.');

      // A report about another shop: no claim covers it.
      const elsewhere = await aReport(t.db.prisma, { merchantId: (await aShop()).id, agentId: agent.id, status: 'APPROVED' }, t.clock.now());
      await api().post(`/reports/${elsewhere.id}/replies`, { body: 'Hello' }).expect(403);
      // A pending report is not public: not found.
      const pending = await aReport(t.db.prisma, { merchantId: shop.id, agentId: agent.id, status: 'PENDING' }, t.clock.now());
      await api().post(`/reports/${pending.id}/replies`, { body: 'Hello' }).expect(404);
    });

    it('a correction waits for a moderator, then changes the merchant through the same update', async () => {
      const res = await api().post(`/merchants/${shop.slug}/corrections`, { name: 'Riverstone Cycles Ltd', serviceRegions: ['gb', 'Ireland'], note: 'Our registered name; we ship to the UK and Ireland.' }).expect(201);
      expect(res.body.data).toMatchObject({ status: 'PENDING', proposed: { name: 'Riverstone Cycles Ltd', serviceRegions: ['GB', 'IE'] } });
      expect((await t.db.prisma.merchant.findUniqueOrThrow({ where: { id: shop.id } })).name).toBe(shop.name);
      await api().post(`/merchants/${shop.slug}/corrections`, { note: 'Nothing proposed.' }).expect(400);
      await api().post(`/merchants/${shop.slug}/corrections`, { category: 'no-such-category', note: 'x' }).expect(400);

      const queue = await moderator.get('/admin/owners').expect(200);
      expect(queue.text).toContain('Our registered name');
      await postForm(moderator, `/admin/corrections/${res.body.data.id}/approve`, {}, '/admin/owners');
      const merchant = await t.db.prisma.merchant.findUniqueOrThrow({ where: { id: shop.id } });
      expect(merchant.name).toBe('Riverstone Cycles Ltd');
      expect(merchant.serviceRegions).toEqual(['GB', 'IE']);
      const audit = await t.db.prisma.moderationAuditLog.findMany({ where: { OR: [{ targetId: res.body.data.id }, { targetId: shop.id }] }, select: { action: true } });
      expect(audit.map((a) => a.action)).toEqual(expect.arrayContaining(['correction.approve']));
    });
  });

  describe('agent vendors', () => {
    it('claim an agent by its vendor website, write its statement, and readers see both', async () => {
      const agent = await anAgent(t.db.prisma, { vendorWebsite: 'https://vendor.claims.test/' });
      const vendor = await signIn(t.app, mailer, 'cto@vendor.example');
      const claim = (await api(vendor).post('/claims', { agent: agent.slug }).expect(201)).body.data;
      expect(claim).toMatchObject({ subject: { type: 'agent', slug: agent.slug }, host: 'vendor.claims.test' });
      dns.set(claim.methods.dns.name, { TXT: [[claim.methods.dns.value]] });
      expect((await api(vendor).post(`/claims/${claim.id}/check`, { method: 'dns' }).expect(200)).body.data.status).toBe('verified');
      await api(vendor).put(`/agents/${agent.slug}/vendor-statement`, { statement: 'Our agent stops before payment unless told otherwise.' }).expect(200);
      const registry = await request(t.app).get('/api/v1/agents?page=1').expect(200);
      const listed = registry.body.data.find((a: { slug: string }) => a.slug === agent.slug);
      expect(listed).toMatchObject({
        vendorWebsite: 'https://vendor.claims.test/',
        claim: { verified: true, method: 'dns' },
        vendorStatement: { statement: 'Our agent stops before payment unless told otherwise.', declaredAt: '2026-11-22' },
      });
      const page = await request(t.app).get(`/agents/${agent.slug}`).expect(200);
      expect(page.text).toContain('Our agent stops before payment unless told otherwise.');
      // The merchant owner cannot write it.
      await api().put(`/agents/${agent.slug}/vendor-statement`, { statement: 'Hijack' }).expect(403);
    });
  });

  describe('the owner digest', () => {
    it('once a day, the reports approved since the last one, with links to reply; none when there is nothing new or it is off', async () => {
      const digestOwner = await signIn(t.app, mailer, 'digest@riverstone.example');
      const shop = await aShop();
      const agent = await anAgent(t.db.prisma, { name: 'Basket Pilot Digest' });
      const claim = (await api(digestOwner).post('/claims', { merchant: shop.slug }).expect(201)).body.data;
      serveFile(claim);
      await api(digestOwner).post(`/claims/${claim.id}/check`).expect(200);
      const digestsTo = () => mailer.digests.filter((d) => d.to === 'digest@riverstone.example');
      const start = t.clock.now().getTime();
      const at = (hours: number) => new Date(start + hours * 3_600_000);

      // Approved before the claim was verified: not news to its owner.
      await aReport(t.db.prisma, { merchantId: shop.id, agentId: agent.id, status: 'APPROVED', outcome: 'WORKS' }, new Date(start - 3_600_000));
      await queueOwnerDigests(t.db.prisma, at(1), TEST_BASE_URL);
      await sendDueDecisionNotices(t.db.prisma);
      expect(digestsTo()).toHaveLength(0);

      // Two approved a day later; a pending one and one about another shop are not in it.
      const blocked = await aReport(t.db.prisma, { merchantId: shop.id, agentId: agent.id, status: 'APPROVED', outcome: 'BLOCKED', stage: 'CHECKOUT' }, at(20));
      await aReport(t.db.prisma, { merchantId: shop.id, agentId: (await anAgent(t.db.prisma)).id, status: 'APPROVED', outcome: 'WORKS', stage: 'PURCHASE' }, at(21));
      await aReport(t.db.prisma, { merchantId: shop.id, agentId: agent.id, status: 'PENDING' }, at(22));
      await aReport(t.db.prisma, { merchantId: (await aShop()).id, agentId: agent.id, status: 'APPROVED' }, at(22));
      // Not yet a day since the last digest's window.
      expect((await queueOwnerDigests(t.db.prisma, at(23), TEST_BASE_URL)).queued).toBe(0);
      const nextDay = at(1 + DIGEST_INTERVAL_MS / 3_600_000);
      const queued = await queueOwnerDigests(t.db.prisma, nextDay, TEST_BASE_URL);
      expect(queued.queued).toBeGreaterThanOrEqual(1);
      // The outbox sends what is due by its own clock: the upkeep's, in a running service.
      t.clock.set(nextDay);
      await sendDueDecisionNotices(t.db.prisma);
      expect(digestsTo()).toHaveLength(1);
      const digest = digestsTo()[0]!.digest;
      expect(digest.reports).toHaveLength(2);
      expect(digest.reports[0]).toEqual({
        merchantName: shop.name,
        agentName: 'Basket Pilot Digest',
        result: 'Blocked (furthest stage: Navigate checkout)',
        url: `${TEST_BASE_URL}/merchants/${shop.slug}#report-${blocked.id}`,
        replyUrl: `${TEST_BASE_URL}/profile/claims/${claim.id}/reports`,
      });
      expect(digest.ownerPageUrl).toBe(`${TEST_BASE_URL}/profile/claims`);
      // The same window is never sent twice.
      await queueOwnerDigests(t.db.prisma, at(1 + DIGEST_INTERVAL_MS / 3_600_000), TEST_BASE_URL);
      await sendDueDecisionNotices(t.db.prisma);
      expect(digestsTo()).toHaveLength(1);

      // Off: nothing, even with news.
      const page = await digestOwner.get('/profile/claims').expect(200);
      const { csrfTokenOf } = await import('../setup/session.js');
      await digestOwner.post('/profile/claims/digest').set('Origin', TEST_BASE_URL).type('form').send({ _csrf: csrfTokenOf(page.text) }).expect(303);
      await aReport(t.db.prisma, { merchantId: shop.id, agentId: agent.id, status: 'APPROVED', outcome: 'PARTIAL' }, at(40));
      await queueOwnerDigests(t.db.prisma, at(60), TEST_BASE_URL);
      t.clock.set(at(60));
      await sendDueDecisionNotices(t.db.prisma);
      expect(digestsTo()).toHaveLength(1);
      t.clock.set(new Date(start));
    });

    it('is written through nodemailer to the development outbox, with the links and how to stop it', async () => {
      const dataDir = path.join(t.config.dataDir, 'digest-mail');
      const real = createMailer({ smtpUrl: undefined, from: 'directory@example.org', dataDir, logger: createLogger('silent') });
      const digest = {
        reports: [{ merchantName: 'Riverstone Cycles', agentName: 'Basket Pilot', result: 'Blocked at Checkout', url: `${TEST_BASE_URL}/merchants/riverstone#report-1`, replyUrl: `${TEST_BASE_URL}/profile/claims/c1/reports` }],
        ownerPageUrl: `${TEST_BASE_URL}/profile/claims`,
      };
      await real.sendOwnerDigest('owner@riverstone.example', digest);
      real.close();
      const files = readdirSync(path.join(dataDir, 'outbox'));
      expect(files).toHaveLength(1);
      const eml = readFileSync(path.join(dataDir, 'outbox', files[0]!), 'utf8');
      expect(eml).toContain('Subject: A new report about Riverstone Cycles in the Agent-Compatibility');
      const { text } = ownerDigestMessage(digest);
      expect(text).toContain('Riverstone Cycles, tested with Basket Pilot: Blocked at Checkout');
      expect(text).toContain(`Reply to it: ${TEST_BASE_URL}/profile/claims/c1/reports`);
      expect(text).toContain(`${TEST_BASE_URL}/profile/claims#digest`);
    });
  });
});
