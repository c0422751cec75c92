// A pagewire session: one isolated browser context (own cookies, storage, cache), its tabs, the
// selection, and the queue that runs its calls one at a time.
import type { Browser } from '../browser/browser.ts';
import type { FrameRecord } from '../browser/frame-tree.ts';
import type { Tab } from '../browser/tab.ts';
import { ServerError } from '../errors.ts';
import { EventLog } from '../events/event-log.ts';
import { RefRegistry } from '../observe/refs.ts';
import { StateStore } from '../observe/state-store.ts';
import { type ReadCounts, TabReader } from '../observe/tab-reader.ts';
import { SerialQueue } from '../util/serial-queue.ts';

export type DialogPolicy = 'hold' | 'accept' | 'dismiss';

export interface SessionOptions {
  name: string;
  viewport?: { width: number; height: number } | undefined;
  dialogs: DialogPolicy;
  userAgent?: string | undefined;
}

export class Session {
  readonly id: string;
  readonly name: string;
  readonly principalId: string;
  readonly createdAt: number;
  readonly options: SessionOptions;
  readonly browser: Browser;
  readonly browserContextId: string;
  readonly queue = new SerialQueue();
  /** Every observation this session issued (one current per tab). */
  readonly states = new StateStore();
  /** Text typed into password fields through act: hidden from every later observation. */
  readonly secrets = new Set<string>();
  /** The session's numbered events (PROTOCOL.md §9), retained for replay. */
  readonly events = new EventLog({ sessionId: () => this.id });
  /** What the session keeps of each of its tabs: refs and reading state, dropped when the tab closes. */
  readonly #perTab = new Map<string, { refs: RefRegistry; reader: TabReader }>();
  /** The server's frame-read counters, which every tab's reader adds to. */
  readonly #readTotals: ReadCounts | undefined;
  /** Connections that used this session and are still open (for `session.list` clients). */
  readonly clients = new Set<string>();
  lastUsedAt: number;
  #selectedTargetId: string | undefined;
  /** target_id → selected frame_id; absent means the main frame. */
  readonly #selectedFrames = new Map<string, string>();
  /** Aborted by session.close (and cancel, per operation). */
  readonly #closeController = new AbortController();

  constructor(init: {
    id: string;
    principalId: string;
    options: SessionOptions;
    browser: Browser;
    browserContextId: string;
    now: number;
    readTotals?: ReadCounts;
  }) {
    this.id = init.id;
    this.name = init.options.name;
    this.principalId = init.principalId;
    this.options = init.options;
    this.browser = init.browser;
    this.browserContextId = init.browserContextId;
    this.createdAt = init.now;
    this.lastUsedAt = init.now;
    this.#readTotals = init.readTotals;
  }

  get closed(): boolean {
    return this.#closeController.signal.aborted;
  }

  get closeSignal(): AbortSignal {
    return this.#closeController.signal;
  }

  #running: AbortController | undefined;

  /**
   * Starts the session's one running operation: its signal aborts on cancel or session close.
   * Call `end` when the operation is over.
   */
  beginOperation(): { signal: AbortSignal; end(): void } {
    const controller = new AbortController();
    const onClose = () => controller.abort(this.#closeController.signal.reason);
    if (this.closed) controller.abort(this.#closeController.signal.reason);
    else this.#closeController.signal.addEventListener('abort', onClose, { once: true });
    this.#running = controller;
    return {
      signal: controller.signal,
      end: () => {
        this.#closeController.signal.removeEventListener('abort', onClose);
        if (this.#running === controller) this.#running = undefined;
      },
    };
  }

  /** Aborts the running operation; false when nothing runs. */
  cancelRunning(): boolean {
    const running = this.#running;
    if (!running || running.signal.aborted) return false;
    running.abort(new ServerError('operation_cancelled', 'cancelled by a client'));
    return true;
  }

  markClosed(reason: string): void {
    this.#closeController.abort(new ServerError('operation_cancelled', `the session was closed (${reason})`));
  }

  /** The session's tabs in the order the browser created them. */
  tabs(): Tab[] {
    return this.browser.tabsInContext(this.browserContextId).filter((tab) => !tab.closed);
  }

  get selectedTargetId(): string | undefined {
    const tabs = this.tabs();
    if (this.#selectedTargetId && tabs.some((tab) => tab.targetId === this.#selectedTargetId)) return this.#selectedTargetId;
    // The selected tab closed: fall back to the first tab we opened (never to a popup's opener
    // by surprise: document order of creation is the only rule).
    this.#selectedTargetId = tabs[0]?.targetId;
    return this.#selectedTargetId;
  }

  /** The tab's ref registry (stable refs across observations of its documents). */
  refsFor(tab: Tab): RefRegistry {
    return this.#stateOf(tab).refs;
  }

  /** The tab's reading state (observer.ts): created with its first observation, disposed when it closes. */
  readerFor(tab: Tab): TabReader {
    return this.#stateOf(tab).reader;
  }

  #stateOf(tab: Tab): { refs: RefRegistry; reader: TabReader } {
    let state = this.#perTab.get(tab.targetId);
    if (!state) {
      const created = { refs: new RefRegistry(), reader: new TabReader(this.#readTotals ? { totals: this.#readTotals } : {}) };
      state = created;
      this.#perTab.set(tab.targetId, created);
      // A closed tab takes its refs, reads and states with it.
      tab.events.on('closed', () => {
        if (this.#perTab.get(tab.targetId) === created) this.#perTab.delete(tab.targetId);
        created.reader.dispose();
        this.states.dropTab(tab.targetId);
      });
    }
    return state;
  }

  select(targetId: string): void {
    this.#selectedTargetId = targetId;
  }

  /** An explicit target_id must exist in this session; omitted means the selected tab. */
  resolveTab(targetId: string | undefined): Tab {
    const id = targetId ?? this.selectedTargetId;
    const tab = id ? this.browser.tab(id) : undefined;
    if (!tab || tab.closed || tab.browserContextId !== this.browserContextId) {
      throw new ServerError(
        'target_not_found',
        targetId ? `no open tab ${targetId} in this session` : 'this session has no open tab',
        { details: targetId ? { target_id: targetId } : {} },
      );
    }
    return tab;
  }

  /** An explicit frame_id must be a live frame of that tab; omitted means its selected frame. */
  resolveFrame(tab: Tab, frameId: string | undefined): FrameRecord {
    const explicit = frameId !== undefined;
    const id = frameId ?? this.#selectedFrames.get(tab.targetId) ?? tab.mainFrameId;
    const frame = tab.frames.get(id);
    if (!frame) {
      if (!explicit) {
        // The selected frame went away: the selection returns to the main frame.
        this.#selectedFrames.delete(tab.targetId);
        const main = tab.frames.get(tab.mainFrameId);
        if (main) return main;
      }
      throw new ServerError('frame_not_found', `no frame ${id} in tab ${tab.targetId}`, {
        details: { frame_id: id, target_id: tab.targetId },
      });
    }
    return frame;
  }

  selectFrame(tab: Tab, frameId: string): void {
    if (frameId === tab.mainFrameId) this.#selectedFrames.delete(tab.targetId);
    else this.#selectedFrames.set(tab.targetId, frameId);
  }

  selectedFrameId(tab: Tab): string {
    return this.resolveFrame(tab, undefined).id;
  }
}
