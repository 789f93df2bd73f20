// The key of per-address limits: IPv4 per address, IPv6 per /64, an IPv4-mapped address as
// its IPv4 address, and always the key express-rate-limit's ipKeyGenerator gives (the fast
// paths are checked against it).
import { ipKeyGenerator } from 'express-rate-limit';
import { describe, expect, it } from 'vitest';
import { addressKey, IPV6_PREFIX_LENGTH } from '../../src/modules/limits/address-key.js';

describe('addressKey', () => {
  it('counts an IPv4 address alone, and an IPv4-mapped IPv6 address as that IPv4 address', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::FFFF:203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:cb00:7107')).toBe('203.0.113.7');
    expect(addressKey('203.0.113.8')).not.toBe(addressKey('203.0.113.7'));
  });

  it('counts an IPv6 address by its /64', () => {
    expect(IPV6_PREFIX_LENGTH).toBe(64);
    const key = addressKey('2001:db8:1:2::1');
    expect(key).toBe('2001:db8:1:2::/64');
    for (const sameNetwork of ['2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:0DB8:0001:0002:0:0:0:9', '2001:db8:1:2:a:b:1.2.3.4']) {
      expect(addressKey(sameNetwork)).toBe(key);
    }
    for (const otherNetwork of ['2001:db8:1:3::1', '2001:db8:1::1', '2001:db8:2:2::1']) {
      expect(addressKey(otherNetwork)).not.toBe(key);
    }
  });

  it('gives the key express-rate-limit gives, whichever path answers', () => {
    const addresses = [
      '::1',
      '::',
      'fe80::1%eth0',
      'fe80:1:2:3::1%eth0',
      '2001:db8::1',
      '2001:0:0:1::5',
      '2001:db8:0:1::',
      '2001:db8:1:0000:1::',
      '2001:db8:1:00a0:1::',
      '1:2:3::4',
      '1:2:3:4::',
      '::ffff:0:1.2.3.4',
      '64:ff9b::1.2.3.4',
      'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
      'unknown',
      'a:b:c:d:not-an-address',
    ];
    let seed = 42;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % 0x10000;
    for (let i = 0; i < 2_000; i++) {
      // Groups that are often zero, written with and without leading zeros and "::".
      const groups = Array.from({ length: 8 }, () => (random() % 3 === 0 ? 0 : random()));
      const full = groups.map((g) => g.toString(16).padStart(random() % 2 ? 4 : 1, '0'));
      addresses.push(full.join(':'), full.join(':').replace(/(^|:)0+(:0+)+(:|$)/, '::').toUpperCase());
    }
    for (const address of addresses) expect(addressKey(address), address).toBe(ipKeyGenerator(address, IPV6_PREFIX_LENGTH));
  });
});
