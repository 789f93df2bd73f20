// The production command: `npm run build` compiles src/ to dist/, and `node dist/server.js`
// serves without tsx, finding views/, public/ and prisma/migrations from dist/ as from src/.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/net.js';
import { stopServerProcess, waitForReady, type ServerProcess } from '../setup/server-process.js';

const projectRoot = path.resolve(import.meta.dirname, '../..');
const entry = path.join(projectRoot, 'dist/server.js');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const item of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, item.name);
    newest = Math.max(newest, item.isDirectory() ? newestMtime(file) : statSync(file).mtimeMs);
  }
  return newest;
}

// .ci/run builds before the tests; elsewhere a missing or stale dist/ is built here.
function ensureBuilt(): void {
  if (existsSync(entry) && statSync(entry).mtimeMs >= newestMtime(path.join(projectRoot, 'src'))) return;
  const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: projectRoot, encoding: 'utf8' });
  expect(build.status, `npm run build failed:\n${build.stdout}${build.stderr}`).toBe(0);
}

describe('the production build', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'acd-prod-'));
  chmodSync(root, 0o755);
  let started: ServerProcess | undefined;
  beforeAll(ensureBuilt, 120_000);
  afterAll(() => {
    if (started && started.child.exitCode === null) started.child.kill('SIGKILL');
    rmSync(root, { recursive: true, force: true });
  });

  it('serves /readyz, pages, static files and, within a minute, the first open-data dump from node dist/server.js, and stops on SIGTERM', async () => {
    const port = await freePort();
    // Plain node, no loader: anything still needing tsx fails here.
    const child = spawn(process.execPath, [entry], {
      cwd: projectRoot,
      env: {
        PATH: process.env.PATH,
        LOG_LEVEL: 'info',
        PORT: String(port),
        EMBEDDED_PG_PORT: String(await freePort()),
        DATA_DIR: path.join(root, 'data'),
        SEED_DEMO_DATA: 'false',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    started = { child, output: () => output, exited };

    await waitForReady(port, started);
    const home = await fetch(`http://127.0.0.1:${port}/`);
    expect(home.status, output).toBe(200);
    expect(home.headers.get('content-type')).toMatch(/text\/html/);
    const css = await fetch(`http://127.0.0.1:${port}/static/css/site.css`);
    expect(css.status).toBe(200);
    // The upkeep's pass right after start writes the first open-data dump (issue 25): within
    // the first minute, the advertised link answers.
    let dump = 0;
    for (const started = Date.now(); Date.now() - started < 60_000; await new Promise((r) => setTimeout(r, 500))) {
      dump = (await fetch(`http://127.0.0.1:${port}/data/directory.ndjson.gz`)).status;
      if (dump === 200) break;
    }
    expect(dump, output).toBe(200);

    expect(await stopServerProcess(started), output).toBe(0);
  }, 180_000);
});
