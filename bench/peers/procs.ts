// Which processes belong to a contender, and how much memory they hold. Every contender is
// started with PAGEWIRE_BENCH_TAG=<tag> in its environment; Chromium and daemons inherit it (an
// agent-browser daemon re-parents itself to init, so the process tree alone would miss it), and
// any descendant of a tagged process counts too. Memory is PSS from /proc/PID/smaps_rollup:
// shared pages are divided among the processes that map them, so Chromium's many processes add up
// to what they really take. Linux only; elsewhere every number is reported as unavailable.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export const TAG_VAR = 'PAGEWIRE_BENCH_TAG';

export interface ProcInfo {
  pid: number;
  ppid: number;
  exe: string;
  comm: string;
  pss_kb: number | undefined;
  rss_kb: number | undefined;
}

export interface MemoryReport {
  /** PSS of the contender's own processes (servers, daemons, Node), in MiB. */
  server_mib: number | undefined;
  /** PSS of every Chromium process of the contender, in MiB. */
  browser_mib: number | undefined;
  server_processes: number;
  browser_processes: number;
  processes: Array<{ pid: number; comm: string; kind: 'server' | 'browser'; pss_kb: number | undefined }>;
  error?: string;
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function procInfo(pid: number): ProcInfo | undefined {
  const stat = read(`/proc/${pid}/stat`);
  if (!stat) return undefined;
  // comm may contain spaces and parentheses: the fields after the last ')' are fixed.
  const close = stat.lastIndexOf(')');
  const comm = stat.slice(stat.indexOf('(') + 1, close);
  const fields = stat.slice(close + 2).split(' ');
  const ppid = Number(fields[1]);
  let exe = '';
  try {
    exe = readlinkSync(`/proc/${pid}/exe`);
  } catch {
    // a zombie or a process that just exited
  }
  const rollup = read(`/proc/${pid}/smaps_rollup`) ?? '';
  const field = (name: string) => {
    const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(rollup);
    return match ? Number(match[1]) : undefined;
  };
  return { pid, ppid, exe, comm, pss_kb: field('Pss'), rss_kb: field('Rss') };
}

function allPids(): number[] {
  try {
    return readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .map(Number);
  } catch {
    return [];
  }
}

function hasTag(pid: number, tag: string): boolean {
  const environ = read(`/proc/${pid}/environ`);
  return environ !== undefined && environ.split('\0').includes(`${TAG_VAR}=${tag}`);
}

/** Every live process of the tag: tagged ones and their descendants. */
export function processesOf(tag: string, extraRoots: number[] = []): ProcInfo[] {
  const infos = new Map<number, ProcInfo>();
  for (const pid of allPids()) {
    const info = procInfo(pid);
    if (info) infos.set(pid, info);
  }
  const members = new Set<number>(extraRoots.filter((pid) => infos.has(pid)));
  for (const pid of infos.keys()) if (hasTag(pid, tag)) members.add(pid);
  // Descendants of members (a child that cleared its environment is still ours).
  let grew = true;
  while (grew) {
    grew = false;
    for (const info of infos.values()) {
      if (!members.has(info.pid) && members.has(info.ppid)) {
        members.add(info.pid);
        grew = true;
      }
    }
  }
  return [...members].map((pid) => infos.get(pid)!).filter((info) => info.pid !== process.pid);
}

/** Chromium's own executables (by file name: a server may set its process title to anything). */
export function isBrowserProcess(info: ProcInfo): boolean {
  const base = info.exe.slice(info.exe.lastIndexOf('/') + 1).replace(/ \(deleted\)$/, '');
  return /^(chromium|chromium-browser|chrome|google-chrome|headless_shell|chrome-headless-shell|chrome_crashpad_handler)$/.test(base);
}

export function memoryOf(tag: string, extraRoots: number[] = []): MemoryReport {
  if (process.platform !== 'linux') {
    return {
      server_mib: undefined,
      browser_mib: undefined,
      server_processes: 0,
      browser_processes: 0,
      processes: [],
      error: 'memory is read from /proc (Linux only)',
    };
  }
  const procs = processesOf(tag, extraRoots);
  let server = 0;
  let browser = 0;
  let unknown = 0;
  const processes: MemoryReport['processes'] = [];
  for (const info of procs) {
    const kind = isBrowserProcess(info) ? 'browser' : 'server';
    processes.push({ pid: info.pid, comm: info.comm, kind, pss_kb: info.pss_kb });
    if (info.pss_kb === undefined) unknown++;
    else if (kind === 'browser') browser += info.pss_kb;
    else server += info.pss_kb;
  }
  const mib = (kb: number) => Math.round((kb / 1024) * 10) / 10;
  const serverCount = processes.filter((p) => p.kind === 'server').length;
  const browserCount = processes.filter((p) => p.kind === 'browser').length;
  return {
    server_mib: serverCount ? mib(server) : undefined,
    browser_mib: browserCount ? mib(browser) : undefined,
    server_processes: serverCount,
    browser_processes: browserCount,
    processes,
    ...(unknown ? { error: `${unknown} process(es) had no readable smaps_rollup` } : {}),
  };
}

/**
 * The PSS of a Node process (this Node binary) that only waits: what any server on Node holds
 * before it does anything, beside the contenders' memory. undefined where /proc is not there.
 */
export async function waitingNodeMemory(): Promise<number | undefined> {
  const child = spawn(process.execPath, ['-e', "process.stdout.write('ready\\n'); setInterval(() => {}, 1000)"], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout!.once('data', () => resolve());
      child.once('error', reject);
      child.once('exit', (code) => reject(new Error(`the waiting Node process exited (${code})`)));
    });
    return memoryOf(`node-floor-${child.pid}`, [child.pid!]).server_mib;
  } finally {
    child.kill('SIGKILL');
  }
}

/** SIGKILLs, by pid, every process still carrying the tag (after a contender's own shutdown). */
export function killLeftovers(tag: string, extraRoots: number[] = []): number[] {
  const killed: number[] = [];
  for (const info of processesOf(tag, extraRoots)) {
    try {
      process.kill(info.pid, 'SIGKILL');
      killed.push(info.pid);
    } catch {
      // already gone
    }
  }
  return killed;
}
