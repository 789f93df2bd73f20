// `npm start` as a person runs it: a fresh DATA_DIR, the embedded PostgreSQL, migrations,
// the demo data; Ctrl-C leaves nothing behind; a second start reuses the data.
import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, chmodSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/net.js';
import { startServerProcess as start, waitForReady } from '../setup/server-process.js';

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('npm start on a fresh machine', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'acd-start-'));
  chmodSync(root, 0o755);
  const dataDir = path.join(root, 'data');
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(root, { recursive: true, force: true });
  });

  async function countMerchants(pgPort: number): Promise<number> {
    const password = readFileSync(path.join(dataDir, 'postgres.password'), 'utf8').trim();
    const client = new pg.Client({ host: '127.0.0.1', port: pgPort, user: 'postgres', password, database: 'directory' });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT count(*)::int AS n FROM merchants');
      return rows[0].n;
    } finally {
      await client.end();
    }
  }

  it('serves /readyz, loads the demo once, stops cleanly on SIGINT and reuses the data', async () => {
    const port = await freePort();
    const pgPort = await freePort();
    const env = { PORT: String(port), EMBEDDED_PG_PORT: String(pgPort), DATA_DIR: dataDir };

    const first = start(env);
    children.push(first.child);
    await waitForReady(port, first);
    expect(first.output()).toContain('loaded the demo directory');
    // Each kind of directory read ran once before it listened (service.ts warmReadPath).
    expect(first.output()).toContain('read path warmed');
    const merchants = await countMerchants(pgPort);
    expect(merchants).toBeGreaterThanOrEqual(60);

    // An operator command while the service runs shares its database and leaves it running.
    const admin = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/admin.ts', 'grant-moderator', 'nobody@example.org'], {
      env: { PATH: process.env.PATH, DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(pgPort) },
      encoding: 'utf8',
    });
    expect(admin.status, `${admin.stdout}${admin.stderr}\n---\n${first.output()}`).toBe(1);
    expect(admin.stderr).toMatch(/nobody@example\.org/);
    // (retrying: the client's idle keep-alive socket may have timed out meanwhile)
    await waitForReady(port, first, 10_000);
    expect(first.child.exitCode).toBeNull();

    const pidFile = path.join(dataDir, 'postgres', 'postmaster.pid');
    const postgresPid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
    expect(isRunning(postgresPid)).toBe(true);

    first.child.kill('SIGINT');
    expect(await first.exited).toBe(0);
    expect(isRunning(postgresPid)).toBe(false);
    expect(existsSync(pidFile)).toBe(false);

    const second = start(env);
    children.push(second.child);
    await waitForReady(port, second);
    expect(second.output()).not.toContain('loaded the demo directory');
    expect(await countMerchants(pgPort)).toBe(merchants);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  }, 180_000);
});
