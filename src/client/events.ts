// A session's events as an async iterator that survives reconnects: a subscription dies with its
// socket, so after a reconnect the stream subscribes again with `after_seq` set to the last seq
// it delivered, and the server replays what it retained since. Seqs only grow, so an event at or
// below the last one delivered is never delivered again.
import type { Connection } from './connection.ts';
import { abortReason, ConnectionError } from './errors.ts';
import type { EventKind, SessionEvent, SubscribeResult } from './wire.ts';

export interface EventStreamOptions {
  /** Omitted: every kind. */
  kinds?: EventKind[];
  /** Replay the retained events after this seq first (0: every retained one). Omitted: live events only. */
  afterSeq?: number;
  /** Ends the stream: a pending next() rejects with the signal's reason. */
  signal?: AbortSignal;
}

interface Waiter {
  resolve(result: IteratorResult<SessionEvent>): void;
  reject(reason: unknown): void;
}

export class EventStream implements AsyncIterableIterator<SessionEvent> {
  /** Resolves when the first subscription is in place (events after it will be delivered). */
  readonly ready: Promise<void>;
  readonly #connection: Connection;
  readonly #sessionId: string | undefined;
  readonly #kinds: EventKind[] | undefined;
  readonly #timeoutMs: number;
  readonly #queue: SessionEvent[] = [];
  readonly #waiters: Waiter[] = [];
  readonly #disposers: Array<() => void> = [];
  #subscriptionId: string | undefined;
  /**
   * Events that came while a subscribe was on the wire: its replay can arrive before the code
   * awaiting the reply runs (`ws` hands every frame of one TCP chunk over in one go), so they are
   * kept until the reply says which subscription is ours.
   */
  #early: Array<Record<string, unknown>> | undefined;
  /** The highest seq handed to the queue; the base the next subscription replays after. */
  #lastSeq: number | undefined;
  #headSeq: number | undefined;
  #ended = false;
  #error: unknown;
  /** Each subscription attempt; a stale one's answer is ignored. */
  #generation = 0;
  #settleReady!: (error?: unknown) => void;

  constructor(init: { connection: Connection; sessionId: string | undefined; options: EventStreamOptions; timeoutMs: number }) {
    this.#connection = init.connection;
    this.#sessionId = init.sessionId;
    this.#kinds = init.options.kinds;
    this.#timeoutMs = init.timeoutMs;
    this.#lastSeq = init.options.afterSeq;
    const signal = init.options.signal;
    this.#disposers.push(
      this.#connection.onNotification((method, params) => this.#onNotification(method, params)),
      this.#connection.onReconnect(() => {
        this.#subscriptionId = undefined;
        void this.#subscribe();
      }),
      this.#connection.onClose((error) => this.#end(error)),
    );
    if (signal) {
      const onAbort = () => {
        this.#end(abortReason(signal));
        void this.#unsubscribe();
      };
      if (signal.aborted) queueMicrotask(onAbort);
      else {
        signal.addEventListener('abort', onAbort, { once: true });
        this.#disposers.push(() => signal.removeEventListener('abort', onAbort));
      }
    }
    this.ready = new Promise<void>((resolve, reject) => {
      this.#settleReady = (error) => (error === undefined ? resolve() : reject(error));
    });
    // A failed first subscription ends the stream; next() reports it, so `ready` need not be awaited.
    this.ready.catch(() => {});
    void this.#subscribe().catch(() => {});
  }

  /**
   * The session's newest seq when the first subscription began (the server's `last_seq`): the
   * replay asked for with afterSeq ends there. Undefined before `ready`, or from a server that
   * does not say.
   */
  get headSeq(): number | undefined {
    return this.#headSeq;
  }

  /** The seq of the last event delivered (or the afterSeq the stream started from). */
  get lastSeq(): number | undefined {
    return this.#lastSeq;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<SessionEvent>> {
    const event = this.#queue.shift();
    if (event) return Promise.resolve({ value: event, done: false });
    if (this.#ended) return this.#error === undefined ? Promise.resolve({ value: undefined, done: true }) : Promise.reject(this.#error);
    return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
  }

  /** Ends the stream (a `for await` loop that breaks calls this) and unsubscribes. */
  async return(): Promise<IteratorResult<SessionEvent>> {
    this.#end(undefined);
    await this.#unsubscribe();
    return { value: undefined, done: true };
  }

  close(): Promise<IteratorResult<SessionEvent>> {
    return this.return();
  }

  async #subscribe(): Promise<void> {
    if (this.#ended) return;
    const generation = ++this.#generation;
    const params: Record<string, unknown> = {
      ...(this.#sessionId !== undefined ? { session_id: this.#sessionId } : {}),
      ...(this.#kinds ? { kinds: this.#kinds } : {}),
      ...(this.#lastSeq !== undefined ? { after_seq: this.#lastSeq } : {}),
    };
    let result: SubscribeResult;
    this.#early = [];
    try {
      // Not re-sent by the connection: after a reconnect this stream subscribes anew itself.
      result = await this.#connection.call<SubscribeResult>('events.subscribe', params, { resend: false, timeoutMs: this.#timeoutMs });
    } catch (error) {
      if (generation === this.#generation) this.#early = undefined;
      if (error instanceof ConnectionError && error.error_type === 'connection_lost') return; // onReconnect tries again
      if (generation === this.#generation) this.#end(error);
      throw error;
    }
    if (generation !== this.#generation) return;
    this.#subscriptionId = result.subscription_id;
    const early = this.#early ?? [];
    this.#early = undefined;
    if (this.#ended) {
      await this.#unsubscribe();
      return;
    }
    // A live-only stream learns where "now" was, so that a reconnect before its first event still
    // replays from there. (A server that does not say so leaves that gap open.)
    if (typeof result.last_seq === 'number') {
      this.#headSeq ??= result.last_seq;
      this.#lastSeq ??= result.last_seq;
    }
    this.#settleReady();
    for (const params of early) this.#onNotification('event', params);
  }

  async #unsubscribe(): Promise<void> {
    const id = this.#subscriptionId;
    this.#subscriptionId = undefined;
    if (id === undefined || this.#connection.state !== 'open') return;
    try {
      await this.#connection.call('events.unsubscribe', { subscription_id: id }, { resend: false, timeoutMs: this.#timeoutMs });
    } catch {
      // The subscription dies with its socket anyway.
    }
  }

  #onNotification(method: string, params: Record<string, unknown>): void {
    if (method !== 'event' || this.#ended) return;
    if (this.#subscriptionId === undefined && this.#early) {
      this.#early.push(params);
      return;
    }
    if (params['subscription_id'] !== this.#subscriptionId) return;
    const { subscription_id: _id, ...rest } = params;
    const event = rest as unknown as SessionEvent;
    if (this.#lastSeq !== undefined && event.seq <= this.#lastSeq) return;
    this.#lastSeq = event.seq;
    this.#push(event);
    if (event.kind === 'session_closed') this.#end(undefined);
  }

  #push(event: SessionEvent): void {
    const waiter = this.#waiters.shift();
    if (waiter) waiter.resolve({ value: event, done: false });
    else this.#queue.push(event);
  }

  #end(error: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#error = error;
    this.#settleReady(error);
    for (const dispose of this.#disposers.splice(0)) dispose();
    for (const waiter of this.#waiters.splice(0)) {
      if (error === undefined) waiter.resolve({ value: undefined, done: true });
      else waiter.reject(error);
    }
  }
}
