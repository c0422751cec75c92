// The `/mcp` route: MCP Streamable HTTP on the server's own listener, served by the official SDK.
// The listener has already checked Host, Origin and the token (http-server.ts) and names the
// principal. Requests of the 2026-07-28 revision go to the SDK's per-request handler; 2025-era
// clients (SDK v1) get sessions of their own (Mcp-Session-Id), so that their
// notifications/cancelled reaches the call it cancels. Closing a request's HTTP connection aborts
// the call it carries. Everything MCP-shaped is the SDK's: this file only moves bytes between
// node:http and the web-standard Request/Response the SDK speaks.
import { Buffer } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { clearInterval, setInterval } from 'node:timers';
import {
  type AuthInfo,
  createMcpHandler,
  isInitializeRequest,
  type McpServerFactory,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { Principal } from '../rpc/context.ts';
import { type Logger, silentLogger } from '../util/log.ts';
import { readBody } from './http-body.ts';
import type { CorsPolicy } from './http-server.ts';

/** The SDK's own default bound for a request body. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** 2025-era sessions kept at once; past it the one idle longest is closed. */
const MAX_LEGACY_SESSIONS = 64;

/**
 * What an MCP client in a browser page of an accepted Origin sends and reads: POST (and GET and
 * DELETE of a 2025-era session), the headers the SDK clients (v1 and v2) set, and the response
 * headers they read (a 2025-era session's id, the auth challenge).
 */
export const MCP_CORS: CorsPolicy = {
  methods: ['POST', 'GET', 'DELETE'],
  requestHeaders: [
    'authorization',
    'content-type',
    'accept',
    'mcp-protocol-version',
    'mcp-session-id',
    'mcp-method',
    'mcp-name',
    'last-event-id',
    'pagewire-instance',
  ],
  exposeHeaders: ['mcp-session-id', 'mcp-protocol-version', 'www-authenticate', 'pagewire-instance'],
  maxAgeSeconds: 7200,
};

export interface McpHttpOptions {
  factory: McpServerFactory;
  /** This instance's name: it begins every 2025-era session id (`m_<instance>_…`), so a balancer can route by it. */
  instanceId: string;
  /** A 2025-era session that no request used for this long is closed. */
  idleTimeoutMs: number;
  log?: Logger;
}

interface LegacySession {
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly close: () => Promise<void>;
  readonly principalId: string;
  lastUsedAt: number;
  /** Requests in flight (a standalone GET stream stays open for the session's life). */
  active: number;
}

export class McpHttpRoute {
  readonly #options: McpHttpOptions;
  readonly #log: Logger;
  /** The SDK's handler of the 2026-07-28 revision (no sessions). */
  readonly #modern: ReturnType<typeof createMcpHandler>;
  /** 2025-era sessions by Mcp-Session-Id. */
  readonly #sessions = new Map<string, LegacySession>();
  /** Responses still open, cut off by close(). */
  readonly #open = new Set<ServerResponse>();
  readonly #sweep: ReturnType<typeof setInterval>;
  #closing = false;

  constructor(options: McpHttpOptions) {
    this.#options = options;
    const log = (this.#log = options.log ?? silentLogger);
    this.#modern = createMcpHandler(options.factory, {
      legacy: 'reject',
      onerror: (error) => log.debug('mcp request refused', { error: error.message }),
    });
    this.#sweep = setInterval(
      () => this.#closeIdleSessions(),
      Math.max(1_000, Math.min(30_000, Math.floor(options.idleTimeoutMs / 4))),
    );
    this.#sweep.unref();
  }

  /** Serves one request the listener has let through, for `principal`. */
  handle(req: IncomingMessage, res: ServerResponse, principal: Principal): void {
    if (this.#closing) {
      res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' }).end('server is shutting down\n');
      req.resume();
      return;
    }
    this.#open.add(res);
    res.once('close', () => this.#open.delete(res));
    this.#serve(req, res, principal).catch((error: unknown) => {
      this.#log.error('mcp request failed', { error });
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null }));
    });
  }

  /** Ends every stream and session. */
  async close(): Promise<void> {
    this.#closing = true;
    clearInterval(this.#sweep);
    await Promise.allSettled([this.#modern.close(), ...[...this.#sessions.keys()].map((id) => this.#dropSession(id))]);
    for (const res of this.#open) res.destroy();
  }

  #closeIdleSessions(): void {
    const now = Date.now();
    for (const [id, session] of this.#sessions) {
      if (session.active === 0 && now - session.lastUsedAt >= this.#options.idleTimeoutMs) void this.#dropSession(id);
    }
  }

  async #dropSession(id: string): Promise<void> {
    const session = this.#sessions.get(id);
    if (!session) return;
    this.#sessions.delete(id);
    await session.close().catch(() => {});
  }

  async #serve(req: IncomingMessage, res: ServerResponse, principal: Principal): Promise<void> {
    // Closing the connection before the answer is complete withdraws the request (MCP's
    // cancellation for a Streamable HTTP request of the 2026-07-28 revision).
    const controller = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    const body = req.method === 'POST' ? await readBody(req, MAX_BODY_BYTES) : '';
    if (body === undefined) {
      res.writeHead(413, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' }).end('request body too large\n');
      return;
    }
    let parsedBody: unknown;
    try {
      parsedBody = body === '' ? undefined : JSON.parse(body);
    } catch {
      parsedBody = undefined; // the SDK answers the parse error itself, from the raw body
    }
    // A parsed body is handed over as such: the SDK then reads none (and copies none).
    const request = toWebRequest(req, parsedBody === undefined ? body : undefined, controller.signal);
    // The SDK reads `clientId` back in the factory; the token itself never leaves the listener.
    const authInfo: AuthInfo = { token: principal.id, clientId: principal.id, scopes: [] };
    // A 2025-era exchange is an initialize or carries its session's id (GET and DELETE are
    // session operations too); everything else is for the 2026-07-28 handler, which itself
    // refuses what it does not serve. Cheaper than the SDK's isLegacyRequest, which would
    // classify each request a second time on top of the handler's own classification.
    const legacy = req.method !== 'POST' || req.headers['mcp-session-id'] !== undefined || isInitialize(parsedBody);
    const response = legacy
      ? await this.#serveLegacy(request, parsedBody, principal, authInfo)
      : await this.#modern.fetch(request, { authInfo, ...(parsedBody !== undefined ? { parsedBody } : {}) });
    await writeResponse(res, response);
  }

  async #serveLegacy(request: Request, parsedBody: unknown, principal: Principal, authInfo: AuthInfo): Promise<Response> {
    const id = request.headers.get('mcp-session-id');
    if (id !== null) {
      const session = this.#sessions.get(id);
      // Another principal's session is answered as an unknown one.
      if (!session || session.principalId !== principal.id) return jsonRpcError(404, -32001, 'Session not found');
      session.lastUsedAt = Date.now();
      session.active++;
      try {
        return await session.transport.handleRequest(request, { authInfo, ...(parsedBody !== undefined ? { parsedBody } : {}) });
      } finally {
        session.active--;
        session.lastUsedAt = Date.now();
      }
    }
    if (request.method !== 'POST' || !isInitializeRequest(parsedBody)) {
      return jsonRpcError(400, -32000, 'Bad Request: no valid Mcp-Session-Id (send initialize first)');
    }
    if (this.#sessions.size >= MAX_LEGACY_SESSIONS) {
      const oldest = [...this.#sessions].filter(([, s]) => s.active === 0).sort(([, a], [, b]) => a.lastUsedAt - b.lastUsedAt)[0];
      if (oldest) await this.#dropSession(oldest[0]);
    }
    const server = await this.#options.factory({ era: 'legacy', authInfo, requestInfo: request });
    let session: LegacySession | undefined;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => `m_${this.#options.instanceId}_${randomUUID()}`,
      onsessioninitialized: (sessionId) => {
        session = {
          transport,
          close: async () => {
            await transport.close();
            await server.close();
          },
          principalId: principal.id,
          lastUsedAt: Date.now(),
          active: 0,
        };
        this.#sessions.set(sessionId, session);
      },
    });
    // Set before connect: the server chains its own close handler behind it.
    transport.onclose = () => {
      const id = transport.sessionId;
      if (id !== undefined && this.#sessions.get(id) === session) this.#sessions.delete(id);
    };
    await server.connect(transport);
    return transport.handleRequest(request, { authInfo, parsedBody });
  }
}

/** The opening of a 2025-era session (the 2026-07-28 revision has no initialize). */
function isInitialize(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as { method?: unknown }).method === 'initialize';
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'Content-Type': 'application/json' },
  });
}

function toWebRequest(req: IncomingMessage, body: string | undefined, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(':')) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  // The path only: the query may hold the token, and nothing past the listener needs it.
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  const init: RequestInit = { method: req.method ?? 'GET', headers, signal };
  if (body !== undefined && req.method !== 'GET' && req.method !== 'HEAD') init.body = body;
  return new Request(new URL(path, 'http://localhost'), init);
}

async function writeResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string | number> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  if (!response.body) {
    res.writeHead(response.status, headers).end();
    return;
  }
  if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    // One JSON answer: written whole, with its length, without pumping a stream.
    const whole = Buffer.from(await response.arrayBuffer());
    res.writeHead(response.status, { ...headers, 'content-length': whole.length }).end(whole);
    return;
  }
  res.writeHead(response.status, headers);
  const reader = response.body.getReader();
  // A client that goes away cancels the stream, which ends the SDK's side of it.
  const onClose = () => void reader.cancel().catch(() => {});
  res.once('close', onClose);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      // Each SSE event reaches the client as it is produced (progress before the result).
      if (!res.write(value)) await drained(res);
    }
  } catch {
    // cancelled: the client is gone
  } finally {
    res.off('close', onClose);
    res.end();
  }
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}
