// Shared pieces of the security regression tests: the XSS payload and what its escaped form
// looks like, a small HTML tag scanner (to find script elements and on* attributes the way a
// browser would), and requests whose path is sent byte for byte as written.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import request from 'supertest';
import { expect } from 'vitest';
import { csrfTokenOf } from '../setup/session.js';

/** A payload that runs script if any of its characters reach a page unescaped. */
export const XSS = `<script>alert(1)</script><img src=x onerror=alert(1)>"'`;

/** The payload for one field, prefixed so each field can be found on a page. */
export const payload = (field: string) => `${field}${XSS}`;

/** How EJS's `<%= %>` writes text (and what a safe page must contain instead of the raw text). */
export const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&#34;', "'": '&#39;' })[c]!);

interface Tag {
  name: string;
  attributes: Array<{ name: string; value: string | null }>;
}

/**
 * The start tags of a page, read as an HTML tokenizer reads them: attribute values quoted
 * with " or ', or unquoted up to a blank or `>`. Comments and the doctype are skipped; the
 * contents of script, style, textarea and title are scanned like markup (stricter than a
 * browser: an escaped page has no `<` there anyway).
 */
function startTags(html: string): Tag[] {
  const tags: Tag[] = [];
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    if (lt === -1) break;
    if (html.startsWith('<!--', lt)) {
      const end = html.indexOf('-->', lt + 4);
      i = end === -1 ? html.length : end + 3;
      continue;
    }
    const nameMatch = /^<([a-zA-Z][^\s/>]*)/.exec(html.slice(lt, lt + 100));
    if (!nameMatch) {
      i = lt + 1;
      continue;
    }
    const tag: Tag = { name: nameMatch[1]!.toLowerCase(), attributes: [] };
    let j = lt + nameMatch[0].length;
    for (;;) {
      while (j < html.length && /[\s/]/.test(html[j]!)) j++;
      if (j >= html.length || html[j] === '>') break;
      let name = '';
      // An attribute name runs to a blank, `/`, `>` or `=` (a leading `=` belongs to the name).
      do {
        name += html[j];
        j++;
      } while (j < html.length && !/[\s/>=]/.test(html[j]!));
      while (j < html.length && /\s/.test(html[j]!)) j++;
      let value: string | null = null;
      if (html[j] === '=') {
        j++;
        while (j < html.length && /\s/.test(html[j]!)) j++;
        const quote = html[j];
        if (quote === '"' || quote === "'") {
          const end = html.indexOf(quote, j + 1);
          value = html.slice(j + 1, end === -1 ? html.length : end);
          j = end === -1 ? html.length : end + 1;
        } else {
          const start = j;
          while (j < html.length && !/[\s>]/.test(html[j]!)) j++;
          value = html.slice(start, j);
        }
      }
      tag.attributes.push({ name: name.toLowerCase(), value });
    }
    tags.push(tag);
    i = j + 1;
  }
  return tags;
}

/** Attributes a browser follows or loads as a URL. */
const URL_ATTRIBUTES: ReadonlySet<string> = new Set(['href', 'src', 'action', 'formaction', 'poster', 'srcset', 'xlink:href']);

const attribute = (tag: Tag, name: string) => tag.attributes.find((a) => a.name === name);

/** What no page may contain: inline script, event handler attributes, script URLs, stray attributes. */
export function scriptProblems(html: string): string[] {
  const problems: string[] = [];
  for (const tag of startTags(html)) {
    const text = `<${tag.name} ${tag.attributes.map((a) => (a.value === null ? a.name : `${a.name}="${a.value}"`)).join(' ')}>`;
    if (tag.name === 'script') {
      const src = attribute(tag, 'src')?.value;
      if (!src) problems.push(`inline script: ${text}`);
      else if (!src.startsWith('/static/')) problems.push(`script from elsewhere: ${text}`);
    }
    for (const a of tag.attributes) {
      if (a.name.startsWith('on')) problems.push(`event handler attribute ${a.name}: ${text}`);
      // Every attribute the templates write is a plain name; a quote that ended a value early
      // leaves a name such as `'` or `alert(1)>` behind.
      if (!/^[a-z][a-z0-9-]*$/.test(a.name)) problems.push(`stray attribute ${JSON.stringify(a.name)}: ${text}`);
      if (a.value !== null && URL_ATTRIBUTES.has(a.name) && /^\s*(javascript|vbscript|data):/i.test(a.value)) {
        problems.push(`script URL in ${a.name}: ${text}`);
      }
    }
    if (tag.name === 'img' && attribute(tag, 'src')?.value === 'x') problems.push(`the payload's image: ${text}`);
    if (['iframe', 'object', 'embed', 'base'].includes(tag.name)) problems.push(`${tag.name} element: ${text}`);
  }
  return problems;
}

/**
 * A page that shows `fields` (payload(field) each): every one is there, escaped, and no raw
 * payload, inline script or handler is anywhere on the page.
 */
export function expectEscaped(html: string, where: string, fields: string[]): void {
  expect(html, `${where}: the raw payload`).not.toContain(XSS);
  expect(html, `${where}: an unescaped script tag`).not.toMatch(/<script>alert/i);
  expect(scriptProblems(html), where).toEqual([]);
  for (const field of fields) {
    expect(html, `${where} shows ${field}, escaped`).toContain(escapeHtml(payload(field)));
  }
}

/** The `Content-Security-Policy` a page must send: no inline script in any form. */
export function expectStrictCsp(header: string | undefined, where: string): void {
  expect(header, where).toBeTruthy();
  const directives = new Map(
    header!
      .split(';')
      .map((d) => d.trim())
      .filter(Boolean)
      .map((d) => {
        const [name, ...values] = d.split(/\s+/);
        return [name!.toLowerCase(), values] as const;
      }),
  );
  expect(directives.get('script-src'), `${where}: script-src`).toEqual(["'self'"]);
  expect(directives.get('script-src-attr'), `${where}: script-src-attr`).toEqual(["'none'"]);
  expect(directives.get('default-src'), `${where}: default-src`).toEqual(["'self'"]);
  expect(directives.get('object-src'), `${where}: object-src`).toEqual(["'none'"]);
  expect(directives.get('base-uri'), `${where}: base-uri`).toEqual(["'self'"]);
  expect(directives.has('script-src-elem'), `${where}: no script-src-elem loophole`).toBe(false);
  expect(header, where).not.toMatch(/unsafe-inline|unsafe-eval|unsafe-hashes|strict-dynamic|'nonce-|'sha(256|384|512)-|\*/);
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

export interface RawClient {
  /** Sends a request whose path is exactly `rawPath`: no client normalises `..`, escapes or slashes. */
  request(rawPath: string, options?: { method?: string; headers?: Record<string, string> }): Promise<RawResponse>;
  close(): Promise<void>;
}

/** The app listening on a loopback port, for requests written byte for byte. */
export async function rawClient(app: Express): Promise<RawClient> {
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    request: (rawPath, options = {}) =>
      new Promise<RawResponse>((resolve, reject) => {
        const req = http.request(
          { host: '127.0.0.1', port, method: options.method ?? 'GET', path: rawPath, headers: { connection: 'close', ...options.headers } },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('latin1') }));
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end();
      }),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The `acd.sid` Set-Cookie header of a response, if it sets one. */
export const sessionSetCookie = (headers: Record<string, unknown>): string | undefined =>
  ([headers['set-cookie']].flat().filter(Boolean) as string[]).find((c) => c.startsWith('acd.sid='));

/**
 * Signs `email` in through the sign-in form and the e-mailed link, keeping the cookie by hand
 * (so a test sees every Set-Cookie header). Returns the signed-in session's `Cookie` value.
 */
export async function signInCookie(
  app: Express,
  mailer: { lastLinkFor(to: string): string },
  email: string,
  origin: string,
  extraHeaders: Record<string, string> = {},
): Promise<{ cookie: string; setCookies: string[] }> {
  const setCookies: string[] = [];
  const keep = (res: request.Response) => {
    const header = sessionSetCookie(res.headers);
    if (header) setCookies.push(header);
    return header;
  };
  const form = await request(app).get('/sign-in').set(extraHeaders).expect(200);
  const first = keep(form);
  expect(first, 'the sign-in form starts a session').toBeTruthy();
  let cookie = first!.split(';')[0]!;
  const sent = await request(app)
    .post('/sign-in')
    .set(extraHeaders)
    .set('Cookie', cookie)
    .set('Origin', origin)
    .type('form')
    .send({ email, _csrf: csrfTokenOf(form.text) });
  expect(sent.status, sent.text.slice(0, 300)).toBe(200);
  keep(sent);
  const link = new URL(mailer.lastLinkFor(email));
  const verified = await request(app).get(`${link.pathname}${link.search}`).set(extraHeaders).set('Cookie', cookie).expect(303);
  const signedIn = keep(verified);
  expect(signedIn, 'signing in issues a new session cookie').toBeTruthy();
  cookie = signedIn!.split(';')[0]!;
  return { cookie, setCookies };
}
