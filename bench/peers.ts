// `npm run bench` (from the root): pagewire (over its WebSocket and over MCP) side by side with
// Playwright MCP, chrome-devtools-mcp and agent-browser, in one run, on the same fixture pages and the same Chromium, interleaved
// call by call, with the raw CDP floor as the reference point. Writes bench/RESULTS.md (the
// report), bench/RESULTS.json (every sample of that run), bench/results/peers-<date>.json (a
// copy kept per run; both git-ignored) and the summary block at the end of bench/README.md.
//
//   --runs N          timed observations per series and contender (default 30)
//   --act-runs N      timed clicks, fills and navigations per series and contender (default 15;
//                     these carry the peers' fixed waits, and the whole run must stay near 15 min)
//   --warmups N       untimed rounds before each series (default 1)
//   --only a,b        contenders to run: pagewire, pagewire-mcp, mcp-floor (needs pagewire-mcp),
//                     playwright-mcp, chrome-devtools-mcp, agent-browser, cdp-floor, cdp-read-floor,
//                     cdp-load-floor
//                     (default: all)
//   --pages a,b       pages: large-table, long-index, form, shadow-iframe, article (default: all)
//   --browser PATH    Chromium for everyone (default /usr/bin/chromium)
//   --no-report       write only bench/results/peers-<date>.json (for trial runs; implied by
//                     --only and --pages, so a partial run never replaces the full report)
//   --no-scale        skip the series of many sessions on one server (bench/scale.ts; by default it
//                     runs after the pages, on a pagewire server of its own, once the contenders stopped)
//   --render FILE     measure nothing: write RESULTS.md and the bench/README.md block from a saved run
//                     (e.g. bench/RESULTS.json), after a change to the report's layout
//
// A contender that cannot start, or a call that fails, is reported with its reason in the
// report and on the console; the exit code is 1 when anything could not be measured.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { type FixtureServer, PYTHON_DOCS_DIR, startFixtureServer } from '../test/helpers/fixture-server.ts';
import { CdpFloor } from './peers/cdp-floor.ts';
import { waitForQuietMachine } from './peers/quiet.ts';
import type { Contender } from './peers/contender.ts';
import { AgentBrowserContender, ChromeDevtoolsMcpContender, installedVersion, PlaywrightMcpContender } from './peers/mcp-contenders.ts';
import { PagewireContender } from './peers/pagewire.ts';
import { McpFloorContender } from './peers/mcp-floor.ts';
import { PagewireMcpContender } from './peers/pagewire-mcp.ts';
import { PAGES } from './peers/pages.ts';
import { runScale, SCALE_STEPS, type ScaleReport } from './scale.ts';
import { killLeftovers, memoryOf, type MemoryReport, waitingNodeMemory } from './peers/procs.ts';
import {
  type BenchReport,
  type ContenderReport,
  renderReadmeBlock,
  renderResults,
  renderSeriesTables,
  updateReadme,
} from './peers/report.ts';
import { type PageResult, runPage } from './peers/run.ts';

const BENCH_DIR = fileURLToPath(new URL('./', import.meta.url));
const ROOT = fileURLToPath(new URL('../', import.meta.url));

interface Options {
  runs: number;
  actRuns: number;
  warmups: number;
  only: string[] | undefined;
  pages: string[] | undefined;
  browser: string;
  report: boolean;
  render: string | undefined;
  scale: boolean;
}

const CONTENDER_IDS = [
  'pagewire',
  'pagewire-mcp',
  'mcp-floor',
  'playwright-mcp',
  'chrome-devtools-mcp',
  'agent-browser',
  'cdp-floor',
  'cdp-read-floor',
  'cdp-load-floor',
];

function parseArgs(argv: string[]): Options {
  const options: Options = {
    runs: 30,
    actRuns: 15,
    warmups: 1,
    only: undefined,
    pages: undefined,
    browser: '/usr/bin/chromium',
    report: true,
    render: undefined,
    scale: true,
  };
  const value = (i: number, flag: string): string => {
    const v = argv[i + 1];
    if (v === undefined) fail(`${flag} needs a value`);
    return v;
  };
  const count = (raw: string, flag: string, min: number): number => {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min) {
      fail(`${flag} must be an integer ≥ ${min}, got ${raw}`);
    }
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i]!.split('=', 2) as [
      string,
      string | undefined,
    ];
    const take = () => inline ?? value(i++, flag);
    switch (flag) {
      case '--runs':
        options.runs = count(take(), flag, 1);
        break;
      case '--act-runs':
        options.actRuns = count(take(), flag, 1);
        break;
      case '--warmups':
        options.warmups = count(take(), flag, 0);
        break;
      case '--only':
        options.only = take().split(',');
        for (const id of options.only) {
          if (!CONTENDER_IDS.includes(id)) {
            fail(
              `unknown contender ${id} (one of ${CONTENDER_IDS.join(', ')})`,
            );
          }
        }
        break;
      case '--pages':
        options.pages = take().split(',');
        for (const id of options.pages) {
          if (!PAGES.some((p) => p.id === id)) {
            fail(
              `unknown page ${id} (one of ${PAGES.map((p) => p.id).join(', ')})`,
            );
          }
        }
        break;
      case '--browser':
        options.browser = take();
        break;
      case '--no-report':
        options.report = false;
        break;
      case '--no-scale':
        options.scale = false;
        break;
      case '--render':
        options.render = take();
        break;
      default:
        fail(`unknown argument ${argv[i]}`);
    }
  }
  // A partial run must not replace the full report.
  if (options.only || options.pages) options.report = false;
  return options;
}

function fail(message: string): never {
  console.error(`bench: ${message}`);
  process.exit(2);
}

function machine(): BenchReport['machine'] {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    memory_gib: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    os: `${os.type()} ${os.release()} (${os.arch()})`,
    node: process.version,
  };
}

function writeReport(report: BenchReport, log: (line: string) => void): void {
  writeFileSync(`${BENCH_DIR}RESULTS.md`, renderResults(report));
  const readme = updateReadme(
    `${BENCH_DIR}README.md`,
    renderReadmeBlock(report),
  );
  // Laid out as `npm run fmt` lays them out, so that a committed run passes `fmt:check`.
  const files = [`${BENCH_DIR}RESULTS.md`, ...(readme ? [`${BENCH_DIR}README.md`] : [])];
  const root = join(BENCH_DIR, '..');
  const fmt = spawnSync(join(root, 'node_modules', '.bin', 'deno'), ['fmt', '--quiet', '--config', join(root, 'deno.json'), ...files], {
    cwd: root,
    stdio: 'inherit',
  });
  if (fmt.status !== 0) log(`deno fmt did not format the report (${fmt.error?.message ?? `exit ${fmt.status}`}): run \`npm run fmt\``);
  log(
    `wrote bench/RESULTS.md${readme ? '; updated the summary in bench/README.md' : ' (bench/README.md has no bench markers: not touched)'}`,
  );
}

async function main(): Promise<number> {
  const options = parseArgs(process.argv.slice(2));
  if (options.render) {
    // The samples are not committed: a clone has none until a run writes them.
    if (!existsSync(options.render)) {
      fail(
        `no saved run at ${options.render}: \`npm run bench\` writes bench/RESULTS.json`,
      );
    }
    writeReport(
      JSON.parse(readFileSync(options.render, 'utf8')) as BenchReport,
      console.log,
    );
    return 0;
  }
  const started = performance.now();
  const date = new Date();
  const log = (line: string) => console.log(line);
  if (!existsSync(options.browser)) {
    fail(`no browser at ${options.browser} (give one with --browser PATH)`);
  }
  if (!existsSync(`${ROOT}dist/src/main.js`)) {
    fail(
      'dist/src/main.js is missing: run `npm run build` first (npm run bench does)',
    );
  }

  const nonce = Math.random().toString(36).slice(2, 8);
  let pagewireMcp: PagewireMcpContender | undefined;
  const all: Array<
    {
      id: string;
      make: () => Contender;
      unavailable?: () => string | undefined;
    }
  > = [
    {
      id: 'pagewire',
      make: () => new PagewireContender(`pagewire-${nonce}`, options.browser),
    },
    {
      id: 'pagewire-mcp',
      make: () => (pagewireMcp = new PagewireMcpContender(`pagewire-mcp-${nonce}`, options.browser)),
    },
    {
      // Right after pagewire over MCP: each round it replays that contender's call of the round.
      id: 'mcp-floor',
      make: () => new McpFloorContender(`mcp-floor-${nonce}`, () => pagewireMcp),
      unavailable: () => (options.only && !options.only.includes('pagewire-mcp') ? 'it replays pagewire-mcp, which is not run' : undefined),
    },
    {
      id: 'playwright-mcp',
      make: () => new PlaywrightMcpContender(`playwright-mcp-${nonce}`, options.browser),
      unavailable: PlaywrightMcpContender.unavailable,
    },
    {
      id: 'chrome-devtools-mcp',
      make: () =>
        new ChromeDevtoolsMcpContender(
          `chrome-devtools-mcp-${nonce}`,
          options.browser,
        ),
      unavailable: ChromeDevtoolsMcpContender.unavailable,
    },
    {
      id: 'agent-browser',
      make: () => new AgentBrowserContender(`agent-browser-${nonce}`, options.browser),
      unavailable: AgentBrowserContender.unavailable,
    },
    {
      id: 'cdp-floor',
      make: () => new CdpFloor(`cdp-floor-${nonce}`, options.browser),
    },
    {
      // What a fresh observation of pagewire's default 150 refs must read at the least (it reads
      // one past them, to know whether there are more).
      id: 'cdp-read-floor',
      make: () => new CdpFloor(`cdp-read-floor-${nonce}`, options.browser, { navigateReads: 151 }),
    },
    {
      // What a navigation whose fresh observation waits for `load` takes at the least (issue 34's floor).
      id: 'cdp-load-floor',
      make: () => new CdpFloor(`cdp-load-floor-${nonce}`, options.browser, { afterLoad: true }),
    },
  ];
  const chosen = all.filter((entry) => !options.only || options.only.includes(entry.id));
  const listed = PAGES.filter((page) => !options.pages || options.pages.includes(page.id));
  const noPythonDocs = listed.some((page) => page.pythonDocs) ? ensurePythonDocs(log) : undefined;
  if (noPythonDocs) log(`bench: the Python documentation pages are not run: ${noPythonDocs}`);
  const pages = listed.filter((page) => !(page.pythonDocs && noPythonDocs));

  const reports: ContenderReport[] = [];
  const running: Contender[] = [];
  // Interrupted or crashed: end every process of every contender (by pid, found by its tag).
  const endAll = () => {
    for (const entry of chosen) killLeftovers(`${entry.id}-${nonce}`);
  };
  process.once('exit', endAll);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      console.error(`bench: ${signal}: ending the contenders' processes`);
      process.exit(130);
    });
  }
  let fixtures: FixtureServer | undefined;
  const pageResults: PageResult[] = [];
  const loadBefore = os.loadavg();
  let exitCode = 0;
  let nodeFloorMib: number | undefined;
  try {
    if (loadBefore[0]! > os.cpus().length) {
      log(
        `bench: warning: the 1-minute load average is ${
          loadBefore[0]!.toFixed(1)
        } on ${os.cpus().length} cores; other work will inflate every time (the report records it)`,
      );
    }
    fixtures = await startFixtureServer();
    log(
      `bench: ${chosen.map((c) => c.id).join(', ')}; pages ${
        pages.map((p) => p.id).join(', ')
      }; ${options.runs} observations and ${options.actRuns} actions per series (each after ${options.warmups} untimed warm-up round${
        options.warmups === 1 ? '' : 's'
      })`,
    );
    // Start one at a time (a launch is the heaviest thing here), then open the first page.
    for (const entry of chosen) {
      const reason = entry.unavailable?.();
      const contender = entry.make();
      const report: ContenderReport = {
        id: contender.id,
        label: contender.label,
        version: contender.version,
        package_version: packageVersion(contender.id),
        command: contender.command,
        calls: contender.calls,
        status: 'ok',
      };
      reports.push(report);
      if (reason) {
        report.status = 'failed';
        report.error = reason;
        log(`  ${contender.label}: NOT RUN: ${reason}`);
        continue;
      }
      const t0 = performance.now();
      try {
        await contender.start();
        running.push(contender);
        report.start_ms = Math.round(performance.now() - t0);
        report.memory_at_start = memoryOf(contender.tag, contender.pids());
        log(
          `  ${contender.label}: started (${contender.version}) in ${report.start_ms} ms`,
        );
      } catch (error) {
        report.status = 'failed';
        report.error = `could not start: ${error instanceof Error ? error.message : String(error)}`;
        log(`  ${contender.label}: NOT RUN: ${report.error}`);
        await contender.stop().catch(() => undefined);
        killLeftovers(contender.tag);
      }
      report.version = contender.version;
      report.command = contender.command;
    }

    for (const page of pages) {
      log(`page ${page.id}`);
      const result = await runPage(page, fixtures.url(page.path), running, {
        runs: options.runs,
        actRuns: options.actRuns,
        warmups: options.warmups,
        log,
        quiet: waitForQuietMachine,
      });
      pageResults.push(result);
      log(`  ${page.id}: ${result.seconds} s`);
    }

    // Memory after the run: every contender still has its browser, on the same (last) page.
    for (const contender of running) {
      const memory: MemoryReport = memoryOf(contender.tag, contender.pids());
      reports.find((r) => r.id === contender.id)!.memory = memory;
    }
    // A baseline beside the memory verdict: without it the verdict still stands.
    nodeFloorMib = await waitingNodeMemory().catch(() => undefined);
  } finally {
    for (const contender of running) {
      await contender.stop().catch((error: unknown) => log(`  ${contender.label}: stop failed: ${String(error)}`));
    }
    // Whatever a contender left behind (a daemon, a browser) is ended by pid.
    for (const contender of running) {
      const killed = killLeftovers(contender.tag);
      if (killed.length) {
        log(
          `  ${contender.label}: ended ${killed.length} leftover process(es) after its shutdown: ${killed.join(', ')}`,
        );
        const report = reports.find((r) => r.id === contender.id)!;
        report.leftovers = killed.length;
      }
    }
    await fixtures?.close();
  }

  // Many sessions on one server, alone on the machine: every contender has stopped.
  let scale: ScaleReport | undefined;
  if (options.scale && !options.only && !options.pages) {
    log('many sessions on one server');
    try {
      scale = await runScale({ seconds: 15, steps: SCALE_STEPS, floorBrowser: options.browser }, log);
    } catch (error) {
      exitCode = 1;
      log(`  the scale series failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  const report: BenchReport = {
    date: date.toISOString(),
    runs: options.runs,
    act_runs: options.actRuns,
    warmups: options.warmups,
    seconds: Math.round((performance.now() - started) / 1000),
    machine: machine(),
    load_average: {
      before: loadBefore.map((l) => Math.round(l * 100) / 100),
      after: os.loadavg().map((l) => Math.round(l * 100) / 100),
    },
    browser: {
      path: options.browser,
      version: reports.find((r) => r.id === 'cdp-floor')?.version ?? 'unknown',
    },
    contenders: reports,
    pages: pageResults,
    ...(scale ? { scale } : {}),
    ...(nodeFloorMib !== undefined ? { node_floor_mib: nodeFloorMib } : {}),
  };

  const stamp = report.date.replace(/[:.]/g, '-');
  mkdirSync(`${BENCH_DIR}results`, { recursive: true });
  const json = JSON.stringify(report, null, 1) + '\n';
  writeFileSync(`${BENCH_DIR}results/peers-${stamp}.json`, json);
  log(`wrote bench/results/peers-${stamp}.json`);
  if (options.report) {
    writeFileSync(`${BENCH_DIR}RESULTS.json`, json);
    log('wrote bench/RESULTS.json');
    writeReport(report, log);
  }
  console.log('\n' + renderReadmeBlock(report));
  console.log('\n' + renderSeriesTables(report));

  const problems = [
    ...(noPythonDocs ? [`the Python documentation pages: ${noPythonDocs}`] : []),
    ...reports.filter((r) => r.status !== 'ok').map((r) => `${r.label}: ${r.error}`),
    ...pageResults.flatMap((p) =>
      Object.entries(p.contenders).flatMap(([id, c]) => [
        ...(c.open_error ? [`${id} on ${p.id}: ${c.open_error}`] : []),
        ...Object.entries(c.series)
          .filter(([, s]) => s && (s.status === 'failed' || s.status === 'partial') && !s.same_as)
          .map(([name, s]) => `${id} on ${p.id}, ${name}: ${s!.status} (${s!.errors} errors): ${s!.note ?? ''}`),
      ])
    ),
  ];
  if (problems.length) {
    exitCode = 1;
    console.log(`\n${problems.length} thing(s) could not be measured fully:`);
    for (const problem of problems) console.log(`  - ${problem}`);
  }
  log(`bench: done in ${report.seconds} s`);
  return exitCode;
}

/** Debian's python3-doc, installed when missing; why it cannot be, otherwise. */
function ensurePythonDocs(log: (line: string) => void): string | undefined {
  if (existsSync(join(PYTHON_DOCS_DIR, 'library', 'functions.html'))) return undefined;
  log("bench: installing Debian's python3-doc (the Python documentation pages)");
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  const apt = (args: string[]) =>
    spawnSync(root ? 'apt-get' : 'sudo', [...(root ? [] : ['apt-get']), ...args], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  let installed = apt(['install', '-y', '-qq', 'python3-doc']);
  if (installed.status !== 0) {
    apt(['update', '-qq']);
    installed = apt(['install', '-y', '-qq', 'python3-doc']);
  }
  return existsSync(join(PYTHON_DOCS_DIR, 'library', 'functions.html'))
    ? undefined
    : `python3-doc could not be installed (apt-get install python3-doc; ${installed.error?.message ?? `exit ${installed.status}`})`;
}

function packageVersion(id: string): string | undefined {
  switch (id) {
    case 'playwright-mcp':
      return installedVersion('@playwright/mcp');
    case 'chrome-devtools-mcp':
      return installedVersion('chrome-devtools-mcp');
    case 'agent-browser':
      return installedVersion('agent-browser');
    default:
      return undefined;
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error('bench failed:', error);
    process.exit(1);
  },
);
