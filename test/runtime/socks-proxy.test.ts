// The context proxy (src/runtime/socks-proxy.ts) spoken to by hand, as Chromium speaks SOCKS5:
// allowed tunnels carry bytes both ways, refused ones are answered "not allowed" before anything
// is resolved or connected, and a name is checked on the addresses it resolves to.
import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type SocksProxy, startSocksProxy } from '../../src/runtime/socks-proxy.ts';
import { DomainPolicy, PolicyChain } from '../../src/sessions/domain-policy.ts';

const s = suite('socks proxy');

let echo: Server;
let echoPort: number;
const refusals: string[] = [];
let proxy: SocksProxy;
const resolved: string[] = [];

s.before(async () => {
  echo = createServer((socket) => socket.on('data', (data) => socket.write(`echo:${data}`)));
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  echoPort = (echo.address() as AddressInfo).port;
  const policy = new PolicyChain([
    new DomainPolicy('server', { block: ['blocked.test'], blockPrivateNetwork: true, allow: ['*.test', '127.0.0.1'] }),
  ]);
  // A resolver of our own: no DNS traffic leaves the machine.
  const names: Record<string, string[]> = {
    'public.test': ['127.0.0.1'],
    'intranet.test': ['10.1.2.3'],
    'v6first.test': ['::1', '127.0.0.1'],
  };
  proxy = await startSocksProxy({
    check: (host, port, addresses) => {
      // public.test stands for a public site: its address is only where this test's echo server listens.
      const seen = host === 'public.test' ? [] : addresses;
      return policy.check({ scheme: undefined, host, port }, seen);
    },
    refused: (host, port, rule) => refusals.push(`${host}:${port} ${rule}`),
    resolve: async (name) => {
      resolved.push(name);
      return names[name] ?? [];
    },
  });
});

s.after(async () => {
  await proxy.close();
  await new Promise<void>((resolve) => echo.close(() => resolve()));
});

/** A SOCKS5 CONNECT to a domain name; resolves with the reply code and the socket. */
function socksConnect(host: string, port: number): Promise<{ code: number; socket: Socket }> {
  const { port: proxyPort } = new URL(proxy.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(proxyPort), '127.0.0.1');
    let stage = 0;
    socket.on('error', reject);
    socket.on('data', (data: Buffer) => {
      if (stage === 0) {
        stage = 1;
        const name = Buffer.from(host);
        const request = Buffer.concat([Buffer.from([5, 1, 0, 3, name.length]), name, Buffer.from([port >> 8, port & 0xff])]);
        socket.write(request);
      } else if (stage === 1) {
        stage = 2;
        socket.removeAllListeners('data');
        resolve({ code: data[1]!, socket });
      }
    });
    socket.on('connect', () => socket.write(Buffer.from([5, 1, 0])));
  });
}

function roundTrip(socket: Socket, text: string): Promise<string> {
  return new Promise((resolve) => {
    socket.once('data', (data: Buffer) => resolve(data.toString()));
    socket.write(text);
  });
}

s('an allowed name: resolved here, connected, and bytes go both ways', async () => {
  const { code, socket } = await socksConnect('public.test', echoPort);
  assert.is(code, 0);
  assert.is(await roundTrip(socket, 'hello'), 'echo:hello');
  socket.destroy();
});

s('a blocked name is refused before it is resolved, and the refusal is reported', async () => {
  resolved.length = 0;
  const { code, socket } = await socksConnect('blocked.test', echoPort);
  assert.is(code, 2, 'connection not allowed by ruleset');
  assert.equal(resolved, [], 'never resolved');
  assert.is(refusals.at(-1), `blocked.test:${echoPort} --block-domain blocked.test`);
  socket.destroy();
});

s('a name that resolves to a private address is refused under --block-private-network', async () => {
  const { code, socket } = await socksConnect('intranet.test', 443);
  assert.is(code, 2);
  assert.is(refusals.at(-1), 'intranet.test:443 --block-private-network');
  socket.destroy();
});

s('an address an allow rule names exactly is reached', async () => {
  const direct = await socksConnect('127.0.0.1', echoPort);
  assert.is(direct.code, 0);
  assert.is(await roundTrip(direct.socket, 'x'), 'echo:x');
  direct.socket.destroy();
});

s('every checked address is tried in turn (a name whose first address, ::1, has no listener)', async () => {
  const open = await startSocksProxy({ check: () => ({ allowed: true }), refused: () => {}, resolve: async () => ['::1', '127.0.0.1'] });
  const saved = proxy;
  proxy = open;
  try {
    const { code, socket } = await socksConnect('dual.test', echoPort);
    assert.is(code, 0);
    assert.is(await roundTrip(socket, 'y'), 'echo:y');
    socket.destroy();
  } finally {
    proxy = saved;
    await open.close();
  }
});

s.run();
