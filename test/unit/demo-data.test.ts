import { describe, expect, it } from 'vitest';
import { FailureReason, Outcome, Stage, TaskKey } from '../../src/generated/prisma/enums.js';
import {
  collectDemoData,
  createDemoData,
  deriveOutcome,
  resolveDemoOptions,
  type DemoRows,
} from '../../src/demo/demo-data.js';

const now = new Date('2026-11-22T12:00:00.000Z');
const DAY = 86_400_000;
const demo: DemoRows = collectDemoData({ now });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[47][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const RESERVED_DOMAIN = /(^|\.)(example|example\.com|example\.net|example\.org)$/;
const REGION = /^([A-Z]{2}|GLOBAL)$/;

const share = <T>(rows: readonly T[], predicate: (row: T) => boolean): number => rows.filter(predicate).length / rows.length;
const ms = (timestamp: string): number => Date.parse(timestamp);
const triple = (r: { accountId: string; agentId: string; merchantId: string }): string =>
  `${r.accountId}|${r.agentId}|${r.merchantId}`;

describe('demo data determinism', () => {
  it('gives identical rows, byte for byte, for the same options', () => {
    const again = collectDemoData({ now: new Date(now.getTime()) });
    expect(again).toEqual(demo);
    expect(JSON.stringify(again)).toBe(JSON.stringify(demo));
  });

  it('does not depend on the batch size', () => {
    expect(collectDemoData({ now }, { batchSize: 7 })).toEqual(demo);
  });

  it('gives different rows for a different seed', () => {
    const other = collectDemoData({ now, seed: 7 });
    expect(other.reports.map((r) => r.id)).not.toEqual(demo.reports.map((r) => r.id));
    expect(other.reports.map(triple)).not.toEqual(demo.reports.map(triple));
    expect(other.merchants.map((m) => m.serviceRegions)).not.toEqual(demo.merchants.map((m) => m.serviceRegions));
  });

  it('moves every date with now', () => {
    const later = collectDemoData({ now: new Date(now.getTime() + 10 * DAY) });
    expect(ms(later.reports[100]!.createdAt) - ms(demo.reports[100]!.createdAt)).toBe(10 * DAY);
  });
});

describe('the default demo directory', () => {
  it('has the expected tables and counts', () => {
    const data = createDemoData({ now });
    expect(demo.categories.length).toBeGreaterThanOrEqual(8);
    expect(demo.categoryLegacyNames.length).toBeGreaterThanOrEqual(3);
    expect(demo.merchants).toHaveLength(60);
    expect(demo.agents).toHaveLength(6);
    expect(demo.agents.filter((a) => a.active)).toHaveLength(5);
    expect(demo.reports).toHaveLength(600);
    const contributors = demo.accounts.filter((a) => a.role === 'USER');
    expect(contributors.length).toBeGreaterThanOrEqual(24);
    expect(contributors.length).toBeLessThanOrEqual(100);
    expect(demo.accounts.filter((a) => a.role === 'MODERATOR').map((a) => a.email)).toEqual(['moderator@directory.example']);
    expect(data.counts).toEqual({
      categories: demo.categories.length,
      categoryLegacyNames: demo.categoryLegacyNames.length,
      agents: demo.agents.length,
      accounts: demo.accounts.length,
      merchants: demo.merchants.length,
      sponsorships: demo.sponsorships.length,
      ownerStatements: demo.ownerStatements.length,
      reports: demo.reports.length,
    });
  });

  it('uses valid, unique identifiers and slugs', () => {
    const ids = Object.values(demo).flatMap((rows: readonly { id: string }[]) => rows.map((r) => r.id));
    for (const id of ids) expect(id).toMatch(UUID);
    expect(new Set(ids).size).toBe(ids.length);
    const unique = (values: string[]) => expect(new Set(values).size).toBe(values.length);
    unique(demo.merchants.map((m) => m.slug));
    unique(demo.agents.map((a) => a.slug));
    unique([...demo.categories.map((c) => c.slug), ...demo.categoryLegacyNames.map((c) => c.slug)]);
    unique([...demo.categories.map((c) => c.name), ...demo.categoryLegacyNames.map((c) => c.name)]);
    unique(demo.accounts.map((a) => a.email));
    unique(demo.sponsorships.map((s) => s.merchantId));
    unique(demo.ownerStatements.map((s) => s.merchantId));
    for (const slug of demo.merchants.map((m) => m.slug)) expect(slug).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
  });

  it('uses reserved example domains only', () => {
    for (const merchant of demo.merchants) {
      const url = new URL(merchant.website);
      expect(url.protocol).toBe('https:');
      expect(url.hostname).toMatch(RESERVED_DOMAIN);
    }
    for (const account of demo.accounts) expect(account.email.split('@')[1]).toMatch(RESERVED_DOMAIN);
    const text = JSON.stringify(demo);
    for (const match of text.matchAll(/[a-z0-9-]+(\.[a-z0-9-]+)*\.(com|net|org|io|example)\b/g)) {
      expect(match[0]).toMatch(RESERVED_DOMAIN);
    }
  });

  it('links every row to existing rows', () => {
    const ids = (rows: readonly { id: string }[]) => new Set(rows.map((r) => r.id));
    const categories = ids(demo.categories);
    const merchants = ids(demo.merchants);
    const agents = ids(demo.agents);
    const accounts = ids(demo.accounts);
    for (const m of demo.merchants) expect(categories.has(m.categoryId)).toBe(true);
    for (const l of demo.categoryLegacyNames) expect(categories.has(l.categoryId)).toBe(true);
    for (const s of [...demo.sponsorships, ...demo.ownerStatements]) expect(merchants.has(s.merchantId)).toBe(true);
    for (const r of demo.reports) {
      expect(accounts.has(r.accountId)).toBe(true);
      expect(merchants.has(r.merchantId)).toBe(true);
      expect(agents.has(r.agentId)).toBe(true);
      if (r.moderatedById) expect(accounts.has(r.moderatedById)).toBe(true);
    }
  });

  it('keeps the original category string, sometimes a legacy name', () => {
    const names = new Map(demo.categories.map((c) => [c.id, c.name]));
    const legacy = new Map(demo.categoryLegacyNames.map((l) => [l.name, l.categoryId]));
    let legacyUses = 0;
    for (const m of demo.merchants) {
      if (legacy.has(m.category)) {
        legacyUses++;
        expect(legacy.get(m.category)).toBe(m.categoryId);
      } else {
        expect(m.category).toBe(names.get(m.categoryId));
      }
    }
    expect(legacyUses).toBeGreaterThan(0);
  });

  it('has mostly public, mostly canonical merchants with known regions', () => {
    const hidden = demo.merchants.filter((m) => !m.isPublic).length;
    expect(hidden).toBeGreaterThanOrEqual(2);
    expect(hidden).toBeLessThanOrEqual(3);
    expect(share(demo.merchants, (m) => m.approvedCanonical)).toBeGreaterThan(0.75);
    for (const m of demo.merchants) {
      expect(m.serviceRegions.length).toBeGreaterThan(0);
      for (const region of m.serviceRegions) expect(region).toMatch(REGION);
    }
    expect(demo.merchants.some((m) => m.serviceRegions.includes('GLOBAL'))).toBe(true);
  });

  it('has sponsorships of both sources around now, with billing ids only for subscriptions', () => {
    expect(new Set(demo.sponsorships.map((s) => s.source))).toEqual(new Set(['subscription', 'publisher_owned']));
    for (const s of demo.sponsorships) {
      expect(ms(s.startsAt)).toBeLessThanOrEqual(now.getTime());
      if (s.endsAt !== null) expect(ms(s.endsAt)).toBeGreaterThan(now.getTime());
      expect(s.placement).not.toBe('');
      expect(s.disclosure).toMatch(/not evidence/i);
      expect(s.billingId !== null).toBe(s.source === 'subscription');
      expect(demo.merchants.find((m) => m.id === s.merchantId)!.isPublic).toBe(true);
    }
  });

  it('has owner statements with valid task claims and private evidence', () => {
    expect(demo.ownerStatements.length).toBeGreaterThanOrEqual(2);
    for (const s of demo.ownerStatements) {
      expect(s.statement).not.toBe('');
      expect(Object.keys(s.taskClaims).length).toBeGreaterThan(0);
      for (const [task, outcome] of Object.entries(s.taskClaims)) {
        expect(Object.values(TaskKey)).toContain(task);
        expect(Object.values(Outcome)).toContain(outcome);
      }
      expect(s.declaredAt).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(ms(`${s.declaredAt}T00:00:00Z`)).toBeLessThanOrEqual(now.getTime());
    }
    expect(demo.ownerStatements.some((s) => s.ownershipEvidence !== null)).toBe(true);
  });

  it('has one report per account, agent and merchant', () => {
    expect(new Set(demo.reports.map(triple)).size).toBe(demo.reports.length);
  });

  it('covers every outcome, stage, failure reason and moderation status', () => {
    expect(new Set(demo.reports.map((r) => r.outcome))).toEqual(new Set(Object.values(Outcome)));
    expect(new Set(demo.reports.map((r) => r.stage).filter((s) => s !== null))).toEqual(new Set(Object.values(Stage)));
    expect(new Set(demo.reports.map((r) => r.failureReason).filter((f) => f !== null))).toEqual(
      new Set(Object.values(FailureReason)),
    );
    expect(share(demo.reports, (r) => r.status === 'APPROVED')).toBeGreaterThan(0.72);
    expect(share(demo.reports, (r) => r.status === 'APPROVED')).toBeLessThan(0.88);
    expect(share(demo.reports, (r) => r.status === 'PENDING')).toBeGreaterThan(0.07);
    expect(share(demo.reports, (r) => r.status === 'PENDING')).toBeLessThan(0.17);
    expect(share(demo.reports, (r) => r.status === 'REJECTED')).toBeGreaterThan(0.04);
    expect(share(demo.reports, (r) => r.status === 'REJECTED')).toBeLessThan(0.12);
  });

  it('records moderation consistently with the status', () => {
    const moderator = demo.accounts.find((a) => a.role === 'MODERATOR')!.id;
    for (const r of demo.reports) {
      if (r.status === 'PENDING') {
        expect(r.moderatedAt).toBeNull();
        expect(r.moderatedById).toBeNull();
        expect(r.moderationFeedback).toBeNull();
      } else {
        expect(r.moderatedById).toBe(moderator);
        expect(ms(r.moderatedAt!)).toBeGreaterThanOrEqual(ms(r.createdAt));
      }
      if (r.status === 'REJECTED') expect(r.moderationFeedback).toBeTruthy();
      if (r.status === 'APPROVED') expect(r.moderationFeedback).toBeNull();
    }
    expect(demo.reports.some((r) => r.status === 'REJECTED' && r.moderationNotes !== null)).toBe(true);
  });

  it('dates everything within the last year and never after now', () => {
    const nowMs = now.getTime();
    const yearAgo = nowMs - 365 * DAY;
    for (const r of demo.reports) {
      expect(ms(r.createdAt)).toBeGreaterThanOrEqual(yearAgo);
      expect(ms(r.createdAt)).toBeLessThanOrEqual(nowMs);
      expect(ms(r.updatedAt)).toBeGreaterThanOrEqual(ms(r.createdAt));
      expect(ms(r.updatedAt)).toBeLessThanOrEqual(nowMs);
      if (r.moderatedAt) expect(ms(r.moderatedAt)).toBeLessThanOrEqual(nowMs);
      if (r.testedAt) {
        expect(r.testedAt).toMatch(/^\d{4}-\d{2}-\d{2}$/);
        expect(r.testedAt <= r.createdAt.slice(0, 10)).toBe(true);
        expect(ms(`${r.testedAt}T00:00:00Z`)).toBeGreaterThanOrEqual(yearAgo - DAY);
      }
    }
    const timestamps = [
      ...demo.categories.flatMap((r) => [r.createdAt, r.updatedAt]),
      ...demo.categoryLegacyNames.map((r) => r.createdAt),
      ...demo.agents.flatMap((r) => [r.createdAt, r.updatedAt]),
      ...demo.accounts.flatMap((r) => [r.createdAt, r.updatedAt, r.lastSignInAt, r.suspendedAt]),
      ...demo.merchants.flatMap((r) => [r.createdAt, r.updatedAt]),
      ...demo.sponsorships.flatMap((r) => [r.createdAt, r.updatedAt, r.startsAt]),
      ...demo.ownerStatements.flatMap((r) => [r.createdAt, r.updatedAt]),
    ].filter((t): t is string => t !== null);
    for (const t of timestamps) expect(ms(t)).toBeLessThanOrEqual(nowMs);
    // Reports never predate their author, merchant or agent.
    const created = new Map(
      [...demo.accounts, ...demo.merchants, ...demo.agents].map((row) => [row.id, ms(row.createdAt)]),
    );
    for (const r of demo.reports) {
      for (const id of [r.accountId, r.merchantId, r.agentId]) expect(created.get(id)!).toBeLessThan(ms(r.createdAt));
    }
  });

  it('puts only valid attempted tasks in capabilityResults and derives the outcome as spec 2.1 says', () => {
    for (const r of demo.reports) {
      for (const [task, outcome] of Object.entries(r.capabilityResults)) {
        expect(Object.values(TaskKey)).toContain(task);
        expect(Object.values(Outcome)).toContain(outcome);
      }
      expect(Object.keys(r.capabilityResults).length > 0 || r.outcomeSupplied).toBe(true);
      if (!r.outcomeSupplied) expect(r.outcome).toBe(deriveOutcome(r.capabilityResults));
      expect(r.privacyConfirmed).toBe(true);
      if (r.experience !== null) expect(r.experience.length).toBeLessThanOrEqual(4000);
    }
    expect(demo.reports.some((r) => r.outcomeSupplied && Object.keys(r.capabilityResults).length === 0)).toBe(true);
    expect(demo.reports.some((r) => !r.outcomeSupplied)).toBe(true);
  });

  it('keeps stages, failure reasons and outcomes believable together', () => {
    for (const r of demo.reports) {
      if (r.outcome === 'BLOCKED') expect([null, 'EXPLICIT_BLOCK', 'CAPTCHA']).toContain(r.failureReason);
      if (r.failureReason === 'NONE') expect(r.outcome).toBe('WORKS');
      if (r.stage === 'PURCHASE') expect(['WORKS', 'PARTIAL']).toContain(r.outcome);
    }
    const purchases = demo.reports.filter((r) => r.stage === 'PURCHASE');
    expect(share(purchases, (r) => r.outcome === 'WORKS')).toBeGreaterThan(0.6);
    const blocks = demo.reports.filter((r) => r.failureReason === 'EXPLICIT_BLOCK' || r.failureReason === 'CAPTCHA');
    expect(share(blocks, (r) => r.outcome === 'BLOCKED')).toBeGreaterThan(0.5);
  });

  it('fills the optional fields for some reports and leaves them empty for others', () => {
    for (const field of ['experience', 'agentVersion', 'region', 'task', 'testedAt', 'humanIntervention'] as const) {
      const filled = share(demo.reports, (r) => r[field] !== null);
      expect(filled, field).toBeGreaterThan(0.2);
      expect(filled, field).toBeLessThan(1);
    }
    expect(new Set(demo.reports.map((r) => r.channel))).toEqual(new Set(['BROWSER', 'AGENT_KEY']));
    expect(demo.reports.some((r) => r.humanIntervention === true)).toBe(true);
  });

  it('makes merchants and agents differ in character', () => {
    const approved = demo.reports.filter((r) => r.status === 'APPROVED');
    const blockedShare = (key: 'merchantId' | 'agentId', id: string) =>
      share(approved.filter((r) => r[key] === id), (r) => r.outcome === 'BLOCKED');
    const worksShare = (key: 'merchantId' | 'agentId', id: string) =>
      share(approved.filter((r) => r[key] === id), (r) => r.outcome === 'WORKS');
    const merchantIds = demo.merchants.map((m) => m.id).filter((id) => approved.filter((r) => r.merchantId === id).length >= 4);
    expect(merchantIds.some((id) => blockedShare('merchantId', id) >= 0.6)).toBe(true);
    expect(merchantIds.some((id) => worksShare('merchantId', id) >= 0.8)).toBe(true);
    const agentWorks = demo.agents.map((a) => worksShare('agentId', a.id));
    expect(Math.max(...agentWorks) - Math.min(...agentWorks)).toBeGreaterThan(0.15);
  });

  it('dates the inactive agent\'s reports before its deactivation', () => {
    const inactive = demo.agents.find((a) => !a.active)!;
    const reports = demo.reports.filter((r) => r.agentId === inactive.id);
    expect(reports.length).toBeGreaterThan(0);
    for (const r of reports) expect(ms(r.createdAt)).toBeLessThan(ms(inactive.updatedAt));
  });
});

describe('demo data scaling', () => {
  it('produces the requested counts, in batches, without duplicate triples', () => {
    const data = createDemoData({ now, merchants: 500, reports: 20_000 }, { batchSize: 1_000 });
    expect(data.options.accounts).toBe(1_000);
    let reports = 0;
    const triples = new Set<string>();
    for (const batch of data.reports()) {
      expect(batch.length).toBeLessThanOrEqual(1_000);
      reports += batch.length;
      for (const r of batch) triples.add(triple(r));
    }
    expect(reports).toBe(20_000);
    expect(triples.size).toBe(20_000);
    let merchants = 0;
    const slugs = new Set<string>();
    for (const batch of data.merchants()) {
      merchants += batch.length;
      for (const m of batch) {
        slugs.add(m.slug);
        expect(new URL(m.website).hostname).toMatch(RESERVED_DOMAIN);
      }
    }
    expect(merchants).toBe(500);
    expect(slugs.size).toBe(500);
    expect([...data.accounts()].flat()).toHaveLength(data.counts.accounts);
    expect([...data.sponsorships()].flat()).toHaveLength(data.counts.sponsorships);
    expect([...data.ownerStatements()].flat()).toHaveLength(data.counts.ownerStatements);
  });

  it('stays collision-free when the (account, agent, merchant) space is tight', () => {
    const rows = collectDemoData({ now, merchants: 1, reports: 600, accounts: 100 });
    expect(new Set(rows.reports.map(triple)).size).toBe(600);
    expect(new Set(rows.accounts.map((a) => a.email)).size).toBe(101);
  });

  it('rejects impossible or invalid options', () => {
    expect(() => resolveDemoOptions({ now, merchants: 1, reports: 601, accounts: 100 })).toThrow(RangeError);
    expect(() => resolveDemoOptions({ now, merchants: 0 })).toThrow(RangeError);
    expect(() => resolveDemoOptions({ now, reports: 1.5 })).toThrow(RangeError);
    expect(() => resolveDemoOptions({ now: new Date(Number.NaN) })).toThrow(RangeError);
  });
});

describe('deriveOutcome', () => {
  it('keeps identical outcomes and turns mixed ones into PARTIAL', () => {
    expect(deriveOutcome({ ACCESS: 'WORKS', CART: 'WORKS' })).toBe('WORKS');
    expect(deriveOutcome({ ACCESS: 'UNSURE', CART: 'UNSURE' })).toBe('UNSURE');
    expect(deriveOutcome({ ACCESS: 'WORKS', CART: 'BLOCKED' })).toBe('PARTIAL');
    expect(deriveOutcome({})).toBeNull();
  });
});
