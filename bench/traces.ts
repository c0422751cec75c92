// `npm run bench:traces`: how big a trace gets (PROTOCOL.md §16, docs/traces.md). A run of 56
// steps on real-looking pages (a tab, 25 observe + scroll pairs across a to-do app, a shop behind
// a cookie dialog, an article, a counter and a cart, a navigate before every fifth), exported; prints the file's size and what it holds (steps, frames, the
// JSON and the JPEGs apart), and what recording adds to an act (median, recorded against not).
import { readFileSync } from 'node:fs';
import { TestClient } from '../test/helpers/client.ts';
import { startFixtureServer } from '../test/helpers/fixture-server.ts';
import type { ActResult, Observation } from '../test/helpers/wire.ts';
import { readZip } from '../test/helpers/zip.ts';
import { startBenchServer, stats, timed } from './common.ts';

const PAGES = ['/todomvc.html', '/shop-consent.html', '/article.html', '/counter.html', '/cart.html'];
const PAIRS = 25;

const fixtures = await startFixtureServer();
const { server, url } = await startBenchServer();
try {
  const client = await TestClient.connect(url, { checkWire: false });
  const acts = { recorded: [] as number[], plain: [] as number[] };
  for (const recorded of [false, true]) {
    const { session_id } = await client.call('session.create', { name: 'bench-traces', trace: recorded });
    const { target_id } = await client.call('tabs.new', { session_id, url: fixtures.url(PAGES[0]!) });
    for (let i = 0; i < PAIRS; i++) {
      if (i % 5 === 0) {
        await client.call('act', { session_id, target_id, action: 'navigate', url: fixtures.url(PAGES[(i / 5) % PAGES.length]!) });
      }
      const o = await client.call<Observation>('observe', { session_id, target_id });
      // Scrolling acts on any page and changes what the frames show.
      const { ms } = await timed(() =>
        client.call<ActResult>('act', { session_id, state_id: o.state_id, action: 'scroll', delta_y: i % 2 ? -300 : 300 })
      );
      acts[recorded ? 'recorded' : 'plain'].push(ms);
    }
    if (recorded) {
      const exported = await client.call<{ path: string; size: number; steps: number; frames: number }>('trace.export', { session_id });
      const entries = readZip(new Uint8Array(readFileSync(exported.path)));
      const jpeg = entries.filter((e) => e.name.endsWith('.jpg')).reduce((n, e) => n + e.data.length, 0);
      const json = entries.filter((e) => !e.name.endsWith('.jpg')).reduce((n, e) => n + e.data.length, 0);
      console.log(`trace of ${exported.steps} steps: ${(exported.size / 1024 / 1024).toFixed(2)} MiB (${exported.size} bytes)`);
      console.log(
        `  ${exported.frames} JPEG frames: ${(jpeg / 1024).toFixed(0)} KiB, ${(jpeg / exported.frames / 1024).toFixed(1)} KiB each`,
      );
      console.log(`  JSON (steps, events, header): ${(json / 1024).toFixed(0)} KiB before deflate`);
    }
    await client.call('session.close', { session_id });
  }
  const r = stats(acts.recorded);
  const p = stats(acts.plain);
  console.log(`act (scroll) median: ${p.median_ms} ms unrecorded, ${r.median_ms} ms recorded (two frames)`);
  client.close();
} finally {
  await server.close();
  await fixtures.close();
}
