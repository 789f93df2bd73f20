import { Writable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createLogger, redactUrl } from '../../src/logger.js';

describe('log redaction', () => {
  it('hides keys in URLs, as values, as secret-named parameters, and pasted bare', () => {
    const key = 'acd_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG';
    expect(redactUrl(`/api/v1/automation/queue?limit=5&token=${key}`)).toBe('/api/v1/automation/queue?limit=5&token=%5Bredacted%5D');
    expect(redactUrl('/x?api_key=secret')).not.toContain('secret');
    expect(redactUrl(`/x?q=${key}`)).not.toContain(key);
    expect(redactUrl(`/x?${key}`)).not.toContain(key);
    expect(redactUrl(`/x?${key}=1&page=2`)).not.toContain(key);
    expect(redactUrl('/x?page=2&sort=name')).toBe('/x?page=2&sort=name');
  });

  it('hides a secret-named parameter however it is spelled: any case, percent-escaped letters, the Kelvin sign', () => {
    const secretName = fc
      .tuple(fc.constantFrom('key', 'api_key', 'apikey', 'access_token', 'token', 'password'), fc.array(fc.nat(3)))
      .map(([name, modes]) =>
        [...name]
          .map((c, i) => {
            const mode = modes[i % Math.max(1, modes.length)] ?? 0;
            if (mode === 1) return c.toUpperCase();
            if (mode === 2) return `%${c.charCodeAt(0).toString(16).toUpperCase()}`;
            if (mode === 3 && c === 'k') return '\u212a';
            return c;
          })
          .join(''),
      );
    const harmless = fc.stringMatching(/^[a-jl-z0-9_.-]{1,8}$/).filter((t) => !/acd|token|password/.test(t));
    fc.assert(
      fc.property(fc.array(fc.tuple(harmless, harmless), { maxLength: 4 }), secretName, fc.nat(4), (pairs, name, at) => {
        const plain = `/api/v1/merchants?${pairs.map(([n, v]) => `${n}=${v}`).join('&')}`;
        // Nothing to hide: the URL is logged as sent.
        expect(redactUrl(plain)).toBe(plain);
        const query = pairs.map(([n, v]) => `${n}=${v}`);
        query.splice(Math.min(at, query.length), 0, `${name}=SeKrEt42`);
        expect(redactUrl(`/api/v1/merchants?${query.join('&')}`)).not.toContain('SeKrEt42');
      }),
      { numRuns: 500 },
    );
  });

  it('never writes Authorization or cookie headers', () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logger = createLogger('info', sink);
    logger.info({ req: { headers: { authorization: 'Bearer acd_secret', cookie: 'acd.sid=s%3Asecret' } } }, 'request');
    expect(lines.join('')).not.toMatch(/acd_secret|s%3Asecret/);
    expect(lines.join('')).toContain('[redacted]');
  });
});
