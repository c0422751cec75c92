// A SOCKS5 proxy on loopback for one browser context (docs/safety.md). Chromium's request
// interception never sees WebSockets (measured: Fetch does not pause their handshakes, and
// Network.setBlockedURLs does not block them), but a context's proxy does: with the bypass list
// `<-loopback>` every connection of the context comes here, so WebSockets, what a name resolves
// to (--block-private-network) and any request that escaped the interception meet the policy. Each CONNECT is checked before anything is resolved or connected, the name is
// resolved here (socks5: Chromium sends names, not addresses), the addresses are checked too, and
// the connection goes to an address that was checked: a name that resolves differently a moment
// later (DNS rebinding) gains nothing.
import { lookup } from 'node:dns/promises';
import { connect, createServer, isIP, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export type ProxyVerdict = { allowed: true } | { allowed: false; rule: string };

export interface SocksProxyOptions {
  /** The host check; `resolved` are the addresses of a name once it was resolved (empty before). */
  check(host: string, port: number, resolved: readonly string[]): ProxyVerdict;
  /** A CONNECT the policy refused. */
  refused(host: string, port: number, rule: string): void;
  /** Budget to resolve and connect. */
  connectTimeoutMs?: number;
  /** The addresses of a name (default: the system's resolver, every address). */
  resolve?: (name: string) => Promise<string[]>;
}

export interface SocksProxy {
  /** `socks5://127.0.0.1:PORT`, for Target.createBrowserContext's proxyServer. */
  readonly url: string;
  close(): Promise<void>;
}

const REPLY = {
  succeeded: 0,
  failure: 1,
  notAllowed: 2,
  hostUnreachable: 4,
  refused: 5,
  commandNotSupported: 7,
  addressNotSupported: 8,
} as const;

function reply(socket: Socket, code: number): void {
  // BND.ADDR 0.0.0.0:0: Chromium does not read it.
  socket.write(Buffer.from([5, code, 0, 1, 0, 0, 0, 0, 0, 0]));
}

/** Reads bytes as they arrive until `need` of them are buffered. */
class Reader {
  #buffer = Buffer.alloc(0);
  #waiting: (() => void) | undefined;
  #ended = false;

  constructor(socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.#buffer = Buffer.concat([this.#buffer, chunk]);
      this.#waiting?.();
    });
    socket.on('close', () => {
      this.#ended = true;
      this.#waiting?.();
    });
  }

  async take(need: number): Promise<Buffer> {
    while (this.#buffer.length < need) {
      if (this.#ended) throw new Error('closed');
      await new Promise<void>((resolve) => (this.#waiting = resolve));
      this.#waiting = undefined;
    }
    const out = this.#buffer.subarray(0, need);
    this.#buffer = this.#buffer.subarray(need);
    return out;
  }

  /** What arrived after the request (the client's first bytes for the tunnel). */
  rest(): Buffer {
    const out = this.#buffer;
    this.#buffer = Buffer.alloc(0);
    return out;
  }
}

async function handshake(socket: Socket, reader: Reader): Promise<{ host: string; port: number } | undefined> {
  const [version, methods] = await reader.take(2);
  if (version !== 5) return undefined;
  const offered = await reader.take(methods!);
  if (!offered.includes(0)) {
    socket.end(Buffer.from([5, 0xff]));
    return undefined;
  }
  socket.write(Buffer.from([5, 0]));
  const [, command, , type] = await reader.take(4);
  let host: string;
  if (type === 1) host = [...(await reader.take(4))].join('.');
  else if (type === 3) host = (await reader.take((await reader.take(1))[0]!)).toString('latin1');
  else if (type === 4) {
    const bytes = await reader.take(16);
    const groups: string[] = [];
    for (let i = 0; i < 16; i += 2) groups.push(bytes.readUInt16BE(i).toString(16));
    host = `[${groups.join(':')}]`;
  } else {
    reply(socket, REPLY.addressNotSupported);
    return undefined;
  }
  const port = (await reader.take(2)).readUInt16BE(0);
  if (command !== 1) {
    reply(socket, REPLY.commandNotSupported);
    return undefined;
  }
  return { host: host.toLowerCase(), port };
}

/** The host as URL.hostname writes it (IPv6 in brackets, canonical), so patterns match it. */
function canonical(host: string): string {
  try {
    return new URL(`http://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}/`).hostname;
  } catch {
    return host;
  }
}

export async function startSocksProxy(options: SocksProxyOptions): Promise<SocksProxy> {
  const timeoutMs = options.connectTimeoutMs ?? 30_000;
  const resolve = options.resolve ??
    (async (name: string) => (await lookup(name, { all: true, verbatim: true })).map((entry) => entry.address));
  const open = new Set<Socket>();
  const server = createServer((client) => {
    open.add(client);
    client.on('close', () => open.delete(client));
    client.on('error', () => client.destroy());
    void serve(client).catch(() => client.destroy());
  });

  async function serve(client: Socket): Promise<void> {
    const reader = new Reader(client);
    const target = await handshake(client, reader);
    if (!target) return void client.end();
    const host = canonical(target.host);
    const first = options.check(host, target.port, []);
    if (!first.allowed) return refuse(client, host, target.port, first.rule);
    const bare = host.startsWith('[') ? host.slice(1, -1) : host;
    let addresses: string[];
    try {
      addresses = isIP(bare) ? [bare] : await withTimeout(resolve(bare), timeoutMs);
      if (addresses.length === 0) throw new Error('no address');
    } catch {
      reply(client, REPLY.hostUnreachable);
      return void client.end();
    }
    const second = options.check(host, target.port, addresses);
    if (!second.allowed) return refuse(client, host, target.port, second.rule);
    // Every address was checked: try them in turn (a name may resolve to ::1 first and the
    // server listen on 127.0.0.1 only).
    for (const address of addresses) {
      const upstream = await dial(address, target.port, timeoutMs);
      if (!upstream) continue;
      if (client.destroyed) return void upstream.destroy();
      open.add(upstream);
      upstream.on('close', () => {
        open.delete(upstream);
        client.destroy();
      });
      upstream.on('error', () => upstream.destroy());
      client.on('close', () => upstream.destroy());
      reply(client, REPLY.succeeded);
      const early = reader.rest();
      if (early.length > 0) upstream.write(early);
      client.removeAllListeners('data');
      client.pipe(upstream);
      upstream.pipe(client);
      return;
    }
    reply(client, REPLY.refused);
    client.end();
  }

  function refuse(client: Socket, host: string, port: number, rule: string): void {
    reply(client, REPLY.notAllowed);
    client.end();
    options.refused(host, port, rule);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `socks5://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A connected socket, or undefined when the address refused or did not answer in time. */
function dial(host: string, port: number, timeoutMs: number): Promise<Socket | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: timeoutMs });
    const fail = () => {
      socket.destroy();
      resolve(undefined);
    };
    socket.once('error', fail);
    socket.once('timeout', fail);
    socket.once('connect', () => {
      socket.off('error', fail);
      socket.off('timeout', fail);
      socket.setTimeout(0);
      resolve(socket);
    });
  });
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timed out')), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
