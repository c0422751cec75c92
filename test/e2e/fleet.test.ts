// Many instances behind one entry point (PROTOCOL.md §13, "Fleet"): two pagewire processes behind
// HAProxy running deploy/haproxy.cfg. Eight SDK clients spread over both; a cut socket reconnects
// to the same session; POST /rpc, MCP (2025 sessions and 2026 requests) and the inspector reach
// the instance that holds their session; a browser that dies ends only its sessions; a killed
// instance costs only its sessions, its clients learn it on their next call within a second and
// start over on the live one; SIGTERM drains.
import { existsSync } from 'node:fs';
import process from 'node:process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type Client, connect, isPagewireError, type Session } from '../../src/client/index.ts';
import { instanceOf } from '../../src/util/ids.ts';
import { type FixtureServer, fixtureServer } from '../helpers/fixture-server.ts';
import { type Balancer, findHaproxy, freePort, type Instance, startBalancer, startInstance } from '../helpers/fleet.ts';
import { v1Http, v2Http } from '../helpers/mcp.ts';
import { waitUntilGone } from '../helpers/processes.ts';
import { IS_DENO, ROOT } from '../helpers/server-process.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { waitUntil } from '../helpers/wait.ts';

const TOKEN = 'fleet-test-token';
const CHECK_MS = 100;
const HAPROXY = findHaproxy();

const s = suite('fleet behind haproxy');
let fixtures: FixtureServer;
let balancer: Balancer;
/** In front of the balancer: cutting it drops every client socket at once. */
let proxy: TcpProxy;
const instances: Instance[] = [];
const clients: Client[] = [];
/** Every browser any instance launched, for "no process is left behind". */
const browsers = new Set<number>();

async function sdkClient(): Promise<Client> {
  const client = await connect(`ws://127.0.0.1:${proxy.port}/`, {
    token: TOKEN,
    reconnect: { initialDelayMs: 20, maxDelayMs: 100, giveUpAfterMs: 5_000 },
    callTimeoutMs: 60_000,
  });
  clients.push(client);
  return client;
}

async function rpc(method: string, params: Record<string, unknown>, instance?: string) {
  const response = await fetch(`${balancer.origin}/rpc`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${TOKEN}`,
      ...(instance ? { 'pagewire-instance': instance } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return { instance: response.headers.get('pagewire-instance'), body: await response.json() };
}

function noteBrowsers(): void {
  for (const instance of instances) for (const pid of instance.browsers()) browsers.add(pid);
}

s.before(async () => {
  if (!HAPROXY) return;
  if (!IS_DENO) assert.ok(existsSync(`${ROOT}dist/src/main.js`), 'dist/src/main.js is missing: run `npm run build`');
  fixtures = await fixtureServer();
  const ports = [await freePort(), await freePort()] as [number, number];
  instances.push(...(await Promise.all(ports.map((port, i) => startInstance(`pagewire-${i}`, port, TOKEN)))));
  balancer = await startBalancer(HAPROXY, ports, CHECK_MS);
  proxy = await startTcpProxy({ host: '127.0.0.1', port: balancer.port });
});

s.after(async () => {
  for (const client of clients) client.close();
  noteBrowsers();
  for (const instance of instances) {
    try {
      instance.process.kill('SIGKILL');
    } catch {
      // Already gone (Deno throws on a kill of a process that has exited).
    }
  }
  await Promise.all(instances.map((instance) => instance.process.exit));
  await balancer?.stop();
  await proxy?.close();
  // Launched browsers talk over a pipe: with their server gone they exit by themselves.
  assert.equal(await waitUntilGone([...browsers], 10_000), [], 'no browser is left behind');
});

const fleet = (name: string, body: () => Promise<void>) =>
  s(name, async () => {
    if (!HAPROXY) {
      console.warn(`fleet: skipped "${name}": haproxy is not installed (apt-get install haproxy)`);
      return;
    }
    await body();
  });

/** Each client's session, by the order the clients were made. */
const sessions: Session[] = [];

fleet('eight clients through the balancer spread over both instances, and a cut socket reconnects to the same session', async () => {
  // Connected one after the other, so that each socket is a new placement among the open ones.
  for (let i = 0; i < 8; i++) await sdkClient();
  sessions.push(...(await Promise.all(clients.map((client, i) => client.createSession({ name: `client-${i}` })))));
  for (const [i, session] of sessions.entries()) {
    assert.is(clients[i]!.instance, instanceOf(session.id!), 'the client names the instance of its session');
  }
  const held = sessions.map((session) => instanceOf(session.id!));
  assert.is(held.filter((id) => id === 'pagewire-0').length, 4, `new sessions went to the least loaded instance: ${held}`);
  assert.is(held.filter((id) => id === 'pagewire-1').length, 4, `new sessions went to the least loaded instance: ${held}`);
  await Promise.all(sessions.map((session) => session.act({ action: 'navigate', url: fixtures.url('/counter.html') })));

  const accepted = proxy.accepted;
  proxy.cut();
  const seen = await Promise.all(sessions.map((session) => session.observe()));
  for (const observation of seen) assert.match(observation.tree, /Count: 0/);
  assert.ok(proxy.accepted >= accepted + 8, 'every client opened a new socket');
  for (const client of clients) assert.ok(client.reconnects >= 1, 'the client reconnected');
});

fleet('POST /rpc, MCP 2025 sessions, 2026 requests and the inspector reach the instance that holds the session', async () => {
  for (const session of sessions.slice(0, 2)) {
    const instance = instanceOf(session.id!)!;
    // Asked several times: a request placed by the balancer alone would land on the other instance half the time.
    for (let i = 0; i < 4; i++) {
      const answer = await rpc('tabs.list', { session_id: session.id }, instance);
      assert.is(answer.instance, instance);
      assert.ok(answer.body.result?.tabs?.length === 1, JSON.stringify(answer.body));
    }
  }

  const legacy = await v1Http(`${balancer.origin}/mcp?token=${TOKEN}`);
  try {
    const created = await legacy.call('browser_session', { action: 'create', name: 'mcp-2025' });
    const sessionId = (created.structuredContent as { session_id: string }).session_id;
    for (let i = 0; i < 4; i++) {
      const listed = await legacy.call('browser_tabs', { action: 'list', session_id: sessionId });
      assert.not.ok(listed.isError, JSON.stringify(listed));
    }
  } finally {
    await legacy.close();
  }

  for (const session of sessions.slice(0, 2)) {
    const instance = instanceOf(session.id!)!;
    const modern = await v2Http(`${balancer.origin}/mcp?token=${TOKEN}`, { headers: { 'pagewire-instance': instance } });
    try {
      for (let i = 0; i < 3; i++) {
        const seen = await modern.call('browser_observe', { session_id: session.id });
        assert.not.ok(seen.isError, JSON.stringify(seen));
      }
    } finally {
      await modern.close();
    }
  }

  for (const session of sessions.slice(0, 2)) {
    const page = await fetch(`${balancer.origin}/inspector?token=${TOKEN}&session=${session.id}`);
    await page.text();
    assert.is(page.headers.get('pagewire-instance'), instanceOf(session.id!), "the inspector page comes from the session's instance");
  }
});

fleet('/healthz says whether an instance takes sessions, without a token', async () => {
  const answer = await fetch(`${instances[0]!.origin}/healthz`);
  assert.is(answer.status, 200);
  const health = await answer.json();
  const held = sessions.filter((session) => instanceOf(session.id!) === 'pagewire-0').length;
  assert.equal({ ...health, sessions: undefined }, {
    ok: true,
    instance_id: 'pagewire-0',
    sessions: undefined,
    max_sessions: 16,
    draining: false,
  });
  assert.ok(health.sessions >= held, `the sessions it holds: ${JSON.stringify(health)}`);
  assert.is(answer.headers.get('pagewire-instance'), 'pagewire-0');
});

fleet('a browser that dies ends only its own sessions, at once, and its instance starts another for new ones', async () => {
  noteBrowsers();
  const instance = instances[1]!;
  const indexes = sessions.flatMap((session, index) => (instanceOf(session.id!) === instance.id ? [index] : []));
  const killed = performance.now();
  for (const pid of instance.browsers()) process.kill(pid, 'SIGKILL');
  // An observe answered before the browser was seen to go, or refused for its tab first
  // (target_not_found), is no failure: ask until the session itself is gone.
  await Promise.all(indexes.map((index) =>
    waitUntil(
      () => sessions[index]!.observe().then(() => undefined, (e: unknown) => e),
      (answer) => isPagewireError(answer) && answer.error_type === 'session_not_found',
      { what: 'the session ended', timeoutMs: 1_000, intervalMs: 0 },
    )
  ));
  assert.ok(performance.now() - killed < 1_500, `the sessions ended ${Math.round(performance.now() - killed)} ms after the kill`);
  for (const session of sessions.filter((one) => instanceOf(one.id!) !== instance.id)) {
    assert.match((await session.observe()).tree, /Count: 0/, "the other instance's sessions live on");
  }
  // Their clients start over: a new session, on the same instance (their socket's), in a new browser.
  await Promise.all(indexes.map(async (index) => {
    const session = await clients[index]!.createSession({ name: `again-${index}` });
    assert.is(instanceOf(session.id!), instance.id);
    await session.act({ action: 'navigate', url: fixtures.url('/counter.html') });
    sessions[index] = session;
  }));
  noteBrowsers();
});

fleet(
  'a killed instance loses only its sessions: its clients get an error within a second, new sessions land on the live one',
  async () => {
    noteBrowsers();
    const dead = instances[1]!;
    const deadBrowsers = dead.browsers();
    dead.process.kill('SIGKILL');
    await dead.process.exit;

    const onDead = sessions.filter((session) => instanceOf(session.id!) === 'pagewire-1');
    const onLive = sessions.filter((session) => instanceOf(session.id!) === 'pagewire-0');
    await Promise.all(onDead.map(async (session) => {
      const started = performance.now();
      const error = await session.observe().then(() => undefined, (e: unknown) => e);
      const took = performance.now() - started;
      assert.ok(isPagewireError(error), `an error, not an answer: ${String(error)}`);
      assert.ok(took < 1_000, `the error came after ${Math.round(took)} ms`);
      if (isPagewireError(error) && error.error_type === 'session_not_found') assert.match(error.message, /instance pagewire-1/);
    }));
    for (const session of onLive) assert.match((await session.observe()).tree, /Count: 0/);

    // The dead instance's browser went with it (its pipe closed).
    assert.equal(await waitUntilGone(deadBrowsers, 10_000), [], "the killed instance's browser is gone");
    await waitUntil(() => balancer.states(), (states) => states['pagewire-1'] === 'DOWN', { what: 'pagewire-1 marked down' });
    const client = clients[sessions.indexOf(onDead[0]!)]!;
    const fresh = await client.createSession({ name: 'start-over' });
    assert.is(instanceOf(fresh.id!), 'pagewire-0', 'a new session lands on the live instance');
    assert.match((await fresh.act({ action: 'navigate', url: fixtures.url('/counter.html') })).fresh_state?.tree ?? '', /Count: 0/);
  },
);

fleet('SIGTERM drains an instance: no new sessions, a running act finishes, then it exits with its browser', async () => {
  // The killed instance comes back under its name: the balancer checks it up again.
  const back = await startInstance('pagewire-1', instances[1]!.port, TOKEN);
  instances[1] = back;
  await waitUntil(() => balancer.states(), (states) => states['pagewire-1'] === 'UP', { what: 'pagewire-1 up again' });

  const draining = instances[0]!;
  const session = sessions.find((one) => instanceOf(one.id!) === 'pagewire-0')!;
  noteBrowsers();
  const drainingBrowsers = draining.browsers();
  // An act that takes a while: a navigation to a page that answers after 3 s.
  // Its own URL: the fixture server is shared by the whole run, and other tests ask for /slow too.
  const slow = `/slow?ms=3000&drain=${Date.now()}`;
  const running = session.act({ action: 'navigate', url: fixtures.url(slow) });
  running.catch(() => {}); // awaited below: a failure must fail this test, not end the run before it

  await waitUntil(() => fixtures.seen.some((request) => request.path === slow), Boolean, { what: 'the slow page asked for' });
  draining.process.kill('SIGTERM');

  const health = await waitUntil(
    async () => (await fetch(`${draining.origin}/healthz`)).status,
    (status) => status === 503,
    { what: 'healthz 503 while draining' },
  );
  assert.is(health, 503);
  const refused = await rpc('session.create', {}, 'pagewire-0');
  assert.is(refused.instance, 'pagewire-0');
  assert.is(refused.body.error?.data?.error_type, 'browser_unavailable');
  assert.is(refused.body.error?.data?.reason, 'draining');
  await waitUntil(() => balancer.states(), (states) => states['pagewire-0'] === 'NOLB', { what: 'pagewire-0 takes no new placement' });
  const placed = await rpc('session.create', {});
  assert.is(placed.instance, 'pagewire-1', 'a new session goes to the instance that takes sessions');

  const result = await running;
  assert.is(result.status, 'completed', JSON.stringify(result));
  assert.match(result.fresh_state?.tree ?? '', /slow page/);
  assert.is(await draining.process.exit, 0, 'the drained instance exits 0');
  assert.equal(await waitUntilGone(drainingBrowsers, 10_000), [], 'its browser is gone');
});

s.run();
