// What MCP keeps for one principal (one token over HTTP, or the stdio client): the connection its
// calls go through (the RpcConnection the method table sees, like a WebSocket's), the observation
// MCP last handed it per tab, and one event tap per session it used.
//
// A tap is an ordinary `events.subscribe` of that connection (all retained events, then live
// ones): MCP reads events the way any wire client does. From it each tool result reports what
// happened on its session since the previous MCP call there, and browser_events lists them.
import type { CallContext, Principal, RpcConnection } from '../rpc/context.ts';
import type { CallOutcome } from '../rpc/server.ts';
import { IdsSaid } from './ids-said.ts';

/** One session event as the wire delivers it (the `event` notification's params less subscription_id). */
export interface WireEvent {
  readonly seq: number;
  readonly kind: string;
  readonly session_id: string;
  readonly target_id?: string;
  readonly frame_id?: string;
  readonly time: number;
  readonly data: Record<string, unknown>;
}

/** As many as a session retains (PROTOCOL.md §12), so browser_events can list what the wire could replay. */
const EVENTS_KEPT = 1000;

class SessionTap {
  readonly events: WireEvent[] = [];
  /** Events older than this were there before MCP first used the session: not news to report. */
  readonly since: number;
  /** The last seq a tool result reported. */
  reportedSeq = 0;
  closed = false;

  constructor(since: number) {
    this.since = since;
  }

  add(event: WireEvent): void {
    this.events.push(event);
    if (this.events.length > EVENTS_KEPT) this.events.shift();
    if (event.kind === 'session_closed') this.closed = true;
  }

  /** Events after the previous report (or after the tap began), marked as reported. */
  takeNews(): WireEvent[] {
    // From the newest back to the last reported one: not the whole retained list on every call.
    let first = this.events.length;
    while (first > 0 && this.events[first - 1]!.seq > this.reportedSeq) first--;
    const news = this.events.slice(first).filter((event) => event.time >= this.since);
    const last = this.events.at(-1);
    if (last) this.reportedSeq = Math.max(this.reportedSeq, last.seq);
    return news;
  }
}

export interface PrincipalDeps {
  principal: Principal;
  connectionId: string;
  /** The wire, for this principal's own calls (an events.subscribe, a session.list). */
  rpc: { call(method: string, params: unknown, call: CallContext): Promise<CallOutcome> };
  now?: () => number;
}

export class McpPrincipal {
  readonly principal: Principal;
  readonly connection: RpcConnection;
  readonly #deps: PrincipalDeps;
  readonly #now: () => number;
  readonly #closed = new AbortController();
  readonly #taps = new Map<string, SessionTap>();
  /** Taps being set up, keyed by session id or '' for the default session (concurrent first calls share one). */
  readonly #tapping = new Map<string, Promise<string | undefined>>();
  #defaultSessionId: string | undefined;
  /** The ids this principal's tool texts have named (one conversation: one token, or the stdio client). */
  readonly idsSaid = new IdsSaid(() => this.#defaultSessionId);
  /** `session\0target` → the state_id of the observation MCP last handed this principal for that tab. */
  readonly #observations = new Map<string, string>();

  constructor(deps: PrincipalDeps) {
    this.#deps = deps;
    this.principal = deps.principal;
    this.#now = deps.now ?? (() => Date.now());
    const signal = this.#closed.signal;
    this.connection = {
      id: deps.connectionId,
      principal: deps.principal,
      signal,
      notify: (method, params) => {
        if (signal.aborted) return false;
        if (method === 'event') this.#onEvent(params as WireEvent & { subscription_id?: string });
        return true;
      },
      // Events land in memory at once: nothing ever queues behind a socket.
      bufferedAmount: () => 0,
    };
  }

  /** Ends the taps (their subscriptions go with this connection's signal). */
  close(): void {
    this.#closed.abort();
    this.#taps.clear();
  }

  get defaultSessionId(): string | undefined {
    return this.#defaultSessionId;
  }

  /**
   * Makes sure this principal has a tap on the session (the default one when `sessionId` is
   * undefined) and resolves to the session's id; undefined when the session cannot be used (the
   * call that follows reports why, exactly as the wire words it).
   */
  tap(sessionId: string | undefined): Promise<string | undefined> {
    const id = sessionId ?? this.#defaultSessionId;
    if (id !== undefined && this.#taps.has(id) && !this.#taps.get(id)!.closed) return Promise.resolve(id);
    const key = sessionId ?? '';
    let pending = this.#tapping.get(key);
    if (!pending) {
      pending = this.#subscribe(sessionId).finally(() => this.#tapping.delete(key));
      this.#tapping.set(key, pending);
    }
    return pending;
  }

  #call(method: string, params: Record<string, unknown>): Promise<CallOutcome> {
    return this.#deps.rpc.call(method, params, { connection: this.connection, principal: this.principal });
  }

  async #subscribe(sessionId: string | undefined): Promise<string | undefined> {
    const since = this.#now();
    const subscribed = await this.#call('events.subscribe', { ...(sessionId ? { session_id: sessionId } : {}), after_seq: 0 });
    if (!subscribed.ok) return undefined;
    let id = sessionId;
    if (id === undefined) {
      // The subscription named no session: the principal's default one, which now exists.
      const listed = await this.#call('session.list', {});
      const sessions = listed.ok ? ((listed.result as { sessions: Array<{ session_id: string; name: string }> }).sessions ?? []) : [];
      id = sessions.find((session) => session.name === 'default')?.session_id;
      if (id === undefined) return undefined;
      this.#defaultSessionId = id;
    }
    const previous = this.#taps.get(id);
    if (!previous || previous.closed) this.#taps.set(id, new SessionTap(since));
    return id;
  }

  #onEvent(event: WireEvent & { subscription_id?: string }): void {
    const { subscription_id: _subscription, ...wire } = event;
    const tap = this.#taps.get(wire.session_id);
    if (!tap) return;
    tap.add(wire);
    // What was handed for a tab or session that is gone can never be acted on again.
    if (wire.kind === 'tab_closed') this.#observations.delete(`${wire.session_id}\u0000${String(wire.data['target_id'])}`);
    if (wire.kind === 'session_closed') {
      for (const key of this.#observations.keys()) if (key.startsWith(`${wire.session_id}\u0000`)) this.#observations.delete(key);
      if (this.#defaultSessionId === wire.session_id) this.#defaultSessionId = undefined;
    }
  }

  /** The session's events since the previous tool result that reported them. */
  news(sessionId: string | undefined): WireEvent[] {
    if (sessionId === undefined) return [];
    const tap = this.#taps.get(sessionId);
    if (!tap) return [];
    const news = tap.takeNews();
    if (tap.closed) this.#taps.delete(sessionId);
    return news;
  }

  /** Retained events of the session with seq above `afterSeq`. */
  events(sessionId: string | undefined, afterSeq = 0): { events: WireEvent[]; lastSeq: number } {
    const tap = sessionId === undefined ? undefined : this.#taps.get(sessionId);
    const all = tap?.events ?? [];
    return { events: all.filter((event) => event.seq > afterSeq), lastSeq: all.at(-1)?.seq ?? 0 };
  }

  /** Remembers an observation MCP handed this principal: the one a later act without state_id takes. */
  handed(observation: { session_id?: unknown; target_id?: unknown; state_id?: unknown }): void {
    const { session_id: session, target_id: target, state_id: state } = observation;
    if (typeof session === 'string' && typeof target === 'string' && typeof state === 'string') {
      this.#observations.set(`${session}\u0000${target}`, state);
    }
  }

  /** The state_id of the last observation MCP handed this principal for the tab. */
  lastHanded(sessionId: string, targetId: string): string | undefined {
    return this.#observations.get(`${sessionId}\u0000${targetId}`);
  }
}
