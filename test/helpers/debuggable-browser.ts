// A Chromium that the test starts itself and pagewire only connects to (--connect): its CDP
// endpoint on loopback, its own temporary profile, killed with its whole process group at the
// end of the run.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { onTeardown } from './teardown.ts';

export interface DebuggableBrowser {
  readonly process: ChildProcess;
  /** `http://127.0.0.1:PORT`, what `--connect` takes. */
  readonly endpoint: string;
  readonly port: number;
  /** SIGKILLs its whole process group and resolves once the browser exited. Idempotent. */
  kill(): Promise<void>;
}

/**
 * Launches headless Chromium with `extraArgs` and resolves once its DevTools endpoint listens:
 * on `port` when given (a browser started again where another was), else on any free one.
 */
export async function launchDebuggableBrowser(
  extraArgs: readonly string[] = [],
  options: { port?: number } = {},
): Promise<DebuggableBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'pagewire-connect-test-'));
  const browser = spawn(
    '/usr/bin/chromium',
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      `--remote-debugging-port=${options.port ?? 0}`,
      '--remote-debugging-address=127.0.0.1',
      `--user-data-dir=${profile}`,
      ...extraArgs,
      'about:blank',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], detached: true },
  );
  const exited = new Promise<void>((resolve) => browser.once('exit', () => resolve()));
  const kill = async () => {
    try {
      process.kill(-browser.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
    if (browser.exitCode === null && browser.signalCode === null) await exited;
    rmSync(profile, { recursive: true, force: true });
  };
  onTeardown(kill);
  const port = await new Promise<string>((resolve, reject) => {
    let text = '';
    browser.stderr!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const match = /DevTools listening on ws:\/\/127\.0\.0\.1:(\d+)\//.exec(text);
      if (match) resolve(match[1]!);
      // A port still held (a browser killed a moment ago): Chromium runs on without its endpoint.
      if (/Cannot start http server for devtools/.test(text)) reject(new Error(`the DevTools port is taken: ${text}`));
    });
    browser.once('exit', () => reject(new Error(`browser exited: ${text}`)));
  }).catch(async (error: unknown) => {
    await kill();
    throw error;
  });
  return { process: browser, endpoint: `http://127.0.0.1:${port}`, port: Number(port), kill };
}
