// `npm run bench:scale [-- --seconds S --steps 1,2,4,8,16]`: many agents on one server.
//
// One server process (`node dist/src/main.js`, launching its own browser), and for each step N
// clients, each with its own WebSocket connection and session, each on its own tab of
// fixtures/pages/counter.html, each clicking "Increment" with the fresh observation of its
// previous answer (an agent's loop: act, read the answer, act on it) for S seconds. Per step:
// clicks per second (all clients), the latency's p50 and p95, and the memory (PSS) of the whole
// process tree (server and browser) at the end of the step. Sessions of a step are closed before
// the next one starts. Tabs open before a step's clock starts, and its first second is not counted.
// After each step, the same step on the floor (bench/scale-floor.ts): Chromium alone, N contexts
// clicking and reading their accessibility trees over raw CDP, with no server (--no-floor skips it).
//
// Issue 34's goal, shown with its verdict and the floor's own ratio beside it: with 16 sessions,
// throughput ≥ 0.9× the best throughput of any step, and p95 ≤ 3× p50. Writes
// bench/results/scale-<date>.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { TestClient } from '../test/helpers/client.ts';
import { startFixtureServer } from '../test/helpers/fixture-server.ts';
import { ref } from '../test/helpers/wire.ts';
import type { ActResult, Observation } from '../test/helpers/wire.ts';
import { memoryOf } from './peers/procs.ts';
import { ScaleFloor } from './scale-floor.ts';
import { ROOT, startServerProcess } from './server-process.ts';

export interface ScaleOptions {
  seconds: number;
  steps: number[];
  /** The floor's browser; no floor steps when absent. */
  floorBrowser?: string;
}

/** Clicks per second of a step and its latencies. */
export interface StepRates {
  clicks_per_s: number;
  p50_ms: number;
  p95_ms: number;
}

export interface ScaleStep {
  sessions: number;
  clicks: number;
  clicks_per_s: number;
  p50_ms: number;
  p95_ms: number;
  errors: number;
  tree_pss_mib: number | undefined;
  load_after: number;
  /** The raw CDP floor's step of the same size (bench/scale-floor.ts). */
  floor?: StepRates;
}

/** Not counted at the start of a step: every agent's first clicks on its new tab. */
const WARM_MS = 1_000;

export const SCALE_STEPS = [1, 2, 4, 8, 16];

function parseArgs(argv: string[]): ScaleOptions {
  const options: ScaleOptions = { seconds: 15, steps: SCALE_STEPS, floorBrowser: '/usr/bin/chromium' };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i]!.split('=', 2) as [string, string | undefined];
    if (flag === '--no-floor') {
      delete options.floorBrowser;
      continue;
    }
    const value = inline ?? argv[++i];
    if (flag === '--browser' && value) options.floorBrowser = value;
    else if (flag === '--seconds' && Number(value) >= 2) options.seconds = Number(value);
    else if (flag === '--steps' && value && value.split(',').every((n) => Number.isInteger(Number(n)) && Number(n) >= 1)) {
      options.steps = value.split(',').map(Number);
    } else {
      console.error(`bench:scale: bad argument ${argv[i]} (--seconds N ≥ 2, --steps 1,2,4,…, --browser PATH, --no-floor)`);
      process.exit(2);
    }
  }
  return options;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** One agent: its own connection, session and tab, clicking with the observation it was last given. */
class Agent {
  readonly #client: TestClient;
  readonly #sessionId: string;
  #observation: Observation;

  private constructor(client: TestClient, sessionId: string, observation: Observation) {
    this.#client = client;
    this.#sessionId = sessionId;
    this.#observation = observation;
  }

  static async open(url: string, page: string): Promise<Agent> {
    // Replies are not checked against their schemas here: the clients share the machine with the server.
    const client = await TestClient.connect(url, { checkWire: false });
    try {
      const { session_id, target_id } = await client.call('session.create', {}) as { session_id: string; target_id: string };
      const opened = await client.call('tabs.new', { session_id, url: page, observe: true }) as { observation: Observation };
      await client.call('tabs.close', { session_id, target_id });
      return new Agent(client, session_id, opened.observation);
    } catch (error) {
      client.close();
      throw error;
    }
  }

  /** Clicks until `until` (performance.now()); latencies of the clicks begun at or after `countFrom`. */
  async clickUntil(until: number, countFrom: number): Promise<{ latencies: number[]; errors: number }> {
    const latencies: number[] = [];
    let errors = 0;
    while (performance.now() < until) {
      const t0 = performance.now();
      const result = await this.#client.call('act', {
        session_id: this.#sessionId,
        state_id: this.#observation.state_id,
        action: 'click',
        ref: ref(this.#observation, 'Increment', 'button'),
      }) as ActResult;
      const took = performance.now() - t0;
      if ((result.status !== 'completed' && result.status !== 'verified') || !result.fresh_state) {
        errors++;
        this.#observation = await this.#client.call('observe', { session_id: this.#sessionId }) as Observation;
        continue;
      }
      this.#observation = result.fresh_state;
      if (t0 >= countFrom) latencies.push(took);
    }
    return { latencies, errors };
  }

  async close(): Promise<void> {
    try {
      await this.#client.call('session.close', { session_id: this.#sessionId });
    } finally {
      this.#client.close();
    }
  }
}

export interface ScaleReport {
  seconds: number;
  steps: ScaleStep[];
  /** The largest step's throughput ÷ the best step's. */
  throughput_ratio: number;
  /** The largest step's p95 ÷ its p50. */
  spread: number;
  /** The same ratios of the floor's steps, when it ran. */
  floor_throughput_ratio?: number;
  floor_spread?: number;
}

/** Clicks per second over `seconds`, and the p50 and p95 of `latencies`. */
function rates(latencies: number[], seconds: number): StepRates {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    clicks_per_s: Math.round((sorted.length / seconds) * 10) / 10,
    p50_ms: Math.round(percentile(sorted, 50)),
    p95_ms: Math.round(percentile(sorted, 95)),
  };
}

/** Runs the steps on a server process of its own (`dist/`, built); `log` gets a line per step. */
export async function runScale(options: ScaleOptions, log: (line: string) => void): Promise<ScaleReport> {
  const fixtures = await startFixtureServer();
  const server = await startServerProcess();
  const floor = options.floorBrowser ? new ScaleFloor(options.floorBrowser, `scale-floor-${process.pid}`) : undefined;
  const results: ScaleStep[] = [];
  try {
    log(`bench:scale: steps ${options.steps.join(', ')}, ${options.seconds} s each (load ${loadavg()[0]!.toFixed(1)})`);
    const page = fixtures.url('/counter.html');
    // One untimed session first: the browser's launch and first renderer are not a step's cost.
    const first = await Agent.open(server.url, page);
    await first.clickUntil(performance.now() + 1_000, Infinity);
    await first.close();
    for (const sessions of options.steps) {
      // Every agent has its tab before the clock starts: opening tabs is not what is measured.
      const agents = await Promise.all(Array.from({ length: sessions }, () => Agent.open(server.url, page)));
      const started = performance.now();
      const countFrom = started + WARM_MS;
      const deadline = started + options.seconds * 1_000;
      const runs = await Promise.all(agents.map((agent) => agent.clickUntil(deadline, countFrom)));
      await Promise.all(agents.map((agent) => agent.close()));
      const counted = (deadline - countFrom) / 1_000;
      const latencies = runs.flatMap((r) => r.latencies);
      const memory = memoryOf(`scale-${server.child.pid}`, [server.child.pid!]);
      const step: ScaleStep = {
        sessions,
        clicks: latencies.length,
        ...rates(latencies, counted),
        errors: runs.reduce((n, r) => n + r.errors, 0),
        tree_pss_mib: memory.server_mib === undefined ? undefined : Math.round((memory.server_mib + (memory.browser_mib ?? 0)) * 10) / 10,
        load_after: Math.round(loadavg()[0]! * 10) / 10,
      };
      if (floor) {
        step.floor = rates(await floor.step(sessions, page, { seconds: options.seconds, warmMs: WARM_MS }), counted);
      }
      results.push(step);
      log(
        `  ${sessions} session(s): ${step.clicks_per_s} clicks/s, p50 ${step.p50_ms} ms, p95 ${step.p95_ms} ms, ` +
          `${step.errors} errors, tree ${step.tree_pss_mib ?? '?'} MiB PSS (load ${step.load_after})` +
          (step.floor ? `; floor ${step.floor.clicks_per_s} clicks/s, p50 ${step.floor.p50_ms} ms, p95 ${step.floor.p95_ms} ms` : ''),
      );
    }
  } finally {
    await floor?.stop();
    server.child.kill('SIGTERM');
    await new Promise((resolve) => server.child.once('exit', resolve));
    await fixtures.close();
  }
  const ratios = (of: (step: ScaleStep) => StepRates | undefined) => {
    const best = Math.max(...results.map((r) => of(r)?.clicks_per_s ?? 0));
    const top = of(results.find((r) => r.sessions === Math.max(...options.steps))!);
    return top && best > 0
      ? { throughput: Math.round((top.clicks_per_s / best) * 100) / 100, spread: Math.round((top.p95_ms / top.p50_ms) * 100) / 100 }
      : undefined;
  };
  const mine = ratios((step) => step)!;
  const floors = ratios((step) => step.floor);
  return {
    seconds: options.seconds,
    steps: results,
    throughput_ratio: mine.throughput,
    spread: mine.spread,
    ...(floors ? { floor_throughput_ratio: floors.throughput, floor_spread: floors.spread } : {}),
  };
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const report = await runScale(options, console.log);
  const throughput = report.throughput_ratio;
  const spread = report.spread;
  const top = report.steps.at(-1)!;
  console.log(
    `\n${top.sessions} sessions: throughput ${throughput.toFixed(2)}× the best step (goal ≥ 0.9×: ${
      throughput >= 0.9 ? 'met' : 'MISSED'
    }), ` +
      `p95 ${spread.toFixed(2)}× p50 (goal ≤ 3×: ${spread <= 3 ? 'met' : 'MISSED'})` +
      (report.floor_throughput_ratio === undefined
        ? ''
        : `; the raw CDP floor: throughput ${report.floor_throughput_ratio.toFixed(2)}× its best step, p95 ${
          report.floor_spread!.toFixed(2)
        }× p50`),
  );
  mkdirSync(`${ROOT}bench/results`, { recursive: true });
  const file = `${ROOT}bench/results/scale-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
  writeFileSync(file, JSON.stringify({ date: new Date().toISOString(), ...report }, null, 1) + '\n');
  console.log(`wrote ${file.slice(ROOT.length)}`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error: unknown) => {
    console.error('bench:scale failed:', error);
    process.exit(1);
  });
}
