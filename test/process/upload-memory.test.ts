// Screenshots are streamed to disk as they arrive, not held in memory: 30 concurrent posts of
// the contribution form with three 5 MB files each (450 MB of bodies, all refused for a
// validation error) took the process from 276 MB to 805 MB of resident memory, and it stayed
// there (issue 33, defect 4). The bound stated here: resident memory grows by less than
// UPLOAD_RSS_BOUND_MB while they arrive, and nothing of them is left on disk afterwards.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/net.js';
import { scratchDataDir } from '../setup/app.js';
import { createTestDatabase, type TestDatabase } from '../setup/database.js';
import { startServerProcess, stopServerProcess, waitForReady, type ServerProcess } from '../setup/server-process.js';

/** Growth of resident memory allowed while 450 MB of uploads arrive. */
const UPLOAD_RSS_BOUND_MB = 100;
const POSTS = 30;
/** How long after the last answer the incoming files may still be on disk (they go on the answer's close). */
const UPLOAD_GONE_MS = 10_000;
const FILE_BYTES = 5 * 1024 * 1024;

const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

/** Every file under `dir`, recursively (none when it does not exist). */
function filesUnder(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const full = path.join(dir, name);
    // A file deleted between the listing and its stat is gone: the state being waited for.
    const stat = statSync(full, { throwIfNoEntry: false });
    if (!stat) return [];
    return stat.isDirectory() ? filesUnder(full) : [full];
  });
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function ask(port: number, options: { method: string; path: string; headers?: Record<string, string>; body?: string }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: options.method, path: options.path, headers: options.headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('concurrent uploads of the largest forms', { timeout: 300_000 }, () => {
  let db: TestDatabase;
  let server: ServerProcess;
  let port: number;
  let dataDir: string;
  let cookie: string;
  beforeAll(async () => {
    db = await createTestDatabase();
    port = await freePort();
    dataDir = scratchDataDir();
    server = startServerProcess({
      DATABASE_URL: db.url,
      DATA_DIR: dataDir,
      PORT: String(port),
      BASE_URL: `http://127.0.0.1:${port}`,
      SEED_DEMO_DATA: 'false',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
      LIMIT_PUBLIC_PER_MINUTE: '100000',
      LIMIT_BROWSER_SUBMISSIONS_PER_HOUR: '100000',
      LIMIT_SIGN_IN_PER_CLIENT_PER_HOUR: '100000',
    });
    await waitForReady(port, server);

    // Signed in as a person is: the sign-in page, its form, the link from the outbox.
    const page = await ask(port, { method: 'GET', path: '/sign-in' });
    const first = String(page.headers['set-cookie']?.[0] ?? '').split(';')[0]!;
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)![1]!;
    const sent = await ask(port, {
      method: 'POST',
      path: '/sign-in',
      headers: { cookie: first, origin: `http://127.0.0.1:${port}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: 'uploader@example.org', _csrf: csrf }).toString(),
    });
    expect(sent.status, sent.body.slice(0, 500)).toBe(200);
    const outbox = path.join(dataDir, 'outbox');
    const mail = readFileSync(path.join(outbox, readdirSync(outbox)[0]!), 'utf8');
    const link = new URL(/(http:\/\/127\.0\.0\.1:\d+\/sign-in\/verify\?\S+)/.exec(mail.replace(/=\r?\n/g, '').replace(/=3D/g, '='))![1]!);
    const verified = await ask(port, { method: 'GET', path: `${link.pathname}${link.search}`, headers: { cookie: first } });
    expect(verified.status).toBe(303);
    cookie = String(verified.headers['set-cookie']?.[0] ?? first).split(';')[0]!;
  }, 180_000);
  afterAll(async () => {
    if (server) await stopServerProcess(server);
    await db?.drop();
  });

  it(`keeps resident memory within ${UPLOAD_RSS_BOUND_MB} MB of growth for ${POSTS} posts of three 5 MB files, and leaves no file behind`, async () => {
    const form = await ask(port, { method: 'GET', path: '/reports/new', headers: { cookie } });
    expect(form.status).toBe(200);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)![1]!;
    const file = Buffer.alloc(FILE_BYTES, 0x61); // not an image: the form refuses it by its content
    const boundary = 'acd-upload-memory-boundary';
    const field = (name: string, value: string) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
    const head = Buffer.from(field('_csrf', csrf) + field('outcome', 'WORKS')); // no merchant, no agent, no privacy: 400
    const filePart = (i: number) => Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="screenshots"; filename="shot-${i}.png"\r\nContent-Type: image/png\r\n\r\n`);
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const length = head.length + 3 * (filePart(0).length + FILE_BYTES + 2) - 2 + tail.length;

    const post = () =>
      new Promise<Answer>((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/reports/new',
            agent: false,
            headers: { cookie, origin: `http://127.0.0.1:${port}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(length) },
          },
          (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => (body += chunk));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
          },
        );
        req.on('error', reject);
        req.write(head);
        for (let i = 0; i < 3; i++) {
          req.write(filePart(i));
          req.write(file);
          if (i < 2) req.write('\r\n');
        }
        req.end(tail);
      });

    const pid = server.child.pid!;
    const before = rssOf(pid);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 20);
    let answers: Answer[];
    try {
      answers = await Promise.all(Array.from({ length: POSTS }, post));
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, rssOf(pid));
    for (const answer of answers) expect(answer.status, answer.body.slice(0, 300)).toBe(400);
    expect(answers[0]!.body).toContain('were not attached. Screenshots must be PNG, JPEG or WebP images.');
    const grewMb = (peak - before) / 1024 / 1024;
    expect(grewMb, `resident memory grew by ${grewMb.toFixed(0)} MB`).toBeLessThan(UPLOAD_RSS_BOUND_MB);
    // Nothing of the uploads stays on disk: not in the incoming files, not as drafts. The
    // incoming files go when each answer is done, which the server learns just after the client
    // has read it: they are gone within UPLOAD_GONE_MS of the last answer.
    const gone = Date.now() + UPLOAD_GONE_MS;
    while (filesUnder(path.join(dataDir, 'uploads')).length > 0 && Date.now() < gone) await new Promise((r) => setTimeout(r, 50));
    expect(filesUnder(path.join(dataDir, 'uploads'))).toEqual([]);
    expect(filesUnder(path.join(dataDir, 'evidence-pending')).filter((f) => !f.includes(`${path.sep}.locks${path.sep}`))).toEqual([]);
  });
});
