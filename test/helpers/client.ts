// A small JSON-RPC client over a WebSocket for tests: calls, raw frames, notifications.
import WebSocket from 'ws';
import type { MethodName, ResultOf, RpcError } from './wire.ts';

/** A JSON-RPC error as the server sends it. */
export type RpcErrorShape = RpcError;

export class RpcCallError extends Error {
  readonly error: RpcErrorShape;
  constructor(method: string, error: RpcErrorShape) {
    super(`${method} failed: ${error.data?.error_type ?? error.code} ${error.message}`);
    this.error = error;
  }
  get type(): string | undefined {
    return this.error.data?.error_type;
  }
}

export class TestClient {
  readonly socket: WebSocket;
  readonly notifications: Array<{ method: string; params: unknown }> = [];
  readonly #pending = new Map<number | string, (message: Record<string, unknown>) => void>();
  readonly #rawWaiters: Array<(text: string) => void> = [];
  readonly #notificationWaiters = new Set<() => void>();
  #nextId = 1;

  private constructor(socket: WebSocket) {
    this.socket = socket;
    socket.on('message', (data: WebSocket.RawData) => this.#onMessage(data.toString()));
  }

  static connect(url: string, options: WebSocket.ClientOptions = {}): Promise<TestClient> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, options);
      socket.once('open', () => resolve(new TestClient(socket)));
      socket.once('error', reject);
      socket.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    });
  }

  /** Resolves with the HTTP status the server refused the upgrade with (or 101 if it accepted). */
  static refusalStatus(url: string, options: WebSocket.ClientOptions = {}): Promise<number> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, options);
      socket.once('open', () => {
        socket.close();
        resolve(101);
      });
      socket.once('unexpected-response', (_req, res) => {
        resolve(res.statusCode ?? 0);
        socket.terminate();
      });
      socket.once('error', (error) => {
        if (!String(error.message).includes('Unexpected server response')) reject(error);
      });
    });
  }

  /** A method's result, typed by its wire schema; throws RpcCallError on an error reply. */
  call<M extends MethodName>(method: M, params?: Record<string, unknown>): Promise<ResultOf<M>>;
  /** Any other name (or a result read as another type). */
  call<T = Record<string, unknown>>(method: string, params?: Record<string, unknown>): Promise<T>;
  async call(method: string, params: Record<string, unknown> = {}): Promise<unknown> {
    const reply = await this.request(method, params);
    if (reply.error) throw new RpcCallError(method, reply.error as RpcErrorShape);
    return reply.result;
  }

  /** The error a call fails with; fails the test if it succeeds. */
  async callError(method: string, params: Record<string, unknown> = {}): Promise<RpcErrorShape> {
    const reply = await this.request(method, params);
    if (!reply.error) throw new Error(`${method} succeeded but an error was expected: ${JSON.stringify(reply.result)}`);
    return reply.error as RpcErrorShape;
  }

  request(method: string, params: unknown): Promise<Record<string, unknown>> {
    const id = this.#nextId++;
    const reply = new Promise<Record<string, unknown>>((resolve) => this.#pending.set(id, resolve));
    this.socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    return reply;
  }

  /** Sends a raw text frame and resolves with the next frame that is not a notification. */
  sendRaw(text: string): Promise<string> {
    const next = new Promise<string>((resolve) => this.#rawWaiters.push(resolve));
    this.socket.send(text);
    return next;
  }

  waitForNotification(predicate: (n: { method: string; params: unknown }) => boolean): Promise<{ method: string; params: unknown }> {
    return new Promise((resolve) => {
      const check = () => {
        const found = this.notifications.find(predicate);
        if (found) {
          this.#notificationWaiters.delete(check);
          resolve(found);
        }
      };
      this.#notificationWaiters.add(check);
      check();
    });
  }

  closed(): Promise<{ code: number; reason: string }> {
    return new Promise((resolve) => {
      if (this.socket.readyState === WebSocket.CLOSED) resolve({ code: 1006, reason: '' });
      this.socket.once('close', (code: number, reason: Buffer) => resolve({ code, reason: reason.toString() }));
    });
  }

  close(): void {
    this.socket.close();
  }

  #onMessage(text: string): void {
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return;
    }
    if (!Array.isArray(message) && message.method !== undefined && message.id === undefined) {
      this.notifications.push({ method: String(message.method), params: message.params });
      for (const check of [...this.#notificationWaiters]) check();
      return;
    }
    const rawWaiter = this.#rawWaiters.shift();
    if (rawWaiter) {
      rawWaiter(text);
      return;
    }
    const id = message.id as number | string;
    const resolve = this.#pending.get(id);
    if (resolve) {
      this.#pending.delete(id);
      resolve(message);
    }
  }
}
