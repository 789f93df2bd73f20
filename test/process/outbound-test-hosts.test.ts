import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

describe('process start with the outbound test door in production', () => {
  it('prints one line naming OUTBOUND_TEST_HOSTS and exits with 1, no stack trace', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'production',
        OUTBOUND_TEST_HOSTS: 'shop.test=127.0.0.1:8080',
        DATA_DIR: '/tmp/acd-never-used',
      },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^Invalid configuration: OUTBOUND_TEST_HOSTS /)]);
    expect(result.stderr).not.toMatch(/\bat .*\.ts:\d+/);
    expect(result.stdout).toBe('');
  });
});
