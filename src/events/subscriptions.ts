// events.subscribe / events.unsubscribe behind the wire (PROTOCOL.md §9): which connection wants
// which session's events, replay of retained ones (`after_seq`) before live ones, kinds filters,
// and one bounded Outbox per connection. Subscriptions never outlive their connection, and end
// with their session after its final `session_closed` event.
import { ServerError } from '../errors.ts';
import type { Disposable } from '../util/disposable.ts';
import { randomId } from '../util/ids.ts';
import type { EventLog } from './event-log.ts';
import { Outbox, type OutboxConnection, type OutboxOptions, type OutboxPriority } from './outbox.ts';
import type { EventKind, SessionEvent } from './types.ts';

export const MAX_SUBSCRIPTIONS_PER_CONNECTION = 32;

/** What the hub needs of a connection (RpcConnection has all of it). */
export interface HubConnection extends OutboxConnection {
  readonly id: string;
}

/** What the hub needs of a session (Session has all of it). */
export interface EventSource {
  readonly id: string;
  readonly events: EventLog;
}

export interface SubscribeOptions {
  /** Omitted: every kind. */
  kinds?: readonly EventKind[] | undefined;
  /** Replay the retained events after this seq before the live ones. Omitted: live ones only. */
  afterSeq?: number | undefined;
  /** Called once when the subscription ends (unsubscribed, its connection or its session gone). */
  onEnd?: () => void;
}

export interface SubscriptionHubOptions {
  maxPerConnection?: number;
  /** Limits of each connection's Outbox. */
  outbox?: OutboxOptions;
  /**
   * Runs a new subscription's replay and the start of its live delivery. Default: the next
   * macrotask, so the events.subscribe reply normally reaches the client before the first
   * event. Events published in between are buffered, never lost.
   */
  schedule?: (start: () => void) => void;
  /** Id factory (tests). Default `sub_<random>`. */
  newId?: () => string;
}

export interface HubStats {
  /** Connections with an outbox (ones that subscribed at least once and are still open). */
  readonly connections: number;
  readonly subscriptions: number;
  readonly queued: number;
  readonly queuedBytes: number;
  /** Over the hub's lifetime, closed connections included. */
  readonly droppedTotal: number;
  readonly deliveredTotal: number;
}

/** Events a client must not miss through backpressure; the rest may be dropped under load. */
export function eventPriority(event: SessionEvent): OutboxPriority {
  switch (event.kind) {
    case 'dialog':
    case 'file_chooser':
    case 'crash':
    case 'session_closed':
      return 'keep';
    case 'download':
      return event.data['state'] === 'completed' || event.data['state'] === 'canceled' ? 'keep' : 'droppable';
    default:
      return 'droppable';
  }
}

/** The wire params of one event for one subscription (PROTOCOL.md §9), in the documented order. */
export function eventParams(subscriptionId: string, event: SessionEvent): Record<string, unknown> {
  return {
    subscription_id: subscriptionId,
    seq: event.seq,
    kind: event.kind,
    session_id: event.session_id,
    ...(event.target_id !== undefined ? { target_id: event.target_id } : {}),
    ...(event.frame_id !== undefined ? { frame_id: event.frame_id } : {}),
    time: event.time,
    data: event.data,
  };
}

interface ConnectionState {
  readonly connection: HubConnection;
  readonly outbox: Outbox;
  readonly subscriptions: Map<string, Subscription>;
  readonly onAbort: () => void;
}

type Phase = 'scheduled' | 'replaying' | 'live' | 'ended';

class Subscription {
  readonly id: string;
  readonly sessionId: string;
  readonly #kinds: ReadonlySet<EventKind> | undefined;
  readonly #outbox: Outbox;
  readonly #onEnd: (subscription: Subscription) => void;
  #phase: Phase = 'scheduled';
  /** Retained events to replay, captured at subscribe time. */
  #replay: SessionEvent[];
  /** Events published after subscribe and before live delivery took over, in seq order. */
  #pending: SessionEvent[] = [];
  #logClosed = false;
  readonly #listeners: Disposable[];

  constructor(init: {
    id: string;
    source: EventSource;
    kinds: readonly EventKind[] | undefined;
    afterSeq: number | undefined;
    outbox: Outbox;
    onEnd: (subscription: Subscription) => void;
  }) {
    this.id = init.id;
    this.sessionId = init.source.id;
    this.#kinds = init.kinds === undefined ? undefined : new Set(init.kinds);
    this.#outbox = init.outbox;
    this.#onEnd = init.onEnd;
    const log = init.source.events;
    // Snapshot and listen in one synchronous step: every event is either in the snapshot or
    // reaches the listener, never both, never neither.
    this.#replay = init.afterSeq === undefined ? [] : log.since(init.afterSeq).events;
    this.#listeners = [
      log.subscribe((event) => this.#onEvent(event)),
      log.onClose(() => this.#onLogClosed()),
    ];
  }

  get ended(): boolean {
    return this.#phase === 'ended';
  }

  /** Replays, then drains what arrived meanwhile, then goes live. */
  start(): void {
    if (this.#phase !== 'scheduled') return;
    this.#phase = 'replaying';
    const replay = this.#replay;
    this.#replay = [];
    for (const event of replay) {
      this.#deliver(event);
      if (this.ended) return;
    }
    // Events published while replaying (a re-entrant publisher) land in #pending too, behind
    // the ones already there, so this loop keeps seq order.
    while (this.#pending.length > 0) {
      this.#deliver(this.#pending.shift()!);
      if (this.ended) return;
    }
    this.#phase = 'live';
    if (this.#logClosed) this.end();
  }

  /** Stops listening; queued notifications are left to the caller. Idempotent. */
  end(): void {
    if (this.#phase === 'ended') return;
    this.#phase = 'ended';
    this.#replay = [];
    this.#pending = [];
    for (const listener of this.#listeners) listener.dispose();
    this.#onEnd(this);
  }

  #onEvent(event: SessionEvent): void {
    if (this.#phase === 'live') this.#deliver(event);
    else if (this.#phase !== 'ended') this.#pending.push(event);
  }

  #onLogClosed(): void {
    if (this.#phase === 'live') this.end();
    // Not started yet: start() delivers what was captured (session_closed included), then ends.
    else this.#logClosed = true;
  }

  #deliver(event: SessionEvent): void {
    if (this.#kinds === undefined || this.#kinds.has(event.kind)) {
      this.#outbox.enqueue({ method: 'event', params: eventParams(this.id, event) }, eventPriority(event));
    }
    // The final event of the session: it is in the outbox now (kept under pressure), so the
    // subscription may go.
    if (event.kind === 'session_closed') this.end();
  }
}

export class SubscriptionHub {
  readonly #maxPerConnection: number;
  readonly #outboxOptions: OutboxOptions;
  readonly #schedule: (start: () => void) => void;
  readonly #newId: () => string;
  readonly #connections = new Map<HubConnection, ConnectionState>();
  #retiredDropped = 0;
  #retiredDelivered = 0;

  constructor(options: SubscriptionHubOptions = {}) {
    this.#maxPerConnection = options.maxPerConnection ?? MAX_SUBSCRIPTIONS_PER_CONNECTION;
    this.#outboxOptions = options.outbox ?? {};
    this.#schedule = options.schedule ?? ((start) => void setTimeout(start, 0));
    this.#newId = options.newId ?? (() => randomId('sub_'));
  }

  /**
   * `last_seq` is the session's newest seq at this moment: the replay covers what is at or before
   * it, live delivery what comes after, so a client that loses its socket resumes with
   * `after_seq: last_seq` (or the last seq it received) and misses nothing.
   */
  subscribe(connection: HubConnection, source: EventSource, options: SubscribeOptions = {}): { subscription_id: string; last_seq: number } {
    if (connection.signal.aborted) {
      throw new ServerError('operation_cancelled', 'the connection is closing');
    }
    if (source.events.closed) {
      throw new ServerError('session_not_found', `no open session ${source.id}`, { details: { session_id: source.id } });
    }
    const state = this.#stateFor(connection);
    if (state.subscriptions.size >= this.#maxPerConnection) {
      throw new ServerError(
        'invalid_request',
        `a connection may hold at most ${this.#maxPerConnection} subscriptions; end one with events.unsubscribe first ` +
          '(or start the server with a higher --max-subscriptions-per-connection)',
        { details: { limit: 'subscriptions_per_connection', max: this.#maxPerConnection } },
      );
    }
    let id = this.#newId();
    while (state.subscriptions.has(id)) id = this.#newId();
    const subscription = new Subscription({
      id,
      source,
      kinds: options.kinds,
      afterSeq: options.afterSeq,
      outbox: state.outbox,
      onEnd: (ended) => {
        if (state.subscriptions.get(ended.id) === ended) state.subscriptions.delete(ended.id);
        options.onEnd?.();
      },
    });
    state.subscriptions.set(id, subscription);
    this.#schedule(() => subscription.start());
    return { subscription_id: id, last_seq: source.events.lastSeq };
  }

  /** Ends one of the connection's own subscriptions; its queued events are not sent. */
  unsubscribe(connection: HubConnection, subscriptionId: string): void {
    const state = this.#connections.get(connection);
    const subscription = state?.subscriptions.get(subscriptionId);
    if (!state || !subscription) {
      // Another connection's subscription is reported exactly like an unknown one.
      throw new ServerError('invalid_params', `no subscription ${subscriptionId} on this connection`, {
        details: { subscription_id: subscriptionId },
      });
    }
    subscription.end();
    state.outbox.discard((params) => params['subscription_id'] === subscriptionId);
  }

  /** Ids of the connection's live subscriptions (diagnostics and tests). */
  subscriptionsOf(connection: HubConnection): string[] {
    return [...(this.#connections.get(connection)?.subscriptions.keys() ?? [])];
  }

  get stats(): HubStats {
    let subscriptions = 0;
    let queued = 0;
    let queuedBytes = 0;
    let droppedTotal = this.#retiredDropped;
    let deliveredTotal = this.#retiredDelivered;
    for (const state of this.#connections.values()) {
      subscriptions += state.subscriptions.size;
      queued += state.outbox.queued;
      queuedBytes += state.outbox.queuedBytes;
      droppedTotal += state.outbox.droppedTotal;
      deliveredTotal += state.outbox.deliveredTotal;
    }
    return { connections: this.#connections.size, subscriptions, queued, queuedBytes, droppedTotal, deliveredTotal };
  }

  /** Server shutdown: ends every subscription and outbox. */
  close(): void {
    for (const state of [...this.#connections.values()]) this.#release(state);
  }

  #stateFor(connection: HubConnection): ConnectionState {
    const existing = this.#connections.get(connection);
    if (existing) return existing;
    const state: ConnectionState = {
      connection,
      outbox: new Outbox(connection, this.#outboxOptions),
      subscriptions: new Map(),
      onAbort: () => this.#release(state),
    };
    connection.signal.addEventListener('abort', state.onAbort, { once: true });
    this.#connections.set(connection, state);
    return state;
  }

  #release(state: ConnectionState): void {
    if (this.#connections.get(state.connection) !== state) return;
    this.#connections.delete(state.connection);
    state.connection.signal.removeEventListener('abort', state.onAbort);
    for (const subscription of [...state.subscriptions.values()]) subscription.end();
    state.outbox.close();
    this.#retiredDropped += state.outbox.droppedTotal;
    this.#retiredDelivered += state.outbox.deliveredTotal;
  }
}
