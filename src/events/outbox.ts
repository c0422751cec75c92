// Per-connection bounded sender for event notifications (PROTOCOL.md §9: a slow client never
// slows the browser). Writes straight through while the socket's send buffer is under the high
// watermark; above it, notifications wait in a bounded queue that a timer drains while (and only
// while) something waits. Past the queue's bounds events are dropped, droppable ones first, and
// the next notification delivered carries `dropped: N`.
//
// Neither ws nor RpcConnection offers a drain callback, hence the poll. Runtime-neutral: no node:*.
import { utf8Length } from '../util/utf8.ts';

/** `keep`: dialogs, file choosers, final download states, crash, session_closed. */
export type OutboxPriority = 'droppable' | 'keep';

/** What the outbox needs of a connection (RpcConnection has all of it). */
export interface OutboxConnection {
  /** Aborted when the socket closes: the outbox stops and forgets its queue. */
  readonly signal: AbortSignal;
  /** false when the socket is gone. */
  notify(method: string, params: unknown): boolean;
  /** Bytes written to the socket and not yet sent. */
  bufferedAmount(): number;
}

export interface OutboxNotification {
  readonly method: string;
  readonly params: Record<string, unknown>;
}

export interface OutboxOptions {
  /** Write through only while bufferedAmount() is below this (bytes). Default 1 MiB. */
  highWaterMark?: number;
  /** Past this many queued items droppable events are dropped, oldest first. Default 2000. */
  maxQueuedItems?: number;
  /** Past this many queued bytes (of JSON) droppable events are dropped, oldest first. Default 4 MiB. */
  maxQueuedBytes?: number;
  /** Past this, `keep` events are dropped too, oldest first. Default 8000 items. */
  hardMaxQueuedItems?: number;
  /** Past this, `keep` events are dropped too, oldest first. Default 16 MiB. */
  hardMaxQueuedBytes?: number;
  /** How often bufferedAmount is polled while something is queued. Default 10 ms. */
  pollIntervalMs?: number;
  /** A notification that could not be written (unserialisable params, a throwing socket). */
  onError?: (error: unknown) => void;
}

export interface OutboxStats {
  readonly queued: number;
  readonly queuedBytes: number;
  /** Dropped and not yet reported to the client by a `dropped` field. */
  readonly pendingDropped: number;
  readonly droppedTotal: number;
  readonly deliveredTotal: number;
}

export const OUTBOX_DEFAULTS = {
  highWaterMark: 1024 * 1024,
  maxQueuedItems: 2000,
  maxQueuedBytes: 4 * 1024 * 1024,
  hardMaxQueuedItems: 8000,
  hardMaxQueuedBytes: 16 * 1024 * 1024,
  pollIntervalMs: 10,
} as const;

interface QueuedItem {
  /** Enqueue order across both queues (delivery order). */
  readonly order: number;
  readonly method: string;
  readonly params: Record<string, unknown>;
  readonly bytes: number;
}

/** FIFO with O(1) shift (head index, compacted now and then). */
class Fifo {
  #items: QueuedItem[] = [];
  #head = 0;

  get length(): number {
    return this.#items.length - this.#head;
  }

  peek(): QueuedItem | undefined {
    return this.#items[this.#head];
  }

  push(item: QueuedItem): void {
    this.#items.push(item);
  }

  shift(): QueuedItem | undefined {
    const item = this.#items[this.#head];
    if (item === undefined) return undefined;
    this.#head++;
    if (this.#head === this.#items.length) {
      this.#items = [];
      this.#head = 0;
    } else if (this.#head >= 1024 && this.#head * 2 >= this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }

  /** Removes the items `test` accepts; returns them. */
  remove(test: (item: QueuedItem) => boolean): QueuedItem[] {
    const kept: QueuedItem[] = [];
    const removed: QueuedItem[] = [];
    for (let i = this.#head; i < this.#items.length; i++) {
      const item = this.#items[i]!;
      (test(item) ? removed : kept).push(item);
    }
    this.#items = kept;
    this.#head = 0;
    return removed;
  }

  clear(): void {
    this.#items = [];
    this.#head = 0;
  }
}

export class Outbox {
  readonly #connection: OutboxConnection;
  readonly #highWaterMark: number;
  readonly #maxItems: number;
  readonly #maxBytes: number;
  readonly #hardMaxItems: number;
  readonly #hardMaxBytes: number;
  readonly #pollIntervalMs: number;
  readonly #onError: (error: unknown) => void;
  readonly #droppable = new Fifo();
  readonly #keep = new Fifo();
  #queuedBytes = 0;
  #nextOrder = 0;
  #pendingDropped = 0;
  #droppedTotal = 0;
  #deliveredTotal = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;
  readonly #onAbort = () => this.close();

  constructor(connection: OutboxConnection, options: OutboxOptions = {}) {
    this.#connection = connection;
    this.#highWaterMark = options.highWaterMark ?? OUTBOX_DEFAULTS.highWaterMark;
    this.#maxItems = options.maxQueuedItems ?? OUTBOX_DEFAULTS.maxQueuedItems;
    this.#maxBytes = options.maxQueuedBytes ?? OUTBOX_DEFAULTS.maxQueuedBytes;
    this.#hardMaxItems = Math.max(this.#maxItems, options.hardMaxQueuedItems ?? OUTBOX_DEFAULTS.hardMaxQueuedItems);
    this.#hardMaxBytes = Math.max(this.#maxBytes, options.hardMaxQueuedBytes ?? OUTBOX_DEFAULTS.hardMaxQueuedBytes);
    this.#pollIntervalMs = options.pollIntervalMs ?? OUTBOX_DEFAULTS.pollIntervalMs;
    this.#onError = options.onError ?? (() => {});
    if (connection.signal.aborted) this.#closed = true;
    else connection.signal.addEventListener('abort', this.#onAbort, { once: true });
  }

  get queued(): number {
    return this.#droppable.length + this.#keep.length;
  }

  get queuedBytes(): number {
    return this.#queuedBytes;
  }

  get droppedTotal(): number {
    return this.#droppedTotal;
  }

  get deliveredTotal(): number {
    return this.#deliveredTotal;
  }

  get pendingDropped(): number {
    return this.#pendingDropped;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Whether the drain timer is armed (only while something is queued). */
  get polling(): boolean {
    return this.#timer !== undefined;
  }

  get stats(): OutboxStats {
    return {
      queued: this.queued,
      queuedBytes: this.#queuedBytes,
      pendingDropped: this.#pendingDropped,
      droppedTotal: this.#droppedTotal,
      deliveredTotal: this.#deliveredTotal,
    };
  }

  /**
   * Sends now if nothing waits and the socket keeps up; otherwise queues (and may drop).
   * Returns false only when the outbox is closed (the connection went away).
   */
  enqueue(notification: OutboxNotification, priority: OutboxPriority): boolean {
    if (this.#closed) return false;
    if (this.queued === 0 && this.#connection.bufferedAmount() < this.#highWaterMark) {
      this.#deliver(notification.method, notification.params);
      return !this.#closed;
    }
    let bytes: number;
    try {
      bytes = utf8Length(JSON.stringify(notification.params));
    } catch (error) {
      this.#countDrops(1);
      this.#onError(error);
      return true;
    }
    const item: QueuedItem = { order: this.#nextOrder++, method: notification.method, params: notification.params, bytes };
    (priority === 'keep' ? this.#keep : this.#droppable).push(item);
    this.#queuedBytes += bytes;
    this.#enforceBounds();
    this.#flush();
    return true;
  }

  /**
   * Forgets queued notifications the client no longer wants (an unsubscribed subscription's);
   * they are not counted as dropped. Returns how many went.
   */
  discard(test: (params: Record<string, unknown>) => boolean): number {
    const removed = [...this.#droppable.remove((item) => test(item.params)), ...this.#keep.remove((item) => test(item.params))];
    for (const item of removed) this.#queuedBytes -= item.bytes;
    if (this.queued === 0) this.#stopTimer();
    return removed.length;
  }

  /** Stops for good: the timer, the queue and the abort listener go. Idempotent. */
  close(): void {
    this.#closed = true;
    this.#stopTimer();
    this.#droppable.clear();
    this.#keep.clear();
    this.#queuedBytes = 0;
    this.#connection.signal.removeEventListener('abort', this.#onAbort);
  }

  #enforceBounds(): void {
    let dropped = 0;
    while ((this.queued > this.#maxItems || this.#queuedBytes > this.#maxBytes) && this.#droppable.length > 0) {
      this.#queuedBytes -= this.#droppable.shift()!.bytes;
      dropped++;
    }
    while ((this.queued > this.#hardMaxItems || this.#queuedBytes > this.#hardMaxBytes) && this.#keep.length > 0) {
      this.#queuedBytes -= this.#keep.shift()!.bytes;
      dropped++;
    }
    this.#countDrops(dropped);
  }

  #countDrops(n: number): void {
    this.#pendingDropped += n;
    this.#droppedTotal += n;
  }

  /** Writes queued items in enqueue order while the socket keeps under the watermark. */
  #flush(): void {
    while (!this.#closed && this.queued > 0) {
      if (this.#connection.signal.aborted) {
        this.close();
        return;
      }
      if (this.#connection.bufferedAmount() >= this.#highWaterMark) break;
      const item = this.#shiftOldest()!;
      this.#queuedBytes -= item.bytes;
      this.#deliver(item.method, item.params);
    }
    if (this.#closed || this.queued === 0) this.#stopTimer();
    else this.#startTimer();
  }

  #shiftOldest(): QueuedItem | undefined {
    const a = this.#droppable.peek();
    const b = this.#keep.peek();
    if (a === undefined) return this.#keep.shift();
    if (b === undefined) return this.#droppable.shift();
    return a.order < b.order ? this.#droppable.shift() : this.#keep.shift();
  }

  #deliver(method: string, params: Record<string, unknown>): void {
    const pending = this.#pendingDropped;
    let sent: boolean;
    try {
      sent = this.#connection.notify(method, pending > 0 ? withDropped(params, pending) : params);
    } catch (error) {
      this.#countDrops(1);
      this.#onError(error);
      return;
    }
    if (!sent) {
      this.close();
      return;
    }
    this.#deliveredTotal++;
    this.#pendingDropped -= pending;
  }

  #startTimer(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#flush();
    }, this.#pollIntervalMs);
    // The drain poll must never be what keeps the process alive.
    (this.#timer as { unref?: () => void }).unref?.();
  }

  #stopTimer(): void {
    if (this.#timer === undefined) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

/** `params` with `dropped` placed right after `seq` (at the end when there is no seq). */
function withDropped(params: Record<string, unknown>, dropped: number): Record<string, unknown> {
  if (!Object.hasOwn(params, 'seq')) return { ...params, dropped };
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(params)) {
    if (key === 'dropped') continue;
    out[key] = value;
    if (key === 'seq') out['dropped'] = dropped;
  }
  return out;
}
