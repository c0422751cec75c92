// pagewire over MCP: the same process and set-up as the WebSocket contender (pagewire.ts), with
// every timed call made as an MCP host makes it: browser_observe and browser_act through the
// official MCP client (SDK v2, the 2026-07-28 revision) over Streamable HTTP on /mcp, after a
// tools/list as a host makes it (the client then checks each result against the tool's
// outputSchema). Set-up (waiting for load, changing the page) still goes over the WebSocket,
// untimed. Its medians minus the WebSocket contender's, on the same pages in the same interleaved
// run, are what the MCP path adds to a call; the MCP floor (mcp-floor.ts) replays its answers.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { utf8 } from './contender.ts';
import type { ActResult, Observation } from '../../test/helpers/wire.ts';
import type { ListedTool } from './mcp-floor-server.ts';
import { PagewireContender } from './pagewire.ts';

export interface ToolAnswer {
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** A tool call as it was made, with its answer. */
export interface RecordedCall {
  args: Record<string, unknown>;
  answer: ToolAnswer;
}

export class PagewireMcpContender extends PagewireContender {
  override readonly id: string = 'pagewire-mcp';
  override readonly label: string = 'pagewire over MCP';
  override readonly calls = {
    observe: '`browser_observe {}` over Streamable HTTP (SDK v2 client); the model reads its one text block',
    click: '`browser_act {action: "click", ref}` (answer carries `fresh_state`)',
    click_observed: 'same call',
    fill: '`browser_act {action: "fill", ref, text}` (answer carries `fresh_state`)',
    type: '`browser_act {action: "type", ref, text}` (answer carries `fresh_state`)',
    select: '`browser_act {action: "select", ref, label}` (answer carries `fresh_state`)',
    navigate: '`browser_act {action: "navigate", url}`: DOMContentLoaded, then a fresh observation',
  };
  #client: Client | undefined;
  #tools: ListedTool[] = [];
  readonly #last = new Map<string, RecordedCall>();

  override async start(): Promise<void> {
    await super.start();
    const ws = new URL(this.url);
    const mcp = new URL(`http://${ws.host}/mcp`);
    mcp.searchParams.set('token', ws.searchParams.get('token') ?? '');
    const client = new Client({ name: 'pagewire-bench', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new StreamableHTTPClientTransport(mcp));
    this.#tools = (await client.listTools()).tools as ListedTool[];
    this.#client = client;
    this.command += '; MCP calls: POST /mcp (SDK v2 client)';
  }

  async #tool(name: string, args: Record<string, unknown>): Promise<{ answer: ToolAnswer; bytes: number }> {
    if (!this.#client) throw new Error('pagewire over MCP is not started');
    const answer = (await this.#client.callTool({ name, arguments: args })) as ToolAnswer;
    this.#last.set(name, { args, answer });
    return { answer, bytes: utf8(JSON.stringify(answer)) };
  }

  /** The tools as this contender's tools/list gave them. */
  get tools(): readonly ListedTool[] {
    return this.#tools;
  }

  /** The last call made of a tool, with its answer. */
  lastCall(name: string): RecordedCall | undefined {
    return this.#last.get(name);
  }

  protected override async observeCall(maxElements?: number): Promise<{ observation: Observation; wire: number; text?: string }> {
    const { answer, bytes } = await this.#tool('browser_observe', {
      session_id: this.sessionId,
      target_id: this.targetId,
      ...(maxElements ? { max_elements: maxElements } : {}),
    });
    if (answer.isError || !answer.structuredContent) throw new Error(`browser_observe failed: ${answer.content[0]?.text ?? ''}`);
    return {
      observation: answer.structuredContent as unknown as Observation,
      wire: bytes,
      text: answer.content.find((c) => c.type === 'text')?.text ?? '',
    };
  }

  protected override async actCall(params: Record<string, unknown>): Promise<ActResult> {
    const { answer } = await this.#tool('browser_act', params);
    if (!answer.structuredContent) throw new Error(`browser_act failed: ${answer.content[0]?.text ?? ''}`);
    // A JSON-RPC error comes back as a tool error whose structured content is the error object.
    if (!('status' in answer.structuredContent)) throw new Error(`browser_act failed: ${answer.content[0]?.text ?? ''}`);
    return answer.structuredContent as unknown as ActResult;
  }

  override async stop(): Promise<void> {
    await this.#client?.close().catch(() => undefined);
    await super.stop();
  }
}
