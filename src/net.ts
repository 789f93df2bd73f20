// Loopback port helpers, without side effects (tests, the bench and the embedded database use them).
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * The first port of the kernel's ephemeral range (Linux), or null where it cannot be read. A
 * `listen(0)` anywhere on the machine is given a port from that range only.
 */
function ephemeralLow(): number | null {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > CHOSEN_LOW + 1_000 ? low : null;
  } catch {
    return null;
  }
}

const CHOSEN_LOW = 10_000;
/** Slices of the chosen range, one per concurrent chooser that names itself (see `freePort`). */
const SLICES = 16;
const handedOut = new Set<number>();

/**
 * A TCP port that is free on the loopback interface right now, and stays so until its taker binds
 * it (a child server may take seconds to).
 *
 * Where the kernel says which ports `listen(0)` hands out (Linux), the port is chosen below that
 * range, so that no other server listening on port 0 can take it in the meantime. A process never
 * gets the same port twice. Processes that choose at once keep to disjoint slices when they name
 * their slice in `PORT_SLICE` (the test runner's workers use their pool id). Elsewhere: a port the
 * kernel hands out, closed again.
 */
export async function freePort(): Promise<number> {
  const high = ephemeralLow();
  if (high === null) return kernelPort();
  const width = Math.floor((high - CHOSEN_LOW) / SLICES);
  const named = Number.parseInt(process.env.PORT_SLICE || process.env.VITEST_POOL_ID || '0', 10);
  const slice = Number.isInteger(named) && named >= 0 ? named % SLICES : 0;
  const start = CHOSEN_LOW + slice * width;
  const offset = Math.floor(Math.random() * width);
  for (let i = 0; i < width; i++) {
    const port = start + ((offset + i) % width);
    if (handedOut.has(port)) continue;
    handedOut.add(port); // before the check, so that calls at once never share a port
    if (await isFree(port)) return port;
  }
  return kernelPort();
}

async function kernelPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** Whether nothing listens on this loopback port now. */
export async function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.unref();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}
