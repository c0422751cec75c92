// Finding, launching and stopping Chromium. A launched browser talks over a pipe, gets a fresh
// profile directory that is removed afterwards, and is killed on every exit path of ours
// (normal close, signal, uncaught error, process exit): no orphan browser, ever.
import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import process from 'node:process';
import type { Readable, Writable } from 'node:stream';
import { ServerError } from '../errors.ts';
import type { CdpTransport } from '../cdp/transport.ts';
import { redactUrl } from '../util/redact.ts';
import { PipeTransport } from './pipe-transport.ts';
import { WebSocketTransport } from './ws-transport.ts';

export const INSTALL_HINT =
  'install Chromium (Debian/Ubuntu: `apt-get install chromium`) or pass --browser PATH (or PAGEWIRE_BROWSER) naming a Chromium/Chrome executable';

const WELL_KNOWN_PATHS = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/opt/google/chrome/chrome',
  '/snap/bin/chromium',
];
const PATH_NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable', 'chrome'];

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The explicit path if given (it must exist), else /usr/bin/chromium, PATH, then usual places. */
export function findBrowser(explicit: string | undefined, pathEnv = process.env.PATH ?? ''): string {
  if (explicit) {
    if (isExecutable(explicit)) return explicit;
    throw new ServerError('browser_unavailable', `the browser ${explicit} does not exist or is not executable; ${INSTALL_HINT}`, {
      details: { reason: 'not_executable', path: explicit, fix: INSTALL_HINT },
    });
  }
  const first = WELL_KNOWN_PATHS[0]!;
  if (isExecutable(first)) return first;
  for (const dir of pathEnv.split(delimiter).filter(Boolean)) {
    for (const name of PATH_NAMES) {
      const candidate = join(dir, name);
      if (isExecutable(candidate)) return candidate;
    }
  }
  for (const candidate of WELL_KNOWN_PATHS.slice(1)) if (isExecutable(candidate)) return candidate;
  throw new ServerError('browser_unavailable', `no Chromium or Chrome executable was found; ${INSTALL_HINT}`, {
    details: { reason: 'not_found', fix: INSTALL_HINT },
  });
}

export interface LaunchOptions {
  executable: string;
  headful: boolean;
  /** Budget for the browser to come up and answer. */
  timeoutMs?: number;
  onStderr?: (line: string) => void;
}

export interface BrowserProcess {
  readonly transport: CdpTransport;
  readonly pid: number;
  readonly exited: Promise<void>;
  readonly hasExited: boolean;
  /** Force-kills the browser and its process group, then removes the profile. Idempotent. */
  kill(): Promise<void>;
}

// Every browser we spawned and have not yet seen exit; killed synchronously on process exit.
// Process-level on purpose, unlike every other piece of state: the exit hook is the process's,
// and it must reach the browsers of every server in it, or one that exits leaves orphans.
const livePids = new Set<number>();
let exitHookInstalled = false;

function killGroup(pid: number): void {
  try {
    // The browser leads its own process group (spawned detached), so -pid reaches its
    // renderers and helpers too.
    process.kill(-pid, 'SIGKILL');
  } catch {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const pid of livePids) killGroup(pid);
  });
}

/** Removing a profile right after exit can hit ENOTEMPTY while helpers still write: retry. */
async function removeDir(dir: string): Promise<void> {
  for (let attempt = 0; attempt < 40; attempt++) {
    try {
      rmSync(dir, { recursive: true, force: true });
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

export function chromiumArgs(options: { headful: boolean; userDataDir: string; runningAsRoot: boolean }): string[] {
  const args = [
    '--remote-debugging-pipe',
    `--user-data-dir=${options.userDataDir}`,
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-quic',
    '--disable-default-apps',
    '--disable-breakpad',
    // No back/forward cache: a history navigation then always loads a new document with a new loader,
    // which is what act's identity checks and navigation waits rely on.
    '--disable-features=Translate,MediaRouter,OptimizationHints,DialMediaRouteProvider,BackForwardCache',
    '--password-store=basic',
    '--use-mock-keychain',
    '--mute-audio',
  ];
  if (!options.headful) args.push('--headless', '--disable-gpu', '--hide-scrollbars');
  // Chromium refuses to start its sandbox as root; outside root the sandbox stays on.
  if (options.runningAsRoot) args.push('--no-sandbox');
  args.push('about:blank');
  return args;
}

export async function launchBrowser(options: LaunchOptions): Promise<BrowserProcess> {
  installExitHook();
  const userDataDir = mkdtempSync(join(tmpdir(), 'pagewire-profile-'));
  const args = chromiumArgs({
    headful: options.headful,
    userDataDir,
    runningAsRoot: typeof process.getuid === 'function' && process.getuid() === 0,
  });
  let child: ChildProcess;
  try {
    child = spawn(options.executable, args, {
      stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'],
      detached: true,
    });
  } catch (error) {
    await removeDir(userDataDir);
    throw launchError(options.executable, error);
  }
  const spawned = new Promise<void>((resolve, reject) => {
    child.once('spawn', () => resolve());
    child.once('error', (error) => reject(error));
  });
  try {
    await spawned;
  } catch (error) {
    await removeDir(userDataDir);
    throw launchError(options.executable, error);
  }
  const pid = child.pid!;
  livePids.add(pid);
  let hasExited = false;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      livePids.delete(pid);
      hasExited = true;
      resolve();
    });
  });
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (text: string) => {
    for (const line of text.split('\n')) if (line.trim()) options.onStderr?.(line);
  });
  const transport = new PipeTransport(child.stdio[3] as Writable, child.stdio[4] as Readable);
  let killed: Promise<void> | undefined;
  return {
    transport,
    pid,
    exited,
    get hasExited() {
      return hasExited;
    },
    kill() {
      killed ??= (async () => {
        killGroup(pid);
        await exited;
        await removeDir(userDataDir);
      })();
      return killed;
    },
  };
}

function launchError(executable: string, error: unknown): ServerError {
  const code = (error as { code?: string }).code;
  const why = code === 'ENOENT' ? `${executable} was not found` : `${executable} could not be started (${String(error)})`;
  return new ServerError('browser_unavailable', `${why}; ${INSTALL_HINT}`, {
    details: { reason: code === 'ENOENT' ? 'not_found' : 'launch_failed', path: executable, fix: INSTALL_HINT },
    cause: error,
  });
}

/**
 * A remote endpoint's CDP socket: a ws(s) URL as given (its query kept: a Browserless token),
 * `http(s)://host:port` resolved through /json/version. `headers` go with both requests; messages
 * name the URL without its userinfo, query or fragment, and never a header.
 */
export async function connectBrowser(
  endpoint: { url: string; headers: Readonly<Record<string, string>> },
  timeoutMs: number,
): Promise<CdpTransport> {
  const { url, headers } = endpoint;
  const discover = async (httpUrl: string) => {
    const response = await fetch(new URL('/json/version', httpUrl), { headers, signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) throw new Error(`/json/version answered ${response.status}`);
    const body = (await response.json()) as { webSocketDebuggerUrl?: string };
    if (!body.webSocketDebuggerUrl) throw new Error('/json/version has no webSocketDebuggerUrl');
    return body.webSocketDebuggerUrl;
  };
  try {
    if (/^https?:/i.test(url)) return await WebSocketTransport.connect(await discover(url), timeoutMs, headers);
    try {
      return await WebSocketTransport.connect(url, timeoutMs, headers);
    } catch (error) {
      // A Chromium's /devtools/browser/ID names one browser process: one started again on the same
      // port has another ID, which its /json/version tells.
      const chromium = new URL(url);
      if (!chromium.pathname.startsWith('/devtools/browser/')) throw error;
      chromium.protocol = chromium.protocol === 'wss:' ? 'https:' : 'http:';
      return await WebSocketTransport.connect(await discover(chromium.origin).catch(() => Promise.reject(error)), timeoutMs, headers);
    }
  } catch (error) {
    const shown = redactUrl(url);
    const fix = `start the browser with --remote-debugging-port and check the endpoint's URL (${shown})`;
    const why = error instanceof DOMException && error.name === 'TimeoutError'
      ? `no answer within ${timeoutMs} ms`
      : String((error as Error).message ?? error);
    throw new ServerError('browser_unavailable', `could not reach the browser at ${shown}: ${why}; ${fix}`, {
      details: { reason: 'connect_failed', fix },
      cause: error,
    });
  }
}
