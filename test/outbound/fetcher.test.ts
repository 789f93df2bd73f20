// The outbound fetcher against real sockets: an in-process DNS server (dns2) as its resolver
// and HTTP fixtures reached through the test door. The address guard is in address-guard.test.ts.
import type http from 'node:http';
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutboundTestHosts } from '../../src/config/env.js';
import { createFetcher, fetcherFromConfig, type FetcherOptions } from '../../src/outbound/fetcher.js';
import { testConfig } from '../setup/app.js';
import { startFixture, startSilentDns, startTestDns, type Fixture, type TestDns } from '../setup/outbound.js';

const USER_AGENT = 'AgentCompatibilityDirectory-Checker/1.0 (+http://directory.test/how-it-works#ownership)';
// Far more than any socket buffer holds, so a server that wrote it all was never cut off.
const HUGE_BYTES = 256 * 1024 * 1024;
const SLOW_HOP_MS = 150;

let dns: TestDns;
let site: Fixture;
let other: Fixture;
let owners: Fixture;
let testHosts: OutboundTestHosts;
const huge = { written: 0, closedEarly: false, closed: Promise.resolve() };

const send = (res: http.ServerResponse, status: number, headers: http.OutgoingHttpHeaders, body: string | Buffer = '') =>
  res.writeHead(status, headers).end(body);

const routes: Record<string, http.RequestListener> = {
  '/': (_req, res) => send(res, 200, { 'content-type': 'text/html; charset=utf-8' }, '<html><head><meta name="acd" content="ok"></head></html>'),
  '/missing': (_req, res) => send(res, 404, {}, 'no'),
  '/gone': (_req, res) => send(res, 410, {}, 'gone'),
  '/broken': (_req, res) => send(res, 500, {}, 'oops'),
  '/hop1': (_req, res) => send(res, 302, { location: '/hop2' }),
  '/hop2': (_req, res) => send(res, 301, { location: 'https://shop.test/final' }),
  '/final': (_req, res) => send(res, 200, { 'content-type': 'text/plain' }, 'final'),
  '/loop': (_req, res) => send(res, 302, { location: '/loop' }),
  '/away': (_req, res) => send(res, 302, { location: 'http://other.test/stolen' }),
  '/downgrade': (_req, res) => send(res, 302, { location: 'http://shop.test/' }),
  '/odd-port': (_req, res) => send(res, 302, { location: 'http://shop.test:8080/' }),
  '/no-location': (_req, res) => send(res, 302, {}),
  '/latin1': (_req, res) => send(res, 200, { 'content-type': 'text/plain; charset=iso-8859-1' }, Buffer.from([0x63, 0x61, 0x66, 0xe9])),
  '/gzip': (_req, res) => send(res, 200, { 'content-encoding': 'gzip' }, gzipSync('compressed anyway')),
  '/gzip-bomb': (_req, res) => send(res, 200, { 'content-encoding': 'gzip' }, gzipSync(Buffer.alloc(4 * 1024 * 1024))),
  '/exact': (_req, res) => send(res, 200, { 'content-type': 'text/plain' }, 'x'.repeat(65_536)),
  '/one-over': (_req, res) => send(res, 200, { 'content-type': 'text/plain' }, 'x'.repeat(65_537)),
  '/big-headers': (_req, res) => send(res, 200, { 'x-filler': 'a'.repeat(20_000) }, 'small body'),
  '/declared-huge': (_req, res) => {
    res.writeHead(200, { 'content-length': String(HUGE_BYTES) });
    res.write('x'.repeat(1024));
  },
  '/huge': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    const chunk = Buffer.alloc(64 * 1024, 'x');
    huge.written = 0;
    huge.closedEarly = false;
    huge.closed = new Promise((resolve) =>
      res.on('close', () => {
        huge.closedEarly = !res.writableFinished;
        resolve();
      }),
    );
    const pump = () => {
      while (huge.written < HUGE_BYTES && !res.destroyed) {
        huge.written += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      if (!res.destroyed) res.end();
    };
    pump();
  },
  '/headers-then-nothing': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.flushHeaders();
  },
  '/drip': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    const timer = setInterval(() => res.write('.'), 20);
    res.on('close', () => clearInterval(timer));
  },
};

function siteHandler(req: http.IncomingMessage, res: http.ServerResponse) {
  const path = (req.url ?? '/').split('?')[0]!;
  // /slow/N: a redirect to /slow/N-1 after SLOW_HOP_MS, down to /slow/0, which answers.
  const slow = /^\/slow\/(\d+)$/.exec(path);
  if (slow) {
    const left = Number(slow[1]);
    setTimeout(() => {
      if (left === 0) send(res, 200, {}, 'arrived');
      else send(res, 302, { location: `/slow/${left - 1}` });
    }, SLOW_HOP_MS);
    return;
  }
  const route = routes[path];
  if (route) route(req, res);
  else send(res, 404, {}, 'no such route');
}

beforeAll(async () => {
  dns = await startTestDns();
  site = await startFixture(siteHandler);
  other = await startFixture((_req, res) => send(res, 200, {}, 'other'));
  owners = await startFixture((req, res) => send(res, 200, { 'content-type': 'text/plain' }, `hello ${req.headers.host}`));
  testHosts = [
    { name: 'shop.test', address: '127.0.0.1', port: site.port },
    { name: 'other.test', address: '127.0.0.1', port: other.port },
    { name: '*.owners.test', address: '127.0.0.1', port: owners.port },
  ];
});

afterAll(async () => {
  await Promise.all([dns?.close(), site?.close(), other?.close(), owners?.close()]);
});

const fetcher = (options: Partial<FetcherOptions> = {}) =>
  createFetcher({ userAgent: USER_AGENT, dnsServers: [dns.server], testHosts, ...options });

describe('URLs', () => {
  it.each([
    ['ftp://shop.test/', 'Only http:// and https:// addresses can be checked.'],
    ['file:///etc/passwd', 'Only http:// and https:// addresses can be checked.'],
    ['javascript:alert(1)', 'Only http:// and https:// addresses can be checked.'],
    ['gopher://shop.test:70/', 'Only http:// and https:// addresses can be checked.'],
    ['http://shop.test:8080/', 'Only the standard ports 80 and 443 can be checked.'],
    ['https://shop.test:8443/', 'Only the standard ports 80 and 443 can be checked.'],
    ['http://shop.test:22/', 'Only the standard ports 80 and 443 can be checked.'],
    ['http://user:secret@shop.test/', 'Addresses with a user name or password cannot be checked.'],
    ['not a url', 'This is not a valid web address.'],
    ['', 'This is not a valid web address.'],
    [`http://shop.test/${'a'.repeat(2100)}`, 'The address is longer than 2048 characters.'],
  ])('refuses %s as bad-url without a request', async (url, detail) => {
    const before = site.requests.length;
    expect(await fetcher().fetchText(url)).toEqual({ ok: false, reason: 'bad-url', detail });
    expect(site.requests.length).toBe(before);
  });

  it('takes ports 80 and 443 written out', async () => {
    for (const url of ['http://shop.test:80/final', 'https://shop.test:443/final', 'https://shop.test:80/final']) {
      expect(await fetcher().fetchText(url), url).toMatchObject({ ok: true, body: 'final' });
    }
  });
});

describe('answers', () => {
  it('reads a page through the test door with the original Host and the checker User-Agent', async () => {
    const result = await fetcher().fetchText('https://SHOP.test/?x=1#fragment');
    expect(result).toEqual({
      ok: true,
      status: 200,
      url: 'https://shop.test/?x=1',
      contentType: 'text/html; charset=utf-8',
      body: '<html><head><meta name="acd" content="ok"></head></html>',
    });
    expect(site.requests.at(-1)).toEqual({ host: 'shop.test', path: '/?x=1', userAgent: USER_AGENT });
  });

  it('matches *.suffix test hosts on subdomains only', async () => {
    expect(await fetcher().fetchText('http://a.owners.test/')).toMatchObject({ ok: true, body: 'hello a.owners.test' });
    expect(await fetcher().fetchText('https://deep.b.owners.test/')).toMatchObject({ ok: true, body: 'hello deep.b.owners.test' });
  });

  it.each([
    ['/missing', { ok: false, reason: 'not-found', status: 404, detail: 'The server answered 404: nothing was found at this address.' }],
    ['/gone', { ok: false, reason: 'not-found', status: 410, detail: 'The server answered 410: the page is gone.' }],
    ['/broken', { ok: false, reason: 'http-error', status: 500, detail: 'The server answered 500 instead of the page.' }],
    ['/no-location', { ok: false, reason: 'http-error', status: 302, detail: 'The server answered 302 without saying where to go.' }],
  ])('tells %s apart', async (path, expected) => {
    expect(await fetcher().fetchText(`http://shop.test${path}`)).toEqual(expected);
  });

  it('decodes the declared charset, and a compressed answer nobody asked for', async () => {
    expect(await fetcher().fetchText('http://shop.test/latin1')).toMatchObject({ ok: true, body: 'café' });
    expect(await fetcher().fetchText('http://shop.test/gzip')).toMatchObject({ ok: true, body: 'compressed anyway' });
  });

  it('says a name without an address, and a server that is not there, are unreachable', async () => {
    expect(await fetcher().fetchText('http://nowhere.test/')).toEqual({
      ok: false,
      reason: 'unreachable',
      detail: 'No address was found for nowhere.test.',
    });
    const closed = await startFixture(() => undefined);
    await closed.close();
    const result = await fetcher({ testHosts: [{ name: 'closed.test', address: '127.0.0.1', port: closed.port }] }).fetchText(
      'http://closed.test/',
    );
    expect(result).toEqual({ ok: false, reason: 'unreachable', detail: 'closed.test refused the connection.' });
  });
});

describe('redirects', () => {
  it('follows redirects on the same host, http to https included', async () => {
    const before = site.requests.length;
    expect(await fetcher().fetchText('http://shop.test/hop1')).toEqual({
      ok: true,
      status: 200,
      url: 'https://shop.test/final',
      contentType: 'text/plain',
      body: 'final',
    });
    expect(site.requests.slice(before).map((r) => r.path)).toEqual(['/hop1', '/hop2', '/final']);
  });

  it('refuses a redirect to another host without requesting it', async () => {
    expect(await fetcher().fetchText('http://shop.test/away')).toEqual({
      ok: false,
      reason: 'redirect-refused',
      status: 302,
      detail: 'The site redirected to another host (other.test), which the check does not follow.',
    });
    expect(other.requests).toEqual([]);
  });

  it('refuses a downgrade to http, a port other than 80 or 443, and a fourth redirect', async () => {
    expect(await fetcher().fetchText('https://shop.test/downgrade')).toMatchObject({
      reason: 'redirect-refused',
      detail: 'The site redirected from https to plain http, which the check does not follow.',
    });
    expect(await fetcher().fetchText('http://shop.test/odd-port')).toMatchObject({
      reason: 'redirect-refused',
      detail: 'The site redirected to an address the check does not follow (only http and https on ports 80 and 443).',
    });
    const before = site.requests.length;
    expect(await fetcher().fetchText('http://shop.test/loop')).toMatchObject({
      reason: 'redirect-refused',
      detail: 'The site redirected more than 3 times, which the check does not follow.',
    });
    expect(site.requests.length - before).toBe(4);
    expect(await fetcher({ maxRedirects: 0 }).fetchText('http://shop.test/hop1')).toMatchObject({ reason: 'redirect-refused' });
  });
});

describe('limits', () => {
  it('stops reading past the size limit and closes the connection', async () => {
    expect(await fetcher().fetchText('http://shop.test/exact')).toMatchObject({ ok: true, body: 'x'.repeat(65_536) });
    expect(await fetcher().fetchText('http://shop.test/one-over')).toEqual({
      ok: false,
      reason: 'too-large',
      detail: 'The answer was larger than 64 KB.',
    });
    expect(await fetcher().fetchText('http://shop.test/huge')).toMatchObject({ ok: false, reason: 'too-large' });
    await huge.closed;
    await site.allClosed();
    expect(huge.closedEarly).toBe(true);
    expect(huge.written).toBeLessThan(HUGE_BYTES);
    expect(await fetcher({ maxBytes: 1000 }).fetchText('http://shop.test/declared-huge')).toEqual({
      ok: false,
      reason: 'too-large',
      detail: 'The answer was larger than 1000 bytes.',
    });
    await site.allClosed();
  });

  it('refuses headers over 16 KB', async () => {
    expect(await fetcher().fetchText('http://shop.test/big-headers')).toEqual({
      ok: false,
      reason: 'too-large',
      detail: "The answer's headers were larger than 16 KB.",
    });
  });

  it('counts a compressed answer by what it decompresses to', async () => {
    expect(await fetcher().fetchText('http://shop.test/gzip-bomb')).toMatchObject({ ok: false, reason: 'too-large' });
  });

  it.each(['/headers-then-nothing', '/drip'])('gives up on %s at the time limit and leaves no socket open', async (path) => {
    const started = performance.now();
    const result = await fetcher({ timeoutMs: 300 }).fetchText(`http://shop.test${path}`);
    const elapsed = performance.now() - started;
    expect(result).toEqual({ ok: false, reason: 'too-slow', detail: 'The server took longer than 0.3 seconds.' });
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(3000);
    await site.allClosed();
  });

  it('counts the time limit over the whole fetch, redirects included', async () => {
    // Three redirects and the answer take at least 4 x 150 ms; each one alone is well within 400 ms.
    expect(await fetcher({ timeoutMs: 5000 }).fetchText('http://shop.test/slow/3')).toMatchObject({ ok: true, body: 'arrived' });
    expect(await fetcher({ timeoutMs: 400 }).fetchText('http://shop.test/slow/3')).toMatchObject({ ok: false, reason: 'too-slow' });
    await site.allClosed();
  });

  it('gives up on a resolver that does not answer', async () => {
    const silent = await startSilentDns();
    try {
      const slow = fetcher({ dnsServers: [silent.server], timeoutMs: 300 });
      const started = performance.now();
      expect(await slow.fetchText('http://anything.example/')).toMatchObject({ ok: false, reason: 'too-slow' });
      expect(performance.now() - started).toBeLessThan(3000);
      expect(silent.received()).toBeGreaterThan(0);
    } finally {
      await silent.close();
    }
  });
});

describe('TXT records', () => {
  beforeAll(() => {
    dns.set('_acd-challenge.shop.test', { TXT: [['acd-verify=abc123'], ['v=spf1 -all']] });
    dns.set('_long.shop.test', { TXT: [['first part, ', 'second part']] });
    dns.set('address-only.test', { A: ['192.0.2.10'] });
  });

  it('reads the records through the configured resolver', async () => {
    expect(await fetcher().resolveTxt('_acd-challenge.SHOP.test.')).toEqual({ ok: true, records: ['acd-verify=abc123', 'v=spf1 -all'] });
    expect(dns.queries).toContain('TXT _acd-challenge.shop.test');
    expect(await fetcher().resolveTxt('_long.shop.test')).toEqual({ ok: true, records: ['first part, second part'] });
  });

  it('says not-found for a name without TXT records and for a name that does not exist', async () => {
    expect(await fetcher().resolveTxt('address-only.test')).toEqual({
      ok: false,
      reason: 'not-found',
      detail: 'No TXT record was found at address-only.test.',
    });
    expect(await fetcher().resolveTxt('_acd-challenge.nowhere.test')).toEqual({
      ok: false,
      reason: 'not-found',
      detail: 'No TXT record was found at _acd-challenge.nowhere.test.',
    });
  });

  it('refuses what is not a domain name', async () => {
    for (const name of ['not a name', '127.0.0.1', 'localhost', '', 'a..b.test', `${'a'.repeat(64)}.test`]) {
      expect(await fetcher().resolveTxt(name), name).toMatchObject({ ok: false, reason: 'bad-url' });
    }
  });

  it('gives up on a name server that does not answer, at the time limit', async () => {
    const silent = await startSilentDns();
    try {
      const started = performance.now();
      const result = await fetcher({ dnsServers: [silent.server], timeoutMs: 300 }).resolveTxt('_acd-challenge.shop.test');
      expect(result).toEqual({ ok: false, reason: 'too-slow', detail: 'The name server did not answer within 0.3 seconds.' });
      expect(performance.now() - started).toBeLessThan(3000);
      expect(silent.received()).toBeGreaterThan(0);
    } finally {
      await silent.close();
    }
  });
});

describe('the fetcher from the configuration', () => {
  it('takes OUTBOUND_TEST_HOSTS, DNS_SERVERS and the User-Agent from BASE_URL', async () => {
    const config = testConfig({
      OUTBOUND_TEST_HOSTS: `shop.test=127.0.0.1:${site.port}, *.owners.test=127.0.0.1:${owners.port}`,
      DNS_SERVERS: dns.server,
    });
    const configured = fetcherFromConfig(config);
    expect(await configured.fetchText('https://shop.test/final')).toMatchObject({ ok: true, body: 'final' });
    expect(site.requests.at(-1)?.userAgent).toBe(USER_AGENT);
    expect(await configured.fetchText('http://x.owners.test/')).toMatchObject({ ok: true, body: 'hello x.owners.test' });
    expect(await configured.resolveTxt('_acd-challenge.shop.test')).toMatchObject({ ok: true });
  });
});
