// The SDK's client: one reconnecting connection to a pagewire server, and handles on its
// sessions. Runtime-neutral: the socket comes from the factory the entry point (index.ts for
// Node and Deno, browser.ts for pages) or the caller gives.
import type { ReconnectOptions } from './backoff.ts';
import { Connection } from './connection.ts';
import { type CallOptions, Session, type SessionContext } from './session.ts';
import type { SocketFactory, WebSocketClass } from './socket.ts';
import type { ServerInfo, SessionCreateParams, SessionCreateResult, SessionSummary } from './wire.ts';
import { instanceOf } from '../util/ids.ts';

export interface ClientOptions {
  /** Added to the URL as `?token=` when the URL has none. */
  token?: string;
  /**
   * Behind a balancer, the instance to reach (PROTOCOL.md §13, "Fleet"); the client also learns
   * it from the sessions it creates or is handed, and every socket it opens names it.
   */
  instance?: string;
  /** The WebSocket class to use (default: the runtime's). */
  WebSocket?: WebSocketClass;
  /** Opens each socket (wins over WebSocket): a wrapper, headers, a test's proxy. */
  createSocket?: SocketFactory;
  /** Reconnect backoff, or false to fail every call in flight when the socket drops. */
  reconnect?: ReconnectOptions | false;
  /** Client-side budget of a call other than act, in ms (default 70000: a call may wait behind an act of 60 s). */
  callTimeoutMs?: number;
  /** Added to an act's timeout_ms for its client-side budget, and how long an aborted act waits for its answer (default 10000). */
  graceMs?: number;
}

const DEFAULT_CALL_TIMEOUT_MS = 70_000;
const DEFAULT_GRACE_MS = 10_000;

function withToken(url: string, token: string | undefined): string {
  if (token === undefined) return url;
  const parsed = new URL(url);
  if (!parsed.searchParams.has('token')) parsed.searchParams.set('token', token);
  return parsed.toString();
}

export class Client {
  readonly #context: SessionContext;

  private constructor(context: SessionContext) {
    this.#context = context;
  }

  /** Opens the first socket (failing with connection_failed if it cannot) and returns the client. */
  static async connect(url: string, options: ClientOptions & { createSocket: SocketFactory }): Promise<Client> {
    const connection = await Connection.open({
      url: withToken(url, options.token),
      createSocket: options.createSocket,
      instance: options.instance,
      ...(options.reconnect !== undefined ? { reconnect: options.reconnect } : {}),
    });
    return new Client({
      connection,
      callTimeoutMs: options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
      graceMs: options.graceMs ?? DEFAULT_GRACE_MS,
    });
  }

  /** A handle on a session by id; without one, the principal's `default` session. No call is made. */
  session(id?: string): Session {
    if (id !== undefined) this.#routeTo(id);
    return new Session(this.#context, id);
  }

  /**
   * Creates a session (its first tab at about:blank) and returns a handle on it; `endpoint`: the
   * id of the farm endpoint it went to (PROTOCOL.md §1), absent on a launched browser.
   */
  async createSession(
    options: SessionCreateParams & CallOptions = {},
  ): Promise<Session & { readonly targetId: string; readonly endpoint?: string }> {
    const { signal, timeoutMs, ...params } = options;
    const created = await this.#context.connection.call<SessionCreateResult>(
      'session.create',
      params as Record<string, unknown>,
      {
        resend: false,
        timeoutMs: timeoutMs ?? this.#context.callTimeoutMs,
        signal,
      },
    );
    this.#routeTo(created.session_id);
    return Object.assign(new Session(this.#context, created.session_id), {
      targetId: created.target_id,
      ...(created.endpoint !== undefined ? { endpoint: created.endpoint } : {}),
    });
  }

  /** The instance the client's sockets name behind a balancer (undefined: none known yet). */
  get instance(): string | undefined {
    return this.#context.connection.instance;
  }

  /** A session's instance is where the client's next sockets go: a reconnect finds the session there. */
  #routeTo(sessionId: string): void {
    const instance = instanceOf(sessionId);
    if (instance !== undefined) this.#context.connection.routeTo(instance);
  }

  listSessions(options: CallOptions = {}): Promise<{ sessions: SessionSummary[] }> {
    return this.#read('session.list', options);
  }

  serverInfo(options: CallOptions = {}): Promise<ServerInfo> {
    return this.#read('server.info', options);
  }

  /** The OpenRPC document of the server's methods. */
  discover(options: CallOptions = {}): Promise<Record<string, unknown>> {
    return this.#read('rpc.discover', options);
  }

  /** How many times the socket dropped and was replaced. */
  get reconnects(): number {
    return this.#context.connection.reconnects;
  }

  /** Closes the socket; calls in flight reject with connection_closed. Sessions stay on the server. */
  close(): void {
    this.#context.connection.close();
  }

  #read<T>(method: string, options: CallOptions): Promise<T> {
    return this.#context.connection.call<T>(method, {}, {
      resend: true,
      timeoutMs: options.timeoutMs ?? this.#context.callTimeoutMs,
      signal: options.signal,
    });
  }
}
