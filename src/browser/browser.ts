// The browser as pagewire sees it: one CDP connection, auto-attached page targets (so popups
// are tracked and paused until their Page domain is on), isolated browser contexts for
// sessions, and tabs with their out-of-process iframes.
import type { AttachedSession, Connection } from '../cdp/connection.ts';
import { isCdpError } from '../cdp/errors.ts';
import { Deadline } from '../util/deadline.ts';
import { DisposableStack } from '../util/disposable.ts';
import { Emitter } from '../util/emitter.ts';
import { IsolatedWorlds } from './isolated-worlds.ts';
import { type BrowserPlatform, platformOfUserAgent } from './platform.ts';
import { type ContextSetup, type PendingCalls, Tab } from './tab.ts';

export interface BrowserEvents extends Record<string, unknown> {
  tabCreated: Tab;
  tabClosed: { tab: Tab; reason: string };
  tabCrashed: { tab: Tab; status: string };
  disconnected: { reason: string };
}

export interface BrowserVersion {
  product: string;
  userAgent: string;
  protocolVersion: string;
}

/** Targets that run scripts and make requests without being a page or a frame. */
const WORKER_TYPES: ReadonlySet<string> = new Set(['worker', 'service_worker', 'shared_worker']);

export class Browser {
  readonly connection: Connection;
  readonly events = new Emitter<BrowserEvents>();
  readonly version: BrowserVersion;
  /** The system the browser runs on, whose keyboard conventions input follows. */
  readonly platform: BrowserPlatform;
  /** Our isolated-world contexts, per frame document of any tab. */
  readonly worlds = new IsolatedWorlds();
  readonly #tabs = new Map<string, Tab>();
  /** CDP sessionId → the tab whose page or iframe it belongs to. */
  readonly #sessionTabs = new Map<string, Tab>();
  readonly #disposables = new DisposableStack();
  /**
   * The tab last brought to front in each window, until another tab appears there (which may take
   * its front). Headless Chromium gives each browser context a window of its own, so sessions do
   * not hide each other's tabs (docs/observation.md); a headed browser has one focused window, so
   * there every tab shares one front.
   */
  readonly #front = new Map<string, string>();
  /** Headless Chromium says so in its own user agent (a browser reached with a user agent of its own counts as headed: one front). */
  readonly #headless: boolean;
  /** Per browser context: what every new target of that context gets before it runs. */
  readonly #contextSetup = new Map<string, ContextSetup>();
  #sharedWorkersAttached = false;
  readonly #pendingCalls: PendingCalls = {
    mark: () => this.connection.callMark(),
    failBefore: (sessionId, mark) => this.connection.failPending(sessionId, 'the page crashed', { sentBefore: mark }),
  };

  private constructor(connection: Connection, version: BrowserVersion) {
    this.connection = connection;
    this.version = version;
    this.platform = platformOfUserAgent(version.userAgent);
    this.#headless = version.userAgent.includes('HeadlessChrome');
    this.#disposables.add(connection.onAttached((attached) => this.#onAttached(attached)));
    const root = connection.root;
    this.#disposables.add(
      root.on('Target.targetInfoChanged', ({ targetInfo }) => this.#tabs.get(targetInfo.targetId)?.updateInfo(targetInfo)),
    );
    this.#disposables.add(root.on('Target.targetDestroyed', ({ targetId }) => this.#dropTab(targetId, 'target destroyed')));
    this.#disposables.add(
      root.on('Target.targetCrashed', ({ targetId, status }) => {
        const tab = this.#tabs.get(targetId);
        if (!tab) return;
        tab.reportCrash('browser');
        this.events.emit('tabCrashed', { tab, status });
      }),
    );
    void connection.closed.then((reason) => {
      for (const id of [...this.#tabs.keys()]) this.#dropTab(id, reason);
      this.#disposables.dispose();
      this.events.emit('disconnected', { reason });
    });
  }

  static async start(connection: Connection): Promise<Browser> {
    const root = connection.root;
    const version = await root.send('Browser.getVersion');
    const browser = new Browser(connection, {
      product: version.product,
      userAgent: version.userAgent,
      protocolVersion: version.protocolVersion,
    });
    await Promise.all([
      // Headless "default" downloads land in ~/Downloads (CDP-NOTES §6): deny until a session
      // gives its own folder.
      // eventsEnabled is per connection: every setDownloadBehavior call must keep it on.
      root.send('Browser.setDownloadBehavior', { behavior: 'deny', eventsEnabled: true }),
      root.send('Target.setDiscoverTargets', { discover: true, filter: [{ type: 'page' }] }),
      root.send('Target.setAutoAttach', {
        autoAttach: true,
        waitForDebuggerOnStart: true,
        flatten: true,
        filter: [{ type: 'page' }],
      }),
    ]);
    return browser;
  }

  get isConnected(): boolean {
    return !this.connection.isClosed;
  }

  tab(targetId: string): Tab | undefined {
    return this.#tabs.get(targetId);
  }

  tabs(): Tab[] {
    return [...this.#tabs.values()];
  }

  tabsInContext(browserContextId: string): Tab[] {
    return this.tabs().filter((tab) => tab.browserContextId === browserContextId);
  }

  /** `proxy`: the context's traffic (or part of it, by the bypass list) goes through that proxy. */
  async createContext(proxy?: { server: string; bypassList: string }): Promise<string> {
    const { browserContextId } = await this.connection.root.send('Target.createBrowserContext', {
      disposeOnDetach: true,
      ...(proxy ? { proxyServer: proxy.server, proxyBypassList: proxy.bypassList } : {}),
    });
    return browserContextId;
  }

  /**
   * Shared workers belong to no page: only the browser session can attach them. Asked for once
   * the first context needs them (their requests are intercepted on their own sessions).
   */
  async attachSharedWorkers(): Promise<void> {
    if (this.#sharedWorkersAttached) return;
    this.#sharedWorkersAttached = true;
    await this.connection.root.send('Target.setAutoAttach', {
      autoAttach: true,
      waitForDebuggerOnStart: true,
      flatten: true,
      filter: [{ type: 'page' }, { type: 'shared_worker' }],
    });
  }

  /** The tab a page or iframe session belongs to. */
  tabOfSession(sessionId: string): Tab | undefined {
    return this.#sessionTabs.get(sessionId);
  }

  /** Makes the tab visible and focused (input and focus checks need it); skipped when it is. */
  /** Whether `tab` is the one this server last brought to front (bringToFront has nothing to do). */
  isFront(tab: Tab): boolean {
    return this.#front.get(this.#windowOf(tab.browserContextId)) === tab.targetId;
  }

  async bringToFront(tab: Tab): Promise<void> {
    if (this.isFront(tab)) return;
    // The browser's own command, not the page's Page.bringToFront: a crashed renderer holds every
    // command sent to its page until the next navigation, and then fails it ("Target crashed"),
    // which made a recovering navigate fail.
    await this.connection.root.send('Target.activateTarget', { targetId: tab.targetId });
    this.#front.set(this.#windowOf(tab.browserContextId), tab.targetId);
  }

  /** Which front a tab of `browserContextId` competes for (see #front). */
  #windowOf(browserContextId: string | undefined): string {
    return this.#headless ? browserContextId ?? '' : '';
  }

  setContextSetup(browserContextId: string, setup: ContextSetup): void {
    this.#contextSetup.set(browserContextId, setup);
  }

  async disposeContext(browserContextId: string): Promise<void> {
    this.#contextSetup.delete(browserContextId);
    try {
      await this.connection.root.send('Target.disposeBrowserContext', { browserContextId });
    } catch (error) {
      if (!(isCdpError(error) && (error.kind === 'closed' || error.kind === 'protocol'))) throw error;
    }
  }

  /**
   * Opens about:blank in the context and resolves once its session is attached and ready. Another
   * `about:` URL is what the context setup sees the target attach with (a marker for a helper tab).
   */
  async newTab(browserContextId: string, deadline: Deadline, url = 'about:blank'): Promise<Tab> {
    const attachedTab = this.#waitForTab(deadline);
    const { targetId } = await deadline.race(
      this.connection.root.send('Target.createTarget', { url, browserContextId }),
      'Target.createTarget',
    );
    const tab = this.#tabs.get(targetId) ?? (await attachedTab(targetId));
    await deadline.race(tab.ready, 'tab start-up');
    return tab;
  }

  async closeTab(targetId: string, deadline: Deadline): Promise<void> {
    const tab = this.#tabs.get(targetId);
    if (!tab) return;
    const closed = new Promise<void>((resolve) => tab.events.on('closed', () => resolve()));
    await deadline.race(this.connection.root.send('Target.closeTarget', { targetId }), 'Target.closeTarget');
    await deadline.race(closed, 'tab close');
  }

  /** Asks the browser to exit (Browser.close); the caller still kills the process after. */
  async close(deadline: Deadline): Promise<void> {
    if (!this.isConnected) return;
    try {
      await deadline.race(this.connection.root.send('Browser.close'), 'Browser.close');
    } catch {
      // The process owner kills the browser anyway; a failed polite close is not an error.
    }
  }

  counts(): { tabs: number; cdpSessions: number; cdpListeners: number; pendingCdpCalls: number } {
    return {
      tabs: this.#tabs.size,
      cdpSessions: this.connection.sessionCount,
      cdpListeners: this.connection.listenerCount(),
      pendingCdpCalls: this.connection.pendingCount,
    };
  }

  #waitForTab(deadline: Deadline): (targetId: string) => Promise<Tab> {
    // Subscribe before createTarget is sent: the attach event can arrive before its reply.
    const seen: Tab[] = [];
    const waiters: Array<(tab: Tab) => void> = [];
    const subscription = this.events.on('tabCreated', (tab) => {
      seen.push(tab);
      for (const waiter of waiters) waiter(tab);
    });
    return (targetId) => {
      const early = seen.find((tab) => tab.targetId === targetId);
      const wait = early
        ? Promise.resolve(early)
        : new Promise<Tab>((resolve) => waiters.push((tab) => tab.targetId === targetId && resolve(tab)));
      return deadline.race(wait, 'tab attach').finally(() => subscription.dispose());
    };
  }

  #onAttached(attached: AttachedSession): void {
    const { session, targetInfo, parent } = attached;
    if (targetInfo.type === 'page' && parent === this.connection.root) {
      const setup = targetInfo.browserContextId ? this.#contextSetup.get(targetInfo.browserContextId) : undefined;
      const tab = new Tab(attached, { ...(setup ? { context: setup } : {}), pendingCalls: this.#pendingCalls });
      this.#tabs.set(tab.targetId, tab);
      this.#sessionTabs.set(session.id, tab);
      tab.events.on('closed', ({ reason }) => {
        this.#sessionTabs.delete(session.id);
        if (this.#tabs.get(tab.targetId) === tab) this.#tabs.delete(tab.targetId);
        this.events.emit('tabClosed', { tab, reason });
      });
      this.#front.delete(this.#windowOf(tab.browserContextId)); // a new tab may have taken its window's front
      this.events.emit('tabCreated', tab);
      return;
    }
    const owner = this.#sessionTabs.get(parent.id);
    if (targetInfo.type === 'iframe' && owner) {
      this.#sessionTabs.set(session.id, owner);
      session.onDetached(() => this.#sessionTabs.delete(session.id));
      owner.adoptFrameSession(attached);
      return;
    }
    // Anything else that got attached (a worker, say) must not stay paused; we do not drive it,
    // but its context may want its requests watched first (pipelined before it runs).
    const context = targetInfo.browserContextId ? this.#contextSetup.get(targetInfo.browserContextId) : undefined;
    const steps = context && WORKER_TYPES.has(targetInfo.type) ? context.setup(session, targetInfo.type, targetInfo.url) : [];
    for (const step of steps) step.catch(() => {});
    if (attached.waitingForDebugger) session.send('Runtime.runIfWaitingForDebugger').catch(() => {});
  }

  #dropTab(targetId: string, reason: string): void {
    this.#tabs.get(targetId)?.markClosed(reason);
  }
}
