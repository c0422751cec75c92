// A session's network log (PROTOCOL.md §13): one entry per request hop of its tabs and workers,
// kept per tab (the oldest dropped first, and counted), fed by the Network domain while the log
// records, and by the domain policy's refusals always.
import type { BlockedRequest } from '../browser/request-guard.ts';
import type { HopStart, NetworkSink } from '../browser/network-events.ts';
import type { CdpSession } from '../cdp/session.ts';
import { BoundedMap } from '../util/bounded-map.ts';
import type { NetworkEntry } from '../wire/index.ts';

/** PROTOCOL.md §12: entries kept per tab, and for the workers of a session. */
export const ENTRIES_PER_TAB = 500;
/** Closed tabs whose entries stay listed (a popup that closed itself, an OAuth window). */
const CLOSED_TABS_KEPT = 8;
/** The ring of requests that belong to no tab: service workers, shared workers, the WebSocket proxy. */
const NO_TAB = '';

interface Ring {
  readonly entries: NetworkEntry[];
  dropped: number;
}

interface Live {
  readonly entry: NetworkEntry;
  readonly ring: Ring;
  /** Monotonic seconds at its start (NaN until known). */
  start: number;
}

export interface NetworkLogOptions {
  /** The tab a target session belongs to (its target id), or undefined for a worker. */
  tabOf(session: CdpSession): string | undefined;
  /** The URL as the log shows it (redacted). */
  showUrl(url: string): string;
  /** Called with each entry once it has finished or failed. */
  completed?(entry: NetworkEntry): void;
  perTab?: number;
  now?: () => number;
}

export interface NetworkListing {
  entries: NetworkEntry[];
  last_seq: number;
  dropped: number;
}

export class NetworkLog implements NetworkSink {
  readonly #options: NetworkLogOptions;
  readonly #perTab: number;
  readonly #rings = new Map<string, Ring>();
  readonly #closed: string[] = [];
  /** Hops not yet finished, by CDP request id (the Network domain's and Fetch's `networkId`). */
  readonly #live = new Map<string, Live>();
  /** Refusals whose request the Network domain has not announced yet, by request id. */
  readonly #refusedEarly: BoundedMap<string, string>;
  #seq = 0;

  constructor(options: NetworkLogOptions) {
    this.#options = options;
    this.#perTab = options.perTab ?? ENTRIES_PER_TAB;
    this.#refusedEarly = new BoundedMap(this.#perTab);
  }

  get lastSeq(): number {
    return this.#seq;
  }

  // ---- the Network domain ----

  started(session: CdpSession, hop: HopStart): void {
    const entry = this.#add(this.#options.tabOf(session), {
      method: hop.method,
      url: hop.url,
      resourceType: hop.resourceType,
      frameId: hop.frameId,
      time: hop.wallTime,
    });
    const live: Live = { entry, ring: this.#ringOf(entry.target_id), start: hop.timestamp };
    this.#live.set(hop.requestId, live);
    const rule = this.#refusedEarly.get(hop.requestId);
    if (rule !== undefined) {
      this.#refusedEarly.delete(hop.requestId);
      entry.blocked_by = rule;
    }
  }

  timed(_session: CdpSession, requestId: string, timestamp: number): void {
    const live = this.#live.get(requestId);
    if (live && Number.isNaN(live.start)) live.start = timestamp;
  }

  responded(_session: CdpSession, requestId: string, status: number): void {
    const live = this.#live.get(requestId);
    if (live) live.entry.status = status;
  }

  finished(_session: CdpSession, requestId: string, end: { timestamp: number; bytes?: number; status?: number }): void {
    const live = this.#take(requestId);
    if (!live) return;
    const { entry } = live;
    entry.state = 'finished';
    if (end.status !== undefined) entry.status = end.status;
    if (end.bytes !== undefined && end.bytes >= 0) entry.bytes = end.bytes;
    this.#timeOf(live, end.timestamp);
    this.#options.completed?.(entry);
  }

  failed(_session: CdpSession, requestId: string, end: { timestamp: number; errorText: string }): void {
    const live = this.#take(requestId);
    if (!live) return;
    const { entry } = live;
    entry.state = 'failed';
    entry.failure = entry.blocked_by !== undefined ? 'blocked' : end.errorText || 'failed';
    this.#timeOf(live, end.timestamp);
    this.#options.completed?.(entry);
  }

  // ---- the domain policy ----

  /** A request the browser's interception refused. Recorded whether or not the log records. */
  blocked(request: BlockedRequest, recording: boolean): void {
    const live = request.networkId !== undefined ? this.#live.get(request.networkId) : undefined;
    if (live) {
      // The Network domain's own failure (ERR_BLOCKED_BY_CLIENT) follows and ends it.
      live.entry.blocked_by = request.rule;
      return;
    }
    if (recording && request.networkId !== undefined) {
      // Fetch paused it before the Network domain announced it: its announcement takes the rule.
      this.#refusedEarly.set(request.networkId, request.rule);
      return;
    }
    const entry = this.#add(this.#options.tabOf(request.session), {
      method: request.method,
      url: request.url,
      resourceType: request.resourceType,
      frameId: request.frameId,
      time: this.#now(),
    });
    entry.state = 'failed';
    entry.failure = 'blocked';
    entry.blocked_by = request.rule;
    this.#options.completed?.(entry);
  }

  /**
   * A connection the context's proxy refused: it saw only a host and a port. A WebSocket of that
   * host and port still waiting for its handshake takes the rule; otherwise it is an entry of its own.
   */
  refusedConnection(host: string, port: number, rule: string): void {
    const authority = `${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${port}`;
    for (const live of this.#live.values()) {
      const { entry } = live;
      if (entry.resource_type !== 'websocket' || entry.blocked_by !== undefined) continue;
      if (authorityOf(entry.url) === authority) {
        entry.blocked_by = rule;
        return;
      }
    }
    const entry = this.#add(undefined, {
      method: 'CONNECT',
      url: authority,
      resourceType: 'Other',
      frameId: undefined,
      time: this.#now(),
      raw: true,
    });
    entry.state = 'failed';
    entry.failure = 'blocked';
    entry.blocked_by = rule;
    this.#options.completed?.(entry);
  }

  /** The rule of the tab's most recent refused document request (a navigation or a redirect hop). */
  lastBlockedDocument(targetId: string): string | undefined {
    const entries = this.#rings.get(targetId)?.entries ?? [];
    for (let i = entries.length - 1; i >= 0; i--) {
      const entry = entries[i]!;
      if (entry.resource_type === 'document' && entry.blocked_by !== undefined) return entry.blocked_by;
    }
    return undefined;
  }

  // ---- tabs and listing ----

  /** A closed tab's entries stay listed for a while (the last few closed tabs). */
  tabClosed(targetId: string): void {
    if (!this.#rings.has(targetId)) return;
    this.#closed.push(targetId);
    while (this.#closed.length > CLOSED_TABS_KEPT) {
      const key = this.#closed.shift()!;
      const ring = this.#rings.get(key);
      this.#rings.delete(key);
      for (const [id, live] of this.#live) if (live.ring === ring) this.#live.delete(id);
    }
  }

  /** Entries after `since`, oldest first; a tab's only with `targetId`, otherwise every tab's and worker's. */
  list(options: { targetId?: string; since?: number } = {}): NetworkListing {
    const since = options.since ?? 0;
    const rings = options.targetId !== undefined
      ? [this.#rings.get(options.targetId)].filter((r): r is Ring => r !== undefined)
      : [...this.#rings.values()];
    const entries = rings.flatMap((ring) => ring.entries.filter((entry) => entry.seq > since)).sort((a, b) => a.seq - b.seq);
    return {
      entries: entries.map((entry) => ({ ...entry })),
      last_seq: this.#seq,
      dropped: rings.reduce((sum, ring) => sum + ring.dropped, 0),
    };
  }

  // ---- inside ----

  #now(): number {
    return (this.#options.now ?? Date.now)();
  }

  #ringOf(targetId: string | undefined): Ring {
    const key = targetId ?? NO_TAB;
    let ring = this.#rings.get(key);
    if (!ring) {
      ring = { entries: [], dropped: 0 };
      this.#rings.set(key, ring);
    }
    return ring;
  }

  #add(
    targetId: string | undefined,
    init: { method: string; url: string; resourceType: string; frameId: string | undefined; time: number; raw?: boolean },
  ): NetworkEntry {
    const entry: NetworkEntry = {
      seq: ++this.#seq,
      ...(targetId !== undefined ? { target_id: targetId } : {}),
      ...(init.frameId !== undefined ? { frame_id: init.frameId } : {}),
      method: init.method,
      url: init.raw ? init.url : this.#options.showUrl(init.url),
      resource_type: init.resourceType.toLowerCase(),
      state: 'pending',
      time: Math.round(init.time),
    };
    const ring = this.#ringOf(targetId);
    ring.entries.push(entry);
    while (ring.entries.length > this.#perTab) {
      const evicted = ring.entries.shift()!;
      ring.dropped++;
      for (const [id, live] of this.#live) if (live.entry === evicted) this.#live.delete(id);
    }
    return entry;
  }

  #take(requestId: string): Live | undefined {
    const live = this.#live.get(requestId);
    if (live) this.#live.delete(requestId);
    return live;
  }

  #timeOf(live: Live, end: number): void {
    if (Number.isFinite(live.start) && Number.isFinite(end) && end >= live.start) {
      live.entry.duration_ms = Math.round((end - live.start) * 10_000) / 10;
    }
  }
}

/** `host:port` of a ws:// or wss:// URL as the log shows it. */
function authorityOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    const port = parsed.port || (parsed.protocol === 'wss:' ? '443' : '80');
    return `${parsed.hostname}:${port}`;
  } catch {
    return undefined;
  }
}
