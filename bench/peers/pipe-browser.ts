// A Chromium the bench launches itself and talks to over --remote-debugging-pipe (the transport
// pagewire uses), with nothing in between: the raw CDP floors' browser (cdp-floor.ts, and the
// many-sessions floor of bench/scale-floor.ts). Raw JSON in, raw JSON out; no validation.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import type { Readable, Writable } from 'node:stream';
import { TAG_VAR } from './procs.ts';

export interface CdpMessage {
  id?: number;
  method?: string;
  sessionId?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

export class PipeBrowser {
  /** The command line it was launched with (the profile's path shown as $TMP). */
  readonly command: string;
  readonly #child: ChildProcess;
  readonly #profile: string;
  #nextId = 1;
  readonly #pending = new Map<number, { method: string; resolve: (r: Record<string, unknown>) => void; reject: (e: Error) => void }>();
  readonly #listeners = new Set<(message: CdpMessage) => void>();
  /** Why the browser could not be started (no such file, say), once known. */
  #failed: string | undefined;

  /** Launches `browser` headless with a fresh profile; `tag` marks its processes for the memory count. */
  constructor(browser: string, tag: string) {
    this.#profile = mkdtempSync(join(tmpdir(), 'pagewire-bench-floor-'));
    const args = [
      '--remote-debugging-pipe',
      `--user-data-dir=${this.#profile}`,
      '--no-first-run',
      '--no-default-browser-check',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--headless',
      '--disable-gpu',
      '--hide-scrollbars',
      '--mute-audio',
      '--window-size=1280,720',
      ...(typeof process.getuid === 'function' && process.getuid() === 0 ? ['--no-sandbox'] : []),
      'about:blank',
    ];
    this.command = `${browser} ${args.join(' ').replace(this.#profile, '$TMP')}`;
    const child = spawn(browser, args, {
      stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'],
      env: { ...process.env, [TAG_VAR]: tag },
    });
    this.#child = child;
    let stderr = '';
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4_000)));
    const fail = (why: string) => {
      this.#failed ??= why;
      for (const pending of this.#pending.values()) pending.reject(new Error(`${pending.method}: ${this.#failed}`));
      this.#pending.clear();
    };
    child.once('error', (error) => fail(`${browser} could not be started: ${error.message}`));
    (child.stdio[3] as Writable).on('error', (error) => fail(`the debugging pipe failed: ${error.message}`));
    child.once('exit', (code, signal) => {
      for (const pending of this.#pending.values()) {
        pending.reject(new Error(`${pending.method}: Chromium exited (${code ?? signal}); ${stderr.trim()}`));
      }
      this.#pending.clear();
    });
    const input = child.stdio[4] as Readable;
    let buffer = '';
    input.setEncoding('utf8');
    input.on('data', (chunk: string) => {
      buffer += chunk;
      let end: number;
      while ((end = buffer.indexOf('\0')) !== -1) {
        const message = JSON.parse(buffer.slice(0, end)) as CdpMessage;
        buffer = buffer.slice(end + 1);
        this.#onMessage(message);
      }
    });
  }

  pids(): number[] {
    return this.#child.pid ? [this.#child.pid] : [];
  }

  #onMessage(message: CdpMessage): void {
    if (message.id !== undefined) {
      const pending = this.#pending.get(message.id);
      if (!pending) return;
      this.#pending.delete(message.id);
      if (message.error) pending.reject(new Error(`${pending.method}: ${message.error.message}`));
      else pending.resolve(message.result ?? {});
      return;
    }
    for (const listener of this.#listeners) listener(message);
  }

  /** One command, on `sessionId`'s target, or on the browser's when absent. */
  send(method: string, params: Record<string, unknown>, sessionId?: string): Promise<Record<string, unknown>> {
    if (this.#failed) return Promise.reject(new Error(`${method}: ${this.#failed}`));
    const output = this.#child.stdio[3] as Writable | undefined;
    if (!output || this.#child.exitCode !== null || this.#child.signalCode !== null) {
      return Promise.reject(new Error(`${method}: the floor browser is not running`));
    }
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { method, resolve, reject });
      output.write(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }) + '\0');
    });
  }

  /** Every event from now on, until the returned function is called. */
  listen(listener: (message: CdpMessage) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Closes the browser (killed if it does not go within seconds) and removes its profile. */
  async stop(): Promise<void> {
    const child = this.#child;
    if (!this.#failed && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      try {
        await Promise.race([this.send('Browser.close', {}), new Promise((resolve) => setTimeout(resolve, 3_000))]);
      } catch {
        // closing
      }
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(this.#profile, { recursive: true, force: true });
  }
}

/**
 * The floors' click: the mouse moved to the point, pressed and released there, each awaited, on
 * `sessionId`'s page (a real click's three events, with nothing checked before or after).
 */
export async function dispatchClick(pipe: PipeBrowser, sessionId: string, point: { x: number; y: number }): Promise<void> {
  const { x, y } = point;
  await pipe.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x, y }, sessionId);
  await pipe.send('Input.dispatchMouseEvent', { type: 'mousePressed', x, y, button: 'left', clickCount: 1 }, sessionId);
  await pipe.send('Input.dispatchMouseEvent', { type: 'mouseReleased', x, y, button: 'left', clickCount: 1 }, sessionId);
}
