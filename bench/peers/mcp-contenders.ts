// The three MCP peers, each started headless on the same Chromium and driven over stdio by the
// bench's own MCP client (bench/peers/mcp-client.ts), with their default tool options. Every
// contender gets a 1280×720 viewport. Running as root, Chromium needs --no-sandbox: each peer is
// told so in its own way (pagewire adds it by itself when it runs as root).
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpClient, resultText, type ToolResult } from './mcp-client.ts';
import { TAG_VAR } from './procs.ts';
import {
  type ActOutcome,
  type Contender,
  errorText,
  mutateJs,
  type NavOutcome,
  type ObserveOutcome,
  type PageSpec,
  utf8,
  WAIT_FOR_LOAD_JS,
} from './contender.ts';
import { countInteractive, findRef, type TextFormat } from './snapshot-text.ts';

const BENCH_DIR = fileURLToPath(new URL('../', import.meta.url));
const MODULES = join(BENCH_DIR, 'node_modules');
const require = createRequire(join(BENCH_DIR, 'package.json'));

const RUNNING_AS_ROOT = typeof process.getuid === 'function' && process.getuid() === 0;
const CALL_TIMEOUT_MS = 60_000;

export function installedVersion(pkg: string): string | undefined {
  try {
    return (require(`${pkg}/package.json`) as { version: string }).version;
  } catch {
    return undefined;
  }
}

/** Why a package cannot be used, or undefined when it is installed. */
function missing(pkg: string): string | undefined {
  return installedVersion(pkg) ? undefined : `${pkg} is not installed in bench/node_modules (run: npm --prefix bench ci)`;
}

abstract class McpContender implements Contender {
  abstract readonly id: string;
  abstract readonly label: string;
  abstract readonly format: TextFormat;
  abstract readonly calls: Contender['calls'];
  abstract readonly clickObservation: Contender['clickObservation'];
  version = 'unknown';
  command = '';
  readonly tag: string;
  protected readonly browser: string;
  protected client: McpClient | undefined;
  /** A throw-away working directory (made at start, removed at stop). */
  protected workDir = '';
  /** The model-facing text of the last answer that carried refs. */
  protected lastSnapshot = '';

  constructor(tag: string, browser: string) {
    this.tag = tag;
    this.browser = browser;
  }

  pids(): number[] {
    return this.client?.pid ? [this.client.pid] : [];
  }

  protected abstract spawnSpec(): { command: string; args: string[]; env: Record<string, string>; shown: string };

  async start(): Promise<void> {
    this.workDir = mkdtempSync(join(tmpdir(), `pagewire-bench-${this.id}-`));
    const spec = this.spawnSpec();
    this.command = spec.shown;
    this.client = await McpClient.start({
      command: spec.command,
      args: spec.args,
      env: { ...(process.env as Record<string, string>), ...spec.env, [TAG_VAR]: this.tag },
      cwd: this.workDir,
      timeoutMs: CALL_TIMEOUT_MS,
    });
    const info = this.client.serverInfo;
    this.version = info ? `${info.name} ${info.version}` : 'unknown';
  }

  protected get mcp(): McpClient {
    if (!this.client) throw new Error(`${this.label} is not started`);
    return this.client;
  }

  /** Calls a tool; a result with isError becomes an exception carrying its text. */
  protected async tool(name: string, args: Record<string, unknown>): Promise<{ result: ToolResult; text: string }> {
    const result = await this.mcp.callTool(name, args);
    const text = resultText(result);
    if (result.isError) throw new Error(`${name}: ${text.slice(0, 500)}`);
    return { result, text };
  }

  protected abstract snapshotCall(): Promise<string>;

  async observe(): Promise<ObserveOutcome> {
    const text = await this.snapshotCall();
    this.lastSnapshot = text;
    return { text, interactive: countInteractive(text, this.format), wire_bytes: utf8(text) };
  }

  /** The tool's snapshot has no limit to raise: the same call. */
  observeMore(): Promise<ObserveOutcome> {
    return this.observe();
  }

  async prepare(_page: PageSpec): Promise<void> {
    this.lastSnapshot = await this.snapshotCall();
  }

  protected ref(role: string, name: string): string {
    const ref = findRef(this.lastSnapshot, this.format, role, name);
    if (!ref) throw new Error(`no ${role} "${name}" with a ref in ${this.label}'s last snapshot (${utf8(this.lastSnapshot)} B)`);
    return ref;
  }

  /** True when the text carries an inline snapshot with refs. */
  protected abstract carriesObservation(text: string): boolean;

  protected async acted(run: () => Promise<string>): Promise<ActOutcome> {
    try {
      const text = await run();
      const observation = this.carriesObservation(text);
      if (observation) this.lastSnapshot = text;
      return { ok: true, observation, text_bytes: utf8(text) };
    } catch (error) {
      return { ok: false, observation: false, text_bytes: 0, error: errorText(error) };
    }
  }

  abstract open(url: string): Promise<void>;
  abstract mutate(i: number): Promise<void>;
  abstract click(page: PageSpec): Promise<ActOutcome>;
  abstract fill(page: PageSpec, text: string): Promise<ActOutcome>;
  abstract navigate(url: string): Promise<NavOutcome>;

  async stop(): Promise<void> {
    await this.client?.close();
    if (this.workDir) rmSync(this.workDir, { recursive: true, force: true });
  }
}

// --- Playwright MCP -----------------------------------------------------------------------------

export class PlaywrightMcpContender extends McpContender {
  readonly id = 'playwright-mcp';
  readonly label = 'Playwright MCP';
  readonly format = 'playwright' as const;
  readonly clickObservation = 'second-call' as const;
  readonly calls = {
    observe: '`browser_snapshot {}`',
    click: '`browser_click {element, target: ref}` (answer links a snapshot file; waits 500 ms to settle by default)',
    click_observed: "not a call of its own: `browser_click` then `browser_snapshot` (the click's answer only links a .yml file)",
    fill: '`browser_type {element, target: ref, text}` (no snapshot)',
    type: '`browser_type {element, target: ref, text, slowly: true}`: one key at a time (no snapshot)',
    select: '`browser_select_option {element, target: ref, values: [label]}` (no snapshot)',
    navigate: '`browser_navigate {url}`: DOMContentLoaded, then load (≤ 5 s), snapshot to a file',
  };

  static unavailable(): string | undefined {
    return missing('@playwright/mcp');
  }

  protected spawnSpec() {
    const cli = join(MODULES, '@playwright/mcp/cli.js');
    const args = [
      cli,
      '--headless',
      '--executable-path',
      this.browser,
      '--isolated',
      '--viewport-size',
      '1280x720',
      '--output-dir',
      join(this.workDir, 'out'),
      ...(RUNNING_AS_ROOT ? ['--no-sandbox'] : []),
    ];
    return {
      command: process.execPath,
      args,
      env: { PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' },
      shown: `node bench/node_modules/@playwright/mcp/cli.js ${args.slice(1).join(' ').replace(this.workDir, '$TMP')}`,
    };
  }

  protected async snapshotCall(): Promise<string> {
    return (await this.tool('browser_snapshot', {})).text;
  }

  protected carriesObservation(text: string): boolean {
    return /```yaml[\s\S]*\[ref=/.test(text);
  }

  async open(url: string): Promise<void> {
    await this.tool('browser_navigate', { url });
    await this.tool('browser_evaluate', { function: `() => ${WAIT_FOR_LOAD_JS}` });
    this.lastSnapshot = await this.snapshotCall();
  }

  async mutate(i: number): Promise<void> {
    await this.tool('browser_evaluate', { function: `() => ${mutateJs(i)}` });
  }

  click(page: PageSpec): Promise<ActOutcome> {
    return this.acted(async () => {
      const target = this.ref(page.click.role, page.click.name);
      return (await this.tool('browser_click', { element: `${page.click.role} "${page.click.name}"`, target })).text;
    });
  }

  fill(page: PageSpec, text: string): Promise<ActOutcome> {
    return this.acted(async () => {
      const target = this.ref(page.fill!.role, page.fill!.name);
      return (await this.tool('browser_type', { element: `${page.fill!.role} "${page.fill!.name}"`, target, text })).text;
    });
  }

  type(page: PageSpec, text: string): Promise<ActOutcome> {
    return this.acted(async () => {
      const target = this.ref(page.fill!.role, page.fill!.name);
      return (await this.tool('browser_type', { element: `${page.fill!.role} "${page.fill!.name}"`, target, text, slowly: true })).text;
    });
  }

  select(page: PageSpec, label: string): Promise<ActOutcome> {
    return this.acted(async () => {
      const target = this.ref(page.select!.role, page.select!.name);
      const element = `${page.select!.role} "${page.select!.name}"`;
      return (await this.tool('browser_select_option', { element, target, values: [label] })).text;
    });
  }

  navigate(url: string): Promise<NavOutcome> {
    return this.acted(async () => (await this.tool('browser_navigate', { url })).text);
  }
}

// --- chrome-devtools-mcp ------------------------------------------------------------------------

export class ChromeDevtoolsMcpContender extends McpContender {
  readonly id = 'chrome-devtools-mcp';
  readonly label = 'chrome-devtools-mcp';
  readonly format = 'chrome-devtools' as const;
  readonly clickObservation = 'option' as const;
  readonly calls = {
    observe: '`take_snapshot {pageId}`',
    click: '`click {pageId, uid}` (no snapshot by default)',
    click_observed: '`click {pageId, uid, includeSnapshot: true}`',
    fill: '`fill {pageId, uid, value}` (no snapshot by default)',
    type: 'two calls (its `type_text` types into the focused element only): `click {pageId, uid}`, then `type_text {pageId, text}`',
    select: '`fill {pageId, uid, value: label}` (its way to choose an option; no snapshot by default)',
    navigate: '`navigate_page {pageId, type: "url", url}` (no snapshot)',
  };
  #pageId = 1;

  static unavailable(): string | undefined {
    return missing('chrome-devtools-mcp');
  }

  protected spawnSpec() {
    const bin = join(MODULES, 'chrome-devtools-mcp/build/src/bin/chrome-devtools-mcp.js');
    const args = [
      bin,
      '--headless',
      '--executablePath',
      this.browser,
      '--isolated',
      '--viewport',
      '1280x720',
      '--no-usage-statistics',
      '--no-performance-crux',
      ...(RUNNING_AS_ROOT ? ['--chromeArg=--no-sandbox'] : []),
    ];
    return {
      command: process.execPath,
      args,
      env: { CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS: '1' },
      shown: `node bench/node_modules/chrome-devtools-mcp/build/src/bin/chrome-devtools-mcp.js ${args.slice(1).join(' ')}`,
    };
  }

  override async start(): Promise<void> {
    await super.start();
    const pages = (await this.tool('list_pages', {})).text;
    const selected = /^(\d+): .*\[selected\]/m.exec(pages) ?? /^(\d+): /m.exec(pages);
    if (!selected) throw new Error(`list_pages named no page: ${pages.slice(0, 200)}`);
    this.#pageId = Number(selected[1]);
  }

  protected async snapshotCall(): Promise<string> {
    return (await this.tool('take_snapshot', { pageId: this.#pageId })).text;
  }

  protected carriesObservation(text: string): boolean {
    return /^\s*uid=\S+ /m.test(text);
  }

  async #evaluate(body: string): Promise<void> {
    await this.tool('evaluate_script', { pageId: this.#pageId, function: `async () => { return await ${body}; }` });
  }

  async open(url: string): Promise<void> {
    await this.tool('navigate_page', { pageId: this.#pageId, type: 'url', url });
    await this.#evaluate(WAIT_FOR_LOAD_JS);
    this.lastSnapshot = await this.snapshotCall();
  }

  async mutate(i: number): Promise<void> {
    await this.#evaluate(mutateJs(i));
  }

  click(page: PageSpec): Promise<ActOutcome> {
    return this.acted(async () =>
      (await this.tool('click', { pageId: this.#pageId, uid: this.ref(page.click.role, page.click.name) })).text
    );
  }

  clickObserved(page: PageSpec): Promise<ActOutcome> {
    return this.acted(
      async () =>
        (await this.tool('click', { pageId: this.#pageId, uid: this.ref(page.click.role, page.click.name), includeSnapshot: true })).text,
    );
  }

  fill(page: PageSpec, text: string): Promise<ActOutcome> {
    return this.acted(
      async () => (await this.tool('fill', { pageId: this.#pageId, uid: this.ref(page.fill!.role, page.fill!.name), value: text })).text,
    );
  }

  type(page: PageSpec, text: string): Promise<ActOutcome> {
    return this.acted(async () => {
      await this.tool('click', { pageId: this.#pageId, uid: this.ref(page.fill!.role, page.fill!.name) });
      return (await this.tool('type_text', { pageId: this.#pageId, text })).text;
    });
  }

  select(page: PageSpec, label: string): Promise<ActOutcome> {
    return this.acted(
      async () =>
        (await this.tool('fill', { pageId: this.#pageId, uid: this.ref(page.select!.role, page.select!.name), value: label })).text,
    );
  }

  navigate(url: string): Promise<NavOutcome> {
    return this.acted(async () => (await this.tool('navigate_page', { pageId: this.#pageId, type: 'url', url })).text);
  }
}

// --- agent-browser ------------------------------------------------------------------------------

/** The native binary agent-browser ships for this platform (its bin/agent-browser.js picks the same). */
export function agentBrowserBinary(): string | undefined {
  const arch = process.arch === 'x64' ? 'x64' : process.arch === 'arm64' ? 'arm64' : undefined;
  if (process.platform !== 'linux' || !arch) return undefined;
  return join(MODULES, `agent-browser/bin/agent-browser-linux-${arch}`);
}

export class AgentBrowserContender extends McpContender {
  readonly id = 'agent-browser';
  readonly label = 'agent-browser';
  readonly format = 'agent-browser' as const;
  readonly clickObservation = 'second-call' as const;
  readonly calls = {
    observe: '`agent_browser_snapshot {}` (MCP default: interactive elements only)',
    click: '`agent_browser_click {selector: "@eN"}` (no snapshot)',
    click_observed: 'not a call of its own: `agent_browser_click` then `agent_browser_snapshot`',
    fill: '`agent_browser_fill {selector: "@eN", text}` (no snapshot)',
    type: '`agent_browser_type {selector: "@eN", text}` (no snapshot)',
    select: '`agent_browser_select {selector: "@eN", values: [label]}` (no snapshot)',
    navigate: '`agent_browser_open {url}` (waits for load; no snapshot)',
  };
  readonly #session: string;

  constructor(tag: string, browser: string) {
    super(tag, browser);
    this.#session = `pwbench${tag.replace(/[^A-Za-z0-9]/g, '')}`;
  }

  static unavailable(): string | undefined {
    const notInstalled = missing('agent-browser');
    if (notInstalled) return notInstalled;
    const binary = agentBrowserBinary();
    if (!binary) return `agent-browser ships no native binary for ${process.platform}-${process.arch} in its npm package`;
    if (!existsSync(binary)) return `agent-browser's native binary is missing: ${binary}`;
    return undefined;
  }

  protected spawnSpec() {
    const binary = agentBrowserBinary()!;
    const env: Record<string, string> = {
      // Its own state (daemon socket, config) goes to a throw-away home, not the user's.
      HOME: this.workDir,
      AGENT_BROWSER_EXECUTABLE_PATH: this.browser,
      AGENT_BROWSER_SESSION: this.#session,
      AGENT_BROWSER_IDLE_TIMEOUT: '30m',
      ...(RUNNING_AS_ROOT ? { AGENT_BROWSER_ARGS: '--no-sandbox' } : {}),
    };
    return {
      command: binary,
      args: ['mcp'],
      env,
      shown: `bench/node_modules/agent-browser/bin/agent-browser-linux-${process.arch} mcp ` +
        `(env AGENT_BROWSER_EXECUTABLE_PATH=${this.browser} AGENT_BROWSER_SESSION=${this.#session}` +
        `${RUNNING_AS_ROOT ? ' AGENT_BROWSER_ARGS=--no-sandbox' : ''} HOME=$TMP)`,
    };
  }

  override async start(): Promise<void> {
    // npm does not keep the executable bit of files in a package; its postinstall (skipped by
    // --ignore-scripts) would set it, so the bench does.
    chmodSync(agentBrowserBinary()!, 0o755);
    await super.start();
  }

  protected async snapshotCall(): Promise<string> {
    return (await this.tool('agent_browser_snapshot', {})).text;
  }

  protected carriesObservation(text: string): boolean {
    return /\bref=e\d+/.test(text);
  }

  async open(url: string): Promise<void> {
    await this.tool('agent_browser_open', { url });
    await this.tool('agent_browser_wait_for_load', { state: 'load' });
    this.lastSnapshot = await this.snapshotCall();
  }

  async mutate(i: number): Promise<void> {
    await this.tool('agent_browser_eval', { script: mutateJs(i) });
  }

  #selector(role: string, name: string): string {
    return `@${this.ref(role, name)}`;
  }

  click(page: PageSpec): Promise<ActOutcome> {
    return this.acted(async () =>
      (await this.tool('agent_browser_click', { selector: this.#selector(page.click.role, page.click.name) })).text
    );
  }

  fill(page: PageSpec, text: string): Promise<ActOutcome> {
    return this.acted(
      async () => (await this.tool('agent_browser_fill', { selector: this.#selector(page.fill!.role, page.fill!.name), text })).text,
    );
  }

  type(page: PageSpec, text: string): Promise<ActOutcome> {
    return this.acted(
      async () => (await this.tool('agent_browser_type', { selector: this.#selector(page.fill!.role, page.fill!.name), text })).text,
    );
  }

  select(page: PageSpec, label: string): Promise<ActOutcome> {
    return this.acted(async () =>
      (await this.tool('agent_browser_select', { selector: this.#selector(page.select!.role, page.select!.name), values: [label] })).text
    );
  }

  navigate(url: string): Promise<NavOutcome> {
    return this.acted(async () => (await this.tool('agent_browser_open', { url })).text);
  }

  override async stop(): Promise<void> {
    // The daemon outlives the MCP server by design (idle timeout): close it the documented way.
    try {
      if (this.client) await this.tool('agent_browser_close', {});
    } catch {
      // the runner kills whatever still carries the tag
    }
    await super.stop();
  }
}
