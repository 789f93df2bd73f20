// A large cached answer keeps only its gzip copy (cached-answer.ts keepCompressed): every way of
// serving it, stale-if-error included, still sends the bytes it was built with.
import { gzipSync } from 'node:zlib';
import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { heldBytes, keepCompressed, serveStale, weakEtag, type Entry } from '../../src/web/middleware/cached-answer.js';

function entryOf(identity: Buffer): Entry {
  return {
    expiresAt: 0,
    shows: null,
    page: null,
    builtAt: 0,
    scope: 'many',
    staleSince: null,
    etag: weakEtag(identity),
    rule: {},
    route: '/x',
    headers: [['content-type', 'application/json; charset=utf-8']],
    flat: ['content-type', 'application/json; charset=utf-8'],
    notModified: [],
    blocks: new Map(),
    identity,
    length: identity.length,
    encoded: new Map(),
    ready: new Map(),
  };
}

const body = (size: number) => Buffer.from(JSON.stringify({ data: Array.from({ length: size / 40 }, (_, i) => ({ id: i, name: `Shop ✓ ${i}` })) }));

describe('an answer kept compressed', () => {
  it('drops the identity bytes of a large answer once gzipped, and only then', () => {
    const large = entryOf(body(200_000));
    keepCompressed(large);
    expect(large.identity).not.toBeNull();
    large.ready.set('gzip', gzipSync(large.identity!));
    const counted = heldBytes(large);
    keepCompressed(large);
    expect(large.identity).toBeNull();
    expect(heldBytes(large)).toBeLessThan(counted / 4);
    const small = entryOf(body(20_000));
    small.ready.set('gzip', gzipSync(small.identity!));
    keepCompressed(small);
    expect(small.identity).not.toBeNull();
  });

  it('serves the bytes it was built with when stale, in either encoding', async () => {
    const built = body(200_000);
    const entry = entryOf(built);
    const zipped = gzipSync(built);
    entry.ready.set('gzip', zipped);
    keepCompressed(entry);
    expect(entry.identity).toBeNull();
    const app = express().get('/x', (req, res) => serveStale(req, res, entry, 0));
    const plain = await request(app).get('/x').set('Accept-Encoding', 'identity').buffer(true).parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done(null, Buffer.concat(chunks)));
    });
    expect(plain.headers['x-cache']).toBe('STALE-IF-ERROR');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect((plain.body as Buffer).equals(built)).toBe(true);
    const gz = await request(app).get('/x').set('Accept-Encoding', 'gzip').buffer(true).parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done(null, Buffer.concat(chunks)));
    });
    // supertest unzips what it receives.
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(Number(gz.headers['content-length'])).toBe(zipped.length);
    expect((gz.body as Buffer).equals(built)).toBe(true);
  });
});
