// The response cache: repeated and conditional public reads are answered from memory, and no
// answer outlives the directory version it was built for, its time to live, or its audience.
import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LISTENER_APPLICATION_NAME } from '../../src/modules/directory/version.js';
import { createDemoApp } from '../setup/demo.js';
import type { TestApp } from '../setup/app.js';
import { captureMailer, signIn } from '../setup/session.js';

const METRICS_TOKEN = 'metrics-token-for-the-cache-tests-0123456789';

describe('the response cache', () => {
  let t: TestApp;
  const mailer = captureMailer();
  beforeAll(async () => {
    t = await createDemoApp({ mailer, env: { METRICS_TOKEN } });
  });
  afterAll(() => t.close());

  const bump = async () => {
    await t.db.pool.query('UPDATE categories SET updated_at = updated_at WHERE false');
    await t.versions.settle();
  };

  it('answers a repeated read from memory with the same bytes and ETag', async () => {
    await bump();
    const first = await request(t.app).get('/api/v1/merchants?sort=name').expect(200);
    const second = await request(t.app).get('/api/v1/merchants?sort=name').expect(200);
    expect(first.headers['x-cache']).toBe('MISS');
    expect(second.headers['x-cache']).toBe('HIT');
    expect(second.text).toBe(first.text);
    expect(second.headers.etag).toBe(first.headers.etag);
    expect(second.headers['cache-control']).toBe('public, max-age=60, stale-if-error=600');
    expect(second.headers['content-type']).toBe('application/json; charset=utf-8');
    // The same answer whatever the order of the parameters.
    const reordered = await request(t.app).get('/api/v1/merchants?page=1&sort=name');
    const ordered = await request(t.app).get('/api/v1/merchants?sort=name&page=1');
    expect(ordered.headers['x-cache']).toBe('HIT');
    expect(ordered.text).toBe(reordered.text);
  });

  it('answers a matching If-None-Match with 304 before building anything, and counts it against the limit', async () => {
    const { headers } = await request(t.app).get('/api/v1/categories').expect(200);
    const res = await request(t.app).get('/api/v1/categories').set('If-None-Match', headers.etag!).expect(304);
    expect(res.headers['x-cache']).toBe('HIT');
    expect(res.headers.etag).toBe(headers.etag);
    expect(res.text).toBe('');
    expect(res.headers.ratelimit).toMatch(/"public"; r=\d+/);
    // A 304 repeats what guides caches, not the representation's other headers.
    expect(res.headers['cache-control']).toBe('public, max-age=60, stale-if-error=600');
    expect(res.headers.vary).toBe('Accept-Encoding');
    expect(res.headers['content-security-policy']).toBeUndefined();
    // A cached 200 keeps every header the stack gave it: the API's own security headers.
    const again = await request(t.app).get('/api/v1/categories').expect(200);
    expect(again.headers['x-cache']).toBe('HIT');
    expect(again.headers['content-security-policy']).toBe("default-src 'none';frame-ancestors 'none'");
    expect(again.headers['x-content-type-options']).toBe('nosniff');
    await request(t.app).get('/api/v1/categories').set('If-None-Match', 'W/"other"').expect(200);
  });

  it('compresses each answer once per encoding; every encoding carries the same body and ETag', async () => {
    const server = t.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as AddressInfo;
    const raw = (encoding: string) =>
      new Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port, path: '/api/v1/merchants', headers: { 'accept-encoding': encoding } }, (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
          })
          .on('error', reject);
      });
    try {
      const plain = await raw('identity');
      expect(plain.headers['content-encoding']).toBeUndefined();
      for (const [encoding, decode] of [
        ['gzip', gunzipSync],
        ['br', brotliDecompressSync],
      ] as const) {
        for (let i = 0; i < 2; i++) {
          const res = await raw(encoding);
          expect(res.headers['content-encoding']).toBe(encoding);
          expect(res.headers.vary).toMatch(/Accept-Encoding/);
          expect(res.headers.etag).toBe(plain.headers.etag);
          expect(Number(res.headers['content-length'])).toBe(res.body.length);
          expect(res.body.length).toBeLessThan(plain.body.length / 4);
          expect(decode(res.body).equals(plain.body)).toBe(true);
        }
      }
    } finally {
      server.close();
    }
  });

  it('keeps only the gzip copy of a large answer, and still answers every encoding, a 304 and a HEAD with the same bytes', async () => {
    await bump();
    const server = t.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as AddressInfo;
    const raw = (encoding: string, headers: Record<string, string> = {}, method = 'GET') =>
      new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        http
          .request({ host: '127.0.0.1', port, method, path: '/api/v1/merchants?sort=popular', headers: { 'accept-encoding': encoding, ...headers } }, (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
          })
          .on('error', reject)
          .end();
      });
    const cacheBytes = async () => {
      const res = await request(t.app).get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`).expect(200);
      return Number(/^acd_response_cache_bytes (\S+)$/m.exec(res.text)![1]);
    };
    try {
      const before = await cacheBytes();
      // Built for a gzip client first: filed with its gzip copy only.
      const zipped = await raw('gzip');
      expect(zipped.headers['x-cache']).toBe('MISS');
      const built = gunzipSync(zipped.body);
      expect(built.length).toBeGreaterThan(64 * 1024);
      const held = (await cacheBytes()) - before;
      expect(held).toBeGreaterThan(zipped.body.length);
      expect(held).toBeLessThan(built.length / 2);
      // Every client gets the same representation from it.
      const plain = await raw('identity');
      expect(plain.headers['x-cache']).toBe('HIT');
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(Number(plain.headers['content-length'])).toBe(built.length);
      expect(plain.body.equals(built)).toBe(true);
      for (let i = 0; i < 2; i++) {
        const br = await raw('br');
        expect(br.headers['x-cache']).toBe('HIT');
        expect(br.headers['content-encoding']).toBe('br');
        expect(brotliDecompressSync(br.body).equals(built)).toBe(true);
        const again = await raw('gzip');
        expect(again.body.equals(zipped.body)).toBe(true);
        expect((await raw('identity')).body.equals(built)).toBe(true);
      }
      for (const res of [await raw('identity'), await raw('br'), await raw('gzip')]) expect(res.headers.etag).toBe(zipped.headers.etag);
      const notModified = await raw('identity', { 'if-none-match': zipped.headers.etag! });
      expect(notModified.status).toBe(304);
      expect(notModified.body.length).toBe(0);
      const head = await raw('identity', {}, 'HEAD');
      expect(head.status).toBe(200);
      expect(Number(head.headers['content-length'])).toBe(built.length);
      // Built again after a change that altered nothing in it: the same bytes have the same
      // ETag (a large answer's is a digest of its gzip copy), so a client's copy is still good.
      await bump();
      const rebuilt = await raw('gzip', { 'if-none-match': zipped.headers.etag! });
      expect(rebuilt.headers['x-cache']).toBe('MISS');
      expect(rebuilt.status).toBe(304);
      // And an identity client of a fresh build gets that ETag too.
      await bump();
      const plainBuilt = await raw('identity');
      expect(plainBuilt.headers['x-cache']).toBe('MISS');
      expect(plainBuilt.headers.etag).toBe(zipped.headers.etag);
      expect(plainBuilt.body.equals(built)).toBe(true);
    } finally {
      server.close();
    }
  });

  it('builds the answer afresh after any change to the directory', async () => {
    const before = await request(t.app).get('/api/v1/categories').expect(200);
    await t.db.pool.query(`UPDATE categories SET name = name || ' (renamed)' WHERE slug = $1`, [before.body.data[0].slug]);
    await t.versions.settle();
    const after = await request(t.app).get('/api/v1/categories').expect(200);
    expect(after.headers['x-cache']).toBe('MISS');
    expect(after.body.data.map((c: { name: string }) => c.name)).toContain(`${before.body.data[0].name} (renamed)`);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    // The old ETag no longer matches.
    await request(t.app).get('/api/v1/categories').set('If-None-Match', before.headers.etag!).expect(200);
  });

  it('keeps an answer at most a minute by the app clock (sponsorships start and end with time)', async () => {
    await request(t.app).get('/api/v1/agents').expect(200);
    expect((await request(t.app).get('/api/v1/agents')).headers['x-cache']).toBe('HIT');
    t.clock.advance(60_001);
    expect((await request(t.app).get('/api/v1/agents')).headers['x-cache']).toBe('MISS');
  });

  it('never caches errors', async () => {
    for (let i = 0; i < 2; i++) {
      const res = await request(t.app).get('/api/v1/merchants/no-such-shop').expect(404);
      expect(res.headers['x-cache']).toBe('MISS');
    }
  });

  it('shares anonymous pages only: a signed-in page and a page that starts a session are never shared', async () => {
    const sessions = async () => (await t.db.pool.query('SELECT count(*)::int AS n FROM session')).rows[0].n as number;
    const before = await sessions();
    const first = await request(t.app).get('/').expect(200);
    // A page without a form starts no session: nothing is stored, no cookie is set.
    expect(first.headers['set-cookie']).toBeUndefined();
    expect(await sessions()).toBe(before);
    const anonymous = await request(t.app).get('/').expect(200);
    expect(anonymous.headers['x-cache']).toBe('HIT');
    expect(anonymous.headers['content-security-policy']).toBe(first.headers['content-security-policy']);
    expect(anonymous.headers['content-security-policy']).toContain("script-src 'self'");
    expect(anonymous.text).toContain('Not signed in');

    const person = await signIn(t.app, mailer, 'cached.person@example.org');
    const mine = await person.get('/').expect(200);
    expect(mine.headers['x-cache']).toBe('BYPASS');
    expect(mine.text).toContain('Signed in as cached.person@example.org');
    const again = await request(t.app).get('/').expect(200);
    expect(again.text).not.toContain('cached.person@example.org');

    // The sign-in form carries a CSRF token bound to a new session: each visitor gets their own.
    const form = await request(t.app).get('/sign-in').expect(200);
    const otherForm = await request(t.app).get('/sign-in').expect(200);
    expect(otherForm.headers['x-cache']).toBe('MISS');
    expect(otherForm.headers['set-cookie']).toBeDefined();
    expect(otherForm.text).not.toBe(form.text);
  });

  it('serves nothing cached while the directory version is unknown, and recovers by itself', async () => {
    await request(t.app).get('/api/v1/agents?page=1').expect(200);
    expect((await request(t.app).get('/api/v1/agents?page=1')).headers['x-cache']).toBe('HIT');
    await t.db.pool.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1`,
      [LISTENER_APPLICATION_NAME],
    );
    for (let i = 0; i < 100 && t.versions.current() !== null; i++) await new Promise((r) => setTimeout(r, 10));
    expect(t.versions.current()).toBeNull();
    expect((await request(t.app).get('/api/v1/agents?page=1').expect(200)).headers['x-cache']).toBe('BYPASS');
    for (let i = 0; i < 300 && t.versions.current() === null; i++) await new Promise((r) => setTimeout(r, 10));
    expect(t.versions.current()).not.toBeNull();
    expect((await request(t.app).get('/api/v1/agents?page=1')).headers['x-cache']).toBe('HIT');
  });
});
