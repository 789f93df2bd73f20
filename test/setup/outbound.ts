// Real servers for outbound-fetcher tests (and the ownership checks that use the fetcher):
// an in-process DNS server, a DNS server that never answers, local HTTP fixtures, and traps
// that count connections to loopback addresses on ports 80 and 443.
import dgram from 'node:dgram';
import http from 'node:http';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { createServer as createDnsServer, Packet, type Resource } from 'dns2';
import ipaddr from 'ipaddr.js';

interface DnsRecords {
  A?: string[];
  AAAA?: string[];
  /** Each record is its strings (a record longer than 255 bytes is split in several). */
  TXT?: string[][];
}

export interface TestDns {
  /** For dnsServers / DNS_SERVERS: "127.0.0.1:port". */
  readonly server: string;
  /** Answer for a name (any case); a name never set answers NXDOMAIN. */
  set(name: string, records: DnsRecords): void;
  /** Every question asked, as "TYPE name". */
  readonly queries: string[];
  close(): Promise<void>;
}

const TYPE_NAMES: Record<number, string> = { [Packet.TYPE.A]: 'A', [Packet.TYPE.AAAA]: 'AAAA', [Packet.TYPE.TXT]: 'TXT' };

export async function startTestDns(): Promise<TestDns> {
  const zone = new Map<string, DnsRecords>();
  const queries: string[] = [];
  const server = createDnsServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      const question = request.questions[0];
      if (question) {
        const name = question.name.toLowerCase().replace(/\.$/, '');
        const type = TYPE_NAMES[question.type] ?? String(question.type);
        queries.push(`${type} ${name}`);
        const records = zone.get(name);
        if (!records) response.header.rcode = 3; // NXDOMAIN
        const answer = (record: Partial<Resource>) =>
          response.answers.push(Packet.createResourceFromQuestion(question, { class: Packet.CLASS.IN, ttl: 1, ...record }));
        if (type === 'A') {
          for (const address of records?.A ?? []) answer({ type: Packet.TYPE.A, address });
        } else if (type === 'AAAA') {
          // Fully written out: dns2 encodes only the plain hex form.
          for (const address of records?.AAAA ?? []) answer({ type: Packet.TYPE.AAAA, address: ipaddr.parse(address).toNormalizedString() });
        } else if (type === 'TXT') {
          for (const data of records?.TXT ?? []) answer({ type: Packet.TYPE.TXT, data });
        }
      }
      void send(response);
    },
  });
  const addresses = await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  return {
    server: `127.0.0.1:${addresses.udp!.port}`,
    set: (name, records) => void zone.set(name.toLowerCase(), records),
    queries,
    close: () => server.close(),
  };
}

/** A UDP port that takes DNS questions and never answers them. */
export async function startSilentDns(): Promise<{ server: string; received: () => number; close(): Promise<void> }> {
  const socket = dgram.createSocket('udp4');
  let received = 0;
  socket.on('message', () => void (received += 1));
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    server: `127.0.0.1:${socket.address().port}`,
    received: () => received,
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}

export interface Fixture {
  readonly port: number;
  /** Requests seen: their Host header, path and User-Agent. */
  readonly requests: Array<{ host: string | undefined; path: string; userAgent: string | undefined }>;
  /** Resolves when every connection the server took has closed. */
  allClosed(): Promise<void>;
  close(): Promise<void>;
}

/** An HTTP server on 127.0.0.1 and a free port, counting requests and open sockets. */
export async function startFixture(handler: http.RequestListener): Promise<Fixture> {
  const requests: Fixture['requests'] = [];
  const open = new Set<net.Socket>();
  let waiters: Array<() => void> = [];
  const server = http.createServer((req, res) => {
    requests.push({ host: req.headers.host, path: req.url ?? '', userAgent: req.headers['user-agent'] });
    handler(req, res);
  });
  server.on('connection', (socket) => {
    open.add(socket);
    socket.on('close', () => {
      open.delete(socket);
      if (open.size === 0) {
        for (const wake of waiters) wake();
        waiters = [];
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    requests,
    allClosed: () => (open.size === 0 ? Promise.resolve() : new Promise((resolve) => waiters.push(resolve))),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export interface Trap {
  /** Connections taken so far, on any of its addresses and ports. */
  connections(): number;
  close(): Promise<void>;
}

// Ports 80 and 443 are shared by the machine; another test may hold one for a moment.
async function listenPatiently(server: net.Server, port: number, host: string): Promise<void> {
  const until = Date.now() + 60_000;
  for (;;) {
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen({ port, host, ipv6Only: host.includes(':') }, () => {
          server.off('error', reject);
          resolve();
        });
      });
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || Date.now() > until) throw error;
      await sleep(200);
    }
  }
}

/**
 * Listeners on 127.0.0.1 and ::1, ports 80 and 443, that count every connection and close it.
 * The fetcher only connects to ports 80 and 443, so a refused address reaching the socket layer
 * would show here (0.0.0.0 and ::ffff:127.0.0.1 land on 127.0.0.1 too).
 */
export async function startLoopbackTrap(): Promise<Trap> {
  let connections = 0;
  const servers: net.Server[] = [];
  for (const host of ['127.0.0.1', '::1']) {
    for (const port of [80, 443]) {
      const server = net.createServer((socket) => {
        connections += 1;
        socket.destroy();
      });
      await listenPatiently(server, port, host);
      servers.push(server);
    }
  }
  return {
    connections: () => connections,
    close: async () => {
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    },
  };
}
