// The embedded database's port file (DATA_DIR/postgres.port) belongs to the server that runs:
// an operator command started beside it (`npm run admin`) attaches to that server and leaves
// the file alone (it rewrote it with a port of its own every time, N8).
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedDatabase, type EmbeddedDatabase } from '../../src/db/embedded.js';

describe('the embedded database port file', { timeout: 120_000 }, () => {
  const root = mkdtempSync(path.join(tmpdir(), 'acd-port-'));
  chmodSync(root, 0o755);
  const dir = path.join(root, 'postgres');
  let serving: EmbeddedDatabase | undefined;
  afterAll(async () => {
    await serving?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('is left as it is by a second process that attaches to the running server', async () => {
    const chosen: number[] = [];
    serving = await startEmbeddedDatabase({ dir, onPortChosen: (port) => chosen.push(port) });
    expect(chosen).toHaveLength(1);
    const portFile = `${dir}.port`;
    const written = readFileSync(portFile, 'utf8');
    expect(Number(written)).toBe(chosen[0]);

    // What `npm run admin` does while the service runs: no port given.
    const attached = await startEmbeddedDatabase({ dir, onPortChosen: (port) => chosen.push(port) });
    expect(attached.attached).toBe(true);
    expect(chosen).toHaveLength(1);
    expect(readFileSync(portFile, 'utf8')).toBe(written);
    expect(new URL(attached.url).port).toBe(String(chosen[0]));
    const client = new pg.Client({ connectionString: attached.url });
    await client.connect();
    expect((await client.query<{ ok: number }>('SELECT 1 AS ok')).rows[0]!.ok).toBe(1);
    await client.end();
    await attached.stop();
  });
});
