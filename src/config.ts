// Command-line flags and PAGEWIRE_* environment variables → one frozen Config (PROTOCOL.md §1).
// Pure: argv and env are passed in, so tests need no process and main decides what to do
// with a ConfigError (print it, exit 2).
import { z } from 'zod';
import { parseDomainPattern, PatternError } from './sessions/domain-policy.ts';
import { type EndpointSpec, endpointUrlProblem, parseEndpointFile } from './sessions/endpoint-spec.ts';
import { DEFAULT_MAX_FRAMES } from './sessions/trace-recorder.ts';
import { hostForUrl, isLoopbackHost } from './util/host.ts';
import { LOG_LEVELS, type LogLevel } from './util/log.ts';
import { MCP_MAX_BYTES } from './util/result-budget.ts';
import { INSTANCE_ID, randomInstanceId } from './util/ids.ts';
import { isSecretName, parseSecretsFile, SECRET_NAME_RULE, type SecretSpec } from './util/secrets.ts';

export { hostForUrl, isLoopbackHost };
export type { EndpointSpec, SecretSpec };

export const DEFAULT_PORT = 9333;
export const DEFAULT_MAX_SESSIONS = 16;
export const DEFAULT_MAX_TABS_PER_SESSION = 20;
export const DEFAULT_MAX_PENDING_PER_CONNECTION = 32;
export const DEFAULT_MAX_SUBSCRIPTIONS_PER_CONNECTION = 32;
export const DEFAULT_IDLE_TIMEOUT_S = 600;
export const DEFAULT_DRAIN_TIMEOUT_S = 30;

/**
 * A desktop's, as Playwright and its MCP server default to: in the browser's own headless window
 * documentation sites and web apps show their mobile layout, a "Menu" button for their navigation
 * (PROTOCOL.md §4).
 */
export const DEFAULT_VIEWPORT: Viewport = Object.freeze({ width: 1280, height: 720 });
/** The sides a viewport may have: those of session.create's viewport (wire/sessions.ts, PROTOCOL.md §4). */
export const VIEWPORT_SIDE = { min: 100, max: 8192 } as const;

export interface Viewport {
  readonly width: number;
  readonly height: number;
}

export interface Config {
  /** Interface to bind, without IPv6 brackets (`::1`, not `[::1]`). */
  readonly host: string;
  /** 0 = any free port. */
  readonly port: number;
  /** Accepted tokens, each its own principal; the first is the one the ready line shows. Empty under noAuth. */
  readonly tokens: readonly string[];
  /** True when no token was given and one was generated at start. */
  readonly generatedToken: boolean;
  readonly noAuth: boolean;
  /** Extra origins allowed to open a socket, as serialised origins (`http://host:port`). */
  readonly allowOrigins: readonly string[];
  readonly browser?: string;
  /** Remote CDP endpoints (--connect, --connect-file): sessions go there and no browser is launched. */
  readonly endpoints: readonly EndpointSpec[];
  /** URL globs an endpoint named at session.create must match (--allow-endpoint). */
  readonly allowEndpoints: readonly string[];
  readonly headful: boolean;
  /** The viewport of every tab of a session created without one (CSS px). */
  readonly viewport: Viewport;
  readonly downloads?: string;
  readonly uploads?: string;
  readonly maxSessions: number;
  /** tabs.new is refused at this many tabs (popups are never refused, but they count). */
  readonly maxTabsPerSession: number;
  /** Screenshots a session's trace keeps; past them the oldest are dropped and counted (PROTOCOL.md §16). */
  readonly traceMaxFrames: number;
  /** Requests of one connection in flight at once (each batch element counts). */
  readonly maxPendingPerConnection: number;
  readonly maxSubscriptionsPerConnection: number;
  readonly allowRawCdp: boolean;
  readonly idleTimeoutMs: number;
  /** What an MCP tool result may weigh at most, text and structuredContent together. */
  readonly mcpMaxBytes: number;
  readonly logLevel: LogLevel;
  /** Values act may type by name (`secret: "NAME"`), each bound to origins or to none (any). */
  readonly secrets: readonly SecretSpec[];
  /** Domain patterns (sessions/domain-policy.ts), as given. */
  readonly allowDomains: readonly string[];
  readonly blockDomains: readonly string[];
  readonly blockPrivateNetwork: boolean;
  /** This instance's name behind a balancer: it begins every session id (PROTOCOL.md §13, "Fleet"). */
  readonly instanceId: string;
  /** On SIGTERM, how long running calls may take to finish before the server closes. */
  readonly drainTimeoutMs: number;
  readonly help: boolean;
}

/** What parseConfig may use besides argv and env: reading the --secrets-file. */
export interface ConfigSources {
  /** The text of a file; throws when it cannot be read. */
  readFile?: (path: string) => string;
}

/** A configuration mistake a person must fix; the message names the flag or variable. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

type FlagKind = 'string' | 'list' | 'boolean';

// The table every flag, its env variable, the help text and the README's flags table
// (scripts/readme-tables.ts) come from. `list` flags repeat on the command line and are
// comma-separated in the environment.
export const FLAGS = {
  host: { kind: 'string', arg: 'HOST', help: `interface to listen on (default 127.0.0.1)` },
  port: { kind: 'string', arg: 'PORT', help: `port to listen on, 0 = any free port (default ${DEFAULT_PORT})` },
  token: { kind: 'list', arg: 'TOKEN', help: 'accepted token, repeatable; each is its own principal (default: a random one)' },
  'no-auth': { kind: 'boolean', help: 'accept clients without a token (loopback hosts only)' },
  'allow-origin': { kind: 'list', arg: 'ORIGIN', help: 'origin allowed to connect from a browser page, repeatable' },
  browser: { kind: 'string', arg: 'PATH', help: 'Chromium/Chrome executable (default: search PATH and usual locations)' },
  connect: {
    kind: 'list',
    arg: 'URL',
    help: 'attach to a running browser (ws://… or http://host:port) instead of launching one; repeatable: a pool of endpoints',
  },
  'connect-file': {
    kind: 'string',
    arg: 'FILE',
    help: 'more endpoints, one a line: a URL or {"url": …, "headers": {…}} (# comments)',
  },
  'allow-endpoint': {
    kind: 'list',
    arg: 'PATTERN',
    help: 'session.create may name an endpoint whose URL matches this glob (ws://10.0.0.*:*/**), repeatable',
  },
  headful: { kind: 'boolean', help: 'show the browser window' },
  viewport: {
    kind: 'string',
    arg: 'WxH',
    help: `viewport of the tabs of a session created without one, in CSS px, ${VIEWPORT_SIDE.min}–${VIEWPORT_SIDE.max} a side ` +
      `(default ${DEFAULT_VIEWPORT.width}x${DEFAULT_VIEWPORT.height})`,
  },
  downloads: { kind: 'string', arg: 'DIR', help: 'folder for downloads' },
  uploads: { kind: 'string', arg: 'DIR', help: 'root folder that uploaded files must lie under (default: none allowed)' },
  'max-sessions': { kind: 'string', arg: 'N', help: `most sessions at once (default ${DEFAULT_MAX_SESSIONS})` },
  'max-tabs-per-session': {
    kind: 'string',
    arg: 'N',
    help: `tabs.new refused at N tabs in a session (default ${DEFAULT_MAX_TABS_PER_SESSION})`,
  },
  'trace-max-frames': {
    kind: 'string',
    arg: 'N',
    help: `screenshots a session's trace keeps, the oldest dropped past it (default ${DEFAULT_MAX_FRAMES})`,
  },
  'max-pending-per-connection': {
    kind: 'string',
    arg: 'N',
    help: `requests of one connection in flight at once, batch elements each count (default ${DEFAULT_MAX_PENDING_PER_CONNECTION})`,
  },
  'max-subscriptions-per-connection': {
    kind: 'string',
    arg: 'N',
    help: `event subscriptions one connection may hold (default ${DEFAULT_MAX_SUBSCRIPTIONS_PER_CONNECTION})`,
  },
  'allow-raw-cdp': { kind: 'boolean', help: 'enable the cdp.send method' },
  'idle-timeout-s': { kind: 'string', arg: 'N', help: `close a session no client used for N seconds (default ${DEFAULT_IDLE_TIMEOUT_S})` },
  'mcp-max-bytes': {
    kind: 'string',
    arg: 'N',
    help: `most bytes of an MCP tool result, text and JSON together (default ${MCP_MAX_BYTES.default}, ` +
      `${MCP_MAX_BYTES.min}–${MCP_MAX_BYTES.max}); a cut observation reads on by cursor`,
  },
  'log-level': { kind: 'string', arg: 'LEVEL', help: 'error | warn | info | debug (default warn)' },
  secret: {
    kind: 'list',
    arg: 'NAME[@ORIGIN]',
    help:
      'a secret act may type by name, its value from PAGEWIRE_SECRET_NAME or --secrets-file; @ORIGIN binds it to that origin, repeatable',
  },
  'secrets-file': { kind: 'string', arg: 'FILE', help: 'NAME=value lines: secret values (# comments)' },
  'allow-domain': {
    kind: 'list',
    arg: 'PATTERN',
    help: 'only hosts matching a pattern may be reached (example.com, *.example.com, https://h:8443), repeatable',
  },
  'block-domain': { kind: 'list', arg: 'PATTERN', help: 'hosts matching a pattern are never reached, repeatable' },
  'block-private-network': {
    kind: 'boolean',
    help: 'refuse loopback, private and link-local addresses, names that resolve to them too (default: allowed)',
  },
  'instance-id': {
    kind: 'string',
    arg: 'ID',
    help: "this instance's name behind a balancer: lower-case letters, digits and -; it begins every session id (default: random)",
  },
  'drain-timeout-s': {
    kind: 'string',
    arg: 'N',
    help: `on SIGTERM, how long running calls may take to finish before the server closes (default ${DEFAULT_DRAIN_TIMEOUT_S})`,
  },
  help: { kind: 'boolean', help: 'print this help and exit' },
} as const satisfies Record<string, { kind: FlagKind; arg?: string; help: string }>;

type FlagName = keyof typeof FLAGS;
type RawValue = string | string[] | boolean;
interface RawEntry {
  value: RawValue;
  /** `--port` or `PAGEWIRE_PORT`: how errors name the setting. */
  source: string;
  fromFlag: boolean;
}

export function envName(flag: string): string {
  return `PAGEWIRE_${flag.toUpperCase().replace(/-/g, '_')}`;
}

export function helpText(): string {
  const lefts = Object.entries(FLAGS).map(([name, spec]) => `  --${name}${'arg' in spec ? ` ${spec.arg}` : ''}`);
  const width = Math.max(...lefts.map((left) => left.length));
  const rows = Object.values(FLAGS).map((spec, i) => `${lefts[i]!.padEnd(width)}  ${spec.help}`);
  return [
    'Usage: pagewire [serve|mcp] [flags]',
    '',
    'A WebSocket JSON-RPC 2.0 server that drives Chromium for AI agents.',
    '  serve  (the default) listen on HOST:PORT: the WebSocket at /, MCP Streamable HTTP at /mcp',
    '  mcp    speak MCP over stdin/stdout instead (for an agent host that starts pagewire itself)',
    '',
    'Flags (each also readable from PAGEWIRE_<NAME>, e.g. PAGEWIRE_PORT; flags win):',
    ...rows,
    '',
    '--flag=value and --flag value both work. Repeatable flags take comma-separated lists in the environment',
    '(PAGEWIRE_TOKEN, PAGEWIRE_ALLOW_ORIGIN, PAGEWIRE_CONNECT, PAGEWIRE_ALLOW_ENDPOINT, PAGEWIRE_SECRET, PAGEWIRE_ALLOW_DOMAIN,',
    'PAGEWIRE_BLOCK_DOMAIN).',
  ].join('\n');
}

/** `pagewire listening on ws://HOST:PORT/?token=TOKEN`, from the URL the listener reports. */
export function readyLine(config: Config, url: string): string {
  const parsed = new URL(url);
  const port = parsed.port || (parsed.protocol === 'wss:' ? '443' : '80');
  const base = `${parsed.protocol}//${parsed.hostname}:${port}/`;
  const token = config.tokens[0];
  return config.noAuth || token === undefined
    ? `pagewire listening on ${base}`
    : `pagewire listening on ${base}?token=${encodeURIComponent(token)}`;
}

export function parseConfig(argv: readonly string[], env: Record<string, string | undefined>, sources: ConfigSources = {}): Config {
  const flags = readArgv(argv);
  if (flags.has('help') && flags.get('help')!.value !== false) return finish(validate(new Map(), env, sources), true);
  const raw = new Map<FlagName, RawEntry>();
  for (const name of Object.keys(FLAGS) as FlagName[]) {
    if (name === 'help') continue;
    const entry = flags.get(name) ?? readEnv(name, env);
    if (entry !== undefined) raw.set(name, entry);
  }
  return finish(validate(raw, env, sources), false);
}

function readArgv(argv: readonly string[]): Map<FlagName, RawEntry> {
  const out = new Map<FlagName, RawEntry>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '-h') {
      out.set('help', { value: true, source: '-h', fromFlag: true });
      continue;
    }
    if (!arg.startsWith('--') || arg === '--') {
      throw new ConfigError(`unexpected argument ${JSON.stringify(arg)}; pagewire takes only --flags (see --help)`);
    }
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    const inline = eq === -1 ? undefined : arg.slice(eq + 1);
    if (!Object.hasOwn(FLAGS, name)) throw new ConfigError(`unknown flag --${name} (see --help)`);
    const flag = name as FlagName;
    const spec = FLAGS[flag];
    const source = `--${flag}`;

    let value: string | boolean;
    if (spec.kind === 'boolean') {
      value = inline === undefined ? true : parseBoolean(inline, source);
    } else if (inline !== undefined) {
      value = inline;
    } else {
      const next = argv[i + 1];
      // `--port --headful` is a forgotten value, not a port named "--headful".
      if (next === undefined || next.startsWith('--')) throw new ConfigError(`${source} needs a value`);
      value = next;
      i++;
    }

    const previous = out.get(flag);
    if (spec.kind === 'list') {
      const list = previous === undefined ? [] : (previous.value as string[]);
      out.set(flag, { value: [...list, value as string], source, fromFlag: true });
    } else if (previous !== undefined) {
      throw new ConfigError(`${source} given more than once`);
    } else {
      out.set(flag, { value, source, fromFlag: true });
    }
  }
  return out;
}

function readEnv(flag: FlagName, env: Record<string, string | undefined>): RawEntry | undefined {
  const source = envName(flag);
  const text = env[source];
  // An empty variable is how shells and compose files say "unset".
  if (text === undefined || text.trim() === '') return undefined;
  const kind: FlagKind = FLAGS[flag].kind;
  if (kind === 'boolean') return { value: parseBoolean(text, source), source, fromFlag: false };
  if (kind === 'list') {
    const items = text.split(',').map((item) => item.trim()).filter((item) => item.length > 0);
    if (items.length === 0) throw new ConfigError(`${source} holds no value`);
    return { value: items, source, fromFlag: false };
  }
  return { value: text.trim(), source, fromFlag: false };
}

function parseBoolean(text: string, source: string): boolean {
  const t = text.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(t)) return true;
  if (['0', 'false', 'no', 'off'].includes(t)) return false;
  throw new ConfigError(`${source} must be true or false (got ${JSON.stringify(text)})`);
}

// ---- validation (zod) ------------------------------------------------------------------

const intIn = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, `must be a whole number from ${min} to ${max}`)
    .transform(Number)
    .refine((n) => n >= min && n <= max, `must be a whole number from ${min} to ${max}`);

const hostSchema = z
  .string()
  .transform((h) => (h.startsWith('[') && h.endsWith(']') ? h.slice(1, -1) : h))
  .refine(
    (h) => /^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$/.test(h) || (h.includes(':') && /^[0-9A-Fa-f:.]+(?:%[\w.-]+)?$/.test(h)),
    'must be a host name or an IP address (no scheme, no port)',
  );

// Printable ASCII without spaces or commas: the token travels in a URL query, an HTTP header
// and a comma-separated variable. Messages never echo the token.
const tokenSchema = z.string().regex(/^[\x21-\x2b\x2d-\x7e]+$/, 'each token must be printable ASCII without spaces or commas');

const originSchema = z.string().transform((text, ctx) => {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    ctx.addIssue({ code: 'custom', message: `${JSON.stringify(text)} is not an origin like http://host:port` });
    return z.NEVER;
  }
  const ok = (url.protocol === 'http:' || url.protocol === 'https:') &&
    url.pathname === '/' &&
    !url.search &&
    !url.hash &&
    !url.username &&
    !url.password &&
    !text.endsWith('?') &&
    !text.endsWith('#');
  if (!ok) {
    ctx.addIssue({
      code: 'custom',
      message: `${JSON.stringify(text)} is not an origin like http://host:port (no path, query or credentials)`,
    });
    return z.NEVER;
  }
  return url.origin;
});

const connectSchema = z.string().superRefine((text, ctx) => {
  const problem = endpointUrlProblem(text);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

const pathSchema = z.string().min(1, 'must not be empty');

const viewportSchema = z.string().transform((text, ctx) => {
  const match = /^(\d+)x(\d+)$/.exec(text.trim());
  const [width, height] = match ? [Number(match[1]), Number(match[2])] : [NaN, NaN];
  const inRange = (side: number) => side >= VIEWPORT_SIDE.min && side <= VIEWPORT_SIDE.max;
  if (!inRange(width) || !inRange(height)) {
    ctx.addIssue({
      code: 'custom',
      message: `must be WIDTHxHEIGHT in CSS px, each ${VIEWPORT_SIDE.min} to ${VIEWPORT_SIDE.max} (like 1280x720), got ${
        JSON.stringify(text)
      }`,
    });
    return z.NEVER;
  }
  return Object.freeze({ width, height });
});

const domainPatternSchema = z.string().superRefine((text, ctx) => {
  try {
    parseDomainPattern(text);
  } catch (error) {
    if (!(error instanceof PatternError)) throw error;
    ctx.addIssue({ code: 'custom', message: error.message });
  }
});

// NAME or NAME@ORIGIN; the origin is checked like --allow-origin's.
const secretFlagSchema = z.string().transform((text, ctx) => {
  const at = text.indexOf('@');
  const name = at === -1 ? text : text.slice(0, at);
  if (!isSecretName(name)) {
    ctx.addIssue({ code: 'custom', message: `${JSON.stringify(name)}: ${SECRET_NAME_RULE}` });
    return z.NEVER;
  }
  if (at === -1) return { name, origin: undefined };
  const origin = originSchema.safeParse(text.slice(at + 1));
  if (!origin.success) {
    ctx.addIssue({ code: 'custom', message: `${name}: ${origin.error.issues[0]?.message ?? 'not an origin'}` });
    return z.NEVER;
  }
  return { name, origin: origin.data };
});

const rawSchema = z.object({
  host: hostSchema.default('127.0.0.1'),
  port: intIn(0, 65535).optional(),
  token: z.array(tokenSchema).optional(),
  'no-auth': z.boolean().default(false),
  'allow-origin': z.array(originSchema).default([]),
  browser: pathSchema.optional(),
  connect: z.array(connectSchema).default([]),
  'connect-file': pathSchema.optional(),
  'allow-endpoint': z.array(z.string().min(1, 'must not be empty')).default([]),
  headful: z.boolean().default(false),
  viewport: viewportSchema.optional(),
  downloads: pathSchema.optional(),
  uploads: pathSchema.optional(),
  'max-sessions': intIn(1, 10_000).optional(),
  'max-tabs-per-session': intIn(1, 1_000).optional(),
  'trace-max-frames': intIn(2, 100_000).optional(),
  'max-pending-per-connection': intIn(1, 10_000).optional(),
  'max-subscriptions-per-connection': intIn(1, 10_000).optional(),
  'allow-raw-cdp': z.boolean().default(false),
  'idle-timeout-s': intIn(1, 30 * 24 * 3600).optional(),
  'mcp-max-bytes': intIn(MCP_MAX_BYTES.min, MCP_MAX_BYTES.max).optional(),
  'log-level': z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }).default('warn'),
  secret: z.array(secretFlagSchema).default([]),
  'secrets-file': pathSchema.optional(),
  'allow-domain': z.array(domainPatternSchema).default([]),
  'block-domain': z.array(domainPatternSchema).default([]),
  'block-private-network': z.boolean().default(false),
  'instance-id': z.string().regex(INSTANCE_ID, 'must be 1–63 lower-case letters, digits and -, starting with a letter or digit')
    .optional(),
  'drain-timeout-s': intIn(0, 3600).optional(),
});

type Validated = Omit<Config, 'help' | 'tokens' | 'generatedToken'> & { tokens: string[] };

function validate(raw: Map<FlagName, RawEntry>, env: Record<string, string | undefined>, sources: ConfigSources): Validated {
  const input: Record<string, RawValue> = {};
  for (const [name, entry] of raw) input[name] = entry.value;
  const result = rawSchema.safeParse(input);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => {
      const key = issue.path[0];
      const source = typeof key === 'string' ? (raw.get(key as FlagName)?.source ?? `--${key}`) : 'configuration';
      return `${source}: ${issue.message}`;
    });
    throw new ConfigError([...new Set(lines)].join('\n'));
  }
  const v = result.data;

  let noAuth = v['no-auth'];
  let tokens = v.token === undefined ? [] : [...new Set(v.token)];
  const noAuthEntry = raw.get('no-auth');
  const tokenEntry = raw.get('token');
  if (noAuth && tokens.length > 0 && noAuthEntry && tokenEntry) {
    // Flags win over the environment; two contradictory settings at the same level are a mistake.
    if (noAuthEntry.fromFlag === tokenEntry.fromFlag) {
      throw new ConfigError(`${noAuthEntry.source} cannot be combined with ${tokenEntry.source}`);
    }
    if (noAuthEntry.fromFlag) tokens = [];
    else noAuth = false;
  }
  if (noAuth && !isLoopbackHost(v.host)) {
    throw new ConfigError(
      `${noAuthEntry?.source ?? '--no-auth'} is only allowed when the host is a loopback address (127.0.0.1, ::1, localhost); ` +
        `the host is ${v.host}. Use --token instead.`,
    );
  }

  const config: Validated = {
    host: v.host,
    port: v.port ?? DEFAULT_PORT,
    tokens,
    noAuth,
    allowOrigins: [...new Set(v['allow-origin'])],
    headful: v.headful,
    viewport: v.viewport ?? DEFAULT_VIEWPORT,
    maxSessions: v['max-sessions'] ?? DEFAULT_MAX_SESSIONS,
    maxTabsPerSession: v['max-tabs-per-session'] ?? DEFAULT_MAX_TABS_PER_SESSION,
    traceMaxFrames: v['trace-max-frames'] ?? DEFAULT_MAX_FRAMES,
    maxPendingPerConnection: v['max-pending-per-connection'] ?? DEFAULT_MAX_PENDING_PER_CONNECTION,
    maxSubscriptionsPerConnection: v['max-subscriptions-per-connection'] ?? DEFAULT_MAX_SUBSCRIPTIONS_PER_CONNECTION,
    allowRawCdp: v['allow-raw-cdp'],
    idleTimeoutMs: (v['idle-timeout-s'] ?? DEFAULT_IDLE_TIMEOUT_S) * 1000,
    mcpMaxBytes: v['mcp-max-bytes'] ?? MCP_MAX_BYTES.default,
    logLevel: v['log-level'],
    secrets: resolveSecrets(v.secret, v['secrets-file'], env, sources, raw),
    allowDomains: [...new Set(v['allow-domain'])],
    blockDomains: [...new Set(v['block-domain'])],
    blockPrivateNetwork: v['block-private-network'],
    endpoints: resolveEndpoints(v.connect, v['connect-file'], sources, raw),
    allowEndpoints: [...new Set(v['allow-endpoint'])],
    instanceId: v['instance-id'] ?? randomInstanceId(),
    drainTimeoutMs: (v['drain-timeout-s'] ?? DEFAULT_DRAIN_TIMEOUT_S) * 1000,
  };
  if (v.browser !== undefined) Object.assign(config, { browser: v.browser });
  if (v.downloads !== undefined) Object.assign(config, { downloads: v.downloads });
  if (v.uploads !== undefined) Object.assign(config, { uploads: v.uploads });
  return config;
}

/**
 * The file a flag names (--connect-file, --secrets-file), read and parsed; a ConfigError naming the
 * flag (or the variable it came from) when it cannot be read or parsed.
 */
function readFlagFile<T>(
  flag: 'connect-file' | 'secrets-file',
  file: string,
  sources: ConfigSources,
  raw: Map<FlagName, RawEntry>,
  parse: (text: string) => T,
): T {
  const fileSource = raw.get(flag)?.source ?? `--${flag}`;
  if (!sources.readFile) throw new ConfigError(`${fileSource}: this program cannot read files`);
  let text: string;
  try {
    text = sources.readFile(file);
  } catch (error) {
    throw new ConfigError(`${fileSource}: cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    return parse(text);
  } catch (error) {
    throw new ConfigError(`${fileSource} ${file}: ${(error as Error).message}`);
  }
}

/** --connect's URLs, then --connect-file's endpoints; the same URL twice is one endpoint. */
function resolveEndpoints(
  urls: readonly string[],
  file: string | undefined,
  sources: ConfigSources,
  raw: Map<FlagName, RawEntry>,
): EndpointSpec[] {
  const specs: EndpointSpec[] = urls.map((url) => Object.freeze({ url, headers: Object.freeze({}) }));
  if (file !== undefined) specs.push(...readFlagFile('connect-file', file, sources, raw, parseEndpointFile));
  const seen = new Set<string>();
  return specs.filter((spec) => !seen.has(spec.url) && seen.add(spec.url));
}

/**
 * Every secret named by --secret or defined in --secrets-file, with its value and its origins (none:
 * any origin). A value comes from PAGEWIRE_SECRET_<NAME> or the file, never from both. Messages
 * name secrets, never their values.
 */
function resolveSecrets(
  flags: ReadonlyArray<{ name: string; origin: string | undefined }>,
  file: string | undefined,
  env: Record<string, string | undefined>,
  sources: ConfigSources,
  raw: Map<FlagName, RawEntry>,
): SecretSpec[] {
  const fileSource = raw.get('secrets-file')?.source ?? '--secrets-file';
  const fromFile = file === undefined ? new Map<string, string>() : readFlagFile('secrets-file', file, sources, raw, parseSecretsFile);
  const origins = new Map<string, Set<string>>();
  for (const { name, origin } of flags) {
    const set = origins.get(name) ?? new Set<string>();
    if (origin !== undefined) set.add(origin);
    origins.set(name, set);
  }
  for (const name of fromFile.keys()) if (!origins.has(name)) origins.set(name, new Set());
  const secrets: SecretSpec[] = [];
  for (const [name, bound] of origins) {
    const variable = `PAGEWIRE_SECRET_${name}`;
    const fromEnv = env[variable];
    const inFile = fromFile.get(name);
    if (fromEnv !== undefined && fromEnv !== '' && inFile !== undefined) {
      throw new ConfigError(`secret ${name} has a value in both ${variable} and ${fileSource}; keep one`);
    }
    const value = fromEnv !== undefined && fromEnv !== '' ? fromEnv : inFile;
    if (value === undefined || value === '') {
      throw new ConfigError(`secret ${name} has no value: set ${variable} or put ${name}=… in --secrets-file`);
    }
    secrets.push(Object.freeze({ name, value, origins: Object.freeze([...bound]) }));
  }
  return secrets;
}

function finish(v: Validated, help: boolean): Config {
  const generatedToken = !v.noAuth && v.tokens.length === 0;
  const tokens = generatedToken ? [generateToken()] : v.tokens;
  return Object.freeze({
    ...v,
    tokens: Object.freeze([...tokens]),
    allowOrigins: Object.freeze([...v.allowOrigins]),
    secrets: Object.freeze([...v.secrets]),
    allowDomains: Object.freeze([...v.allowDomains]),
    blockDomains: Object.freeze([...v.blockDomains]),
    endpoints: Object.freeze([...v.endpoints]),
    allowEndpoints: Object.freeze([...v.allowEndpoints]),
    generatedToken,
    help,
  });
}

/** 32 random bytes, base64url: URL- and header-safe as it is. */
export function generateToken(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(32));
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
