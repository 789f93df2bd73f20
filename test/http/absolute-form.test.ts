// A request target in absolute form (`GET http://host/path HTTP/1.1`, RFC 9112 3.2.2), which
// every HTTP/1.1 server must accept: it is answered as its path and query, so the Link
// headers, the cache key and every address built from the request name our own origin once
// (N9: the links were `<http://directory.testhttp://host/api/v1/...>`).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aMerchant } from '../factories/index.js';
import { createTestApp, TEST_BASE_URL, type TestApp } from '../setup/app.js';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

describe('absolute-form request targets', () => {
  let t: TestApp;
  let server: http.Server;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp();
    for (let i = 0; i < 30; i++) await aMerchant(t.db.prisma);
    server = t.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await t.close();
  });

  /** A GET whose request line carries `target` as it is (Node sends an absolute path unchanged). */
  const get = (target: string) =>
    new Promise<Answer>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, method: 'GET', path: target, agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      });
      req.on('error', reject);
      req.end();
    });

  it('gives a list the same answer and well-formed Link headers naming our origin', async () => {
    const absolute = await get('http://elsewhere.example:8080/api/v1/merchants?page=1&sort=name');
    expect(absolute.status).toBe(200);
    const links = String(absolute.headers.link).split(', ');
    expect(links.length).toBeGreaterThanOrEqual(3);
    for (const link of links) expect(link).toMatch(new RegExp(`^<${TEST_BASE_URL}/api/v1/merchants\\?[^>]*page=\\d+[^>]*>; rel="(first|prev|next|last)"$`));
    const origin = await get('/api/v1/merchants?page=1&sort=name');
    expect(absolute.headers.link).toBe(origin.headers.link);
    expect(absolute.body).toBe(origin.body);
    // One cache entry for both spellings of the same target.
    expect(origin.headers['x-cache']).toBe('HIT');
  });

  it('answers pages, problems and an empty path in absolute form', async () => {
    expect((await get(`http://${'directory.test'}/how-it-works`)).status).toBe(200);
    expect((await get('http://directory.test')).status).toBe(200);
    const missing = await get('http://directory.test/api/v1/merchants/no-such-shop');
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toMatch(/^application\/problem\+json/);
  });
});
