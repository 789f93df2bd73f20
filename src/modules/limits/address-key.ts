// The key every limit counted per client address counts under. An IPv4 address is one client;
// an IPv6 client is usually given a whole /64 (SLAAC, privacy addresses), so counted per
// address it would hold 2^64 budgets: IPv6 addresses count per /64. An IPv4-mapped IPv6
// address (::ffff:a.b.c.d, what a dual-stack socket reports for an IPv4 client) is its IPv4
// address, so one client has one budget whichever way it arrives.
import { isIPv6 } from 'node:net';
import { ipKeyGenerator } from 'express-rate-limit';

/** The IPv6 prefix length one budget covers (recorded in docs/decisions.md). */
export const IPV6_PREFIX_LENGTH = 64;

// express-rate-limit's ipKeyGenerator defines the key; it parses with ip-address, ~12 µs an
// address (an IPv4-mapped one included), which the hot path should not pay on every request.
// So IPv4, the usual mapped form and an IPv6 address whose four /64 groups are written out and
// not zero (most of them) are answered here, in the helper's own spelling (a test compares the
// two); the rest go to the helper through a small memo, cleared when full so that its memory
// stays bounded whatever the number of addresses.
const MEMO_SIZE = 4_096;
const memo = new Map<string, string>();
const MAPPED = '::ffff:';

/** The limit key of a client address: the IPv4 address, or the IPv6 /64 as "2001:db8:1:2::/64". */
export function addressKey(address: string): string {
  if (!address.includes(':')) return address;
  if (address.startsWith(MAPPED) && address.includes('.', MAPPED.length) && !address.includes(':', MAPPED.length)) {
    return address.slice(MAPPED.length);
  }
  return prefix64(address) ?? memoized(address);
}

/** The /64 of an IPv6 address whose first four groups are written out and none is zero. */
function prefix64(address: string): string | undefined {
  if (!isIPv6(address)) return undefined;
  let key = '';
  let start = 0;
  for (let group = 0; group < 4; group++) {
    const end = address.indexOf(':', start);
    // Fewer than four groups before a "::" (or none at all): the helper's call.
    if (end <= start) return undefined;
    let first = start;
    while (first < end - 1 && address.charCodeAt(first) === 48) first++;
    // A zero group may belong to the run of zeros the short form compresses: the helper's call.
    if (first === end - 1 && address.charCodeAt(first) === 48) return undefined;
    key += address.slice(first, end + 1);
    start = end + 1;
  }
  return `${key.toLowerCase()}:/${IPV6_PREFIX_LENGTH}`;
}

function memoized(address: string): string {
  let key = memo.get(address);
  if (key === undefined) {
    key = ipKeyGenerator(address, IPV6_PREFIX_LENGTH);
    if (memo.size >= MEMO_SIZE) memo.clear();
    memo.set(address, key);
  }
  return key;
}
