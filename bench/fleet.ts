// `npm run bench:fleet [-- --sessions N --acts N --clients N]`: what HAProxy in front costs and
// what a second instance brings, side by side in one run. Two pagewire processes (dist/, each
// launching its own browser) and HAProxy on deploy/haproxy.cfg; the same load twice, straight to
// one instance and then through the balancer (which spreads it over both):
// - sessions created per second: `--clients` clients each create and close sessions, all at once;
// - acts per second: `--clients` clients each click a counter with a fresh observation per act,
//   each act on the state the previous act returned, as an agent does;
// - the hop itself: `server.info` round trips (no browser) of one client, one after the other.
// Prints a table and writes the numbers to bench/results/fleet-<date>.json. Needs `npm run build`
// and haproxy (/usr/sbin/haproxy, or on PATH).
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { type Client, connect, type Observation, type Session } from '../src/client/index.ts';
import { type FixtureServer, startFixtureServer } from '../test/helpers/fixture-server.ts';
import { findHaproxy, freePort, type Instance, startBalancer, startInstance } from '../test/helpers/fleet.ts';
import { median } from '../test/helpers/stats.ts';

const TOKEN = 'fleet-bench-token';

function flag(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  const value = at === -1 ? Number.NaN : Number(process.argv[at + 1]);
  return Number.isInteger(value) && value > 0 ? value : fallback;
}

const SESSIONS_PER_CLIENT = flag('sessions', 6);
const ACTS_PER_CLIENT = flag('acts', 40);
const CLIENTS = flag('clients', 4);
const ROUND_TRIPS = 200;

interface Row {
  door: string;
  sessions_per_s: number;
  session_create_median_ms: number;
  acts_per_s: number;
  act_median_ms: number;
  server_info_median_ms: number;
  spread: Record<string, number>;
}

async function clientsOf(url: string): Promise<Client[]> {
  return await Promise.all(Array.from({ length: CLIENTS }, () => connect(url, { token: TOKEN })));
}

/** Every client creates and closes SESSIONS_PER_CLIENT sessions, one after the other, all clients at once. */
async function createSessions(clients: Client[]): Promise<{ perSecond: number; medianMs: number; spread: Record<string, number> }> {
  const times: number[] = [];
  const spread: Record<string, number> = {};
  const started = performance.now();
  await Promise.all(clients.map(async (client) => {
    for (let i = 0; i < SESSIONS_PER_CLIENT; i++) {
      const t0 = performance.now();
      const session = await client.createSession({ name: `bench-${i}` });
      times.push(performance.now() - t0);
      const instance = session.id!.split('_')[1]!;
      spread[instance] = (spread[instance] ?? 0) + 1;
      await session.close();
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  return { perSecond: (clients.length * SESSIONS_PER_CLIENT) / seconds, medianMs: median(times), spread };
}

/** ROUND_TRIPS server.info calls, one after the other: what the way to the server costs, without a browser. */
async function roundTrips(client: Client): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < ROUND_TRIPS; i++) {
    const t0 = performance.now();
    await client.serverInfo();
    times.push(performance.now() - t0);
  }
  return median(times);
}

function refOf(observation: Observation, name: string): string {
  const element = observation.elements.find((one) => one.name === name);
  if (!element) throw new Error(`no "${name}" in the observation`);
  return element.ref;
}

/** Every client clicks "Increment" ACTS_PER_CLIENT times on its own session, all clients at once. */
async function runActs(clients: Client[], fixtures: FixtureServer): Promise<{ perSecond: number; medianMs: number }> {
  const sessions: Session[] = await Promise.all(clients.map((client) => client.createSession({ name: 'acts' })));
  let states = await Promise.all(sessions.map(async (session) => {
    const opened = await session.act({ action: 'navigate', url: fixtures.url('/counter.html') });
    return opened.fresh_state!;
  }));
  const times: number[] = [];
  const started = performance.now();
  states = await Promise.all(sessions.map(async (session, index) => {
    let state = states[index]!;
    for (let i = 0; i < ACTS_PER_CLIENT; i++) {
      const t0 = performance.now();
      const result = await session.act({ action: 'click', ref: refOf(state, 'Increment') }, { state });
      times.push(performance.now() - t0);
      if (result.status !== 'completed' || !result.fresh_state) throw new Error(`act: ${JSON.stringify(result).slice(0, 300)}`);
      state = result.fresh_state;
    }
    return state;
  }));
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(sessions.map((session) => session.close()));
  return { perSecond: (clients.length * ACTS_PER_CLIENT) / seconds, medianMs: median(times) };
}

async function measure(door: string, url: string, fixtures: FixtureServer): Promise<Row> {
  const clients = await clientsOf(url);
  try {
    // One unmeasured session each: the browsers start, and the first contexts are made.
    await createSessions(clients.slice(0, 1));
    const created = await createSessions(clients);
    const acts = await runActs(clients, fixtures);
    const serverInfo = await roundTrips(clients[0]!);
    return {
      door,
      sessions_per_s: Math.round(created.perSecond * 10) / 10,
      session_create_median_ms: Math.round(created.medianMs),
      acts_per_s: Math.round(acts.perSecond * 10) / 10,
      act_median_ms: Math.round(acts.medianMs),
      server_info_median_ms: Math.round(serverInfo * 100) / 100,
      spread: created.spread,
    };
  } finally {
    for (const client of clients) client.close();
  }
}

async function main(): Promise<void> {
  const haproxy = findHaproxy();
  if (!haproxy) throw new Error('haproxy is not installed (apt-get install haproxy)');
  const fixtures = await startFixtureServer();
  const ports = [await freePort(), await freePort()] as [number, number];
  const instances: Instance[] = await Promise.all(ports.map((port, i) => startInstance(`pagewire-${i}`, port, TOKEN)));
  const balancer = await startBalancer(haproxy, ports, 1000);
  const loadBefore = loadavg()[0]!;
  const rows: Row[] = [];
  try {
    rows.push(await measure('direct (one instance)', `ws://127.0.0.1:${ports[0]}/`, fixtures));
    rows.push(await measure('HAProxy (two instances)', balancer.url, fixtures));
  } finally {
    for (const instance of instances) instance.process.kill('SIGTERM');
    await Promise.all(instances.map((instance) => instance.process.exit));
    await balancer.stop();
    await fixtures.close();
  }
  const load = { before: loadBefore, after: loadavg()[0]!, cores: availableParallelism() };
  console.log(
    `fleet bench: ${CLIENTS} clients, ${SESSIONS_PER_CLIENT} sessions and ${ACTS_PER_CLIENT} acts each; ` +
      `load ${load.before.toFixed(1)} → ${load.after.toFixed(1)} on ${load.cores} cores`,
  );
  console.table(rows.map((row) => ({ ...row, spread: JSON.stringify(row.spread) })));
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  const file = new URL(`./results/fleet-${new Date().toISOString().slice(0, 10)}.json`, import.meta.url);
  writeFileSync(
    file,
    JSON.stringify({ clients: CLIENTS, sessions_per_client: SESSIONS_PER_CLIENT, acts_per_client: ACTS_PER_CLIENT, load, rows }, null, 2),
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
