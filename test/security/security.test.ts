// Each security property of the README's "Guarantees" and docs/PROTOCOL.md §2, §8, §11 as its own
// test, against real servers (and real Chromium where a page is needed): loopback bind, --no-auth
// only on loopback, constant-time token checks, Origin and Host checks, principals isolated on
// every method, upload paths confined, cdp.send off by default, and secrets kept out of
// observations, events, error texts and the server's own logs.
import { Buffer } from 'node:buffer';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, parseConfig } from '../../src/config.ts';
import { type RunningServer, startServer } from '../../src/server.ts';
import { createLogger } from '../../src/util/log.ts';
import { TestClient } from '../helpers/client.ts';
import { type FixtureServer, fixtureServer } from '../helpers/fixture-server.ts';
import { evaluate } from '../helpers/page.ts';
import type { TestServer } from '../helpers/pagewire.ts';
import { IS_DENO, startServerProcess } from '../helpers/server-process.ts';
import { onTeardown } from '../helpers/teardown.ts';
import { type ActResult, nextEvent, type Observation, type OpenRpcMethod, receivedEvents, ref } from '../helpers/wire.ts';

// Tokens with characters that change under URL and JSON encoding, so a leak in any form shows.
const ALICE = `alice/${crypto.randomUUID()}+"q"=`;
const BOB = `bob%${crypto.randomUUID()}\\b`;
const ALLOWED_ORIGIN = 'http://app.example:8080';
const PASSWORD = 'Zq7-horse-Battery-9x';
const JWT = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';
const API_KEY = 'sk-live-abcdefghijklmnopqrstuvwx';

const s = suite('security');

/** The main server of this file: two principals, an uploads root, raw CDP on, every log line kept. */
let main: TestServer;
const logLines: string[] = [];
let fixtures: FixtureServer;
let base: string;
let uploadsRoot: string;
let alice: TestClient;
let bob: TestClient;
let aliceSession: string;

const urlWith = (server: RunningServer, token: string) => `${server.url}?token=${encodeURIComponent(token)}`;
const portOf = (server: RunningServer) => Number(new URL(server.url).port);

function runtimeName(): string {
  const deno = (globalThis as { Deno?: { version: { deno: string } } }).Deno;
  return deno ? `deno ${deno.version.deno}` : `node ${process.version}`;
}

/** A server in this process with its own flags; its log lines go to `sink` (default: dropped). */
async function serverWith(argv: string[], sink?: (line: string) => void): Promise<TestServer> {
  const config = parseConfig(['--port', '0', ...argv], {});
  // As main.ts does: the configured level, and the server's tokens redacted.
  const log = createLogger({ level: sink ? config.logLevel : 'silent', sink, redact: config.tokens });
  const server = await startServer(config, { runtime: runtimeName(), log });
  onTeardown(() => server.close());
  const token = config.tokens[0] ?? '';
  const url = config.noAuth ? server.url : urlWith(server, token);
  return { server, url, token, connect: () => TestClient.connect(url) };
}

/**
 * A WebSocket upgrade written by hand on a TCP socket, so that any Host header can be sent (an
 * HTTP client library would put the real one). Resolves with the status code of the answer.
 */
function rawUpgrade(port: number, headers: Record<string, string | undefined>, path = '/'): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect({ host: '127.0.0.1', port });
    let received = '';
    socket.setEncoding('utf8');
    socket.on('error', reject);
    socket.on('data', (chunk: string) => {
      received += chunk;
      const end = received.indexOf('\r\n');
      if (end === -1) return;
      const status = /^HTTP\/1\.1 (\d{3})/.exec(received.slice(0, end));
      socket.destroy();
      if (status) resolve(Number(status[1]));
      else reject(new Error(`not an HTTP answer: ${JSON.stringify(received.slice(0, 100))}`));
    });
    socket.on('end', () => reject(new Error(`connection closed without an answer: ${JSON.stringify(received)}`)));
    socket.on('connect', () => {
      const lines = [`GET ${path} HTTP/1.1`];
      const all: Record<string, string | undefined> = {
        upgrade: 'websocket',
        connection: 'Upgrade',
        'sec-websocket-key': Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('base64'),
        'sec-websocket-version': '13',
        ...headers,
      };
      for (const [name, value] of Object.entries(all)) if (value !== undefined) lines.push(`${name}: ${value}`);
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    });
  });
}

/** Listening TCP sockets of this machine on `port` (Linux /proc), as [address, port] of the local side. */
function listenersOn(port: number): string[] {
  const out: string[] = [];
  for (const [file, v6] of [['/proc/net/tcp', false], ['/proc/net/tcp6', true]] as const) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 4 || fields[3] !== '0A') continue; // 0A: LISTEN
      const [addrHex, portHex] = fields[1]!.split(':');
      if (parseInt(portHex!, 16) !== port) continue;
      out.push(v6 ? decodeIpv6(addrHex!) : decodeIpv4(addrHex!));
    }
  }
  return out;
}
function decodeIpv4(hex: string): string {
  // Little-endian 32-bit word.
  return [3, 2, 1, 0].map((i) => parseInt(hex.slice(i * 2, i * 2 + 2), 16)).join('.');
}
function decodeIpv6(hex: string): string {
  // Four little-endian 32-bit words.
  const bytes: number[] = [];
  for (let w = 0; w < 4; w++) for (const i of [3, 2, 1, 0]) bytes.push(parseInt(hex.slice(w * 8 + i * 2, w * 8 + i * 2 + 2), 16));
  const groups = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  const text = groups.join(':');
  if (text === '0:0:0:0:0:0:0:1') return '::1';
  if (text === '0:0:0:0:0:0:0:0') return '::';
  const mapped = /^0:0:0:0:0:ffff:([0-9a-f]+):([0-9a-f]+)$/.exec(text);
  if (mapped) {
    const hi = parseInt(mapped[1]!, 16);
    const lo = parseInt(mapped[2]!, 16);
    return `::ffff:${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return text;
}

const consoleEvents = (client: TestClient, sessionId: string) =>
  receivedEvents(client, 'console').filter((p) => p.session_id === sessionId);

/** Every place a string may hide in what a model reads from an observation. */
function observationText(o: Observation): string {
  return JSON.stringify({ tree: o.tree, text: o.text, title: o.title, url: o.url, elements: o.elements });
}

s.before(async () => {
  fixtures = await fixtureServer();
  base = realpathSync(mkdtempSync(join(tmpdir(), 'pagewire-security-')));
  uploadsRoot = join(base, 'uploads');
  mkdirSync(uploadsRoot);
  writeFileSync(join(uploadsRoot, 'inside.txt'), 'inside');
  writeFileSync(join(base, 'x'), 'outside the uploads root');
  symlinkSync(join(base, 'x'), join(uploadsRoot, 'link.txt')); // a file inside that leads out
  symlinkSync(base, join(uploadsRoot, 'dirlink')); // a folder inside that leads out
  symlinkSync(join(uploadsRoot, 'inside.txt'), join(uploadsRoot, 'inner-link.txt')); // stays inside
  onTeardown(() => rmSync(base, { recursive: true, force: true }));
  main = await serverWith(
    [
      '--token',
      ALICE,
      '--token',
      BOB,
      '--uploads',
      uploadsRoot,
      '--allow-raw-cdp',
      '--allow-origin',
      ALLOWED_ORIGIN,
      '--log-level',
      'debug',
    ],
    (line) => logLines.push(line),
  );
  alice = await TestClient.connect(urlWith(main.server, ALICE));
  bob = await TestClient.connect(main.server.url, { headers: { authorization: `Bearer ${BOB}` } });
  aliceSession = (await alice.call('session.create', { name: 'alice-private' })).session_id;
});

s.after(() => {
  alice?.close();
  bob?.close();
});

// ---- binding ----------------------------------------------------------------------------------

s('loopback by default: 127.0.0.1 in the URL and the ready line, and the listening socket is loopback only', async () => {
  assert.is(parseConfig([], {}).host, '127.0.0.1', 'the default host');
  const port = portOf(main.server);
  assert.is(new URL(main.server.url).hostname, '127.0.0.1');
  const listening = listenersOn(port);
  if (listening.length > 0) assert.equal(listening, ['127.0.0.1'], `the listening socket on port ${port}`);
  // Not reachable through any other address of this machine.
  const external = Object.values(networkInterfaces())
    .flat()
    .filter((a) => a !== undefined && a.family === 'IPv4' && !a.internal)
    .map((a) => a!.address);
  for (const address of external) {
    const outcome = await new Promise<string>((resolve) => {
      const socket = tcpConnect({ host: address, port });
      socket.once('connect', () => {
        socket.destroy();
        resolve('connected');
      });
      socket.once('error', (error: Error & { code?: string }) => resolve(error.code ?? error.message));
    });
    assert.is.not(outcome, 'connected', `port ${port} must not answer on ${address}`);
  }
  // The process prints a loopback URL too.
  const started = await startServerProcess(['--port', '0', '--token', 'loopback-check-token']);
  assert.match(started.line, /^pagewire listening on ws:\/\/127\.0\.0\.1:\d+\/\?token=loopback-check-token$/);
  started.kill('SIGTERM');
  assert.is(await started.exit, 0);
});

s('--no-auth is refused on a non-loopback host: ConfigError, and the process exits non-zero without listening', async () => {
  for (const host of ['0.0.0.0', '::', '192.168.1.10', 'example.com', '127.0.0.1.nip.io']) {
    assert.throws(() => parseConfig(['--no-auth', '--host', host], {}), (error: unknown) => error instanceof ConfigError, host);
    assert.throws(
      () => parseConfig([], { PAGEWIRE_NO_AUTH: 'true', PAGEWIRE_HOST: host }),
      (error: unknown) => error instanceof ConfigError,
      `env ${host}`,
    );
  }
  for (const host of ['127.0.0.1', '::1', 'localhost']) {
    assert.ok(parseConfig(['--no-auth', '--host', host], {}).noAuth, `--no-auth allowed on ${host}`);
  }
  try {
    const started = await startServerProcess(['--port', '0', '--no-auth', '--host', '0.0.0.0']);
    started.kill('SIGKILL');
    assert.unreachable(`the server started: ${started.line}`);
  } catch (error) {
    const code = /server exited \((\w+)\)/.exec(String(error))?.[1];
    assert.ok(code !== undefined && code !== '0' && code !== 'null', `exits with a non-zero code (${String(error).slice(0, 200)})`);
    assert.match(String(error), /no-auth/);
  }
});

// ---- tokens ----------------------------------------------------------------------------------

s(
  'token checks: near misses and odd lengths are 401 without harm; every token is compared, through timingSafeEqual on equal-length digests',
  async () => {
    const tokens = ['tok-first-0123456789abcdef', 'tok-second-0123456789abcdef', 'tok-third-0123456789abcdef'];
    const server = await serverWith(tokens.flatMap((t) => ['--token', t]));
    const target = tokens[1]!;
    const nearMisses = [
      target.slice(0, -1) + (target.endsWith('f') ? 'e' : 'f'), // same length, last character differs
      target.slice(0, -1), // a prefix
      `${target}x`, // an extension
      target.toUpperCase(),
      `${target}\u0000`,
      '',
      'x'.repeat(4 * 1024), // far longer
      '\u{1F600}'.repeat(10),
    ];
    for (const candidate of nearMisses) {
      assert.is(
        await TestClient.refusalStatus(urlWith(server.server, candidate)),
        401,
        `query token ${JSON.stringify(candidate.slice(0, 40))}`,
      );
      // deno-lint-ignore no-control-regex -- NUL is one of the characters under test
      if (candidate !== '' && !/[\u0000\u{1F600}]/u.test(candidate)) {
        assert.is(
          await TestClient.refusalStatus(server.server.url, { headers: { authorization: `Bearer ${candidate}` } }),
          401,
          `bearer token ${JSON.stringify(candidate.slice(0, 40))}`,
        );
      }
    }
    // Longer than an HTTP request line may be: refused by the HTTP layer, still no socket.
    const huge = await TestClient.refusalStatus(urlWith(server.server, 'x'.repeat(64 * 1024)));
    assert.ok([400, 401, 414, 431].includes(huge), `a 64 KiB token: ${huge}`);
    for (const token of tokens) {
      assert.is(await TestClient.refusalStatus(urlWith(server.server, token)), 101, 'each configured token works');
    }
    const client = await server.connect();
    assert.is((await client.call('server.info')).name, 'pagewire', 'the server is unharmed');
    client.close();

    // Code level: count timingSafeEqual calls per upgrade. Node lets a test replace a built-in
    // export (syncBuiltinESMExports); where a runtime does not, the behaviour above stands alone.
    const cryptoModule = (await import('node:crypto')).default as unknown as { timingSafeEqual: (a: Uint8Array, b: Uint8Array) => boolean };
    const moduleApi = (await import('node:module')) as unknown as { syncBuiltinESMExports?: () => void };
    const original = cryptoModule.timingSafeEqual;
    const calls: Array<[number, number, boolean]> = [];
    const spy = (a: Uint8Array, b: Uint8Array) => {
      const equal = original(a, b);
      calls.push([a.byteLength, b.byteLength, equal]);
      return equal;
    };
    try {
      cryptoModule.timingSafeEqual = spy;
      moduleApi.syncBuiltinESMExports?.();
      const live = (await import('node:crypto')).timingSafeEqual;
      if (live !== spy) {
        if (!IS_DENO) assert.unreachable('Node should allow replacing a built-in export for this check');
        return;
      }
      for (
        const [candidate, matchIndex] of [
          [tokens[0]!, 0],
          [tokens[2]!, 2],
          [nearMisses[0]!, -1],
          [nearMisses[6]!, -1],
        ] as const
      ) {
        calls.length = 0;
        const status = await TestClient.refusalStatus(urlWith(server.server, candidate));
        assert.is(status, matchIndex === -1 ? 401 : 101);
        assert.is(calls.length, tokens.length, `compared against every configured token, even after a match (${calls.length} comparisons)`);
        assert.ok(calls.every(([a, b]) => a === 32 && b === 32), `equal-length SHA-256 digests: ${JSON.stringify(calls)}`);
        assert.equal(calls.map(([, , equal]) => equal), tokens.map((_, i) => i === matchIndex));
      }
    } finally {
      cryptoModule.timingSafeEqual = original;
      moduleApi.syncBuiltinESMExports?.();
    }
  },
);

// ---- Origin and Host -------------------------------------------------------------------------

s("Origin allowlist: a foreign origin is 403 (whatever the token), an allowed origin and the server's own are accepted", async () => {
  const port = portOf(main.server);
  const good = urlWith(main.server, ALICE);
  for (
    const origin of [
      'http://evil.example',
      'null',
      `http://127.0.0.1:${port + 1}`,
      `https://127.0.0.1:${port}`,
      'http://app.example:8081',
      'file://',
    ]
  ) {
    assert.is(await TestClient.refusalStatus(good, { origin }), 403, `origin ${origin}`);
    assert.is(
      await TestClient.refusalStatus(urlWith(main.server, 'wrong'), { origin }),
      403,
      `origin ${origin} with a wrong token: 403 before 401`,
    );
  }
  for (const origin of [ALLOWED_ORIGIN, `http://127.0.0.1:${port}`, `http://localhost:${port}`]) {
    assert.is(await TestClient.refusalStatus(good, { origin }), 101, `origin ${origin}`);
  }
  assert.is(
    await TestClient.refusalStatus(urlWith(main.server, 'wrong'), { origin: ALLOWED_ORIGIN }),
    401,
    'an allowed origin still needs the token',
  );
});

s(
  "Host header against DNS rebinding: a foreign name is 403 even with the token; loopback names and allowed origins' hosts pass",
  async () => {
    const port = portOf(main.server);
    const path = `/?token=${encodeURIComponent(ALICE)}`;
    for (
      const host of [
        `evil.example:${port}`,
        'evil.example',
        `localhost.evil.example:${port}`,
        `127.0.0.1.nip.io:${port}`,
        `app.example.evil:${port}`,
        `[::2]:${port}`,
      ]
    ) {
      assert.is(await rawUpgrade(port, { host }, path), 403, `Host: ${host}`);
    }
    assert.is.not(await rawUpgrade(port, {}, path), 101, 'no Host header at all');
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, `LOCALHOST:${port}`, `app.example:${port}`]) {
      assert.is(await rawUpgrade(port, { host }, path), 101, `Host: ${host}`);
    }
    assert.is(await rawUpgrade(port, { host: `localhost:${port}` }, '/?token=wrong'), 401, 'a good Host still needs the token');
    assert.is(
      await rawUpgrade(port, { host: `evil.example:${port}` }, '/?token=wrong'),
      403,
      'a bad Host is refused before the token is looked at',
    );
  },
);

// ---- principals --------------------------------------------------------------------------------

s("another principal's session is forbidden for every method that takes a session_id, and is not listed", async () => {
  const doc = await alice.call('rpc.discover');
  const withSession = doc.methods.filter((m) => m.params.some((p) => p.name === 'session_id'));
  const skipped = doc.methods.filter((m) => !withSession.includes(m)).map((m) => m.name);
  assert.ok(withSession.length >= 15, `methods taking session_id: ${withSession.map((m) => m.name).join(', ')}`);
  assert.ok(withSession.some((m) => m.name === 'cdp.send') && withSession.some((m) => m.name === 'cancel'), 'cdp.send and cancel included');
  for (const method of withSession) {
    const params = plausibleParams(method);
    const error = await bob.callError(method.name, params);
    assert.is(error.data?.error_type, 'forbidden', `${method.name} ${JSON.stringify(params)}: ${JSON.stringify(error)}`);
    assert.is(error.code, -32001, method.name);
  }
  assert.equal((await bob.call('session.list')).sessions, [], 'bob sees no session');
  const mine = await alice.call('session.list');
  assert.equal(mine.sessions.map((x) => x.session_id), [aliceSession], "alice's session survived bob's session.close and cancel");
  assert.is((await alice.call('tabs.list', { session_id: aliceSession })).tabs.length, 1, "and bob's tabs.new added no tab");
  // The same principal on another connection may use it (§2): the check is the token, not the socket.
  const aliceAgain = await TestClient.connect(main.server.url, { headers: { authorization: `Bearer ${ALICE}` } });
  assert.is((await aliceAgain.call('tabs.list', { session_id: aliceSession })).tabs.length, 1);
  aliceAgain.close();
  assert.ok(skipped.includes('server.info') && skipped.includes('session.create'), `skipped: ${skipped.join(', ')}`);
});

/** The least a method needs to pass its schema, aimed at alice's session. */
function plausibleParams(method: OpenRpcMethod): Record<string, unknown> {
  const params: Record<string, unknown> = { session_id: aliceSession };
  for (const p of method.params) {
    if (p.name === 'session_id' || !p.required) continue;
    params[p.name] = plausibleValue(p.name, p.schema);
  }
  if (method.name === 'act') Object.assign(params, { state_id: 'st_anything', action: 'click', ref: '@1' });
  // Exactly one of its optional conditions is required.
  if (method.name === 'wait') Object.assign(params, { text: 'anything' });
  return params;
}

function plausibleValue(name: string, schema: Record<string, unknown>): unknown {
  if (Array.isArray(schema['enum'])) return schema['enum'][0];
  if (schema['const'] !== undefined) return schema['const'];
  switch (schema['type']) {
    case 'boolean':
      return true;
    case 'integer':
    case 'number':
      return typeof schema['minimum'] === 'number' ? schema['minimum'] : 1;
    case 'array':
      return [];
    case 'object':
      return {};
    default: {
      const pattern = typeof schema['pattern'] === 'string' ? schema['pattern'] : '';
      if (pattern.includes('@')) return '@1';
      if (pattern) return 'Runtime.evaluate';
      return name === 'url' ? 'about:blank' : 'x';
    }
  }
}

// ---- uploads -----------------------------------------------------------------------------------

s('upload paths are confined to --uploads, symlinks included: forbidden and nothing set; a file inside is uploaded', async () => {
  const { target_id } = await alice.call('tabs.new', { session_id: aliceSession, url: fixtures.url('/act.html') });
  const filesOnInput = () => evaluate<number>(main, target_id, `document.getElementById('upload').files.length`);
  const upload = async (paths: string[]): Promise<ActResult> => {
    const o = await alice.call('observe', { session_id: aliceSession });
    return alice.call('act', { session_id: aliceSession, state_id: o.state_id, action: 'upload', ref: ref(o, 'Choose File'), paths });
  };
  const outside = join(base, 'x');
  for (
    const paths of [
      ['../x'],
      [outside],
      ['link.txt'],
      [join(uploadsRoot, 'link.txt')],
      ['dirlink/x'],
      ['dirlink/uploads/../x'],
      [`${uploadsRoot}/../x`],
      ['inside.txt/../../x'],
      ['/etc/passwd'],
    ]
  ) {
    const r = await upload(paths);
    assert.is(r.error_type, 'forbidden', `${JSON.stringify(paths)}: ${JSON.stringify(r).slice(0, 300)}`);
    assert.is(r.status, 'action_failed');
    assert.is(await filesOnInput(), 0, `no file set for ${JSON.stringify(paths)}`);
    assert.not.ok(
      (r.error_text ?? '').includes(outside) && !paths.includes(outside),
      `the error names the path as given, not where it leads: ${r.error_text}`,
    );
  }
  const good = await upload(['inside.txt']);
  assert.is(good.status, 'completed', JSON.stringify(good).slice(0, 300));
  assert.is(await filesOnInput(), 1);
  assert.is(await evaluate<string>(main, target_id, `document.getElementById('upload').files[0].name`), 'inside.txt');
  const viaInnerLink = await upload(['inner-link.txt']);
  assert.is(viaInnerLink.status, 'completed', 'a symlink that stays inside is fine');
  await alice.call('tabs.close', { session_id: aliceSession, target_id });
});

// ---- raw CDP -----------------------------------------------------------------------------------

s('cdp.send does not exist without --allow-raw-cdp (method_not_found, not in rpc.discover); with it, it is listed and works', async () => {
  const plain = await serverWith([]);
  const client = await plain.connect();
  const names = (await client.call('rpc.discover')).methods.map((m) => m.name);
  assert.not.ok(names.includes('cdp.send'));
  for (const params of [{ method: 'Runtime.evaluate', params: { expression: '1' } }, { method: 'Browser.getVersion' }, {}]) {
    const error = await client.callError('cdp.send', params);
    assert.is(error.data?.error_type, 'method_not_found');
    assert.is(error.code, -32601);
  }
  const batch = JSON.parse(
    await client.sendRaw(JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'cdp.send', params: { method: 'Browser.getVersion' } }])),
  );
  assert.is(batch[0].error.data.error_type, 'method_not_found');
  assert.is(plain.server.host.launches, 0, 'nothing reached a browser');
  client.close();

  const listed = (await alice.call('rpc.discover')).methods.map((m) => m.name);
  assert.ok(listed.includes('cdp.send'));
  const result = await alice.call<{ result: { value: number } }>('cdp.send', {
    session_id: aliceSession,
    method: 'Runtime.evaluate',
    params: { expression: '6 * 7', returnByValue: true },
  });
  assert.is(result.result.value, 42);
});

// ---- secrets -------------------------------------------------------------------------------------

s('a password typed through act is absent from observations, act results and error texts', async () => {
  await alice.call('tabs.new', { session_id: aliceSession, url: fixtures.url('/form.html') });
  let o = await alice.call('observe', { session_id: aliceSession });
  const typed = await alice.call('act', {
    session_id: aliceSession,
    state_id: o.state_id,
    action: 'type',
    ref: ref(o, 'Password'),
    text: PASSWORD,
    clear_first: true,
  });
  assert.is(typed.status, 'completed', JSON.stringify(typed).slice(0, 300));
  assert.not.ok(JSON.stringify(typed).includes(PASSWORD), 'the act result');
  o = await alice.call('observe', { session_id: aliceSession, include_text: true });
  const seen = observationText(o);
  for (const secret of [PASSWORD, 'hunter2-prefilled', 'prefilled-secret-value']) {
    assert.not.ok(seen.includes(secret), `observe shows ${secret}`);
  }
  const field = o.elements.find((e) => e.name === 'Password')!;
  assert.is(field?.has_value, true, 'has_value tells that a value is set');
  // Failures whose texts could quote the page or the request.
  const failures = [
    await alice.call('act', {
      session_id: aliceSession,
      state_id: o.state_id,
      action: 'type',
      ref: ref(o, 'Password'),
      text: PASSWORD,
      clear_first: true,
      expect: { selector: '#password', text: PASSWORD },
    }),
  ];
  const next = failures[0]!.fresh_state ?? (await alice.call('observe', { session_id: aliceSession }));
  failures.push(
    await alice.call('act', {
      session_id: aliceSession,
      state_id: next.state_id,
      action: 'type',
      ref: ref(next, 'Password'),
      text: PASSWORD,
      wait_for: { text: PASSWORD },
      timeout_ms: 800,
    }),
    await alice.call('act', {
      session_id: aliceSession,
      state_id: next.state_id,
      action: 'type',
      ref: ref(next, 'Password'),
      text: PASSWORD,
    }), // stale state
  );
  for (const r of failures) {
    assert.ok(r.status !== 'completed', `a failure: ${JSON.stringify(r).slice(0, 200)}`);
    assert.not.ok(JSON.stringify(r).includes(PASSWORD), `act result ${r.status}/${r.error_type}: ${r.error_text}`);
  }
});

s('a page that logs and shows the typed password: console events, tree, text, names and title say [redacted]', async () => {
  await alice.call('events.subscribe', { session_id: aliceSession, kinds: ['console'] });
  await alice.call('tabs.new', { session_id: aliceSession, url: fixtures.url('/password-echo.html') });
  let o = await alice.call('observe', { session_id: aliceSession });
  const typed = await alice.call('act', {
    session_id: aliceSession,
    state_id: o.state_id,
    action: 'type',
    ref: ref(o, 'Password'),
    text: PASSWORD,
  });
  o = typed.fresh_state!;
  const shown = await alice.call('act', { session_id: aliceSession, state_id: o.state_id, action: 'click', ref: ref(o, 'Show password') });
  o = shown.fresh_state!;
  const logged = await alice.call('act', { session_id: aliceSession, state_id: o.state_id, action: 'click', ref: ref(o, 'Log password') });
  const final = await nextEvent(alice, 'console', (event) => event.data.text.startsWith('final password:'));
  assert.is(final.data.text, 'final password: [redacted]');
  const events = consoleEvents(alice, aliceSession);
  assert.ok(events.length >= PASSWORD.length, 'the page logged on every keystroke');
  for (const event of events) assert.not.ok(String(event.data['text']).includes(PASSWORD), `console event ${JSON.stringify(event.data)}`);
  for (const r of [typed, shown, logged]) assert.not.ok(JSON.stringify(r).includes(PASSWORD), 'act results and their fresh states');
  const observed = await alice.call('observe', { session_id: aliceSession, include_text: true });
  assert.not.ok(observationText(observed).includes(PASSWORD), observationText(observed));
  assert.match(observed.tree, /you typed \[redacted\]/, 'the mirrored text is redacted, not dropped');
  assert.match(observed.text ?? '', /\[redacted\]/);
});

s('an element that shows the typed password over a control: the hit of click_intercepted says [redacted]', async () => {
  await alice.call('tabs.new', { session_id: aliceSession, url: fixtures.url('/password-echo.html') });
  let o = await alice.call<Observation>('observe', { session_id: aliceSession });
  o = (await alice.call<ActResult>('act', {
    session_id: aliceSession,
    state_id: o.state_id,
    action: 'type',
    ref: ref(o, 'Password'),
    text: PASSWORD,
  })).fresh_state!;
  o =
    (await alice.call<ActResult>('act', { session_id: aliceSession, state_id: o.state_id, action: 'click', ref: ref(o, 'Show password') }))
      .fresh_state!;
  const covered = await alice.call<ActResult>('act', {
    session_id: aliceSession,
    state_id: o.state_id,
    action: 'check',
    ref: ref(o, 'Keep me signed in'),
    checked: true,
  });
  assert.is(covered.error_type, 'click_intercepted');
  assert.equal({ role: covered.hit?.role, name: covered.hit?.name, tag: covered.hit?.tag }, {
    role: 'button',
    name: '[redacted]',
    tag: 'span',
  });
  assert.not.ok(JSON.stringify(covered).includes(PASSWORD), JSON.stringify(covered.hit));
});

s('a JWT and an sk-live key on a page do not appear in observations or console events', async () => {
  const { target_id } = await alice.call('tabs.new', { session_id: aliceSession, url: fixtures.url('/secrets.html?session=abc123#frag') });
  const o = await alice.call('observe', { session_id: aliceSession, include_text: true });
  const seen = observationText(o);
  for (const secret of [JWT, API_KEY, 'abc123', 'textarea-secret-content', 'prefilled-secret-value']) {
    assert.not.ok(seen.includes(secret), `observe shows ${secret}`);
  }
  assert.match(o.tree, /\[redacted\]/);
  const before = consoleEvents(alice, aliceSession).length;
  await evaluate(
    main,
    target_id,
    `console.log(document.getElementById('jwt').textContent); console.warn('key', ${JSON.stringify(API_KEY)}); console.error(${
      JSON.stringify(`Bearer ${JWT}`)
    }); console.log('secrets done')`,
  );
  await nextEvent(alice, 'console', (event) => event.data.text === 'secrets done');
  const events = consoleEvents(alice, aliceSession).slice(before);
  assert.is(events.length, 4);
  for (const event of events) {
    const text = String(event.data['text']);
    assert.not.ok(text.includes(JWT) || text.includes(API_KEY) || text.includes(JWT.split('.')[2]!), `console event ${text}`);
  }
});

s("the server's own log (debug level) holds no token and no secret outside the raw CDP trace", async () => {
  // Failed upgrades with near-miss tokens are logged too: the attempts must not show either.
  const misses = [`${ALICE}x`, ALICE.slice(0, -1)];
  for (const miss of misses) assert.is(await TestClient.refusalStatus(urlWith(main.server, miss)), 401);
  assert.is(await TestClient.refusalStatus(main.server.url, { headers: { authorization: `Bearer ${BOB}y` } }), 401);
  assert.ok(logLines.length > 50, `debug logging captured (${logLines.length} lines)`);
  assert.ok(logLines.some((line) => line.includes('upgrade refused')), 'refused upgrades are logged');
  const forms = (secret: string) => [secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)];
  for (const token of [ALICE, BOB, ...misses, `${BOB}y`]) {
    for (const form of forms(token)) {
      const leaks = logLines.filter((line) => line.includes(form));
      assert.equal(leaks.slice(0, 3), [], `token form ${JSON.stringify(form)} in the log`);
    }
  }
  for (const secret of [JWT, API_KEY]) {
    assert.equal(logLines.filter((line) => line.includes(secret)).slice(0, 3), [], `${secret.slice(0, 12)}… in the log`);
  }
  const outsideTrace = logLines.filter((line) => !line.startsWith('[pagewire] debug cdp:'));
  assert.equal(outsideTrace.filter((line) => line.includes(PASSWORD)).slice(0, 3), [], 'the typed password in the log');
});

// Gaps found while writing this file, fixed since: each stays a test.
{
  s('the debug CDP trace hides typed passwords, even when a page echoes them', () => {
    const leaks = logLines.filter((line) => line.includes(PASSWORD));
    assert.equal(leaks.slice(0, 3), []);
  });

  s('tabs.list titles are scrubbed of typed passwords', async () => {
    const { tabs } = await alice.call('tabs.list', { session_id: aliceSession });
    assert.not.ok(JSON.stringify(tabs).includes(PASSWORD));
  });

  s('a page that logs a password field on every keystroke leaks no prefix of it (4 characters and longer)', () => {
    const texts = consoleEvents(alice, aliceSession).map((e) => String(e.data['text']));
    assert.not.ok(texts.some((text) => text.includes(PASSWORD.slice(0, -1))));
  });
}

s.run();
