// One remote CDP endpoint of the pool (PROTOCOL.md §1 "Browsers from endpoints"): its connection,
// the sessions placed on it, and its state. A lost endpoint is tried again, waiting longer after
// each failure, until it answers or the pool lets it go. Its browser is never closed: pagewire
// did not start it, and other clients of the farm may be using it.
import { Browser } from '../browser/browser.ts';
import { Connection, type ConnectionOptions } from '../cdp/connection.ts';
import type { CdpTransport } from '../cdp/transport.ts';
import { isServerError, ServerError } from '../errors.ts';
import { Deadline } from '../util/deadline.ts';
import { Emitter } from '../util/emitter.ts';
import { endpointLabel, type EndpointSpec, isLoopbackEndpoint } from './endpoint-spec.ts';

/** Opens the CDP socket of an endpoint (the runtime's WebSocket; a fake in unit tests). */
export type EndpointConnector = (spec: EndpointSpec) => Promise<CdpTransport>;

export type EndpointState = 'idle' | 'connecting' | 'live' | 'lost';

export interface EndpointEvents extends Record<string, unknown> {
  /** The connection ended without pagewire closing it: every session on it is gone. */
  lost: { browser: Browser; reason: string };
}

/** What server.info says of an endpoint. */
export interface EndpointSummary {
  id: string;
  url: string;
  state: EndpointState;
  sessions: number;
  error?: string;
}

export interface EndpointOptions {
  id: string;
  spec: EndpointSpec;
  connect: EndpointConnector;
  connectionOptions: ConnectionOptions;
  /** Whether a lost connection is tried again (the pool's own endpoints; not one a client named). */
  retry: boolean;
  /** Budget of Browser.start on a fresh connection. */
  startMs: number;
  /** Waits between tries after a loss: the first, doubling up to the last. */
  backoff: { firstMs: number; maxMs: number };
}

export class Endpoint {
  readonly events = new Emitter<EndpointEvents>();
  readonly id: string;
  readonly spec: EndpointSpec;
  /** The URL as shown: without userinfo, query or fragment. */
  readonly label: string;
  /** Whether it names this machine: only then can its browser reach a loopback proxy (the domain policy's). */
  readonly loopback: boolean;
  readonly #options: EndpointOptions;
  readonly #sessions = new Set<string>();
  #state: EndpointState = 'idle';
  #browser: Browser | undefined;
  #connecting: Promise<Browser> | undefined;
  /** The first try, settled (never rejected): placement waits for every endpoint's before choosing. */
  #firstTry: Promise<void> | undefined;
  #error: string | undefined;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  #failures = 0;
  #disposed = false;

  constructor(options: EndpointOptions) {
    this.#options = options;
    this.id = options.id;
    this.spec = options.spec;
    this.label = endpointLabel(options.spec.url);
    this.loopback = isLoopbackEndpoint(options.spec.url);
  }

  get state(): EndpointState {
    return this.#state;
  }

  /** The browser while the endpoint is live. */
  get browser(): Browser | undefined {
    return this.#state === 'live' ? this.#browser : undefined;
  }

  get sessionCount(): number {
    return this.#sessions.size;
  }

  /** Connects once if it never tried; resolves when that first try settled, however it went. */
  firstTry(): Promise<void> {
    this.#firstTry ??= this.connect().then(() => {}, () => {});
    return this.#firstTry;
  }

  /** The live browser, or a new connection to it; `browser_unavailable` saying why not. */
  connect(): Promise<Browser> {
    if (this.#disposed) return Promise.reject(this.#unavailable('the server is shutting down', 'shutting_down'));
    const live = this.browser;
    if (live) return Promise.resolve(live);
    this.#connecting ??= this.#open().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  /** Counts a session as placed here (before it is created, so concurrent placements spread). */
  take(sessionId: string): void {
    this.#sessions.add(sessionId);
  }

  /** Returns whether the session was on this endpoint. */
  release(sessionId: string): boolean {
    return this.#sessions.delete(sessionId);
  }

  describe(): EndpointSummary {
    return {
      id: this.id,
      url: this.label,
      state: this.#state,
      sessions: this.#sessions.size,
      ...(this.#error !== undefined ? { error: this.#error } : {}),
    };
  }

  /** Closes pagewire's connection (never the browser) and stops trying. Idempotent. */
  dispose(reason: string): void {
    this.#disposed = true;
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    const browser = this.#browser;
    this.#browser = undefined;
    this.#state = 'idle';
    browser?.connection.close(reason);
  }

  async #open(): Promise<Browser> {
    this.#state = 'connecting';
    let connection: Connection | undefined;
    try {
      const transport = await this.#options.connect(this.spec);
      connection = new Connection(transport, this.#options.connectionOptions);
      const browser = await new Deadline(this.#options.startMs).race(Browser.start(connection), 'browser start-up');
      if (this.#disposed) {
        connection.close('server shutting down');
        throw this.#unavailable('the server is shutting down', 'shutting_down');
      }
      this.#live(browser);
      return browser;
    } catch (error) {
      connection?.close('start-up failed');
      const failure = isServerError(error) ? error : this.#unavailable(
        `the browser of endpoint ${this.id} (${this.label}) did not answer: ${(error as Error).message}`,
        'no_answer',
        error,
      );
      this.#error = failure.message;
      if (!this.#disposed) {
        this.#state = 'lost';
        this.#scheduleRetry();
      }
      throw failure;
    }
  }

  #live(browser: Browser): void {
    this.#browser = browser;
    this.#state = 'live';
    this.#error = undefined;
    this.#failures = 0;
    void browser.connection.closed.then((reason) => {
      if (this.#browser !== browser) return; // pagewire closed it (dispose)
      this.#browser = undefined;
      this.#state = 'lost';
      this.#error = reason;
      // Its sessions end with it; the registry releases each as it closes them.
      this.events.emit('lost', { browser, reason });
      this.#scheduleRetry();
    });
  }

  #scheduleRetry(): void {
    if (!this.#options.retry || this.#disposed || this.#retryTimer) return;
    const { firstMs, maxMs } = this.#options.backoff;
    const waitMs = Math.min(maxMs, firstMs * 2 ** this.#failures);
    this.#failures++;
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      // A failed try schedules the next one itself.
      this.connect().catch(() => {});
    }, waitMs);
    // Trying again must never be what keeps the process alive.
    (this.#retryTimer as { unref?: () => void }).unref?.();
  }

  #unavailable(message: string, reason: string, cause?: unknown): ServerError {
    return new ServerError('browser_unavailable', message, {
      details: { reason, endpoint: this.id },
      ...(cause !== undefined ? { cause } : {}),
    });
  }
}
