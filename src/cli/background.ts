// The server the CLI starts for its user when no server is named (no --url, no PAGEWIRE_URL): a
// `pagewire serve` on loopback with a random token, detached from the command that started it,
// found again by every later command through a small file in the CLI's state directory (mode
// 0600: it holds the URL with its token). Its browser starts on the first call that needs one. A
// server that died, or stopped answering, is noticed and replaced; `pagewire stop` ends it, and
// its browser with it (the server closes what it launched on SIGTERM).
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { join } from 'node:path';
import process from 'node:process';
import { randomBytes } from 'node:crypto';

/** What the server file says: where the server listens (with its token), and its process. */
export interface BackgroundServer {
  url: string;
  pid: number;
}

export interface BackgroundOptions {
  /** The CLI's state directory (state.ts: stateDir). */
  dir: string;
  /** How to run `pagewire` itself: the runtime's executable and the arguments before the command. */
  command: { executable: string; args: string[] };
  /** How long a start may take before it is given up. */
  startTimeoutMs?: number;
}

const SERVER_FILE = 'server.json';
const LOCK_FILE = 'server.lock';
const LOG_FILE = 'server.log';
/** A lock older than this was left by a command that died while starting a server. */
const STALE_LOCK_MS = 30_000;
const READY = /pagewire listening on (\S+)/;

/** How `pagewire` runs in this process: Node with its script, or Deno with `run -A` and its script. */
export function selfCommand(): { executable: string; args: string[] } {
  const script = process.argv[1] ?? '';
  return process.versions['deno'] ? { executable: process.execPath, args: ['run', '-A', script] } : {
    executable: process.execPath,
    args: [script],
  };
}

/** The running background server, started first when there is none (or the last one is gone). */
export async function backgroundServer(options: BackgroundOptions): Promise<{ url: string; started: boolean }> {
  mkdirSync(options.dir, { recursive: true, mode: 0o700 });
  const deadline = Date.now() + (options.startTimeoutMs ?? 20_000);
  for (;;) {
    const known = readServerFile(options.dir);
    if (known && (await answers(known))) return { url: known.url, started: false };
    const lock = takeLock(options.dir);
    if (lock) {
      try {
        // Another command may have started one while this one looked.
        const again = readServerFile(options.dir);
        if (again && (await answers(again))) return { url: again.url, started: false };
        if (again) stopProcess(again);
        return { url: (await startServer(options, deadline)).url, started: true };
      } finally {
        releaseLock(options.dir, lock);
      }
    }
    if (Date.now() > deadline) throw new Error('another pagewire command is starting the background server and has not finished');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Ends the background server (and so its browser): its pid, or undefined when none ran. */
export async function stopBackgroundServer(dir: string, timeoutMs = 15_000): Promise<number | undefined> {
  const known = readServerFile(dir);
  if (!known) return undefined;
  const wasRunning = stopProcess(known);
  const deadline = Date.now() + timeoutMs;
  while (alive(known.pid) && ownedBy(known)) {
    if (Date.now() > deadline) {
      process.kill(known.pid, 'SIGKILL');
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  rmQuietly(join(dir, SERVER_FILE));
  return wasRunning ? known.pid : undefined;
}

export function readServerFile(dir: string): BackgroundServer | undefined {
  try {
    const parsed = JSON.parse(readFileSync(join(dir, SERVER_FILE), 'utf8')) as Partial<BackgroundServer>;
    return typeof parsed.url === 'string' && typeof parsed.pid === 'number' ? { url: parsed.url, pid: parsed.pid } : undefined;
  } catch {
    return undefined;
  }
}

async function startServer(options: BackgroundOptions, deadline: number): Promise<BackgroundServer> {
  const { dir, command } = options;
  const logPath = join(dir, LOG_FILE);
  const log = openSync(logPath, 'w', 0o600);
  // The token goes in the environment, not the command line other users can read.
  const token = randomBytes(24).toString('base64url');
  const child = spawn(command.executable, [...command.args, 'serve', '--host', '127.0.0.1', '--port', '0'], {
    detached: true,
    stdio: ['ignore', log, log],
    env: { ...process.env, PAGEWIRE_TOKEN: token, PAGEWIRE_URL: '' },
  });
  closeSync(log);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.once('error', () => {});
  child.unref();
  for (;;) {
    const printed = readFileSync(logPath, 'utf8');
    const ready = READY.exec(printed);
    if (ready && child.pid !== undefined) {
      const server = { url: ready[1]!, pid: child.pid };
      writeServerFile(dir, server);
      return server;
    }
    const code = await Promise.race([exited, new Promise<'waiting'>((resolve) => setTimeout(() => resolve('waiting'), 25))]);
    if (code !== 'waiting') {
      throw new Error(`the background server exited (${code}) before it listened: ${printed.trim().split('\n').slice(-3).join(' / ')}`);
    }
    if (Date.now() > deadline) {
      if (child.pid !== undefined) process.kill(child.pid, 'SIGTERM');
      throw new Error(`the background server did not listen in time; its log is ${logPath}`);
    }
  }
}

/** The server's port accepts a connection (its process alive is not enough: it may be another's). */
function answers(server: BackgroundServer): Promise<boolean> {
  if (!alive(server.pid) || !ownedBy(server)) return Promise.resolve(false);
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve) => {
    const socket = tcpConnect({ host: hostname, port: Number(port) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(2_000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Asks the server's process to end, if it is still the server's. True when it was running. */
function stopProcess(server: BackgroundServer): boolean {
  if (!alive(server.pid) || !ownedBy(server)) return false;
  try {
    process.kill(server.pid, 'SIGTERM');
    return true;
  } catch {
    return false;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The process is a pagewire server (where /proc tells): a pid is reused once its process is gone,
 * and a signal must never reach whatever holds it now.
 */
function ownedBy(server: BackgroundServer): boolean {
  try {
    const commandLine = readFileSync(`/proc/${server.pid}/cmdline`, 'utf8');
    return commandLine.includes('serve') && /main\.(js|ts)/.test(commandLine);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

function writeServerFile(dir: string, server: BackgroundServer): void {
  const path = join(dir, SERVER_FILE);
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(server), { mode: 0o600 });
  renameSync(temporary, path);
}

function takeLock(dir: string): number | undefined {
  const path = join(dir, LOCK_FILE);
  try {
    return openSync(path, 'wx', 0o600);
  } catch {
    try {
      if (Date.now() - statSync(path).mtimeMs > STALE_LOCK_MS) rmQuietly(path);
    } catch {
      // gone meanwhile
    }
    return undefined;
  }
}

function releaseLock(dir: string, fd: number): void {
  closeSync(fd);
  rmQuietly(join(dir, LOCK_FILE));
}

function rmQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}
