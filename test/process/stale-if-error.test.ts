// Stale if error in the running service, with its embedded PostgreSQL stopped (SIGSTOP, as a
// hung server) and then killed (the service starts it again): every read of an answer the
// process held keeps being answered, within the bound and saying it is stale; an uncached read
// and a write answer 503 with Retry-After; once the database is back, answers are fresh again;
// and the write acknowledged before the outage is stored.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createPool, createPrismaClient, ensureDatabaseExists } from '../../src/db/client.js';
import { STALE_IF_ERROR_SECONDS } from '../../src/web/cache-control.js';
import { issueKey } from '../../src/modules/keys/keys.service.js';
import { freePort } from '../../src/net.js';
import { startServerProcess, stopServerProcess, waitForReady, type ServerProcess } from '../setup/server-process.js';

/** The postmaster and every process it started (its backends and workers). */
function postgresProcesses(dataDir: string): number[] {
  const postmaster = Number(readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(postmaster)], { encoding: 'utf8' })
    .split('\n')
    .map((line) => Number(line.trim()))
    .filter((pid) => pid > 0);
  return [postmaster, ...children];
}

const signal = (pids: number[], name: NodeJS.Signals) => {
  for (const pid of pids) {
    try {
      process.kill(pid, name);
    } catch {
      // gone already
    }
  }
};

describe('stale if error with the database stopped and killed', { timeout: 300_000 }, () => {
  const root = mkdtempSync(path.join(tmpdir(), 'acd-stale-'));
  chmodSync(root, 0o755);
  const dataDir = path.join(root, 'data');
  let server: ServerProcess | undefined;
  let stopped: number[] = [];
  afterAll(async () => {
    signal(stopped, 'SIGCONT');
    if (server) await stopServerProcess(server);
    rmSync(root, { recursive: true, force: true });
  });

  it('answers held reads within the bound, 503 for the rest, and loses no acknowledged write', async () => {
    const port = await freePort();
    server = startServerProcess({ PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn', DATABASE_TIMEOUT_MS: '3000', LIMIT_PUBLIC_PER_MINUTE: '100000' });
    await waitForReady(port, server);
    const base = `http://127.0.0.1:${port}`;
    const password = readFileSync(path.join(dataDir, 'postgres.password'), 'utf8').trim();
    const pgPort = Number(readFileSync(path.join(dataDir, 'postgres.port'), 'utf8'));
    const dbUrl = await ensureDatabaseExists(`postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${pgPort}/postgres`, 'directory');
    let pool = createPool(dbUrl, 2);
    const prisma = createPrismaClient(pool);
    const agent = await prisma.agent.findFirstOrThrow({ where: { active: true }, orderBy: { slug: 'asc' } });
    const merchants = (await prisma.merchant.findMany({ where: { isPublic: true }, orderBy: { id: 'asc' }, take: 3 })).map((m) => m.id);
    const account = await prisma.account.create({ data: { email: 'stale-if-error@example.org' } });
    const { key } = await issueKey(prisma, { accountId: account.id, agentId: agent.id }, new Date());
    await prisma.$disconnect();
    await pool.end();
    const submit = (adId: string) =>
      fetch(`${base}/api/v1/reports`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ adId, agentId: agent.id, privacy: true, outcome: 'WORKS' }),
      });

    // Held: two answers read while the database answers. Acknowledged: one write.
    const held = ['/api/v1/categories', '/api/v1/merchants?sort=name'];
    const bodies = new Map<string, string>();
    for (const url of held) {
      const res = await fetch(`${base}${url}`);
      expect(res.status).toBe(200);
      bodies.set(url, await res.text());
    }
    const acknowledged = await submit(merchants[0]!);
    expect(acknowledged.status).toBe(201);
    const acknowledgedId = ((await acknowledged.json()) as { id: string }).id;

    // PostgreSQL stops answering (every one of its processes stopped).
    stopped = postgresProcesses(dataDir);
    signal(stopped, 'SIGSTOP');
    const seen: string[] = [];
    // Until the service has noticed and stands in (its listener polls every 5 s): every held read is answered.
    for (const started = Date.now(); !seen.includes('STALE-IF-ERROR') && Date.now() - started < 90_000; ) {
      for (const url of held) {
        const res = await fetch(`${base}${url}`);
        expect(res.status, url).toBe(200);
        expect(await res.text()).toBe(bodies.get(url));
        const cache = String(res.headers.get('x-cache'));
        seen.push(cache);
        if (cache === 'STALE-IF-ERROR') {
          expect(res.headers.get('warning')).toBe('111 - "Revalidation Failed"');
          expect(Number(res.headers.get('age'))).toBeLessThanOrEqual(60 + STALE_IF_ERROR_SECONDS);
        }
      }
    }
    expect(seen).toContain('STALE-IF-ERROR');
    const uncached = await fetch(`${base}/api/v1/merchants?sort=name&page=2`);
    expect(uncached.status).toBe(503);
    expect(uncached.headers.get('retry-after')).toBe('5');
    const refused = await submit(merchants[1]!);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');

    // Killed while stopped: the service starts it again; held reads are answered meanwhile.
    signal(stopped, 'SIGKILL');
    stopped = [];
    for (const url of held) expect((await fetch(`${base}${url}`)).status, url).toBe(200);
    await waitForReady(port, server, 120_000);
    // Back: fresh answers (the listener reconnects within its backoff), writes taken again.
    let fresh = '';
    for (const started = Date.now(); fresh !== 'fresh' && Date.now() - started < 60_000; await new Promise((r) => setTimeout(r, 200))) {
      const res = await fetch(`${base}${held[0]}`);
      expect(res.status).toBe(200);
      if (res.headers.get('x-cache') !== 'STALE-IF-ERROR' && res.headers.get('warning') === null) fresh = 'fresh';
    }
    expect(fresh).toBe('fresh');
    expect((await submit(merchants[2]!)).status).toBe(201);

    // Nothing acknowledged was lost.
    pool = createPool(dbUrl, 1);
    const { rows } = await pool.query<{ id: string }>('SELECT id FROM reports WHERE id = $1', [acknowledgedId]);
    await pool.end();
    expect(rows).toEqual([{ id: acknowledgedId }]);
    expect(await stopServerProcess(server)).toBe(0);
    server = undefined;
  });
});
