// Browsers from a farm (PROTOCOL.md §1 "Browsers from endpoints"): three Chromiums the test starts
// itself with a DevTools port on loopback, one pagewire server with three --connect. Sessions
// spread over them; a killed farm browser ends only its own sessions, at once; the endpoint comes
// back when a browser listens on its port again; a client names an endpoint only under
// --allow-endpoint; and pagewire never closes a farm browser.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { type AddressInfo, connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { suite } from 'uvu';
import { connect } from '../../src/client/index.ts';
import * as assert from 'uvu/assert';
import { type DebuggableBrowser, launchDebuggableBrowser } from '../helpers/debuggable-browser.ts';
import { type FixtureServer, fixtureServer } from '../helpers/fixture-server.ts';
import { startTestServer } from '../helpers/pagewire.ts';
import { onTeardown } from '../helpers/teardown.ts';
import { parseConfig } from '../../src/config.ts';
import { readTextFile } from '../../src/runtime/text-files.ts';
import { startServer } from '../../src/server.ts';
import { createLogger } from '../../src/util/log.ts';
import { TestClient } from '../helpers/client.ts';
import { isAlive } from '../helpers/processes.ts';
import { waitUntil } from '../helpers/wait.ts';
import { type ActResult, nextEvent, type Observation } from '../helpers/wire.ts';

const s = suite('farm');

let fixtures: FixtureServer;

s.before(async () => {
  fixtures = await fixtureServer();
});

function refOf(o: Observation, name: string): string {
  const element = o.elements.find((each) => each.name === name);
  if (!element) throw new Error(`no ${name} in\n${o.tree}`);
  return element.ref;
}

/** The session loads the counter and clicks it: it works on its farm browser. */
async function acts(client: TestClient, sessionId: string): Promise<void> {
  const opened = await client.call<ActResult>('act', { session_id: sessionId, action: 'navigate', url: fixtures.url('/counter.html') });
  assert.is(opened.status, 'completed', `${opened.error_type}: ${opened.error_text}`);
  const clicked = await client.call<ActResult>('act', {
    session_id: sessionId,
    state_id: opened.fresh_state!.state_id,
    action: 'click',
    ref: refOf(opened.fresh_state!, 'Increment'),
    expect: { selector: '#count', text: 'Count: 1' },
  });
  assert.is(clicked.status, 'verified', `${clicked.error_type}: ${clicked.error_text}`);
}

/** `promise`, or a failure naming `what` once `ms` passed: a missing event fails the test instead of hanging it. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

type Endpoints = Array<{ id: string; url: string; state: string; sessions: number }>;

async function endpointsOf(client: TestClient): Promise<Endpoints> {
  const info = await client.call('server.info');
  return info.endpoints ?? [];
}

s('sessions spread over three farm browsers; a killed one ends only its sessions; it comes back; none is closed by pagewire', async () => {
  const farm: DebuggableBrowser[] = [];
  try {
    farm.push(...(await Promise.all([launchDebuggableBrowser(), launchDebuggableBrowser(), launchDebuggableBrowser()])));
    // e2 by the browser's own ws URL, which names that one browser process; the others by http://host:port.
    const version = (await (await fetch(`${farm[1]!.endpoint}/json/version`)).json()) as { webSocketDebuggerUrl: string };
    const urls = [farm[0]!.endpoint, version.webSocketDebuggerUrl, farm[2]!.endpoint];
    const server = await startTestServer(urls.flatMap((url) => ['--connect', url]));
    const client = await server.connect();

    // Six at once: each is counted on its endpoint as it is placed, so they spread all the same.
    const placed = (await Promise.all([0, 1, 2, 3, 4, 5].map((i) => client.call('session.create', { name: `farm-${i}` }))))
      .map((created) => ({ session_id: created.session_id, endpoint: created.endpoint! }));
    const spread = await endpointsOf(client);
    assert.equal(spread.map((each) => [each.id, each.state, each.sessions]), [['e1', 'live', 2], ['e2', 'live', 2], ['e3', 'live', 2]]);
    assert.equal(spread.map((each) => each.url), [`${urls[0]}/`, urls[1], `${urls[2]}/`]);
    const listed = (await client.call('session.list')).sessions;
    for (const { session_id, endpoint } of placed) {
      assert.is(listed.find((each) => each.session_id === session_id)?.endpoint, endpoint);
    }

    // e2's browser dies: its two sessions hear of it at once, the others do not.
    const doomed = placed.filter((each) => each.endpoint === 'e2');
    const spared = placed.filter((each) => each.endpoint !== 'e2');
    await Promise.all(placed.map(({ session_id }) => client.call('events.subscribe', { session_id, kinds: ['crash', 'session_closed'] })));
    const crashes = doomed.map(({ session_id }) => nextEvent(client, 'crash', (event) => event.session_id === session_id));
    const killedAt = Date.now();
    await farm[1]!.kill();
    for (const crash of await within(Promise.all(crashes), 10_000, 'the crash events')) assert.is(crash.data.scope, 'browser');
    const heardMs = Date.now() - killedAt;
    assert.ok(heardMs < 3_000, `the crash events came ${heardMs} ms after the kill`);
    for (const { session_id } of doomed) {
      const gone = await client.callError('observe', { session_id });
      assert.is(gone.data?.error_type, 'browser_unavailable');
      assert.is(gone.data?.['reason'], 'endpoint_lost');
      assert.match(gone.message, /ended: endpoint e2 lost: /);
    }
    assert.equal(
      client.notifications.filter((n) =>
        n.method === 'event' && spared.some((each) => each.session_id === (n.params as { session_id: string }).session_id)
      ),
      [],
      'the other sessions heard nothing',
    );
    await Promise.all(spared.map(({ session_id }) => acts(client, session_id)));

    const lost = await endpointsOf(client);
    assert.equal(lost.map((each) => [each.id, each.state === 'live' ? 'live' : 'down', each.sessions]), [['e1', 'live', 2], [
      'e2',
      'down',
      0,
    ], ['e3', 'live', 2]]);
    const fresh = await client.call('session.create', { name: 'after the loss' });
    assert.ok(fresh.endpoint === 'e1' || fresh.endpoint === 'e3', `placed on ${fresh.endpoint}`);
    await acts(client, fresh.session_id);

    // A browser listens on e2's port again (another browser id): the endpoint reconnects and takes
    // the next session (it has the fewest).
    // The port may be held a moment after the kill: start again until the browser listens there.
    const port = farm[1]!.port;
    farm[1] = await waitUntil(() => launchDebuggableBrowser([], { port }).catch(() => undefined), (started) => started !== undefined, {
      what: `a browser listening on ${port} again`,
      timeoutMs: 20_000,
      intervalMs: 250,
    }) as DebuggableBrowser;
    await waitUntil(() => endpointsOf(client), (endpoints) => endpoints[1]?.state === 'live', { what: 'e2 live again' });
    const back = await client.call('session.create', { name: 'back on e2' });
    assert.is(back.endpoint, 'e2');
    await acts(client, back.session_id);

    client.close();
    await server.server.close();
    for (const browser of farm) {
      assert.ok(isAlive(browser.process.pid!), `farm browser ${browser.endpoint} still runs after the server stopped`);
    }
  } finally {
    await Promise.all(farm.map((browser) => browser.kill()));
  }
});

s('a client names an endpoint only under --allow-endpoint; a policed session only on a loopback one', async () => {
  const browser = await launchDebuggableBrowser();
  try {
    const closed = await startTestServer(['--connect', browser.endpoint]);
    const refuser = await closed.connect();
    const refused = await refuser.callError('session.create', { endpoint: browser.endpoint });
    assert.is(refused.data?.error_type, 'forbidden');
    assert.match(refused.message, /--allow-endpoint/);
    refuser.close();
    await closed.server.close();

    const open = await startTestServer(['--allow-endpoint', 'http://127.0.0.1:*', '--allow-endpoint', 'ws://10.*/**']);
    const client = await open.connect();
    // Through the SDK, as a program would ask; a policed session works on a loopback endpoint.
    const sdk = await connect(open.url);
    const named = await sdk.createSession({ endpoint: browser.endpoint, block_domains: ['blocked.example'] });
    assert.is(named.endpoint, 'c1');
    await acts(client, named.id!);
    sdk.close();
    const withUser = await client.callError('session.create', { endpoint: 'http://127.0.0.1:9@10.0.0.1/' });
    assert.is(withUser.data?.error_type, 'invalid_params');
    const elsewhere = await client.callError('session.create', { endpoint: 'http://localhost:9/' });
    assert.is(elsewhere.data?.error_type, 'forbidden', 'localhost is not 127.0.0.1 to a URL glob');
    const remote = await client.callError('session.create', {
      endpoint: 'ws://10.1.2.3:3000/?token=farm-secret',
      block_domains: ['x.example'],
    });
    assert.is(remote.data?.error_type, 'browser_unavailable');
    assert.is(remote.data?.['reason'], 'policy_needs_local_browser');
    assert.not.match(remote.message, /farm-secret/);
    const { endpoints } = await client.call('server.info');
    assert.equal(endpoints?.map((each) => [each.id, each.state, each.sessions]), [['c1', 'live', 1]]);
    await client.call('session.close', { session_id: named.id! });
    assert.is((await client.call('server.info')).endpoints, undefined, "a client's endpoint goes with its last session");
    client.close();
    await open.server.close();
    assert.ok(isAlive(browser.process.pid!), 'the named browser still runs');
  } finally {
    await browser.kill();
  }
});

/**
 * A farm's front door that wants `Authorization: <secret>` on every request, /json/version and the
 * WebSocket upgrade alike (401 otherwise), and passes the rest to the browser on `port`.
 */
async function authorizingGate(port: number, authorization: string): Promise<{ url: string; refused: number }> {
  const seen = { url: '', refused: 0 };
  const gate = createServer(async (req, res) => {
    if (req.headers.authorization !== authorization) {
      seen.refused++;
      res.writeHead(401, { connection: 'close' }).end();
      return;
    }
    const upstream = await fetch(`http://127.0.0.1:${port}${req.url}`);
    // The browser names its socket on its own port: the client must come through here.
    // No kept-alive connection outlives a request: on Deno, close() waits for them.
    res.writeHead(upstream.status, { 'content-type': 'application/json', connection: 'close' }).end(
      (await upstream.text()).replaceAll(`:${port}/`, `:${gatePort}/`),
    );
  });
  // An upgraded socket is no longer the HTTP server's to close: it is tracked here to be ended.
  const tunnels = new Set<{ destroy(): void }>();
  gate.on('upgrade', (req, socket, head) => {
    tunnels.add(socket);
    socket.on('close', () => tunnels.delete(socket));
    if (req.headers.authorization !== authorization) {
      seen.refused++;
      socket.end('HTTP/1.1 401 Unauthorized\r\n\r\n');
      return;
    }
    const upstream = tcpConnect(port, '127.0.0.1', () => {
      const lines = Object.entries(req.headers).map(([name, value]) => `${name}: ${String(value)}`);
      upstream.write(`${req.method} ${req.url} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`);
      upstream.write(head);
      socket.pipe(upstream).pipe(socket);
    });
    tunnels.add(upstream);
    upstream.on('close', () => tunnels.delete(upstream));
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => gate.listen(0, '127.0.0.1', resolve));
  const gatePort = (gate.address() as AddressInfo).port;
  onTeardown(() => {
    (gate as { closeAllConnections?: () => void }).closeAllConnections?.();
    for (const tunnel of tunnels) tunnel.destroy();
    return new Promise<void>((resolve) => gate.close(() => resolve()));
  });
  seen.url = `http://127.0.0.1:${gatePort}`;
  return seen;
}

s('--connect-file: its headers reach the farm (/json/version and the upgrade) and never a log line or an answer', async () => {
  const secret = 'Bearer farm-s3cret-0f-the-gate';
  const browser = await launchDebuggableBrowser();
  const folder = mkdtempSync(join(tmpdir(), 'pagewire-farm-test-'));
  try {
    const gate = await authorizingGate(browser.port, secret);
    const file = join(folder, 'farm.txt');
    writeFileSync(file, `# the gate wants a header\n${JSON.stringify({ url: gate.url, headers: { Authorization: secret } })}\n`);
    const config = parseConfig(['--port', '0', '--token', 'farm-test', '--connect-file', file, '--log-level', 'debug'], {}, {
      readFile: readTextFile,
    });
    const lines: string[] = [];
    const running = await startServer(config, {
      runtime: `node ${process.version}`,
      log: createLogger({ level: 'debug', sink: (line) => lines.push(line) }),
    });
    onTeardown(() => running.close());
    const client = await TestClient.connect(`${running.url}?token=farm-test`);
    const created = await client.call('session.create');
    assert.is(created.endpoint, 'e1');
    await acts(client, created.session_id);
    const info = await client.call('server.info');
    assert.equal(info.endpoints?.map((each) => [each.url, each.state]), [[`${gate.url}/`, 'live']]);
    assert.is(gate.refused, 0, 'every request carried the header');
    client.close();
    await running.close();
    assert.ok(lines.some((line) => line.includes('Target.createBrowserContext')), 'the CDP trace was on');
    assert.not.ok(lines.some((line) => line.includes('farm-s3cret')), 'the header is in no log line');
    assert.not.ok(JSON.stringify(info).includes('farm-s3cret'));
  } finally {
    await browser.kill();
    rmSync(folder, { recursive: true, force: true });
  }
});

s.run();
