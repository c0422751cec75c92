// `npm run bench:find [-- --runs N]`: observe's find (PROTOCOL.md §6 "find") of the last entry of a
// long documentation index against a first look of the same page (issue 33: a find costs no more
// than a first look). Each run opens the page in a fresh tab (a new document: nothing read, no
// world set up) and times one call on it: the first look (`observe {}`), or the find. A find on a
// page already looked at is timed too (what an agent pays for its second question). Prints a table
// and writes the numbers to bench/results/find-<date>.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import process from 'node:process';
import { parseConfig } from '../src/config.ts';
import { type RunningServer, startServer } from '../src/server.ts';
import { TestClient } from '../test/helpers/client.ts';
import { type FixtureServer, startFixtureServer } from '../test/helpers/fixture-server.ts';
import type { Observation } from '../test/helpers/wire.ts';
import { ms, parseRuns, type Stats, stats, table, timed, utf8 } from './common.ts';

interface Case {
  page: string;
  path: string;
  /** The words of the find, and the name of the element it must answer. */
  find: string;
  expect: string;
}

const CASES: Case[] = [
  { page: 'long-index (2.2 MB)', path: '/long-index.html', find: 'zzone_seek', expect: 'zzone_seek()' },
  { page: 'python genindex-all (1.7 MB)', path: '/python-docs/genindex-all.html', find: 'gather asyncio', expect: '(in module asyncio)' },
];

interface Measured {
  stats: Stats;
  bytes: number;
  /** Calls without the answer: a first look with no element, a find without the entry (a budget run out). */
  misses: number;
}

async function main(): Promise<void> {
  const runs = parseRuns(process.argv.slice(2));
  let fixtures: FixtureServer | undefined;
  let server: RunningServer | undefined;
  let client: TestClient | undefined;
  const rows: string[][] = [];
  const json: Record<string, Record<string, Measured>> = {};
  try {
    fixtures = await startFixtureServer();
    const token = `bench-${crypto.randomUUID()}`;
    const config = parseConfig(['--host', '127.0.0.1', '--port', '0', '--token', token], {
      PAGEWIRE_BROWSER: process.env.PAGEWIRE_BROWSER,
    });
    server = await startServer(config, { runtime: `node ${process.version}` });
    // Unchecked: the schema check would add its own time to every measured call.
    client = await TestClient.connect(`${server.url}?token=${encodeURIComponent(token)}`, { checkWire: false });
    const c = client;
    const { session_id } = await c.call('session.create', { name: 'bench-find' });
    /** One call on the page in a fresh tab, closed after. */
    const onFreshTab = async (url: string, params: Record<string, unknown>) => {
      const { target_id } = await c.call('tabs.new', { session_id, url });
      try {
        return await timed(() => c.call<Observation>('observe', { session_id, target_id, ...params }));
      } finally {
        await c.call('tabs.close', { session_id, target_id }).catch(() => {});
      }
    };
    for (const spec of CASES) {
      const url = fixtures.url(spec.path);
      const kinds: Record<string, { samples: number[]; bytes: number }> = {
        'first look (observe {})': { samples: [], bytes: 0 },
        'find, fresh document': { samples: [], bytes: 0 },
        'find, after a first look': { samples: [], bytes: 0 },
      };
      const misses: Record<string, number> = Object.fromEntries(Object.keys(kinds).map((kind) => [kind, 0]));
      for (let i = 0; i < runs; i++) {
        const look = await onFreshTab(url, {});
        kinds['first look (observe {})']!.samples.push(look.ms);
        if (look.value.elements.length === 0) misses['first look (observe {})']!++;
        kinds['first look (observe {})']!.bytes = utf8(JSON.stringify(look.value));
        const found = await onFreshTab(url, { find: spec.find });
        // A loaded machine may run a call out of its budget (an unavailable frame): counted, not fatal.
        if (!found.value.elements.some((element) => element.name === spec.expect)) misses['find, fresh document']!++;
        kinds['find, fresh document']!.samples.push(found.ms);
        kinds['find, fresh document']!.bytes = utf8(JSON.stringify(found.value));
        const { target_id } = await c.call('tabs.new', { session_id, url });
        await c.call('observe', { session_id, target_id });
        const again = await timed(() => c.call<Observation>('observe', { session_id, target_id, find: spec.find }));
        await c.call('tabs.close', { session_id, target_id }).catch(() => {});
        kinds['find, after a first look']!.samples.push(again.ms);
        if (!again.value.elements.some((element) => element.name === spec.expect)) misses['find, after a first look']!++;
        kinds['find, after a first look']!.bytes = utf8(JSON.stringify(again.value));
      }
      json[spec.page] = {};
      for (const [kind, { samples, bytes }] of Object.entries(kinds)) {
        const s = stats(samples);
        json[spec.page]![kind] = { stats: s, bytes, misses: misses[kind]! };
        rows.push([spec.page, kind, ms(s.median_ms), ms(s.p90_ms), String(bytes), String(misses[kind])]);
      }
    }
  } finally {
    client?.close();
    await server?.close();
    await fixtures?.close();
  }
  console.log(table(['page', 'call', 'median ms', 'p90 ms', 'answer bytes', 'misses'], rows, 2));
  mkdirSync('bench/results', { recursive: true });
  const file = `bench/results/find-${new Date().toISOString().slice(0, 10)}.json`;
  writeFileSync(file, JSON.stringify({ runs, results: json }, null, 2));
  console.log(`wrote ${file}`);
}

await main();
