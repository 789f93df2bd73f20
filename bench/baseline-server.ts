// The benchmark's baselines, in processes of their own: a bare Express 5 app and a bare
// node:http server, each answering the recorded URLs with exactly the bytes the directory sent
// for them when asked with `Accept-Encoding: gzip` (the same compressed body, Content-Encoding,
// ETag, Content-Type, Vary and the service's other static headers), and with the service's 304
// when If-None-Match equals the recorded ETag. Nothing is hashed or compressed per request:
// Express's own ETag is off (`app.set('etag', false)`) and the ETag and the 304 decision are
// precomputed (one string comparison), as the service's response cache does them once per
// answer. Left out are only the service's per-request headers (X-Request-Id, RateLimit,
// RateLimit-Policy, X-Cache), which are its own work.
//
// With a process count above 1 they run as the service does with WEB_CONCURRENCY: a
// node:cluster primary forks that many workers, which share both ports (the primary hands
// connections out in turn, as the service's does), so that every ratio compares the same
// number of processes.
//   node --import tsx bench/baseline-server.ts <fixtures.json> [processes]
// Prints one JSON line {"express": port, "http": port} once every worker listens on both.
import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { freePort } from '../src/net.js';

export interface Fixture {
  url: string;
  /** The ETag the service sent (also the If-None-Match that gets a 304). */
  etag: string;
  /** The 200's headers as sent, flat [name, value, …], per-request ones removed; no Content-Length. */
  headers: string[];
  /** The 200's body as sent (gzip-encoded when the service encoded it), base64. */
  body: string;
  /** The 304's headers as sent, flat, per-request ones removed (absent: 304s not recorded). */
  notModifiedHeaders?: string[];
}

interface Answer {
  etag: string;
  /** [name, value] pairs for Express's setHeader. */
  pairs: Array<[string, string]>;
  /** Flat headers for node:http's writeHead, Content-Length included. */
  raw: string[];
  body: Buffer;
  notModifiedPairs: Array<[string, string]>;
  notModifiedRaw: string[];
}

const pairsOf = (flat: string[]) => Array.from({ length: flat.length / 2 }, (_, i) => [flat[2 * i]!, flat[2 * i + 1]!] as [string, string]);

const processes = Number(process.argv[3] ?? 1);

if (cluster.isPrimary && processes > 1) {
  // The workers listen on the same two ports (cluster shares them) and are told them here.
  const env = { BASELINE_EXPRESS_PORT: String(await freePort()), BASELINE_HTTP_PORT: String(await freePort()) };
  let listening = 0;
  for (let i = 0; i < processes; i++) {
    cluster.fork(env).on('message', (message) => {
      if (message === 'listening' && ++listening === processes) {
        process.stdout.write(`${JSON.stringify({ express: Number(env.BASELINE_EXPRESS_PORT), http: Number(env.BASELINE_HTTP_PORT) })}\n`);
      }
    });
  }
  cluster.on('exit', (_worker, code) => {
    if (code !== 0) process.exit(1);
  });
  process.on('SIGTERM', () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
    process.exit(0);
  });
} else {
  await serve();
}

async function serve(): Promise<void> {
  const answers = new Map(
    (JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as Fixture[]).map((f): [string, Answer] => {
      const body = Buffer.from(f.body, 'base64');
      const notModified = f.notModifiedHeaders ?? ['etag', f.etag];
      return [
        f.url,
        {
          etag: f.etag,
          pairs: pairsOf(f.headers),
          raw: [...f.headers, 'content-length', String(body.length)],
          body,
          notModifiedPairs: pairsOf(notModified),
          notModifiedRaw: notModified,
        },
      ];
    }),
  );

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use((req, res) => {
    const answer = answers.get(req.originalUrl);
    if (!answer) {
      res.status(404).end();
      return;
    }
    if (req.headers['if-none-match'] === answer.etag) {
      for (const [name, value] of answer.notModifiedPairs) res.setHeader(name, value);
      res.status(304).end();
      return;
    }
    for (const [name, value] of answer.pairs) res.setHeader(name, value);
    res.send(answer.body);
  });

  const node = http.createServer((req, res) => {
    const answer = answers.get(req.url ?? '');
    if (!answer) {
      res.writeHead(404).end();
      return;
    }
    if (req.headers['if-none-match'] === answer.etag) {
      res.writeHead(304, answer.notModifiedRaw).end();
      return;
    }
    res.writeHead(200, answer.raw);
    res.end(answer.body);
  });

  const listen = (server: http.Server, port: number) =>
    new Promise<number>((resolve) => server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));

  const expressServer = http.createServer(app);
  const ports = { express: await listen(expressServer, Number(process.env.BASELINE_EXPRESS_PORT ?? 0)), http: await listen(node, Number(process.env.BASELINE_HTTP_PORT ?? 0)) };
  if (cluster.isPrimary) process.stdout.write(`${JSON.stringify(ports)}\n`);
  else process.send!('listening');
  process.on('SIGTERM', () => {
    expressServer.close();
    node.close();
    process.exit(0);
  });
}
