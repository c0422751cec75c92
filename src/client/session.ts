// One pagewire session as seen from the SDK: its tabs, observe and act, modals and events. Every
// method returns the wire result of its method (docs/PROTOCOL.md), takes an AbortSignal, and
// has a client-side budget. `act` never throws for an act outcome.
import type { Connection } from './connection.ts';
import { ConnectionError } from './errors.ts';
import { EventStream, type EventStreamOptions } from './events.ts';
import { Screencast, type ScreencastOptions } from './screencast.ts';
import { NAVIGATIONS } from '../wire/navigations.ts';
import type {
  Action,
  ActParams,
  ActResult,
  DialogResult,
  Download,
  EventsPollParams,
  EventsPollResult,
  FileChooserResult,
  FrameSummary,
  NetworkListParams,
  NetworkListResult,
  Observation,
  ObserveParams,
  PagePdfParams,
  Pdf,
  Screenshot,
  ScreenshotParams,
  StorageState,
  TabSummary,
  TraceFile,
  WaitParams,
  WaitResult,
} from './wire.ts';

export interface CallOptions {
  signal?: AbortSignal;
  /** Client-side budget in ms (default: the client's callTimeoutMs; for act, timeout_ms plus the grace). */
  timeoutMs?: number;
}

export interface ActOptions extends ActParams, CallOptions {
  /** The observation acted on (or its state_id). Default: the last one this session handle received. */
  state?: Observation | string;
}

/** What a session handle shares with its client. */
export interface SessionContext {
  readonly connection: Connection;
  readonly callTimeoutMs: number;
  readonly graceMs: number;
}

/** Methods that only read, or set something to a given value: safe to write again after a drop. */
const RESENDABLE = new Set([
  'observe',
  'tabs.list',
  'tabs.select',
  'frames.list',
  'frames.select',
  'screenshot',
  'downloads.list',
  'network.list',
  'session.storage_state',
  'events.poll',
  'trace.start',
  'trace.stop',
]);

const DEFAULT_ACT_TIMEOUT_MS = 30_000;

/** A request_id: made once per act call, so that the act's re-sends are recognised as one. */
function newRequestId(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return `sdk_${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

function split<T extends CallOptions>(options: T): { call: CallOptions; params: Omit<T, keyof CallOptions> } {
  const { signal, timeoutMs, ...params } = options;
  return { call: { ...(signal ? { signal } : {}), ...(timeoutMs !== undefined ? { timeoutMs } : {}) }, params };
}

export class Session {
  readonly #context: SessionContext;
  readonly #id: string | undefined;
  #last: Observation | undefined;

  readonly tabs = {
    list: (options: CallOptions = {}) => this.#call<{ tabs: TabSummary[] }>('tabs.list', options),
    /** With `observe: true` the answer holds the new page's observation, which becomes the handle's last one. */
    new: async (options: { url?: string; select?: boolean; observe?: boolean } & CallOptions = {}) => {
      const opened = await this.#call<{ target_id: string; error_text?: string; observation?: Observation }>('tabs.new', options);
      if (opened.observation) this.#last = opened.observation;
      return opened;
    },
    select: (targetId: string, options: CallOptions = {}) =>
      this.#call<{ target_id: string }>('tabs.select', { ...options, target_id: targetId }),
    close: (targetId: string, options: CallOptions = {}) => this.#call<{ closed: true }>('tabs.close', { ...options, target_id: targetId }),
  };

  readonly frames = {
    list: (options: { target_id?: string } & CallOptions = {}) => this.#call<{ frames: FrameSummary[] }>('frames.list', options),
    select: (frameId: string, options: { target_id?: string } & CallOptions = {}) =>
      this.#call<{ frame_id: string }>('frames.select', { ...options, frame_id: frameId }),
  };

  constructor(context: SessionContext, id?: string) {
    this.#context = context;
    this.#id = id;
  }

  /** The session's id; undefined for the principal's `default` session (sent without an id). */
  get id(): string | undefined {
    return this.#id;
  }

  /** The last observation this handle received (from observe, or an act's fresh_state). */
  get lastObservation(): Observation | undefined {
    return this.#last;
  }

  async observe(options: ObserveParams & CallOptions = {}): Promise<Observation> {
    const observation = await this.#call<Observation>('observe', options);
    this.#last = observation;
    return observation;
  }

  /**
   * Waits without acting for text, a URL or a selector in a state (act's wait_for), and answers
   * with the observation taken after: `status` says whether it was met (not met is no error).
   * The client-side budget defaults to timeout_ms plus the grace.
   */
  async wait(options: WaitParams & CallOptions): Promise<WaitResult> {
    const budget = options.timeoutMs ?? (options.timeout_ms || DEFAULT_ACT_TIMEOUT_MS) + this.#context.graceMs;
    const result = await this.#call<WaitResult>('wait', { ...options, timeoutMs: budget });
    this.#last = result.observation;
    return result;
  }

  /**
   * Acts on an observation. Outcomes (stale_state, click_intercepted, condition_not_met…) are
   * results; only a JSON-RPC error (session_not_found, invalid_params…) or a failed connection
   * throws. Aborting, or the client-side budget running out, sends `cancel` and returns the
   * server's answer to the cancelled act, or an `outcome_unknown` result when none comes.
   */
  async act(action: Action | Action[], options: ActOptions = {}): Promise<ActResult> {
    const { call, params: rest } = split(options);
    const { state, ...fields } = rest;
    // A lone navigation needs no observation (PROTOCOL.md §7): without an explicit state it goes
    // to the selected tab (or target_id), whatever this handle saw last.
    const lone = Array.isArray(action) ? (action.length === 1 ? action[0] : undefined) : action;
    const navigation = lone !== undefined && NAVIGATIONS.has(lone.action);
    const observed = state ?? (navigation ? undefined : this.#last);
    if (observed === undefined && !navigation) {
      throw new TypeError('act needs an observation: call observe() first or pass { state }');
    }
    const params: Record<string, unknown> = {
      ...this.#sessionField(),
      ...fields,
      ...(observed === undefined
        ? {}
        : typeof observed === 'string'
        ? { state_id: observed }
        : { state_id: observed.state_id, target_id: fields.target_id ?? observed.target_id }),
      ...(Array.isArray(action) ? { actions: action } : action),
      request_id: fields.request_id ?? newRequestId(),
    };
    const budget = call.timeoutMs ?? (fields.timeout_ms || DEFAULT_ACT_TIMEOUT_MS) + this.#context.graceMs;
    const signal = call.signal;
    const postcondition = fields.expect || fields.wait_for ? 'unknown' : 'not_requested';
    if (signal?.aborted) {
      return unknownOutcome({
        dispatched: false,
        postcondition,
        error_type: 'operation_cancelled',
        error_text: 'aborted before it was sent',
      });
    }

    // The connection's own timer is set past the budget and the grace: the budget is handled here.
    const pending = this.#context.connection.request<ActResult>('act', params, {
      resend: true,
      timeoutMs: budget + 2 * this.#context.graceMs,
    });
    let stop: ((why: 'aborted' | 'timeout') => void) | undefined;
    const stopped = new Promise<'aborted' | 'timeout'>((resolve) => (stop = resolve));
    const onAbort = () => stop!('aborted');
    signal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => stop!('timeout'), budget);
    const reply = pending.reply.then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    try {
      const first = await Promise.race([reply, stopped]);
      if (typeof first === 'object') {
        if ('error' in first) throw first.error;
        return this.#took(first.result);
      }
      return await this.#stopAct(pending, reply, { why: first, postcondition, budget });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  screenshot(options: ScreenshotParams & CallOptions = {}): Promise<Screenshot> {
    return this.#call('screenshot', options);
  }

  /**
   * The tab printed to a PDF in the session's downloads folder on the server's machine (password
   * inputs and secrets masked): its path, size and pages. Not resent after a drop (each call
   * writes a file).
   */
  pdf(options: PagePdfParams & CallOptions = {}): Promise<Pdf> {
    return this.#call('page.pdf', options);
  }

  /**
   * The session's trace (PROTOCOL.md §16): `start` records every call from now on (with screenshots
   * around each act), `stop` ends it, `export` writes what was recorded as a zip in the session's
   * downloads folder (on the server's machine) for the inspector to open.
   */
  readonly trace = {
    start: (options: CallOptions = {}) => this.#call<{ recording: true }>('trace.start', options),
    stop: (options: CallOptions = {}) => this.#call<{ recording: false; steps: number }>('trace.stop', options),
    export: (options: CallOptions = {}) => this.#call<TraceFile>('trace.export', options),
  };

  /** A tab's live view: `onFrame` gets each JPEG frame until `stop()` (or the client closes). */
  screencast(options: ScreencastOptions & CallOptions): Promise<Screencast> {
    const { call, params } = split(options);
    return Screencast.start({
      connection: this.#context.connection,
      sessionId: this.#id,
      options: params,
      timeoutMs: call.timeoutMs ?? this.#context.callTimeoutMs,
    });
  }

  /** Interrupts the session's running call (whichever client made it). */
  cancel(options: CallOptions = {}): Promise<{ status: 'cancellation_requested' | 'idle' }> {
    return this.#call('cancel', options);
  }

  handleDialog(options: { accept: boolean; prompt_text?: string; target_id?: string } & CallOptions): Promise<DialogResult> {
    return this.#call('dialog.handle', options);
  }

  /** Resolves a pending file chooser with these paths (none: cancel it). */
  resolveFileChooser(options: { paths?: string[]; target_id?: string } & CallOptions = {}): Promise<FileChooserResult> {
    return this.#call('file_chooser.resolve', options);
  }

  downloads(options: CallOptions = {}): Promise<{ downloads: Download[] }> {
    return this.#call('downloads.list', options);
  }

  /**
   * The session's network log (PROTOCOL.md §15): every request after `since`, of one tab or all.
   * The first call starts the log.
   */
  network(options: NetworkListParams & CallOptions = {}): Promise<NetworkListResult> {
    return this.#call('network.list', options);
  }

  /** Cookies and localStorage in Playwright's storageState shape (createSession takes it back). */
  storageState(options: CallOptions = {}): Promise<StorageState> {
    return this.#call('session.storage_state', options);
  }

  /**
   * One long poll of the session's retained events (events.poll, PROTOCOL.md §9): those after
   * `after_seq`, waiting up to `wait_ms` for a first one. For a program that reads events now and
   * then instead of holding a stream open; pass the answer's `last_seq` as the next `after_seq`.
   */
  pollEvents(options: EventsPollParams & CallOptions = {}): Promise<EventsPollResult> {
    return this.#call('events.poll', options);
  }

  /** The session's events, resumed across reconnects; break out of the loop (or abort) to stop. */
  events(options: EventStreamOptions = {}): EventStream {
    return new EventStream({ connection: this.#context.connection, sessionId: this.#id, options, timeoutMs: this.#context.callTimeoutMs });
  }

  /** Closes the session on the server (the `default` one too: its id is looked up first). */
  async close(options: CallOptions = {}): Promise<{ closed: true }> {
    let id = this.#id ?? this.#last?.session_id;
    if (id === undefined) {
      const { sessions } = await this.#context.connection.call<{ sessions: Array<{ session_id: string; name: string }> }>(
        'session.list',
        {},
        { resend: true, timeoutMs: options.timeoutMs ?? this.#context.callTimeoutMs, signal: options.signal },
      );
      id = sessions.find((s) => s.name === 'default')?.session_id;
      if (id === undefined) return { closed: true }; // never created: nothing to close
    }
    return this.#call('session.close', { ...options, session_id: id });
  }

  #sessionField(): { session_id?: string } {
    return this.#id !== undefined ? { session_id: this.#id } : {};
  }

  /** `options`: the method's wire params and the CallOptions, in one object. */
  #call<T>(method: string, options: object): Promise<T> {
    const { call, params } = split(options as CallOptions);
    return this.#context.connection.call<T>(
      method,
      { ...this.#sessionField(), ...(params as Record<string, unknown>) },
      { resend: RESENDABLE.has(method), timeoutMs: call.timeoutMs ?? this.#context.callTimeoutMs, signal: call.signal },
    );
  }

  #took(result: ActResult): ActResult {
    if (result.fresh_state) this.#last = result.fresh_state;
    return result;
  }

  /** Aborted or out of budget: cancel the act on the server and report what it says, within the grace. */
  async #stopAct(
    pending: { written: boolean; forget(reason: unknown): void },
    reply: Promise<{ result: ActResult } | { error: unknown }>,
    init: { why: 'aborted' | 'timeout'; postcondition: 'unknown' | 'not_requested'; budget: number },
  ): Promise<ActResult> {
    const error_type = init.why === 'aborted' ? ('operation_cancelled' as const) : ('timeout' as const);
    const said = init.why === 'aborted' ? 'aborted by the caller' : `no answer within the client's budget of ${init.budget} ms`;
    if (!pending.written) {
      pending.forget(new ConnectionError('connection_closed', 'act stopped before it was sent'));
      return unknownOutcome({ dispatched: false, postcondition: init.postcondition, error_type, error_text: `${said} before it was sent` });
    }
    void this.#context.connection.call('cancel', this.#sessionField(), { resend: false, timeoutMs: this.#context.graceMs }).catch(() => {});
    let graceTimer: ReturnType<typeof setTimeout> | undefined;
    const grace = new Promise<undefined>((resolve) => (graceTimer = setTimeout(() => resolve(undefined), this.#context.graceMs)));
    const answer = await Promise.race([reply, grace]);
    clearTimeout(graceTimer);
    if (answer && 'result' in answer) return this.#took(answer.result);
    pending.forget(new ConnectionError('connection_closed', 'act stopped'));
    return unknownOutcome({
      dispatched: true,
      postcondition: init.postcondition,
      error_type,
      error_text: `${said}; cancel was sent and no answer came: the act may or may not have run`,
    });
  }
}

function unknownOutcome(
  init: {
    dispatched: boolean;
    postcondition: 'unknown' | 'not_requested';
    error_type: 'operation_cancelled' | 'timeout';
    error_text: string;
  },
): ActResult {
  return {
    status: 'outcome_unknown',
    execution: init.dispatched ? 'dispatched_unknown' : 'not_dispatched',
    observation: 'unavailable',
    postcondition: init.postcondition,
    completed: [],
    events: [],
    error_type: init.error_type,
    error_text: init.error_text,
  };
}
