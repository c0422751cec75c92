// `npm run bench:cli [-- --runs N]`: what the `pagewire` CLI costs on top of the call it makes.
// Each client command runs as its own process (`node dist/src/main.js …`, as `npx pagewire` runs
// it), timed from spawn to exit; right after it, the same call goes through an SDK client that
// is already connected, in this process. Their difference is the CLI's own cost: starting Node,
// loading the CLI and the SDK, opening the socket, reading and writing the state file, printing.
// `node -e 0` is timed alongside, as the floor no Node program starts under. The runs are
// interleaved so that a machine's drift touches every column alike. Everything runs on loopback:
// the fixture server, an in-process pagewire server (which launches its own browser).
// Prints a table and writes every sample to bench/results/cli-<date>.json.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { connect } from '../src/client/index.ts';
import { parseConfig } from '../src/config.ts';
import { startServer } from '../src/server.ts';
import { startFixtureServer } from '../test/helpers/fixture-server.ts';
import { ms, parseRuns, round, type Stats, stats, table, WARMUPS } from './common.ts';

const ROOT = new URL('../', import.meta.url);
const MAIN = new URL('dist/src/main.js', ROOT).pathname;

function runProcess(args: string[], env: Record<string, string>): Promise<{ ms: number; code: number | null; stdout: string }> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ ms: performance.now() - started, code, stdout })));
}

async function main(): Promise<void> {
  const runs = parseRuns(process.argv.slice(2));
  const fixtures = await startFixtureServer();
  const token = `bench-${crypto.randomUUID()}`;
  const server = await startServer(parseConfig(['--port', '0', '--token', token], {}), { runtime: `node ${process.version}` });
  const url = `${server.url}?token=${token}`;
  const stateHome = mkdtempSync(join(tmpdir(), 'pagewire-bench-cli-'));
  const client = await connect(url);
  try {
    const session = await client.createSession({ name: 'bench-cli' });
    await session.tabs.new({ url: fixtures.url('/sdk/checkout.html') });
    const env = { PAGEWIRE_URL: url, PAGEWIRE_SESSION: session.id!, XDG_STATE_HOME: stateHome };
    const cli = (...args: string[]) => runProcess([MAIN, ...args], env);
    const first = await cli('observe');
    if (first.code !== 0) throw new Error(`pagewire observe exited ${first.code}`);
    const tick = /"Log tick" (@\d+)/.exec(first.stdout)?.[1];
    if (!tick) throw new Error(`no "Log tick" ref in\n${first.stdout}`);

    // Each command, and the same call through the connected SDK client. The click's twin acts on
    // a current state, observed first (untimed), as the CLI acts on the one it saved. The observe
    // twin goes first: an observation after the CLI's would supersede the state the click uses.
    const commands: Array<
      { name: string; args: string[]; twinFirst?: true; prepare?: () => Promise<string>; call: (state?: string) => Promise<unknown> }
    > = [
      { name: 'observe', args: ['observe'], twinFirst: true, call: () => session.observe() },
      {
        name: `click ${tick}`,
        args: ['click', tick],
        prepare: async () => (await session.observe()).state_id,
        call: (state) => session.act({ action: 'click', ref: tick }, { state: state! }),
      },
      { name: 'tabs', args: ['tabs'], call: () => session.tabs.list() },
    ];
    const samples: Record<string, { cli: number[]; call: number[]; own: number[]; aboveNode: number[] }> = {};
    const floor: number[] = [];
    const help: number[] = [];
    for (const command of commands) samples[command.name] = { cli: [], call: [], own: [], aboveNode: [] };
    for (let run = -WARMUPS; run < runs; run++) {
      const nodeFloor = await runProcess(['-e', '0'], {});
      const helpRun = await cli('help');
      if (run >= 0) {
        floor.push(nodeFloor.ms);
        help.push(helpRun.ms);
      }
      for (const command of commands) {
        const twin = async () => {
          const state = await command.prepare?.();
          const started = performance.now();
          await command.call(state);
          return performance.now() - started;
        };
        const before = command.twinFirst ? await twin() : 0;
        const viaCli = await cli(...command.args);
        if (viaCli.code !== 0) throw new Error(`pagewire ${command.args.join(' ')} exited ${viaCli.code}: ${viaCli.stdout}`);
        const callMs = command.twinFirst ? before : await twin();
        if (run < 0) continue;
        const entry = samples[command.name]!;
        entry.cli.push(viaCli.ms);
        entry.call.push(callMs);
        entry.own.push(viaCli.ms - callMs);
        entry.aboveNode.push(viaCli.ms - callMs - nodeFloor.ms);
      }
    }
    const rows: string[][] = [];
    const report: Record<string, { cli: Stats; call: Stats; own: Stats; above_node: Stats }> = {};
    for (const [name, entry] of Object.entries(samples)) {
      const r = { cli: stats(entry.cli), call: stats(entry.call), own: stats(entry.own), above_node: stats(entry.aboveNode) };
      report[name] = r;
      rows.push([
        `pagewire ${name}`,
        ms(r.cli.median_ms),
        ms(r.call.median_ms),
        ms(r.own.median_ms),
        ms(r.own.p90_ms),
        ms(r.above_node.median_ms),
      ]);
    }
    rows.push(['pagewire help (no socket)', ms(stats(help).median_ms), '-', '-', '-', '-']);
    rows.push(['node -e 0 (the floor)', ms(stats(floor).median_ms), '-', '-', '-', '-']);
    const load = loadavg()[0]!;
    console.log(`pagewire CLI cost per command, ${runs} runs (median ms; load ${load.toFixed(1)} on ${availableParallelism()} cores)`);
    console.log(table(['command', 'process', 'same call via SDK', 'CLI own cost', 'own p90', 'own above node -e 0'], rows));
    const dir = new URL('bench/results/', ROOT).pathname;
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `cli-${new Date().toISOString().slice(0, 10)}.json`);
    writeFileSync(
      file,
      `${
        JSON.stringify(
          {
            runs,
            node: process.version,
            load_1m: round(load),
            cores: availableParallelism(),
            commands: report,
            help: stats(help),
            node_floor: stats(floor),
          },
          null,
          2,
        )
      }\n`,
    );
    console.log(`samples: ${file}`);
    await session.close();
  } finally {
    client.close();
    await server.close();
    await fixtures.close();
    rmSync(stateHome, { recursive: true, force: true });
  }
}

await main();
