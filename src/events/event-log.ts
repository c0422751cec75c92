// One session's event sequence: numbers events (seq 1, 2, 3, …), keeps the most recent ones
// for replay (`after_seq`, PROTOCOL.md §9) and hands each to the live listeners synchronously.
import type { Disposable } from '../util/disposable.ts';
import { Emitter } from '../util/emitter.ts';
import { scrubStrings } from '../util/redact.ts';
import type { EventInit, SessionEvent } from './types.ts';

/** PROTOCOL.md §12: events retained per session. */
export const DEFAULT_RETAINED_EVENTS = 1000;

export interface EventLogOptions {
  /** The session's id, or a getter for it (a Session field initializer runs before its id is set). */
  sessionId?: string | (() => string);
  /** How many of the most recent events are kept for replay. */
  retain?: number;
  now?: () => number;
  /**
   * Applied to every string of an event's data before it is numbered, kept or delivered: the
   * session's secrets never enter the log, whatever published the event.
   */
  scrub?: (text: string) => string;
}

export interface ReplaySlice {
  /** Retained events with seq > afterSeq, in seq order. */
  readonly events: SessionEvent[];
  /** Events after afterSeq that were already evicted (0 when the replay is complete). */
  readonly evicted: number;
}

export type SessionEventListener = (event: SessionEvent) => void;

interface LogEvents extends Record<string, unknown> {
  event: SessionEvent;
  close: undefined;
}

export class EventLog {
  readonly #sessionId: () => string;
  readonly #capacity: number;
  readonly #now: () => number;
  readonly #scrub: ((text: string) => string) | undefined;
  /** Ring buffer: the event with seq s sits at (s - 1) % capacity while retained. */
  readonly #ring: Array<SessionEvent | undefined>;
  readonly #emitter = new Emitter<LogEvents>();
  #lastSeq = 0;
  #closed = false;

  constructor(options: EventLogOptions = {}) {
    const id = options.sessionId ?? '';
    this.#sessionId = typeof id === 'function' ? id : () => id;
    const retain = options.retain ?? DEFAULT_RETAINED_EVENTS;
    if (!Number.isInteger(retain) || retain < 1) throw new RangeError(`retain must be a positive integer, got ${retain}`);
    this.#capacity = retain;
    this.#now = options.now ?? (() => Date.now());
    this.#scrub = options.scrub;
    this.#ring = new Array<SessionEvent | undefined>(retain).fill(undefined);
  }

  /** The seq of the newest event (0 before the first). */
  get lastSeq(): number {
    return this.#lastSeq;
  }

  /** The seq of the oldest retained event (lastSeq + 1 when none is retained). */
  get firstRetainedSeq(): number {
    return Math.max(1, this.#lastSeq - this.#capacity + 1);
  }

  get retained(): number {
    return this.#lastSeq - this.firstRetainedSeq + 1;
  }

  get closed(): boolean {
    return this.#closed;
  }

  get listenerCount(): number {
    return this.#emitter.listenerCount('event');
  }

  /**
   * Numbers, stamps, retains and delivers one event; listeners run before this returns.
   * After close() the event is numbered and returned but neither retained nor delivered.
   */
  publish(init: EventInit): SessionEvent {
    const scrub = this.#scrub;
    const { target_id, frame_id, ...kindAndData } = scrub ? ({ ...init, data: scrubStrings(init.data, scrub) } as EventInit) : init;
    // kind and data travel as one (TypeScript checks a pair only when it stays together), and
    // are assigned last rather than spread first, so that data ends the record as §9 lists it.
    const event: SessionEvent = Object.assign(
      {
        seq: ++this.#lastSeq,
        kind: init.kind,
        session_id: this.#sessionId(),
        ...(target_id !== undefined ? { target_id } : {}),
        ...(frame_id !== undefined ? { frame_id } : {}),
        time: this.#now(),
      },
      kindAndData,
    );
    if (this.#closed) return event;
    this.#ring[(event.seq - 1) % this.#capacity] = event;
    this.#emitter.emit('event', event);
    return event;
  }

  /** Retained events after `afterSeq` (all retained ones for 0), and how many were already evicted. */
  since(afterSeq: number): ReplaySlice {
    const first = this.firstRetainedSeq;
    const from = Math.max(afterSeq + 1, first);
    const events: SessionEvent[] = [];
    for (let seq = from; seq <= this.#lastSeq; seq++) {
      const event = this.#ring[(seq - 1) % this.#capacity];
      if (event !== undefined) events.push(event);
    }
    return { events, evicted: Math.max(0, first - 1 - afterSeq) };
  }

  /** Live events from now on, synchronously at publish. */
  subscribe(listener: SessionEventListener): Disposable {
    return this.#emitter.on('event', listener);
  }

  /**
   * Resolves when an event that `wanted` accepts is published, when the log closes, after
   * `timeoutMs`, or when `signal` aborts, whichever comes first; never rejects (a long poll reads
   * what there is afterwards).
   */
  waitFor(wanted: (event: SessionEvent) => boolean, options: { timeoutMs: number; signal?: AbortSignal | undefined }): Promise<void> {
    const { signal } = options;
    if (this.#closed || signal?.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        listening.dispose();
        closing.dispose();
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, options.timeoutMs);
      const listening = this.subscribe((event) => {
        if (wanted(event)) done();
      });
      const closing = this.onClose(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  /** Called once when the log closes (at once, on a later microtask, if it already has). */
  onClose(listener: () => void): Disposable {
    if (this.#closed) {
      let cancelled = false;
      queueMicrotask(() => {
        if (!cancelled) listener();
      });
      return { dispose: () => void (cancelled = true) };
    }
    return this.#emitter.on('close', listener);
  }

  /**
   * The session is gone: tells the close listeners, then drops every listener. Retained events
   * stay readable through since(), so a subscription that starts late still sees the last ones.
   */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#emitter.emit('close', undefined);
    this.#emitter.removeAll();
  }
}
