// Ctrl-C in a terminal and systemd's default stop signal the whole process group: with
// WEB_CONCURRENCY=2 each worker hears the group's SIGTERM and then the primary's. Both used to
// take the second as "exit now" and drop the requests in flight, and the primary still exited 0.
// Now every request in flight is answered, and the service exits 0 only when every worker
// stopped cleanly.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/net.js';
import { scratchDataDir } from '../setup/app.js';
import { createTestDatabase, type TestDatabase } from '../setup/database.js';
import { startServerProcess, stopServerProcess, waitForReady, type ServerProcess } from '../setup/server-process.js';

const CALL = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_agents', arguments: {} } });

/**
 * A POST /mcp whose body is held back: in flight, in a worker, until `finish()` sends the body.
 * A first request on the same connection (GET /healthz, kept alive) is answered first: that
 * proves a worker holds the connection. Before it, the connection may still wait in the primary
 * for a worker (under load, for a second or more), which is not a request in flight yet.
 */
function slowRequest(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  let answer = '';
  let first: (() => void) | null = null;
  const answeredFirst = new Promise<void>((resolve) => (first = resolve));
  socket.setEncoding('utf8');
  socket.on('data', (data: string) => {
    answer += data;
    const end = answer.indexOf('\r\n\r\n');
    const length = /content-length: (\d+)/i.exec(answer.slice(0, end))?.[1];
    if (first && end >= 0 && length !== undefined && answer.length >= end + 4 + Number(length)) {
      answer = answer.slice(end + 4 + Number(length));
      first();
      first = null;
    }
  });
  socket.on('error', () => undefined);
  const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(answer)));
  socket.on('connect', () => socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n'));
  const split = Math.floor(CALL.length / 2);
  const sent = answeredFirst.then(
    () =>
      new Promise<void>((resolve) =>
        socket.write(
          'POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n' +
            `Connection: close\r\nContent-Length: ${Buffer.byteLength(CALL)}\r\n\r\n${CALL.slice(0, split)}`,
          () => resolve(),
        ),
      ),
  );
  return { sent, finish: () => socket.write(CALL.slice(split)), closed };
}

describe('SIGTERM to the process group with two workers', { timeout: 180_000 }, () => {
  let db: TestDatabase;
  let server: ServerProcess | undefined;
  let port: number;
  beforeAll(async () => {
    db = await createTestDatabase();
    port = await freePort();
    server = startServerProcess(
      {
        DATABASE_URL: db.url,
        DATA_DIR: scratchDataDir(),
        PORT: String(port),
        WEB_CONCURRENCY: '2',
        SEED_DEMO_DATA: 'false',
        LOG_LEVEL: 'info',
        // Generous bounds: the requests below stay in flight as long as the test needs.
        SHUTDOWN_TIMEOUT_MS: '60000',
        DATABASE_TIMEOUT_MS: '60000',
        LIMIT_PUBLIC_PER_MINUTE: '100000',
      },
      { detached: true },
    );
    await waitForReady(port, server);
  }, 120_000);
  afterAll(async () => {
    if (process.env.GROUP_SIGNAL_LOG) (await import('node:fs')).writeFileSync(process.env.GROUP_SIGNAL_LOG, server?.output() ?? '');
    if (server?.child.exitCode === null) await stopServerProcess(server);
    await db?.drop();
  });

  it('answers every request in flight, and the service exits 0', async () => {
    // Several requests in flight on connections spread over both workers (round robin).
    const inFlight = Array.from({ length: 6 }, () => slowRequest(port));
    await Promise.all(inFlight.map((r) => r.sent));
    const shuttingDown = () => server!.output().split('\n').filter((line) => line.includes('"msg":"shutting down"')).length;

    process.kill(-server!.child.pid!, 'SIGTERM');
    // The primary and both workers have heard it (and the workers the primary's SIGTERM too, soon).
    for (const started = Date.now(); shuttingDown() < 3 && Date.now() - started < 60_000; ) await new Promise((r) => setTimeout(r, 50));
    expect(shuttingDown(), server!.output()).toBeGreaterThanOrEqual(3);
    // The primary's own SIGTERM follows at once; a moment for it to reach the workers (two
    // SIGTERMs may also arrive as one: signals do not queue). The answers below do not depend on
    // this wait: it only gives the second signal its chance to do harm.
    await new Promise((r) => setTimeout(r, 1_000));

    for (const r of inFlight) r.finish();
    const answers = await Promise.all(inFlight.map((r) => r.closed));
    for (const answer of answers) {
      expect(answer, server!.output().slice(-3000)).toMatch(/^HTTP\/1\.1 200 /);
      expect(answer).toContain('"jsonrpc":"2.0"');
    }
    expect(await server!.exited, server!.output().slice(-3000)).toBe(0);
    expect(server!.output()).not.toContain('second signal');
    expect(server!.output()).toContain('"msg":"stopped"');
  });
});
