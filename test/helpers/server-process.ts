// Runs `pagewire` as a child process for the process-level tests. On Deno it uses Deno.Command:
// Deno's node:child_process reports a child that handled SIGTERM and exited 0 as killed by the
// signal (code null), which would hide the very exit code under test.
import { spawn } from 'node:child_process';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const IS_DENO = 'Deno' in globalThis;

export interface ServerProcess {
  readonly pid: number;
  /** The first stdout line (the ready line). */
  readonly line: string;
  /** The exit code, or null when killed by a signal it did not handle. */
  readonly exit: Promise<number | null>;
  kill(signal: 'SIGTERM' | 'SIGINT' | 'SIGKILL'): void;
  /** Closes the read end of the server's stderr, as when the process that started it goes away. */
  closeStderr(): Promise<void>;
}

/** Node runs the compiled dist/ (what `npx pagewire` runs); Deno runs the sources. */
function command(args: string[]): string[] {
  return IS_DENO ? ['run', '-A', `${ROOT}src/main.ts`, ...args] : [`${ROOT}dist/src/main.js`, ...args];
}

interface DenoChild {
  pid: number;
  stdout: ReadableStream<Uint8Array>;
  stderr: ReadableStream<Uint8Array>;
  status: Promise<{ code: number; signal: string | null }>;
  kill(signal: string): void;
}
interface DenoLike {
  Command: new (cmd: string, options: Record<string, unknown>) => { spawn(): DenoChild };
}

async function firstLine(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`no ready line; stdout ended after ${JSON.stringify(text)}`);
    text += decoder.decode(value);
    const newline = text.indexOf('\n');
    if (newline !== -1) {
      void (async () => {
        while (!(await reader.read()).done);
      })();
      return text.slice(0, newline);
    }
  }
}

/** Everything `stream` says, and a way to stop listening (which closes the pipe's read end). */
function collect(stream: ReadableStream<Uint8Array>): { text: Promise<string>; cancel(): Promise<void> } {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  const text = (async () => {
    let out = '';
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
      if (done) return out;
      out += decoder.decode(value, { stream: true });
    }
  })();
  return { text, cancel: () => reader.cancel() };
}

export async function startServerProcess(args: string[], env: Record<string, string> = {}): Promise<ServerProcess> {
  if (IS_DENO) {
    const deno = (globalThis as unknown as { Deno: DenoLike }).Deno;
    const child = new deno.Command(process.execPath, {
      args: command(args),
      cwd: ROOT,
      env,
      stdin: 'null',
      stdout: 'piped',
      stderr: 'piped',
    }).spawn();
    const stderr = collect(child.stderr);
    const exit = child.status.then((s) => (s.signal ? null : s.code));
    const line = await firstLine(child.stdout).catch(async () => {
      throw new Error(`server exited (${await exit}) before its ready line: ${await stderr.text}`);
    });
    // Deno's kill throws for a child that exited already; node:child_process's returns false.
    const kill = (signal: Parameters<typeof child.kill>[0]) => {
      try {
        child.kill(signal);
      } catch {
        // exited already
      }
    };
    return { pid: child.pid, line, exit, kill, closeStderr: () => stderr.cancel() };
  }
  const child = spawn(process.execPath, command(args), {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const newline = out.indexOf('\n');
      if (newline !== -1) resolve(out.slice(0, newline));
    });
    void exit.then((code) => reject(new Error(`server exited (${code}) before its ready line: ${stderr}`)));
  });
  const closeStderr = () =>
    new Promise<void>((resolve) => {
      child.stderr!.once('close', () => resolve());
      child.stderr!.destroy();
    });
  return { pid: child.pid!, line, exit, kill: (signal) => child.kill(signal), closeStderr };
}
