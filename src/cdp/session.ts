// One flattened CDP session (the browser root '' or a target's sessionId), typed by the
// maps generated from devtools-protocol: a wrong method, field or event name does not compile.
import type { CommandArgs, CommandName, CommandResult, EventName, EventPayload } from '../../protocol/generated/maps.ts';
import { Deadline } from '../util/deadline.ts';
import type { Disposable } from '../util/disposable.ts';
import { CdpError } from './errors.ts';

export type SessionState = 'open' | 'detached';

export interface SendOptions {
  /** Per-call budget; the connection's default applies when omitted. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** What a session needs from its connection: sending and pending-call bookkeeping. */
export interface SessionChannel {
  call(sessionId: string, method: string, params: unknown, options: SendOptions): Promise<unknown>;
}

type RawListener = (params: unknown) => void;

/**
 * A kind of state that belongs to one session's agents (a domain enabled once, the stylesheets
 * added to its documents): made by `create` on first use and kept by that session, so it goes
 * with the session. A slot itself holds nothing.
 */
export class SessionSlot<T> {
  readonly create: (session: CdpSession) => T;

  constructor(create: (session: CdpSession) => T) {
    this.create = create;
  }
}

export class CdpSession {
  readonly id: string;
  readonly targetType: string;
  readonly targetId: string;
  readonly #channel: SessionChannel;
  readonly #listeners = new Map<string, Set<RawListener>>();
  readonly #detachListeners = new Set<(reason: string) => void>();
  readonly #slots = new Map<SessionSlot<unknown>, unknown>();
  #state: SessionState = 'open';
  #detachReason = '';

  constructor(options: { id: string; targetType: string; targetId: string; channel: SessionChannel }) {
    this.id = options.id;
    this.targetType = options.targetType;
    this.targetId = options.targetId;
    this.#channel = options.channel;
  }

  get state(): SessionState {
    return this.#state;
  }

  /** This session's value of `slot`, made on first use. */
  slot<T>(slot: SessionSlot<T>): T {
    if (!this.#slots.has(slot)) this.#slots.set(slot, slot.create(this));
    return this.#slots.get(slot) as T;
  }

  get detachReason(): string {
    return this.#detachReason;
  }

  send<M extends CommandName>(method: M, ...args: CommandArgs<M>): Promise<CommandResult<M>> {
    return this.sendWith({}, method, ...args);
  }

  sendWith<M extends CommandName>(
    options: SendOptions,
    method: M,
    ...args: CommandArgs<M>
  ): Promise<CommandResult<M>> {
    return this.sendRaw(method, args[0], options) as Promise<CommandResult<M>>;
  }

  /** Untyped escape hatch for `cdp.send`, where the method name comes from a client. */
  sendRaw(method: string, params: unknown, options: SendOptions = {}): Promise<unknown> {
    if (this.#state === 'detached') {
      return Promise.reject(new CdpError('closed', method, `session detached (${this.#detachReason})`));
    }
    return this.#channel.call(this.id, method, params ?? {}, options);
  }

  on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): Disposable {
    return this.onRaw(event, listener as RawListener);
  }

  onRaw(event: string, listener: RawListener): Disposable {
    let set = this.#listeners.get(event);
    if (!set) {
      set = new Set();
      this.#listeners.set(event, set);
    }
    set.add(listener);
    return {
      dispose: () => {
        set.delete(listener);
        if (set.size === 0 && this.#listeners.get(event) === set) this.#listeners.delete(event);
      },
    };
  }

  /**
   * The next `event` that passes `filter`, within the deadline. Registers synchronously, so an
   * event that arrives right after a command's reply is not missed.
   */
  once<E extends EventName>(
    event: E,
    deadline: Deadline,
    filter: (payload: EventPayload<E>) => boolean = () => true,
  ): Promise<EventPayload<E>> {
    let subscription: Disposable | undefined;
    let onDetach: Disposable | undefined;
    const waiting = new Promise<EventPayload<E>>((resolve, reject) => {
      subscription = this.on(event, (payload) => {
        if (filter(payload)) resolve(payload);
      });
      onDetach = this.onDetached((reason) => reject(new CdpError('closed', event, `session detached while waiting (${reason})`)));
    });
    const release = () => {
      subscription?.dispose();
      onDetach?.dispose();
    };
    return deadline.race(waiting, `waiting for ${event}`).finally(release);
  }

  onDetached(listener: (reason: string) => void): Disposable {
    if (this.#state === 'detached') {
      queueMicrotask(() => listener(this.#detachReason));
      return { dispose() {} };
    }
    this.#detachListeners.add(listener);
    return { dispose: () => this.#detachListeners.delete(listener) };
  }

  listenerCount(): number {
    let n = this.#detachListeners.size;
    for (const set of this.#listeners.values()) n += set.size;
    return n;
  }

  /** Called by the connection for each event routed to this session. */
  dispatch(method: string, params: unknown): void {
    const set = this.#listeners.get(method);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        listener(params);
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  /** Called by the connection when the target detaches or the wire closes. */
  markDetached(reason: string): void {
    if (this.#state === 'detached') return;
    this.#state = 'detached';
    this.#detachReason = reason;
    const listeners = [...this.#detachListeners];
    this.#detachListeners.clear();
    for (const listener of listeners) listener(reason);
    this.#listeners.clear();
  }
}
