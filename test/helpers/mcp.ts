// MCP clients for tests, all official SDK clients: v2 (the 2026-07-28 revision, negotiated) over
// Streamable HTTP and over stdio (spawning the real `pagewire mcp` process), and v1 (the 2025
// revision) over Streamable HTTP. One small interface over them, so the same flows run on each.
import type { Buffer } from 'node:buffer';
import type { ChildProcess } from 'node:child_process';
import process from 'node:process';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client';
// The SDK's `./*` export maps types to `*.d.ts` of the path as written (`streamableHttp.js.d.ts`),
// which Deno's checker does not find; tsc falls back to the .d.ts beside the .js.
// @deno-types="../../node_modules/@modelcontextprotocol/sdk/dist/esm/client/streamableHttp.d.ts"
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { IS_DENO, ROOT } from './server-process.ts';

export interface ToolResult {
  content: Array<{ type: string; text?: string; data?: string; mimeType?: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

export interface CallOptions {
  signal?: AbortSignal;
  onprogress?: (progress: { progress: number; message?: string }) => void;
}

export interface McpDoor {
  readonly name: string;
  call(name: string, args?: Record<string, unknown>, options?: CallOptions): Promise<ToolResult>;
  listTools(): Promise<Array<Record<string, unknown>>>;
  close(): Promise<void>;
}

/** The text block of a result (there is exactly one). */
export function textOf(result: ToolResult): string {
  const texts = result.content.filter((block) => block.type === 'text');
  if (texts.length !== 1) throw new Error(`expected one text block, got ${texts.length}`);
  return texts[0]!.text ?? '';
}

/**
 * The ref the tree gives the element named `name` (the first one, in document order); for a
 * name that is only text inside an element with a ref (a clickable <div>), that element's ref.
 */
export function refIn(tree: string, name: string): string {
  const quoted = JSON.stringify(name);
  const direct = tree.split(quoted).slice(1).map((after) => /^[^@"\n]*(@\d+)/.exec(after)?.[1]).find((ref) => ref !== undefined);
  if (direct) return direct;
  const lines = tree.split('\n');
  const index = lines.findIndex((line) => line.trim() === quoted);
  const indent = (line: string) => line.length - line.trimStart().length;
  for (let i = index; i >= 0 && index !== -1; i--) {
    if (i !== index && indent(lines[i]!) >= indent(lines[index]!)) continue;
    const after = i === index ? lines[i]!.slice(lines[i]!.indexOf(quoted) + quoted.length) : lines[i]!;
    const ref = /^[^@"]*(@\d+)/.exec(after)?.[1];
    if (ref) return ref;
    if (i !== index) break;
  }
  throw new Error(`no ref for ${quoted} in:\n${tree}`);
}

/**
 * fetch, with a response body that an abort of the request cancels itself. Deno's fetch does not
 * always close the connection when a request is aborted after its response began (under load,
 * both ends of the connection were still established seconds later), and closing it is how a
 * 2026-07-28 client cancels a call.
 */
const closingFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  const signal = init?.signal;
  if (!response.body || !signal) return response;
  const reader = response.body.getReader();
  const cancel = () => void reader.cancel(signal.reason).catch(() => {});
  signal.addEventListener('abort', cancel, { once: true });
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) {
        signal.removeEventListener('abort', cancel);
        controller.close();
      } else controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
};

export async function v2Http(url: string, init: RequestInit = {}): Promise<McpDoor> {
  const client = new Client({ name: 'pagewire-test', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: init, ...(IS_DENO ? { fetch: closingFetch } : {}) }),
  );
  if (client.getProtocolEra() !== 'modern') throw new Error(`expected the 2026-07-28 era, got ${client.getProtocolEra()}`);
  // As a host does: the listed output schemas are what the client checks every result against.
  await client.listTools();
  return {
    name: 'SDK v2 over Streamable HTTP',
    call: (name, args = {}, options = {}) => client.callTool({ name, arguments: args }, options) as Promise<ToolResult>,
    listTools: async () => (await client.listTools()).tools as Array<Record<string, unknown>>,
    close: () => client.close(),
  };
}

/** `options`: the client's own (its `jsonSchemaValidator`, for a test that checks results itself). */
export async function v1Http(url: string, init: RequestInit = {}, options?: ConstructorParameters<typeof V1Client>[1]): Promise<McpDoor> {
  const client = new V1Client({ name: 'pagewire-test-v1', version: '1.0.0' }, options);
  await client.connect(new V1Transport(new URL(url), { requestInit: init }));
  await client.listTools();
  return {
    name: 'SDK v1 over Streamable HTTP',
    call: (name, args = {}, options = {}) => client.callTool({ name, arguments: args }, undefined, options) as Promise<ToolResult>,
    listTools: async () => (await client.listTools()).tools as Array<Record<string, unknown>>,
    close: () => client.close(),
  };
}

export interface StdioDoor extends McpDoor {
  /** The `pagewire mcp` process. */
  readonly pid: number;
  /** Its exit code once it has exited (Node only: Deno's child_process reports a handled signal as null). */
  exitCode(): number | null;
  /** Resolves when the process has exited. */
  readonly exited: Promise<void>;
  /** Closes the process's stdin, as a host does when it is done (close() also signals after a while). */
  endStdin(): void;
  /** Stops reading the process's stdout (the pipe's read end closes), as a host that died leaves it. */
  dropStdout(): void;
  /** Writes raw bytes to the process's stdin, past the client. */
  writeStdin(data: string): Promise<void>;
}

/** Spawns `pagewire mcp` (Node: the built dist/, as `npx pagewire mcp` runs; Deno: the sources). */
export async function v2Stdio(flags: string[] = []): Promise<StdioDoor> {
  const args = IS_DENO ? ['run', '-A', `${ROOT}src/main.ts`, 'mcp', ...flags] : [`${ROOT}dist/src/main.js`, 'mcp', ...flags];
  const transport = new StdioClientTransport({ command: process.execPath, args, cwd: ROOT, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'pagewire-test-stdio', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  try {
    await client.connect(transport);
  } catch (error) {
    throw new Error(`pagewire mcp did not connect: ${(error as Error).message}\n${stderr}`);
  }
  await client.listTools();
  // The child itself, read once: the transport forgets it when closing, and the exit code is
  // what the test asserts (the SDK keeps it private).
  const child = (transport as unknown as { _process: ChildProcess })._process;
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  return {
    name: 'SDK v2 over stdio',
    pid: transport.pid!,
    exitCode: () => child.exitCode,
    exited,
    endStdin: () => child.stdin?.end(),
    dropStdout: () => child.stdout?.destroy(),
    writeStdin: (data) => new Promise<void>((resolve, reject) => child.stdin!.write(data, (error) => (error ? reject(error) : resolve()))),
    call: (name, args = {}, options = {}) => client.callTool({ name, arguments: args }, options) as Promise<ToolResult>,
    listTools: async () => (await client.listTools()).tools as Array<Record<string, unknown>>,
    close: () => client.close(),
  };
}
