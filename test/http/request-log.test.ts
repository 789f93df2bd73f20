// The request log's one line per request: an answer the handler finished is "request completed"
// at info, even when the connection closes before Node reports the last bytes flushed (593 of
// 4,819 MCP answers were logged "request aborted" at warn); an answer cut short warns.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { requestLog } from '../../src/web/middleware/request-log.js';

type Line = { level: number; msg: string; res: { statusCode: number } };

describe('request log', () => {
  const lines: Line[] = [];
  let server: http.Server;
  let port: number;
  let logged: (n: number) => Promise<void>;
  beforeAll(async () => {
    const waiters: Array<{ n: number; resolve: () => void }> = [];
    logged = (n) => new Promise<void>((resolve) => (lines.length >= n ? resolve() : waiters.push({ n, resolve })));
    const logger = createLogger('info', {
      write: (line: string) => {
        lines.push(JSON.parse(line) as Line);
        for (const w of waiters.filter((w) => lines.length >= w.n)) w.resolve();
      },
    });
    const app = express();
    app.use(requestLog(logger, app));
    // The whole declared body written, the handler not (yet) ending: a client that has its
    // Content-Length closes the connection (hono's stream writer, under the MCP SDK, ends later).
    app.get('/whole-body', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '12' });
      res.write('whole answer');
    });
    // Headers and part of the declared body, then the connection gone: cut short.
    app.get('/cut-short', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '12' });
      res.write('half');
      setImmediate(() => res.socket?.destroy());
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const get = (path: string) =>
    new Promise<void>((resolve) => {
      const req = http.get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
        res.resume();
        res.on('close', () => resolve());
      });
      req.on('error', () => resolve());
    });

  it('logs an answer whose declared body was all written as completed, at info, though the connection closed first', async () => {
    await get('/whole-body');
    await logged(1);
    expect(lines[0]).toMatchObject({ level: 30, msg: 'request completed', res: { statusCode: 200 } });
  });

  it('warns about an answer cut short', async () => {
    await get('/cut-short');
    await logged(2);
    expect(lines[1]).toMatchObject({ level: 40, msg: 'request aborted', res: { statusCode: 200 } });
  });
});
