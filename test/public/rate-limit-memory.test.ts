// The public limiter's memory is bounded whatever the number of client addresses: a million
// distinct addresses in one window (sent in a process of its own, measured as the live heap
// after full collections) leave it holding at most its cap of counters, the addresses it
// forgot having gone to PostgreSQL.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_KEYS } from '../../src/modules/limits/counters.js';
import { createTestDatabase, type TestDatabase } from '../setup/database.js';

const run = promisify(execFile);
const CHILD = path.resolve(import.meta.dirname, 'rate-limit-memory.child.ts');
const MB = 2 ** 20;

interface Measured {
  addresses: number;
  refused: number;
  elapsedMs: number;
  held: number;
  beforeBytes: number;
  peakBytes: number;
  afterBytes: number;
  storedCounters: number;
}

describe('the public limiter under a million distinct addresses', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  it('holds at most its cap of counters, its live heap growing by less than 16 MB', async () => {
    const { stdout } = await run(process.execPath, ['--expose-gc', '--import', 'tsx', CHILD], {
      env: { ...process.env, DATABASE_URL: db.url, ADDRESSES: '1000000' },
      maxBuffer: 1 << 20,
    });
    const m = JSON.parse(stdout.trim().split('\n').at(-1)!) as Measured;
    console.log(
      `public limiter, ${m.addresses} addresses in ${m.elapsedMs} ms: live heap ${(m.beforeBytes / MB).toFixed(1)} MB before, ` +
        `peak ${(m.peakBytes / MB).toFixed(1)} MB (+${((m.peakBytes - m.beforeBytes) / MB).toFixed(1)}), ` +
        `${(m.afterBytes / MB).toFixed(1)} MB after; ${m.held} counters held, ${m.storedCounters} in PostgreSQL`,
    );
    expect(m.addresses).toBe(1_000_000);
    expect(m.refused).toBe(0);
    expect(m.held).toBeLessThanOrEqual(DEFAULT_MAX_KEYS);
    // At most 20,000 counters in memory, 10,000 queued and 10,000 being sent, ~210 bytes each
    // (~8.4 MB), and one batch in flight; holding every address would take ~200 MB.
    expect(m.peakBytes - m.beforeBytes).toBeLessThan(16 * MB);
    expect(m.afterBytes - m.beforeBytes).toBeLessThan(16 * MB);
    // The addresses it forgot were counted by PostgreSQL (as many as it could keep up with:
    // a flood this fast outruns it, and what is lost is one hit per address).
    expect(m.storedCounters).toBeGreaterThan(DEFAULT_MAX_KEYS);
    // A million requests through the limiter take 30-60 s alone and several times that on a
    // machine busy with other suites: the bound only catches a hang, it measures no speed.
  }, 400_000);
});
