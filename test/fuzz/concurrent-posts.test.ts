// Generated bursts of concurrent contribution-form posts (fast-check): four sessions of two
// accounts post at once, each a merchant search or a submission (valid, invalid, or a changed
// duplicate), with 0 to 4 attachments of random sizes (PNG, JPEG and WebP, fakes, empty files,
// one over the size limit), keeping random screenshots of the page they saw last, while a
// fresh form now and then drops a draft. After every burst: no 5xx; no file in the pending
// store that no live session refers to; each draft within the form's limit; each account and
// the store within PENDING_LIMITS (files and bytes on disk).
//
// Sign-out is not in the mix: an ended session's files wait for the sweep, tested in
// test/contribution/pending-screenshots.test.ts.
//
// Bounded for CI (FC_RUNS bursts, default 25); replay a failure with the seed and path
// fast-check prints: FC_SEED=<seed> FC_PATH=<path> npx vitest run test/fuzz/concurrent-posts.test.ts
import fc from 'fast-check';
import type request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SCREENSHOT_BYTES, MAX_SCREENSHOTS } from '../../src/modules/evidence/screenshots.js';
import { PENDING_LIMITS } from '../../src/modules/reports/pending-screenshots.js';
import { contributionTargets } from '../factories/index.js';
import { TEST_BASE_URL, type TestApp, createTestApp } from '../setup/app.js';
import { orphanedFiles, pendingFiles, pngOf, storedSessions, usageByAccount } from '../setup/pending-store.js';
import { captureMailer, csrfTokenOf, signIn } from '../setup/session.js';

const RUNS = Number(process.env.FC_RUNS ?? 25);
const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;
const PATH = process.env.FC_PATH;

type Kind = 'png' | 'jpeg' | 'webp' | 'fake' | 'empty' | 'huge';
const HUGE = pngOf(MAX_SCREENSHOT_BYTES + 1);

function fileOf(kind: Kind, size: number): Buffer {
  const padding = (n: number) => Buffer.alloc(Math.max(0, n), 0x2a);
  switch (kind) {
    case 'png':
      return pngOf(size);
    case 'jpeg':
      return Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), padding(size - 4)]);
    case 'webp':
      return Buffer.concat([Buffer.from('RIFF\0\0\0\0WEBPVP8 ', 'latin1'), padding(size - 16)]);
    case 'fake':
      return Buffer.from(`<?php echo "not an image"; ?>${'x'.repeat(size % 500)}`);
    case 'empty':
      return Buffer.alloc(0);
    case 'huge':
      return HUGE;
  }
}

const attachment = fc.record({
  kind: fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom<Kind>('png', 'jpeg', 'webp') },
    { weight: 2, arbitrary: fc.constantFrom<Kind>('fake', 'empty') },
    { weight: 1, arbitrary: fc.constant<Kind>('huge') },
  ),
  size: fc.integer({ min: 16, max: 40_000 }),
  name: fc.oneof(fc.constant('shot.png'), fc.string({ maxLength: 30 }), fc.constant('a\u0000b.png'), fc.constant('é'.repeat(120))),
});

const post = fc.record({
  session: fc.nat({ max: 3 }),
  mode: fc.constantFrom('find', 'find', 'submit-valid', 'submit-changed', 'submit-invalid', 'fresh-form'),
  files: fc.array(attachment, { maxLength: 4 }),
  /** Which of the screenshots offered on the page the session saw last are kept. */
  keep: fc.array(fc.boolean(), { minLength: MAX_SCREENSHOTS, maxLength: MAX_SCREENSHOTS }),
  merchant: fc.nat({ max: 5 }),
  agent: fc.nat({ max: 3 }),
});
type Post = typeof post extends fc.Arbitrary<infer T> ? T : never;

describe('concurrent posts of the contribution form (generated)', () => {
  let t: TestApp;
  let T: Awaited<ReturnType<typeof contributionTargets>>;
  const mailer = captureMailer();
  const sessions: Array<{ agent: request.Agent; token: string; offered: string[] }> = [];
  beforeAll(async () => {
    t = await createTestApp({ mailer });
    T = await contributionTargets(t.db.prisma, 6);
    // Three sessions of one account (three browsers: more drafts than the account has room
    // for, so the oldest make room), one of another.
    for (const email of ['burst-a@example.org', 'burst-a@example.org', 'burst-a@example.org', 'burst-b@example.org']) {
      const agent = await signIn(t.app, mailer, email);
      const token = csrfTokenOf((await agent.get('/reports/new').expect(200)).text);
      sessions.push({ agent, token, offered: [] });
    }
  });
  afterAll(() => t.close());

  const offeredIn = (html: string) => [...html.matchAll(/name="(keep_[A-Za-z0-9_-]+)" checked/g)].map((m) => m[1]!);

  async function send(p: Post) {
    const s = sessions[p.session]!;
    if (p.mode === 'fresh-form') return s.agent.get('/reports/new');
    let req = s.agent.post('/reports/new').set('Origin', TEST_BASE_URL).field('_csrf', s.token);
    const fields: Record<string, string> =
      p.mode === 'find'
        ? { find: '1', q: 'shop' }
        : p.mode === 'submit-invalid'
          ? { agentId: T.agents[p.agent]!.id, privacy: 'on' }
          : { adId: T.merchants[p.merchant]!.id, agentId: T.agents[p.agent]!.id, outcome: p.mode === 'submit-changed' ? 'BLOCKED' : 'WORKS', privacy: 'on' };
    s.offered.forEach((keep, i) => {
      if (p.keep[i]) fields[keep] = 'on';
    });
    for (const [name, value] of Object.entries(fields)) req = req.field(name, value);
    for (const f of p.files) req = req.attach('screenshots', fileOf(f.kind, f.size), f.name || 'x');
    return req;
  }

  it('never answers 5xx, leaves no unreferenced file, and keeps the store within its bounds', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(post, { minLength: 1, maxLength: 10 }), async (burst) => {
        const responses = await Promise.all(burst.map(send));
        responses.forEach((res, i) => {
          expect(res.status, `${burst[i]!.mode} → ${res.status}: ${res.text.slice(0, 300)}`).toBeLessThan(500);
          if (res.status === 200 || res.status >= 400) sessions[burst[i]!.session]!.offered = offeredIn(res.text);
        });

        expect(await orphanedFiles(t.db.pool, t.config.dataDir)).toEqual([]);
        for (const stored of await storedSessions(t.db.pool)) expect(stored.pending.length).toBeLessThanOrEqual(MAX_SCREENSHOTS);
        for (const [, usage] of usageByAccount(t.config.dataDir)) {
          expect(usage.files).toBeLessThanOrEqual(PENDING_LIMITS.accountFiles);
          expect(usage.bytes).toBeLessThanOrEqual(PENDING_LIMITS.accountBytes);
        }
        const files = pendingFiles(t.config.dataDir);
        expect(files.length).toBeLessThanOrEqual(PENDING_LIMITS.totalFiles);
        expect(files.reduce((sum, f) => sum + f.size, 0)).toBeLessThanOrEqual(PENDING_LIMITS.totalBytes);
      }),
      { numRuns: RUNS, seed: SEED, path: PATH, endOnFailure: true },
    );
  });
});
