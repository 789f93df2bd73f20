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
    ['OUTBOUND_TEST_HOSTS', { OUTBOUND_TEST_HOSTS: 'shop.test' }],
    ['OUTBOUND_TEST_HOSTS', { OUTBOUND_TEST_HOSTS: 'shop.test=127.0.0.1' }],
    ['OUTBOUND_TEST_HOSTS', { OUTBOUND_TEST_HOSTS: 'shop.test=127.0.0.1:0' }],
    ['OUTBOUND_TEST_HOSTS', { OUTBOUND_TEST_HOSTS: 'shop.test=127.0.0.1:70000' }],
    ['OUTBOUND_TEST_HOSTS', { OUTBOUND_TEST_HOSTS: 'shop.test=10.0.0.5:8080' }],
    ['OUTBOUND_TEST_HOSTS', { OUTBOUND_TEST_HOSTS: 'shop.test=shop.example:8080' }],
    ['OUTBOUND_TEST_HOSTS', { OUTBOUND_TEST_HOSTS: 'shop.test=[fd00::1]:8080' }],
    ['OUTBOUND_TEST_HOSTS', { OUTBOUND_TEST_HOSTS: '*=127.0.0.1:8080' }],
    ['OUTBOUND_TEST_HOSTS', { OUTBOUND_TEST_HOSTS: 'sh op.test=127.0.0.1:8080' }],
    ['OUTBOUND_TEST_HOSTS', { OUTBOUND_TEST_HOSTS: '10.0.0.5=127.0.0.1:8080' }],
    ['OUTBOUND_TEST_HOSTS', { OUTBOUND_TEST_HOSTS: 'a.test=127.0.0.1:1,A.test=127.0.0.1:2' }],
    ['OUTBOUND_TEST_HOSTS', { OUTBOUND_TEST_HOSTS: ' , ' }],
    ['DNS_SERVERS', { DNS_SERVERS: 'dns.example' }],
    ['DNS_SERVERS', { DNS_SERVERS: '1.1.1.1:abc' }],
    ['DNS_SERVERS', { DNS_SERVERS: '1.1.1.1:0' }],
    ['DNS_SERVERS', { DNS_SERVERS: '1.1.1.1:70000' }],
    ['DNS_SERVERS', { DNS_SERVERS: '[1.1.1.1]:53' }],
    ['DNS_SERVERS', { DNS_SERVERS: '2001:db8::1:53:99999' }],
    ['DNS_SERVERS', { DNS_SERVERS: '127.0.0.1:5353, nameserver' }],
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

describe('outbound fetcher settings (issue 34)', () => {
  it('reads OUTBOUND_TEST_HOSTS as names, *.suffix patterns and loopback addresses', () => {
    const config = loadConfig({
      DATA_DIR: dataDir(),
      OUTBOUND_TEST_HOSTS: ' Shop.test=127.0.0.1:8080, *.owners.test=[::1]:9000 ,,vendor.test=127.0.0.2:80',
    });
    expect(config.outboundTestHosts).toEqual([
      { name: 'shop.test', address: '127.0.0.1', port: 8080 },
      { name: '*.owners.test', address: '::1', port: 9000 },
      { name: 'vendor.test', address: '127.0.0.2', port: 80 },
    ]);
    expect(Object.isFrozen(config.outboundTestHosts)).toBe(true);
    expect(loadConfig({ DATA_DIR: dataDir() }).outboundTestHosts).toEqual([]);
  });

  it('reads DNS_SERVERS into the forms dns.Resolver#setServers takes', () => {
    const config = loadConfig({ DATA_DIR: dataDir(), DNS_SERVERS: '127.0.0.1:5353, 9.9.9.9, ::1, [2001:db8::53]:5300, [2001:db8::54]' });
    expect(config.dnsServers).toEqual(['127.0.0.1:5353', '9.9.9.9', '[::1]', '[2001:db8::53]:5300', '[2001:db8::54]']);
    expect(loadConfig({ DATA_DIR: dataDir() }).dnsServers).toBeUndefined();
  });

  it('refuses OUTBOUND_TEST_HOSTS in production with one line, and takes DNS_SERVERS there', () => {
    const message = configErrorFor({ NODE_ENV: 'production', OUTBOUND_TEST_HOSTS: 'shop.test=127.0.0.1:8080' });
    expect(message).toBe(
      'Invalid configuration: OUTBOUND_TEST_HOSTS must not be set when NODE_ENV is production (it lets the checker reach local test servers)',
    );
    expect(loadConfig({ DATA_DIR: dataDir(), NODE_ENV: 'production', OUTBOUND_TEST_HOSTS: ' ', DNS_SERVERS: '9.9.9.9' }).dnsServers).toEqual([
      '9.9.9.9',
    ]);
  });
});
