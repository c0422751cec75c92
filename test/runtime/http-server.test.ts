import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { connect as tcpConnect } from 'node:net';
import WebSocket from 'ws';
import type { Principal } from '../../src/rpc/context.ts';
import type { RpcSocket } from '../../src/rpc/socket.ts';
import { HttpListener, type HttpServerOptions } from '../../src/runtime/http-server.ts';

const TOKENS = ['tok-one-0123456789', 'tok-two-0123456789'];
const ALLOWED_ORIGIN = 'http://app.example:8080';

interface Accepted {
  socket: RpcSocket;
  principal: Principal;
  signal: AbortSignal;
}

interface State {
  server?: HttpListener;
  clients: WebSocket[];
  accepted: Accepted[];
}

const s = suite<State>('http-server', { clients: [], accepted: [] });

s.after.each(async (ctx) => {
  for (const ws of ctx.clients) ws.terminate();
  ctx.clients = [];
  ctx.accepted = [];
  await ctx.server?.close();
  ctx.server = undefined;
});

/** An echo app: replies `<principal>:<text>` to every message. */
async function start(ctx: State, overrides: Partial<HttpServerOptions> = {}): Promise<HttpListener> {
  ctx.server = await HttpListener.listen({
    host: '127.0.0.1',
    port: 0,
    tokens: TOKENS,
    noAuth: false,
    allowOrigins: [ALLOWED_ORIGIN],
    onConnection(socket, principal, signal) {
      ctx.accepted.push({ socket, principal, signal });
      return { onMessage: (text) => socket.send(`${principal.id}:${text}`) };
    },
    ...overrides,
  });
  return ctx.server;
}

type Outcome = { kind: 'open'; ws: WebSocket } | { kind: 'refused'; status: number; body: string };

function dial(ctx: State, url: string, options: WebSocket.ClientOptions = {}): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false, ...options });
    ctx.clients.push(ws);
    ws.on('error', reject);
    ws.once('open', () => resolve({ kind: 'open', ws }));
    ws.once('unexpected-response', (req, res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        resolve({ kind: 'refused', status: res.statusCode ?? 0, body });
        req.destroy();
      });
    });
  });
}

async function open(ctx: State, url: string, options: WebSocket.ClientOptions = {}): Promise<WebSocket> {
  const outcome = await dial(ctx, url, options);
  if (outcome.kind !== 'open') throw new Error(`expected the socket to open, got HTTP ${outcome.status}`);
  return outcome.ws;
}

async function refusedStatus(ctx: State, url: string, options: WebSocket.ClientOptions = {}): Promise<number> {
  const outcome = await dial(ctx, url, options);
  if (outcome.kind === 'open') throw new Error('expected the upgrade to be refused, but the socket opened');
  return outcome.status;
}

function nextMessage(ws: WebSocket): Promise<string> {
  return new Promise((resolve) => ws.once('message', (data: WebSocket.RawData) => resolve(String(data))));
}

function closed(ws: WebSocket): Promise<{ code: number; reason: string }> {
  return new Promise((resolve) => ws.once('close', (code: number, reason: Buffer) => resolve({ code, reason: String(reason) })));
}

function whenAborted(signal: AbortSignal): Promise<void> {
  return signal.aborted ? Promise.resolve() : new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

const withToken = (server: HttpListener, token: string) => `${server.url}?token=${encodeURIComponent(token)}`;

s('listens on a free port and reports it in the URL', async (ctx) => {
  const server = await start(ctx);
  assert.ok(server.port > 0);
  assert.is(server.host, '127.0.0.1');
  assert.is(server.url, `ws://127.0.0.1:${server.port}/`);
});

s('IPv6 loopback: bracketed URL, own origin accepted', async (ctx) => {
  let server: HttpListener;
  try {
    server = await start(ctx, { host: '::1' });
  } catch (error) {
    if (/EADDRNOTAVAIL|EAFNOSUPPORT/.test(String(error))) return; // no IPv6 on this machine
    throw error;
  }
  assert.is(server.url, `ws://[::1]:${server.port}/`);
  const ws = await open(ctx, withToken(server, TOKENS[0]!), { origin: `http://[::1]:${server.port}` });
  ws.send('v6');
  assert.is(await nextMessage(ws), 'token-1:v6');
});

s('401 without a token, no socket opened', async (ctx) => {
  const server = await start(ctx);
  assert.is(await refusedStatus(ctx, server.url), 401);
  assert.is(ctx.accepted.length, 0);
});

s('401 with a wrong token (query or header)', async (ctx) => {
  const server = await start(ctx);
  assert.is(await refusedStatus(ctx, withToken(server, 'tok-one-012345678')), 401);
  assert.is(await refusedStatus(ctx, server.url, { headers: { Authorization: 'Bearer nope' } }), 401);
  assert.is(await refusedStatus(ctx, server.url, { headers: { Authorization: `Basic ${TOKENS[0]}` } }), 401);
  assert.is(ctx.accepted.length, 0);
});

s('token in the query is accepted; each token is its own principal', async (ctx) => {
  const server = await start(ctx);
  const one = await open(ctx, withToken(server, TOKENS[0]!));
  const two = await open(ctx, withToken(server, TOKENS[1]!));
  one.send('hi');
  assert.is(await nextMessage(one), 'token-1:hi');
  two.send('hi');
  assert.is(await nextMessage(two), 'token-2:hi');
  for (const { principal } of ctx.accepted) {
    for (const token of TOKENS) assert.not.ok(principal.id.includes(token));
  }
});

s('token in an Authorization: Bearer header is accepted', async (ctx) => {
  const server = await start(ctx);
  const ws = await open(ctx, server.url, { headers: { Authorization: `Bearer ${TOKENS[1]}` } });
  ws.send('x');
  assert.is(await nextMessage(ws), 'token-2:x');
});

s('403 for a foreign Origin even with a good token', async (ctx) => {
  const server = await start(ctx);
  assert.is(await refusedStatus(ctx, withToken(server, TOKENS[0]!), { origin: 'http://evil.example' }), 403);
  assert.is(await refusedStatus(ctx, withToken(server, TOKENS[0]!), { origin: 'null' }), 403);
  assert.is(ctx.accepted.length, 0);
});

s('an allowed Origin and the server own origin are accepted', async (ctx) => {
  const server = await start(ctx);
  await open(ctx, withToken(server, TOKENS[0]!), { origin: ALLOWED_ORIGIN });
  await open(ctx, withToken(server, TOKENS[0]!), { origin: `http://127.0.0.1:${server.port}` });
  await open(ctx, withToken(server, TOKENS[0]!), { origin: `http://localhost:${server.port}` });
  assert.is(ctx.accepted.length, 3);
});

s('foreign Origin without a token is 403, not 401 (Host and Origin are checked first)', async (ctx) => {
  const server = await start(ctx);
  assert.is(await refusedStatus(ctx, server.url, { origin: 'http://evil.example' }), 403);
});

s('403 for a non-loopback Host header (DNS rebinding)', async (ctx) => {
  const server = await start(ctx);
  const url = withToken(server, TOKENS[0]!);
  assert.is(await refusedStatus(ctx, url, { headers: { Host: 'evil.example' } }), 403);
  assert.is(await refusedStatus(ctx, url, { headers: { Host: `evil.example:${server.port}` } }), 403);
  assert.is(await refusedStatus(ctx, url, { headers: { Host: '127.0.0.1.evil.example' } }), 403);
  assert.is(ctx.accepted.length, 0);
});

s('loopback Host names and the host of an allowed origin pass the Host check', async (ctx) => {
  const server = await start(ctx);
  const url = withToken(server, TOKENS[0]!);
  await open(ctx, url, { headers: { Host: `localhost:${server.port}` } });
  await open(ctx, url, { headers: { Host: `[::1]:${server.port}` } });
  await open(ctx, url, { headers: { Host: `127.1.2.3:${server.port}` } });
  await open(ctx, url, { headers: { Host: 'app.example:8080' } });
  assert.is(ctx.accepted.length, 4);
});

s('only / serves the socket', async (ctx) => {
  const server = await start(ctx);
  assert.is(await refusedStatus(ctx, `${server.url}rpc?token=${TOKENS[0]}`), 404);
});

s('plain HTTP GET gets 426 and never the token back', async (ctx) => {
  const server = await start(ctx);
  const url = `http://127.0.0.1:${server.port}/?token=${TOKENS[0]}`;
  const response = await fetch(url);
  const body = await response.text();
  assert.is(response.status, 426);
  assert.not.ok(body.includes(TOKENS[0]!));
  assert.ok(body.length < 200);
});

s('a message over 1 MiB closes the socket with 1009', async (ctx) => {
  const server = await start(ctx);
  const ws = await open(ctx, withToken(server, TOKENS[0]!));
  const done = closed(ws);
  ws.send('x'.repeat(2 * 1024 * 1024));
  assert.is((await done).code, 1009);
  await whenAborted(ctx.accepted[0]!.signal);
});

s('a message just under the limit still goes through', async (ctx) => {
  const server = await start(ctx, { maxMessageBytes: 64 * 1024 });
  const ws = await open(ctx, withToken(server, TOKENS[0]!));
  const text = 'y'.repeat(64 * 1024 - 10);
  ws.send(text);
  assert.is(await nextMessage(ws), `token-1:${text}`);
});

s('a binary frame closes the socket with 1003', async (ctx) => {
  const server = await start(ctx);
  const ws = await open(ctx, withToken(server, TOKENS[0]!));
  const done = closed(ws);
  ws.send(new Uint8Array([1, 2, 3]));
  assert.is((await done).code, 1003);
});

s('the RpcSocket closes with the given code; send after close is ignored; signal aborts', async (ctx) => {
  const server = await start(ctx);
  const ws = await open(ctx, withToken(server, TOKENS[0]!));
  ws.send('ping');
  await nextMessage(ws);
  const accepted = ctx.accepted[0]!;
  assert.type(accepted.socket.bufferedAmount(), 'number');
  const aborted = whenAborted(accepted.signal);
  const done = closed(ws);
  accepted.socket.close(4000, 'x'.repeat(300));
  const { code, reason } = await done;
  assert.is(code, 4000);
  assert.ok(new TextEncoder().encode(reason).length <= 123);
  await aborted;
  accepted.socket.send('late');
});

s('an invalid close code from the app still drops the socket', async (ctx) => {
  const server = await start(ctx);
  const ws = await open(ctx, withToken(server, TOKENS[0]!));
  const done = closed(ws);
  ctx.accepted[0]!.socket.close(1005, 'reserved code');
  assert.is((await done).code, 1006);
  await whenAborted(ctx.accepted[0]!.signal);
});

s('a malformed HTTP request gets 400 and is dropped', async (ctx) => {
  const server = await start(ctx);
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = tcpConnect({ host: '127.0.0.1', port: server.port }, () => socket.write('NOT A REQUEST\r\n\r\n'));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
  assert.match(answer, /^HTTP\/1\.1 400 /);
});

s('noAuth: no token needed, one principal', async (ctx) => {
  const server = await start(ctx, { tokens: [], noAuth: true });
  const ws = await open(ctx, server.url);
  ws.send('a');
  assert.is(await nextMessage(ws), 'no-auth:a');
  // A foreign origin is still refused without auth.
  assert.is(await refusedStatus(ctx, server.url, { origin: 'http://evil.example' }), 403);
});

s('heartbeat terminates a client that stops answering pings', async (ctx) => {
  const server = await start(ctx, { heartbeatMs: 25 });
  const ws = await open(ctx, withToken(server, TOKENS[0]!), { autoPong: false });
  const { code } = await closed(ws);
  assert.is(code, 1006);
  await whenAborted(ctx.accepted[0]!.signal);
});

s('heartbeat keeps a client that answers pings', async (ctx) => {
  const server = await start(ctx, { heartbeatMs: 10 });
  const ws = await open(ctx, withToken(server, TOKENS[0]!));
  // Three pings answered means at least two heartbeat rounds survived.
  await new Promise<void>((resolve) => {
    let pings = 0;
    ws.on('ping', () => {
      if (++pings === 3) resolve();
    });
  });
  ws.send('still here');
  assert.is(await nextMessage(ws), 'token-1:still here');
});

s('close() closes every socket with 1001, stops listening and is idempotent', async (ctx) => {
  const server = await start(ctx);
  const a = await open(ctx, withToken(server, TOKENS[0]!));
  const b = await open(ctx, withToken(server, TOKENS[1]!));
  const closes = Promise.all([closed(a), closed(b)]);
  const first = server.close();
  const second = server.close();
  assert.is(first, second);
  await first;
  const [ca, cb] = await closes;
  assert.is(ca.code, 1001);
  assert.is(cb.code, 1001);
  assert.ok(ctx.accepted.every((x) => x.signal.aborted));
  const error = await dial(ctx, withToken(server, TOKENS[0]!)).then(
    () => undefined,
    (e: Error & { code?: string }) => e,
  );
  assert.ok(error, 'connecting after close must fail');
});

s('an onConnection that throws closes that socket with 1011', async (ctx) => {
  const server = await start(ctx, {
    onConnection() {
      throw new Error('app not ready');
    },
  });
  const ws = await open(ctx, withToken(server, TOKENS[0]!));
  assert.is((await closed(ws)).code, 1011);
});

s('refuses to start without tokens unless noAuth', async () => {
  let error: unknown;
  try {
    await HttpListener.listen({
      host: '127.0.0.1',
      port: 0,
      tokens: [],
      noAuth: false,
      allowOrigins: [],
      onConnection: () => ({ onMessage() {} }),
    });
  } catch (e) {
    error = e;
  }
  assert.instance(error, Error);
});

s('reports a port already in use', async (ctx) => {
  const server = await start(ctx);
  let error: unknown;
  try {
    await HttpListener.listen({
      host: '127.0.0.1',
      port: server.port,
      tokens: TOKENS,
      noAuth: false,
      allowOrigins: [],
      onConnection: () => ({ onMessage() {} }),
    });
  } catch (e) {
    error = e;
  }
  assert.instance(error, Error);
  assert.match((error as Error).message, /EADDRINUSE/);
});

s.run();
