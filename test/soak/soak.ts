// `npm run soak -- --minutes N`: a bounded load test of a real pagewire server process.
//
// Starts the fixture server and `node dist/src/main.js --port 0 --token …` (loopback only), then
// runs for N minutes (fractions allowed): CLIENTS clients, each with its own connection and
// session, loop {observe (with `since` every other time), act click on a harmless button of one
// of two same-origin fixture pages (counter.html "Increment", signup.html "Create account", each
// checked with `expect` so a click that lands twice or not at all shows), observe, every few
// rounds a tab opened in the background, observed, acted on and closed, every 5 rounds a
// navigation to the other page, a screenshot}, while SUBSCRIBERS connections follow every event
// of every session (checking seq order, replay after re-subscribing, and session_closed at the
// end) and a monitor samples server.info `counts` every few seconds. Then the sessions close, the
// counts must return to their idle values, the server gets SIGTERM and must exit 0 without
// leaving any Chromium process behind.
//
// It fails (exit 1) on any protocol error (a JSON-RPC error, an act status other than completed
// or verified, a malformed frame, an out-of-order event, a call without reply, an error line in
// the server's log), on any crash event, on any observation of a client's tab (observe, or an
// act's fresh state) without the controls of the page it is on, or on a growth trend: the mean of
// the last third of the samples against the middle third (the first third is warm-up) for RSS
// (+25 % allowed), CDP listeners per open tab, sessions, states and requests in flight (small
// slack each). A crashed tab is navigated again (that navigation must load the page). Exit 2:
// bad arguments.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { type FixtureServer, startFixtureServer } from '../helpers/fixture-server.ts';
import { descendants, waitUntilGone } from '../helpers/processes.ts';
import { ascending, percentile } from '../helpers/stats.ts';
import { type ActResult, elementNamed, type MethodName, type Observation, type ResultOf, type ServerInfoResult } from '../helpers/wire.ts';
import { EVENT_KINDS as WIRE_EVENT_KINDS } from '../../src/wire/events.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A call without a reply for this long is a protocol error (the server's own budgets are ≤ 60 s). */
const CALL_TIMEOUT_MS = 120_000;
/** After the load phase, how long clients may take to finish their round and close their session. */
const WIND_DOWN_MS = 180_000;
/** How long the counts may take to settle back to idle, and the server to exit after SIGTERM. */
const SETTLE_MS = 20_000;
const EXIT_MS = 30_000;

const HELP = `Usage: npm run soak -- --minutes N [options]

A bounded soak test of a pagewire server process (node dist/src/main.js; run \`npm run build\` first).

  --minutes N        length of the load phase, fractions allowed (1 = 60 s); required
  --clients N        clients, each with its own connection and session (default 8)
  --subscribers N    connections following every event of every session (default 2)
  --sample-s N       seconds between server.info samples (default 5)
  --from-source      run the server from src/ through tsx instead of dist/
  --deno             run the server on Deno from src/ (node_modules/.bin/deno run -A src/main.ts)
  --json FILE        also write the summary as JSON to FILE
  --help             print this help

Exit code 0 when every check passed, 1 when one failed, 2 on bad arguments.`;

interface Options {
  minutes: number;
  clients: number;
  subscribers: number;
  sampleS: number;
  fromSource: boolean;
  deno: boolean;
  json?: string;
}

class UsageError extends Error {}

function parseArgs(argv: string[]): Options | 'help' {
  const options: Options = { minutes: NaN, clients: 8, subscribers: 2, sampleS: 5, fromSource: false, deno: false };
  const number = (flag: string, text: string | undefined, min: number, max: number, integer: boolean): number => {
    const value = Number(text);
    if (
      text === undefined || text.trim() === '' || !Number.isFinite(value) || value < min || value > max ||
      (integer && !Number.isInteger(value))
    ) {
      throw new UsageError(
        `${flag} must be ${integer ? 'a whole number' : 'a number'} from ${min} to ${max} (got ${JSON.stringify(text)})`,
      );
    }
    return value;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf('=');
    const flag = eq === -1 ? arg : arg.slice(0, eq);
    const value = () => (eq === -1 ? argv[++i] : arg.slice(eq + 1));
    switch (flag) {
      case '--help':
      case '-h':
        return 'help';
      case '--minutes':
        options.minutes = number(flag, value(), 0.01, 24 * 60, false);
        break;
      case '--clients':
        options.clients = number(flag, value(), 1, 64, true);
        break;
      case '--subscribers':
        options.subscribers = number(flag, value(), 0, 16, true);
        break;
      case '--sample-s':
        options.sampleS = number(flag, value(), 0.5, 600, false);
        break;
      case '--from-source':
        options.fromSource = true;
        break;
      case '--deno':
        options.deno = true;
        break;
      case '--json': {
        const file = value();
        if (!file) throw new UsageError('--json needs a file name');
        options.json = file;
        break;
      }
      default:
        throw new UsageError(`unknown argument ${JSON.stringify(arg)}`);
    }
  }
  if (Number.isNaN(options.minutes)) throw new UsageError('--minutes N is required (e.g. --minutes 1)');
  return options;
}

// ---- problems and statistics -----------------------------------------------------------------

interface Problem {
  what: string;
  detail: string;
  at_s: number;
}

const startedAt = Date.now();
const problems: Problem[] = [];
const problemCounts = new Map<string, number>();

function problem(what: string, detail: string): void {
  problemCounts.set(what, (problemCounts.get(what) ?? 0) + 1);
  // Every kind is counted; the details of the first few are enough to debug from.
  if (problems.length < 200) problems.push({ what, detail: detail.slice(0, 500), at_s: Math.round((Date.now() - startedAt) / 100) / 10 });
}

const latencies = new Map<string, number[]>();
function recordLatency(method: string, ms: number): void {
  let list = latencies.get(method);
  if (!list) latencies.set(method, list = []);
  list.push(ms);
}

const mean = (values: number[]) => (values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length);
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const round1 = (n: number) => Math.round(n * 10) / 10;

// ---- a JSON-RPC client that checks every frame ---------------------------------------------

class RpcFailure extends Error {
  readonly errorType: string | undefined;
  constructor(message: string, errorType?: string) {
    super(message);
    this.errorType = errorType;
  }
}

interface Pending {
  method: string;
  started: number;
  /** Runs as the reply frame is read, before any later frame (ws may deliver several in one task). */
  onResult: ((result: unknown) => void) | undefined;
  resolve(result: unknown): void;
  reject(error: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

class SoakClient {
  readonly name: string;
  readonly #socket: WebSocket;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #closing = false;
  onEvent: (params: Record<string, unknown>) => void = () => {};

  private constructor(name: string, socket: WebSocket) {
    this.name = name;
    this.#socket = socket;
    socket.on('message', (data: WebSocket.RawData) => this.#onFrame(data.toString()));
    socket.on('close', (code: number) => {
      if (!this.#closing) problem('connection closed by the server', `${name}: code ${code}`);
      for (const [id, pending] of this.#pending) {
        clearTimeout(pending.timer);
        pending.reject(new RpcFailure(`${pending.method}: the connection closed`));
        this.#pending.delete(id);
      }
    });
    socket.on('error', (error: Error) => problem('socket error', `${name}: ${error.message}`));
  }

  static connect(url: string, name: string): Promise<SoakClient> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, { perMessageDeflate: false });
      socket.once('open', () => resolve(new SoakClient(name, socket)));
      socket.once('error', reject);
    });
  }

  /** Resolves with the result (typed by the method's wire schema); a JSON-RPC error or a missing reply is recorded and rejects. */
  call<M extends MethodName>(method: M, params?: Record<string, unknown>, onResult?: (result: ResultOf<M>) => void): Promise<ResultOf<M>>;
  call<T = Record<string, unknown>>(method: string, params?: Record<string, unknown>, onResult?: (result: T) => void): Promise<T>;
  call(method: string, params: Record<string, unknown> = {}, onResult?: (result: never) => void): Promise<unknown> {
    const id = this.#nextId++;
    return new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        problem('no reply', `${this.name}: ${method} got no reply within ${CALL_TIMEOUT_MS / 1000} s`);
        reject(new RpcFailure(`${method}: no reply`));
      }, CALL_TIMEOUT_MS);
      this.#pending.set(id, {
        method,
        started: performance.now(),
        onResult: onResult as ((result: unknown) => void) | undefined,
        resolve,
        reject,
        timer,
      });
      this.#socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  }

  close(): Promise<void> {
    this.#closing = true;
    if (this.#socket.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      this.#socket.once('close', () => resolve());
      this.#socket.close();
    });
  }

  #onFrame(text: string): void {
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(text) as Record<string, unknown>;
    } catch {
      problem('malformed frame', `${this.name}: not JSON: ${text.slice(0, 200)}`);
      return;
    }
    if (message === null || typeof message !== 'object' || Array.isArray(message) || message['jsonrpc'] !== '2.0') {
      problem('malformed frame', `${this.name}: not a JSON-RPC 2.0 object: ${text.slice(0, 200)}`);
      return;
    }
    if (message['id'] === undefined) {
      if (message['method'] === 'event' && message['params'] && typeof message['params'] === 'object') {
        this.onEvent(message['params'] as Record<string, unknown>);
      } else {
        problem('malformed frame', `${this.name}: unexpected notification ${text.slice(0, 200)}`);
      }
      return;
    }
    const pending = this.#pending.get(message['id'] as number);
    if (!pending) {
      problem('malformed frame', `${this.name}: reply to an unknown id ${JSON.stringify(message['id'])}`);
      return;
    }
    this.#pending.delete(message['id'] as number);
    clearTimeout(pending.timer);
    recordLatency(pending.method, performance.now() - pending.started);
    const error = message['error'] as { code?: number; message?: string; data?: { error_type?: string } } | undefined;
    if (error) {
      const type = error.data?.error_type;
      problem('JSON-RPC error', `${this.name}: ${pending.method} → ${type ?? error.code}: ${error.message}`);
      pending.reject(new RpcFailure(`${pending.method}: ${type ?? error.code}: ${error.message}`, type));
    } else if (!Object.hasOwn(message, 'result')) {
      problem('malformed frame', `${this.name}: reply without result or error: ${text.slice(0, 200)}`);
      pending.reject(new RpcFailure(`${pending.method}: malformed reply`));
    } else {
      pending.onResult?.(message['result']);
      pending.resolve(message['result']);
    }
  }
}

// ---- the server process ------------------------------------------------------------------

interface ServerProcess {
  child: ChildProcess;
  pid: number;
  url: string;
  command: string;
  exit: Promise<number | null>;
  exitedEarly: () => boolean;
  stderrLines: string[];
  errorLines: string[];
}

async function startServer(options: Options, token: string): Promise<ServerProcess> {
  // Deno runs the sources as they are; Node runs dist/ (what `npx pagewire` runs) or src/ through tsx.
  const program = options.deno ? `${ROOT}node_modules/.bin/deno` : process.execPath;
  const entry = options.deno
    ? ['run', '-A', 'src/main.ts']
    : options.fromSource
    ? ['--import', 'tsx', 'src/main.ts']
    : ['dist/src/main.js'];
  if (!options.deno && !options.fromSource && !existsSync(`${ROOT}dist/src/main.js`)) {
    throw new UsageError('dist/src/main.js is missing: run `npm run build` first (or pass --from-source)');
  }
  const args = [...entry, '--host', '127.0.0.1', '--port', '0', '--token', token, '--log-level', 'warn'];
  // Room for every client's session (plus the monitor's) when there are many clients.
  if (options.clients + 1 > 16) args.push('--max-sessions', String(options.clients + 1));
  // Settings of the environment must not change what is measured (the browser path may stay).
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('PAGEWIRE_') || key === 'PAGEWIRE_BROWSER'));
  const child = spawn(program, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let exited = false;
  const exit = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      exited = true;
      resolve(code);
    })
  );
  const stderrLines: string[] = [];
  const errorLines: string[] = [];
  let partial = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    partial += chunk.toString();
    const lines = partial.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (stderrLines.length < 100) stderrLines.push(line);
      if (/^\[pagewire\] error\b/.test(line)) errorLines.push(line);
    }
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('the server printed no ready line within 60 s')), 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /^pagewire listening on (ws:\/\/127\.0\.0\.1:\d+\/\?token=\S+)$/m.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    void exit.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}) before its ready line: ${stderrLines.join('\n')}`));
    });
  });
  return {
    child,
    pid: child.pid!,
    url,
    command: `${options.deno ? 'deno' : 'node'} ${args.join(' ').replace(token, '…')}`,
    exit,
    exitedEarly: () => exited,
    stderrLines,
    errorLines,
  };
}

let pageSize = 4096;
try {
  pageSize = Number(execFileSync('getconf', ['PAGESIZE'], { encoding: 'utf8' }).trim()) || 4096;
} catch {
  // getconf missing: the usual page size.
}

/** Resident memory of every process under the server (the browser), in bytes. */
function browserRss(serverPid: number): number {
  let total = 0;
  for (const proc of descendants(serverPid)) {
    try {
      total += Number(readFileSync(`/proc/${proc.pid}/statm`, 'utf8').split(' ')[1]) * pageSize;
    } catch {
      // exited meanwhile
    }
  }
  return total;
}

// ---- clients -------------------------------------------------------------------------------

interface ClientStats {
  name: string;
  sessionId: string;
  rounds: number;
  observes: number;
  acts: Record<string, number>;
  tabsOpened: number;
  /** Closed tabs this client had observed (each leaves one retained state, up to a bound). */
  observedTabsClosed: number;
  navigations: number;
  /** Navigations that brought a crashed tab back (each follows a crash event, itself a failure). */
  recoveries: number;
  screenshots: number;
  failures: number;
}

/**
 * The two same-origin pages every client moves between (issue 16 point 3: four clients on these
 * crashed renderers): what each must show, and the click whose effect `expect` checks.
 */
const PAGES = {
  counter: {
    path: '/counter.html',
    controls: ['Increment', 'Reset'],
    click: 'Increment',
    expect: (clicks: number) => ({ selector: '#count', text: `Count: ${clicks}` }),
  },
  signup: {
    path: '/signup.html',
    controls: ['Email address', 'Password', 'Invite code', 'Create account', 'Sign in'],
    click: 'Create account',
    expect: (clicks: number) => ({ selector: '#form-error', text: `Enter a valid email address (attempt ${clicks})` }),
  },
} as const;
type Page = keyof typeof PAGES;
/** Rounds between two navigations to the other page. */
const NAVIGATE_EVERY = 5;

class LoadClient {
  readonly stats: ClientStats;
  readonly #client: SoakClient;
  readonly #fixtures: FixtureServer;
  #page: Page = 'counter';
  /** Clicks since the current document loaded: what the page must say after the next one. */
  #clicks = 0;
  /** A state we may act on: the last observation or act's fresh state. */
  #state: Observation | undefined;

  private constructor(client: SoakClient, fixtures: FixtureServer, sessionId: string) {
    this.#client = client;
    this.#fixtures = fixtures;
    this.stats = {
      name: client.name,
      sessionId,
      rounds: 0,
      observes: 0,
      acts: {},
      tabsOpened: 0,
      observedTabsClosed: 0,
      navigations: 0,
      recoveries: 0,
      screenshots: 0,
      failures: 0,
    };
    // A crashed renderer is a failure of the run whatever the client does next.
    client.onEvent = (params) => {
      if (params['kind'] === 'crash') problem('crash event', `${client.name}: ${JSON.stringify(params['data'])}`);
    };
  }

  /** A connection, a session following its own crash events, and its one tab at counter.html. */
  static async create(url: string, fixtures: FixtureServer, index: number): Promise<LoadClient> {
    const client = await SoakClient.connect(url, `client-${index + 1}`);
    const { session_id, target_id } = await client.call('session.create', {
      name: `soak-${index + 1}`,
      viewport: { width: 1000, height: 800 },
    });
    const load = new LoadClient(client, fixtures, session_id);
    await client.call('events.subscribe', { session_id, kinds: ['crash'] });
    await client.call('tabs.new', { session_id, url: fixtures.url(PAGES.counter.path) });
    await client.call('tabs.close', { session_id, target_id });
    return load;
  }

  async run(deadline: number, offset: number): Promise<void> {
    let consecutiveFailures = 0;
    // Clients start apart and open their background tabs in different rounds, so that they do not
    // all start renderers at the same moment.
    await sleep(offset * 250);
    while (Date.now() < deadline) {
      try {
        await this.#round(this.stats.rounds + 1 + offset);
        this.stats.rounds++;
        consecutiveFailures = 0;
      } catch (error) {
        // Recorded where it happened; the next round starts from a fresh observation.
        this.stats.failures++;
        this.#state = undefined;
        if (!(error instanceof RpcFailure)) problem('client failure', `${this.#client.name}: ${String((error as Error)?.stack ?? error)}`);
        if (++consecutiveFailures >= 5) {
          problem('client gave up', `${this.#client.name}: 5 failed rounds in a row`);
          return;
        }
      }
    }
  }

  async close(): Promise<void> {
    try {
      await this.#client.call('session.close', { session_id: this.stats.sessionId });
    } finally {
      await this.#client.close();
    }
  }

  async #round(k: number): Promise<void> {
    const session_id = this.stats.sessionId;
    // Every third round acts straight on the previous act's fresh state; the others observe.
    if (!this.#state || k % 3 !== 0) {
      const since = k % 2 === 0 ? this.#state?.state_id : undefined;
      const o = await this.#observe({ session_id, ...(since ? { since } : {}) });
      if (since && o.diff?.base !== since) {
        problem('observe since without diff', `${this.#client.name}: since ${since} gave diff ${JSON.stringify(o.diff?.base)}`);
      }
      this.#state = o;
      if (o.frames[0]?.reason?.includes('crashed')) await this.#recover();
    }

    const page = PAGES[this.#page];
    await this.#act({ action: 'click', ref: ref(this.#state, page.click), expect: page.expect(this.#clicks + 1) }, 'verified');
    this.#clicks++;
    // And the page as it is after the click: the change the act's fresh state already showed.
    const since = k % 2 === 1 ? this.#state?.state_id : undefined;
    this.#state = await this.#observe({ session_id, ...(since ? { since } : {}) });

    if (k % 8 === 4) await this.#churnTab();
    if (k % NAVIGATE_EVERY === 0) {
      // To the other page: a new document, new refs; what is observed next must be that page.
      const next: Page = this.#page === 'counter' ? 'signup' : 'counter';
      if (!this.#state) this.#state = await this.#observe({ session_id });
      await this.#navigate(next);
      this.#state = await this.#observe({ session_id });
    }
    if (k % 20 === 10) {
      const shot = await this.#client.call('screenshot', { session_id, format: 'jpeg', quality: 40 });
      if (shot.mime !== 'image/jpeg' || shot.data.length === 0) {
        problem('bad screenshot', `${this.#client.name}: ${shot.mime}, ${shot.data.length} chars`);
      }
      this.stats.screenshots++;
    }
  }

  async #navigate(next: Page): Promise<void> {
    this.#page = next;
    this.#clicks = 0;
    await this.#act({ action: 'navigate', url: this.#fixtures.url(PAGES[next].path) }, 'completed');
    this.stats.navigations++;
  }

  /** After a crash (already a problem): the tab must come back with a navigation, as the hint says. */
  async #recover(): Promise<void> {
    this.stats.recoveries++;
    await this.#navigate(this.#page);
  }

  /** A second tab: opened in the background, observed, clicked, listed and closed. */
  async #churnTab(): Promise<void> {
    const session_id = this.stats.sessionId;
    const opened = await this.#client.call('tabs.new', {
      session_id,
      url: this.#fixtures.url('/mutable.html'),
      select: false,
    });
    const { target_id } = opened;
    this.stats.tabsOpened++;
    try {
      if (opened.error_text) {
        problem('page did not load', `${this.#client.name}: tabs.new mutable.html: ${opened.error_text}`);
        throw new RpcFailure('tabs.new: page did not load');
      }
      const o = await this.#observe({ session_id, target_id });
      if (o.target_id !== target_id) problem('wrong target', `${this.#client.name}: observed ${o.target_id}, asked ${target_id}`);
      const r = await this.#client.call('act', { session_id, state_id: o.state_id, action: 'click', ref: ref(o, 'Bravo') });
      this.#checkAct(r, 'completed');
      const { frames } = await this.#client.call('frames.list', { session_id, target_id });
      if (frames.length !== 1) problem('unexpected frames', `${this.#client.name}: mutable.html has ${frames.length} frames`);
      const { tabs } = await this.#client.call('tabs.list', { session_id });
      if (tabs.length !== 2 || tabs.find((t) => t.target_id === target_id)?.selected !== false) {
        problem('unexpected tabs', `${this.#client.name}: ${JSON.stringify(tabs)}`);
      }
    } finally {
      await this.#client.call('tabs.close', { session_id, target_id });
      this.stats.observedTabsClosed++;
    }
  }

  /** An observation of the selected tab, which must show its page's controls. */
  async #observe(params: Record<string, unknown>): Promise<Observation> {
    const o = await this.#client.call('observe', params);
    this.stats.observes++;
    if (params['target_id'] === undefined) this.#checkControls(o, 'observe');
    return o;
  }

  async #act(action: Record<string, unknown>, want: 'completed' | 'verified'): Promise<void> {
    const r = await this.#client.call('act', { session_id: this.stats.sessionId, state_id: this.#state!.state_id, ...action });
    this.#state = r.observation === 'captured' ? r.fresh_state : undefined;
    this.#checkAct(r, want);
    this.#checkControls(r.fresh_state!, `act ${action['action']}`);
  }

  /** Every observation of the client's tab shows the controls of the page it is on. */
  #checkControls(o: Observation, what: string): void {
    const names = new Set(o.elements.map((e) => e.name));
    const missing = PAGES[this.#page].controls.filter((name) => !names.has(name));
    if (missing.length === 0) return;
    if (o.frames[0]?.reason?.includes('crashed') && what === 'observe') return; // the crash event says it; #recover follows
    problem(
      'page controls missing',
      `${this.#client.name}: ${what} on ${PAGES[this.#page].path} lacks ${missing.join(', ')}; frames ${JSON.stringify(o.frames)}`,
    );
    throw new RpcFailure(`${what}: controls missing`);
  }

  #checkAct(r: ActResult, want: 'completed' | 'verified'): void {
    this.stats.acts[r.status] = (this.stats.acts[r.status] ?? 0) + 1;
    if (r.status !== want || r.execution !== 'completed' || r.observation !== 'captured' || !r.fresh_state) {
      problem(
        'act not completed',
        `${this.#client.name}: wanted ${want}, got ${r.status} (${r.execution}, ${r.observation}) ${r.error_type ?? ''} ${
          r.error_text ?? ''
        }`,
      );
      throw new RpcFailure(`act ${r.status}`);
    }
  }
}

/** The ref of the element named `name`; a missing one is recorded as a problem. */
function ref(o: Observation | undefined, name: string): string {
  const element = o && elementNamed(o, name);
  if (!element) {
    problem('element missing', `no element named ${JSON.stringify(name)} in the observation:\n${o?.tree.slice(0, 300)}`);
    throw new RpcFailure(`no element ${name}`);
  }
  return element.ref;
}

// ---- subscribers ---------------------------------------------------------------------------

interface Subscription {
  id: string;
  sessionId: string;
  lastSeq: number | undefined;
}

/** The wire's own kinds: a kind added to the protocol is a kind the soak accepts. */
const EVENT_KINDS: ReadonlySet<string> = new Set(WIRE_EVENT_KINDS);

class Subscriber {
  readonly client: SoakClient;
  readonly byKind: Record<string, number> = {};
  readonly sessionsClosed = new Set<string>();
  dropped = 0;
  resubscriptions = 0;
  readonly #subs = new Map<string, Subscription>();
  readonly #ended = new Set<string>();
  readonly #bySession = new Map<string, Subscription>();

  private constructor(client: SoakClient) {
    this.client = client;
    client.onEvent = (params) => this.#onEvent(params);
  }

  static async create(url: string, index: number, sessionIds: string[]): Promise<Subscriber> {
    const subscriber = new Subscriber(await SoakClient.connect(url, `subscriber-${index + 1}`));
    for (const sessionId of sessionIds) await subscriber.#subscribe(sessionId, 0, undefined);
    return subscriber;
  }

  get events(): number {
    return Object.values(this.byKind).reduce((a, b) => a + b, 0);
  }

  /** Ends one subscription and continues it with after_seq: nothing may be lost or repeated. */
  async resubscribe(sessionId: string): Promise<void> {
    const old = this.#bySession.get(sessionId);
    if (!old) return;
    await this.client.call('events.unsubscribe', { subscription_id: old.id });
    this.#subs.delete(old.id);
    this.#ended.add(old.id);
    await this.#subscribe(sessionId, old.lastSeq ?? 0, old.lastSeq);
    this.resubscriptions++;
  }

  async #subscribe(sessionId: string, afterSeq: number, lastSeq: number | undefined): Promise<void> {
    // Known from the moment its reply is read: its first events may follow in the same chunk.
    await this.client.call('events.subscribe', { session_id: sessionId, after_seq: afterSeq }, ({ subscription_id }) => {
      const sub: Subscription = { id: subscription_id, sessionId, lastSeq };
      this.#subs.set(subscription_id, sub);
      this.#bySession.set(sessionId, sub);
    });
  }

  #onEvent(params: Record<string, unknown>): void {
    const name = this.client.name;
    const { subscription_id: id, seq, kind, session_id: sessionId, time, data, dropped } = params;
    if (
      typeof id !== 'string' || typeof seq !== 'number' || !EVENT_KINDS.has(kind as string) || typeof sessionId !== 'string' ||
      typeof time !== 'number' || !data || typeof data !== 'object'
    ) {
      problem('malformed event', `${name}: ${JSON.stringify(params).slice(0, 300)}`);
      return;
    }
    const sub = this.#subs.get(id);
    if (!sub) {
      problem(this.#ended.has(id) ? 'event after unsubscribe' : 'event for an unknown subscription', `${name}: ${id} seq ${seq}`);
      return;
    }
    if (sub.sessionId !== sessionId) problem('event of another session', `${name}: ${id} is for ${sub.sessionId}, got ${sessionId}`);
    if (typeof dropped === 'number') this.dropped += dropped;
    if (sub.lastSeq !== undefined) {
      if (seq <= sub.lastSeq) problem('event seq out of order', `${name}: ${sessionId} seq ${seq} after ${sub.lastSeq}`);
      else if (seq !== sub.lastSeq + 1 && typeof dropped !== 'number') {
        problem('event seq gap', `${name}: ${sessionId} seq ${seq} after ${sub.lastSeq} without dropped`);
      }
    }
    sub.lastSeq = seq;
    this.byKind[kind as string] = (this.byKind[kind as string] ?? 0) + 1;
    if (kind === 'session_closed') this.sessionsClosed.add(sessionId);
  }
}

// ---- samples and checks ----------------------------------------------------------------------

interface Sample {
  t_s: number;
  rss_bytes: number;
  heap_used_bytes: number;
  cdp_listeners: number;
  cdp_sessions: number;
  tabs: number;
  sessions: number;
  states: number;
  /** states minus what closed tabs may keep by design (bounded per session). */
  live_states: number;
  pending_requests: number;
  pending_cdp_calls: number;
  subscriptions: number;
  /** CDP listeners above the idle browser's, per open tab. */
  listeners_per_tab: number;
  browser_rss_bytes: number;
}

type Info = ServerInfoResult;

interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

const TRACKED = [
  'rss_bytes',
  'heap_used_bytes',
  'cdp_listeners',
  'listeners_per_tab',
  'tabs',
  'sessions',
  'states',
  'live_states',
  'pending_requests',
  'subscriptions',
  'browser_rss_bytes',
] as const;

function thirds(samples: Sample[]): { warm: Sample[]; middle: Sample[]; last: Sample[] } | undefined {
  const third = Math.floor(samples.length / 3);
  if (third < 2) return undefined;
  return { warm: samples.slice(0, samples.length - 2 * third), middle: samples.slice(-2 * third, -third), last: samples.slice(-third) };
}

function trendChecks(samples: Sample[], clients: number): Check[] {
  const parts = thirds(samples);
  if (!parts) return [];
  const m = (list: Sample[], key: keyof Sample) => mean(list.map((s) => s[key]));
  const growth = (key: keyof Sample, allowed: number, unit: (n: number) => string = (n) => String(round1(n))): Check => {
    const a = m(parts.middle, key);
    const b = m(parts.last, key);
    return {
      name: `no growth in ${key}`,
      ok: b <= allowed,
      detail: `last third ${unit(b)} ≤ ${unit(allowed)} (middle third ${unit(a)})`,
    };
  };
  const middle = (key: keyof Sample) => m(parts.middle, key);
  return [
    growth('rss_bytes', middle('rss_bytes') * 1.25, mb),
    // Open tabs vary from sample to sample (background tabs come and go); listeners per tab do not.
    growth('listeners_per_tab', middle('listeners_per_tab') * 1.1 + 2),
    growth('sessions', middle('sessions')),
    // A background tab holds at most two states while it is open.
    growth('live_states', middle('live_states') + 2 * clients),
    growth('pending_requests', middle('pending_requests') + Math.max(2, Math.ceil(clients / 4))),
  ];
}

function table(samples: Sample[]): string[] {
  const parts = thirds(samples) ?? { warm: samples, middle: [], last: [] };
  const fmt = (key: string, n: number) => (key.endsWith('bytes') ? mb(n) : String(round1(n)));
  const lines = [`  ${'count'.padEnd(18)} ${'warm-up'.padStart(10)} ${'middle'.padStart(10)} ${'last'.padStart(10)} ${'max'.padStart(10)}`];
  for (const key of TRACKED) {
    const cell = (list: Sample[]) => (list.length ? fmt(key, mean(list.map((s) => s[key]))) : '-');
    const max = samples.length ? fmt(key, Math.max(...samples.map((s) => s[key]))) : '-';
    lines.push(
      `  ${key.padEnd(18)} ${cell(parts.warm).padStart(10)} ${cell(parts.middle).padStart(10)} ${cell(parts.last).padStart(10)} ${
        max.padStart(10)
      }`,
    );
  }
  return lines;
}

// ---- the run -------------------------------------------------------------------------------

async function soak(options: Options): Promise<boolean> {
  const durationMs = Math.round(options.minutes * 60_000);
  const token = `soak-${randomBytes(16).toString('hex')}`;
  const checks: Check[] = [];
  const samples: Sample[] = [];
  const fixtures = await startFixtureServer();
  let server: ServerProcess | undefined;
  const stopServer = () => server?.child.exitCode === null && server.child.kill('SIGKILL');
  process.once('SIGINT', () => {
    stopServer();
    process.exit(130);
  });
  try {
    server = await startServer(options, token);
    const url = server.url;
    console.log(
      `pagewire soak: ${options.minutes} min, ${options.clients} clients, ${options.subscribers} subscribers, samples every ${options.sampleS} s`,
    );
    console.log(`server: ${server.command} (pid ${server.pid}), fixtures on ${fixtures.origin}`);

    // Idle baseline with a running browser: a session made and closed by the monitor.
    const monitor = await SoakClient.connect(url, 'monitor');
    const warm = await monitor.call('session.create', { name: 'soak-monitor' });
    await monitor.call('session.close', { session_id: warm.session_id });
    const idle = await monitor.call('server.info');
    const limits = idle.limits;

    const clients = await Promise.all(Array.from({ length: options.clients }, (_, i) => LoadClient.create(url, fixtures, i)));
    const sessionIds = clients.map((c) => c.stats.sessionId);
    const subscribers = await Promise.all(Array.from({ length: options.subscribers }, (_, i) => Subscriber.create(url, i, sessionIds)));

    const loadStart = Date.now();
    const deadline = loadStart + durationMs;
    const closedTabStates = () =>
      clients.reduce((sum, c) => sum + Math.min(limits['states_kept_for_closed_tabs'] ?? 64, c.stats.observedTabsClosed), 0);
    const sample = async (): Promise<void> => {
      const retained = closedTabStates();
      const { counts } = await monitor.call('server.info');
      const n = (key: keyof typeof counts) => counts[key] ?? 0;
      const s: Sample = {
        t_s: Math.round((Date.now() - loadStart) / 1000),
        rss_bytes: n('rss_bytes'),
        heap_used_bytes: n('heap_used_bytes'),
        cdp_listeners: n('cdp_listeners'),
        cdp_sessions: n('cdp_sessions'),
        tabs: n('tabs'),
        sessions: n('sessions'),
        states: n('states'),
        live_states: n('states') - retained,
        pending_requests: n('pending_requests'),
        pending_cdp_calls: n('pending_cdp_calls'),
        subscriptions: n('subscriptions'),
        listeners_per_tab: n('tabs') > 0 ? (n('cdp_listeners') - (idle.counts['cdp_listeners'] ?? 0)) / n('tabs') : 0,
        browser_rss_bytes: browserRss(server!.pid),
      };
      samples.push(s);
      const rounds = clients.reduce((sum, c) => sum + c.stats.rounds, 0);
      const events = subscribers.reduce((sum, sub) => sum + sub.events, 0);
      console.log(
        `  t=${String(s.t_s).padStart(4)}s rounds=${rounds} events=${events} sessions=${s.sessions} tabs=${s.tabs} states=${s.states} ` +
          `in_flight=${s.pending_requests} cdp_listeners=${s.cdp_listeners} rss=${mb(s.rss_bytes)} heap=${mb(s.heap_used_bytes)} browser=${
            mb(s.browser_rss_bytes)
          } problems=${problems.length}`,
      );
    };

    // Each subscriber in turn re-subscribes to one session every few seconds.
    let resubscribing = Promise.resolve();
    let turn = 0;
    const ticker = setInterval(() => {
      if (subscribers.length === 0) return;
      const subscriber = subscribers[turn % subscribers.length]!;
      const sessionId = sessionIds[turn % sessionIds.length]!;
      turn++;
      resubscribing = resubscribing.then(() => subscriber.resubscribe(sessionId)).catch(() => {});
    }, 7_000);

    const sampleEveryMs = options.sampleS * 1000;
    let sampling = Promise.resolve();
    const sampler = setInterval(() => {
      if (Date.now() <= deadline + 500) sampling = sampling.then(sample).catch(() => {});
    }, sampleEveryMs);

    const runs = clients.map((c, i) => c.run(deadline, i));
    await Promise.all(runs);
    clearInterval(sampler);
    clearInterval(ticker);
    await sampling;
    await resubscribing;
    const loadMs = Date.now() - loadStart;

    // Wind down: sessions close, subscribers must hear session_closed for every one of them.
    await Promise.race([
      Promise.all(clients.map((c) => c.close().catch(() => {}))),
      new Promise((resolve) => setTimeout(resolve, WIND_DOWN_MS)).then(() =>
        problem('wind-down', `clients did not close within ${WIND_DOWN_MS / 1000} s`)
      ),
    ]);
    const heardEnd = Date.now() + SETTLE_MS;
    while (Date.now() < heardEnd && subscribers.some((sub) => sub.sessionsClosed.size < sessionIds.length)) await sleep(100);
    for (const sub of subscribers) {
      checks.push({
        name: `${sub.client.name} heard session_closed of every session`,
        ok: sub.sessionsClosed.size === sessionIds.length,
        detail: `${sub.sessionsClosed.size} of ${sessionIds.length}`,
      });
      await sub.client.close();
    }

    // Back to idle: every count as before the load, within a bounded wait.
    const settledBy = Date.now() + SETTLE_MS;
    let final: Info;
    const isIdle = (info: Info) =>
      info.counts['sessions'] === 0 &&
      // The browser's own first tab (outside every session) stays.
      info.counts['tabs'] === idle.counts['tabs'] &&
      info.counts['states'] === 0 &&
      info.counts['subscriptions'] === 0 &&
      info.counts['pending_requests'] === 1 &&
      info.counts['pending_cdp_calls'] === 0 &&
      info.counts['cdp_sessions'] === idle.counts['cdp_sessions'] &&
      info.counts['cdp_listeners'] === idle.counts['cdp_listeners'];
    for (;;) {
      final = await monitor.call('server.info');
      if (isIdle(final) || Date.now() > settledBy) break;
      await sleep(200);
    }
    const pick = (info: Info) =>
      JSON.stringify(
        Object.fromEntries(
          ([
            'sessions',
            'tabs',
            'states',
            'subscriptions',
            'pending_requests',
            'pending_cdp_calls',
            'cdp_sessions',
            'cdp_listeners',
          ] as const).map((k) => [k, info.counts[k]]),
        ),
      );
    checks.push({
      name: 'counts back to idle after the sessions closed',
      ok: isIdle(final),
      detail: `idle ${pick(idle)}, after ${pick(final)}`,
    });
    const memoryLine = `  server rss: idle ${mb(idle.counts['rss_bytes'] ?? 0)}, peak ${
      mb(Math.max(
        0,
        ...samples.map((s) => s.rss_bytes),
      ))
    }, ` +
      `after the sessions closed ${mb(final.counts['rss_bytes'] ?? 0)}; browser peak ${
        mb(Math.max(0, ...samples.map((s) => s.browser_rss_bytes)))
      }`;
    await monitor.close();

    // SIGTERM: exit 0 and no browser process left.
    const browsers = descendants(server.pid).map((p) => p.pid);
    const early = server.exitedEarly();
    server.child.kill('SIGTERM');
    const code = await Promise.race([server.exit, sleep(EXIT_MS).then(() => 'timeout' as const)]);
    if (code === 'timeout') server.child.kill('SIGKILL');
    const left = await waitUntilGone(browsers, 10_000);
    checks.push({ name: 'server ran until stopped', ok: !early, detail: early ? 'it exited during the soak' : 'yes' });
    checks.push({ name: 'SIGTERM: server exits 0', ok: code === 0, detail: `exit ${code}` });
    checks.push({
      name: 'no browser process left',
      ok: browsers.length > 0 && left.length === 0,
      detail: `${browsers.length} browser processes, ${left.length} left`,
    });
    checks.push({
      name: 'no error lines in the server log',
      ok: server.errorLines.length === 0,
      detail: server.errorLines.slice(0, 3).join(' | ') || 'none',
    });

    // ---- summary ----
    const rounds = clients.reduce((sum, c) => sum + c.stats.rounds, 0);
    const acts: Record<string, number> = {};
    for (const c of clients) for (const [status, n] of Object.entries(c.stats.acts)) acts[status] = (acts[status] ?? 0) + n;
    const sum = (key: keyof ClientStats) => clients.reduce((total, c) => total + (c.stats[key] as number), 0);
    const byKind: Record<string, number> = {};
    for (const sub of subscribers) for (const [kind, n] of Object.entries(sub.byKind)) byKind[kind] = (byKind[kind] ?? 0) + n;
    const protocolErrors = [...problemCounts.values()].reduce((a, b) => a + b, 0);
    checks.unshift({
      name: 'no protocol errors',
      ok: protocolErrors === 0,
      detail: protocolErrors === 0 ? '0' : [...problemCounts].map(([what, n]) => `${what} ×${n}`).join(', '),
    });
    checks.splice(1, 0, {
      name: 'every client made progress',
      ok: clients.every((c) => c.stats.rounds > 0),
      detail: clients.map((c) => c.stats.rounds).join('/') + ' rounds',
    });
    // Counted among the problems above too; named here so that a failed run says so at once.
    const crashes = problemCounts.get('crash event') ?? 0;
    const incomplete = problemCounts.get('page controls missing') ?? 0;
    checks.splice(2, 0, {
      name: 'no renderer crashed',
      ok: crashes === 0,
      detail: `${crashes} crash events, ${sum('recoveries')} tabs navigated again`,
    });
    checks.splice(3, 0, { name: "every observation showed its page's controls", ok: incomplete === 0, detail: `${incomplete} without` });
    const trends = trendChecks(samples, options.clients);
    if (trends.length === 0) {
      checks.push({ name: 'growth trend', ok: true, detail: `skipped: ${samples.length} samples are too few (need 6; run longer)` });
    }
    checks.push(...trends);
    const boundOk = samples.every((s) =>
      s.states <= s.sessions * (limits['states_retained_per_session'] ?? 256) && s.tabs <= s.sessions * (limits['tabs_per_session'] ?? 20)
    );
    checks.push({
      name: 'states and tabs within their limits at every sample',
      ok: boundOk,
      detail: `max states ${Math.max(0, ...samples.map((s) => s.states))}, max tabs ${Math.max(0, ...samples.map((s) => s.tabs))}`,
    });

    const ok = checks.every((c) => c.ok);
    const lat = (method: string) => {
      const sorted = ascending(latencies.get(method) ?? []);
      // A method never called prints 0/0/0 (0), not NaN.
      const at = (q: number) => (sorted.length === 0 ? 0 : Math.round(percentile(sorted, q)));
      return `${method} ${at(0.5)}/${at(0.95)}/${Math.round(sorted.at(-1) ?? 0)} (${sorted.length})`;
    };
    console.log('');
    const calls = [...latencies.values()].reduce((total, list) => total + list.length, 0);
    console.log(`summary (load ${round1(loadMs / 1000)} s, ${samples.length} samples, ${calls} calls answered):`);
    console.log(
      `  ${rounds} rounds, ${sum('observes')} observes, acts ${JSON.stringify(acts)}, ${
        sum('tabsOpened')
      } background tabs opened and closed, ` +
        `${sum('navigations')} navigations (${sum('recoveries')} after a crash), ${sum('screenshots')} screenshots`,
    );
    console.log(
      `  latency ms p50/p95/max (calls): ${['observe', 'act', 'tabs.new', 'tabs.close', 'screenshot', 'server.info'].map(lat).join(', ')}`,
    );
    console.log(
      `  events ${JSON.stringify(byKind)}, dropped ${subscribers.reduce((a, s) => a + s.dropped, 0)}, ` +
        `re-subscriptions ${subscribers.reduce((a, s) => a + s.resubscriptions, 0)}`,
    );
    console.log(memoryLine);
    for (const line of table(samples)) console.log(line);
    console.log('checks:');
    for (const check of checks) console.log(`  ${check.ok ? 'PASS' : 'FAIL'} ${check.name}: ${check.detail}`);
    for (const p of problems.slice(0, 20)) console.log(`  problem at ${p.at_s}s: ${p.what}: ${p.detail}`);
    console.log(`soak result: ${ok ? 'PASS' : 'FAIL'}`);

    if (options.json) {
      writeFileSync(
        options.json,
        `${
          JSON.stringify(
            {
              options,
              load_ms: loadMs,
              calls,
              rounds,
              observes: sum('observes'),
              acts,
              background_tabs: sum('tabsOpened'),
              navigations: sum('navigations'),
              recoveries: sum('recoveries'),
              screenshots: sum('screenshots'),
              events: byKind,
              limits,
              idle_counts: idle.counts,
              final_counts: final.counts,
              samples,
              checks,
              problems,
              ok,
            },
            null,
            2,
          )
        }\n`,
      );
    }
    return ok;
  } finally {
    stopServer();
    await fixtures.close();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

let options: Options | 'help';
try {
  options = parseArgs(process.argv.slice(2));
} catch (error) {
  console.error(`soak: ${(error as Error).message}\n\n${HELP}`);
  process.exit(2);
}
if (options === 'help') {
  console.log(HELP);
  process.exit(0);
}
try {
  const ok = await soak(options);
  process.exit(ok ? 0 : 1);
} catch (error) {
  if (error instanceof UsageError) {
    console.error(`soak: ${error.message}`);
    process.exit(2);
  }
  console.error(`soak: failed: ${String((error as Error)?.stack ?? error)}`);
  process.exit(1);
}
