// What each directory change announces (migration "directory_change_scope"), and what a
// process's version listener makes of it (modules/directory/version.ts).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseChange, watchDirectoryVersion, type DirectoryChange, type DirectoryVersions } from '../../src/modules/directory/version.js';
import { recomputeSummaries } from '../../src/modules/aggregation/summaries.service.js';
import { MERCHANT_EXTRAS } from '../../src/modules/merchants/merchant-admin.repository.js';
import { aCategory, aMerchant, anAgent, aReport } from '../factories/index.js';
import { createTestDatabase, type TestDatabase } from '../setup/database.js';

describe('directory change announcements', () => {
  let db: TestDatabase;
  let listener: pg.Client;
  const payloads: string[] = [];
  const sql = (text: string, values: unknown[] = []) => db.pool.query(text, values);
  const version = async () => BigInt((await sql('SELECT version FROM directory_version WHERE id = 1')).rows[0].version as string);

  /** The payloads announced by `write` (after it committed and the listener heard them). */
  async function announced(write: () => Promise<unknown>): Promise<string[]> {
    // Earlier writes' announcements first.
    await listener.query('SELECT 1');
    const from = payloads.length;
    await write();
    // A round trip on the listening connection: notifications committed before it arrive first.
    await listener.query('SELECT 1');
    return payloads.slice(from);
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    listener = new pg.Client({ connectionString: db.url });
    await listener.connect();
    listener.on('notification', (m) => payloads.push(m.payload ?? ''));
    await listener.query('LISTEN directory_version');
  });
  afterAll(async () => {
    await listener?.end();
    await db?.drop();
  });

  it('names the merchants a write changed, nothing for equal values, and everything for the catalog', async () => {
    const a = await aMerchant(db.prisma);
    const b = await aMerchant(db.prisma);

    // Equal values: nothing public changed, so no version moves and nothing is sent.
    let before = await version();
    expect(await announced(() => sql('UPDATE merchants SET name = name WHERE id = $1', [a.id]))).toEqual([]);
    expect(await version()).toBe(before);

    before = await version();
    expect(await announced(() => sql("UPDATE merchants SET name = name || ' 2' WHERE id = ANY($1::uuid[])", [[a.id, b.id]]))).toEqual([
      expect.stringMatching(new RegExp(`^${before + 1n}:m:`)),
    ]);
    const change = parseChange(payloads.at(-1)!)!;
    expect(change.scope.all).toBeFalsy();
    expect([...(change.scope as { merchants: string[] }).merchants].sort()).toEqual([a.id, b.id].sort());

    before = await version();
    expect(await announced(() => aCategory(db.prisma))).toEqual([
      `${before + 1n}`,
    ]);
    expect(parseChange(payloads.at(-1)!)!.scope).toEqual({ all: true });
  });

  it('announces a Prisma upsert (INSERT … ON CONFLICT DO UPDATE) of a sponsorship or owner statement once, as the next version, naming its merchant', async () => {
    const merchant = await aMerchant(db.prisma);
    const now = new Date('2026-11-20T00:00:00Z');
    const sponsorship = (disclosure: string) =>
      MERCHANT_EXTRAS.sponsorship.save(db.prisma, merchant.id, { source: 'subscription', placement: 'directory-top', disclosure, startsAt: now, endsAt: null, billingId: null }, now);
    const statement = (text: string) =>
      MERCHANT_EXTRAS['owner-statement'].save(db.prisma, merchant.id, { statement: text, taskClaims: { CART: 'WORKS' }, declaredAt: now, ownershipEvidence: null }, now);
    // Inserted, updated with a change, updated with equal values.
    for (const [write, expected] of [
      [() => sponsorship('Paid placement'), 'merchant'],
      [() => sponsorship('Paid placement, renewed'), 'merchant'],
      [() => sponsorship('Paid placement, renewed'), 'nothing'],
      [() => statement('Everything works'), 'merchant'],
      [() => statement('Everything works, mostly'), 'merchant'],
      [() => statement('Everything works, mostly'), 'nothing'],
    ] as const) {
      const before = await version();
      const heard = await announced(write);
      if (expected === 'merchant') {
        expect(heard).toEqual([`${before + 1n}:m:${merchant.id}`]);
        expect(await version()).toBe(before + 1n);
      } else {
        expect(heard).toEqual([]);
        expect(await version()).toBe(before);
      }
    }
  });

  it('announces more than 200 merchants at once as everything', async () => {
    for (let i = 0; i < 201; i++) await aMerchant(db.prisma);
    const before = await version();
    expect(await announced(() => sql("UPDATE merchants SET name = name || '.'"))).toEqual([`${before + 1n}`]);
  });

  it('moves nothing for a recomputation that finds every summary as stored: no version, no status change', async () => {
    const merchant = await aMerchant(db.prisma);
    const agent = await anAgent(db.prisma);
    await aReport(db.prisma, { merchantId: merchant.id, agentId: agent.id, status: 'APPROVED' });
    const now = new Date();
    const pair = { merchantId: merchant.id, agentId: agent.id };
    await db.prisma.$transaction((tx) => recomputeSummaries(tx, [pair], now));
    const computed = (await sql('SELECT computed_at FROM merchant_agent_summaries WHERE merchant_id = $1', [merchant.id])).rows[0].computed_at as Date;

    const before = await version();
    const changesBefore = Number((await sql('SELECT count(*) FROM status_changes')).rows[0].count);
    const later = new Date(now.getTime() + 1000);
    const heard = await announced(() => db.prisma.$transaction((tx) => recomputeSummaries(tx, [pair], later)));
    expect(await version()).toBe(before);
    // Not even a notification of the current version: an update of computed_at alone sends nothing.
    expect(heard).toEqual([]);
    expect(Number((await sql('SELECT count(*) FROM status_changes')).rows[0].count)).toBe(changesBefore);
    // Marked as computed, so the hourly refresh does not pick it again.
    const touched = (await sql('SELECT computed_at FROM merchant_agent_summaries WHERE merchant_id = $1', [merchant.id])).rows[0].computed_at as Date;
    expect(touched.getTime()).toBe(later.getTime());
    expect(touched.getTime()).toBeGreaterThan(computed.getTime());

    // A recomputation that changes the summary is announced with its merchant (the report is
    // approved behind the recomputation's back, so that it finds the change).
    const pending = await aReport(db.prisma, { merchantId: merchant.id, agentId: agent.id });
    await sql("UPDATE reports SET status = 'APPROVED', moderated_at = now() WHERE id = $1", [pending.id]);
    const versionBefore = await version();
    const changed = await announced(() => db.prisma.$transaction((tx) => recomputeSummaries(tx, [pair], later)));
    // Every version the transaction made is announced, in order, each naming the merchant.
    const after = await version();
    expect(after).toBeGreaterThan(versionBefore);
    expect(changed.map((p) => parseChange(p)!.version)).toEqual(Array.from({ length: Number(after - versionBefore) }, (_, i) => versionBefore + 1n + BigInt(i)));
    for (const p of changed) expect(parseChange(p)!.scope).toEqual({ merchants: [merchant.id] });
  });
});

describe('the version listener', () => {
  let db: TestDatabase;
  let versions: DirectoryVersions;
  const heard: DirectoryChange[] = [];
  beforeAll(async () => {
    db = await createTestDatabase();
    versions = await watchDirectoryVersion(db.pool, { pollMs: 60_000 });
    versions.onChange((c) => heard.push(c));
  });
  afterAll(async () => {
    await versions?.close();
    await db?.drop();
  });

  it('passes on each change in order with its scope, and a version it did not hear announced as everything', async () => {
    const merchant = await aMerchant(db.prisma);
    await versions.settle();
    const from = heard.length;
    await db.pool.query("UPDATE merchants SET name = 'Renamed' WHERE id = $1", [merchant.id]);
    await versions.settle();
    expect(heard.slice(from)).toEqual([{ version: versions.current(), scope: { merchants: [merchant.id] } }]);

    // A bump nobody announced (as if a notification were lost): the next read finds a gap.
    const gapFrom = heard.length;
    await db.pool.query('UPDATE directory_version SET version = version + 1 WHERE id = 1');
    await versions.settle();
    expect(heard.slice(gapFrom)).toEqual([{ version: versions.current(), scope: { all: true } }]);
  });

  it('takes a read behind an announced version for no news, not for a database gone back', async () => {
    // A notification can arrive before its commit is visible to a read on the listening
    // connection (the listener reads the queue once the commit is recorded): announced here
    // without the bump, the next read finds the table one version behind.
    await versions.settle();
    const before = versions.current()!;
    const from = heard.length;
    await db.pool.query('SELECT pg_notify($1, $2)', ['directory_version', `${before + 1n}:-`]);
    for (let waited = 0; versions.current() !== before + 1n && waited < 10_000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
    await versions.settle();
    expect(versions.current()).toBe(before + 1n);
    expect(heard.slice(from)).toEqual([{ version: before + 1n, scope: { merchants: [] } }]);
    // The bump it announced, committed: nothing more to hear, the version as announced.
    await db.pool.query('UPDATE directory_version SET version = version + 1 WHERE id = 1');
    await versions.settle();
    expect(versions.current()).toBe(before + 1n);
    expect(heard.slice(from)).toHaveLength(1);
  });

  it('hears an upsert of a sponsorship as a change of its merchant, never as a gap', async () => {
    const merchant = await aMerchant(db.prisma);
    const now = new Date('2026-11-20T00:00:00Z');
    for (const disclosure of ['Paid placement', 'Paid placement, renewed']) {
      await versions.settle();
      const from = heard.length;
      await MERCHANT_EXTRAS.sponsorship.save(db.prisma, merchant.id, { source: 'subscription', placement: 'directory-top', disclosure, startsAt: now, endsAt: null, billingId: null }, now);
      await versions.settle();
      expect(heard.slice(from)).toEqual([{ version: versions.current(), scope: { merchants: [merchant.id] } }]);
    }
  });

  it('reads payloads of every form and refuses others', () => {
    expect(parseChange('12')).toEqual({ version: 12n, scope: { all: true } });
    expect(parseChange('12:-')).toEqual({ version: 12n, scope: { merchants: [] } });
    expect(parseChange('12:m:0190a1b2-0000-7000-8000-000000000001')).toEqual({ version: 12n, scope: { merchants: ['0190a1b2-0000-7000-8000-000000000001'] } });
    for (const bad of ['', 'x', '12:', '12:m:', '12:m:nope', '-1', '12:z']) expect(parseChange(bad)).toBeNull();
  });
});
