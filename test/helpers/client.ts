// A small JSON-RPC client over a WebSocket for tests: calls, raw frames, notifications. Every reply
// to a call and every notification is checked against the wire schemas (wire-check.ts): a mismatch
// fails the call it answers (or the client's next call, for a notification) and the whole run.
import process from 'node:process';
import WebSocket from 'ws';
import { notificationProblem, replyProblem } from './wire-check.ts';
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

export interface TestClientOptions extends WebSocket.ClientOptions {
  /** Check replies and events against the wire schemas (default true; benches that time calls turn it off). */
  checkWire?: boolean;
}

interface PendingCall {
  method: string;
  resolve(message: Record<string, unknown>): void;
  reject(error: Error): void;
}

/** A reply or notification the wire schemas do not describe. */
export class WireMismatchError extends Error {
  override readonly name = 'WireMismatchError';
}

export class TestClient {
  readonly socket: WebSocket;
  readonly notifications: Array<{ method: string; params: unknown }> = [];
  readonly #pending = new Map<number | string, PendingCall>();
  readonly #rawWaiters: Array<(text: string) => void> = [];
  readonly #notificationWaiters = new Set<() => void>();
  readonly #checkWire: boolean;
  /** The first notification that did not match its schema: every later call fails with it. */
  #mismatch: WireMismatchError | undefined;
  #nextId = 1;

  private constructor(socket: WebSocket, checkWire: boolean) {
    this.socket = socket;
    this.#checkWire = checkWire;
    socket.on('message', (data: WebSocket.RawData) => this.#onMessage(data.toString()));
  }

  static connect(url: string, options: TestClientOptions = {}): Promise<TestClient> {
    const { checkWire = true, ...socketOptions } = options;
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, socketOptions);
      socket.once('open', () => resolve(new TestClient(socket, checkWire)));
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
    if (this.#mismatch) return Promise.reject(this.#mismatch);
    const id = this.#nextId++;
    const reply = new Promise<Record<string, unknown>>((resolve, reject) => this.#pending.set(id, { method, resolve, reject }));
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
      const problem = this.#checkWire ? notificationProblem(String(message.method), message.params) : undefined;
      if (problem !== undefined) this.#mismatch ??= mismatch(problem, text);
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
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#pending.delete(id);
    const problem = this.#checkWire ? replyProblem(pending.method, message) : undefined;
    if (problem !== undefined) pending.reject(mismatch(problem, text));
    else pending.resolve(message);
  }
}

/** Says so on stderr and fails the run (even if the test goes on to catch the error). */
function mismatch(problem: string, text: string): WireMismatchError {
  console.error(`wire mismatch: ${problem}\n  in: ${text.length > 2_000 ? `${text.slice(0, 2_000)}…` : text}`);
  process.exitCode = 1;
  return new WireMismatchError(problem);
}
