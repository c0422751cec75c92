// Wires the parts into one running server: config → browser host → sessions → RPC methods →
// MCP tools → the doors: the WebSocket listener with its /mcp route, or MCP over stdio. main.ts
// adds the process concerns (ready line, signals, exit codes); tests start servers through here.
import process from 'node:process';
import type { Config } from './config.ts';
import { readyLine } from './config.ts';
import type { CallContext, RpcConnection } from './rpc/context.ts';
import type { AnyMethodDef } from './rpc/define.ts';
import { SubscriptionHub } from './events/subscriptions.ts';
import { actMethods } from './rpc/methods/act.ts';
import { eventMethods } from './rpc/methods/events.ts';
import { modalMethods } from './rpc/methods/modal.ts';
import { observeMethods } from './rpc/methods/observe.ts';
import { waitMethods } from './rpc/methods/wait.ts';
import { screencastMethods, Screencasts } from './rpc/methods/screencast.ts';
import { screenshotForAct, screenshotMethods } from './rpc/methods/screenshot.ts';
import { sessionMethods } from './rpc/methods/sessions.ts';
import { type ServerLimits, serverMethods } from './rpc/methods/server.ts';
import { tabMethods } from './rpc/methods/tabs.ts';
import { PendingLimit, RpcServer } from './rpc/server.ts';
import { McpHost } from './mcp/host.ts';
import { MCP_CORS, McpHttpRoute } from './runtime/mcp-http.ts';
import { serveMcpStdio } from './runtime/mcp-stdio.ts';
import { VERSION } from './version.ts';
import type { Principal } from './rpc/context.ts';
import { connectBrowser, findBrowser, launchBrowser } from './runtime/browser-process.ts';
import { DEFAULT_MAX_MESSAGE_BYTES, HttpListener } from './runtime/http-server.ts';
import { RPC_CORS, rpcHttpRoute } from './runtime/rpc-http.ts';
import { INSPECTOR_PATHS, inspectorRoute } from './runtime/inspector-route.ts';
import { type Health, healthzRoute } from './runtime/healthz-route.ts';
import { Deadline } from './util/deadline.ts';
import { UploadPolicy } from './runtime/upload-paths.ts';
import { BrowserHost, type BrowserLauncher } from './sessions/browser-host.ts';
import { SessionRegistry } from './sessions/registry.ts';
import { SessionDownloads } from './sessions/session-downloads.ts';
import { DownloadFolders, NodeDownloadFiles } from './runtime/download-files.ts';
import { downloadMethods } from './rpc/methods/downloads.ts';
import { pdfMethods } from './rpc/methods/pdf.ts';
import { traceMethods } from './rpc/methods/traces.ts';
import { TraceFiles } from './runtime/trace-files.ts';
import { oneTraceFile, traceRoute, TRACES_PATH } from './runtime/trace-route.ts';
import { SessionFiles } from './runtime/saved-files.ts';
import { nodeFileReader } from './runtime/text-files.ts';
import { DEFAULT_MAX_RECORDS as STATES_PER_SESSION, KEPT_FOR_CLOSED_TABS, KEPT_PER_TAB } from './observe/state-store.ts';
import { networkMethods } from './rpc/methods/network.ts';
import { redactMethodOutputs } from './rpc/output-redaction.ts';
import { startSocksProxy } from './runtime/socks-proxy.ts';
import { ENTRIES_PER_TAB as NETWORK_ENTRIES_PER_TAB } from './sessions/network-log.ts';
import { scrubCdpMessage } from './util/cdp-trace.ts';
import { DomainPolicy } from './sessions/domain-policy.ts';
import { IdSequence } from './util/ids.ts';
import { type KnownSecret, redactSecrets } from './util/redact.ts';
import { secretForms, SecretStore } from './util/secrets.ts';
import { clipMiddle, type Logger, silentLogger } from './util/log.ts';

export interface RunningServer {
  /** `ws://HOST:PORT/` */
  readonly url: string;
  /** `http://HOST:PORT/mcp`: MCP Streamable HTTP, behind the same token. */
  readonly mcpUrl: string;
  /** `http://HOST:PORT/inspector`: the inspector page (add `?token=`). */
  readonly inspectorUrl: string;
  /** `http://HOST:PORT/rpc`: JSON-RPC over plain HTTP (POST), behind the same token. */
  readonly rpcUrl: string;
  readonly mcp: McpHost;
  /** The line main prints: `pagewire listening on ws://HOST:PORT/?token=TOKEN`. */
  readonly readyLine: string;
  readonly host: BrowserHost;
  readonly registry: SessionRegistry;
  readonly hub: SubscriptionHub;
  readonly screencasts: Screencasts;
  /**
   * SIGTERM's first half: no new sessions (`/healthz` answers 503), and resolves once the calls
   * queued on open sessions have finished or `--drain-timeout-s` ran out; `close` follows.
   */
  drain(): Promise<void>;
  /** Stops accepting, ends what is in flight, closes every browser we launched. Idempotent. */
  close(): Promise<void>;
}

export interface StartOptions {
  log?: Logger;
  /** e.g. `node v20.20.2` or `deno 2.9.6`. */
  runtime: string;
}

const CONNECT_TIMEOUT_MS = 10_000;

export function browserLauncher(config: Config, log: Logger): BrowserLauncher {
  return async () => {
    const executable = findBrowser(config.browser);
    const proc = await launchBrowser({
      executable,
      headful: config.headful,
      onStderr: (line) => log.debug(line),
    });
    return { transport: proc.transport, pid: proc.pid, exited: proc.exited, shutdown: () => proc.kill() };
  };
}

export function serverLimits(config: Config): ServerLimits {
  return {
    max_sessions: config.maxSessions,
    tabs_per_session: config.maxTabsPerSession,
    pending_requests_per_connection: config.maxPendingPerConnection,
    subscriptions_per_connection: config.maxSubscriptionsPerConnection,
    states_kept_per_tab: KEPT_PER_TAB,
    states_kept_for_closed_tabs: KEPT_FOR_CLOSED_TABS,
    states_retained_per_session: STATES_PER_SESSION,
    actions_per_act: 20,
    timeout_ms_max: 60_000,
    timeout_ms_default: 30_000,
    max_elements_max: 500,
    max_elements_default: 150,
    request_ids_kept: 64,
    events_retained: 1000,
    inbound_message_bytes: 1024 * 1024,
    idle_timeout_s: Math.round(config.idleTimeoutMs / 1000),
    network_entries_per_tab: NETWORK_ENTRIES_PER_TAB,
  };
}

/** Everything but the doors: browser host, sessions, the method table and the MCP tools on it. */
interface Core {
  readonly host: BrowserHost;
  /** The trace files sessions wrote (served by GET /traces/<name>). */
  readonly traceFiles: TraceFiles;
  readonly registry: SessionRegistry;
  readonly hub: SubscriptionHub;
  readonly screencasts: Screencasts;
  readonly rpc: RpcServer;
  readonly mcp: McpHost;
  /** RPC requests in flight over every connection (server.info `counts.pending_requests`). */
  countPending(delta: 1 | -1): void;
  close(): Promise<void>;
}

function startCore(config: Config, options: StartOptions & { stdioPrincipal?: Principal }): Core {
  const secrets = new SecretStore(config.secrets);
  let registryRef: SessionRegistry | undefined;
  /** Every form of every value typed as a secret or into a password field, in any session. */
  const typedForms = () => registryRef?.all().flatMap((session) => [...session.secrets].flatMap(secretForms)) ?? [];
  // Configured secrets and typed passwords never reach a log line, whichever logger was given.
  const log = (options.log ?? silentLogger).withSecrets(() => [...secrets.forms, ...typedForms()]);
  const cdpLog = log.child('cdp');
  // Every CDP message in and out, at debug level only (it is the most verbose log there is).
  // Typed passwords travel in CDP messages (and pages may echo them): hide every session's, every
  // keystroke, every cookie value and the storage helper's messages.
  const knownSecrets = (): KnownSecret[] =>
    registryRef?.all().flatMap((session) => session.knownSecrets()) ?? secrets.forms.map((exact) => ({ exact }));
  const quiet = (cdpSessionId: string) => registryRef?.all().some((session) => session.isHelperCdpSession(cdpSessionId)) ?? false;
  const trace = config.logLevel === 'debug'
    ? (direction: 'send' | 'recv', message: string) =>
      // Its start (id, method, the first params) and its end (a call into the page names its function last).
      cdpLog.debug(`${direction} ${clipMiddle(redactSecrets(scrubCdpMessage(message, { quiet }), knownSecrets()), 400, 100)}`)
    : undefined;
  const host = new BrowserHost({
    launch: browserLauncher(config, log.child('browser')),
    endpoints: {
      specs: config.endpoints,
      allow: config.allowEndpoints,
      connect: (spec) => connectBrowser(spec, CONNECT_TIMEOUT_MS),
    },
    ...(trace ? { connectionOptions: { trace } } : {}),
  });
  const folders = new DownloadFolders(config.downloads);
  const downloads = new SessionDownloads({ folderFor: (id) => folders.folderFor(id), files: new NodeDownloadFiles() });
  const traceFiles = new TraceFiles(folders);
  const policy = new DomainPolicy('server', {
    allow: config.allowDomains,
    block: config.blockDomains,
    blockPrivateNetwork: config.blockPrivateNetwork,
  });
  const registry = (registryRef = new SessionRegistry({
    host,
    instanceId: config.instanceId,
    downloads,
    maxSessions: config.maxSessions,
    idleTimeoutMs: config.idleTimeoutMs,
    viewport: config.viewport,
    secrets,
    policy,
    proxies: (checks) => startSocksProxy(checks),
    traces: { spillFor: (id) => traceFiles.spillFor(id), maxFrames: config.traceMaxFrames },
  }));
  const hub = new SubscriptionHub({ maxPerConnection: config.maxSubscriptionsPerConnection });
  const uploads = new UploadPolicy(config.uploads);
  const screencasts = new Screencasts();
  let pendingRequests = 0;
  const table: AnyMethodDef[] = [
    ...sessionMethods(registry),
    ...tabMethods(registry, { maxTabsPerSession: config.maxTabsPerSession }),
    ...observeMethods(registry),
    ...screenshotMethods(registry),
    ...pdfMethods(registry, new SessionFiles(folders)),
    ...screencastMethods(registry, screencasts),
    ...eventMethods(registry, hub),
    ...actMethods({ registry, uploads, secrets, screenshot: screenshotForAct }),
    ...waitMethods(registry),
    ...modalMethods(registry, uploads),
    ...downloadMethods(registry, (session) => downloads.historyOf(session)),
    ...networkMethods(registry),
    ...traceMethods(registry, traceFiles),
    ...serverMethods({
      registry,
      host,
      runtime: options.runtime,
      limits: serverLimits(config),
      allowRawCdp: config.allowRawCdp,
      secrets: secrets.describe(),
      domainPolicy: policy.describe(),
      methods: () => methods,
      eventStats: () => hub.stats,
      pendingRequests: () => pendingRequests,
      memory: () => {
        const { rss, heapUsed } = process.memoryUsage();
        return { rss, heapUsed };
      },
    }),
  ];
  // Whatever door calls the table, no answer carries a secret value (src/rpc/output-redaction.ts).
  const methods = redactMethodOutputs(table, () => [...secrets.forms, ...typedForms()].map((exact) => ({ exact })));
  const rpc = new RpcServer({ methods, log: log.child('rpc') });
  const mcp = new McpHost({
    rpc,
    methods,
    version: VERSION,
    maxBytes: config.mcpMaxBytes,
    log: log.child('mcp'),
    files: nodeFileReader,
    ...(options.stdioPrincipal ? { stdioPrincipal: options.stdioPrincipal } : {}),
  });
  let closing: Promise<void> | undefined;
  return {
    host,
    traceFiles,
    registry,
    hub,
    screencasts,
    rpc,
    mcp,
    countPending: (delta) => (pendingRequests += delta),
    close() {
      closing ??= (async () => {
        for (const id of mcp.connectionIds) registry.dropClient(id);
        mcp.close();
        hub.close();
        await screencasts.close();
        await registry.closeAll('server_shutdown');
        await host.shutdown();
        await downloads.whenIdle();
        await folders.dispose(); // a temporary root only; a --downloads folder stays
      })();
      return closing;
    },
  };
}

export async function startServer(config: Config, options: StartOptions): Promise<RunningServer> {
  const log = options.log ?? silentLogger;
  const core = startCore(config, options);
  const { rpc, registry } = core;
  const connectionIds = new IdSequence('c');
  /** A call context on a new connection (a socket, or one POST /rpc), forgotten by the sessions it used once `signal` aborts. */
  const callOn = (
    principal: Principal,
    signal: AbortSignal,
    door: Pick<RpcConnection, 'notify' | 'bufferedAmount' | 'requestScoped'>,
  ): CallContext => {
    const connection: RpcConnection = { id: connectionIds.next(), principal, signal, ...door };
    signal.addEventListener('abort', () => registry.dropClient(connection.id), { once: true });
    return { connection, principal };
  };
  const mcpRoute = new McpHttpRoute({
    factory: core.mcp.factory,
    instanceId: config.instanceId,
    idleTimeoutMs: config.idleTimeoutMs,
    log: log.child('mcp'),
  });

  let http;
  try {
    http = await HttpListener.listen({
      host: config.host,
      port: config.port,
      tokens: config.tokens,
      noAuth: config.noAuth,
      allowOrigins: config.allowOrigins,
      log: log.child('http'),
      instanceId: config.instanceId,
      openRoutes: { '/healthz': healthzRoute({ health: () => healthOf(config, registry) }) },
      routes: {
        '/mcp': (req, res, principal) => mcpRoute.handle(req, res, principal),
        // One HTTP request is one connection (PROTOCOL.md §13): nothing can be pushed to it.
        '/rpc': rpcHttpRoute({
          maxBodyBytes: DEFAULT_MAX_MESSAGE_BYTES,
          log: log.child('rpc-http'),
          handle: (text, principal, signal) =>
            rpc.handle(
              text,
              callOn(principal, signal, { notify: () => false, bufferedAmount: () => 0, requestScoped: true }),
              new PendingLimit(config.maxPendingPerConnection, core.countPending),
            ),
        }),
        ...Object.fromEntries(INSPECTOR_PATHS.map((path) => [path, inspectorRoute])),
        [TRACES_PATH]: traceRoute((name, principal) => core.traceFiles.pathOf(name, principal.id)),
      },
      cors: { '/mcp': MCP_CORS, '/rpc': RPC_CORS },
      onConnection(socket, principal, signal) {
        const call = callOn(principal, signal, {
          notify(method, params) {
            if (signal.aborted) return false;
            socket.send(JSON.stringify({ jsonrpc: '2.0', method, params }));
            return true;
          },
          bufferedAmount: () => socket.bufferedAmount(),
        });
        const limit = new PendingLimit(config.maxPendingPerConnection, core.countPending);
        return {
          onMessage(text) {
            void rpc.handle(text, call, limit).then((reply) => {
              if (reply !== undefined && !signal.aborted) socket.send(reply);
            });
          },
        };
      },
    });
  } catch (error) {
    await mcpRoute.close();
    await core.close();
    throw error;
  }
  const listening = http;

  let closing: Promise<void> | undefined;
  return {
    url: listening.url,
    mcpUrl: `${listening.url.replace(/^ws:/, 'http:')}mcp`,
    inspectorUrl: `${listening.url.replace(/^ws:/, 'http:')}inspector`,
    rpcUrl: `${listening.url.replace(/^ws:/, 'http:')}rpc`,
    mcp: core.mcp,
    readyLine: readyLine(config, listening.url),
    host: core.host,
    registry,
    hub: core.hub,
    screencasts: core.screencasts,
    drain: () => registry.drain(new Deadline(config.drainTimeoutMs)),
    close() {
      closing ??= (async () => {
        await mcpRoute.close();
        await listening.close();
        await core.close();
      })();
      return closing;
    },
  };
}

/** What `/healthz` says: whether this instance takes new sessions, and if not, why. */
function healthOf(config: Config, registry: SessionRegistry): Health {
  const counts = {
    instance_id: config.instanceId,
    sessions: registry.size,
    max_sessions: registry.maxSessions,
    draining: registry.draining,
  };
  if (registry.draining) return { ...counts, reason: 'draining' };
  if (registry.size >= registry.maxSessions) return { ...counts, reason: 'full' };
  if (!browserAvailable(config)) return { ...counts, reason: 'browser_unavailable' };
  return counts;
}

/** Whether a browser can be had: one to launch is found (one to attach to is only known by trying). */
function browserAvailable(config: Config): boolean {
  if (config.endpoints.length > 0) return true;
  try {
    findBrowser(config.browser);
    return true;
  } catch {
    return false;
  }
}

export interface RunningMcpStdio {
  readonly registry: SessionRegistry;
  readonly host: BrowserHost;
  /** Resolves when the client closed stdin (the process should then stop). */
  readonly ended: Promise<void>;
  close(): Promise<void>;
}

/** `pagewire mcp`: MCP over this process's stdin and stdout, for one principal. */
export function startMcpStdio(config: Config, options: StartOptions): RunningMcpStdio {
  const core = startCore(config, { ...options, stdioPrincipal: Object.freeze({ id: 'stdio' }) });
  const stdio = serveMcpStdio({ factory: core.mcp.factory, log: (options.log ?? silentLogger).child('mcp') });
  let closing: Promise<void> | undefined;
  return {
    registry: core.registry,
    host: core.host,
    ended: stdio.ended,
    close() {
      closing ??= (async () => {
        await stdio.close();
        await core.close();
      })();
      return closing;
    },
  };
}

/** `pagewire trace show FILE`: the inspector and one trace file on a loopback listener; no browser, no session. */
export interface TraceViewer {
  /** `http://127.0.0.1:PORT/inspector?token=TOKEN&trace=NAME`: the page that opens the trace. */
  readonly url: string;
  close(): Promise<void>;
}

export async function serveTraceFile(file: string, options: { port: number; log?: Logger }): Promise<TraceViewer> {
  const trace = await oneTraceFile(file);
  const token = crypto.randomUUID().replaceAll('-', '');
  const listening = await HttpListener.listen({
    host: '127.0.0.1',
    port: options.port,
    tokens: [token],
    noAuth: false,
    allowOrigins: [],
    ...(options.log ? { log: options.log } : {}),
    routes: {
      ...Object.fromEntries(INSPECTOR_PATHS.map((path) => [path, inspectorRoute])),
      [TRACES_PATH]: traceRoute((name) => trace.find(name)),
    },
    // A viewer of a file has no sessions: its socket serves no calls.
    onConnection(socket) {
      socket.close(1008, 'a trace viewer: no sessions here');
      return { onMessage() {} };
    },
  });
  const base = listening.url.replace(/^ws:/, 'http:');
  return {
    url: `${base}inspector?token=${token}&trace=${encodeURIComponent(trace.name)}`,
    close: () => listening.close(),
  };
}
