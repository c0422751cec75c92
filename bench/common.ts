// What bench:observe and bench:act share: the --runs flag, timing and its statistics, waiting for
// a page's load, and the plain-text tables they print.
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import type { Tab } from '../src/browser/tab.ts';
import { parseConfig } from '../src/config.ts';
import { type RunningServer, startServer } from '../src/server.ts';
import type { Logger } from '../src/util/log.ts';
import { ascending, median, percentile, round2 } from '../test/helpers/stats.ts';

/** Untimed calls before the timed ones. */
export const WARMUPS = 3;
const LOAD_TIMEOUT_MS = 15_000;

export interface Stats {
  median_ms: number;
  p90_ms: number;
  min_ms: number;
  samples_ms: number[];
}

/** `--runs N` or `--runs=N` (default 21); exits with 2 on anything but a positive integer. */
export function parseRuns(argv: string[]): number {
  const i = argv.indexOf('--runs');
  const inline = argv.find((arg) => arg.startsWith('--runs='));
  const raw = inline ? inline.slice('--runs='.length) : i >= 0 ? argv[i + 1] : undefined;
  if (raw === undefined) return 21;
  const runs = Number(raw);
  if (!Number.isInteger(runs) || runs < 1) {
    console.error(`--runs must be a positive integer, got ${raw}`);
    process.exit(2);
  }
  return runs;
}

export const round = round2;

export function stats(samples: number[]): Stats {
  const sorted = ascending(samples);
  return {
    median_ms: round(median(sorted)),
    p90_ms: round(percentile(sorted, 0.9)),
    min_ms: round(sorted[0]!),
    samples_ms: samples.map(round),
  };
}

export const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');

export async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await fn();
  return { ms: performance.now() - start, value };
}

/** Resolves when the page (iframes included) fired `load`, bounded by 15 s. */
export async function waitForLoad(tab: Tab): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`page did not fire load within ${LOAD_TIMEOUT_MS} ms`)), LOAD_TIMEOUT_MS);
  });
  try {
    await Promise.race([
      tab.session.send('Runtime.evaluate', {
        expression:
          "new Promise((resolve) => document.readyState === 'complete' ? resolve(true) : addEventListener('load', () => resolve(true), { once: true }))",
        awaitPromise: true,
        returnByValue: true,
      }),
      bound,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** A text table; the first `leftColumns` columns are left-aligned, the rest right-aligned. */
export function table(headers: string[], rows: string[][], leftColumns = 1): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) => (i < leftColumns ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export const ms = (value: number | undefined) => (value === undefined ? '-' : value.toFixed(1));
export const num = (value: number | undefined) => (value === undefined ? '-' : String(value));

/**
 * A pagewire server in this process on loopback with a token of its own (`args`: more flags), and
 * the URL a client connects to with that token.
 */
export async function startBenchServer(args: string[] = [], log?: Logger): Promise<{ server: RunningServer; url: string }> {
  const token = crypto.randomUUID();
  const server = await startServer(parseConfig(['--host', '127.0.0.1', '--port', '0', '--token', token, ...args], {}), {
    runtime: `node ${process.version}`,
    ...(log ? { log } : {}),
  });
  return { server, url: `${server.url}?token=${encodeURIComponent(token)}` };
}
