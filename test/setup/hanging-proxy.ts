// A TCP proxy to PostgreSQL that can hang like a stopped server (SIGSTOP): while hung it accepts
// connections and passes nothing on, so no statement_timeout fires; goOn() releases it all.
import net, { type AddressInfo } from 'node:net';

export async function hangingProxy(target: URL) {
  let hung = false;
  const held: Array<() => void> = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    const connect = () => {
      const upstream = net.connect(Number(target.port), target.hostname);
      sockets.add(upstream);
      upstream.on('close', () => sockets.delete(upstream));
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      const forward = (from: net.Socket, to: net.Socket) =>
        from.on('data', (chunk: Buffer) => {
          if (!hung) return void to.write(chunk);
          from.pause();
          held.push(() => {
            to.write(chunk);
            from.resume();
          });
        });
      forward(client, upstream);
      forward(upstream, client);
    };
    if (hung) held.push(connect);
    else connect();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    hang: () => void (hung = true),
    goOn: () => {
      hung = false;
      for (const release of held.splice(0)) release();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

