// Bodies supertest does not buffer by itself (Atom, SVG, XML as text; gzip dumps as bytes).
import type { Express } from 'express';
import request from 'supertest';

/** GET `path` with its body as text, whatever its type. */
export function getText(target: { app: Express }, path: string, headers: Record<string, string> = {}) {
  return request(target.app)
    .get(path)
    .set(headers)
    .buffer(true)
    .parse((res, done) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => done(null, body));
    });
}

/** The request with its body kept as bytes. */
export const binary = (req: request.Test) =>
  req.buffer(true).parse((res, done) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => done(null, Buffer.concat(chunks)));
  });
