// Scripted agents for the agent-loop benchmark: one per MCP server, each driving its server the way
// that server's tools are meant to be used, and each finding its targets by role and name in the
// text its server returned (bench/peers/snapshot-text.ts). All of them follow one policy, so the
// counts compare the servers and not the scripts:
// - a target is looked up in the last text that carried a snapshot; only when it is not there does
//   the agent ask for a snapshot (optimistic: a peer's old refs are used as long as they resolve);
// - a failed step is retried once from the snapshot the failure came with, or from a new one; a
//   click something covers first clicks what dismisses the cover (pagewire names it in its
//   observation's `blockers` and in a refusal's `hit`; on
//   the peers the agent looks for a consent or close button in a snapshot, by the usual names);
// - the task is done when the text read after the last step shows the task's `done` text; an
//   agent whose last answer does not show it takes one more snapshot to check.
// Every tool call is counted, and every byte of text a model would read (the text content).
import { McpClient, resultText } from '../peers/mcp-client.ts';
import { findRef, type TextFormat } from '../peers/snapshot-text.ts';
import type { Step, Target, Task } from './list.ts';

export interface TaskRun {
  calls: number;
  text_bytes: number;
  done: boolean;
  /** The tool calls in order, each with its answer's size and whether it was an error. */
  log: Array<{ tool: string; bytes: number; error: boolean }>;
  error?: string;
}

/** A button that closes a consent banner or an overlay, by the names consent tools and dialogs use. */
const DISMISS_NAME = /^(accept|allow|agree|i agree|ok|okay|got it|close|×|reject|decline|deny|dismiss|continue)\b/i;

/** How long an agent waits for text it expects, or an act with a wait waits in all. */
const WAIT_MS = 15_000;

const utf8 = (text: string) => new TextEncoder().encode(text).length;

/** One agent's conversation with its server: the tool calls it made and what it read. */
class Transcript {
  readonly run: TaskRun = { calls: 0, text_bytes: 0, done: false, log: [] };
  readonly #client: McpClient;

  constructor(client: McpClient) {
    this.#client = client;
  }

  async call(tool: string, args: Record<string, unknown>): Promise<{ text: string; error: boolean }> {
    const result = await this.#client.callTool(tool, args);
    const text = resultText(result);
    const error = result.isError === true;
    this.run.calls++;
    this.run.text_bytes += utf8(text);
    this.run.log.push({ tool, bytes: utf8(text), error });
    // BENCH_TASKS_TRACE=1 prints every call and its answer (to see why a task was not done).
    if (process.env['BENCH_TASKS_TRACE']) console.log(`>>> ${tool} ${JSON.stringify(args)}${error ? ' (error)' : ''}\n${text}\n`);
    return { text, error };
  }
}

/** How an agent's MCP server is started (stdio). */
export interface SpawnSpec {
  command: string;
  args: string[];
  env?: Record<string, string>;
  cwd: string;
}

export interface Agent {
  readonly id: string;
  readonly label: string;
  readonly version: string;
  start(): Promise<void>;
  perform(task: Task, origin: string): Promise<TaskRun>;
  stop(): Promise<void>;
  pids(): number[];
}

abstract class McpAgent implements Agent {
  abstract readonly id: string;
  abstract readonly label: string;
  protected abstract readonly format: TextFormat;
  version = 'unknown';
  protected client: McpClient | undefined;
  /** The last text that carried a snapshot: where targets are looked up. */
  protected snapshot = '';

  protected readonly spawn: SpawnSpec;

  constructor(spawn: SpawnSpec) {
    this.spawn = spawn;
  }

  async start(): Promise<void> {
    this.client = await McpClient.start({
      command: this.spawn.command,
      args: this.spawn.args,
      env: { ...(process.env as Record<string, string>), ...this.spawn.env },
      cwd: this.spawn.cwd,
      timeoutMs: 60_000,
    });
    const info = this.client.serverInfo;
    this.version = info ? `${info.name} ${info.version}` : 'unknown';
  }

  pids(): number[] {
    return this.client?.pid ? [this.client.pid] : [];
  }

  async stop(): Promise<void> {
    await this.client?.close();
  }

  protected ref(target: Target): string | undefined {
    return findRef(this.snapshot, this.format, target.role, target.name);
  }

  /** A button of the last snapshot that closes a banner or overlay, by its name. */
  protected dismissRef(): string | undefined {
    for (const line of this.snapshot.split('\n')) {
      const match = /"([^"]+)"/.exec(line);
      if (match && /\bbutton\b/.test(line) && DISMISS_NAME.test(match[1]!)) {
        const ref = findRef(this.snapshot, this.format, 'button', match[1]!);
        if (ref) return ref;
      }
    }
    return undefined;
  }

  async perform(task: Task, origin: string): Promise<TaskRun> {
    const transcript = new Transcript(this.client!);
    this.snapshot = '';
    let lastText = '';
    try {
      lastText = await this.steps(transcript, task.steps, origin);
      // Not shown yet: wait for it, as an agent that knows what it expects would.
      if (!lastText.includes(task.done)) lastText = await this.waitFor(transcript, task.done);
      // An input that reported success but changed nothing (a click a cover took): dismiss the
      // cover a snapshot shows and do the last step again, as a model reading it would.
      if (!lastText.includes(task.done)) {
        await this.look(transcript);
        const dismiss = this.dismissRef();
        if (dismiss) {
          await this.clickRef(transcript, dismiss);
          lastText = await this.steps(transcript, task.steps.slice(-1), origin);
          if (!lastText.includes(task.done)) lastText = await this.waitFor(transcript, task.done);
        }
      }
      transcript.run.done = lastText.includes(task.done);
      if (!transcript.run.done) transcript.run.error = `the last text read does not show "${task.done}"`;
    } catch (error) {
      transcript.run.error = (error as Error).message.slice(0, 300);
    }
    return transcript.run;
  }

  /** Runs the steps; answers the text of the last call. */
  protected abstract steps(t: Transcript, steps: readonly Step[], origin: string): Promise<string>;

  /** Waits (a few seconds at most) for text to show; answers the text read, which shows it when it came. */
  protected abstract waitFor(t: Transcript, text: string): Promise<string>;

  /** Clicks a ref of the last snapshot (what dismisses a cover). */
  protected abstract clickRef(t: Transcript, ref: string): Promise<{ text: string; error: boolean }>;

  /** Asks for a snapshot: the text, which becomes the one targets are looked up in. */
  protected abstract look(t: Transcript): Promise<string>;

  /** The ref of a target, asking for a snapshot when the last one has none. */
  protected async refOf(t: Transcript, target: Target): Promise<string> {
    const known = this.ref(target);
    if (known) return known;
    await this.look(t);
    const found = this.ref(target);
    if (!found) throw new Error(`no ${target.role} "${target.name}" in ${this.label}'s snapshot`);
    return found;
  }
}

// --- pagewire -----------------------------------------------------------------------------------

/** pagewire over MCP: a navigate opens and observes; consecutive steps whose refs are known go in one act. */
export class PagewireAgent extends McpAgent {
  readonly id = 'pagewire';
  readonly label = 'pagewire';
  protected readonly format = 'pagewire' as const;

  /** The observation part of a text (an act's answer has a status part before it). */
  #keep(text: string): void {
    const marker = text.indexOf('fresh observation (act on this state_id next):');
    const observation = marker >= 0 ? text.slice(marker) : /^(wait met|wait condition_not_met|state_id )/m.test(text) ? text : '';
    if (observation) this.snapshot = observation;
  }

  /** The ref dismissing what the last observation says covers `ref` (`covered by …: @3 @4; @9 dismisses it`). */
  #dismissOfCover(ref: string): string | undefined {
    for (const line of this.snapshot.split('\n')) {
      const match = /^covered by .*?: ([@\d ]+?)(?: and \d+ more)?; (@\d+) dismisses it$/.exec(line);
      if (match && match[1]!.split(' ').includes(ref)) return match[2];
    }
    return undefined;
  }

  protected async look(t: Transcript): Promise<string> {
    const { text } = await t.call('browser_observe', {});
    this.#keep(text);
    return text;
  }

  protected async steps(t: Transcript, steps: readonly Step[], origin: string): Promise<string> {
    let lastText = '';
    let retries = 0;
    let lead: Array<Record<string, unknown>> = [];
    for (let i = 0; i < steps.length;) {
      const step = steps[i]!;
      if (step.do === 'open') {
        ({ text: lastText } = await t.call('browser_act', { action: 'navigate', url: origin + step.path }));
        this.#keep(lastText);
        i++;
        continue;
      }
      if (step.do === 'wait') {
        lastText = await this.waitFor(t, step.text);
        i++;
        continue;
      }
      // A batch: what clears the way, if a refusal named it, then every following input step
      // whose target this observation has, and a wait after them as the act's wait_for.
      const batch: Array<Record<string, unknown>> = lead;
      lead = [];
      let j = i;
      for (; j < steps.length; j++) {
        const next = steps[j]!;
        if (next.do === 'open' || next.do === 'wait') break;
        const ref = batch.length === 0 ? await this.refOf(t, next.target) : this.ref(next.target);
        if (!ref) break;
        // The observation says what covers the target and what dismisses it: that click leads.
        const dismiss = batch.length === 0 ? this.#dismissOfCover(ref) : undefined;
        if (dismiss) batch.push({ action: 'click', ref: dismiss });
        batch.push(
          next.do === 'click'
            ? { action: 'click', ref }
            : next.do === 'fill'
            ? { action: 'fill', ref, text: next.text }
            : { action: 'type', ref, text: next.text, submit: true },
        );
      }
      const leading = batch.length - (j - i);
      const wait = steps[j]?.do === 'wait' ? (steps[j] as { text: string }).text : undefined;
      const { text } = await t.call(
        'browser_act',
        {
          ...(batch.length === 1 ? batch[0] : { actions: batch }),
          ...(wait !== undefined ? { wait_for: { text: wait }, timeout_ms: WAIT_MS } : {}),
        },
      );
      lastText = text;
      this.#keep(text);
      const status = /^act (\S+):/.exec(text)?.[1];
      if (status === 'completed' || status === 'verified') {
        i = j + (wait !== undefined ? 1 : 0);
        retries = 0;
        continue;
      }
      // The inputs were sent but the page took longer than the act's budget: wait for what was expected.
      if (wait !== undefined && /^timeout: /m.test(text) && !/execution not_dispatched/.test(text)) {
        lastText = await this.waitFor(t, wait);
        i = j + 1;
        continue;
      }
      // Refused or fell short: go on from the first action that did not complete, on the fresh
      // observation the answer carries; a cover's dismiss ref is clicked first.
      if (++retries > 2) throw new Error(`pagewire: ${text.split('\n').slice(0, 2).join(' ')}`);
      const completed = (/completed: actions? ([#\d, ]+)/.exec(text)?.[1] ?? '').match(/\d+/g)?.length ?? 0;
      i += Math.max(0, completed - leading);
      // The control that dismisses what covered the target leads the next act, beside the steps
      // that were refused: the refusal's fresh observation has the refs of both.
      const dismiss = /; (@\d+) dismisses it/.exec(text)?.[1];
      if (dismiss) lead = [{ action: 'click', ref: dismiss }];
    }
    return lastText;
  }

  protected async waitFor(t: Transcript, text: string): Promise<string> {
    const answer = await t.call('browser_wait', { text, timeout_ms: WAIT_MS });
    this.#keep(answer.text);
    return answer.text;
  }

  protected async clickRef(t: Transcript, ref: string) {
    const answer = await t.call('browser_act', { action: 'click', ref });
    this.#keep(answer.text);
    return answer;
  }
}

// --- the peers ----------------------------------------------------------------------------------

type InputStep = Exclude<Step, { do: 'open' | 'wait' }>;
type FillStep = Extract<Step, { do: 'fill' }>;
type Answer = { text: string; error: boolean };

/**
 * A peer that answers an input without the page's new refs unless asked: its loop takes one step
 * a call (consecutive fills: one form fill), and when a step fails it asks for a snapshot, clicks
 * what dismisses a cover if the failure says something was on top, and tries once more.
 */
abstract class PeerAgent extends McpAgent {
  /** Opens a page (no snapshot in the answer). */
  protected abstract navigate(t: Transcript, url: string): Promise<Answer>;
  /** One input step, or consecutive fills in one call; `last`: the task's last step. */
  protected abstract input(t: Transcript, step: InputStep, fills: FillStep[], last: boolean): Promise<Answer>;
  /** Whether a failed input's text says something else took the pointer. */
  protected abstract covered(text: string): boolean;
  /** Keeps an answer's text as the snapshot when it carries one. */
  protected keep(_text: string): void {}

  protected async steps(t: Transcript, steps: readonly Step[], origin: string): Promise<string> {
    let lastText = '';
    for (let i = 0; i < steps.length;) {
      const step = steps[i]!;
      if (step.do === 'open') {
        lastText = (await this.navigate(t, origin + step.path)).text;
        this.snapshot = '';
        i++;
        continue;
      }
      if (step.do === 'wait') {
        lastText = await this.waitFor(t, step.text);
        i++;
        continue;
      }
      const fills: FillStep[] = [];
      for (let j = i; steps[j]?.do === 'fill'; j++) fills.push(steps[j] as FillStep);
      const consumed = Math.max(1, fills.length);
      const last = i + consumed === steps.length;
      let answer = await this.input(t, step, fills, last);
      if (answer.error) {
        await this.look(t);
        const dismiss = this.covered(answer.text) ? this.dismissRef() : undefined;
        if (dismiss) await this.clickRef(t, dismiss);
        answer = await this.input(t, step, fills, last);
        if (answer.error) throw new Error(`${this.label}: ${answer.text.split('\n').slice(0, 3).join(' ')}`);
      }
      lastText = answer.text;
      this.keep(lastText);
      i += consumed;
    }
    return lastText;
  }
}

/** Playwright MCP: its answers link snapshots as files, so reading refs takes browser_snapshot. */
export class PlaywrightAgent extends PeerAgent {
  readonly id = 'playwright-mcp';
  readonly label = 'Playwright MCP';
  protected readonly format = 'playwright' as const;

  protected async look(t: Transcript): Promise<string> {
    const { text } = await t.call('browser_snapshot', {});
    this.snapshot = text;
    return text;
  }

  protected navigate(t: Transcript, url: string): Promise<Answer> {
    return t.call('browser_navigate', { url });
  }

  protected async input(t: Transcript, step: InputStep, fills: FillStep[]): Promise<Answer> {
    if (fills.length > 0) {
      const fields = [];
      for (const fill of fills) {
        fields.push({ target: await this.refOf(t, fill.target), name: fill.target.name, type: 'textbox', value: fill.text });
      }
      return t.call('browser_fill_form', { fields });
    }
    const target = await this.refOf(t, step.target);
    const element = `${step.target.role} "${step.target.name}"`;
    if (step.do === 'click') return t.call('browser_click', { element, target });
    return t.call('browser_type', { element, target, text: step.text, submit: true });
  }

  protected covered(text: string): boolean {
    return /intercepts pointer events/.test(text);
  }

  protected async waitFor(t: Transcript, text: string): Promise<string> {
    // Its answer names the text it waited for, and is an error when it timed out.
    const answer = await t.call('browser_wait_for', { text });
    return answer.error ? '' : answer.text;
  }

  protected clickRef(t: Transcript, ref: string): Promise<Answer> {
    return t.call('browser_click', { element: "the banner's dismiss button", target: ref });
  }
}

/** chrome-devtools-mcp: navigate_page answers no snapshot; inputs take includeSnapshot. */
export class ChromeDevtoolsAgent extends PeerAgent {
  readonly id = 'chrome-devtools-mcp';
  readonly label = 'chrome-devtools-mcp';
  protected readonly format = 'chrome-devtools' as const;
  #pageId = 1;

  override async start(): Promise<void> {
    await super.start();
    const { text } = await new Transcript(this.client!).call('list_pages', {});
    this.#pageId = Number((/^(\d+): .*\[selected\]/m.exec(text) ?? /^(\d+): /m.exec(text))?.[1] ?? 1);
  }

  protected override keep(text: string): void {
    if (/^\s*uid=\S+ /m.test(text)) this.snapshot = text;
  }

  protected async look(t: Transcript): Promise<string> {
    const { text } = await t.call('take_snapshot', { pageId: this.#pageId });
    this.snapshot = text;
    return text;
  }

  protected navigate(t: Transcript, url: string): Promise<Answer> {
    return t.call('navigate_page', { pageId: this.#pageId, type: 'url', url });
  }

  protected async input(t: Transcript, step: InputStep, fills: FillStep[], last: boolean): Promise<Answer> {
    // The last step asks for a snapshot: the agent reads the outcome from it.
    const includeSnapshot = last;
    const pageId = this.#pageId;
    if (fills.length > 0) {
      const elements = [];
      for (const fill of fills) elements.push({ uid: await this.refOf(t, fill.target), value: fill.text });
      return t.call('fill_form', { pageId, elements, includeSnapshot });
    }
    const uid = await this.refOf(t, step.target);
    if (step.do === 'click') return t.call('click', { pageId, uid, includeSnapshot });
    const filled = await t.call('fill', { pageId, uid, value: step.text });
    if (filled.error) return filled;
    return t.call('press_key', { pageId, key: 'Enter', includeSnapshot });
  }

  protected covered(text: string): boolean {
    return /intercept|covered|obscured|not clickable|another element/i.test(text);
  }

  protected async waitFor(t: Transcript, text: string): Promise<string> {
    const answer = await t.call('wait_for', { pageId: this.#pageId, text: [text], timeout: WAIT_MS });
    this.keep(answer.text);
    return answer.error ? '' : answer.text;
  }

  protected clickRef(t: Transcript, uid: string): Promise<Answer> {
    return t.call('click', { pageId: this.#pageId, uid });
  }
}
