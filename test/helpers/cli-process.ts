// Runs one `pagewire` client command as a child process and collects what it printed: Node runs
// the compiled dist/ (what `npx pagewire` runs), Deno the sources, as for the server process.
import { spawn } from 'node:child_process';
import process from 'node:process';
import { IS_DENO, ROOT, type ServerProcess, startServerProcess } from './server-process.ts';
import { onTeardown } from './teardown.ts';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Wall time from spawn to exit, in ms. */
  ms: number;
}

interface DenoOutput {
  code: number;
  stdout: Uint8Array;
  stderr: Uint8Array;
}
interface DenoLike {
  Command: new (cmd: string, options: Record<string, unknown>) => { output(): Promise<DenoOutput> };
}

export function cliCommand(args: readonly string[]): string[] {
  return IS_DENO ? ['run', '-A', `${ROOT}src/main.ts`, ...args] : [`${ROOT}dist/src/main.js`, ...args];
}

export async function runCli(args: readonly string[], env: Record<string, string>): Promise<CliRun> {
  const started = performance.now();
  if (IS_DENO) {
    const deno = (globalThis as unknown as { Deno: DenoLike }).Deno;
    const output = await new deno.Command(process.execPath, {
      args: cliCommand(args),
      cwd: ROOT,
      env,
      stdin: 'null',
      stdout: 'piped',
      stderr: 'piped',
    }).output();
    const decoder = new TextDecoder();
    return {
      code: output.code,
      stdout: decoder.decode(output.stdout),
      stderr: decoder.decode(output.stderr),
      ms: performance.now() - started,
    };
  }
  const child = spawn(process.execPath, cliCommand(args), {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
  return { code, stdout, stderr, ms: performance.now() - started };
}

/**
 * `pagewire trace show FILE` running as a process of its own, and the inspector URL its first line
 * prints. Started as the server processes are (server-process.ts): on Deno through Deno.Command,
 * whose exit status, unlike node:child_process's there, tells a handled SIGTERM's exit code.
 */
export async function traceViewer(file: string): Promise<{ viewer: ServerProcess; url: URL }> {
  const viewer = await startServerProcess(['trace', 'show', file]);
  onTeardown(() => viewer.kill('SIGTERM'));
  const printed = /^pagewire trace viewer on (http:\/\/127\.0\.0\.1:\d+\/inspector\?\S+)$/.exec(viewer.line);
  if (!printed) throw new Error(`trace show printed: ${viewer.line}`);
  return { viewer, url: new URL(printed[1]!) };
}
