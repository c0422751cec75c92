// Owns one CDP wire: numbers calls, routes replies and events by sessionId (the root session is
// ''), creates child sessions the moment `Target.attachedToTarget` arrives, and fails every
// pending call at once when a session or the wire goes away — a call never hangs past its
// deadline or its target.
import type { Cdp } from '../../protocol/generated/cdp.ts';
import type { Disposable } from '../util/disposable.ts';
import { CdpError } from './errors.ts';
import { CdpSession, type SendOptions, type SessionChannel } from './session.ts';
import type { CdpTransport } from './transport.ts';

export interface ConnectionOptions {
  /** Budget of a call that names none. */
  defaultTimeoutMs?: number;
  /** Receives every raw message in and out (for debugging); must not throw. */
  trace?: (direction: 'send' | 'recv', message: string) => void;
}

export interface AttachedSession {
  session: CdpSession;
  parent: CdpSession;
  targetInfo: Cdp.Target.TargetInfo;
  waitingForDebugger: boolean;
}

interface PendingCall {
  method: string;
  sessionId: string;
  resolve(result: unknown): void;
  reject(error: CdpError): void;
}

interface InboundMessage {
  id?: number;
  sessionId?: string;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: string };
}

const DEFAULT_TIMEOUT_MS = 30_000;

// Each inbound message is handled in its own task, so that the continuation of
// `await session.send(x)` runs before the next message is routed (ARCHITECTURE B0.6).
const nextTask: (fn: () => void) => void = typeof globalThis.setImmediate === 'function'
  ? (fn) => globalThis.setImmediate(fn)
  : (fn) => setTimeout(fn, 0);

export class Connection {
  readonly root: CdpSession;
  readonly closed: Promise<string>;
  readonly #transport: CdpTransport;
  readonly #channel: SessionChannel;
  readonly #defaultTimeoutMs: number;
  readonly #trace: ConnectionOptions['trace'];
  readonly #sessions = new Map<string, CdpSession>();
  readonly #pending = new Map<number, PendingCall>();
  /** The calls waiting on each abort signal (see #onAbort). */
  readonly #abortCallbacks = new WeakMap<AbortSignal, Set<() => void>>();
  readonly #attachListeners = new Set<(attached: AttachedSession) => void>();
  readonly #inbox: string[] = [];
  #draining = false;
  #nextId = 1;
  #closeReason: string | undefined;
  #resolveClosed!: (reason: string) => void;

  constructor(transport: CdpTransport, options: ConnectionOptions = {}) {
    this.#transport = transport;
    this.#defaultTimeoutMs = options.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#trace = options.trace;
    this.closed = new Promise((resolve) => (this.#resolveClosed = resolve));
    this.#channel = { call: (sessionId, method, params, o) => this.#call(sessionId, method, params, o) };
    this.root = new CdpSession({ id: '', targetType: 'browser', targetId: '', channel: this.#channel });
    this.#sessions.set('', this.root);
    transport.onmessage = (message) => this.#enqueue(message);
    transport.onclose = (reason) => this.#onWireClosed(reason);
  }

  get isClosed(): boolean {
    return this.#closeReason !== undefined;
  }

  get closeReason(): string | undefined {
    return this.#closeReason;
  }

  get pendingCount(): number {
    return this.#pending.size;
  }

  get sessionCount(): number {
    return this.#sessions.size;
  }

  /** Event and detach listeners over every live session, root included (a leak shows as growth). */
  listenerCount(): number {
    let n = 0;
    for (const session of this.#sessions.values()) n += session.listenerCount();
    return n;
  }

  session(id: string): CdpSession | undefined {
    return this.#sessions.get(id);
  }

  /**
   * Fails the calls pending on a session that stays attached but will not answer them (its
   * renderer crashed); with `sentBefore` (a callMark), only those sent before it. Later calls go
   * through as usual (a reload brings a new renderer).
   */
  failPending(sessionId: string, reason: string, options: { sentBefore?: number } = {}): void {
    const before = options.sentBefore ?? Infinity;
    for (const [id, pending] of [...this.#pending]) {
      if (pending.sessionId === sessionId && id < before) pending.reject(new CdpError('closed', pending.method, reason));
    }
  }

  /** A mark in the order of calls: every call sent from now on comes at or after it (failPending). */
  callMark(): number {
    return this.#nextId;
  }

  /** Called for every new flattened session, before any of its own messages are routed. */
  onAttached(listener: (attached: AttachedSession) => void): Disposable {
    this.#attachListeners.add(listener);
    return { dispose: () => this.#attachListeners.delete(listener) };
  }

  /** Closes the wire; every pending call fails with a 'closed' CdpError. Idempotent. */
  close(reason = 'connection closed by pagewire'): void {
    if (this.isClosed) return;
    try {
      this.#transport.close();
    } catch {
      // The wire may already be broken; we still finish our own bookkeeping.
    }
    this.#onWireClosed(reason);
  }

  #call(sessionId: string, method: string, params: unknown, options: SendOptions): Promise<unknown> {
    if (this.#closeReason !== undefined) {
      return Promise.reject(new CdpError('closed', method, `browser connection closed (${this.#closeReason})`));
    }
    const id = this.#nextId++;
    const timeoutMs = options.timeoutMs ?? this.#defaultTimeoutMs;
    // Register before sending: with a synchronous transport the reply may be routed before
    // `send` returns. Nothing asynchronous may happen between here and transport.send.
    const promise = new Promise<unknown>((resolve, reject) => {
      // deno-lint-ignore prefer-const -- settle() closes over it before the timer is set
      let timer: ReturnType<typeof setTimeout> | undefined;
      const signal = options.signal;
      const onAbort = () => settle(() => reject(new CdpError('closed', method, 'call aborted')));
      let unwatch: (() => void) | undefined;
      const settle = (fn: () => void) => {
        if (!this.#pending.delete(id)) return;
        if (timer !== undefined) clearTimeout(timer);
        unwatch?.();
        fn();
      };
      this.#pending.set(id, {
        method,
        sessionId,
        resolve: (result) => settle(() => resolve(result)),
        reject: (error) => settle(() => reject(error)),
      });
      timer = setTimeout(
        () => settle(() => reject(new CdpError('timeout', method, `no answer within ${timeoutMs} ms`))),
        timeoutMs,
      );
      if (signal) {
        if (signal.aborted) queueMicrotask(onAbort);
        else unwatch = this.#onAbort(signal, onAbort);
      }
    });
    const message: Record<string, unknown> = { id, method, params };
    if (sessionId !== '') message.sessionId = sessionId;
    const text = JSON.stringify(message);
    this.#trace?.('send', text);
    try {
      this.#transport.send(text);
    } catch (error) {
      this.#pending.get(id)?.reject(new CdpError('closed', method, `write failed: ${String(error)}`));
    }
    return promise;
  }

  /**
   * Runs `callback` when `signal` aborts; returns how to stop watching. One listener per signal,
   * however many calls share it: an observation of a large page has hundreds in flight on one.
   */
  #onAbort(signal: AbortSignal, callback: () => void): () => void {
    let callbacks = this.#abortCallbacks.get(signal);
    if (!callbacks) {
      const created = new Set<() => void>();
      callbacks = created;
      this.#abortCallbacks.set(signal, created);
      signal.addEventListener('abort', () => {
        for (const run of [...created]) run();
        created.clear();
      }, { once: true });
    }
    const own = callbacks;
    own.add(callback);
    return () => own.delete(callback);
  }

  #enqueue(message: string): void {
    this.#inbox.push(message);
    if (!this.#draining) {
      this.#draining = true;
      nextTask(() => this.#drainOne());
    }
  }

  #drainOne(): void {
    const text = this.#inbox.shift();
    if (text !== undefined) {
      this.#route(text);
    }
    if (this.#inbox.length > 0) nextTask(() => this.#drainOne());
    else this.#draining = false;
  }

  #route(text: string): void {
    this.#trace?.('recv', text);
    let message: InboundMessage;
    try {
      message = JSON.parse(text) as InboundMessage;
    } catch {
      // A browser that speaks garbage cannot be trusted with further calls.
      this.close('the browser sent a message that is not JSON');
      return;
    }
    if (message.id !== undefined) {
      const pending = this.#pending.get(message.id);
      if (!pending) return; // a reply to a call that already timed out or was aborted
      if (message.error) {
        const detail = message.error.data ? `${message.error.message} (${message.error.data})` : message.error.message;
        pending.reject(new CdpError('protocol', pending.method, detail, message.error.code));
      } else {
        pending.resolve(message.result ?? {});
      }
      return;
    }
    if (message.method === undefined) return;
    const parent = this.#sessions.get(message.sessionId ?? '');
    if (!parent) return; // an event for a session we already dropped
    if (message.method === 'Target.attachedToTarget') this.#onAttached(parent, message.params as Cdp.Target.AttachedToTargetEvent);
    parent.dispatch(message.method, message.params);
    if (message.method === 'Target.detachedFromTarget') {
      const { sessionId } = message.params as Cdp.Target.DetachedFromTargetEvent;
      this.#dropSession(sessionId, 'target detached');
    }
  }

  #onAttached(parent: CdpSession, event: Cdp.Target.AttachedToTargetEvent): void {
    if (this.#sessions.has(event.sessionId)) return;
    const session = new CdpSession({
      id: event.sessionId,
      targetType: event.targetInfo.type,
      targetId: event.targetInfo.targetId,
      channel: this.#channel,
    });
    this.#sessions.set(event.sessionId, session);
    const attached: AttachedSession = {
      session,
      parent,
      targetInfo: event.targetInfo,
      waitingForDebugger: event.waitingForDebugger,
    };
    for (const listener of [...this.#attachListeners]) {
      try {
        listener(attached);
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  #dropSession(sessionId: string, reason: string): void {
    const session = this.#sessions.get(sessionId);
    if (!session || sessionId === '') return;
    this.#sessions.delete(sessionId);
    for (const [, pending] of [...this.#pending]) {
      if (pending.sessionId === sessionId) {
        pending.reject(new CdpError('closed', pending.method, `target closed (${reason})`));
      }
    }
    session.markDetached(reason);
  }

  #onWireClosed(reason: string): void {
    if (this.#closeReason !== undefined) return;
    this.#closeReason = reason;
    this.#inbox.length = 0;
    for (const [, pending] of [...this.#pending]) {
      pending.reject(new CdpError('closed', pending.method, `browser connection closed (${reason})`));
    }
    for (const id of [...this.#sessions.keys()]) if (id !== '') this.#dropSession(id, reason);
    this.root.markDetached(reason);
    this.#resolveClosed(reason);
  }
}
