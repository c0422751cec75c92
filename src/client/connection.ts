// JSON-RPC 2.0 over a socket that comes back. Every call stays in the pending table until it is
// answered; when the socket drops, the calls that may be written again (reads, and acts, which
// carry a request_id) are written again on the next socket, and the ones that may not are
// rejected with `connection_lost`, because the server may or may not have run them.
//
// Not built on json-rpc-2.0: its client writes a request once through a callback and keeps the
// pending table to itself, so re-sending in-flight calls on a new socket, telling a written call
// from an unwritten one, and per-call abort would all be layered around it; it is also CommonJS,
// which the browser build would have to bundle. This is the part of it the SDK needs.
import { Backoff, type ReconnectOptions } from './backoff.ts';
import { abortReason, ConnectionError, RpcError } from './errors.ts';
import { errorText, messageText, OPEN, type SocketFactory, type WebSocketLike } from './socket.ts';

export interface ConnectionOptions {
  url: string;
  /** The instance to reach behind a balancer (PROTOCOL.md §13, "Fleet"): every socket's URL names it. */
  instance?: string | undefined;
  createSocket: SocketFactory;
  /** false: never reconnect (every call in flight fails with connection_lost). */
  reconnect?: ReconnectOptions | false;
}

export interface RequestOptions {
  /** May this call be written again on a new socket after the one it went out on dropped? */
  resend: boolean;
  /** Client-side budget in ms, from the call on (the time spent reconnecting counts). */
  timeoutMs: number;
}

/** A call in flight, for callers that need more than its answer (act). */
export interface PendingRequest<T> {
  readonly reply: Promise<T>;
  /** Has it been written to a socket (so the server may have it)? */
  readonly written: boolean;
  /** Stop waiting: the reply rejects with `reason`, and the call is never written again. */
  forget(reason: unknown): void;
}

export interface CallOptions extends Partial<RequestOptions> {
  signal?: AbortSignal | undefined;
}

type NotificationListener = (method: string, params: Record<string, unknown>) => void;

interface Pending {
  readonly id: number;
  readonly method: string;
  readonly frame: string;
  readonly resend: boolean;
  written: boolean;
  resolve(value: unknown): void;
  reject(reason: unknown): void;
  timer: ReturnType<typeof setTimeout>;
}

type State = 'open' | 'reconnecting' | 'closed';

export class Connection {
  readonly url: string;
  readonly #createSocket: SocketFactory;
  readonly #backoff: Backoff | undefined;
  readonly #pending = new Map<number, Pending>();
  readonly #notificationListeners = new Set<NotificationListener>();
  readonly #reconnectListeners = new Set<() => void>();
  readonly #closeListeners = new Set<(error: ConnectionError) => void>();
  #instance: string | undefined;
  #socket: WebSocketLike;
  #state: State = 'open';
  #nextId = 1;
  #downSince = 0;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  #closedError: ConnectionError | undefined;
  /** How many times a dropped socket was replaced (diagnostics). */
  reconnects = 0;

  private constructor(options: ConnectionOptions, socket: WebSocketLike) {
    this.url = options.url;
    this.#instance = options.instance;
    this.#createSocket = options.createSocket;
    this.#backoff = options.reconnect === false ? undefined : new Backoff(options.reconnect);
    this.#socket = socket;
    this.#attach(socket);
  }

  /** Opens the first socket; a failure here is not retried (there is nothing to resume yet). */
  static async open(options: ConnectionOptions): Promise<Connection> {
    const socket = await openSocket(options.createSocket, routedUrl(options.url, options.instance));
    return new Connection(options, socket);
  }

  get state(): State {
    return this.#state;
  }

  /** The instance every later socket names (the sessions this client uses live there). */
  get instance(): string | undefined {
    return this.#instance;
  }

  /**
   * Behind a balancer: from now on every socket this connection opens (each reconnect) names
   * `instance`, so it reaches the one that holds the sessions; the open socket already does.
   */
  routeTo(instance: string): void {
    this.#instance = instance;
  }

  request<T = unknown>(method: string, params: Record<string, unknown>, options: RequestOptions): PendingRequest<T> {
    if (this.#state === 'closed') {
      const failed = Promise.reject(this.#closedError ?? new ConnectionError('connection_closed', 'the client is closed'));
      return { reply: failed as Promise<T>, written: false, forget: () => {} };
    }
    const id = this.#nextId++;
    let entry!: Pending;
    const reply = new Promise<T>((resolve, reject) => {
      entry = {
        id,
        method,
        frame: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
        resend: options.resend,
        written: false,
        resolve: resolve as (value: unknown) => void,
        reject,
        timer: setTimeout(() => {
          this.#settle(id)?.reject(
            new ConnectionError('client_timeout', `${method}: no answer within ${options.timeoutMs} ms`, {
              data: { method, timeout_ms: options.timeoutMs },
            }),
          );
        }, options.timeoutMs),
      };
    });
    this.#pending.set(id, entry);
    this.#write(entry);
    return {
      reply,
      get written() {
        return entry.written;
      },
      forget: (reason) => this.#settle(id)?.reject(reason),
    };
  }

  /** A call that rejects on abort (with the signal's reason) and on its client-side timeout. */
  call<T = unknown>(method: string, params: Record<string, unknown>, options: CallOptions & { timeoutMs: number }): Promise<T> {
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const pending = this.request<T>(method, params, { resend: options.resend ?? false, timeoutMs: options.timeoutMs });
    if (!signal) return pending.reply;
    const onAbort = () => pending.forget(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    return pending.reply.finally(() => signal.removeEventListener('abort', onAbort));
  }

  onNotification(listener: NotificationListener): () => void {
    this.#notificationListeners.add(listener);
    return () => this.#notificationListeners.delete(listener);
  }

  /** Runs after a dropped socket was replaced, before the calls waiting for it are written. */
  onReconnect(listener: () => void): () => void {
    this.#reconnectListeners.add(listener);
    return () => this.#reconnectListeners.delete(listener);
  }

  /** Runs once when the connection is closed for good (by close(), or when reconnecting gave up). */
  onClose(listener: (error: ConnectionError) => void): () => void {
    this.#closeListeners.add(listener);
    return () => this.#closeListeners.delete(listener);
  }

  /** Closes the socket for good; every call in flight rejects with connection_closed. */
  close(): void {
    this.#fail(new ConnectionError('connection_closed', 'the client was closed'));
  }

  #write(entry: Pending): void {
    if (this.#state !== 'open' || this.#socket.readyState !== OPEN) return;
    try {
      this.#socket.send(entry.frame);
    } catch {
      return; // the socket is going; its close handler decides what happens to this call
    }
    entry.written = true;
  }

  #settle(id: number): Pending | undefined {
    const entry = this.#pending.get(id);
    if (!entry) return undefined;
    this.#pending.delete(id);
    clearTimeout(entry.timer);
    return entry;
  }

  #attach(socket: WebSocketLike): void {
    socket.onmessage = (event) => this.#onMessage(messageText(event.data));
    socket.onclose = () => {
      if (socket === this.#socket) this.#onLost();
    };
    socket.onerror = () => {};
  }

  #onMessage(text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    for (const one of Array.isArray(message) ? message : [message]) this.#onOne(one as Record<string, unknown>);
  }

  #onOne(message: Record<string, unknown>): void {
    if (message === null || typeof message !== 'object') return;
    if (typeof message['method'] === 'string' && message['id'] === undefined) {
      const params = (message['params'] ?? {}) as Record<string, unknown>;
      for (const listener of [...this.#notificationListeners]) listener(message['method'], params);
      return;
    }
    if (typeof message['id'] !== 'number') return;
    const entry = this.#settle(message['id']);
    if (!entry) return;
    const error = message['error'] as { code: number; message: string; data?: Record<string, unknown> } | undefined;
    if (error) entry.reject(new RpcError(entry.method, error));
    else if ('result' in message) entry.resolve(message['result']);
    else entry.reject(new ConnectionError('bad_response', `${entry.method}: an answer with neither result nor error`));
  }

  #onLost(): void {
    if (this.#state !== 'open') return;
    for (const entry of [...this.#pending.values()]) {
      if (!entry.written) continue;
      if (entry.resend && this.#backoff) {
        entry.written = false;
        continue;
      }
      this.#settle(entry.id)?.reject(
        new ConnectionError(
          'connection_lost',
          `${entry.method}: the connection dropped after the call was sent; it may or may not have run`,
          {
            data: { method: entry.method },
          },
        ),
      );
    }
    if (!this.#backoff) {
      this.#fail(new ConnectionError('connection_closed', 'the connection dropped (reconnect is off)'));
      return;
    }
    this.#state = 'reconnecting';
    this.#downSince = Date.now();
    this.#backoff.reset();
    this.#retry();
  }

  #retry(): void {
    const backoff = this.#backoff!;
    if (Date.now() - this.#downSince > backoff.giveUpAfterMs) {
      this.#fail(new ConnectionError('connection_closed', `could not reconnect to the server within ${backoff.giveUpAfterMs} ms`));
      return;
    }
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      openSocket(this.#createSocket, routedUrl(this.url, this.#instance)).then(
        (socket) => {
          if (this.#state !== 'reconnecting') {
            socket.close(1000);
            return;
          }
          this.#socket = socket;
          this.#attach(socket);
          this.#state = 'open';
          this.reconnects++;
          for (const listener of [...this.#reconnectListeners]) listener();
          for (const entry of [...this.#pending.values()].sort((a, b) => a.id - b.id)) if (!entry.written) this.#write(entry);
        },
        () => {
          if (this.#state === 'reconnecting') this.#retry();
        },
      );
    }, backoff.next());
  }

  #fail(error: ConnectionError): void {
    if (this.#state === 'closed') return;
    this.#state = 'closed';
    this.#closedError = error;
    if (this.#retryTimer !== undefined) clearTimeout(this.#retryTimer);
    const socket = this.#socket;
    socket.onclose = null;
    socket.onmessage = null;
    try {
      socket.close(1000);
    } catch {
      // already closed
    }
    for (const entry of [...this.#pending.values()]) this.#settle(entry.id)?.reject(error);
    for (const listener of [...this.#closeListeners]) listener(error);
  }

  /** Why the connection is closed for good (undefined while it is usable). */
  get closedError(): ConnectionError | undefined {
    return this.#closedError;
  }
}

function openSocket(createSocket: SocketFactory, url: string): Promise<WebSocketLike> {
  return new Promise((resolve, reject) => {
    let socket: WebSocketLike;
    try {
      socket = createSocket(url);
    } catch (error) {
      reject(new ConnectionError('connection_failed', `cannot open ${redactedUrl(url)}: ${(error as Error).message}`, { cause: error }));
      return;
    }
    let why: string | undefined;
    socket.onerror = (event) => {
      why ??= errorText(event);
    };
    socket.onclose = (event) => {
      reject(
        new ConnectionError('connection_failed', `cannot connect to ${redactedUrl(url)}: ${why ?? `closed with ${event.code}`}`, {
          data: { ...(why ? { reason: why } : {}), close_code: event.code },
        }),
      );
    };
    socket.onopen = () => {
      socket.onopen = null;
      socket.onclose = null;
      resolve(socket);
    };
  });
}

/** `url` naming `instance` in its query (`?instance=`), which a balancer reads without the body. */
function routedUrl(url: string, instance: string | undefined): string {
  if (instance === undefined) return url;
  const parsed = new URL(url);
  parsed.searchParams.set('instance', instance);
  return parsed.toString();
}

/** The URL without its query (where the token is), for messages. */
export function redactedUrl(url: string): string {
  const cut = url.search(/[?#]/);
  return cut === -1 ? url : url.slice(0, cut);
}
