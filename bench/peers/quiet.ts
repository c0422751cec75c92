// Before each timed call the runner waits for a quiet machine, as between an agent's calls (it
// thinks for seconds between them): a call is then timed without another tool's leftover work
// (its browser still painting, its server collecting garbage), which on a 2-core machine
// otherwise lands on whichever tool comes next in the interleaving. Linux /proc/stat.
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';

/** Quiet: fewer busy cores than this over one window… */
export const QUIET_MAX_BUSY_CORES = 0.5;
/** …of this length (/proc/stat counts in 10 ms ticks)… */
export const QUIET_WINDOW_MS = 30;
/** …waiting at most this long. */
export const QUIET_CAP_MS = 500;

/** [busy, total] CPU ticks since boot, all cores. */
function cpuTicks(): [number, number] {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
  const [user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number) as number[];
  const busy = user! + nice! + system! + irq! + softirq! + steal!;
  return [busy, busy + idle! + iowait!];
}

/** Waits until the machine is quiet (or QUIET_CAP_MS passed); the time waited, in ms. */
export async function waitForQuietMachine(): Promise<number> {
  const started = performance.now();
  const cores = availableParallelism();
  while (performance.now() - started < QUIET_CAP_MS) {
    const [busy0, total0] = cpuTicks();
    await new Promise((resolve) => setTimeout(resolve, QUIET_WINDOW_MS));
    const [busy1, total1] = cpuTicks();
    const total = total1 - total0;
    if (total > 0 && ((busy1 - busy0) / total) * cores < QUIET_MAX_BUSY_CORES) break;
  }
  return performance.now() - started;
}
