// A pagewire session: one isolated browser context (own cookies, storage, cache), its tabs, the
// selection, and the queue that runs its calls one at a time.
import type { Browser } from '../browser/browser.ts';
import type { FrameRecord } from '../browser/frame-tree.ts';
import type { Tab } from '../browser/tab.ts';
import { ServerError } from '../errors.ts';
import { EventLog } from '../events/event-log.ts';
import { RefRegistry } from '../observe/refs.ts';
import { StateStore } from '../observe/state-store.ts';
import type { DomainPolicyInit, PolicyChain } from './domain-policy.ts';
import { type KnownSecret, redactKnown, redactSecrets, redactUrl } from '../util/redact.ts';
import { randomId } from '../util/ids.ts';
import { secretForms } from '../util/secrets.ts';
import { type FrameReadCounts, type ReadCounts, TabReader } from '../observe/tab-reader.ts';
import { SerialQueue } from '../util/serial-queue.ts';
import { BoundedMap } from '../util/bounded-map.ts';
import type { Observation } from '../wire/index.ts';
import { SessionTraffic } from './session-traffic.ts';
import { TraceRecorder, type TraceSpill } from './trace-recorder.ts';

export type DialogPolicy = 'hold' | 'accept' | 'dismiss';

export interface SessionOptions {
  name: string;
  viewport?: { width: number; height: number } | undefined;
  dialogs: DialogPolicy;
  userAgent?: string | undefined;
  /** The session's own domain rules, narrowing the server's. */
  policy?: DomainPolicyInit | undefined;
  /** The endpoint the client asked for (a URL: it may carry a farm's token, so it is never shown). */
  endpointUrl?: string | undefined;
  /** Record from the first call (session.create `trace`, PROTOCOL.md §16). */
  trace?: boolean | undefined;
}

/** Where a session's trace keeps its screenshots, and how many. */
export interface TraceStorage {
  spill: TraceSpill;
  maxFrames?: number | undefined;
}

/** How many cut observations a session keeps the rest of (PROTOCOL.md §6). */
const CUT_OBSERVATIONS_KEPT = 16;

export class Session {
  readonly id: string;
  readonly name: string;
  readonly principalId: string;
  readonly createdAt: number;
  readonly options: SessionOptions;
  readonly browser: Browser;
  readonly browserContextId: string;
  /** The id of the endpoint the session's browser is (PROTOCOL.md §1); undefined on a launched browser. */
  readonly endpoint: string | undefined;
  readonly queue = new SerialQueue();
  /** Every observation this session issued (one current per tab). */
  readonly states = new StateStore();
  /**
   * The observations answered in parts (max_bytes), whole, by state id: what a cursor reads on
   * (PROTOCOL.md §6, "Budgets and cursors"). The newest are kept; an older cursor is refused.
   */
  readonly cutObservations = new BoundedMap<string, Observation>(CUT_OBSERVATIONS_KEPT);
  /**
   * Text typed into password fields through act, and the values of secrets act typed: hidden from
   * every later observation, with every beginning of them (a page may echo a field as it is typed).
   */
  readonly secrets = new Set<string>();
  /** Every form of every configured secret's value: hidden wherever it appears whole. */
  readonly #secretForms: readonly KnownSecret[];
  /** The session's numbered events (PROTOCOL.md §9), retained for replay. Nothing secret enters it. */
  readonly events = new EventLog({ sessionId: () => this.id, scrub: (text) => redactKnown(text, this.knownSecrets()) });
  /** The domain policy in its browser context, and its network log. */
  readonly traffic: SessionTraffic;
  /** The record of the session's calls, when one is asked for (PROTOCOL.md §16); disposed with the session. */
  readonly trace: TraceRecorder;
  /** Subscriptions that asked for `network` events. */
  #networkSubscribers = 0;
  /** Set by the first events.poll that named `network` (keepNetworkEvents). */
  #networkForPolls: (() => void) | undefined;
  /**
   * The URL the session's storage helper tab opens with: unguessable, so no page can open a tab
   * that passes for it. Such tabs are the server's own: not listed, no events.
   */
  readonly storageHelperUrl = `about:blank#${randomId('pagewire-storage-')}`;
  readonly #internalTabs = new Set<string>();
  /** Origins the session's tabs showed as their top-level document, oldest first (storage_state). */
  readonly #origins = new Set<string>();
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
    endpoint?: string | undefined;
    now: number;
    policy: PolicyChain;
    /** Forms of the configured secrets' values (SecretStore.forms). */
    secretForms?: readonly string[];
    readTotals?: ReadCounts;
    trace: TraceStorage;
  }) {
    this.id = init.id;
    this.name = init.options.name;
    this.principalId = init.principalId;
    this.options = init.options;
    this.browser = init.browser;
    this.browserContextId = init.browserContextId;
    this.endpoint = init.endpoint;
    this.createdAt = init.now;
    this.lastUsedAt = init.now;
    this.#readTotals = init.readTotals;
    this.#secretForms = (init.secretForms ?? []).map((exact) => ({ exact }));
    this.trace = new TraceRecorder({
      sessionId: init.id,
      events: this.events,
      spill: init.trace.spill,
      ...(init.trace.maxFrames !== undefined ? { maxFrames: init.trace.maxFrames } : {}),
      viewport: init.options.viewport,
      scrubber: () => {
        const known = this.knownSecrets();
        return (text) => redactSecrets(text, known);
      },
    });
    if (init.options.trace) this.trace.start();
    this.traffic = new SessionTraffic({
      browser: init.browser,
      policy: init.policy,
      tabs: () => this.tabs(),
      showUrl: (url) => redactKnown(redactUrl(url), this.knownSecrets()),
      helperUrl: this.storageHelperUrl,
      completed: (entry) => {
        if (this.#networkSubscribers > 0) {
          this.events.publish({
            kind: 'network',
            ...(entry.target_id ? { target_id: entry.target_id } : {}),
            ...(entry.frame_id ? { frame_id: entry.frame_id } : {}),
            data: entry,
          });
        }
      },
    });
  }

  /**
   * What redaction hides in this session: typed secrets (and their beginnings, in every form a page
   * may echo them: a URL path is percent-encoded), configured values (whole).
   */
  knownSecrets(): KnownSecret[] {
    if (this.secrets.size === 0) return [...this.#secretForms];
    return [...new Set([...this.secrets].flatMap(secretForms)), ...this.#secretForms];
  }

  /**
   * A subscription wants `network` events: the log records from now on, and each finished request
   * is published. Returns what ends that wish.
   */
  wantNetworkEvents(): () => void {
    this.#networkSubscribers++;
    void this.traffic.startRecording();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.#networkSubscribers--;
    };
  }

  /**
   * `network` events from now until the session closes: an events.poll that names them holds
   * nothing open that could say when the wish ends. Idempotent.
   */
  keepNetworkEvents(): void {
    this.#networkForPolls ??= this.wantNetworkEvents();
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

  /** The session's tabs in the order the browser created them (not its storage helper). */
  tabs(): Tab[] {
    return this.browser.tabsInContext(this.browserContextId).filter((tab) => !tab.closed && !this.#internalTabs.has(tab.targetId));
  }

  /** Whether `tab`, as it attaches, is the session's own helper (and remembers it as such). */
  claimInternal(tab: Tab): boolean {
    if (this.#internalTabs.has(tab.targetId)) return true;
    if (tab.url !== this.storageHelperUrl) return false;
    this.#internalTabs.add(tab.targetId);
    tab.events.on('closed', () => this.#internalTabs.delete(tab.targetId));
    return true;
  }

  /** Whether a CDP session is the storage helper's (the trace keeps only its methods). */
  isHelperCdpSession(cdpSessionId: string): boolean {
    for (const targetId of this.#internalTabs) if (this.browser.tab(targetId)?.session.id === cdpSessionId) return true;
    return false;
  }

  /** A top-level document of this origin was shown (http(s) only); the last 200 are kept. */
  rememberOrigin(url: string): void {
    let origin: string;
    try {
      const parsed = new URL(url);
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return;
      origin = parsed.origin;
    } catch {
      return;
    }
    this.#origins.delete(origin);
    this.#origins.add(origin);
    if (this.#origins.size > 200) this.#origins.delete(this.#origins.values().next().value!);
  }

  origins(): string[] {
    return [...this.#origins];
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

  /** How each open tab of the session was read since it opened (server.info `diagnostics.tab_reads`). */
  tabReadCounts(): Array<{ targetId: string; counts: FrameReadCounts }> {
    return [...this.#perTab].map(([targetId, { reader }]) => ({ targetId, counts: reader.counts.snapshot() }));
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
