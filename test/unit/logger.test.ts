import { Writable } from 'node:stream';
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
