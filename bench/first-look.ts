// `npm run bench:first-look [-- --runs N --pages form,article,…]`: where a navigation's fresh
// observation spends its time on ordinary pages, beside Chromium's own floor in the same run.
//
// An in-process pagewire server logs every CDP message it sends and receives (the debug log), each
// stamped here as it is written; one session navigates (`act navigate`, which answers with the new
// page's observation) to each page N times, alternating with the raw CDP load floor (a Chromium of
// its own: `Page.navigate` until `load`, then one `Accessibility.getFullAXTree`, bench/peers/cdp-floor.ts).
// Per page it prints the medians of each phase, in ms from `Page.navigate` being sent:
//   load        the page's load event reached the server (what the floor waits for too)
//   world       our isolated world's context, asked after load (Page.createIsolatedWorld)
//   monitor     the in-page calls before the first accessibility read: the change monitor's first take
//               (it installs the in-page module in the new world) and the probes
//   read        the first accessibility call sent → the last accessibility answer
//   facts       the page's facts (DOMSnapshot, or the in-page walk and listeners) past the read
//   covers      the in-page calls after the read (what covers the elements)
//   answer      the act's answer reached the client
// The phases are cut at the first and last message of each kind, so a phase that overlaps another
// shows as the time it adds past it. Writes bench/results/first-look-<date>.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import type { RunningServer } from '../src/server.ts';
import { createLogger } from '../src/util/log.ts';
import { TestClient } from '../test/helpers/client.ts';
import { startFixtureServer } from '../test/helpers/fixture-server.ts';
import type { ActResult } from '../test/helpers/wire.ts';
import { startBenchServer } from './common.ts';
import { CdpFloor } from './peers/cdp-floor.ts';
import { PAGES } from './peers/pages.ts';
import { ROOT } from './server-process.ts';

const DEFAULT_PAGES = ['form', 'article', 'shadow-iframe', 'large-table', 'python-asyncio-task', 'python-functions'];

interface Options {
  runs: number;
  pages: string[];
}

function parseArgs(argv: string[]): Options {
  const options: Options = { runs: 9, pages: DEFAULT_PAGES };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i]!.split('=', 2) as [string, string | undefined];
    const value = inline ?? argv[++i];
    if (flag === '--runs' && Number.isInteger(Number(value)) && Number(value) >= 1) options.runs = Number(value);
    else if (flag === '--pages' && value && value.split(',').every((id) => PAGES.some((p) => p.id === id))) {
      options.pages = value.split(',');
    } else {
      console.error(`bench:first-look: bad argument ${argv[i]} (--runs N, --pages ${PAGES.map((p) => p.id).join(',')})`);
      process.exit(2);
    }
  }
  return options;
}

/** One CDP message as the server's debug log wrote it, stamped when written. */
interface Message {
  at: number;
  direction: 'send' | 'recv';
  id?: number;
  method?: string;
  /** The page module's function a Runtime.callFunctionOn calls. */
  pageFunction?: string;
}

const PHASES = ['load', 'world', 'monitor', 'read', 'facts', 'covers', 'answer'] as const;
type Phase = typeof PHASES[number];

const READS = new Set(['Accessibility.getFullAXTree', 'Accessibility.getPartialAXTree', 'Accessibility.queryAXTree']);
const FACTS = new Set(['DOMSnapshot.captureSnapshot', 'DOMDebugger.getEventListeners']);
/** The page module's functions that read the page's facts (the in-page walk). */
const FACT_FUNCTIONS = new Set(['pageFacts', 'pseudoFacts']);

/** The end of each phase of one navigation, in ms from `Page.navigate` being sent. */
function phasesOf(messages: Message[], answeredAt: number): Record<Phase, number> | undefined {
  const navigate = messages.find((m) => m.direction === 'send' && m.method === 'Page.navigate');
  if (!navigate) return undefined;
  const t = (m: Message | undefined) => (m ? m.at - navigate.at : NaN);
  // An answer is named by what was sent.
  const sent = new Map<number, Message>();
  for (const m of messages) if (m.direction === 'send' && m.id !== undefined && m.method) sent.set(m.id, m);
  const named = messages.map((m) => {
    const request = m.id === undefined ? undefined : sent.get(m.id);
    return { ...m, method: m.method ?? request?.method, pageFunction: m.pageFunction ?? request?.pageFunction };
  });
  const isFacts = (m: Message) => FACTS.has(m.method ?? '') || FACT_FUNCTIONS.has(m.pageFunction ?? '');
  const load = named.find((m) => m.direction === 'recv' && m.method === 'Page.loadEventFired');
  const after = named.filter((m) => load && m.at >= load.at);
  const firstRead = after.find((m) => m.direction === 'send' && READS.has(m.method ?? ''));
  const lastOf = (kind: (m: Message) => boolean) => after.filter((m) => m.direction === 'recv' && m.id !== undefined && kind(m)).at(-1);
  const world = after.find((m) => m.direction === 'recv' && m.method === 'Page.createIsolatedWorld' && m.id !== undefined);
  const beforeRead = after.filter((m) => m.direction === 'recv' && m.id !== undefined && firstRead && m.at <= firstRead.at);
  const lastRead = lastOf((m) => READS.has(m.method ?? ''));
  const lastFacts = lastOf(isFacts);
  const pageCallsAfter = after.filter((m) =>
    m.direction === 'recv' && m.method === 'Runtime.callFunctionOn' && m.id !== undefined && lastRead && m.at > lastRead.at && !isFacts(m)
  );
  const load_ = t(load);
  const world_ = world ? t(world) : load_;
  const monitor = Math.max(world_, t(beforeRead.at(-1)));
  const read = t(lastRead);
  const facts = Math.max(read, t(lastFacts));
  const covers = Math.max(facts, t(pageCallsAfter.at(-1)));
  return { load: load_, world: world_, monitor, read, facts, covers, answer: answeredAt - navigate.at };
}

function median(values: number[]): number {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[Math.floor(sorted.length / 2)]!;
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const fixtures = await startFixtureServer();
  let messages: Message[] = [];
  let recording = false;
  const sink = (line: string) => {
    if (!recording) return;
    const match = /debug cdp: (send|recv) (\{.*)/.exec(line);
    if (!match) return;
    const id = /^\{"id":(\d+)/.exec(match[2]!)?.[1];
    const method = /"method":"([A-Za-z.]+)"/.exec(match[2]!.slice(0, 80))?.[1];
    // A call into the page module names its function (src/browser/page-module.ts): the facts walk is facts.
    const pageFunction = method === 'Runtime.callFunctionOn' ? /return (?:m|api)\.(\w+)\.apply/.exec(match[2]!)?.[1] : undefined;
    messages.push({
      ...(pageFunction ? { pageFunction } : {}),
      at: performance.now(),
      direction: match[1] as 'send' | 'recv',
      ...(id ? { id: Number(id) } : {}),
      ...(method ? { method } : {}),
    });
  };
  let server: RunningServer | undefined;
  let client: TestClient | undefined;
  const floor = new CdpFloor(`first-look-floor-${process.pid}`, '/usr/bin/chromium', { afterLoad: true });
  const report: Array<{ page: string; runs: number; pagewire: Record<Phase, number>; floor_ms: number; ratio: number }> = [];
  try {
    const started = await startBenchServer(['--log-level', 'debug'], createLogger({ level: 'debug', sink }));
    server = started.server;
    client = await TestClient.connect(started.url, { checkWire: false });
    await floor.start();
    const { session_id } = await client.call('session.create', {}) as { session_id: string };
    console.log(`bench:first-look: ${options.runs} navigations a page, alternating with the load floor (load ${loadavg()[0]!.toFixed(1)})`);
    for (const id of options.pages) {
      const page = PAGES.find((p) => p.id === id)!;
      const url = fixtures.url(page.path);
      // Untimed: the page once, so that neither side pays its first fetch.
      await client.call('act', { session_id, action: 'navigate', url });
      await floor.navigate(url, page);
      const runs: Array<Record<Phase, number>> = [];
      const floors: number[] = [];
      for (let i = 0; i < options.runs; i++) {
        messages = [];
        recording = true;
        const result = await client.call('act', { session_id, action: 'navigate', url }) as ActResult;
        const answeredAt = performance.now();
        recording = false;
        if (result.status !== 'completed' || !result.fresh_state) {
          throw new Error(`navigate to ${page.path}: ${result.status} ${result.error_text ?? ''}`);
        }
        const phases = phasesOf(messages, answeredAt);
        if (phases) runs.push(phases);
        const t0 = performance.now();
        const floored = await floor.navigate(url, page);
        if (!floored.ok) throw new Error(`the floor on ${page.path}: ${floored.error}`);
        floors.push(performance.now() - t0);
      }
      const pagewire = Object.fromEntries(PHASES.map((phase) => [phase, Math.round(median(runs.map((r) => r[phase])))])) as Record<
        Phase,
        number
      >;
      const floorMs = Math.round(median(floors));
      report.push({ page: id, runs: runs.length, pagewire, floor_ms: floorMs, ratio: Math.round((pagewire.answer / floorMs) * 100) / 100 });
      console.log(
        `  ${id}: ${PHASES.map((phase) => `${phase} ${pagewire[phase]}`).join(', ')}; floor ${floorMs} (${
          (pagewire.answer / floorMs).toFixed(2)
        }×)`,
      );
    }
  } finally {
    client?.close();
    await server?.close();
    await floor.stop();
    await fixtures.close();
  }
  mkdirSync(`${ROOT}bench/results`, { recursive: true });
  const file = `${ROOT}bench/results/first-look-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
  writeFileSync(file, JSON.stringify({ date: new Date().toISOString(), load_after: loadavg()[0], pages: report }, null, 1) + '\n');
  console.log(`wrote ${file.slice(ROOT.length)}`);
}

main().catch((error: unknown) => {
  console.error('bench:first-look failed:', error);
  process.exit(1);
});
