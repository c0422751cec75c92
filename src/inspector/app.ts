// The inspector page's app (served at /inspector, built into dist/browser/inspector.js): the live
// view of the server's sessions (live.ts), and the view of a recorded trace (trace-view.ts),
// opened from `?trace=NAME`, from a file dropped on the page, or with Open trace…. It speaks the
// wire through the SDK's browser build, which the page loads and hands to start().
import type { connect as sdkConnect } from '../client/browser.ts';
import { h } from './dom.ts';
import { LiveInspector } from './live.ts';
import { STYLES } from './styles.ts';
import { instanceOf } from '../util/ids.ts';
import { readTrace, TraceError } from './trace-file.ts';
import { TraceView } from './trace-view.ts';

export interface StartOptions {
  sdk: { connect: typeof sdkConnect };
  /** `ws://host:port/` of the server (the page's own origin). */
  url: string;
  token: string;
  /** The session to show first (`?session=`); default: the first listed. */
  session?: string | undefined;
  /** A trace file the server wrote, to open instead of the live view (`?trace=`). */
  trace?: string | undefined;
  root: HTMLElement;
}

/** Where the server serves the trace files it wrote (PROTOCOL.md §13). */
const TRACES_PATH = '/traces/';

class App {
  readonly #options: StartOptions;
  readonly #status = h('p', { id: 'status' });
  #live: LiveInspector | undefined;
  #traceView: TraceView | undefined;
  /** Counts the opens: a file opened while another still loads replaces it, whichever ends first. */
  #opens = 0;

  constructor(options: StartOptions) {
    this.#options = options;
    options.root.append(h('style', {}, STYLES), this.#status);
    // A trace file dropped anywhere on the page opens it.
    options.root.addEventListener('dragover', (event) => {
      if (event.dataTransfer?.types.includes('Files')) event.preventDefault();
    });
    options.root.addEventListener('drop', (event) => {
      const file = event.dataTransfer?.files[0];
      if (!file) return;
      event.preventDefault();
      void this.openFile(file);
    });
  }

  async showLive(): Promise<void> {
    if (this.#traceView) this.#traceView.root.hidden = true;
    if (this.#live) {
      this.#live.root.hidden = false;
      return;
    }
    this.#status.hidden = false;
    this.#status.className = '';
    this.#status.textContent = 'connecting…';
    try {
      // Behind a balancer the page's socket must reach the instance that holds the session.
      const session = this.#options.session;
      const instance = session === undefined ? undefined : instanceOf(session);
      const client = await this.#options.sdk.connect(this.#options.url, { token: this.#options.token, ...(instance ? { instance } : {}) });
      this.#status.hidden = true;
      const live = new LiveInspector(client, this.#openControl());
      this.#live = live;
      this.#options.root.append(live.root);
      if (this.#options.session) await live.selectSession(this.#options.session);
      else await live.refreshSessions();
      this.#options.root.dataset['ready'] = 'true';
    } catch (error) {
      this.#status.textContent = `cannot connect: ${String((error as Error).message ?? error)}`;
      this.#status.className = 'error';
    }
  }

  /** A trace the server wrote, fetched from its traces route with the page's token. */
  openNamed(name: string): Promise<void> {
    return this.#open(name, async () => {
      // The token as the page's own scripts pass it: `trace show` serves this route too.
      const response = await fetch(`${TRACES_PATH}${encodeURIComponent(name)}?token=${encodeURIComponent(this.#options.token)}`);
      if (response.status === 404) throw new TraceError(`The server has no trace named ${JSON.stringify(name)}.`);
      if (!response.ok) throw new TraceError(`The server did not send the trace ${JSON.stringify(name)} (HTTP ${response.status}).`);
      return new Uint8Array(await response.arrayBuffer());
    });
  }

  openFile(file: File): Promise<void> {
    return this.#open(file.name, async () => new Uint8Array(await file.arrayBuffer()));
  }

  async #open(name: string, read: () => Promise<Uint8Array>): Promise<void> {
    const view = this.#showTraceView();
    const open = ++this.#opens;
    view.loading(name);
    try {
      const trace = await readTrace(name, await read());
      if (open === this.#opens) view.show(trace);
    } catch (error) {
      if (open !== this.#opens) return;
      view.fail(
        error instanceof TraceError
          ? error.message
          : `${JSON.stringify(name)} cannot be opened: ${String((error as Error).message ?? error)}`,
      );
    }
  }

  #showTraceView(): TraceView {
    if (this.#live) this.#live.root.hidden = true;
    this.#status.hidden = true;
    if (!this.#traceView) {
      const live = h('button', { id: 'back-to-live', type: 'button', click: () => void this.showLive() }, 'Live');
      this.#traceView = new TraceView(h('span', { class: 'controls' }, this.#openControl(), live));
      this.#options.root.append(this.#traceView.root);
    }
    this.#traceView.root.hidden = false;
    return this.#traceView;
  }

  /** Open trace…: a button that picks a file (each view's header has its own). */
  #openControl(): HTMLElement {
    const input = h('input', { type: 'file', accept: '.zip,application/zip', class: 'open-trace-input', hidden: '' }) as HTMLInputElement;
    input.addEventListener('change', () => {
      const file = input.files?.[0];
      input.value = '';
      if (file) void this.openFile(file);
    });
    return h('label', { class: 'button open-trace' }, 'Open trace…', input);
  }
}

export async function start(options: StartOptions): Promise<void> {
  const app = new App(options);
  if (options.trace) {
    await app.openNamed(options.trace);
    options.root.dataset['ready'] = 'true';
  } else await app.showLive();
}
