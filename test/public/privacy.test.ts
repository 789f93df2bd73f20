// Every private column holds a unique marker; no public response may contain any of them.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recomputeAllSummaries } from '../../src/modules/aggregation/summaries.service.js';
import { createDemoApp, DEMO_NOW } from '../setup/demo.js';
import { TEST_BASE_URL, type TestApp } from '../setup/app.js';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { writeDump } from '../../src/modules/open-data/export.js';

const MARK = 'PRIVATE-MARKER';
/**
 * The moderators' signals (issue 37) by the names they carry anywhere: none may appear in public
 * output (the account age, the address hash, bursts, near-identical texts, contradictions).
 */
const SIGNAL_FIELDS = ['accountAgeDays', 'account_age', 'addressHash', 'address_hash', 'sameAddress', 'sameAccount', 'nearDuplicate', 'authorApproved', 'authorRejected', 'data-signals', 'signal-fact'];
const noSignals = (where: string, text: string) => {
  for (const field of SIGNAL_FIELDS) if (text.includes(field)) throw new Error(`${where} carries the moderators' signal ${field}`);
};


describe('no private data in public output', () => {
  let t: TestApp;
  /** The slug of the merchant the owner claims and replies below are made on. */
  let claimed: string;
  const markers: string[] = [];
  const sql = <T>(text: string, values: unknown[] = []) =>
    t.db.pool.query(text, values).then((r) => r.rows as [T, ...T[]]);

  async function mark(table: string, column: string, where = 'true', format = (i: number) => `${MARK}-${table}-${column}-${i}`) {
    const rows = await sql<{ ctid: string }>(`SELECT ctid::text FROM ${table} WHERE ${where}`);
    for (const [i, row] of rows.entries()) {
      const value = format(i);
      markers.push(value);
      await sql(`UPDATE ${table} SET ${column} = $1 WHERE ctid = $2::tid`, [value, row.ctid]);
    }
    return rows.length;
  }

  beforeAll(async () => {
    t = await createDemoApp();
    const [merchant] = await sql<{ id: string; slug: string }>('SELECT id, slug FROM merchants WHERE is_public ORDER BY report_count DESC, id LIMIT 1');
    claimed = merchant.slug;
    const [agent] = await sql<{ id: string }>('SELECT id FROM agents WHERE active LIMIT 1');
    // The author of one of the merchant's approved reports: the claims below make that report self-reported (issue 37).
    const [account] = await sql<{ id: string }>(
      `SELECT account_id AS id FROM reports WHERE status = 'APPROVED' AND merchant_id = $1 ORDER BY created_at, id LIMIT 1`,
      [merchant!.id],
    );

    expect(await mark('accounts', 'email', 'true', (i) => `${MARK.toLowerCase()}-${i}@private.example`)).toBeGreaterThan(0);
    await sql(`UPDATE accounts SET suspended_reason = 'x' WHERE ctid = (SELECT ctid FROM accounts LIMIT 1)`);
    await mark('accounts', 'suspended_reason', 'suspended_reason IS NOT NULL');
    await mark('reports', 'moderation_feedback');
    await mark('reports', 'moderation_notes');
    // Unpublished reports and reports of hidden merchants or inactive agents: their whole text is private.
    await mark('reports', 'experience', `status <> 'APPROVED'`);
    await mark('reports', 'experience', `merchant_id IN (SELECT id FROM merchants WHERE NOT is_public)`);
    await mark('reports', 'experience', `agent_id IN (SELECT id FROM agents WHERE NOT active)`);
    await mark('reports', 'agent_version', `status <> 'APPROVED'`);
    // Issue 37: every report's address hash (private to the moderators' signals).
    expect(await mark('reports', 'address_hash')).toBeGreaterThan(0);
    await mark('merchants', 'name', 'NOT is_public');
    await mark('merchants', 'slug', 'NOT is_public', (i) => `private-marker-hidden-${i}`);
    await mark('agents', 'name', 'NOT active');
    await mark('sponsorships', 'billing_id');
    expect(await mark('owner_statements', 'ownership_evidence')).toBeGreaterThan(0);

    // Rows the demo does not have: screenshots, keys, sign-in tokens, sessions, audit entries.
    const [report] = await sql<{ id: string }>(
      `SELECT id FROM reports WHERE status = 'APPROVED' AND merchant_id = $1 LIMIT 1`,
      [merchant!.id],
    );
    markers.push(`/srv/${MARK}/evidence/a.png`, `${MARK}-sha256`, `${MARK}-keyhash`, `acd_${MARK}`, `${MARK}-token`, `${MARK}-session`, `${MARK}-audit`);
    await sql(
      `INSERT INTO screenshot_evidence (id, report_id, storage_path, media_type, size_bytes, sha256)
       VALUES ('00000000-0000-7000-8000-00000000e001', $1, $2, 'image/png', 10, $3)`,
      [report!.id, `/srv/${MARK}/evidence/a.png`, `${MARK}-sha256`],
    );
    await sql(
      `INSERT INTO agent_keys (id, key_hash, display_prefix, account_id, agent_id, expires_at)
       VALUES ('00000000-0000-7000-8000-00000000e002', $1, $2, $3, $4, now() + interval '90 days')`,
      [`${MARK}-keyhash`, `acd_${MARK}`, account!.id, agent!.id],
    );
    await sql(
      `INSERT INTO sign_in_tokens (id, token_hash, email, expires_at) VALUES ('00000000-0000-7000-8000-00000000e003', $1, 'x@private.example', now())`,
      [`${MARK}-token`],
    );
    await sql(`INSERT INTO session (sid, sess, expire) VALUES ('s1', $1, now())`, [JSON.stringify({ note: `${MARK}-session` })]);
    await sql(
      `INSERT INTO moderation_audit_log (id, actor_id, action, report_id, target_type, target_id, reason)
       VALUES ('00000000-0000-7000-8000-00000000e004', $1, 'approve', $2::uuid, 'report', $2::text, $3)`,
      [account!.id, report!.id, `${MARK}-audit`],
    );
    // Owners (issue 34): a verified claim of the merchant and one of the agent, their check logs,
    // a published reply (public) beside a pending and a rejected one, a correction and a queued digest.
    // The newest published ones: the first the merchant's page lists.
    const reportIds = (
      await sql<{ id: string }>(
        // Not the claimant's own (self-reported, so not in the merchant page's default list).
        `SELECT id FROM reports WHERE status = 'APPROVED' AND merchant_id = $1 AND account_id <> $2 ORDER BY moderated_at DESC, id DESC LIMIT 3`,
        [merchant!.id, account!.id],
      )
    ).map((r) => r.id);
    expect(reportIds).toHaveLength(3);
    const claimIds = ['00000000-0000-7000-8000-00000000c001', '00000000-0000-7000-8000-00000000c002'];
    markers.push(...claimIds, `${MARK}-claim-token-1`, `${MARK}-claim-token-2`, `${MARK}-check`, `${MARK}-reply-pending`, `${MARK}-reply-rejected`, `${MARK}-reply-feedback`);
    markers.push(`${MARK}-correction-note`, `${MARK}-correction-name`, `${MARK}-digest`);
    await sql(
      `INSERT INTO claims (id, account_id, side, merchant_id, agent_id, host, page_url, token, status, method, verified_at, checked_at, updated_at) VALUES
         ($1, $3, 'MERCHANT', $4, NULL, 'shop.example', 'https://shop.example/', $5, 'VERIFIED', 'DNS', now(), now(), now()),
         ($2, $3, 'AGENT', NULL, $6, 'vendor.example', 'https://vendor.example/', $7, 'VERIFIED', 'FILE', now(), now(), now())`,
      [claimIds[0], claimIds[1], account!.id, merchant!.id, `${MARK}-claim-token-1`, agent!.id, `${MARK}-claim-token-2`],
    );
    await sql(
      `INSERT INTO claim_checks (id, claim_id, method, outcome, reason, detail, checked_at)
       VALUES ('00000000-0000-7000-8000-00000000c101', $1, 'DNS', 'verified', NULL, $2, now())`,
      [claimIds[0], `${MARK}-check _agent-directory.shop.example`],
    );
    await sql(
      `INSERT INTO report_replies (id, report_id, claim_id, account_id, side, body, status, feedback, moderated_at, updated_at) VALUES
         ('00000000-0000-7000-8000-00000000c201', $1, $4, $5, 'MERCHANT', 'PUBLIC-REPLY-FROM-THE-OWNER', 'APPROVED', NULL, now(), now()),
         ('00000000-0000-7000-8000-00000000c202', $2, $4, $5, 'MERCHANT', $6, 'PENDING', NULL, NULL, now()),
         ('00000000-0000-7000-8000-00000000c203', $3, $4, $5, 'MERCHANT', $7, 'REJECTED', $8, now(), now())`,
      [...reportIds, claimIds[0], account!.id, `${MARK}-reply-pending`, `${MARK}-reply-rejected`, `${MARK}-reply-feedback`],
    );
    await sql(
      `INSERT INTO correction_requests (id, merchant_id, claim_id, account_id, proposed, note, updated_at)
       VALUES ('00000000-0000-7000-8000-00000000c301', $1, $2, $3, $4, $5, now())`,
      [merchant!.id, claimIds[0], account!.id, JSON.stringify({ name: `${MARK}-correction-name` }), `${MARK}-correction-note`],
    );
    await sql(
      `INSERT INTO mail_outbox (id, kind, recipient, payload, next_attempt_at) VALUES ('00000000-0000-7000-8000-00000000c401', 'owner-digest', 'owner@private.example', $1, now() + interval '1 day')`,
      [JSON.stringify({ reports: [{ merchantName: `${MARK}-digest` }] })],
    );
    // Account ids are private too.
    markers.push(...(await sql<{ id: string }>('SELECT id FROM accounts')).map((a) => a.id));
    await recomputeAllSummaries(t.db.prisma, new Date(DEMO_NOW));
  });
  afterAll(() => t.close());

  it('holds for every public endpoint and filter combination', async () => {
    const [merchant] = await sql<{ id: string; slug: string }>(
      'SELECT id, slug FROM merchants WHERE is_public ORDER BY report_count DESC LIMIT 1',
    );
    const [hidden] = await sql<{ id: string }>('SELECT id FROM merchants WHERE NOT is_public LIMIT 1');
    const agents = await sql<{ slug: string }>('SELECT slug FROM agents');
    const categories = await sql<{ slug: string }>('SELECT slug FROM categories');
    const reports = await sql<{ id: string; published: boolean }>(
      `SELECT id, status = 'APPROVED' AS published FROM reports ORDER BY id`,
    );
    const merchants = await sql<{ slug: string }>('SELECT slug FROM merchants');

    const paths = [
      '/api/v1/openapi.json',
      '/api/v1/categories',
      '/api/v1/agents',
      '/api/v1/merchants',
      '/api/v1/reports',
      `/api/v1/reports?merchant=${merchant!.id}`,
      `/api/v1/reports?merchant=${hidden!.id}`,
      ...['recent', 'popular', 'name'].flatMap((sort) => [1, 2, 3].map((page) => `/api/v1/merchants?sort=${sort}&page=${page}`)),
      ...['WORKS', 'PARTIAL', 'BLOCKED', 'DOES_NOT_WORK', 'UNSURE'].flatMap((outcome) => [
        `/api/v1/merchants?outcome=${outcome}`,
        `/api/v1/reports?outcome=${outcome}`,
      ]),
      '/api/v1/merchants?stage=PURCHASE&days=365&minReports=1&region=US',
      '/api/v1/merchants?q=private',
      '/api/v1/merchants?q=marker',
      ...categories.map((c) => `/api/v1/merchants?category=${c.slug}`),
      ...agents.flatMap((a) => [
        `/api/v1/merchants?agent=${a.slug}&sort=rating`,
        `/api/v1/agents/${a.slug}/merchants`,
        `/api/v1/reports?agent=${a.slug}`,
      ]),
      ...merchants.map((m) => `/api/v1/merchants/${m.slug}`),
      // Issue 37: with the self-reported reports (the claims above make some) counted and listed too.
      ...merchants.map((m) => `/api/v1/merchants/${m.slug}?independent=all`),
      '/api/v1/reports?independent=all',
      `/api/v1/reports?merchant=${merchant!.id}&independent=all`,
      '/api/v1/merchants?independent=all&view=compact',
      // Every unpublished report, and a sample of published ones.
      ...reports.filter((r, i) => !r.published || i % 4 === 0).map((r) => `/api/v1/reports/${r.id}`),
      ...[2, 3, 4, 5].map((page) => `/api/v1/reports?page=${page}`),
    ];
    let ok = 0;
    let cached = 0;
    for (const path of [...paths, ...paths.map((p) => (p.includes('?') ? `${p}&view=compact` : p)).filter((p) => p.startsWith('/api/v1/merchants?'))]) {
      // Twice: built, then answered from the response cache.
      for (let i = 0; i < 2; i++) {
        const res = await request(t.app).get(path);
        expect([200, 400, 404]).toContain(res.status);
        if (res.status === 200) ok++;
        if (res.headers['x-cache'] === 'HIT') cached++;
        noSignals(path, res.text);
        const text = res.text.toLowerCase();
        for (const marker of markers) {
          if (text.includes(marker.toLowerCase())) throw new Error(`${path} leaks ${marker}`);
        }
      }
    }
    expect(ok).toBeGreaterThan(200);
    expect(cached).toBeGreaterThan(100);
  }, 180_000);

  it('holds for every feed, badge, dump and index', async () => {
    const merchants = await sql<{ slug: string }>('SELECT slug FROM merchants');
    const agents = await sql<{ slug: string }>('SELECT slug FROM agents');
    const categories = await sql<{ slug: string }>('SELECT slug FROM categories');
    const check = (where: string, text: string) => {
      noSignals(where, text);
      const lower = text.toLowerCase();
      for (const marker of markers) if (lower.includes(marker.toLowerCase())) throw new Error(`${where} leaks ${marker}`);
    };
    const paths = [
      '/feed.atom',
      '/llms.txt',
      '/robots.txt',
      '/sitemap.xml',
      '/api/v1',
      '/data',
      ...merchants.map((m) => `/merchants/${m.slug}/feed.atom`),
      ...agents.map((a) => `/agents/${a.slug}/feed.atom`),
      ...categories.map((c) => `/categories/${c.slug}/feed.atom`),
      ...merchants.slice(0, 40).flatMap((m) => agents.flatMap((a) => [`/badges/${m.slug}/${a.slug}.svg`, `/badges/${m.slug}/${a.slug}.svg?task=CART`])),
      // The pages people read: merchants (claims, statements, replies) and agents (vendors).
      ...merchants.map((m) => `/merchants/${m.slug}`),
      ...merchants.map((m) => `/merchants/${m.slug}?independent=all`),
      ...agents.map((a) => `/agents/${a.slug}`),
    ];
    let feeds = 0;
    for (const path of paths) {
      // Any body as text (feeds and badges are XML types supertest does not buffer by itself).
      const res = await request(t.app)
        .get(path)
        .buffer(true)
        .parse((stream, done) => {
          let text = '';
          stream.setEncoding('utf8');
          stream.on('data', (chunk: string) => (text += chunk));
          stream.on('end', () => done(null, text));
        });
      expect([200, 404], path).toContain(res.status);
      if (path.endsWith('.atom') && res.status === 200) feeds++;
      check(path, res.body as string);
    }
    expect(feeds).toBeGreaterThan(20);
    // The published reply and the verified claim do show: the checks above looked where they are.
    // The merchant the claims and replies were made on (its report count fell since: the claim made one of its reports self-reported).
    const page = await request(t.app).get(`/merchants/${claimed}`).expect(200);
    expect(page.text).toContain('PUBLIC-REPLY-FROM-THE-OWNER');
    expect(page.text).toMatch(/Claimed by its owner, verified by DNS/);
    const api = await request(t.app).get(`/api/v1/merchants/${claimed}`).expect(200);
    expect(api.body.data.claim).toMatchObject({ verified: true, method: 'dns' });
    const { file } = await writeDump({ prisma: t.db.prisma, dataDir: t.config.dataDir, baseUrl: TEST_BASE_URL }, new Date(DEMO_NOW));
    const dump = gunzipSync(readFileSync(file)).toString('utf8');
    const types = new Set(dump.trim().split('\n').map((line) => (JSON.parse(line) as { type: string }).type));
    expect([...types].sort()).toEqual(['agent', 'category', 'merchant', 'meta', 'report', 'summary']);
    check('the dump', dump);
    // Some reports are self-reported here (the claims above), marked with no identity.
    expect(dump).toContain('"selfReported":true');
  }, 180_000);

  it('holds for the MCP tools (issue 37: signals, addresses and account ages never reach them)', async () => {
    const merchants = await sql<{ slug: string; id: string }>('SELECT slug, id FROM merchants WHERE is_public ORDER BY report_count DESC LIMIT 10');
    const calls: Array<[string, Record<string, unknown>]> = [
      ['search_merchants', {}],
      ['search_merchants', { independent: 'all' }],
      ['list_reports', { independent: 'all' }],
      ['list_agents', {}],
      ...merchants.flatMap((m): Array<[string, Record<string, unknown>]> => [
        ['get_merchant', { slugOrId: m.slug }],
        ['get_merchant', { slugOrId: m.slug, independent: 'all' }],
        ['list_reports', { merchant: m.id, independent: 'all' }],
      ]),
    ];
    for (const [i, [name, args]] of calls.entries()) {
      const res = await request(t.app)
        .post('/mcp')
        .set('Accept', 'application/json, text/event-stream')
        .send({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name, arguments: args } })
        .expect(200);
      expect(res.body.result?.isError, `${name} ${JSON.stringify(args)}`).toBeFalsy();
      const text = JSON.stringify(res.body);
      noSignals(`MCP ${name}`, text);
      const lower = text.toLowerCase();
      for (const marker of markers) if (lower.includes(marker.toLowerCase())) throw new Error(`MCP ${name} leaks ${marker}`);
    }
  }, 180_000);
});
