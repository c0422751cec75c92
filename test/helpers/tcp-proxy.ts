// A loopback TCP proxy in front of a server, for tests that break connections on purpose: cut
// every connection at once (as a dropped network does), refuse new ones for a while, or swallow
// what the server sends back (an answer lost on the way).
import { connect, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { onTeardown } from './teardown.ts';

export interface TcpProxy {
  readonly port: number;
  /** Connections accepted so far (each reconnect is one). */
  readonly accepted: number;
  /** Destroys every open connection, both sides. */
  cut(): void;
  /** While on, new connections are destroyed as soon as they arrive. */
  refuse(on: boolean): void;
  /** From now on the server's bytes are dropped; resolves when the first dropped chunk came. */
  swallowReplies(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<[Socket, Socket]>();
  let refusing = false;
  let accepted = 0;
  let swallow: (() => void) | undefined;
  const server = createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    accepted++;
    const upstream = connect(target.port, target.host);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => {
      if (swallow) {
        const first = swallow;
        first();
        return;
      }
      client.write(chunk);
    });
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', end);
    upstream.on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const proxy: TcpProxy = {
    port,
    get accepted() {
      return accepted;
    },
    cut() {
      swallow = undefined;
      for (const [client, upstream] of [...pairs]) {
        client.destroy();
        upstream.destroy();
      }
      pairs.clear();
    },
    refuse(on) {
      refusing = on;
    },
    swallowReplies() {
      return new Promise<void>((resolve) => {
        let done = false;
        swallow = () => {
          if (!done) {
            done = true;
            resolve();
          }
        };
      });
    },
    close() {
      proxy.cut();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  onTeardown(() => proxy.close());
  return proxy;
}
