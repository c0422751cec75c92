// The raw CDP trace (--log-level debug) as it may be written: what is typed (keystrokes one
// character at a time would spell out a secret no string match finds), cookie values and cookie or
// authorization headers are replaced, and the messages of the server's storage helper keep only
// their method. Secrets of the sessions are hidden by the caller's redaction after this.
import { REDACTED } from './redact.ts';

/** Fields of Input commands that say what is typed: texts, and key names and codes (which spell it too). */
const TYPED_FIELD =
  /^(text|unmodifiedText|key|code|keyIdentifier|keyCode|windowsVirtualKeyCode|nativeVirtualKeyCode|commands|selectionStart|selectionEnd|replacementStart|replacementEnd)$/;
const SECRET_HEADERS = /^(cookie|set-cookie|authorization|proxy-authorization)$/i;
const HEADER_LINES = /^((?:cookie|set-cookie|authorization|proxy-authorization):)[^\r\n]*/gim;

export interface TraceScrubOptions {
  /** Sessions whose messages keep only their method (and id). */
  quiet?: (sessionId: string) => boolean;
}

export function scrubCdpMessage(message: string, options: TraceScrubOptions = {}): string {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(message) as Record<string, unknown>;
  } catch {
    return message;
  }
  if (typeof parsed['sessionId'] === 'string' && options.quiet?.(parsed['sessionId'])) {
    const kept: Record<string, unknown> = { sessionId: parsed['sessionId'] };
    if (parsed['id'] !== undefined) kept['id'] = parsed['id'];
    if (parsed['method'] !== undefined) kept['method'] = parsed['method'];
    kept['contents'] = REDACTED;
    return JSON.stringify(kept);
  }
  const method = typeof parsed['method'] === 'string' ? parsed['method'] : '';
  if (method.startsWith('Input.') && isRecord(parsed['params'])) {
    const params = { ...parsed['params'] };
    for (const field of Object.keys(params)) if (TYPED_FIELD.test(field)) params[field] = REDACTED;
    parsed = { ...parsed, params };
  }
  return JSON.stringify(walk(parsed, 0));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function walk(value: unknown, depth: number): unknown {
  if (depth > 32) return value;
  if (Array.isArray(value)) return value.map((item) => walk(item, depth + 1));
  if (!isRecord(value)) return value;
  // A cookie: its value goes, its name and domain stay.
  const cookie = typeof value['name'] === 'string' && typeof value['value'] === 'string' && typeof value['domain'] === 'string';
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (cookie && key === 'value') out[key] = REDACTED;
    else if (/headers$/i.test(key) && isRecord(item)) out[key] = scrubHeaders(item);
    else if (/headers$/i.test(key) && Array.isArray(item)) out[key] = item.map(scrubHeaderEntry);
    else if (/headersText$/i.test(key) && typeof item === 'string') out[key] = item.replace(HEADER_LINES, `$1 ${REDACTED}`);
    else out[key] = walk(item, depth + 1);
  }
  return out;
}

/** `{name, value}`, as Fetch writes headers. */
function scrubHeaderEntry(header: unknown): unknown {
  return isRecord(header) && typeof header['name'] === 'string' && SECRET_HEADERS.test(header['name'])
    ? { ...header, value: REDACTED }
    : header;
}

function scrubHeaders(headers: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(headers)) out[name] = SECRET_HEADERS.test(name) ? REDACTED : value;
  return out;
}
