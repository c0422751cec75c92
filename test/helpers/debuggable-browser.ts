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
}

/** Launches headless Chromium with `extraArgs` and resolves once its DevTools endpoint listens. */
export async function launchDebuggableBrowser(extraArgs: readonly string[] = []): Promise<DebuggableBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'pagewire-connect-test-'));
  const browser = spawn(
    '/usr/bin/chromium',
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--remote-debugging-port=0',
      `--user-data-dir=${profile}`,
      ...extraArgs,
      'about:blank',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], detached: true },
  );
  onTeardown(() => {
    try {
      process.kill(-browser.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
    rmSync(profile, { recursive: true, force: true });
  });
  const endpoint = await new Promise<string>((resolve, reject) => {
    let text = '';
    browser.stderr!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const match = /DevTools listening on ws:\/\/127\.0\.0\.1:(\d+)\//.exec(text);
      if (match) resolve(`http://127.0.0.1:${match[1]}`);
    });
    browser.once('exit', () => reject(new Error(`browser exited: ${text}`)));
  });
  return { process: browser, endpoint };
}
