import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

describe('process start with a bad configuration', () => {
  it('prints one line naming the variable and exits with 1, no stack trace', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      env: { PATH: process.env.PATH, PORT: 'not-a-port', DATA_DIR: '/tmp/acd-never-used' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^Invalid configuration: PORT /)]);
    expect(result.stderr).not.toMatch(/\bat .*\.ts:\d+/);
    expect(result.stdout).toBe('');
  });
});
