// The benchmark's baselines, in a process of their own: a bare Express 5 app and a bare
// node:http server, each answering the recorded URLs with exactly the bytes the directory
// served for them (same content type, same length). Express adds its weak ETag and answers a
// matching If-None-Match with 304, as any Express route does.
//   node --import tsx bench/baseline-server.ts <fixtures.json>
// Prints one JSON line {"express": port, "http": port} once both listen.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';

export interface Fixture {
  url: string;
  contentType: string;
  /** base64 */
  body: string;
}

const fixtures = new Map(
  (JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as Fixture[]).map((f) => [
    f.url,
    { type: f.contentType, body: Buffer.from(f.body, 'base64') },
  ]),
);

const app = express();
app.use((req, res) => {
  const fixture = fixtures.get(req.originalUrl);
  if (!fixture) {
    res.status(404).end();
    return;
  }
  res.set('Content-Type', fixture.type).send(fixture.body);
});

const node = http.createServer((req, res) => {
  const fixture = fixtures.get(req.url ?? '');
  if (!fixture) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { 'content-type': fixture.type, 'content-length': fixture.body.length });
  res.end(fixture.body);
});

const listen = (server: http.Server) =>
  new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));

const expressServer = http.createServer(app);
const ports = { express: await listen(expressServer), http: await listen(node) };
process.stdout.write(`${JSON.stringify(ports)}\n`);
process.on('SIGTERM', () => {
  expressServer.close();
  node.close();
  process.exit(0);
});
