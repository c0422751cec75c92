// The MCP server: builds the McpServer instances the transports ask for (one per stdio connection,
// one per HTTP request or 2025-era HTTP session), with the tools of tools.ts registered on them,
// and runs each tool call through the RPC method table on its principal's connection. An MCP
// cancellation withdraws the call (CallContext.signal: dropped while queued, cancelled as
// `cancel` does while running); a progress token turns the call's stages into progress
// notifications.
import { type CallToolResult, type McpRequestContext, McpServer, type ServerContext } from '@modelcontextprotocol/server';
import type { CallContext, Principal } from '../rpc/context.ts';
import type { AnyMethodDef } from '../rpc/define.ts';
import type { JsonRpcErrorObject } from '../rpc/errors.ts';
import type { CallOutcome } from '../rpc/server.ts';
import { IdSequence } from '../util/ids.ts';
import { MCP_MAX_BYTES } from '../util/result-budget.ts';
import { utf8Length } from '../util/utf8.ts';
import { type Logger, silentLogger } from '../util/log.ts';
import { ownBudget } from './budget.ts';
import { passThrough } from './json-schema.ts';
import { McpPrincipal, type WireEvent } from './principal.ts';
import { errorText, eventLines, notable } from './render.ts';
import { IMAGE_CONTENT_INDEX, RESOURCE_CONTENT_INDEX, toolInputSchema, toolOutputSchema, wireSchemas } from './schemas.ts';
import { actionCall, type ToolCall, type ToolOutcome, TOOLS, type ToolSpec } from './tools.ts';

/** What the host needs of the RPC server (RpcServer has it). */
export interface McpRpc {
  call(method: string, params: unknown, call: CallContext): Promise<CallOutcome>;
  check(method: string, params: unknown): JsonRpcErrorObject | undefined;
}

/** File reading, from the runtime (this layer does no file work). */
export interface McpFiles {
  read(path: string): Promise<Uint8Array>;
}

export interface McpHostOptions {
  rpc: McpRpc;
  /** The method table whose params schemas the tools take. */
  methods: readonly AnyMethodDef[];
  version: string;
  /** Reads a file the server wrote (a PDF a tool embeds); without it, files are named by path only. */
  files?: McpFiles;
  /** The principal of a stdio connection (HTTP requests name theirs). */
  stdioPrincipal?: Principal;
  /** Every tool result's budget in bytes, text and structuredContent together (PROTOCOL.md §14). */
  maxBytes?: number;
  log?: Logger;
}

/** Named where hosts show them; a model reads the tool descriptions. */
const INSTRUCTIONS =
  'pagewire drives a real Chromium. Observe a tab (browser_observe), then act on its refs (browser_act); every act answers ' +
  'with a fresh observation, refusals included: read its error_type and act on that observation.';

/** A tool as the SDK registers it: built once per host, handed to every instance. */
interface Registered {
  readonly spec: ToolSpec;
  readonly config: {
    description: string;
    inputSchema: ReturnType<typeof passThrough>;
    outputSchema: ReturnType<typeof passThrough>;
    annotations: ToolSpec['annotations'];
  };
}

/**
 * The one tool a 2026-07-28 HTTP request calls, from its Mcp-Method and Mcp-Name headers (the SDK
 * refuses a request whose headers and body disagree before it asks for an instance); undefined
 * for anything else (a listing, a discover probe, a stdio connection, a 2025-era session).
 */
function calledTool(context: McpRequestContext): string | undefined {
  const headers = context.era === 'modern' ? context.requestInfo?.headers : undefined;
  return headers?.get('mcp-method') === 'tools/call' ? headers.get('mcp-name') ?? undefined : undefined;
}

export class McpHost {
  readonly #options: McpHostOptions;
  readonly #log: Logger;
  readonly #budget: number;
  readonly #tools: readonly Registered[];
  readonly #principals = new Map<string, McpPrincipal>();
  readonly #connectionIds = new IdSequence('mcp-');

  constructor(options: McpHostOptions) {
    this.#options = options;
    this.#log = options.log ?? silentLogger;
    this.#budget = options.maxBytes ?? MCP_MAX_BYTES.default;
    const schemas = wireSchemas(options.methods);
    this.#tools = TOOLS.map((spec) => ({
      spec,
      config: {
        description: spec.description,
        inputSchema: passThrough(toolInputSchema(spec, schemas)),
        outputSchema: passThrough(toolOutputSchema(spec, schemas)),
        annotations: spec.annotations,
      },
    }));
  }

  /**
   * The SDK's McpServerFactory: a fresh instance bound to the caller's principal, with every tool,
   * or with only the one a tools/call request names (an instance serves that one request, and
   * registering the others is most of what making it costs).
   */
  readonly factory = (context: McpRequestContext): McpServer => {
    const id = context.authInfo?.clientId;
    const principal = id !== undefined ? { id } : this.#options.stdioPrincipal;
    if (!principal) throw new Error('an MCP request without a principal');
    const state = this.principalFor(principal);
    const server = new McpServer({ name: 'pagewire', version: this.#options.version }, {
      capabilities: { tools: {} },
      instructions: INSTRUCTIONS,
    });
    const called = calledTool(context);
    const only = this.#tools.filter((tool) => tool.spec.name === called);
    for (const tool of only.length === 1 ? only : this.#tools) {
      server.registerTool(
        tool.spec.name,
        tool.config,
        (args: unknown, ctx: ServerContext) => this.#run(tool.spec, (args ?? {}) as Record<string, unknown>, ctx, state),
      );
    }
    return server;
  };

  /** The MCP state of a principal, made on its first request and kept while the server runs. */
  principalFor(principal: Principal): McpPrincipal {
    let state = this.#principals.get(principal.id);
    if (!state) {
      state = new McpPrincipal({ principal, connectionId: this.#connectionIds.next(), rpc: this.#options.rpc });
      this.#principals.set(principal.id, state);
    }
    return state;
  }

  /** Connection ids of every principal (they are clients of the sessions they used). */
  get connectionIds(): string[] {
    return [...this.#principals.values()].map((state) => state.connection.id);
  }

  close(): void {
    for (const state of this.#principals.values()) state.close();
    this.#principals.clear();
  }

  async #run(spec: ToolSpec, args: Record<string, unknown>, ctx: ServerContext, principal: McpPrincipal): Promise<CallToolResult> {
    const token = ctx.mcpReq._meta?.progressToken;
    let step = 0;
    const progress = token === undefined ? undefined : (message: string) => {
      ctx.mcpReq
        .notify({ method: 'notifications/progress', params: { progressToken: token, progress: ++step, message } })
        .catch(() => {});
    };
    const call: CallContext = {
      connection: principal.connection,
      principal: principal.principal,
      signal: ctx.mcpReq.signal,
      ...(progress ? { progress } : {}),
    };
    const sessionArg = typeof args['session_id'] === 'string' ? args['session_id'] : undefined;
    const sessionId = spec.onSession ? await principal.tap(sessionArg) : undefined;
    const toolCall: ToolCall = {
      args,
      principal,
      sessionId,
      wire: (method, params) => this.#options.rpc.call(method, params, call),
      check: (method, params) => this.#options.rpc.check(method, params),
      budget: this.#budget,
    };
    let outcome: ToolOutcome;
    if (spec.run) {
      outcome = await spec.run(toolCall);
    } else {
      const mapped = actionCall(spec, args);
      outcome = 'method' in mapped ? await toolCall.wire(mapped.method, mapped.params) : mapped;
    }
    const news = notable(principal.news(sessionId ?? principal.defaultSessionId));
    const file = outcome.ok ? await this.#embeddable(spec, outcome.result as Record<string, unknown>) : undefined;
    return this.#result(spec, outcome, args, news, principal, file);
  }

  /** The file a result names, as an embedded resource, if the tool embeds files and this one is small enough. */
  async #embeddable(spec: ToolSpec, result: Record<string, unknown>): Promise<EmbeddedResource | undefined> {
    const files = this.#options.files;
    const { path, size } = result;
    if (!spec.file || !files || typeof path !== 'string' || typeof size !== 'number' || size > spec.file.maxBytes) return undefined;
    const bytes = await files.read(path);
    return { type: 'resource', resource: { uri: fileUri(path), mimeType: spec.file.mime, blob: base64Of(bytes) } };
  }

  #result(
    spec: ToolSpec,
    outcome: ToolOutcome,
    args: Record<string, unknown>,
    news: WireEvent[],
    principal: McpPrincipal,
    file: EmbeddedResource | undefined,
  ): CallToolResult {
    const meta = news.length > 0 ? { _meta: { 'pagewire/events': news } } : {};
    if (!outcome.ok) {
      const text = [errorText(outcome.error), ...eventLines(news)].join('\n');
      return { content: [{ type: 'text', text }], structuredContent: { ...outcome.error }, isError: true, ...meta };
    }
    const result = (outcome.result ?? {}) as Record<string, unknown>;
    // The observations this principal was handed: what an act without state_id takes next.
    if (typeof result['state_id'] === 'string') principal.handed(result);
    const fresh = result['fresh_state'] as Record<string, unknown> | undefined;
    if (fresh && result['replayed'] !== true) principal.handed(fresh);
    // wait's observation, and a new tab's (tabs.new with observe).
    const observed = result['observation'] as Record<string, unknown> | undefined;
    if (observed) principal.handed(observed);

    // An embedded file is named by its block's index, as an image is.
    const shown = file ? { ...result, resource_content: RESOURCE_CONTENT_INDEX } : result;
    const { structured, image } = spec.image ? withoutImage(result, spec.image) : { structured: shown };
    const said = spec.text(shown, args, news, principal.idsSaid);
    const text = spec.eventsInText ? said : [said, ...eventLines(news)].join('\n');
    const content: CallToolResult['content'] = [{ type: 'text', text }];
    if (image) content.push({ type: 'image', data: image.data, mimeType: image.mime });
    if (file) content.push(file);
    const failed = spec.failed?.(result) ?? false;
    if (failed) this.#log.debug('tool reported a failure', { tool: spec.name, status: result['status'] });
    const answer = { content, structuredContent: structured, isError: failed, ...meta };
    // What the budget covers: the text and the JSON (an image is bounded by its own size limits).
    const size = utf8Length(JSON.stringify({ ...answer, content: content.filter((block) => block.type === 'text') }));
    if (size > (ownBudget(args) ?? this.#budget)) {
      this.#log.warn('a tool result is over its byte budget', { tool: spec.name, bytes: size });
    }
    return answer;
  }
}

/**
 * The wire result less the image bytes at `where`, which travel in the image content block
 * instead: in their place, `image_content` names that block (IMAGE_CONTENT_INDEX).
 */
function withoutImage(result: Record<string, unknown>, where: 'result' | 'screenshot'): {
  structured: Record<string, unknown>;
  image?: { mime: string; data: string };
} {
  const holder = (where === 'result' ? result : result['screenshot']) as Record<string, unknown> | undefined;
  if (!holder || typeof holder['data'] !== 'string' || typeof holder['mime'] !== 'string') return { structured: result };
  const { data, ...rest } = holder;
  const named = { ...rest, image_content: IMAGE_CONTENT_INDEX };
  return { structured: where === 'result' ? named : { ...result, screenshot: named }, image: { mime: holder['mime'], data } };
}

type EmbeddedResource = { type: 'resource'; resource: { uri: string; mimeType: string; blob: string } };

/** `file://` and the path, each segment percent-encoded (spaces and ` (1)` suffixes included). */
function fileUri(path: string): string {
  return 'file://' + path.split('/').map(encodeURIComponent).join('/');
}

function base64Of(bytes: Uint8Array): string {
  let binary = '';
  // In slices: String.fromCharCode takes its bytes as arguments, and arguments are bounded.
  for (let at = 0; at < bytes.length; at += 0x8000) binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  return btoa(binary);
}
