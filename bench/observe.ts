// `npm run bench:observe [-- --runs N]`: how long `observe` takes on a few representative
// fixture pages, how big its answer is, and the raw CDP floor (one Accessibility.getFullAXTree
// of the page's main frame) to compare against. Everything runs in-process on loopback: the
// fixture server, a pagewire server (which launches its own browser) and one client.
// Prints a table and writes the same numbers to bench/results/observe-<date>.json.
// Exit code: 0 when every observe succeeded, 1 otherwise (e.g. `observe` not implemented yet).
import { mkdirSync, writeFileSync } from 'node:fs';
import process from 'node:process';
import { parseConfig } from '../src/config.ts';
import type { Tab } from '../src/browser/tab.ts';
import { type RunningServer, startServer } from '../src/server.ts';
import { RpcCallError, TestClient } from '../test/helpers/client.ts';
import { type FixtureServer, startFixtureServer } from '../test/helpers/fixture-server.ts';
import { mutateJs } from './peers/contender.ts';
import { ms, num, parseRuns, type Stats, stats, table, timed, utf8, waitForLoad, WARMUPS } from './common.ts';
import type { Observation } from '../test/helpers/wire.ts';

interface PageSpec {
  path: string;
  params: Record<string, unknown>;
}

const PAGES: PageSpec[] = [
  { path: 'large-table.html', params: { max_elements: 500 } },
  { path: 'form.html', params: {} },
  { path: 'shadow-iframe.html', params: {} },
  { path: 'article.html', params: { include_text: true } },
];

interface ObserveResult {
  status: 'ok' | 'method_not_found' | 'error';
  error?: string;
  /** The first observe of the document (a full read), when measured. */
  first_ms?: number;
  stats?: Stats;
  /** UTF-8 bytes of `tree` plus `text`. */
  tree_text_bytes?: number;
  /** UTF-8 bytes of the whole result as JSON. */
  result_bytes?: number;
  elements?: number;
  truncated?: boolean;
  frames?: { observed: number; unavailable: number };
}

interface RawResult {
  status: 'ok' | 'error';
  error?: string;
  stats?: Stats;
  /** UTF-8 bytes of the getFullAXTree reply as JSON. */
  bytes?: number;
  nodes?: number;
  /** Nodes that are not ignored. */
  unignored_nodes?: number;
}

interface PageResult {
  page: string;
  params: Record<string, unknown>;
  observe: ObserveResult;
  /** Each sample right after the page changed (one text node): a partial re-read. */
  observe_changed?: ObserveResult;
  raw_ax: RawResult;
}

async function measureRaw(tab: Tab, runs: number): Promise<RawResult> {
  try {
    const call = () => tab.session.send('Accessibility.getFullAXTree', {});
    for (let i = 0; i < WARMUPS; i++) await call();
    const samples: number[] = [];
    let last: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < runs; i++) {
      const { ms, value } = await timed(call);
      samples.push(ms);
      last = value;
    }
    return {
      status: 'ok',
      stats: stats(samples),
      bytes: utf8(JSON.stringify(last)),
      nodes: last!.nodes.length,
      unignored_nodes: last!.nodes.filter((node) => !node.ignored).length,
    };
  } catch (error) {
    return { status: 'error', error: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * Times observe: of the page as it is (`change` unset; the very first call of the document is
 * reported apart, as `first_ms`), or right after `change` altered it (untimed).
 */
async function measureObserve(
  client: TestClient,
  params: Record<string, unknown>,
  runs: number,
  change?: (i: number) => Promise<void>,
): Promise<ObserveResult> {
  const call = () => client.call('observe', params);
  try {
    let first: number | undefined;
    for (let i = 0; i < WARMUPS; i++) {
      if (change) await change(-1 - i);
      const { ms } = await timed(call);
      first ??= ms;
    }
    const samples: number[] = [];
    let last: Observation | undefined;
    for (let i = 0; i < runs; i++) {
      if (change) await change(i);
      const { ms, value } = await timed(call);
      samples.push(ms);
      last = value;
    }
    const frames = last!.frames ?? [];
    return {
      status: 'ok',
      ...(change ? {} : { first_ms: Math.round(first! * 10) / 10 }),
      stats: stats(samples),
      tree_text_bytes: utf8(last!.tree ?? '') + utf8(last!.text ?? ''),
      result_bytes: utf8(JSON.stringify(last)),
      elements: last!.elements?.length ?? 0,
      truncated: last!.truncated,
      frames: {
        observed: frames.filter((f) => f.status === 'observed').length,
        unavailable: frames.filter((f) => f.status !== 'observed').length,
      },
    };
  } catch (error) {
    if (error instanceof RpcCallError && error.type === 'method_not_found') {
      return { status: 'method_not_found', error: error.message };
    }
    return { status: 'error', error: error instanceof Error ? error.message : String(error) };
  }
}

function report(results: PageResult[], runs: number): void {
  console.log(
    `\nobserve (${WARMUPS} warm-ups, median of ${runs}; client round trip over the WebSocket; "after a change": one text node changed before each call; "first": the document's first observe, a full read)`,
  );
  console.log(
    table(
      [
        'page',
        'unchanged median ms',
        'p90 ms',
        'after a change median ms',
        'p90 ms',
        'first ms',
        'tree+text B',
        'result B',
        'elements',
        'truncated',
        'frames ok/unavail',
      ],
      results.map(({ page, observe: o, observe_changed: c }) =>
        o.status === 'ok'
          ? [
            page,
            ms(o.stats?.median_ms),
            ms(o.stats?.p90_ms),
            ms(c?.stats?.median_ms),
            ms(c?.stats?.p90_ms),
            ms(o.first_ms),
            num(o.tree_text_bytes),
            num(o.result_bytes),
            num(o.elements),
            String(o.truncated),
            `${o.frames?.observed ?? 0}/${o.frames?.unavailable ?? 0}`,
          ]
          : [page, o.status === 'method_not_found' ? 'NOT IMPLEMENTED' : 'ERROR', '-', '-', '-', '-', '-', '-', '-', '-', '-']
      ),
    ),
  );
  for (const { page, observe: o, observe_changed: c } of results) {
    if (o.status === 'error') console.log(`  ${page}: ${o.error}`);
    if (c?.status === 'error') console.log(`  ${page} after a change: ${c.error}`);
  }
  console.log(`\nraw CDP floor: Accessibility.getFullAXTree of the main frame (${WARMUPS} warm-ups, median of ${runs})`);
  console.log(
    table(
      ['page', 'median ms', 'p90 ms', 'min ms', 'reply B', 'AX nodes', 'unignored'],
      results.map(({ page, raw_ax: r }) =>
        r.status === 'ok'
          ? [page, ms(r.stats?.median_ms), ms(r.stats?.p90_ms), ms(r.stats?.min_ms), num(r.bytes), num(r.nodes), num(r.unignored_nodes)]
          : [page, 'ERROR', '-', '-', '-', '-', '-']
      ),
    ),
  );
  for (const { page, raw_ax: r } of results) {
    if (r.status === 'error') console.log(`  ${page}: ${r.error}`);
  }
}

async function main(): Promise<number> {
  const runs = parseRuns(process.argv.slice(2));
  const results: PageResult[] = [];
  let fixtures: FixtureServer | undefined;
  let server: RunningServer | undefined;
  let client: TestClient | undefined;
  let browserProduct = 'unknown';
  try {
    fixtures = await startFixtureServer();
    const token = `bench-${crypto.randomUUID()}`;
    const env: Record<string, string | undefined> = { PAGEWIRE_BROWSER: process.env.PAGEWIRE_BROWSER };
    const config = parseConfig(['--host', '127.0.0.1', '--port', '0', '--token', token], env);
    server = await startServer(config, { runtime: `node ${process.version}` });
    // Unchecked: the schema check would add its own time to every measured call.
    client = await TestClient.connect(`${server.url}?token=${encodeURIComponent(token)}`, { checkWire: false });
    const { session_id } = await client.call('session.create', { name: 'bench' });

    let observeMissing = false;
    for (const spec of PAGES) {
      const url = fixtures.url(`/${spec.path}`);
      const opened = await client.call('tabs.new', { session_id, url });
      if (opened.error_text) throw new Error(`tabs.new ${spec.path}: ${opened.error_text}`);
      const { target_id } = opened;
      const browser = server.host.current;
      const tab = browser?.tab(target_id);
      if (!browser || !tab) throw new Error(`no browser tab for ${target_id}`);
      browserProduct = browser.version.product;
      await waitForLoad(tab);

      const params = { session_id, target_id, ...spec.params };
      const observe: ObserveResult = observeMissing
        ? { status: 'method_not_found', error: 'observe is not implemented (method_not_found)' }
        : await measureObserve(client, params, runs);
      if (observe.status === 'method_not_found') observeMissing = true;
      const change = async (i: number) => {
        await tab.session.send('Runtime.evaluate', { expression: mutateJs(i), returnByValue: true });
      };
      const observe_changed = observeMissing ? undefined : await measureObserve(client, params, runs, change);
      // After pagewire's: its first observe is then the page's first accessibility read.
      const raw_ax = await measureRaw(tab, runs);
      results.push({ page: spec.path, params: spec.params, observe, ...(observe_changed ? { observe_changed } : {}), raw_ax });
      await client.call('tabs.close', { session_id, target_id });
    }

    console.log(`pagewire observe bench — ${browserProduct}, node ${process.version}, runs=${runs}`);
    if (observeMissing) {
      console.log('\n*** observe is NOT IMPLEMENTED on this server (method_not_found): only the raw CDP floor was measured. ***');
    }
    report(results, runs);

    const date = new Date().toISOString();
    const dir = new URL('./results/', import.meta.url);
    mkdirSync(dir, { recursive: true });
    const file = new URL(`observe-${date.replace(/[:.]/g, '-')}.json`, dir);
    const json = { date, runs, warmups: WARMUPS, runtime: `node ${process.version}`, browser: browserProduct, pages: results };
    writeFileSync(file, JSON.stringify(json, null, 2) + '\n');
    console.log(`\nwrote ${file.pathname}`);

    const ok = results.every((r) => r.observe.status === 'ok' && r.observe_changed?.status === 'ok' && r.raw_ax.status === 'ok');
    return ok ? 0 : 1;
  } finally {
    client?.close();
    await server?.close();
    await fixtures?.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error('bench failed:', error);
    process.exit(1);
  },
);
