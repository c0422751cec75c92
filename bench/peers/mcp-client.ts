// A minimal MCP client over stdio (newline-delimited JSON-RPC 2.0, as the MCP stdio transport
// specifies): spawn the server, `initialize`, `notifications/initialized`, then `tools/list` and
// `tools/call`. No SDK: the benchmark needs nothing else, and owning the pipe keeps the timing
// honest (a call's clock runs from the write of its line to the parse of its answer).
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface ToolContent {
  type: string;
  text?: string;
  [key: string]: unknown;
}

export interface ToolResult {
  content?: ToolContent[];
  isError?: boolean;
  structuredContent?: unknown;
  [key: string]: unknown;
}

export interface ToolInfo {
  name: string;
  description?: string;
  inputSchema?: { properties?: Record<string, unknown>; required?: string[] };
}

export interface McpServerInfo {
  name: string;
  version: string;
}

export class McpError extends Error {
  readonly code: number | undefined;
  constructor(message: string, code?: number) {
    super(message);
    this.code = code;
  }
}

interface Pending {
  method: string;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  timer: ReturnType<typeof setTimeout>;
}

export interface McpSpawnOptions {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  /** Budget for any one request, in ms. */
  timeoutMs?: number;
}

/** The text a model reads from a tool result: every text part, joined by newlines. */
export function resultText(result: ToolResult): string {
  return (result.content ?? [])
    .filter((part) => part.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text!)
    .join('\n');
}

export class McpClient {
  readonly child: ChildProcess;
  serverInfo: McpServerInfo | undefined;
  readonly #pending = new Map<number, Pending>();
  readonly #timeoutMs: number;
  #nextId = 1;
  #stderr = '';
  #exited: string | undefined;

  private constructor(child: ChildProcess, timeoutMs: number) {
    this.child = child;
    this.#timeoutMs = timeoutMs;
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => this.#onLine(line));
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      // Keep the tail only: enough to say why a server died.
      this.#stderr = (this.#stderr + chunk).slice(-8_000);
    });
    // 'exit' rather than 'close' (a daemon it started may hold the pipes); a moment later, so
    // that its last words on stderr are in.
    child.on('exit', (code, signal) => setTimeout(() => this.#fail(`exited (code ${code}, signal ${signal})`), 100));
    child.on('error', (error) => this.#fail(`failed to start: ${error.message}`));
    // Writing to a server that already died must not crash the bench.
    child.stdin!.on('error', () => undefined);
  }

  static async start(options: McpSpawnOptions): Promise<McpClient> {
    const child = spawn(options.command, options.args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const client = new McpClient(child, options.timeoutMs ?? 60_000);
    const init = (await client.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'pagewire-bench', version: '0.0.0' },
    })) as { serverInfo?: McpServerInfo };
    client.serverInfo = init.serverInfo;
    client.notify('notifications/initialized', {});
    return client;
  }

  #fail(why: string): void {
    this.#exited ??= why;
    for (const [id, pending] of this.#pending) {
      clearTimeout(pending.timer);
      pending.reject(new McpError(`${pending.method}: the server ${this.#exited}; stderr: ${this.stderrTail()}`));
      this.#pending.delete(id);
    }
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  stderrTail(): string {
    return this.#stderr.trim().split('\n').slice(-12).join('\n') || '(empty)';
  }

  async listTools(): Promise<ToolInfo[]> {
    const tools: ToolInfo[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 50; page++) {
      const reply = (await this.request('tools/list', cursor ? { cursor } : {})) as { tools: ToolInfo[]; nextCursor?: string };
      tools.push(...reply.tools);
      if (!reply.nextCursor) break;
      cursor = reply.nextCursor;
    }
    return tools;
  }

  /** Calls a tool; a result with `isError` is returned, not thrown (callers decide). */
  callTool(name: string, args: Record<string, unknown>, timeoutMs?: number): Promise<ToolResult> {
    return this.request('tools/call', { name, arguments: args }, timeoutMs) as Promise<ToolResult>;
  }

  request(method: string, params: unknown, timeoutMs = this.#timeoutMs): Promise<unknown> {
    if (this.#exited) return Promise.reject(new McpError(`${method}: the server ${this.#exited}; stderr: ${this.stderrTail()}`));
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new McpError(`${method}: no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#pending.set(id, { method, resolve, reject, timer });
      this.child.stdin!.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    });
  }

  notify(method: string, params: unknown): void {
    if (this.#exited) return;
    this.child.stdin!.write(JSON.stringify({ jsonrpc: '2.0', method, params }) + '\n');
  }

  #onLine(line: string): void {
    if (!line.trim()) return;
    let message: { id?: number | string; method?: string; result?: unknown; error?: { code: number; message: string } };
    try {
      message = JSON.parse(line);
    } catch {
      return; // not protocol (some servers log to stdout before they start speaking)
    }
    if (message.method !== undefined) {
      // A request from the server (ping, roots/list, …): answer so it never waits on us.
      if (message.id !== undefined) {
        const reply = message.method === 'ping'
          ? { jsonrpc: '2.0', id: message.id, result: {} }
          : message.method === 'roots/list'
          ? { jsonrpc: '2.0', id: message.id, result: { roots: [] } }
          : { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'not supported by the bench client' } };
        this.child.stdin!.write(JSON.stringify(reply) + '\n');
      }
      return;
    }
    if (typeof message.id !== 'number') return;
    const pending = this.#pending.get(message.id);
    if (!pending) return;
    this.#pending.delete(message.id);
    clearTimeout(pending.timer);
    if (message.error) pending.reject(new McpError(`${pending.method}: ${message.error.message}`, message.error.code));
    else pending.resolve(message.result);
  }

  /** Closes stdin (the MCP way to end a stdio server), then SIGTERM, then SIGKILL. */
  async close(graceMs = 5_000): Promise<void> {
    if (this.#exited || this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.stdin!.end();
    const waited = await Promise.race([exited.then(() => true), delay(graceMs).then(() => false)]);
    if (waited) return;
    this.child.kill('SIGTERM');
    const termed = await Promise.race([exited.then(() => true), delay(graceMs).then(() => false)]);
    if (!termed) this.child.kill('SIGKILL');
  }
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
