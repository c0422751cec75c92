// Process inspection for the "no orphan browser" tests (Linux /proc).
import { readdirSync, readFileSync } from 'node:fs';

interface ProcInfo {
  pid: number;
  ppid: number;
  state: string;
  comm: string;
}

function readProc(pid: number): ProcInfo | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // comm is in parentheses and may contain spaces; fields after it are space-separated.
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const [state, ppid] = stat.slice(close + 2).split(' ');
    return { pid, ppid: Number(ppid), state: state ?? '?', comm };
  } catch {
    return undefined;
  }
}

function allProcs(): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const info = readProc(Number(name));
    if (info) out.push(info);
  }
  return out;
}

/** Every live descendant of `pid` (children, grandchildren…). */
export function descendants(pid: number): ProcInfo[] {
  const procs = allProcs();
  const out: ProcInfo[] = [];
  const frontier = [pid];
  while (frontier.length) {
    const parent = frontier.pop()!;
    for (const proc of procs) {
      if (proc.ppid === parent && proc.state !== 'Z') {
        out.push(proc);
        frontier.push(proc.pid);
      }
    }
  }
  return out;
}

/** Alive and not a zombie (a zombie has exited; it only waits to be reaped). */
export function isAlive(pid: number): boolean {
  const info = readProc(pid);
  return info !== undefined && info.state !== 'Z';
}

/** Polls /proc until none of `pids` is alive (a non-child's exit has no event to await). */
export async function waitUntilGone(pids: number[], budgetMs: number): Promise<number[]> {
  const end = Date.now() + budgetMs;
  for (;;) {
    const alive = pids.filter(isAlive);
    if (alive.length === 0 || Date.now() > end) return alive;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
