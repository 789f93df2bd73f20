// How an owner proves control of a website, and how the directory checks it (issue 34). Three
// ways: a DNS TXT record at a name under the host, a file under /.well-known/ on the host, or a
// <meta> tag on the website's own page. The DNS record and the file prove the whole host, so a
// website that is a path on a host others share can only use the meta tag. Every request goes
// through the one SSRF-safe fetcher (src/outbound/fetcher.ts); nothing here opens a socket.
import type { Fetcher, FetchFailure } from '../../outbound/fetcher.js';

export const CLAIM_METHODS = ['dns', 'file', 'meta'] as const;
export type ClaimMethodKey = (typeof CLAIM_METHODS)[number];

export const METHOD_NAMES: Readonly<Record<ClaimMethodKey, string>> = {
  dns: 'a DNS TXT record',
  file: 'a file on the website',
  meta: 'a meta tag on the website',
};

/** What verified a claim, as readers see it ("verified by DNS on 3 Apr 2026"). */
export const METHOD_SHORT: Readonly<Record<ClaimMethodKey, string>> = { dns: 'DNS', file: 'a file on its website', meta: 'a tag on its website' };

/** The record, file and tag all carry the claim's token under this name. */
export const PROOF_NAME = 'agent-directory-verification';
/** The DNS name under the host, and the file's path. */
export const DNS_LABEL = '_agent-directory';
export const WELL_KNOWN_PATH = `/.well-known/${PROOF_NAME}.txt`;

/** Why a check did not verify, in words a site owner understands. */
export type CheckReason = FetchFailure | 'wrong-content' | 'method-refused';

export const CHECK_REASON_WORDS: Readonly<Record<CheckReason, string>> = {
  'bad-url': 'the address cannot be checked',
  'not-found': 'not found',
  'wrong-content': 'found, but without this claim’s token',
  'address-refused': 'the address was refused (it leads to a private or reserved network)',
  'redirect-refused': 'a redirect to another host was refused',
  'too-slow': 'the site or DNS server was too slow',
  'too-large': 'the page was too large',
  unreachable: 'the site or DNS server could not be reached',
  'http-error': 'the site answered with an error',
  'method-refused': 'this method cannot prove a website that is a path on a shared host',
};

/** Transient reasons: the check could not be finished now, so its outcome is "pending" (try again). */
const TRANSIENT: ReadonlySet<CheckReason> = new Set(['too-slow', 'unreachable']);

export interface ClaimTarget {
  host: string;
  pageUrl: string;
  sharedHost: boolean;
  token: string;
}

/** Exactly what to publish for each method; a method that cannot prove the website says why. */
export interface Instructions {
  dns: { name: string; value: string } | { refused: string };
  file: { url: string; content: string } | { refused: string };
  meta: { tag: string; url: string };
}

export const proofValue = (token: string) => `${PROOF_NAME}=${token}`;

function sharedHostReason(target: Pick<ClaimTarget, 'host' | 'pageUrl'>): string {
  return `The website ${target.pageUrl} is a path on ${target.host}, a host others share: a DNS record or a file would prove the whole host, so only the meta tag on your own page can prove it.`;
}

export function instructionsFor(target: ClaimTarget): Instructions {
  const value = proofValue(target.token);
  const refused = { refused: sharedHostReason(target) };
  return {
    dns: target.sharedHost ? refused : { name: `${DNS_LABEL}.${target.host}`, value },
    file: target.sharedHost ? refused : { url: `https://${target.host}${WELL_KNOWN_PATH}`, content: value },
    meta: { tag: `<meta name="${PROOF_NAME}" content="${target.token}">`, url: target.pageUrl },
  };
}

/**
 * The host and page a website stands for, and whether it is a path on a shared host (a path
 * other than "/" means the host serves more than this website).
 */
export function targetOf(website: string): { host: string; pageUrl: string; sharedHost: boolean } | null {
  let url: URL;
  try {
    url = new URL(website);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  const sharedHost = url.pathname !== '/' && url.pathname !== '';
  url.hash = '';
  return { host: url.hostname.toLowerCase(), pageUrl: url.toString(), sharedHost };
}

type CheckOutcome = 'verified' | 'failed' | 'pending';

export interface MethodCheck {
  method: ClaimMethodKey;
  outcome: CheckOutcome;
  reason: CheckReason | null;
  /** One sentence for the owner: what was looked for, and what was found. */
  detail: string;
}

const failed = (method: ClaimMethodKey, reason: CheckReason, detail: string): MethodCheck => ({
  method,
  outcome: TRANSIENT.has(reason) ? 'pending' : 'failed',
  reason,
  detail,
});

/** The attributes of every <meta> tag of an HTML text (names lower-cased). */
function metaTags(html: string): Array<Record<string, string>> {
  const tags: Array<Record<string, string>> = [];
  for (const [tag] of html.matchAll(/<meta\b[^>]*>/gi)) {
    const attributes: Record<string, string> = {};
    for (const m of tag.matchAll(/([a-zA-Z_:][-a-zA-Z0-9_:.]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))/g)) {
      attributes[m[1]!.toLowerCase()] = (m[2] ?? m[3] ?? m[4] ?? '').trim();
    }
    tags.push(attributes);
  }
  return tags;
}

/** Runs one method's check against the live website or DNS, through the fetcher. */
export async function checkMethod(fetcher: Fetcher, target: ClaimTarget, method: ClaimMethodKey): Promise<MethodCheck> {
  const value = proofValue(target.token);
  const instructions = instructionsFor(target);
  if (method === 'dns') {
    const dns = instructions.dns;
    if ('refused' in dns) return failed(method, 'method-refused', dns.refused);
    const result = await fetcher.resolveTxt(dns.name);
    if (!result.ok) return failed(method, result.reason, `No TXT record could be read at ${dns.name}: ${result.detail}`);
    if (result.records.some((record) => record.trim() === value)) return { method, outcome: 'verified', reason: null, detail: `The TXT record at ${dns.name} holds the token.` };
    return failed(method, 'wrong-content', `${dns.name} has ${result.records.length} TXT record${result.records.length === 1 ? '' : 's'}, none of them "${value}".`);
  }
  if (method === 'file') {
    const file = instructions.file;
    if ('refused' in file) return failed(method, 'method-refused', file.refused);
    const result = await fetcher.fetchText(file.url);
    if (!result.ok) return failed(method, result.reason, `${file.url}: ${result.detail}`);
    if (result.body.split(/\r?\n/).some((line) => line.trim() === value)) return { method, outcome: 'verified', reason: null, detail: `${file.url} holds the token.` };
    return failed(method, 'wrong-content', `${file.url} was found, but no line of it is "${value}".`);
  }
  const result = await fetcher.fetchText(instructions.meta.url);
  if (!result.ok) return failed(method, result.reason, `${instructions.meta.url}: ${result.detail}`);
  const tags = metaTags(result.body).filter((t) => t.name?.toLowerCase() === PROOF_NAME);
  if (tags.some((t) => t.content === target.token)) return { method, outcome: 'verified', reason: null, detail: `${instructions.meta.url} has the meta tag.` };
  return failed(
    method,
    'wrong-content',
    tags.length
      ? `${instructions.meta.url} has a ${PROOF_NAME} meta tag, but not with this claim’s token.`
      : `${instructions.meta.url} was found, but has no <meta name="${PROOF_NAME}"> tag.`,
  );
}

/** The methods that may prove this target, in the order they are tried when none is named. */
export const allowedMethods = (target: Pick<ClaimTarget, 'sharedHost'>): ClaimMethodKey[] => (target.sharedHost ? ['meta'] : [...CLAIM_METHODS]);
