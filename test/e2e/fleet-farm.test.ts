// The whole fleet of issue 36 on loopback: three Chromiums started with --remote-debugging-port
// as the farm, two pagewire instances drawing their browsers from it (each with the three
// endpoints), HAProxy on deploy/haproxy.cfg in front. Clients through the balancer spread over
// both instances and the three browsers; a farm browser that dies ends only the sessions on it,
// on both instances, at once, and new sessions go to the live browsers; the instances' shutdown
// closes no farm browser (the test ends them, and no process is left behind).
import { existsSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type Client, connect, isPagewireError, type Session } from '../../src/client/index.ts';
import { instanceOf } from '../../src/util/ids.ts';
import { type DebuggableBrowser, launchDebuggableBrowser } from '../helpers/debuggable-browser.ts';
import { type FixtureServer, fixtureServer } from '../helpers/fixture-server.ts';
import { type Balancer, findHaproxy, freePort, type Instance, startBalancer, startInstance } from '../helpers/fleet.ts';
import { isAlive } from '../helpers/processes.ts';
import { IS_DENO, ROOT } from '../helpers/server-process.ts';
import { waitUntil } from '../helpers/wait.ts';

const TOKEN = 'fleet-farm-token';
const CHECK_MS = 100;
const HAPROXY = findHaproxy();

const s = suite('fleet with a farm');
let fixtures: FixtureServer;
let balancer: Balancer | undefined;
const farm: DebuggableBrowser[] = [];
const instances: Instance[] = [];
const clients: Client[] = [];

s.before(async () => {
  if (!HAPROXY) return;
  if (!IS_DENO) assert.ok(existsSync(`${ROOT}dist/src/main.js`), 'dist/src/main.js is missing: run `npm run build`');
  fixtures = await fixtureServer();
  farm.push(...(await Promise.all([0, 1, 2].map(() => launchDebuggableBrowser()))));
  const connects = farm.flatMap((browser) => ['--connect', browser.endpoint]);
  const ports = [await freePort(), await freePort()] as [number, number];
  instances.push(...(await Promise.all(ports.map((port, i) => startInstance(`pagewire-${i}`, port, TOKEN, connects)))));
  balancer = await startBalancer(HAPROXY, ports, CHECK_MS);
});

s.after(async () => {
  for (const client of clients) client.close();
  for (const instance of instances) instance.process.kill('SIGTERM');
  const codes = await Promise.all(instances.map((instance) => instance.process.exit));
  await balancer?.stop();
  if (HAPROXY) {
    assert.equal(codes, [0, 0], 'both instances exit cleanly');
    // A browser pagewire only connected to is never closed by it.
    for (const browser of farm.slice(0, 1).concat(farm.slice(2))) {
      assert.ok(isAlive(browser.process.pid!), 'a farm browser outlives pagewire');
    }
  }
  await Promise.all(farm.map((browser) => browser.kill()));
  for (const browser of farm) assert.not.ok(isAlive(browser.process.pid!), 'no farm browser is left behind');
});

const fleet = (name: string, body: () => Promise<void>) =>
  s(name, async () => {
    if (!HAPROXY) {
      console.warn(`fleet with a farm: skipped "${name}": haproxy is not installed (apt-get install haproxy)`);
      return;
    }
    await body();
  });

/** The sessions, each with the client that made it. */
const placed: Array<{ client: Client; session: FarmSession }> = [];

/** A session as createSession answers it: with the id of the endpoint it is on. */
type FarmSession = Session & { readonly endpoint?: string };

/** Which farm browser a session is on: the instances number their endpoints alike (e1, e2, e3 in --connect's order). */
const browserOf = (session: FarmSession): string => session.endpoint ?? 'launched';

fleet('six clients through the balancer spread over both instances and all three farm browsers', async () => {
  // One after the other: each socket is a new placement among the open ones.
  for (let i = 0; i < 6; i++) {
    clients.push(await connect(balancer!.url, { token: TOKEN, reconnect: false, callTimeoutMs: 60_000 }));
  }
  const sessions = await Promise.all(clients.map((client, i) => client.createSession({ name: `farm-${i}` })));
  placed.push(...sessions.map((session, i) => ({ client: clients[i]!, session })));
  const byInstance = (id: string) => sessions.filter((session) => instanceOf(session.id!) === id).length;
  assert.equal([byInstance('pagewire-0'), byInstance('pagewire-1')], [3, 3], 'three sessions on each instance');
  for (const id of ['pagewire-0', 'pagewire-1']) {
    const held = sessions.filter((session) => instanceOf(session.id!) === id).map(browserOf).sort();
    assert.equal(held, ['e1', 'e2', 'e3'], `${id} put one session on each farm browser`);
  }
  await Promise.all(sessions.map((session) => session.act({ action: 'navigate', url: fixtures.url('/counter.html') })));
  for (const session of sessions) assert.match((await session.observe()).tree, /Count: 0/);
});

fleet('a farm browser that dies ends only the sessions on it, on both instances, at once; new sessions go to live ones', async () => {
  const doomed = placed.filter(({ session }) => browserOf(session) === 'e2');
  const spared = placed.filter(({ session }) => browserOf(session) !== 'e2');
  assert.is(doomed.length, 2, 'one session of each instance is on e2');
  const killed = performance.now();
  await farm[1]!.kill();
  await Promise.all(doomed.map(({ session }) =>
    waitUntil(
      () => session.observe().then(() => undefined, (e: unknown) => e),
      (answer) => isPagewireError(answer) && answer.error_type === 'browser_unavailable',
      { what: 'the session on the dead browser ended', timeoutMs: 2_000, intervalMs: 0 },
    )
  ));
  assert.ok(performance.now() - killed < 2_000, `the sessions ended ${Math.round(performance.now() - killed)} ms after the kill`);
  for (const { session } of spared) {
    const result = await session.act({ action: 'navigate', url: fixtures.url('/counter.html') });
    assert.is(result.status, 'completed', "the other browsers' sessions live on");
  }
  // Their clients start over, through the same sockets, on a live farm browser.
  for (const { client } of doomed) {
    const fresh = await client.createSession({ name: 'after the loss' });
    assert.ok(browserOf(fresh) === 'e1' || browserOf(fresh) === 'e3', `placed on ${browserOf(fresh)}`);
    assert.is((await fresh.act({ action: 'navigate', url: fixtures.url('/counter.html') })).status, 'completed');
  }
});

s.run();
