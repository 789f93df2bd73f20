// Which URLs the fetcher may request, which redirects it follows, which names the test door
// serves, and how a refused address is put into words. The refusal itself is made by
// request-filtering-agent on the resolved address of every connection (see fetcher.ts).
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { OutboundTestHost, OutboundTestHosts } from '../config/env.js';
import { failure, type Failed } from './results.js';

const MAX_URL_LENGTH = 2048;
const PORTS = new Set(['', '80', '443']);

export type Checked = { ok: true; url: URL } | { ok: false; failure: Failed };

/** Only http(s), on ports 80 and 443 (default or explicit), without credentials. */
export function checkUrl(raw: string): Checked {
  const refuse = (detail: string): Checked => ({ ok: false, failure: failure('bad-url', detail) });
  if (raw.length > MAX_URL_LENGTH) return refuse(`The address is longer than ${MAX_URL_LENGTH} characters.`);
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return refuse('This is not a valid web address.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return refuse('Only http:// and https:// addresses can be checked.');
  }
  if (url.username !== '' || url.password !== '') {
    return refuse('Addresses with a user name or password cannot be checked.');
  }
  if (!PORTS.has(url.port)) return refuse('Only the standard ports 80 and 443 can be checked.');
  if (url.hostname === '') return refuse('This is not a valid web address.');
  url.hash = '';
  return { ok: true, url };
}

/** The host as the socket layer takes it: without IPv6 brackets. */
export const bareHost = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

export const portOf = (url: URL) => (url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80);

// "shop.example." and "shop.example" are the same DNS name.
const normalName = (hostname: string) => hostname.toLowerCase().replace(/\.$/, '');

/** The test host serving this name, if any: an exact name, or `*.suffix` for names under suffix. */
export function matchTestHost(hosts: OutboundTestHosts, hostname: string): OutboundTestHost | undefined {
  const name = normalName(hostname);
  return hosts.find((host) =>
    host.name.startsWith('*.') ? name.endsWith(host.name.slice(1)) : name === host.name,
  );
}

export type Next = { ok: true; url: URL } | { ok: false; failure: Failed };

/**
 * Where a redirect may lead: the same host only (http may become https there), never more
 * than maxRedirects times. Anything else is refused without a request.
 */
export function redirectTarget(
  from: URL,
  status: number,
  location: string | undefined,
  redirects: number,
  maxRedirects: number,
): Next {
  const refuse = (detail: string): Next => ({ ok: false, failure: failure('redirect-refused', detail, status) });
  if (location === undefined || location.trim() === '') {
    return { ok: false, failure: failure('http-error', `The server answered ${status} without saying where to go.`, status) };
  }
  if (redirects >= maxRedirects) {
    return refuse(`The site redirected more than ${maxRedirects} times, which the check does not follow.`);
  }
  let target: URL;
  try {
    target = new URL(location.trim(), from);
  } catch {
    return refuse('The site redirected to an address that is not valid.');
  }
  const checked = checkUrl(target.href);
  if (!checked.ok) {
    return refuse('The site redirected to an address the check does not follow (only http and https on ports 80 and 443).');
  }
  if (normalName(checked.url.hostname) !== normalName(from.hostname)) {
    return refuse(`The site redirected to another host (${checked.url.hostname}), which the check does not follow.`);
  }
  if (from.protocol === 'https:' && checked.url.protocol === 'http:') {
    return refuse('The site redirected from https to plain http, which the check does not follow.');
  }
  return checked;
}

// Cloud metadata services answer on these; they are link-local or unique-local, and refused
// as such, but an owner deserves the plainer name.
const METADATA = new Set(['169.254.169.254', 'fd00:ec2::254']);

// Words for ipaddr.js's range names; every range but 'unicast' is refused.
const RANGE_WORDS: Record<string, string> = {
  private: 'a private network address',
  uniqueLocal: 'a private network address',
  loopback: 'a loopback address',
  linkLocal: 'a link-local address',
  carrierGradeNat: 'a carrier-grade NAT address',
  unspecified: 'an unspecified address',
  multicast: 'a multicast address',
  broadcast: 'a broadcast address',
};

function addressWords(address: string): string {
  if (!ipaddr.isValid(address)) return 'an address';
  let parsed = ipaddr.parse(address);
  let mapped = '';
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
    mapped = 'the IPv6 form of ';
  }
  if (METADATA.has(parsed.toString())) return `${mapped}a cloud metadata address`;
  return `${mapped}${RANGE_WORDS[parsed.range()] ?? 'a reserved address'}`;
}

// request-filtering-agent refuses with "DNS lookup <address>(family:…, host:…) is not allowed…".
const REFUSAL = /^DNS lookup (.+?)\(family:.*\bis not allowed\b/;

/** The owner's sentence for an address refusal, or undefined when the error is not one. */
export function refusedAddressDetail(error: Error, url: URL): string | undefined {
  const match = REFUSAL.exec(error.message);
  if (!match) return undefined;
  const address = match[1]!;
  const host = bareHost(url);
  return isIP(host) !== 0
    ? `The address ${address} is ${addressWords(address)}, which the directory never contacts.`
    : `The name ${host} resolves to ${addressWords(address)} (${address}), which the directory never contacts.`;
}
