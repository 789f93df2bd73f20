// A short run of the soak script (`npm run soak`): mixed reads, bearer submissions, PUTs and
// moderation against the service in its own process with the spec's limits in force; it
// fails on any 5xx or network error, and when what was stored differs from what was answered.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

describe('npm run soak (short)', () => {
  it('passes: no 5xx, and the database holds exactly what the clients were told', { timeout: 180_000 }, async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/soak.ts', '--seconds', '8'], {
      env: { PATH: process.env.PATH },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code, output.slice(-4000)).toBe(0);
    expect(output).toContain('Soak PASSED');
  });
});
