// Large responses are compressed for clients that accept it; the body and its ETag stay the same.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoApp } from '../setup/demo.js';
import type { TestApp } from '../setup/app.js';

describe('response compression', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createDemoApp();
  });
  afterAll(() => t.close());

  it('gzips a directory page for a client that accepts gzip, with the same body and ETag', async () => {
    const plain = await request(t.app).get('/api/v1/merchants').set('Accept-Encoding', 'identity').expect(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    const gzipped = await request(t.app).get('/api/v1/merchants').set('Accept-Encoding', 'gzip').expect(200);
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gzipped.headers.vary).toMatch(/Accept-Encoding/i);
    expect(gzipped.body).toEqual(plain.body);
    expect(gzipped.headers.etag).toBe(plain.headers.etag);
    await request(t.app)
      .get('/api/v1/merchants')
      .set('Accept-Encoding', 'gzip')
      .set('If-None-Match', plain.headers.etag!)
      .expect(304);
  });

  it('prefers brotli when the client accepts it, and leaves small bodies alone', async () => {
    const br = await request(t.app).get('/api/v1/merchants').set('Accept-Encoding', 'br, gzip').expect(200);
    expect(br.headers['content-encoding']).toBe('br');
    const small = await request(t.app).get('/healthz').set('Accept-Encoding', 'gzip').expect(200);
    expect(small.headers['content-encoding']).toBeUndefined();
  });
});
