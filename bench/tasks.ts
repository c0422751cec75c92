// The agent-loop benchmark: scripted agents do the tasks of bench/tasks/list.ts through MCP, on
// pagewire (`pagewire mcp` over stdio), Playwright MCP and chrome-devtools-mcp side by side in one
// run, each on the same Chromium and the same fixture pages (127.0.0.1). What it counts is what an
// agent pays: tool calls, and bytes of text a model reads. Time is not measured here.
//
//   npm run bench:tasks            (builds pagewire, installs the peers into bench/node_modules)
//
// Goal (issue 31): in total ≤ 0.45× the calls and ≤ 0.2× the text of the best peer, and on no task
// more calls than it. The report (printed, and kept in bench/results/tasks-*.md and .json, not committed) gives each verdict.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFixtureServer } from '../test/helpers/fixture-server.ts';
import { PYTHON_DOCS_DIR } from '../test/helpers/fixture-server.ts';
import { type Agent, ChromeDevtoolsAgent, PagewireAgent, PlaywrightAgent, type TaskRun } from './tasks/agents.ts';
import { type Task, TASKS } from './tasks/list.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const MODULES = join(ROOT, 'bench/node_modules');
const BROWSER = process.env['PAGEWIRE_BROWSER'] ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p)) ??
  'chromium';
const AS_ROOT = typeof process.getuid === 'function' && process.getuid() === 0;

const GOAL = { calls: 0.45, text: 0.2 };

function agents(workDir: string): Agent[] {
  const node = process.execPath;
  return [
    new PagewireAgent({ command: node, args: [join(ROOT, 'dist/src/main.js'), 'mcp'], cwd: workDir }),
    new PlaywrightAgent({
      command: node,
      args: [
        join(MODULES, '@playwright/mcp/cli.js'),
        '--headless',
        '--executable-path',
        BROWSER,
        '--isolated',
        '--viewport-size',
        '1280x720',
        '--output-dir',
        join(workDir, 'playwright'),
        ...(AS_ROOT ? ['--no-sandbox'] : []),
      ],
      env: { PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' },
      cwd: workDir,
    }),
    new ChromeDevtoolsAgent({
      command: node,
      args: [
        join(MODULES, 'chrome-devtools-mcp/build/src/bin/chrome-devtools-mcp.js'),
        '--headless',
        '--executablePath',
        BROWSER,
        '--isolated',
        '--viewport',
        '1280x720',
        '--no-usage-statistics',
        '--no-performance-crux',
        ...(AS_ROOT ? ['--chromeArg=--no-sandbox'] : []),
      ],
      env: { CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS: '1' },
      cwd: workDir,
    }),
  ];
}

function runnable(task: Task): string | undefined {
  if (task.needs === 'python3-doc' && !existsSync(join(PYTHON_DOCS_DIR, 'search.html'))) {
    return "needs Debian's python3-doc (apt-get install python3-doc)";
  }
  return undefined;
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const ratio = (a: number, b: number) => (b === 0 ? '—' : `${(a / b).toFixed(2)}×`);

async function main(): Promise<void> {
  for (const pkg of ['@playwright/mcp', 'chrome-devtools-mcp']) {
    if (!existsSync(join(MODULES, pkg))) throw new Error(`${pkg} is not in bench/node_modules: run npm --prefix bench ci`);
  }
  if (!existsSync(join(ROOT, 'dist/src/main.js'))) throw new Error('dist/ is missing: run npm run build');
  const fixtures = await startFixtureServer();
  const workDir = mkdtempSync(join(tmpdir(), 'pagewire-bench-tasks-'));
  // BENCH_TASKS=id,id and BENCH_AGENTS=id,id run a part (to look into one task).
  const only = (name: string) => process.env[name]?.split(',');
  const tasks = TASKS.filter((task) => only('BENCH_TASKS')?.includes(task.id) ?? true).filter((task) => {
    const why = runnable(task);
    if (why) console.log(`skipped ${task.id}: ${why}`);
    return why === undefined;
  });
  const runs = new Map<string, Map<string, TaskRun>>();
  const versions = new Map<string, string>();
  const labels = new Map<string, string>();
  try {
    for (const agent of agents(workDir).filter((agent) => only('BENCH_AGENTS')?.includes(agent.id) ?? true)) {
      await agent.start();
      versions.set(agent.id, agent.version);
      labels.set(agent.id, agent.label);
      const mine = new Map<string, TaskRun>();
      runs.set(agent.id, mine);
      try {
        for (const task of tasks) {
          const run = await agent.perform(task, fixtures.origin);
          mine.set(task.id, run);
          console.log(
            `${agent.label.padEnd(20)} ${task.id.padEnd(14)} ${run.done ? 'done' : 'NOT DONE'} ${run.calls} calls ${kb(run.text_bytes)}${
              run.error ? ` (${run.error})` : ''
            }`,
          );
        }
      } finally {
        await agent.stop();
      }
    }
  } finally {
    await fixtures.close();
    rmSync(workDir, { recursive: true, force: true });
  }
  report(tasks, runs, versions, labels);
}

function report(
  tasks: readonly Task[],
  runs: Map<string, Map<string, TaskRun>>,
  versions: Map<string, string>,
  labels: Map<string, string>,
) {
  const ids = [...runs.keys()];
  const total = (id: string, key: 'calls' | 'text_bytes') => [...runs.get(id)!.values()].reduce((sum, run) => sum + run[key], 0);
  const allDone = (id: string) => [...runs.get(id)!.values()].every((run) => run.done);
  const peers = ids.filter((id) => !id.startsWith('pagewire') && allDone(id));
  const best = (key: 'calls' | 'text_bytes') => peers.length === 0 ? undefined : Math.min(...peers.map((id) => total(id, key)));
  const lines: string[] = [];
  lines.push(`# Agent-loop tasks through MCP (${new Date().toISOString().slice(0, 10)})`, '');
  lines.push(...ids.map((id) => `- ${labels.get(id)}: ${versions.get(id)}`), '');
  lines.push(`| task | ${ids.map((id) => labels.get(id)).join(' | ')} |`);
  lines.push(`| --- | ${ids.map(() => '---:').join(' | ')} |`);
  for (const task of tasks) {
    const cells = ids.map((id) => {
      const run = runs.get(id)!.get(task.id)!;
      return `${run.done ? '' : '**not done** '}${run.calls} calls, ${kb(run.text_bytes)}`;
    });
    lines.push(`| ${task.id}${task.trap ? ` (${task.trap})` : ''} | ${cells.join(' | ')} |`);
  }
  lines.push(`| **total** | ${ids.map((id) => `**${total(id, 'calls')} calls, ${kb(total(id, 'text_bytes'))}**`).join(' | ')} |`, '');
  // The verdicts compare pagewire with the peers: a partial run without it has only the table.
  const verdicts = runs.has('pagewire') ? goalVerdicts(tasks, runs, peers, total, allDone, best) : [];
  lines.push(...verdicts.map((v) => `- ${v}`), '');
  const out = lines.join('\n');
  console.log(`\n${out}`);
  const dir = join(ROOT, 'bench/results');
  mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  writeFileSync(join(dir, `tasks-${stamp}.md`), out);
  writeFileSync(
    join(dir, `tasks-${stamp}.json`),
    JSON.stringify(
      { versions: Object.fromEntries(versions), runs: Object.fromEntries([...runs].map(([id, m]) => [id, Object.fromEntries(m)])) },
      null,
      2,
    ),
  );
}

function goalVerdicts(
  tasks: readonly Task[],
  runs: Map<string, Map<string, TaskRun>>,
  peers: string[],
  total: (id: string, key: 'calls' | 'text_bytes') => number,
  allDone: (id: string) => boolean,
  best: (key: 'calls' | 'text_bytes') => number | undefined,
): string[] {
  const bestCalls = best('calls');
  const bestText = best('text_bytes');
  const calls = total('pagewire', 'calls');
  const text = total('pagewire', 'text_bytes');
  const perTask = tasks.filter((task) => {
    const own = runs.get('pagewire')!.get(task.id)!.calls;
    return peers.some((id) => runs.get(id)!.get(task.id)!.calls < own);
  });
  return [
    `every task done by pagewire: ${allDone('pagewire') ? 'yes' : 'NO'}`,
    `calls: ${calls} against the best peer's ${bestCalls ?? '—'} = ${bestCalls ? ratio(calls, bestCalls) : '—'} (goal ≤ ${GOAL.calls}×): ${
      bestCalls && calls <= GOAL.calls * bestCalls ? 'met' : 'NOT met'
    }`,
    `text: ${kb(text)} against the best peer's ${bestText ? kb(bestText) : '—'} = ${
      bestText ? ratio(text, bestText) : '—'
    } (goal ≤ ${GOAL.text}×): ${bestText && text <= GOAL.text * bestText ? 'met' : 'NOT met'}`,
    `tasks where a peer needed fewer calls: ${perTask.length === 0 ? 'none (met)' : perTask.map((task) => task.id).join(', ')}`,
  ];
}

await main();
