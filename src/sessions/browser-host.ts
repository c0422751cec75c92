// Owns "the browser": launched (or connected) lazily on the first call that needs one, shared by
// all sessions, and shut down on every exit path. When it goes away (crash, killed, pipe closed)
// the next call gets a fresh one.
import { Browser } from '../browser/browser.ts';
import { Connection, type ConnectionOptions } from '../cdp/connection.ts';
import type { CdpTransport } from '../cdp/transport.ts';
import { isServerError, ServerError } from '../errors.ts';
import { Deadline } from '../util/deadline.ts';
import { Emitter } from '../util/emitter.ts';

export interface BrowserEndpoint {
  transport: CdpTransport;
  /** The browser's process id when we launched it. */
  pid?: number;
  /** Settles when the launched process exits (its helpers may hold the pipe open a while longer). */
  exited?: Promise<void>;
  /** Whether we launched it: a browser we only connected to (--connect) is never asked to exit. */
  owned: boolean;
  /** Stops the browser if we launched it (never one we only connected to). Idempotent. */
  shutdown(): Promise<void>;
}

export type BrowserLauncher = () => Promise<BrowserEndpoint>;

export interface BrowserHostEvents extends Record<string, unknown> {
  /** The browser went away without us closing it. */
  lost: { browser: Browser; reason: string };
}

const START_BUDGET_MS = 20_000;

export class BrowserHost {
  readonly events = new Emitter<BrowserHostEvents>();
  readonly #launch: BrowserLauncher;
  readonly #connectionOptions: ConnectionOptions;
  #starting: Promise<Browser> | undefined;
  #browser: Browser | undefined;
  #endpoint: BrowserEndpoint | undefined;
  #shuttingDown = false;
  #launches = 0;

  constructor(launch: BrowserLauncher, connectionOptions: ConnectionOptions = {}) {
    this.#launch = launch;
    this.#connectionOptions = connectionOptions;
  }

  /** The browser if one is running now (does not launch). */
  get current(): Browser | undefined {
    return this.#browser?.isConnected ? this.#browser : undefined;
  }

  /** The process id of the browser we launched and run now (undefined when connected or none). */
  get pid(): number | undefined {
    return this.current ? this.#endpoint?.pid : undefined;
  }

  get launches(): number {
    return this.#launches;
  }

  get(): Promise<Browser> {
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
    await this.#starting?.catch(() => {});
    const browser = this.#browser;
    const endpoint = this.#endpoint;
    this.#browser = undefined;
    this.#endpoint = undefined;
    if (browser && endpoint?.owned) await browser.close(new Deadline(2_000));
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
    this.#endpoint = endpoint;
    // A dead browser process closes the connection at once, not when its last helper lets go.
    void endpoint.exited?.then(() => connection.close('the browser process exited'));
    void connection.closed.then(async (reason) => {
      if (this.#browser !== browser) return; // closed by shutdown()
      this.#browser = undefined;
      this.#endpoint = undefined;
      await endpoint.shutdown();
      this.events.emit('lost', { browser, reason });
    });
    return browser;
  }
}
