// Owns the browsers sessions run in: "the browser", launched lazily on the first call that needs
// one, shared by all sessions, and shut down on every exit path (when it goes away — crash,
// killed, pipe closed — the next call gets a fresh one); or, with endpoints (a farm), the pool
// that places each session on one of them, whose browsers are never closed by us.
import { Browser } from '../browser/browser.ts';
import { Connection, type ConnectionOptions } from '../cdp/connection.ts';
import type { CdpTransport } from '../cdp/transport.ts';
import { isServerError, ServerError } from '../errors.ts';
import { Deadline } from '../util/deadline.ts';
import { Emitter } from '../util/emitter.ts';
import { EndpointPool, type PlacementRequest } from './endpoint-pool.ts';
import type { EndpointConnector, EndpointSummary } from './endpoint.ts';
import type { EndpointSpec } from './endpoint-spec.ts';

export interface LaunchedBrowser {
  transport: CdpTransport;
  /** The browser's process id when we launched it. */
  pid?: number;
  /** Settles when the launched process exits (its helpers may hold the pipe open a while longer). */
  exited?: Promise<void>;
  /** Stops the browser. Idempotent. */
  shutdown(): Promise<void>;
}

export type BrowserLauncher = () => Promise<LaunchedBrowser>;

export interface BrowserHostEvents extends Record<string, unknown> {
  /** The browser went away without us closing it; `endpoint`: the id of the endpoint it was on. */
  lost: { browser: Browser; reason: string; endpoint?: string };
}

export interface BrowserHostOptions {
  /** Starts the browser of sessions when the operator gave no endpoints. */
  launch: BrowserLauncher;
  /** The operator's endpoints (none: launch), those a client may name, and how to open one. */
  endpoints: { specs: readonly EndpointSpec[]; allow: readonly string[]; connect: EndpointConnector };
  connectionOptions?: ConnectionOptions;
}

/** Where a new session's browser context goes: its browser, and the endpoint's id when it is one. */
export interface HostPlacement {
  browser: Browser;
  endpoint?: string;
}

const START_BUDGET_MS = 20_000;

export class BrowserHost {
  readonly events = new Emitter<BrowserHostEvents>();
  readonly #launch: BrowserLauncher;
  readonly #connectionOptions: ConnectionOptions;
  readonly #pool: EndpointPool;
  #starting: Promise<Browser> | undefined;
  #browser: Browser | undefined;
  #process: LaunchedBrowser | undefined;
  #shuttingDown = false;
  #launches = 0;

  constructor(options: BrowserHostOptions) {
    this.#launch = options.launch;
    this.#connectionOptions = options.connectionOptions ?? {};
    this.#pool = new EndpointPool({ ...options.endpoints, connectionOptions: this.#connectionOptions });
    this.#pool.events.on(
      'lost',
      ({ browser, endpoint, reason }) =>
        this.events.emit('lost', { browser, reason: `endpoint ${endpoint.id} lost: ${reason}`, endpoint: endpoint.id }),
    );
  }

  /** The browser we launched if it is running now (does not launch; never an endpoint's). */
  get current(): Browser | undefined {
    return this.#browser?.isConnected ? this.#browser : undefined;
  }

  /** The process id of the browser we launched and run now (undefined when connected or none). */
  get pid(): number | undefined {
    return this.current ? this.#process?.pid : undefined;
  }

  get launches(): number {
    return this.#launches;
  }

  /** Every browser sessions run in now: the launched one, each live endpoint's. */
  browsers(): Browser[] {
    const launched = this.current;
    return [...(launched ? [launched] : []), ...this.#pool.browsers()];
  }

  /** The endpoints (server.info), when the operator gave some or a client named one; else undefined. */
  endpoints(): EndpointSummary[] | undefined {
    const endpoints = this.#pool.describe();
    return endpoints.length > 0 ? endpoints : undefined;
  }

  /**
   * The browser a new session goes to: a named endpoint, else the least busy of the operator's
   * endpoints, else the launched browser. The session counts on its endpoint until `release`.
   */
  async place(sessionId: string, request: PlacementRequest): Promise<HostPlacement> {
    if (request.endpoint !== undefined || this.#pool.hasEndpoints) {
      const { browser, endpoint } = await this.#pool.place(sessionId, request);
      return { browser, endpoint: endpoint.id };
    }
    return { browser: await this.#launched() };
  }

  /** The session closed (or was never created): it no longer counts on its endpoint. */
  release(sessionId: string): void {
    this.#pool.release(sessionId);
  }

  #launched(): Promise<Browser> {
    if (this.#shuttingDown) return Promise.reject(new ServerError('browser_unavailable', 'the server is shutting down'));
    const running = this.current;
    if (running) return Promise.resolve(running);
    this.#starting ??= this.#start().finally(() => {
      this.#starting = undefined;
    });
    return this.#starting;
  }

  async shutdown(): Promise<void> {
    this.#shuttingDown = true;
    this.#pool.shutdown();
    await this.#starting?.catch(() => {});
    const browser = this.#browser;
    const endpoint = this.#process;
    this.#browser = undefined;
    this.#process = undefined;
    if (browser) await browser.close(new Deadline(2_000));
    browser?.connection.close('server shutting down');
    await endpoint?.shutdown();
  }

  async #start(): Promise<Browser> {
    const endpoint = await this.#launch();
    this.#launches++;
    const connection = new Connection(endpoint.transport, this.#connectionOptions);
    let browser: Browser;
    try {
      browser = await new Deadline(START_BUDGET_MS).race(Browser.start(connection), 'browser start-up');
    } catch (error) {
      connection.close('start-up failed');
      await endpoint.shutdown();
      if (isServerError(error)) throw error;
      throw new ServerError('browser_unavailable', `the browser started but did not answer: ${(error as Error).message}`, {
        details: { reason: 'no_answer', fix: 'check that the executable is Chromium or Chrome and can run headless here' },
        cause: error,
      });
    }
    if (this.#shuttingDown) {
      connection.close('server shutting down');
      await endpoint.shutdown();
      throw new ServerError('browser_unavailable', 'the server is shutting down');
    }
    this.#browser = browser;
    this.#process = endpoint;
    // A dead browser process closes the connection at once, not when its last helper lets go.
    void endpoint.exited?.then(() => connection.close('the browser process exited'));
    void connection.closed.then(async (reason) => {
      if (this.#browser !== browser) return; // closed by shutdown()
      this.#browser = undefined;
      this.#process = undefined;
      await endpoint.shutdown();
      this.events.emit('lost', { browser, reason });
    });
    return browser;
  }
}
