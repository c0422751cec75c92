// The listening side: node:http + ws in noServer mode, one code path for Node and Deno
// (TOOLCHAIN.md §2), shaped like ws's WebSocketServer: `HttpListener.listen` binds, then every
// HTTP request goes through `handleRequest` and every upgrade through `handleUpgrade`, and
// `close` ends it all. Every check happens on the HTTP request, before a WebSocket exists, so a
// refused client never gets a socket: 1. the path → 404 (only `/` serves the RPC socket), then
// Host, Origin and the token (request-policy.ts).
// Plain HTTP routes (`/mcp`) pass the same checks before their handler sees the request.
// A route with a CORS policy also answers browser pages of an accepted Origin: their preflight
// (an OPTIONS that carries no token, as browsers send it) passes the Host and Origin checks only
// and is answered by the listener without reaching the route; a refused Origin gets its 403 with
// no CORS header.
import { Buffer } from 'node:buffer';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { clearInterval, clearTimeout, setInterval, setTimeout } from 'node:timers';
import { type WebSocket, WebSocketServer } from 'ws';
import { hostForUrl } from '../util/host.ts';
import type { Principal } from '../rpc/context.ts';
import type { RpcSocket } from '../rpc/socket.ts';
import { type Logger, silentLogger } from '../util/log.ts';
import { RequestPolicy } from './request-policy.ts';

export const DEFAULT_MAX_MESSAGE_BYTES = 1024 * 1024;
export const DEFAULT_HEARTBEAT_MS = 30_000;
/** The header that names the instance behind a balancer (PROTOCOL.md §13, "Fleet"). */
export const INSTANCE_HEADER = 'Pagewire-Instance';
/** After close() asks politely (1001), clients get this long before they are cut off. */
const CLOSE_GRACE_MS = 2_000;

export interface ConnectionHandler {
  onMessage(text: string): void;
}

/** A plain HTTP path served beside the socket, after the same Host, Origin and token checks. */
export type HttpRoute = (req: IncomingMessage, res: ServerResponse, principal: Principal) => void;

/** A path anyone who passes the Host and Origin checks may read: it takes no token, so it must say nothing secret. */
export type OpenRoute = (req: IncomingMessage, res: ServerResponse) => void;

/** What browser pages of an accepted Origin may do with a route (the Access-Control-* answers). */
export interface CorsPolicy {
  readonly methods: readonly string[];
  /** Request headers a page may send (lower case). */
  readonly requestHeaders: readonly string[];
  /** Response headers a page may read beyond the CORS-safelisted ones. */
  readonly exposeHeaders: readonly string[];
  /** How long a browser may keep the preflight's answer. */
  readonly maxAgeSeconds: number;
}

export interface HttpServerOptions {
  host: string;
  port: number;
  tokens: readonly string[];
  noAuth: boolean;
  allowOrigins: readonly string[];
  /** Largest inbound message; a bigger one closes the socket with 1009. Default 1 MiB. */
  maxMessageBytes?: number;
  /** Ping interval; a client that has not answered the previous ping is terminated. */
  heartbeatMs?: number;
  log?: Logger;
  /** The rest of the app: called once per accepted socket. `signal` aborts when it closes. */
  onConnection(socket: RpcSocket, principal: Principal, signal: AbortSignal): ConnectionHandler;
  /** Paths (`/mcp`; a key ending with `/` serves every path under it) answered over plain HTTP once their request passed the checks. */
  routes?: Readonly<Record<string, HttpRoute>>;
  /** Exact paths (`/healthz`) answered after the Host and Origin checks alone. */
  openRoutes?: Readonly<Record<string, OpenRoute>>;
  /**
   * This instance's name, sent as `Pagewire-Instance` on every answer (the upgrade's 101 and
   * refusals too): a client behind a balancer learns from it where to send what follows.
   */
  instanceId?: string;
  /** The routes that browser pages of accepted Origins may call, and how. */
  cors?: Readonly<Record<string, CorsPolicy>>;
}

interface Client {
  ws: WebSocket;
  isAlive: boolean;
}

export class HttpListener {
  /** `ws://HOST:PORT/` with the real port (IPv6 hosts bracketed). */
  readonly url: string;
  readonly port: number;
  readonly host: string;
  readonly #options: HttpServerOptions;
  readonly #log: Logger;
  readonly #server: Server;
  readonly #wss: WebSocketServer;
  readonly #policy: RequestPolicy;
  readonly #clients = new Set<Client>();
  readonly #heartbeat: ReturnType<typeof setInterval>;
  #closing: Promise<void> | undefined;

  /** Listens on `options.host:options.port` (0: any free port); resolves once listening. */
  static async listen(options: HttpServerOptions): Promise<HttpListener> {
    if (!options.noAuth && options.tokens.length === 0) throw new Error('HttpListener: no tokens and noAuth is off');
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      const onError = (error: Error & { code?: string }) => {
        reject(new Error(`cannot listen on ${hostForUrl(options.host)}:${options.port}: ${error.code ?? error.message}`, { cause: error }));
      };
      server.once('error', onError);
      server.listen({ host: options.host, port: options.port }, () => {
        server.off('error', onError);
        resolve();
      });
    });
    return new HttpListener(server, options);
  }

  /** Serves `server`, already listening (see `listen`). */
  private constructor(server: Server, options: HttpServerOptions) {
    this.#server = server;
    this.#options = options;
    this.#log = options.log ?? silentLogger;
    this.host = options.host;
    this.port = (server.address() as AddressInfo).port;
    this.url = `ws://${hostForUrl(options.host)}:${this.port}/`;
    // The server's own origin depends on the real port, known only now.
    this.#policy = new RequestPolicy({
      host: options.host,
      port: this.port,
      allowOrigins: options.allowOrigins,
      tokens: options.noAuth ? undefined : options.tokens,
    });
    this.#wss = new WebSocketServer({
      noServer: true,
      maxPayload: options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
      perMessageDeflate: false,
      clientTracking: false,
      // One inbound message per task, so promise continuations run between messages (B0.6).
      allowSynchronousEvents: false,
    });
    server.on('request', (req: IncomingMessage, res: ServerResponse) => this.handleRequest(req, res));
    const instance = options.instanceId;
    if (instance !== undefined) {
      this.#wss.on('headers', (headers: string[]) => headers.push(`${INSTANCE_HEADER}: ${instance}`));
    }
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.handleUpgrade(req, socket, head));
    server.on('clientError', (error: Error, socket: Duplex) => {
      this.#log.debug('bad HTTP request', { error: error.message });
      refuse(socket, 400, 'Bad Request', 'bad request');
    });
    server.on('error', (error: Error) => this.#log.error('HTTP server error', { error }));
    this.#heartbeat = setInterval(() => this.#ping(), options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS);
    this.#heartbeat.unref();
  }

  /** A plain HTTP request: a route's (after the checks, and CORS), else 426 (only WebSocket is served). */
  handleRequest(req: IncomingMessage, res: ServerResponse): void {
    if (this.#options.instanceId !== undefined) res.setHeader(INSTANCE_HEADER, this.#options.instanceId);
    const { path, query } = splitUrl(req.url ?? '/');
    const open = this.#options.openRoutes?.[path];
    if (open) {
      if (this.#closing !== undefined) return answer(res, 503, 'server is shutting down');
      const refused = this.#policy.checkCaller(req);
      if (refused) return answer(res, refused.status, refused.why);
      open(req, res);
      return;
    }
    const route = this.#routeFor(path);
    if (route) {
      if (this.#closing !== undefined) return answer(res, 503, 'server is shutting down');
      const cors = this.#options.cors?.[path];
      // Answers differ by Origin: a cache must not hand one page's answer to another.
      if (cors) res.setHeader('Vary', 'Origin');
      const origin = req.headers.origin;
      if (cors && origin !== undefined && req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
        const refused = this.#policy.checkCaller(req);
        if (refused) {
          this.#log.info('preflight refused', { status: refused.status, why: refused.why, remote: req.socket.remoteAddress });
          return answer(res, refused.status, refused.why);
        }
        preflight(res, origin, cors);
        req.resume();
        return;
      }
      const verdict = this.#policy.check(req, query);
      // Past the Host and Origin checks (a 401 is the token's): the page may read the answer.
      if (cors && origin !== undefined && verdict.status !== 403) allowOrigin(res, origin, cors);
      if (verdict.status !== 101) {
        this.#log.info('request refused', { status: verdict.status, why: verdict.why, remote: req.socket.remoteAddress });
        return answer(res, verdict.status, verdict.why, verdict.status === 401 ? { 'WWW-Authenticate': 'Bearer' } : {});
      }
      route(req, res, verdict.principal);
      return;
    }
    // Only a WebSocket upgrade is served; the body says how, and never echoes the URL (token).
    const body = 'pagewire: connect with a WebSocket client (ws://host:port/?token=…)\n';
    res.writeHead(426, {
      'Content-Type': 'text/plain; charset=utf-8',
      Upgrade: 'websocket',
      Connection: 'close',
      'Content-Length': Buffer.byteLength(body),
    });
    res.end(body);
    req.resume();
  }

  /** The route of a path: an exact one, else one whose key ends with `/` and starts the path (`/traces/`). */
  #routeFor(path: string): HttpRoute | undefined {
    const routes = this.#options.routes ?? {};
    if (Object.hasOwn(routes, path)) return routes[path];
    const prefix = Object.keys(routes).find((key) => key.endsWith('/') && key.length > 1 && path.startsWith(key));
    return prefix === undefined ? undefined : routes[prefix];
  }

  /** A WebSocket handshake: on `/`, past the checks, it becomes an RPC socket. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    // A reset during the handshake must not become an uncaught error.
    socket.on('error', (error: Error) => this.#log.debug('upgrade socket error', { error: error.message }));
    const instance: Record<string, string> = this.#options.instanceId !== undefined ? { [INSTANCE_HEADER]: this.#options.instanceId } : {};
    if (this.#closing !== undefined) {
      refuse(socket, 503, 'Service Unavailable', 'server is shutting down', instance);
      return;
    }
    const { path, query } = splitUrl(req.url ?? '/');
    const verdict = path === '/' ? this.#policy.check(req, query) : ({ status: 404, statusText: 'Not Found', why: 'not found' } as const);
    if (verdict.status !== 101) {
      this.#log.info('upgrade refused', { status: verdict.status, why: verdict.why, remote: req.socket.remoteAddress });
      const challenge: Record<string, string> = verdict.status === 401 ? { 'WWW-Authenticate': 'Bearer' } : {};
      refuse(socket, verdict.status, verdict.statusText, verdict.why, { ...instance, ...challenge });
      return;
    }
    this.#wss.handleUpgrade(req, socket, head, (ws: WebSocket) => this.#accept(ws, verdict.principal));
  }

  /** Stops listening, closes every socket with 1001 and resolves when all are gone. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= this.#shutDown();
    return this.#closing;
  }

  async #shutDown(): Promise<void> {
    clearInterval(this.#heartbeat);
    const server = this.#server;
    const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
    const gone = [...this.#clients].map(
      (client) =>
        new Promise<void>((resolve) => {
          if (client.ws.readyState === client.ws.CLOSED) return resolve();
          client.ws.once('close', () => resolve());
          closeSocket(client.ws, 1001, 'server shutting down');
        }),
    );
    // A client that never answers the close frame must not hold shutdown up for ws's 30 s.
    const grace = setTimeout(() => {
      for (const client of this.#clients) client.ws.terminate();
    }, CLOSE_GRACE_MS);
    grace.unref();
    await Promise.all(gone);
    clearTimeout(grace);
    // Idle keep-alive HTTP connections would otherwise keep server.close() waiting.
    (server as Server & { closeAllConnections?: () => void }).closeAllConnections?.();
    await serverClosed;
    this.#wss.close();
  }

  #accept(ws: WebSocket, principal: Principal): void {
    if (this.#closing !== undefined) {
      // The handshake finished after close() began: close() no longer waits for this one.
      closeSocket(ws, 1001, 'server shutting down');
      return;
    }
    const log = this.#log;
    const clients = this.#clients;
    const client: Client = { ws, isAlive: true };
    clients.add(client);
    const controller = new AbortController();
    log.debug('client connected', { principal: principal.id, clients: clients.size });

    const rpcSocket: RpcSocket = {
      send(text: string) {
        if (ws.readyState === ws.OPEN) ws.send(text);
      },
      close(code: number, reason: string) {
        closeSocket(ws, code, reason);
      },
      bufferedAmount: () => ws.bufferedAmount,
    };

    ws.on('pong', () => {
      client.isAlive = true;
    });
    ws.on('error', (error: Error & { code?: string }) => {
      // ws closes the socket itself afterwards (1009 for maxPayload, 1002/1007 for bad frames).
      log.debug('client socket error', { principal: principal.id, code: error.code, error: error.message });
    });
    ws.on('close', (code: number) => {
      clients.delete(client);
      log.debug('client disconnected', { principal: principal.id, code });
      controller.abort();
    });

    let handler: ConnectionHandler;
    try {
      handler = this.#options.onConnection(rpcSocket, principal, controller.signal);
    } catch (error) {
      log.error('onConnection failed', { error });
      closeSocket(ws, 1011, 'internal error');
      return;
    }
    ws.on('message', (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
      if (isBinary) {
        closeSocket(ws, 1003, 'binary frames are not supported; send JSON text');
        return;
      }
      try {
        handler.onMessage(rawToText(data));
      } catch (error) {
        log.error('onMessage failed', { principal: principal.id, error });
      }
    });
  }

  /** A client that has not answered the previous ping is terminated; the others are pinged. */
  #ping(): void {
    for (const client of this.#clients) {
      if (!client.isAlive) {
        this.#log.info('client missed a heartbeat; terminating', {});
        client.ws.terminate();
        continue;
      }
      client.isAlive = false;
      try {
        client.ws.ping();
      } catch {
        // Not open any more: its close event is on the way.
      }
    }
  }
}

// ---- answers ---------------------------------------------------------------------------------

/** A short plain-text HTTP answer to a refused or unservable request. */
export function answer(res: ServerResponse, status: number, why: string, headers: Record<string, string> = {}): void {
  const body = `${why}\n`;
  res.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    Connection: 'close',
    ...headers,
  });
  res.end(body);
}

/** An accepted Origin's preflight: what its page may send, and nothing about the route itself. */
function preflight(res: ServerResponse, origin: string, cors: CorsPolicy): void {
  allowOrigin(res, origin, cors);
  res.writeHead(204, {
    'Access-Control-Allow-Methods': cors.methods.join(', '),
    'Access-Control-Allow-Headers': cors.requestHeaders.join(', '),
    'Access-Control-Max-Age': String(cors.maxAgeSeconds),
    'Content-Length': 0,
  });
  res.end();
}

/** The headers that let a page of this (accepted) Origin read the answer. */
function allowOrigin(res: ServerResponse, origin: string, cors: CorsPolicy): void {
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Access-Control-Expose-Headers', cors.exposeHeaders.join(', '));
}

// Split by hand: `new URL(req.url, base)` reads `//evil/x` as a host, not a path.
function splitUrl(url: string): { path: string; query: URLSearchParams } {
  const q = url.indexOf('?');
  const beforeHash = (s: string) => s.split('#')[0] ?? '';
  return q === -1
    ? { path: beforeHash(url), query: new URLSearchParams() }
    : { path: url.slice(0, q), query: new URLSearchParams(beforeHash(url.slice(q + 1))) };
}

/** Writes a short HTTP answer on a not-yet-upgraded socket and drops it. */
function refuse(socket: Duplex, status: number, statusText: string, body: string, headers: Record<string, string> = {}): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const text = `${body}\n`;
  const lines = [
    `HTTP/1.1 ${status} ${statusText}`,
    'Connection: close',
    'Content-Type: text/plain; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(text)}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  socket.once('finish', () => socket.destroy());
  socket.end(`${lines.join('\r\n')}\r\n\r\n${text}`);
}

function closeSocket(ws: WebSocket, code: number, reason: string): void {
  try {
    ws.close(code, truncateUtf8(reason, 123));
  } catch {
    // An invalid code (1005, 1006…) from a caller: still make sure the socket goes away.
    ws.terminate();
  }
}

function truncateUtf8(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  let out = text;
  while (Buffer.byteLength(out) > maxBytes - 3) out = out.slice(0, -1);
  return `${out}...`;
}

function rawToText(data: Buffer | ArrayBuffer | Buffer[]): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}
