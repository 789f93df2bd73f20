// The address guard of the outbound fetcher: names that resolve (through an in-process DNS
// server) to every forbidden class of address, and IP-literal URLs, are refused before a
// socket connects. Loopback traps on ports 80 and 443 count any connection that got through.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutboundTestHosts } from '../../src/config/env.js';
import { createFetcher, type FetcherOptions } from '../../src/outbound/fetcher.js';
import { startFixture, startLoopbackTrap, startTestDns, type Fixture, type TestDns, type Trap } from '../setup/outbound.js';

const USER_AGENT = 'AgentCompatibilityDirectory-Checker/1.0 (+http://directory.test/how-it-works#ownership)';

let dns: TestDns;
let owners: Fixture;
let testHosts: OutboundTestHosts;

beforeAll(async () => {
  dns = await startTestDns();
  owners = await startFixture((_req, res) => void res.end('owners'));
  testHosts = [
    { name: 'shop.test', address: '127.0.0.1', port: owners.port },
    { name: '*.owners.test', address: '127.0.0.1', port: owners.port },
  ];
});

afterAll(async () => {
  await Promise.all([dns?.close(), owners?.close()]);
});

const fetcher = (options: Partial<FetcherOptions> = {}) =>
  createFetcher({ userAgent: USER_AGENT, dnsServers: [dns.server], testHosts, ...options });

describe('the address guard', () => {
  let trap: Trap;
  beforeAll(async () => {
    trap = await startLoopbackTrap();
    dns.set('loopback.evil.test', { A: ['127.0.0.1'] });
  });
  afterAll(async () => {
    await trap?.close();
  });

  // A class's words in the detail, and the addresses the name resolves to. The first seven
  // are on this machine, where the trap would see a connection.
  const classes: Array<[string, Array<['A' | 'AAAA', string]>, string]> = [
    ['127.0.0.1 (loopback)', [['A', '127.0.0.1']], 'a loopback address (127.0.0.1)'],
    ['127.8.9.10 (loopback)', [['A', '127.8.9.10']], 'a loopback address (127.8.9.10)'],
    ['0.0.0.0 (unspecified)', [['A', '0.0.0.0']], 'an unspecified address (0.0.0.0)'],
    ['::1 (loopback)', [['AAAA', '::1']], 'a loopback address (::1)'],
    [':: (unspecified)', [['AAAA', '::']], 'an unspecified address (::)'],
    ['::ffff:127.0.0.1 (IPv4-mapped loopback)', [['AAAA', '::ffff:127.0.0.1']], 'the IPv6 form of a loopback address'],
    ['a loopback and a public address', [['A', '127.0.0.1'], ['A', '1.1.1.1']], 'a loopback address (127.0.0.1)'],
    ['10.0.0.5 (private)', [['A', '10.0.0.5']], 'a private network address (10.0.0.5)'],
    ['172.16.0.1 (private)', [['A', '172.16.0.1']], 'a private network address (172.16.0.1)'],
    ['172.31.255.254 (private)', [['A', '172.31.255.254']], 'a private network address (172.31.255.254)'],
    ['192.168.1.1 (private)', [['A', '192.168.1.1']], 'a private network address (192.168.1.1)'],
    ['169.254.169.254 (cloud metadata)', [['A', '169.254.169.254']], 'a cloud metadata address (169.254.169.254)'],
    ['169.254.10.1 (link-local)', [['A', '169.254.10.1']], 'a link-local address (169.254.10.1)'],
    ['100.64.0.1 (carrier-grade NAT)', [['A', '100.64.0.1']], 'a carrier-grade NAT address (100.64.0.1)'],
    ['224.0.0.1 (multicast)', [['A', '224.0.0.1']], 'a multicast address (224.0.0.1)'],
    ['255.255.255.255 (broadcast)', [['A', '255.255.255.255']], 'a broadcast address (255.255.255.255)'],
    ['240.0.0.1 (reserved)', [['A', '240.0.0.1']], 'a reserved address (240.0.0.1)'],
    ['192.0.2.1 (documentation)', [['A', '192.0.2.1']], 'a reserved address (192.0.2.1)'],
    ['fc00::1 (unique-local)', [['AAAA', 'fc00::1']], 'a private network address (fc00::1)'],
    ['fd12:3456::1 (unique-local)', [['AAAA', 'fd12:3456::1']], 'a private network address (fd12:3456::1)'],
    ['fd00:ec2::254 (cloud metadata)', [['AAAA', 'fd00:ec2::254']], 'a cloud metadata address (fd00:ec2::254)'],
    ['fe80::1 (link-local)', [['AAAA', 'fe80::1']], 'a link-local address (fe80::1)'],
    ['ff02::1 (multicast)', [['AAAA', 'ff02::1']], 'a multicast address (ff02::1)'],
    ['::ffff:169.254.169.254 (IPv4-mapped metadata)', [['AAAA', '::ffff:169.254.169.254']], 'the IPv6 form of a cloud metadata address'],
    ['::ffff:10.0.0.5 (IPv4-mapped private)', [['AAAA', '::ffff:10.0.0.5']], 'the IPv6 form of a private network address'],
    ['64:ff9b::a00:5 (NAT64 of a private address)', [['AAAA', '64:ff9b::a00:5']], 'a reserved address (64:ff9b::a00:5)'],
  ];
  const ON_THIS_MACHINE = 7;

  // Before anything could be sent towards an address off this machine, the same guard must be
  // seen to hold on loopback, where the trap would catch a connection: a broken guard fails
  // there and sends nothing to a private network.
  async function guardHoldsOnLoopback() {
    const result = await fetcher().fetchText('http://loopback.evil.test/');
    expect(trap.connections()).toBe(0);
    expect(result).toMatchObject({ ok: false, reason: 'address-refused' });
  }

  it.each(classes)('refuses a name resolving to %s, over http and https, without connecting', async (label, answers, words) => {
    const index = classes.findIndex(([l]) => l === label);
    if (index >= ON_THIS_MACHINE) await guardHoldsOnLoopback();
    const name = `c${index}.evil.test`;
    dns.set(name, {
      A: answers.filter(([type]) => type === 'A').map(([, address]) => address),
      AAAA: answers.filter(([type]) => type === 'AAAA').map(([, address]) => address),
    });
    for (const url of [`http://${name}/`, `https://${name}/.well-known/acd.txt`]) {
      const result = await fetcher().fetchText(url);
      expect(trap.connections()).toBe(0);
      expect(result).toEqual({ ok: false, reason: 'address-refused', detail: expect.stringContaining(words) });
      if (result.ok) continue;
      expect(result.detail).toMatch(new RegExp(`^The name ${name.replace(/\./g, '\\.')} resolves to .*, which the directory never contacts\\.$`));
    }
    // The name was looked up through the configured resolver.
    expect(dns.queries).toContain(`A ${name}`);
  });

  it.each([
    ['http://127.0.0.1/', true, 'The address 127.0.0.1 is a loopback address, which the directory never contacts.'],
    ['https://127.0.0.1/', true, 'The address 127.0.0.1 is a loopback address, which the directory never contacts.'],
    ['http://2130706433/', true, 'The address 127.0.0.1 is a loopback address, which the directory never contacts.'],
    ['http://0x7f.1/', true, 'The address 127.0.0.1 is a loopback address, which the directory never contacts.'],
    ['http://[::1]/', true, 'The address ::1 is a loopback address, which the directory never contacts.'],
    ['http://[::ffff:127.0.0.1]/', true, 'The address ::ffff:7f00:1 is the IPv6 form of a loopback address, which the directory never contacts.'],
    ['http://0.0.0.0/', true, 'The address 0.0.0.0 is an unspecified address, which the directory never contacts.'],
    ['http://10.0.0.5/', false, 'The address 10.0.0.5 is a private network address, which the directory never contacts.'],
    ['http://169.254.169.254/latest/meta-data/', false, 'The address 169.254.169.254 is a cloud metadata address, which the directory never contacts.'],
    ['http://[fd00:ec2::254]/', false, 'The address fd00:ec2::254 is a cloud metadata address, which the directory never contacts.'],
  ])('refuses the IP-literal URL %s without connecting', async (url, onThisMachine, detail) => {
    if (!onThisMachine) await guardHoldsOnLoopback();
    const result = await fetcher().fetchText(url);
    expect(trap.connections()).toBe(0);
    expect(result).toEqual({ ok: false, reason: 'address-refused', detail });
  });

  it('uses the system resolver without dnsServers (localhost is refused as loopback)', async () => {
    const result = await createFetcher({ userAgent: USER_AGENT }).fetchText('http://localhost/');
    expect(trap.connections()).toBe(0);
    expect(result).toEqual({
      ok: false,
      reason: 'address-refused',
      detail: 'The name localhost resolves to a loopback address (127.0.0.1), which the directory never contacts.',
    });
    expect(trap.connections()).toBe(0);
  });

  it('sends a name that is not a test host through the guard, even one like a test host', async () => {
    for (const name of ['owners.test', 'xowners.test', 'notshop.test', 'shop.test.evil.test']) {
      dns.set(name, { A: ['127.0.0.1'] });
      const result = await fetcher().fetchText(`http://${name}/`);
      expect(trap.connections(), name).toBe(0);
      expect(result, name).toMatchObject({ ok: false, reason: 'address-refused' });
    }
    expect(owners.requests).toEqual([]);
  });
});
