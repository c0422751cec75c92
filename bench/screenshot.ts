// `npm run bench:screenshot [-- --runs N]`: what drawing the refs onto a screenshot costs
// (screenshot {annotate}, PROTOCOL.md §10). Plain and annotated screenshots of the same tab, in
// alternating blocks so that drift of the machine falls on both alike: the viewport at full size,
// the viewport fitted to the MCP tool's host limits, and the whole page; on team-console.html (a
// dozen refs) and buttons-400.html (hundreds of refs, most outside the viewport). Prints a table
// and writes every sample to bench/results/screenshot-<date>.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import process from 'node:process';
import { SCREENSHOT_MAX_PIXELS, SCREENSHOT_MAX_SIDE } from '../src/mcp/tools.ts';
import { TestClient } from '../test/helpers/client.ts';
import { startFixtureServer } from '../test/helpers/fixture-server.ts';
import type { Observation, ScreenshotResult } from '../test/helpers/wire.ts';
import { ms, parseRuns, startBenchServer, stats, table, timed, WARMUPS } from './common.ts';

const BLOCKS = 4;
const PAGES = ['/team-console.html', '/buttons-400.html'];
const SHAPES: Array<[string, Record<string, unknown>]> = [
  ['viewport', {}],
  ['viewport, MCP fit', { max_side: SCREENSHOT_MAX_SIDE, max_pixels: SCREENSHOT_MAX_PIXELS }],
  ['full page', { full_page: true }],
];

const runs = parseRuns(process.argv.slice(2));
const fixtures = await startFixtureServer();
const { server, url } = await startBenchServer();
try {
  const client = await TestClient.connect(url, { checkWire: false });
  const { session_id } = await client.call('session.create', { name: 'bench-screenshot' });
  const rows: string[][] = [];
  const results: Record<string, unknown> = {};
  for (const page of PAGES) {
    const { target_id } = await client.call('tabs.new', { session_id, url: fixtures.url(page) });
    const observed: Observation = await client.call('observe', { session_id, target_id });
    for (const [shape, params] of SHAPES) {
      const shoot = (annotate: boolean) =>
        client.call<ScreenshotResult>('screenshot', { session_id, target_id, ...params, ...(annotate ? { annotate: true } : {}) });
      for (let i = 0; i < WARMUPS; i++) {
        await shoot(false);
        await shoot(true);
      }
      const samples = { plain: [] as number[], annotated: [] as number[] };
      let last: ScreenshotResult | undefined;
      const perBlock = Math.max(1, Math.ceil(runs / BLOCKS));
      for (let block = 0; block < BLOCKS * 2; block++) {
        const annotate = block % 2 === 1;
        for (let i = 0; i < perBlock; i++) {
          const { ms: took, value } = await timed(() => shoot(annotate));
          samples[annotate ? 'annotated' : 'plain'].push(took);
          if (annotate) last = value;
        }
      }
      const refs = observed.elements.length;
      const notDrawn = last?.not_drawn?.length ?? 0;
      for (const mode of ['plain', 'annotated'] as const) {
        const s = stats(samples[mode]);
        rows.push([
          page.slice(1),
          shape,
          mode === 'annotated' ? `annotated (${notDrawn} refs not drawn)` : 'plain',
          `${last?.width ?? ''}x${last?.height ?? ''}`,
          String(s.samples_ms.length),
          ms(s.median_ms),
          ms(s.p90_ms),
        ]);
      }
      results[`${page.slice(1)} ${shape}`] = {
        elements: refs,
        not_drawn: notDrawn,
        plain: stats(samples.plain),
        annotated: stats(samples.annotated),
      };
    }
  }
  console.log(table(['page', 'capture', 'screenshot', 'image px', 'n', 'median ms', 'p90 ms'], rows, 3));
  console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  const file = new URL(`./results/screenshot-${new Date().toISOString().slice(0, 10)}.json`, import.meta.url);
  writeFileSync(file, JSON.stringify({ date: new Date().toISOString(), runtime: `node ${process.version}`, results }, null, 2) + '\n');
  client.close();
} finally {
  await server.close();
  await fixtures.close();
}
