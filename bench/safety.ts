// `npm run bench:safety [-- --runs N]`: what the domain policy and the network log cost (docs/safety.md).
// For each configuration — nothing; a block list that matches nothing here (--block-domain
// ads.invalid: no request is even paused); an allow list that matches everything here
// (--allow-domain 127.0.0.1: every request is paused and let go); the network log recording; the
// allow list and the log; and
// --block-private-network with the fixture's host allowed (everything goes through the context's
// SOCKS proxy) — a fresh server runs: a page of 60 images and 20 fetches is loaded (act navigate,
// then every image and fetch done), a click without requests and a click that POSTs are acted,
// and a form page is observed. Wall medians, plus CPU per page load: the server process's own
// (process.cpuUsage: the fixture server and the client are in it too, the same in every row) and
// the browser's (every process of its group, from /proc). Everything on loopback, in process.
import { readdirSync, readFileSync } from 'node:fs';
import process from 'node:process';
import { parseConfig } from '../src/config.ts';
import { startServer } from '../src/server.ts';
import { TestClient } from '../test/helpers/client.ts';
import { startFixtureServer } from '../test/helpers/fixture-server.ts';
import { ms, parseRuns, stats, table, timed, WARMUPS } from './common.ts';
import type { ActResult, Observation } from '../test/helpers/wire.ts';

const runs = parseRuns(process.argv);
const TICK_MS = 10; // USER_HZ is 100 on Linux

/** CPU ms of every process in the browser's process group (it is launched as its own group). */
function browserCpuMs(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  let ticks = 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) !== pid) continue; // pgrp
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime
    } catch {
      // a process that ended meanwhile
    }
  }
  return ticks * TICK_MS;
}

const ownCpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

interface Row {
  name: string;
  load: number[];
  loadServerCpu: number[];
  loadBrowserCpu: number[];
  click: number[];
  post: number[];
  observe: number[];
}

interface Runner {
  /** One timed round of the four operations, its samples pushed onto `row` when `timed`. */
  round(index: number, timed: boolean, row: Row): Promise<void>;
  close(): Promise<void>;
}

async function runner(
  name: string,
  flags: string[],
  log: boolean,
  fixtures: Awaited<ReturnType<typeof startFixtureServer>>,
): Promise<Runner> {
  const config = parseConfig(['--port', '0', ...flags], {});
  const server = await startServer(config, { runtime: `node ${process.version}` });
  const client = await TestClient.connect(`${server.url}?token=${encodeURIComponent(config.tokens[0]!)}`, { checkWire: false });
  const { session_id } = await client.call('session.create', { name });
  if (log) await client.call('network.list', { session_id });
  const { target_id } = await client.call('tabs.new', { session_id, url: fixtures.url('/act.html') });
  const tab = () => server.host.current!.tab(target_id)!;
  const evaluate = (expression: string) => tab().session.send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true });
  const observe = () => client.call<Observation>('observe', { session_id });
  const navigate = async (state: Observation, path: string) =>
    (await client.call<ActResult>('act', { session_id, state_id: state.state_id, action: 'navigate', url: fixtures.url(path) }))
      .fresh_state!;
  return {
    async round(index, timedRun, row) {
      // A page load of 80 requests.
      let o = await observe();
      const serverBefore = ownCpuMs();
      const browserBefore = browserCpuMs(server.host.pid);
      const load = await timed(async () => {
        await navigate(o, `/gallery.html?run=${name}-${index}`);
        await evaluate('window.galleryReady');
      });
      if (timedRun) {
        row.load.push(load.ms);
        row.loadServerCpu.push(ownCpuMs() - serverBefore);
        row.loadBrowserCpu.push(browserCpuMs(server.host.pid) - browserBefore);
      }
      // A click that makes no request.
      o = await navigate(await observe(), '/act.html');
      const count = o.elements.find((e) => e.name === 'Count')!;
      const click = await timed(() => client.call<ActResult>('act', { session_id, state_id: o.state_id, action: 'click', ref: count.ref }));
      if (timedRun) row.click.push(click.ms);
      // A click that POSTs (and gets a 500).
      o = await navigate(click.value.fresh_state!, '/notes-app.html');
      const save = o.elements.find((e) => e.name === 'Save')!;
      const post = await timed(() => client.call<ActResult>('act', { session_id, state_id: o.state_id, action: 'click', ref: save.ref }));
      if (timedRun) row.post.push(post.ms);
      // An observation of a 20-field form.
      await navigate(post.value.fresh_state!, '/form.html');
      const observed = await timed(observe);
      if (timedRun) row.observe.push(observed.ms);
    },
    async close() {
      client.close();
      await server.close();
    },
  };
}

const emptyRow = (name: string): Row => ({ name, load: [], loadServerCpu: [], loadBrowserCpu: [], click: [], post: [], observe: [] });

/**
 * The machine this runs on is shared and its load drifts: each variant is measured against a
 * baseline server run in alternation with it, round by round, and reported as both medians and
 * the median of the per-round differences.
 */
async function pair(
  name: string,
  flags: string[],
  log: boolean,
  fixtures: Awaited<ReturnType<typeof startFixtureServer>>,
): Promise<[Row, Row]> {
  const base = await runner(`base-${name}`, [], false, fixtures);
  const variant = await runner(name, flags, log, fixtures);
  const rows: [Row, Row] = [emptyRow(`nothing (paired with ${name})`), emptyRow(name)];
  try {
    for (let i = 0; i < WARMUPS + runs; i++) {
      const order = i % 2 === 0 ? [0, 1] : [1, 0];
      for (const which of order) await (which === 0 ? base : variant).round(i, i >= WARMUPS, rows[which]!);
    }
  } finally {
    await base.close();
    await variant.close();
  }
  return rows;
}

const fixtures = await startFixtureServer();
const configurations: Array<[string, string[], boolean]> = [
  // A/A: the same configuration on both sides, for the noise floor of the paired differences.
  ['nothing (A/A control)', [], false],
  ['block list (nothing paused)', ['--block-domain', 'ads.invalid'], false],
  ['allow list (all paused)', ['--allow-domain', '127.0.0.1'], false],
  ['log', [], true],
  ['allow list + log', ['--allow-domain', '127.0.0.1'], true],
  ['private (all via proxy)', ['--block-private-network', '--allow-domain', '127.0.0.1'], false],
];
const only = process.argv.indexOf('--only') >= 0 ? process.argv[process.argv.indexOf('--only') + 1]! : undefined;
const pairs: Array<[Row, Row]> = [];
for (const [name, flags, log] of configurations) if (!only || name.includes(only)) pairs.push(await pair(name, flags, log, fixtures));
await fixtures.close();

const median = (samples: number[]) => stats(samples).median_ms;
const delta = (variant: number[], base: number[]) => median(variant.map((v, i) => v - base[i]!));
const columns: Array<[string, keyof Omit<Row, 'name'>]> = [
  ['page load ms', 'load'],
  ['server CPU ms/load', 'loadServerCpu'],
  ['browser CPU ms/load', 'loadBrowserCpu'],
  ['click ms', 'click'],
  ['click+POST ms', 'post'],
  ['observe ms', 'observe'],
];
console.log(`\nsafety costs (${WARMUPS} warm-ups, ${runs} rounds, each variant alternated with a server without any of it)`);
console.log(
  'page load = act navigate to a page of 60 images + 20 fetches, until all are done; cells: variant median (median of paired differences)',
);
console.log(
  table(
    ['configuration', ...columns.map(([title]) => title)],
    pairs.map((
      [base, variant],
    ) => [
      variant.name,
      ...columns.map(([, key]) =>
        `${ms(median(variant[key]))} (${delta(variant[key], base[key]) >= 0 ? '+' : ''}${ms(delta(variant[key], base[key]))})`
      ),
    ]),
  ),
);
process.exit(0);
