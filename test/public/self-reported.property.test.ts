// Self-reported evidence (issue 37), as a property: for any sequence of reports and claims
// (claimed, verified, lapsed, revoked, reinstated, in any order, before or after the reports),
// the stored summaries equal a fresh computation that leaves out the reports whose author holds
// a verified claim on their merchant or agent, all written through the one evidence write path
// (the claims service and evidenceChanged); and independent + self-reported = all approved,
// and the report list's totals count what it lists.
import fc from 'fast-check';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUTCOMES, TASKS, type OutcomeKey, type TaskKey } from '../../src/modules/aggregation/constants.js';
import { computeAgentSummary } from '../../src/modules/aggregation/engine.js';
import type { EvidenceReport } from '../../src/modules/aggregation/observations.js';
import { reportPath } from '../../src/modules/aggregation/summaries.service.js';
import { checkClaim, recheckDueClaims, setClaimRevoked, startClaim } from '../../src/modules/claims/claims.service.js';
import { aMerchant, anAccount, anAgent, aReport } from '../factories/index.js';
import { createTestApp, type TestApp } from '../setup/app.js';
import { FAILING_FETCHER, provingFetcher } from '../setup/claim-fetchers.js';

const NOW = new Date('2026-11-22T12:00:00Z');
const DAY = 86_400_000;

type Subject = { kind: 'merchant'; index: number } | { kind: 'agent'; index: number };
type Command =
  | { kind: 'report'; account: number; merchant: number; agent: number; outcome: OutcomeKey; tasks: Partial<Record<TaskKey, OutcomeKey>>; ageDays: number }
  | { kind: 'verify'; account: number; subject: Subject }
  | { kind: 'lapse'; account: number; subject: Subject }
  | { kind: 'revoke'; account: number; subject: Subject }
  | { kind: 'reinstate'; account: number; subject: Subject };

const subject = fc.oneof(
  fc.record({ kind: fc.constant('merchant' as const), index: fc.integer({ min: 0, max: 1 }) }),
  fc.record({ kind: fc.constant('agent' as const), index: fc.integer({ min: 0, max: 1 }) }),
);
const account = fc.integer({ min: 0, max: 3 });
const command: fc.Arbitrary<Command> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant('report' as const),
      account,
      merchant: fc.integer({ min: 0, max: 1 }),
      agent: fc.integer({ min: 0, max: 1 }),
      outcome: fc.constantFrom(...OUTCOMES),
      tasks: fc.dictionary(fc.constantFrom(...TASKS), fc.constantFrom(...OUTCOMES), { maxKeys: 3 }) as fc.Arbitrary<Partial<Record<TaskKey, OutcomeKey>>>,
      ageDays: fc.integer({ min: 0, max: 400 }),
    }),
    weight: 3,
  },
  { arbitrary: fc.record({ kind: fc.constant('verify' as const), account, subject }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('lapse' as const), account, subject }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('revoke' as const), account, subject }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('reinstate' as const), account, subject }), weight: 1 },
);

describe('self-reported evidence', () => {
  let t: TestApp;
  let merchants: Array<{ id: string; slug: string }>;
  let agents: Array<{ id: string; slug: string }>;
  let accounts: Array<{ id: string }>;
  let moderator: { id: string };
  const prisma = () => t.db.prisma;

  const proving = provingFetcher(prisma);
  const failing = FAILING_FETCHER;

  beforeAll(async () => {
    t = await createTestApp({ now: NOW.toISOString(), checkResponses: false });
    merchants = [
      await aMerchant(prisma(), { website: 'https://one.self-reported.test/' }),
      await aMerchant(prisma(), { website: 'https://two.self-reported.test/' }),
    ];
    agents = [
      await anAgent(prisma(), { vendorWebsite: 'https://vendor-one.self-reported.test/' }),
      await anAgent(prisma(), { vendorWebsite: 'https://vendor-two.self-reported.test/' }),
    ];
    accounts = [];
    for (let i = 0; i < 4; i += 1) accounts.push(await anAccount(prisma()));
    moderator = await anAccount(prisma(), { role: 'MODERATOR' });
  });
  afterAll(() => t.close());

  const input = (s: Subject) => (s.kind === 'merchant' ? { merchant: merchants[s.index]!.slug } : { agent: agents[s.index]!.slug });
  const findClaim = (accountId: string, s: Subject) =>
    prisma().claim.findFirst({ where: { accountId, ...(s.kind === 'merchant' ? { merchantId: merchants[s.index]!.id } : { agentId: agents[s.index]!.id }) } });

  async function run(c: Command) {
    const accountId = accounts[c.account]!.id;
    switch (c.kind) {
      case 'report': {
        const exists = await prisma().report.findFirst({ where: { accountId, merchantId: merchants[c.merchant]!.id, agentId: agents[c.agent]!.id } });
        if (exists) return;
        const at = new Date(NOW.getTime() - c.ageDays * DAY);
        await aReport(prisma(), { merchantId: merchants[c.merchant]!.id, agentId: agents[c.agent]!.id, accountId, status: 'APPROVED', outcome: c.outcome, capabilityResults: c.tasks, testedAt: at, createdAt: at }, NOW);
        return;
      }
      case 'verify': {
        const existing = await findClaim(accountId, c.subject);
        if (existing?.status === 'REVOKED') return;
        const { claim } = await startClaim({ prisma: prisma(), fetcher: proving }, accountId, input(c.subject), NOW);
        await checkClaim({ prisma: prisma(), fetcher: proving }, accountId, claim.id, 'dns', NOW);
        return;
      }
      case 'lapse': {
        const claim = await findClaim(accountId, c.subject);
        if (!claim || (claim.status !== 'VERIFIED' && claim.status !== 'GRACE')) return;
        // A grace that has run out, as the upkeep finds it; the upkeep's re-check then lapses it.
        await prisma().claim.update({ where: { id: claim.id }, data: { status: 'GRACE', graceUntil: new Date(NOW.getTime() - DAY), checkedAt: new Date(NOW.getTime() - 2 * DAY) } });
        await recheckDueClaims({ prisma: prisma(), fetcher: failing }, NOW);
        return;
      }
      case 'revoke':
      case 'reinstate': {
        const claim = await findClaim(accountId, c.subject);
        if (!claim || (claim.status === 'REVOKED') === (c.kind === 'revoke')) return;
        await setClaimRevoked({ prisma: prisma(), actorId: moderator.id, now: NOW }, claim.id, c.kind === 'revoke', 'property test');
      }
    }
  }

  /** The rule, stated again from the rows: a claim once verified and not revoked marks its holder's reports on its subject. */
  async function expectedSummaries() {
    const [reports, claims] = await Promise.all([
      prisma().report.findMany({ where: { status: 'APPROVED' } }),
      prisma().claim.findMany({ where: { verifiedAt: { not: null }, status: { in: ['VERIFIED', 'GRACE', 'LAPSED'] } } }),
    ]);
    const selfBy = (r: (typeof reports)[number]) =>
      claims.some((c) => c.accountId === r.accountId && c.merchantId === r.merchantId)
        ? 'owner'
        : claims.some((c) => c.accountId === r.accountId && c.agentId === r.agentId)
          ? 'vendor'
          : null;
    const byPair = new Map<string, { all: number; self: number; owner: number; independent: EvidenceReport[] }>();
    for (const r of reports) {
      const key = `${r.merchantId}:${r.agentId}`;
      const entry = byPair.get(key) ?? { all: 0, self: 0, owner: 0, independent: [] };
      entry.all += 1;
      const by = selfBy(r);
      if (by) {
        entry.self += 1;
        if (by === 'owner') entry.owner += 1;
      } else {
        entry.independent.push({
          id: r.id,
          accountId: r.accountId,
          outcome: r.outcome,
          capabilityResults: r.capabilityResults as Partial<Record<TaskKey, OutcomeKey>>,
          stage: r.stage,
          failureReason: r.failureReason,
          testedAt: r.testedAt,
          createdAt: r.createdAt,
          agentVersion: r.agentVersion,
        });
      }
      byPair.set(key, entry);
    }
    return byPair;
  }

  it('stored summaries equal a fresh computation without the self-reported reports, and the counts add up', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 12 }), async (commands) => {
        await t.db.pool.query('TRUNCATE reports, claims, merchant_agent_summaries, status_changes CASCADE');
        await t.db.pool.query('UPDATE merchants SET report_count = 0, last_reported_at = NULL, report_facets = \'{}\'');
        for (const c of commands) await run(c);

        const expected = await expectedSummaries();
        const stored = (await t.db.pool.query('SELECT merchant_id, agent_id, summary, report_count, self_reported_count FROM merchant_agent_summaries')).rows as Array<{
          merchant_id: string;
          agent_id: string;
          summary: Record<string, unknown> & { sources: { independent: number; selfReported: number; byOwner: number; byVendor: number } };
          report_count: number;
          self_reported_count: number;
        }>;
        expect(stored.map((r) => `${r.merchant_id}:${r.agent_id}`).sort()).toEqual([...expected.keys()].sort());
        for (const row of stored) {
          const e = expected.get(`${row.merchant_id}:${row.agent_id}`)!;
          const fresh = JSON.parse(
            JSON.stringify(computeAgentSummary(e.independent, { now: NOW, reportUrl: reportPath, selfReported: { owner: e.owner, vendor: e.self - e.owner, counted: false } })),
          ) as Record<string, unknown>;
          const { sources, selfReportedCounts: _counts, withSelfReported: _all, trend: _trend, ...summary } = row.summary;
          expect(summary).toEqual(fresh);
          expect(sources).toEqual({ independent: e.independent.length, selfReported: e.self, byOwner: e.owner, byVendor: e.self - e.owner });
          expect(sources.independent + sources.selfReported).toBe(e.all);
          expect(row.report_count).toBe(e.independent.length);
          expect(row.self_reported_count).toBe(e.self);
        }
        // The merchant's count is the independent reports of its agents.
        const totals = await t.db.pool.query(
          `SELECT count(*)::int AS n FROM merchants m
            WHERE m.report_count <> coalesce((SELECT sum(report_count) FROM merchant_agent_summaries s WHERE s.merchant_id = m.id), 0)`,
        );
        expect(totals.rows[0].n).toBe(0);
        // The report list's totals (report_totals, kept by triggers on the summaries) count what
        // the list shows, for every agent and outcome filter, independent or all.
        for (const agent of [undefined, ...agents]) {
          for (const outcome of [undefined, ...OUTCOMES]) {
            for (const independent of ['only', 'all']) {
              const query = new URLSearchParams({ independent, ...(agent ? { agent: agent.slug } : {}), ...(outcome ? { outcome } : {}) });
              const list = await request(t.app).get(`/api/v1/reports?${query}`).expect(200);
              expect(list.body.data.length, query.toString()).toBeLessThan(list.body.pageSize);
              expect(list.body.total, query.toString()).toBe(list.body.data.length);
            }
          }
        }
      }),
      { numRuns: 25 },
    );
  });
});
