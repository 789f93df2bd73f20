// The contribution form's pending screenshots (issue 23, finding 4): concurrent posts on one
// session leave no file that no session refers to, the store stays within its bounds per account
// and in total, and a draft's files go with the draft or the session that held it.
import { mkdirSync, utimesSync, writeFileSync, rmSync, existsSync } from 'node:fs';
import path from 'node:path';
import type request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DRAFT_FULL_MESSAGE,
  pendingDir,
  storeDraft,
  sweepPending,
  withDraftLock,
  PENDING_LIMITS,
} from '../../src/modules/reports/pending-screenshots.js';
import { MAX_SCREENSHOTS } from '../../src/modules/evidence/screenshots.js';
import { TEST_BASE_URL, scratchDataDir, type TestApp, createTestApp } from '../setup/app.js';
import { captureMailer, csrfTokenOf, signIn } from '../setup/session.js';
import { orphanedFiles, pendingFiles, pngOf, storedSessions, usageByAccount } from '../setup/pending-store.js';

describe('pending screenshots of the contribution form', () => {
  let t: TestApp;
  const mailer = captureMailer();
  beforeAll(async () => {
    t = await createTestApp({ mailer });
  });
  afterAll(() => t.close());

  const accountIdOf = async (email: string) => (await t.db.prisma.account.findUniqueOrThrow({ where: { email } })).id;
  const tokenOf = async (agent: request.Agent) => csrfTokenOf((await agent.get('/reports/new').expect(200)).text);

  /** A merchant search without JavaScript (the Find button), with screenshots attached. */
  function find(agent: request.Agent, token: string, files: Buffer[], fields: Record<string, string> = {}) {
    let req = agent.post('/reports/new').set('Origin', TEST_BASE_URL).field('_csrf', token).field('find', '1').field('q', 'no-such-shop');
    for (const [name, value] of Object.entries(fields)) req = req.field(name, value);
    files.forEach((file, i) => (req = req.attach('screenshots', file, `shot-${i}.png`)));
    return req;
  }

  const keepIdsOf = (html: string) => [...html.matchAll(/name="(keep_[A-Za-z0-9_-]+)" checked/g)].map((m) => m[1]!);

  it('keeps only the files the session refers to after ten concurrent searches with three screenshots each', async () => {
    const browser = await signIn(t.app, mailer, 'ten-at-once@example.org');
    const token = await tokenOf(browser);

    const responses = await Promise.all(Array.from({ length: 10 }, (_, i) => find(browser, token, [pngOf(100 + i), pngOf(200 + i), pngOf(300 + i)])));

    for (const res of responses) expect(res.status, res.text.slice(0, 300)).toBe(200);
    const accountId = await accountIdOf('ten-at-once@example.org');
    const sessions = (await storedSessions(t.db.pool)).filter((s) => s.accountId === accountId);
    expect(sessions).toHaveLength(1);
    // One draft per session: the last post's three screenshots, and nothing else on disk.
    expect(sessions[0]!.pending).toHaveLength(MAX_SCREENSHOTS);
    expect(pendingFiles(t.config.dataDir).map((f) => f.rel)).toEqual(sessions[0]!.pending.map((p) => p.file).sort());
    expect(await orphanedFiles(t.db.pool, t.config.dataDir)).toEqual([]);
    // The page a person sees last offers exactly those.
    const page = await browser
      .post('/reports/new')
      .set('Origin', TEST_BASE_URL)
      .type('form')
      .send({ _csrf: token, find: '1', q: 'x', ...Object.fromEntries(sessions[0]!.pending.map((p) => [`keep_${p.id}`, 'on'])) })
      .expect(200);
    expect(keepIdsOf(page.text).sort()).toEqual(sessions[0]!.pending.map((p) => `keep_${p.id}`).sort());
    expect(pendingFiles(t.config.dataDir)).toHaveLength(MAX_SCREENSHOTS);
  });

  it('keeps an account within its bound when three of its sessions each send ten posts at once', async () => {
    const email = 'many-sessions@example.org';
    const sessions = [await signIn(t.app, mailer, email), await signIn(t.app, mailer, email), await signIn(t.app, mailer, email)];
    const tokens = await Promise.all(sessions.map(tokenOf));
    const size = 64 * 1024;
    const before = pendingFiles(t.config.dataDir).length;

    const responses = await Promise.all(
      sessions.flatMap((agent, s) => Array.from({ length: 10 }, () => find(agent, tokens[s]!, [pngOf(size), pngOf(size), pngOf(size)]))),
    );

    for (const res of responses) expect(res.status, res.text.slice(0, 300)).toBe(200);
    const accountId = await accountIdOf(email);
    const usage = usageByAccount(t.config.dataDir).get(accountId)!;
    expect(usage.files).toBeLessThanOrEqual(PENDING_LIMITS.accountFiles);
    expect(usage.files).toBe(2 * MAX_SCREENSHOTS);
    expect(usage.bytes).toBe(2 * MAX_SCREENSHOTS * size);
    expect(pendingFiles(t.config.dataDir).length - before).toBe(usage.files);
    expect(await orphanedFiles(t.db.pool, t.config.dataDir)).toEqual([]);
  });

  it('says so when a kept screenshot made room for another draft of the account', async () => {
    const email = 'two-browsers@example.org';
    const [first, second, third] = [await signIn(t.app, mailer, email), await signIn(t.app, mailer, email), await signIn(t.app, mailer, email)];
    const firstToken = await tokenOf(first!);
    const page = await find(first!, firstToken, [pngOf(500)]).expect(200);
    const [keep] = keepIdsOf(page.text);
    t.clock.advance(1000);
    // Two newer drafts of three screenshots each fill the account's room: the oldest file goes.
    await find(second!, await tokenOf(second!), [pngOf(500), pngOf(500), pngOf(500)]).expect(200);
    await find(third!, await tokenOf(third!), [pngOf(500), pngOf(500), pngOf(500)]).expect(200);
    expect(usageByAccount(t.config.dataDir).get(await accountIdOf(email))!.files).toBe(PENDING_LIMITS.accountFiles);

    const back = await find(first!, firstToken, [], { [keep!]: 'on' }).expect(200);
    expect(back.text).toContain('no longer attached');
    expect(keepIdsOf(back.text)).toEqual([]);
    expect(await orphanedFiles(t.db.pool, t.config.dataDir)).toEqual([]);
  });

  it('deletes a draft’s files when the form is opened afresh, and those of a session that ended at the next sweep', async () => {
    const email = 'ends@example.org';
    const browser = await signIn(t.app, mailer, email);
    const token = await tokenOf(browser);
    const accountId = await accountIdOf(email);
    await find(browser, token, [pngOf(300), pngOf(301)]).expect(200);
    expect(usageByAccount(t.config.dataDir).get(accountId)?.files).toBe(2);

    await browser.get('/reports/new').expect(200);
    expect(usageByAccount(t.config.dataDir).get(accountId)?.files ?? 0).toBe(0);

    await find(browser, token, [pngOf(302)]).expect(200);
    expect(usageByAccount(t.config.dataDir).get(accountId)?.files).toBe(1);
    await browser.post('/sign-out').set('Origin', TEST_BASE_URL).type('form').send({ _csrf: token }).expect(303);
    expect(await orphanedFiles(t.db.pool, t.config.dataDir)).toHaveLength(1);
    await sweepPending(t.db.prisma, t.config.dataDir, t.clock.now());
    expect(usageByAccount(t.config.dataDir).get(accountId)).toBeUndefined();
    expect(existsSync(path.join(pendingDir(t.config.dataDir), accountId))).toBe(false);

    // An expired session's draft goes the same way; a live one stays.
    const other = await signIn(t.app, mailer, 'expires@example.org');
    const live = await signIn(t.app, mailer, 'stays@example.org');
    await find(other, await tokenOf(other), [pngOf(303)]).expect(200);
    await find(live, await tokenOf(live), [pngOf(304)]).expect(200);
    const expiringId = await accountIdOf('expires@example.org');
    const expiring = (await storedSessions(t.db.pool)).find((s) => s.accountId === expiringId && s.pending.length > 0);
    expect(expiring).toBeDefined();
    await t.db.pool.query(`UPDATE "session" SET expire = now() - interval '1 minute' WHERE sid = $1`, [expiring!.sid]);
    await sweepPending(t.db.prisma, t.config.dataDir, t.clock.now());
    expect(usageByAccount(t.config.dataDir).get(await accountIdOf('expires@example.org'))).toBeUndefined();
    expect(usageByAccount(t.config.dataDir).get(await accountIdOf('stays@example.org'))?.files).toBe(1);
    expect(await orphanedFiles(t.db.pool, t.config.dataDir)).toEqual([]);
  });

  it('sweeps a draft past its lifetime, and files left at the top of the store by the former layout', async () => {
    const email = 'lifetime@example.org';
    const browser = await signIn(t.app, mailer, email);
    await find(browser, await tokenOf(browser), [pngOf(305)]).expect(200);
    writeFileSync(path.join(pendingDir(t.config.dataDir), 'former-layout.png'), pngOf(10));
    t.clock.advance(25 * 3600_000);
    await sweepPending(t.db.prisma, t.config.dataDir, t.clock.now());
    expect(usageByAccount(t.config.dataDir).get(await accountIdOf(email))).toBeUndefined();
    expect(usageByAccount(t.config.dataDir).get('')).toBeUndefined();
  });
});

describe('the pending-screenshot store (on disk, without HTTP)', () => {
  // An accepted upload is a file on disk (the request's, as the multipart parser wrote it).
  const uploads = scratchDataDir('uploads-');
  let uploaded = 0;
  const shot = (size: number, name = 'a.png') => {
    const file = path.join(uploads, `upload-${uploaded++}`);
    writeFileSync(file, pngOf(size));
    return { file, size, mediaType: 'image/png' as const, name };
  };
  const now = new Date('2026-11-22T12:00:00Z');

  it('refuses new uploads beyond the total, writing nothing, under concurrent drafts of many accounts', async () => {
    const dataDir = scratchDataDir('pending-');
    const limits = { accountFiles: 4, accountBytes: 4_000, totalFiles: 7, totalBytes: 5_000 };
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        withDraftLock(dataDir, `account-${i % 4}`, () => storeDraft({ dataDir, accountId: `account-${i % 4}`, keep: [], add: [shot(900), shot(700)], now, limits })),
      ),
    );
    const files = pendingFiles(dataDir);
    expect(files.length).toBeLessThanOrEqual(limits.totalFiles);
    expect(files.reduce((sum, f) => sum + f.size, 0)).toBeLessThanOrEqual(limits.totalBytes);
    for (const [, usage] of usageByAccount(dataDir)) {
      expect(usage.files).toBeLessThanOrEqual(limits.accountFiles);
      expect(usage.bytes).toBeLessThanOrEqual(limits.accountBytes);
    }
    const refused = results.filter((r) => r.refused);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) {
      expect(r.refused).toBe(DRAFT_FULL_MESSAGE);
      expect(r.added).toEqual([]);
    }
    // Every file written is one that a draft received.
    expect(files.map((f) => f.rel).sort()).toEqual(
      results
        .flatMap((r) => r.added.map((p) => p.file))
        .filter((file) => files.some((f) => f.rel === file))
        .sort(),
    );
  });

  it('makes room in an account by dropping its oldest files outside the draft being kept', async () => {
    const dataDir = scratchDataDir('pending-');
    const limits = { ...PENDING_LIMITS, accountFiles: 3 };
    const first = await storeDraft({ dataDir, accountId: 'acc', keep: [], add: [shot(100), shot(100)], now, limits });
    const old = path.join(pendingDir(dataDir), first.added[0]!.file);
    utimesSync(old, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    const second = await storeDraft({ dataDir, accountId: 'acc', keep: [first.added[1]!], add: [shot(100), shot(100)], now, limits });
    expect(second.refused).toBeNull();
    expect(pendingFiles(dataDir).map((f) => f.rel)).toEqual([first.added[1]!.file, ...second.added.map((p) => p.file)].sort());
  });

  it('waits for a lock another process holds, and breaks one left by a process that died', async () => {
    const dataDir = scratchDataDir('pending-');
    const lock = path.join(pendingDir(dataDir), '.locks', 'acc.lock');
    mkdirSync(path.dirname(lock), { recursive: true });
    writeFileSync(lock, '');
    let ran = false;
    const change = withDraftLock(dataDir, 'acc', async () => {
      ran = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(ran).toBe(false);
    rmSync(lock);
    await change;
    expect(ran).toBe(true);
    expect(existsSync(lock)).toBe(false);

    writeFileSync(lock, '');
    utimesSync(lock, new Date(Date.now() - 120_000), new Date(Date.now() - 120_000));
    await withDraftLock(dataDir, 'acc', async () => undefined);
    expect(existsSync(lock)).toBe(false);
  });
});
