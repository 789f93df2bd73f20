import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseEnv } from '../../src/config/env.js';
import { scratchDataDir } from '../setup/app.js';

const dataDir = () => scratchDataDir('config-');

function configErrorFor(env: Record<string, string>): string {
  try {
    loadConfig({ DATA_DIR: dataDir(), ...env });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('configuration', () => {
  it('has working defaults with an empty environment', () => {
    const config = loadConfig({ DATA_DIR: dataDir() });
    expect(config.port).toBe(3000);
    expect(config.baseUrl).toBe('http://localhost:3000');
    expect(config.databaseUrl).toBeUndefined();
    expect(config.trustProxy).toBe(false);
    expect(config.moderatorEmails).toEqual([]);
    expect(config.secureCookies).toBe(false);
    expect(config.requestTimeoutMs).toBe(60_000);
    expect(config.headersTimeoutMs).toBe(20_000);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it.each([
    ['PORT', { PORT: 'abc' }],
    ['PORT', { PORT: '70000' }],
    ['BASE_URL', { BASE_URL: 'not a url' }],
    ['BASE_URL', { BASE_URL: 'ftp://example.org' }],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://localhost/db' }],
    ['SESSION_SECRET', { SESSION_SECRET: 'short' }],
    ['SMTP_URL', { SMTP_URL: 'http://mail.example' }],
    ['TRUST_PROXY', { TRUST_PROXY: 'some proxies please' }],
    ['MODERATOR_EMAILS', { MODERATOR_EMAILS: 'mod@directory.example, not-an-email' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
    ['REQUEST_TIMEOUT_MS', { REQUEST_TIMEOUT_MS: '0' }],
    ['HEADERS_TIMEOUT_MS', { HEADERS_TIMEOUT_MS: '30000', REQUEST_TIMEOUT_MS: '20000' }],
  ])('rejects a bad %s with a message naming it', (name, env) => {
    const message = configErrorFor(env);
    expect(message).toMatch(new RegExp(`^Invalid configuration: ${name} `));
    expect(message).not.toContain('\n');
  });

  it('parses list and proxy settings', () => {
    const env = parseEnv({ TRUST_PROXY: 'loopback, 10.0.0.0/8', MODERATOR_EMAILS: ' A@Example.org,b@example.org ' });
    expect(env.TRUST_PROXY).toEqual(['loopback', '10.0.0.0/8']);
    expect(env.MODERATOR_EMAILS).toEqual(['a@example.org', 'b@example.org']);
    expect(parseEnv({ TRUST_PROXY: '2' }).TRUST_PROXY).toBe(2);
    expect(parseEnv({ TRUST_PROXY: 'true' }).TRUST_PROXY).toBe(true);
  });

  it('uses secure cookies and the origin of an https BASE_URL', () => {
    const config = loadConfig({ DATA_DIR: dataDir(), BASE_URL: 'https://directory.example/' });
    expect(config.baseUrl).toBe('https://directory.example');
    expect(config.origin).toBe('https://directory.example');
    expect(config.secureCookies).toBe(true);
  });

  it('generates a session secret once and keeps it under DATA_DIR', () => {
    const dir = dataDir();
    const first = loadConfig({ DATA_DIR: dir }).sessionSecret;
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(readFileSync(path.join(dir, 'session-secret'), 'utf8').trim()).toBe(first);
    expect(loadConfig({ DATA_DIR: dir }).sessionSecret).toBe(first);
    expect(loadConfig({ DATA_DIR: dataDir() }).sessionSecret).not.toBe(first);
  });

  it('uses SESSION_SECRET when set and writes nothing', () => {
    const dir = dataDir();
    const secret = 'x'.repeat(40);
    expect(loadConfig({ DATA_DIR: dir, SESSION_SECRET: secret }).sessionSecret).toBe(secret);
    expect(existsSync(path.join(dir, 'session-secret'))).toBe(false);
  });
});
