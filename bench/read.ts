// `npm run bench:read [-- --runs N] [--browser PATH]`: what a model reads of a documentation page
// or an article, in UTF-8 bytes: pagewire's default observation (`tree`, and with room for 500
// refs), the tree with `include_text` (`tree` + `text`), observe `format: "markdown"` (`markdown`), and Playwright
// MCP's `browser_snapshot` of the same page; and how long the tree and the markdown observe take.
// pagewire runs in-process (it launches its own browser), Playwright MCP from bench/node_modules
// (`npm --prefix bench ci --ignore-scripts`) on the same Chromium. Writes
// bench/results/read-<date>.json.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import process from 'node:process';
import { parseConfig } from '../src/config.ts';
import { type RunningServer, startServer } from '../src/server.ts';
import { TestClient } from '../test/helpers/client.ts';
import { type FixtureServer, PYTHON_DOCS_DIR, startFixtureServer } from '../test/helpers/fixture-server.ts';
import type { Observation } from '../test/helpers/wire.ts';
import { ms, parseRuns, stats, table, timed, utf8, waitForLoad } from './common.ts';
import { PlaywrightMcpContender } from './peers/mcp-contenders.ts';

const PAGES = [
  '/docs-page.html',
  '/docs-code.html',
  '/python-docs.html',
  '/release-notes.html',
  '/article.html',
  '/python-docs/library/asyncio-task.html',
];

interface PageBytes {
  page: string;
  tree: number;
  /** The default tree stops at its last ref: with room for 500 refs it covers more of the page. */
  tree_500: number;
  tree_and_text: number;
  markdown: number;
  playwright_snapshot?: number;
  elements: number;
  tree_ms: number;
  markdown_ms: number;
}

function browserPath(argv: string[]): string {
  const at = argv.indexOf('--browser');
  return at >= 0 ? argv[at + 1]! : (process.env.PAGEWIRE_BROWSER ?? '/usr/bin/chromium');
}

async function median(runs: number, observe: () => Promise<unknown>): Promise<number> {
  await observe(); // the document's first read is a full one: not what a re-read costs
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) samples.push((await timed(observe)).ms);
  return stats(samples).median_ms;
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  const runs = parseRuns(argv);
  const browser = browserPath(argv);
  const pages = PAGES.filter((page) => !page.startsWith('/python-docs/') || existsSync(PYTHON_DOCS_DIR));
  const results: PageBytes[] = [];
  let fixtures: FixtureServer | undefined;
  let server: RunningServer | undefined;
  let client: TestClient | undefined;
  let playwright: PlaywrightMcpContender | undefined;
  try {
    fixtures = await startFixtureServer();
    const token = `bench-${crypto.randomUUID()}`;
    const config = parseConfig(['--host', '127.0.0.1', '--port', '0', '--token', token], { PAGEWIRE_BROWSER: browser });
    server = await startServer(config, { runtime: `node ${process.version}` });
    client = await TestClient.connect(`${server.url}?token=${encodeURIComponent(token)}`, { checkWire: false });
    const { session_id } = await client.call('session.create', { name: 'bench-read' });
    const unavailable = PlaywrightMcpContender.unavailable();
    if (unavailable) console.log(`Playwright MCP left out: ${unavailable}`);
    else {
      playwright = new PlaywrightMcpContender(`playwright-mcp-read-${crypto.randomUUID()}`, browser);
      await playwright.start();
    }
    for (const page of pages) {
      const url = fixtures.url(page);
      const { target_id } = await client.call('tabs.new', { session_id, url });
      await waitForLoad(server.host.current!.tab(target_id)!);
      const observe = (params: Record<string, unknown>): Promise<Observation> =>
        client!.call('observe', { session_id, target_id, ...params });
      const tree = await observe({});
      const withText = await observe({ include_text: true });
      const wide = await observe({ max_elements: 500 });
      const markdown = await observe({ format: 'markdown' });
      const tree_ms = await median(runs, () => observe({}));
      const markdown_ms = await median(runs, () => observe({ format: 'markdown' }));
      let playwright_snapshot: number | undefined;
      if (playwright) {
        await playwright.open(url);
        playwright_snapshot = (await playwright.observe()).wire_bytes;
      }
      results.push({
        page,
        tree: utf8(tree.tree),
        tree_500: utf8(wide.tree),
        tree_and_text: utf8(withText.tree) + utf8(withText.text ?? ''),
        markdown: utf8(markdown.markdown ?? ''),
        ...(playwright_snapshot !== undefined ? { playwright_snapshot } : {}),
        elements: tree.elements.length,
        tree_ms,
        markdown_ms,
      });
      await client.call('tabs.close', { session_id, target_id });
    }
    console.log(`pagewire read bench: bytes a model reads, ${server.host.current?.version.product}, runs=${runs}\n`);
    console.log(table(
      [
        'page',
        'tree',
        'tree (500 refs)',
        'tree + text',
        'markdown',
        'Playwright MCP snapshot',
        'refs',
        'observe ms (tree)',
        'observe ms (markdown)',
      ],
      results.map((r) => [
        r.page,
        String(r.tree),
        String(r.tree_500),
        String(r.tree_and_text),
        String(r.markdown),
        r.playwright_snapshot === undefined ? '-' : String(r.playwright_snapshot),
        String(r.elements),
        ms(r.tree_ms),
        ms(r.markdown_ms),
      ]),
    ));
    const date = new Date().toISOString();
    const dir = new URL('./results/', import.meta.url);
    mkdirSync(dir, { recursive: true });
    const file = new URL(`read-${date.replace(/[:.]/g, '-')}.json`, dir);
    writeFileSync(file, JSON.stringify({ date, runs, playwright: playwright?.version, pages: results }, null, 2) + '\n');
    console.log(`\nwrote ${file.pathname}`);
    return 0;
  } finally {
    await playwright?.stop();
    client?.close();
    await server?.close();
    await fixtures?.close();
  }
}

process.exitCode = await main();
