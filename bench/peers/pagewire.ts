// pagewire as a child process (`node dist/src/main.js`, what `npx pagewire` runs), driven over
// its WebSocket by a JSON-RPC client, exactly as an agent would. `--allow-raw-cdp` is on only so
// the untimed set-up (wait for load, change the page) can run a line of JavaScript in the page.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { TestClient } from '../../test/helpers/client.ts';
import { TAG_VAR } from './procs.ts';
import {
  type ActOutcome,
  type Contender,
  errorText,
  mutateJs,
  type NavOutcome,
  type ObserveOutcome,
  type PageSpec,
  utf8,
  WAIT_FOR_LOAD_JS,
} from './contender.ts';
import { countInteractive } from './snapshot-text.ts';
import type { ActResult, Observation } from '../../test/helpers/wire.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export class PagewireContender implements Contender {
  readonly id: string = 'pagewire';
  readonly label: string = 'pagewire';
  version = 'unknown';
  command = '';
  readonly calls = {
    observe:
      '`observe {}` (defaults: max_elements 150; the tree carries the page text, clipped; the full `text` is opt-in with include_text)',
    click: '`act {action: "click", ref}` (answer carries `fresh_state`)',
    click_observed: 'same call',
    fill: '`act {action: "fill", ref, text}` (answer carries `fresh_state`)',
    type: '`act {action: "type", ref, text}`: key events per character (answer carries `fresh_state`)',
    select: '`act {action: "select", ref, label}` (answer carries `fresh_state`)',
    navigate: '`act {action: "navigate", url}`: DOMContentLoaded, then a fresh observation',
  };
  readonly clickObservation = 'in-answer' as const;
  readonly tag: string;
  readonly #browser: string;
  #child: ChildProcess | undefined;
  #client: TestClient | undefined;
  protected sessionId = '';
  protected targetId = '';
  /** The ready line's URL (`ws://127.0.0.1:PORT/?token=…`). */
  protected url = '';
  #state: Observation | undefined;
  #stderr = '';

  constructor(tag: string, browser: string) {
    this.tag = tag;
    this.#browser = browser;
  }

  pids(): number[] {
    return this.#child?.pid ? [this.#child.pid] : [];
  }

  get #rpc(): TestClient {
    if (!this.#client) throw new Error('pagewire is not started');
    return this.#client;
  }

  async start(): Promise<void> {
    const token = `bench-${crypto.randomUUID()}`;
    const args = [
      `${ROOT}dist/src/main.js`,
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--token',
      token,
      '--browser',
      this.#browser,
      '--allow-raw-cdp',
    ];
    this.command = `node dist/src/main.js --host 127.0.0.1 --port 0 --token … --browser ${this.#browser} --allow-raw-cdp`;
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env: { ...process.env, [TAG_VAR]: this.tag },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.#child = child;
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => (this.#stderr = (this.#stderr + chunk).slice(-4_000)));
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`no ready line within 30 s; stderr: ${this.#stderr}`)), 30_000);
      child.stdout!.setEncoding('utf8');
      child.stdout!.on('data', (chunk: string) => {
        out += chunk;
        const newline = out.indexOf('\n');
        if (newline !== -1) {
          clearTimeout(timer);
          resolve(out.slice(0, newline));
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`pagewire exited (${code}) before its ready line; stderr: ${this.#stderr.trim() || '(empty)'}`));
      });
      child.once('error', (error) => reject(error));
    });
    const url = /^pagewire listening on (ws:\/\/\S+)$/.exec(line.trim())?.[1];
    if (!url) throw new Error(`unexpected ready line: ${line}`);
    // Unchecked: the schema check would add its own time to every measured call.
    this.url = url;
    this.#client = await TestClient.connect(url, { checkWire: false });
    const created = await this.#rpc.call('session.create', { name: 'bench' });
    this.sessionId = created.session_id;
    this.targetId = created.target_id;
    const info = await this.#rpc.call('server.info', {});
    this.version = `${info.name} ${info.version}`;
  }

  async #evaluate(expression: string): Promise<void> {
    const reply = await this.#rpc.call<{ exceptionDetails?: { text: string } }>('cdp.send', {
      session_id: this.sessionId,
      target_id: this.targetId,
      method: 'Runtime.evaluate',
      params: { expression, awaitPromise: true, returnByValue: true },
    });
    if (reply.exceptionDetails) throw new Error(`page script failed: ${reply.exceptionDetails.text}`);
  }

  /** One timed observation: the observation, the bytes that crossed the wire, and the text a model reads when it is not the tree. */
  protected async observeCall(maxElements?: number): Promise<{ observation: Observation; wire: number; text?: string }> {
    const reply = await this.#rpc.request('observe', {
      session_id: this.sessionId,
      target_id: this.targetId,
      ...(maxElements ? { max_elements: maxElements } : {}),
    });
    if (reply.error) throw new Error(`observe failed: ${JSON.stringify(reply.error)}`);
    return { observation: reply.result as Observation, wire: utf8(JSON.stringify(reply)) };
  }

  async #observeRaw(maxElements?: number): Promise<{ observation: Observation; wire: number; text?: string }> {
    const answer = await this.observeCall(maxElements);
    this.#state = answer.observation;
    return answer;
  }

  async open(url: string): Promise<void> {
    if (!this.#state) await this.#observeRaw();
    const result = await this.#act({ action: 'navigate', url });
    if (result.status !== 'completed') {
      throw new Error(`navigate to ${url}: ${result.status} ${result.error_type ?? ''} ${result.error_text ?? ''}`);
    }
    await this.#evaluate(WAIT_FOR_LOAD_JS);
    await this.#observeRaw();
  }

  observe(): Promise<ObserveOutcome> {
    return this.#observeOutcome();
  }

  observeMore(): Promise<ObserveOutcome> {
    return this.#observeOutcome(500);
  }

  async #observeOutcome(maxElements?: number): Promise<ObserveOutcome> {
    const { observation, wire, text: read } = await this.#observeRaw(maxElements);
    const text = read ?? observation.tree + (observation.text ? `\n${observation.text}` : '');
    return {
      text,
      interactive: countInteractive(observation.tree, 'pagewire'),
      refs: observation.elements.length,
      truncated: observation.truncated,
      text_part_bytes: observation.text ? utf8(observation.text) + 1 : 0,
      wire_bytes: wire,
    };
  }

  async mutate(i: number): Promise<void> {
    await this.#evaluate(mutateJs(i));
  }

  async prepare(_page: PageSpec): Promise<void> {
    await this.#observeRaw();
  }

  #ref(role: string, name: string): string {
    const element = this.#state?.elements.find((e) => e.role === role && e.name === name);
    if (!element) throw new Error(`no ${role} "${name}" among the ${this.#state?.elements.length ?? 0} refs of the last observation`);
    return element.ref;
  }

  async #act(action: Record<string, unknown>): Promise<ActResult> {
    if (!this.#state) throw new Error('no observation to act on');
    const result = await this.actCall({
      session_id: this.sessionId,
      target_id: this.targetId,
      state_id: this.#state.state_id,
      ...action,
    });
    if (result.fresh_state) this.#state = result.fresh_state;
    else this.#state = undefined;
    return result;
  }

  /** One timed act. */
  protected actCall(params: Record<string, unknown>): Promise<ActResult> {
    return this.#rpc.call('act', params as never) as Promise<ActResult>;
  }

  async #actOutcome(action: Record<string, unknown>): Promise<ActOutcome> {
    try {
      if (!this.#state) await this.#observeRaw();
      const result = await this.#act(action);
      const fresh = result.fresh_state;
      return {
        ok: result.status === 'completed',
        observation: fresh !== undefined,
        text_bytes: fresh ? utf8(fresh.tree) + utf8(fresh.text ?? '') : 0,
        ...(result.status !== 'completed'
          ? { error: `${result.status}: ${result.error_type ?? ''} ${result.error_text ?? ''}`.trim() }
          : {}),
      };
    } catch (error) {
      return { ok: false, observation: false, text_bytes: 0, error: errorText(error) };
    }
  }

  click(page: PageSpec): Promise<ActOutcome> {
    return this.#actOutcome({ action: 'click', ref: this.#ref(page.click.role, page.click.name) });
  }

  fill(page: PageSpec, text: string): Promise<ActOutcome> {
    return this.#actOutcome({ action: 'fill', ref: this.#ref(page.fill!.role, page.fill!.name), text });
  }

  type(page: PageSpec, text: string): Promise<ActOutcome> {
    return this.#actOutcome({ action: 'type', ref: this.#ref(page.fill!.role, page.fill!.name), text });
  }

  select(page: PageSpec, label: string): Promise<ActOutcome> {
    return this.#actOutcome({ action: 'select', ref: this.#ref(page.select!.role, page.select!.name), label });
  }

  async navigate(url: string): Promise<NavOutcome> {
    const outcome = await this.#actOutcome({ action: 'navigate', url });
    return outcome;
  }

  async stop(): Promise<void> {
    this.#client?.close();
    const child = this.#child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
}
