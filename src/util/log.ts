// A leveled, namespaced logger with an injected sink. Logs go to people (stderr) and
// sometimes to bug reports, so anything that looks like a credential is redacted before a
// line leaves this module: the server's own tokens, `token=` query parameters and bearer
// values. Runtime-neutral: no node:*, no Deno.

import { REDACTED, redactSecrets } from './redact.ts';

export { REDACTED };

export const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export type LogFields = Record<string, unknown>;

export interface Logger {
  error(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  debug(message: string, fields?: LogFields): void;
  /** A logger for a sub-system; namespaces nest as `parent:child`. */
  child(namespace: string): Logger;
  /**
   * The same logger, with `secrets()` (asked at each line: typed passwords come and go) hidden
   * too, in every form redactText knows.
   */
  withSecrets(secrets: () => readonly string[]): Logger;
}

export interface LoggerOptions {
  /** Lines above this level are dropped; `silent` drops everything (tests). */
  level: LogLevel | 'silent';
  /** Receives one finished, redacted line. Default: `console.error` (stderr on both runtimes). */
  sink?: (line: string) => void;
  /** `text`: `[pagewire] warn rpc: message {"k":"v"}`; `json`: one JSON object a line. */
  format?: 'text' | 'json';
  /** Secrets to replace with `[redacted]` wherever they appear (the server's tokens). */
  redact?: readonly string[];
  namespace?: string;
  /** Injected clock for the `time` field of JSON lines. */
  now?: () => number;
}

const RANK: Record<LogLevel | 'silent', number> = { silent: -1, error: 0, warn: 1, info: 2, debug: 3 };

// Stops at characters that end a query value in URLs, JSON strings and prose.
const TOKEN_PARAM = /([?&;]token=)[^&#\s"'<>]+/gi;
const BEARER = /\b(Bearer\s+)[A-Za-z0-9\-._~+/=]+/gi;
const SECRET_KEY = /^(token|tokens|authorization|password|secret|api_?key)$/i;

export function isLogLevel(value: string): value is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(value);
}

/** Replaces every known secret and credential-shaped substring in `text`. */
export function redactText(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length === 0) continue;
    out = out.split(secret).join(REDACTED);
    // The same secret as it appears inside a JSON string (quotes, backslashes escaped).
    const escaped = JSON.stringify(secret).slice(1, -1);
    if (escaped !== secret) out = out.split(escaped).join(REDACTED);
  }
  // Then the shapes any secret has (JWTs, API keys), as in what models read.
  return redactSecrets(out.replace(TOKEN_PARAM, `$1${REDACTED}`).replace(BEARER, `$1${REDACTED}`));
}

export function createLogger(options: LoggerOptions): Logger {
  const sink = options.sink ?? ((line: string) => console.error(line));
  const shared: Shared = {
    threshold: RANK[options.level],
    sink,
    format: options.format ?? 'text',
    secrets: [...(options.redact ?? [])].filter((s) => s.length > 0).sort((a, b) => b.length - a.length),
    now: options.now ?? Date.now,
  };
  return makeLogger(shared, options.namespace ?? '');
}

/** `text` with what lies between its first `head` and last `tail` characters replaced by "…" when longer. */
export function clipMiddle(text: string, head: number, tail: number): string {
  return text.length <= head + tail + 1 ? text : `${text.slice(0, head)}…${text.slice(text.length - tail)}`;
}

/** A logger that drops everything: the default wherever a logger is optional. */
export const silentLogger: Logger = createLogger({ level: 'silent' });

interface Shared {
  threshold: number;
  sink: (line: string) => void;
  format: 'text' | 'json';
  secrets: string[];
  now: () => number;
}

function makeLogger(shared: Shared, namespace: string): Logger {
  const emit = (level: LogLevel, message: string, fields?: LogFields): void => {
    if (RANK[level] > shared.threshold) return;
    let line: string;
    try {
      line = formatLine(shared, level, namespace, message, fields);
    } catch {
      // A field that cannot be serialised must not turn logging into a crash.
      line = formatLine(shared, level, namespace, message, { fields_error: 'unserialisable log fields' });
    }
    try {
      shared.sink(redactText(line, shared.secrets));
    } catch {
      // A broken sink (closed stderr) is not worth taking the server down for.
    }
  };
  return {
    error: (message, fields) => emit('error', message, fields),
    warn: (message, fields) => emit('warn', message, fields),
    info: (message, fields) => emit('info', message, fields),
    debug: (message, fields) => emit('debug', message, fields),
    child: (child) => makeLogger(shared, namespace ? `${namespace}:${child}` : child),
    withSecrets: (secrets) =>
      makeLogger(
        {
          ...shared,
          sink: (line) => {
            const extra = secrets();
            shared.sink(
              extra.length === 0 ? line : redactText(line, [...extra].filter((s) => s.length > 0).sort((a, b) => b.length - a.length)),
            );
          },
        },
        namespace,
      ),
  };
}

function formatLine(shared: Shared, level: LogLevel, namespace: string, message: string, fields?: LogFields): string {
  const clean = fields === undefined ? undefined : sanitize(fields, 0);
  if (shared.format === 'json') {
    const record: LogFields = { time: new Date(shared.now()).toISOString(), level };
    if (namespace) record['ns'] = namespace;
    record['msg'] = message;
    if (clean && typeof clean === 'object') Object.assign(record, clean);
    return JSON.stringify(record);
  }
  const where = namespace ? ` ${namespace}` : '';
  const tail = clean && typeof clean === 'object' && Object.keys(clean).length > 0 ? ` ${JSON.stringify(clean)}` : '';
  return `[pagewire] ${level}${where}: ${message}${tail}`;
}

// Errors become plain objects (JSON.stringify would print `{}`), secret-named keys are
// masked whatever their value, and depth is bounded so a cyclic object cannot hang a log call.
function sanitize(value: unknown, depth: number): unknown {
  if (depth > 6) return '[depth]';
  if (value instanceof Error) {
    const out: LogFields = { name: value.name, message: value.message };
    if (value.stack) out['stack'] = value.stack;
    if (value.cause !== undefined) out['cause'] = sanitize(value.cause, depth + 1);
    return out;
  }
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'function' || typeof value === 'symbol') return String(value);
  if (Array.isArray(value)) return value.map((item) => sanitize(item, depth + 1));
  if (value !== null && typeof value === 'object') {
    const out: LogFields = {};
    for (const [key, item] of Object.entries(value)) {
      out[key] = SECRET_KEY.test(key) && item !== undefined ? REDACTED : sanitize(item, depth + 1);
    }
    return out;
  }
  return value;
}
