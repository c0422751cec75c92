// The MCP floor: what a call costs over MCP with nothing of pagewire in it, host side included.
// The same SDK v2 client as pagewire over MCP (after the same tools/list, so it checks results
// against the same outputSchemas) calls a bare SDK v2 server (mcp-floor-server.ts) on
// 127.0.0.1 with the arguments pagewire over MCP last sent for that tool, and gets back the
// answer pagewire over MCP gave them, handed to the server untimed just before. Run right after
// pagewire over MCP in each interleaved round, it replays that round's call: the same bytes both
// ways, the same validation, no browser. pagewire over MCP − pagewire − this = what pagewire's own
// MCP code adds (less the WebSocket round trip, which the floor does not make).
import { type ChildProcess, spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { ActOutcome, Contender, NavOutcome, ObserveOutcome } from './contender.ts';
import { errorText, utf8 } from './contender.ts';
import type { FloorAnswers } from './mcp-floor-server.ts';
import type { PagewireMcpContender, ToolAnswer } from './pagewire-mcp.ts';
import { TAG_VAR } from './procs.ts';
import { countInteractive } from './snapshot-text.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SERVER = fileURLToPath(new URL('./mcp-floor-server.ts', import.meta.url));

export class McpFloorContender implements Contender {
  readonly id = 'mcp-floor';
  readonly label = 'MCP floor (SDK v2, bare server)';
  version = 'unknown';
  command = '';
  readonly calls = {
    observe: "pagewire over MCP's last `browser_observe` call, replayed: its arguments to a bare SDK v2 server that answers its answer",
    click: "pagewire over MCP's last `browser_act` call (the click), replayed",
    click_observed: 'same call',
    fill: "pagewire over MCP's last `browser_act` call (the fill), replayed",
    type: "pagewire over MCP's last `browser_act` call (the typing), replayed",
    select: "pagewire over MCP's last `browser_act` call (the choice), replayed",
    navigate: "pagewire over MCP's last `browser_act` call (the navigate), replayed",
  };
  readonly clickObservation = 'in-answer' as const;
  readonly tag: string;
  readonly #source: () => PagewireMcpContender | undefined;
  #child: ChildProcess | undefined;
  #client: Client | undefined;
  #url = '';

  /** `source`: the pagewire over MCP contender of the same run, started before this one. */
  constructor(tag: string, source: () => PagewireMcpContender | undefined) {
    this.tag = tag;
    this.#source = source;
  }

  pids(): number[] {
    return this.#child?.pid ? [this.#child.pid] : [];
  }

  get #pagewire(): PagewireMcpContender {
    const source = this.#source();
    if (!source) throw new Error('the MCP floor replays pagewire over MCP, which is not running');
    return source;
  }

  async start(): Promise<void> {
    const tools = this.#pagewire.tools;
    const child = spawn(process.execPath, ['--import', 'tsx', SERVER], {
      cwd: ROOT,
      env: { ...process.env, [TAG_VAR]: this.tag },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    this.#child = child;
    this.command = 'node --import tsx bench/peers/mcp-floor-server.ts; calls: POST / (SDK v2 client)';
    const line = await new Promise<string>((resolve, reject) => {
      child.stdout!.setEncoding('utf8');
      child.stdout!.once('data', (chunk: string) => resolve(chunk.trim()));
      child.once('exit', (code) => reject(new Error(`the MCP floor's server exited (${code}) before its ready line`)));
    });
    this.#url = /^mcp-floor listening on (\S+)$/.exec(line)?.[1] ?? '';
    if (!this.#url) throw new Error(`unexpected ready line: ${line}`);
    await this.#hand({ tools: [...tools] });
    const client = new Client({ name: 'pagewire-bench', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new StreamableHTTPClientTransport(new URL(this.#url)));
    await client.listTools();
    this.#client = client;
    const info = client.getServerVersion();
    this.version = `${info?.name ?? 'mcp-floor'} (@modelcontextprotocol/server)`;
  }

  async #hand(answers: FloorAnswers): Promise<void> {
    const response = await fetch(`${this.#url}answer`, { method: 'POST', body: JSON.stringify(answers) });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`the MCP floor's server refused an answer: HTTP ${response.status}`);
  }

  /** Untimed: the answer pagewire over MCP last gave `tool`; the arguments it was given. */
  async #replay(tool: string): Promise<Record<string, unknown>> {
    const last = this.#pagewire.lastCall(tool);
    if (!last) throw new Error(`pagewire over MCP has made no ${tool} call to replay`);
    await this.#hand({ answers: { [tool]: last.answer as never } });
    return last.args;
  }

  async #call(tool: string, args: Record<string, unknown>): Promise<ToolAnswer> {
    if (!this.#client) throw new Error('the MCP floor is not started');
    return (await this.#client.callTool({ name: tool, arguments: args })) as ToolAnswer;
  }

  async open(_url: string): Promise<void> {
    await this.#replay('browser_observe');
  }

  async #observe(): Promise<ObserveOutcome> {
    const args = this.#pagewire.lastCall('browser_observe')?.args ?? {};
    const answer = await this.#call('browser_observe', args);
    const text = answer.content.find((c) => c.type === 'text')?.text ?? '';
    const tree = String(answer.structuredContent?.['tree'] ?? '');
    return { text, interactive: countInteractive(tree, 'pagewire'), wire_bytes: utf8(JSON.stringify(answer)) };
  }

  observe(): Promise<ObserveOutcome> {
    return this.#observe();
  }

  observeMore(): Promise<ObserveOutcome> {
    return this.#observe();
  }

  /** Set-up before an observation: pagewire over MCP has just made this round's; it is the next answer. */
  async mutate(_i: number): Promise<void> {
    await this.#replay('browser_observe');
  }

  async prepare(): Promise<void> {
    await this.#replay('browser_observe');
  }

  async #act(): Promise<ActOutcome> {
    try {
      const args = await this.#replay('browser_act');
      const t0 = performance.now();
      const answer = await this.#call('browser_act', args);
      const ms = performance.now() - t0;
      const fresh = answer.structuredContent?.['fresh_state'] as { tree?: string } | undefined;
      const ok = !answer.isError && answer.structuredContent?.['status'] === 'completed';
      return {
        ok,
        observation: fresh !== undefined,
        text_bytes: utf8(answer.content.find((c) => c.type === 'text')?.text ?? ''),
        ms,
        ...(ok ? {} : { error: answer.content[0]?.text ?? 'failed' }),
      };
    } catch (error) {
      return { ok: false, observation: false, text_bytes: 0, error: errorText(error) };
    }
  }

  click(): Promise<ActOutcome> {
    return this.#act();
  }

  fill(): Promise<ActOutcome> {
    return this.#act();
  }

  type(): Promise<ActOutcome> {
    return this.#act();
  }

  select(): Promise<ActOutcome> {
    return this.#act();
  }

  navigate(): Promise<NavOutcome> {
    return this.#act();
  }

  async stop(): Promise<void> {
    await this.#client?.close().catch(() => undefined);
    const child = this.#child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    await exited;
  }
}
