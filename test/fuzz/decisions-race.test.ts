// Moderation decisions racing the author's edits (fast-check): random interleavings of an
// author's PUTs (If-Match current, stale or *), the author's reads, a moderator's reads of the
// report page, and approve / reject / withdraw decisions naming a revision the moderator read
// (the latest, an older one), a made-up one or none. Actions in one step run at the same time
// (at most one decision per step, so "the latest approval" is well defined; two moderators at
// once are tested in test/admin/moderation.test.ts). For every run:
//   - never a 5xx;
//   - a report is APPROVED only if the approval that made it so named the exact revision whose
//     content is public now, the content the moderator read at that revision;
//   - the public API shows a report exactly when it is APPROVED, with that content;
//   - a decision alone in its step succeeds exactly when it names the current revision and the
//     report is in the state the decision starts from, and a refused one shows the current
//     revision.
//
// Bounded for CI (FC_RUNS scenarios, default 25); replay a failure with the seed and path
// fast-check prints: FC_SEED=<seed> FC_PATH=<path> npx vitest run test/fuzz/decisions-race.test.ts
import fc from 'fast-check';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountWithKey } from '../setup/actors.js';
import { TEST_BASE_URL, type TestApp } from '../setup/app.js';
import { createDemoApp } from '../setup/demo.js';
import { captureMailer, csrfTokenOf, signIn } from '../setup/session.js';

const RUNS = Number(process.env.FC_RUNS ?? 25);
const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;
const PATH = process.env.FC_PATH;
const MODERATOR = 'race.moderator@example.org';
/** A well-formed revision no report has. */
const MADE_UP = '2020-01-01T00:00:00.000Z';

type Decision = 'approve' | 'reject' | 'withdraw';
type Action =
  | { kind: 'edit'; text: string; ifMatch: 'known' | 'star' | 'stale' }
  | { kind: 'author-read' }
  | { kind: 'review' }
  // fresh: read the page, then decide on what it showed (the race a moderator really runs).
  | { kind: Decision; which: 'fresh' | 'latest' | 'made-up' | 'none' | number; to: 'PENDING' | 'REJECTED' };

const DECISIONS: readonly string[] = ['approve', 'reject', 'withdraw'];
const isDecision = (a: Action): a is Extract<Action, { kind: Decision }> => DECISIONS.includes(a.kind);
const FROM: Record<Decision, string> = { approve: 'PENDING', reject: 'PENDING', withdraw: 'APPROVED' };

const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('edit' as const), text: fc.constantFrom('BENIGN A', 'SWAPPED B', 'SWAPPED C'), ifMatch: fc.constantFrom('known' as const, 'known' as const, 'star' as const, 'stale' as const) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'author-read' as const }) },
  { weight: 3, arbitrary: fc.constant({ kind: 'review' as const }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constantFrom('approve' as const, 'approve' as const, 'reject' as const, 'withdraw' as const),
      which: fc.oneof(
        { weight: 5, arbitrary: fc.constant('fresh' as const) },
        { weight: 3, arbitrary: fc.constant('latest' as const) },
        { weight: 2, arbitrary: fc.nat(5) },
        { weight: 1, arbitrary: fc.constantFrom('made-up' as const, 'none' as const) },
      ),
      to: fc.constantFrom('PENDING' as const, 'REJECTED' as const),
    }),
  },
);
/** Steps of one to three actions run at once, at most one decision each. */
const scenario = fc.array(
  fc.array(action, { minLength: 1, maxLength: 3 }).map((step) => {
    const first = step.findIndex(isDecision);
    return step.filter((a, i) => !isDecision(a) || i === first);
  }),
  { minLength: 1, maxLength: 8 },
);

describe('moderation decisions racing the author\'s edits', { timeout: 600_000 }, () => {
  let t: TestApp;
  let moderator: Awaited<ReturnType<typeof signIn>>;
  let target: { merchantId: string; agentId: string };
  let run = 0;
  const mailer = captureMailer();
  const tally = { runs: 0, requests: 0, approved: 0, refusedStale: 0, editsWhileApproved: 0 };

  beforeAll(async () => {
    t = await createDemoApp({ mailer, env: { MODERATOR_EMAILS: MODERATOR } });
    moderator = await signIn(t.app, mailer, MODERATOR);
    const agent = await t.db.prisma.agent.findFirstOrThrow({ where: { active: true }, orderBy: { slug: 'asc' } });
    const merchant = await t.db.prisma.merchant.findFirstOrThrow({ where: { isPublic: true }, orderBy: { name: 'asc' } });
    target = { merchantId: merchant.id, agentId: agent.id };
  });
  afterAll(async () => {
    console.log(`decisions racing edits (FC_RUNS=${RUNS}${SEED === undefined ? '' : `, FC_SEED=${SEED}`}): ${JSON.stringify(tally)}`);
    await t?.close();
  });

  it('approves only the exact revision a moderator reviewed, never answering with a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (steps) => {
        tally.runs++;
        // A fresh author (and so a fresh report) per scenario.
        const { auth } = await accountWithKey(t, `race.author.${++run}@example.org`, target.agentId);
        const body = { adId: target.merchantId, agentId: target.agentId, privacy: true, outcome: 'WORKS', stage: 'CART', experience: 'BENIGN A' };
        const created = await request(t.app).post('/api/v1/reports').set(auth).send(body);
        expect(created.status, created.text).toBe(201);
        const id = created.body.id as string;
        let known = created.body.updatedAt as string;
        const stale = known;
        /** What the moderator saw at each revision read, in the order read. */
        const reads: Array<{ revision: string; content: string; token: string }> = [];
        let lastApproval: { revision: string; content: string } | null = null;

        const stored = async () => {
          const row = await t.db.prisma.report.findUniqueOrThrow({ where: { id } });
          return { status: row.status, revision: row.updatedAt.toISOString(), content: row.experience };
        };
        const answered = (res: request.Response, what: string) => {
          tally.requests++;
          expect(res.status, `${what} → ${res.status}: ${res.text.slice(0, 300)}`).toBeLessThan(500);
          return res;
        };
        // The session's form token, made once before anything runs concurrently: concurrent first
        // renders would each make one, and the last session save wins (a real "Form expired").
        const sessionToken = csrfTokenOf((await moderator.get('/admin').expect(200)).text);
        const csrf = async () => reads.at(-1)?.token ?? sessionToken;

        async function perform(a: Action, alone: boolean) {
          if (a.kind === 'edit') {
            const ifMatch = a.ifMatch === 'star' ? '*' : `"${a.ifMatch === 'known' ? known : stale}"`;
            if ((await stored()).status === 'APPROVED') tally.editsWhileApproved++;
            const res = answered(
              await request(t.app).put(`/api/v1/automation/reports/${id}`).set(auth).set('If-Match', ifMatch).send({ ...body, experience: a.text }),
              `PUT If-Match ${ifMatch}`,
            );
            expect([200, 409], res.text).toContain(res.status);
            if (res.status === 200) known = res.body.updatedAt as string;
            return;
          }
          if (a.kind === 'author-read') {
            const res = answered(await request(t.app).get(`/api/v1/automation/reports/${id}`).set(auth), 'GET own report');
            expect(res.status).toBe(200);
            known = (res.headers.etag as string).replace(/"/g, '');
            return;
          }
          if (a.kind === 'review' || (isDecision(a) && a.which === 'fresh')) {
            const res = answered(await moderator.get(`/admin/reports/${id}`), 'GET /admin/reports/:id');
            expect(res.status).toBe(200);
            reads.push({ revision: revisionIn(res.text), content: experienceIn(res.text), token: csrfTokenOf(res.text) });
            if (a.kind === 'review') return;
          }
          const named =
            a.which === 'none'
              ? undefined
              : a.which === 'made-up' || reads.length === 0
                ? MADE_UP
                : a.which === 'latest' || a.which === 'fresh'
                  ? reads.at(-1)!.revision
                  : reads[a.which % reads.length]!.revision;
          const before = alone ? await stored() : null;
          const fields: Record<string, string> = { _csrf: await csrf() };
          if (named !== undefined) fields.revision = named;
          if (a.kind === 'reject') fields.feedback = 'Not what the screenshots show.';
          if (a.kind === 'withdraw') Object.assign(fields, { to: a.to, reason: 'Checking again.' });
          const res = answered(await moderator.post(`/admin/reports/${id}/${a.kind}`).set('Origin', TEST_BASE_URL).type('form').send(fields), `POST ${a.kind} at ${named}`);
          expect([303, 400, 409], res.text.slice(0, 300)).toContain(res.status);
          if (res.status === 303 && a.kind === 'approve') {
            const seen = reads.find((r) => r.revision === named);
            // An approval can only succeed on a revision the moderator read here.
            expect(seen, `approved ${named}, never read`).toBeDefined();
            lastApproval = { revision: named!, content: seen!.content };
            tally.approved++;
          }
          if (res.status === 409 && res.text.includes('changed since you opened it')) tally.refusedStale++;
          if (res.status !== 303) {
            // A refusal answers with the report page as it is now, its forms naming its revision.
            expect(res.text).toContain(`<code id="revision">`);
          }
          if (before) {
            const expected = named === before.revision && before.status === FROM[a.kind] ? 303 : named === undefined ? 400 : 409;
            expect(res.status, `${a.kind} at ${named} of a ${before.status} report at ${before.revision}`).toBe(expected);
            const after = await stored();
            if (res.status !== 303) {
              expect(after).toEqual(before);
              expect(revisionIn(res.text)).toBe(after.revision);
            }
          }
        }

        for (const step of steps) {
          await Promise.all(step.map((a) => perform(a, step.length === 1)));
          t.clock.advance(1000);
          const now = await stored();
          const published = answered(await request(t.app).get(`/api/v1/reports/${id}`), 'GET public report');
          if (now.status === 'APPROVED') {
            // Approved only by an approval that named the revision whose content is public.
            expect(lastApproval, 'approved without a successful approval').not.toBeNull();
            expect(now.content).toBe(lastApproval!.content);
            expect(published.status).toBe(200);
            expect(published.body.data?.experience ?? published.body.experience).toBe(lastApproval!.content);
          } else {
            expect(published.status).toBe(404);
          }
        }
      }),
      { numRuns: RUNS, seed: SEED, path: PATH, endOnFailure: true },
    );
  });
});

function revisionIn(html: string): string {
  const match = /<code id="revision">([^<]+)<\/code>/.exec(html);
  if (!match) throw new Error('no revision on the report page');
  return match[1]!;
}

function experienceIn(html: string): string {
  const match = /id="experience">([^<]*)<\/blockquote>/.exec(html);
  if (!match) throw new Error('no experience on the report page');
  return match[1]!;
}
