// freePort: a port that no `listen(0)` server can take before its taker binds it.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort, isFree } from '../../src/net.js';

const ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);

async function listenOn(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

describe('freePort', () => {
  it('chooses free ports below the ephemeral range, never the same one twice', async () => {
    const ports = await Promise.all(Array.from({ length: 50 }, () => freePort()));
    expect(new Set(ports).size).toBe(50);
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(ephemeralLow);
      expect(await isFree(port)).toBe(true);
    }
  });

  it('is not taken by servers listening on port 0 meanwhile', async () => {
    const chosen = await freePort();
    const others = await Promise.all(Array.from({ length: 200 }, () => listenOn(0)));
    try {
      const taken = others.map((server) => (server.address() as { port: number }).port);
      expect(taken).not.toContain(chosen);
      const mine = await listenOn(chosen);
      mine.close();
    } finally {
      for (const server of others) server.close();
    }
  });
});
