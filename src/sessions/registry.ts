// All sessions of the server: creation (each its own browser context), lookup with ownership
// checks, the principal's lazy `default` session, idle expiry, and closing on browser loss.
import type { CdpSession } from '../cdp/session.ts';
import { ServerError } from '../errors.ts';
import { Deadline } from '../util/deadline.ts';
import { DomainPolicy, PolicyChain, type Verdict } from './domain-policy.ts';
import type { SecretStore } from '../util/secrets.ts';
import { BoundedMap } from '../util/bounded-map.ts';
import { Emitter } from '../util/emitter.ts';
import { instanceOf, randomId } from '../util/ids.ts';
import { ReadCounts } from '../observe/tab-reader.ts';
import type { BrowserHost } from './browser-host.ts';
import type { Disposable } from '../util/disposable.ts';
import type { SessionDownloads } from './session-downloads.ts';
import { watchSessionEvents } from './session-events.ts';
import { Session, type SessionOptions } from './session.ts';
import type { TraceSpill } from './trace-recorder.ts';
import { type StorageStateInput, writeStorageState } from './storage-state.ts';

export const DEFAULT_SESSION_NAME = 'default';
/** The close reason of sessions whose browser died under them. */
const BROWSER_GONE = 'browser_gone';

/** A proxy that carries (part of) one browser context's traffic and checks every connection. */
export interface ContextProxy {
  /** For Target.createBrowserContext's proxyServer (`socks5://127.0.0.1:PORT`). */
  readonly url: string;
  close(): Promise<void>;
}

export type ProxyFactory = (options: {
  check(host: string, port: number, resolved: readonly string[]): Verdict;
  refused(host: string, port: number, rule: string): void;
}) => Promise<ContextProxy>;

export interface RegistryOptions {
  host: BrowserHost;
  /** This instance's name: it begins every session id, so a balancer can route by it (PROTOCOL.md §13, "Fleet"). */
  instanceId: string;
  downloads: SessionDownloads;
  maxSessions: number;
  idleTimeoutMs: number;
  /** The viewport of a session created without one (--viewport). */
  viewport: { width: number; height: number };
  now?: () => number;
  /** The secrets act may type by name: their values are hidden in everything sessions emit. */
  secrets?: SecretStore;
  /** The server's domain policy (--allow-domain, --block-domain, --block-private-network). */
  policy?: DomainPolicy;
  /** Starts the proxy of a context with a domain policy (all of its traffic goes through it). */
  proxies?: ProxyFactory;
  /** Where each session's trace spills its screenshots (PROTOCOL.md §16), and how many it keeps. */
  traces: { spillFor(sessionId: string): TraceSpill; maxFrames?: number | undefined };
}

/**
 * The proxy carries everything of a policed context: WebSockets, which the interception never
 * sees; what a name resolves to under --block-private-network; and any request that escapes the
 * interception (a service worker's fetch did once, under load), which still meets the policy
 * there. `<-loopback>` undoes Chromium's implicit bypass of loopback hosts.
 */
const PROXY_BYPASS = '<-loopback>';

export interface RegistryEvents extends Record<string, unknown> {
  closed: { session: Session; reason: string };
}

const TAB_BUDGET_MS = 30_000;
/** Sessions a lost endpoint ended, remembered so that a later call on one says why (PROTOCOL.md §1). */
const LOST_SESSIONS_KEPT = 256;

interface LostSession {
  principalId: string;
  endpoint: string;
  reason: string;
}

export class SessionRegistry {
  readonly events = new Emitter<RegistryEvents>();
  readonly #host: BrowserHost;
  readonly downloads: SessionDownloads;
  /** How this server's observations read frames, summed over every tab it observed (server.info). */
  readonly readCounts = new ReadCounts();
  readonly #maxSessions: number;
  readonly #idleTimeoutMs: number;
  readonly #viewport: { width: number; height: number };
  readonly #now: () => number;
  readonly #sessions = new Map<string, Session>();
  /** Session creations under way, counted against the limit before they finish. */
  #creating = 0;
  /** principal → its default session being created, so concurrent first calls share one. */
  readonly #defaultCreations = new Map<string, Promise<Session>>();
  #sweepTimer: ReturnType<typeof setInterval> | undefined;
  readonly #watchers = new Map<string, Disposable>();
  readonly #proxyOf = new Map<string, ContextProxy>();
  readonly #secrets: SecretStore | undefined;
  readonly #policy: DomainPolicy;
  readonly #proxies: ProxyFactory | undefined;
  readonly #lost = new BoundedMap<string, LostSession>(LOST_SESSIONS_KEPT);
  readonly #traces: RegistryOptions['traces'];
  readonly #instanceId: string;
  /** Set on SIGTERM: no new sessions from then on; the open ones are served until the server closes. */
  #draining = false;

  constructor(options: RegistryOptions) {
    this.#traces = options.traces;
    this.#instanceId = options.instanceId;
    this.#secrets = options.secrets;
    this.#policy = options.policy ?? new DomainPolicy('server', {});
    this.#proxies = options.proxies;
    this.#host = options.host;
    this.downloads = options.downloads;
    this.#maxSessions = options.maxSessions;
    this.#idleTimeoutMs = options.idleTimeoutMs;
    this.#viewport = options.viewport;
    this.#now = options.now ?? (() => Date.now());
    options.host.events.on('lost', ({ browser, reason, endpoint }) => {
      this.downloads.lost(browser);
      for (const session of [...this.#sessions.values()]) {
        if (session.browser !== browser) continue;
        if (endpoint !== undefined) this.#lost.set(session.id, { principalId: session.principalId, endpoint, reason });
        this.#forget(session, `${BROWSER_GONE}: ${reason}`);
      }
    });
    const sweepEveryMs = Math.max(1_000, Math.min(30_000, Math.floor(this.#idleTimeoutMs / 4)));
    this.#sweepTimer = setInterval(() => this.#sweepIdle(), sweepEveryMs);
    // The sweep must never be what keeps the process alive.
    (this.#sweepTimer as { unref?: () => void }).unref?.();
  }

  get size(): number {
    return this.#sessions.size;
  }

  all(): Session[] {
    return [...this.#sessions.values()];
  }

  /** The server's domain policy (server.info). */
  get policy(): DomainPolicy {
    return this.#policy;
  }

  get maxSessions(): number {
    return this.#maxSessions;
  }

  get draining(): boolean {
    return this.#draining;
  }

  /**
   * Takes no new session from now on (the server is about to close; the open ones are still
   * served), and resolves once the calls queued on them so far have finished, or `deadline` ran out.
   */
  async drain(deadline: Deadline): Promise<void> {
    this.#draining = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const outOfTime = new Promise<void>((resolve) => (timer = setTimeout(resolve, deadline.remaining())));
    try {
      await Promise.race([Promise.all(this.all().map((session) => session.queue.settled())), outOfTime]);
    } finally {
      clearTimeout(timer);
    }
  }

  async create(principalId: string, asked: SessionOptions, storageState?: StorageStateInput): Promise<Session> {
    // Every tab gets a viewport: the browser's own window is small enough for mobile layouts.
    const options: SessionOptions = { ...asked, viewport: asked.viewport ?? this.#viewport };
    if (this.#draining) {
      throw new ServerError(
        'browser_unavailable',
        `instance ${this.#instanceId} is draining (it is shutting down) and takes no new sessions; ` +
          'create the session again: through the balancer it lands on another instance',
        { details: { reason: 'draining', fix: 'create the session again; a live instance takes it' } },
      );
    }
    if (this.#sessions.size + this.#creating >= this.#maxSessions) {
      throw new ServerError(
        'invalid_request',
        `the server already has its maximum of ${this.#maxSessions} sessions; close one with session.close first ` +
          '(or start the server with a higher --max-sessions)',
        { details: { limit: 'max_sessions', max: this.#maxSessions } },
      );
    }
    this.#creating++;
    const id = randomId(`s_${this.#instanceId}_`);
    let proxy: ContextProxy | undefined;
    try {
      const policy = new PolicyChain([this.#policy, new DomainPolicy('session', options.policy ?? {})]);
      // A policed context's traffic goes through a proxy on loopback: only a browser here reaches it.
      const { browser, endpoint } = await this.#host.place(id, {
        ...(options.endpointUrl !== undefined ? { endpoint: options.endpointUrl } : {}),
        needsLocalBrowser: !policy.empty,
      });
      let session: Session | undefined;
      if (!policy.empty && this.#proxies) {
        proxy = await this.#proxies({
          check: (host, port, resolved) => policy.check({ scheme: undefined, host, port }, resolved),
          refused: (host, port, rule) => session?.traffic.refusedConnection(host, port, rule),
        });
      }
      const browserContextId = await browser.createContext(
        proxy ? { server: proxy.url, bypassList: PROXY_BYPASS } : undefined,
      );
      try {
        session = new Session({
          id,
          principalId,
          options,
          browser,
          browserContextId,
          endpoint,
          now: this.#now(),
          policy,
          ...(this.#secrets ? { secretForms: this.#secrets.forms } : {}),
          readTotals: this.readCounts,
          trace: { spill: this.#traces.spillFor(id), maxFrames: this.#traces.maxFrames },
        });
        const traffic = session.traffic;
        browser.setContextSetup(browserContextId, {
          setup: (cdp, type, url) => [...(type === 'page' ? targetSetup(cdp, options) : []), ...traffic.context.setup(cdp, type, url)],
          attachTypes: () => traffic.context.attachTypes(),
        });
        // Shared workers attach to the browser, not to a page: only then are their requests seen.
        if (!policy.empty) await browser.attachSharedWorkers();
        await this.downloads.enable(session);
        // Watching starts before the first tab exists, so nothing it does goes unreported.
        const watching = watchSessionEvents(session, browser);
        this.#watchers.set(session.id, watching);
        const deadline = new Deadline(TAB_BUDGET_MS);
        try {
          const tab = await browser.newTab(browserContextId, deadline);
          session.select(tab.targetId);
          if (storageState) await writeStorageState(session, storageState, deadline);
        } catch (error) {
          watching.dispose();
          this.#watchers.delete(session.id);
          throw error;
        }
        // Its idle time starts when it is handed out, not before its first tab was opened: a slow
        // first tab (a browser launching) must not leave it idle before any client has it.
        session.lastUsedAt = this.#now();
        this.#sessions.set(session.id, session);
        if (proxy) this.#proxyOf.set(session.id, proxy);
        return session;
      } catch (error) {
        await browser.disposeContext(browserContextId);
        throw error;
      }
    } catch (error) {
      this.#host.release(id);
      await proxy?.close();
      throw error;
    } finally {
      this.#creating--;
    }
  }

  /** A session the principal may use: another principal's is `forbidden`. */
  get(sessionId: string, principalId: string): Session {
    const session = this.#sessions.get(sessionId);
    const lost = this.#lost.get(sessionId);
    if (!session && lost?.principalId === principalId) {
      throw new ServerError(
        'browser_unavailable',
        `session ${sessionId} ended: ${lost.reason}; create a new session: it goes to a live endpoint`,
        { details: { reason: 'endpoint_lost', session_id: sessionId, endpoint: lost.endpoint } },
      );
    }
    if (!session || session.closed) {
      const holder = instanceOf(sessionId);
      // Through a balancer, a session of an instance that is gone reaches another one: say so.
      const why = holder !== undefined && holder !== this.#instanceId
        ? `no open session ${sessionId}: it was made by instance ${holder}, and this is instance ${this.#instanceId} ` +
          `(${holder} is gone or out of reach, and its sessions with it); create a new session`
        : `no open session ${sessionId}`;
      throw new ServerError('session_not_found', why, { details: { session_id: sessionId } });
    }
    if (session.principalId !== principalId) {
      throw new ServerError('forbidden', `session ${sessionId} belongs to another principal`, { details: { session_id: sessionId } });
    }
    return session;
  }

  /** The named session, or the principal's `default` one (created on first use). */
  async resolve(principalId: string, sessionId: string | undefined): Promise<Session> {
    if (sessionId !== undefined) return this.get(sessionId, principalId);
    const existing = this.#defaultOf(principalId);
    if (existing) return existing;
    let creation = this.#defaultCreations.get(principalId);
    if (!creation) {
      creation = this.create(principalId, { name: DEFAULT_SESSION_NAME, dialogs: 'hold' }).finally(() =>
        this.#defaultCreations.delete(principalId)
      );
      this.#defaultCreations.set(principalId, creation);
    }
    return creation;
  }

  list(principalId: string): Session[] {
    return this.all().filter((session) => session.principalId === principalId && !session.closed);
  }

  async close(session: Session, reason: string): Promise<void> {
    if (!this.#sessions.has(session.id)) return;
    this.#forget(session, reason);
    if (session.browser.isConnected) await session.browser.disposeContext(session.browserContextId);
  }

  async closeAll(reason: string): Promise<void> {
    if (this.#sweepTimer) clearInterval(this.#sweepTimer);
    this.#sweepTimer = undefined;
    await Promise.all(this.all().map((session) => this.close(session, reason)));
  }

  /** A connection closed: it no longer counts as a client of any session. */
  dropClient(connectionId: string): void {
    for (const session of this.#sessions.values()) session.clients.delete(connectionId);
  }

  #defaultOf(principalId: string): Session | undefined {
    return this.list(principalId).find((session) => session.name === DEFAULT_SESSION_NAME);
  }

  #forget(session: Session, reason: string): void {
    if (!this.#sessions.delete(session.id)) return;
    this.#host.release(session.id);
    this.#watchers.get(session.id)?.dispose();
    this.#watchers.delete(session.id);
    this.downloads.forget(session);
    const proxy = this.#proxyOf.get(session.id);
    this.#proxyOf.delete(session.id);
    void proxy?.close();
    session.markClosed(reason);
    // Its screenshots go with it; a trace it exported stays in its downloads folder.
    void session.trace.dispose().catch(() => {});
    if (reason.startsWith(BROWSER_GONE)) {
      session.events.publish({
        kind: 'crash',
        data: {
          scope: 'browser',
          hint: session.endpoint === undefined
            ? 'the browser went away; this session is closed: create a new one (a fresh browser starts on demand)'
            : `endpoint ${session.endpoint} was lost; this session is closed: create a new one (it goes to a live endpoint)`,
        },
      });
    }
    // The last event of a session; subscriptions end once it is delivered.
    session.events.publish({ kind: 'session_closed', data: { reason } });
    session.events.close();
    this.events.emit('closed', { session, reason });
  }

  #sweepIdle(): void {
    const now = this.#now();
    for (const session of this.all()) {
      const idle = session.queue.size === 0 && now - session.lastUsedAt >= this.#idleTimeoutMs;
      if (idle) void this.close(session, 'idle_timeout').catch(() => {});
    }
  }
}

function targetSetup(cdp: CdpSession, options: SessionOptions): Promise<unknown>[] {
  const steps: Promise<unknown>[] = [];
  if (options.viewport) {
    steps.push(
      cdp.send('Emulation.setDeviceMetricsOverride', {
        width: options.viewport.width,
        height: options.viewport.height,
        deviceScaleFactor: 1,
        mobile: false,
      }),
    );
  }
  if (options.userAgent) steps.push(cdp.send('Emulation.setUserAgentOverride', { userAgent: options.userAgent }));
  return steps;
}
