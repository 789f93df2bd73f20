// `npm start` with DATABASE_URL on a new, empty database, as production starts it: no
// migrations applied on start (one line naming `npm run migrate:deploy` and exit 1 while any
// are pending), then, after the deploy step, a service that serves and has no demo shops.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/env.js';
import { freePort } from '../../src/net.js';
import { adminQuery, databaseUrl, uniqueDatabaseName } from '../setup/database.js';
import { startServerProcess, stopServerProcess, waitForReady, type ServerProcess } from '../setup/server-process.js';

describe('npm start with DATABASE_URL on an empty database', () => {
  const name = uniqueDatabaseName('acd_configured');
  const url = databaseUrl(name);
  const root = mkdtempSync(path.join(tmpdir(), 'acd-configured-'));
  chmodSync(root, 0o755);
  const started: ServerProcess[] = [];
  afterAll(async () => {
    for (const server of started) await stopServerProcess(server);
    rmSync(root, { recursive: true, force: true });
    await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  });

  async function tableCount(): Promise<number> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public'",
      );
      return rows[0]!.n;
    } finally {
      await client.end();
    }
  }

  it('refuses while migrations are pending, starts after migrate:deploy, and loads no demo data', async () => {
    await adminQuery(`CREATE DATABASE "${name}"`);
    const port = await freePort();
    const env = { DATABASE_URL: url, DATA_DIR: path.join(root, 'data'), PORT: String(port), LOG_LEVEL: 'warn' };

    const refused = spawnSync(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      env: { PATH: process.env.PATH, ...env },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(refused.status, `${refused.stdout}${refused.stderr}`).toBe(1);
    expect(refused.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^Could not start: \d+ pending migrations \(\d{14}_init … .+\): run `npm run migrate:deploy` against this database, or set MIGRATE_ON_START=true$/,
      ),
    ]);
    expect(await tableCount()).toBe(0);

    const deploy = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/migrate.ts', 'deploy'], {
      env: { PATH: process.env.PATH, DATABASE_URL: url, DATA_DIR: path.join(root, 'data') },
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(deploy.status, `${deploy.stdout}${deploy.stderr}`).toBe(0);
    expect(deploy.stdout).toMatch(/^applied: /);

    const server = startServerProcess(env);
    started.push(server);
    await waitForReady(port, server);
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/merchants`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ total: 0 });
    expect(server.output()).not.toContain('loaded the demo directory');
    expect(await stopServerProcess(server)).toBe(0);
  }, 180_000);

  it('defaults SEED_DEMO_DATA and MIGRATE_ON_START by database, and an explicit value wins', () => {
    const base = { DATA_DIR: path.join(root, 'config'), SESSION_SECRET: 'configured-database-test-secret-0123456789' };
    const embedded = loadConfig(base);
    expect([embedded.seedDemoData, embedded.migrateOnStart]).toEqual([true, true]);
    const configured = loadConfig({ ...base, DATABASE_URL: url });
    expect([configured.seedDemoData, configured.migrateOnStart]).toEqual([false, false]);
    const optedIn = loadConfig({ ...base, DATABASE_URL: url, SEED_DEMO_DATA: 'true', MIGRATE_ON_START: 'true' });
    expect([optedIn.seedDemoData, optedIn.migrateOnStart]).toEqual([true, true]);
    const optedOut = loadConfig({ ...base, SEED_DEMO_DATA: 'false', MIGRATE_ON_START: 'false' });
    expect([optedOut.seedDemoData, optedOut.migrateOnStart]).toEqual([false, false]);
    expect(() => loadConfig({ ...base, MIGRATE_ON_START: 'yes' })).toThrow(/^Invalid configuration: MIGRATE_ON_START /);
  });

  it('with MIGRATE_ON_START=true and SEED_DEMO_DATA=true, migrates and loads the demo on start', async () => {
    const other = uniqueDatabaseName('acd_configured');
    await adminQuery(`CREATE DATABASE "${other}"`);
    try {
      const port = await freePort();
      const server = startServerProcess({
        DATABASE_URL: databaseUrl(other),
        DATA_DIR: path.join(root, 'data'),
        PORT: String(port),
        MIGRATE_ON_START: 'true',
        SEED_DEMO_DATA: 'true',
      });
      started.push(server);
      await waitForReady(port, server);
      expect(server.output()).toContain('applied migrations');
      expect(server.output()).toContain('loaded the demo directory');
      expect(await stopServerProcess(server)).toBe(0);
    } finally {
      await adminQuery(`DROP DATABASE IF EXISTS "${other}" WITH (FORCE)`);
    }
  }, 180_000);
});
