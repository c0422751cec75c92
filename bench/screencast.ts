// `npm run bench:screencast [-- --runs N]`: what a person watching costs the agent. An agent's
// act (a click, with its fresh observation) and observe on form.html, timed without a viewer and
// with a second connection watching the tab through screencast.start (defaults: 10 fps, quality
// 60), in alternating blocks so that drift of the machine falls on both alike. Prints a table
// and writes every sample to bench/results/screencast-<date>.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import process from 'node:process';
import { TestClient } from '../test/helpers/client.ts';
import { startFixtureServer } from '../test/helpers/fixture-server.ts';
import type { ActResult, Observation } from '../test/helpers/wire.ts';
import { ms, parseRuns, startBenchServer, stats, table, timed, WARMUPS } from './common.ts';

/** Alternating blocks (without, with, without, …), each of `runs / BLOCKS` samples per call. */
const BLOCKS = 6;

const runs = parseRuns(process.argv.slice(2));
const fixtures = await startFixtureServer();
const { server, url } = await startBenchServer();
try {
  const agent = await TestClient.connect(url, { checkWire: false });
  const viewer = await TestClient.connect(url, { checkWire: false });
  const { session_id } = await agent.call('session.create', { name: 'bench-screencast' });
  const { target_id } = await agent.call('tabs.new', { session_id, url: fixtures.url('/form.html') });
  let state: Observation = await agent.call('observe', { session_id, target_id });
  const checkbox = () => state.elements.find((e) => e.role === 'checkbox' && e.name === 'Email me')!.ref;
  const act = async () => {
    const result = await agent.call<ActResult>('act', {
      session_id,
      target_id,
      state_id: state.state_id,
      action: 'click',
      ref: checkbox(),
    });
    if (!result.fresh_state) throw new Error(`act ${result.status}: ${result.error_text ?? ''}`);
    state = result.fresh_state;
  };
  const observe = async () => {
    state = await agent.call('observe', { session_id, target_id });
  };
  const samples = { act: { without: [] as number[], with: [] as number[] }, observe: { without: [] as number[], with: [] as number[] } };
  let frames = 0;
  /** From screencast.start to the viewer's first frame (what the inspector's first live picture waits for). */
  const firstFrame: number[] = [];
  for (let i = 0; i < WARMUPS; i++) {
    await act();
    await observe();
  }
  const perBlock = Math.max(1, Math.ceil(runs / BLOCKS));
  for (let block = 0; block < BLOCKS * 2; block++) {
    const watching = block % 2 === 1;
    if (watching) {
      const started = performance.now();
      const { subscription_id } = await viewer.call('screencast.start', { session_id, target_id });
      // Timed from the first frame on: the viewer is really watching.
      await viewer.waitForNotification((n) => (n.params as { subscription_id?: string }).subscription_id === subscription_id);
      firstFrame.push(performance.now() - started);
    }
    for (let i = 0; i < perBlock; i++) {
      samples.act[watching ? 'with' : 'without'].push((await timed(act)).ms);
      samples.observe[watching ? 'with' : 'without'].push((await timed(observe)).ms);
    }
    if (watching) {
      await viewer.call('screencast.stop', { session_id, target_id });
      frames = viewer.notifications.length;
    }
  }
  const rows = (['act', 'observe'] as const).flatMap((call) =>
    (['without', 'with'] as const).map((mode) => {
      const s = stats(samples[call][mode]);
      return [
        call,
        mode === 'with' ? 'viewer watching' : 'no viewer',
        String(s.samples_ms.length),
        ms(s.median_ms),
        ms(s.p90_ms),
        ms(s.min_ms),
      ];
    })
  );
  const first = stats(firstFrame);
  rows.push([
    'first frame',
    'screencast.start → frame',
    String(first.samples_ms.length),
    ms(first.median_ms),
    ms(first.p90_ms),
    ms(first.min_ms),
  ]);
  console.log(table(['call', 'screencast', 'n', 'median ms', 'p90 ms', 'min ms'], rows, 2));
  console.log(`frames delivered to the viewer: ${frames}; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  const file = new URL(`./results/screencast-${new Date().toISOString().slice(0, 10)}.json`, import.meta.url);
  writeFileSync(
    file,
    JSON.stringify(
      {
        date: new Date().toISOString(),
        runtime: `node ${process.version}`,
        page: 'form.html',
        frames_delivered: frames,
        act: { without: stats(samples.act.without), with: stats(samples.act.with) },
        observe: { without: stats(samples.observe.without), with: stats(samples.observe.with) },
        first_frame: first,
      },
      null,
      2,
    ) + '\n',
  );
  agent.close();
  viewer.close();
} finally {
  await server.close();
  await fixtures.close();
}
