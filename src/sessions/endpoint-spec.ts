// What names a remote browser endpoint (PROTOCOL.md §1 "Browsers from endpoints"): its URL and the
// headers a farm wants (an Authorization), as --connect, --connect-file and session.create give it,
// and how it is shown: never with its userinfo, query (a Browserless token) or headers.
import { isLoopbackHost } from '../util/host.ts';
import { redactUrl } from '../util/redact.ts';

export interface EndpointSpec {
  /** As given, its query kept: a Browserless token travels there. */
  readonly url: string;
  /** Sent with `GET /json/version` and the WebSocket upgrade; never printed. */
  readonly headers: Readonly<Record<string, string>>;
}

const SCHEMES = ['ws:', 'wss:', 'http:', 'https:'];

/** Why `text` is not an endpoint URL, or undefined when it is one. */
export function endpointUrlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be a ws:// or http://host:port URL';
  }
  if (!SCHEMES.includes(url.protocol) || url.hostname === '') return 'must be a ws:// or http://host:port URL';
  return undefined;
}

/** The URL as logs, errors and server.info show it: without userinfo, query or fragment. */
export function endpointLabel(url: string): string {
  return redactUrl(url);
}

/** Whether the endpoint's URL names this machine (the only place a loopback proxy is reachable from). */
export function isLoopbackEndpoint(url: string): boolean {
  try {
    return isLoopbackHost(new URL(url).hostname);
  } catch {
    return false;
  }
}

/** A header name as HTTP allows it, and a value without line breaks (it would split the request). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_VALUE = /^[^\r\n\0]*$/;

/**
 * A --connect-file: one endpoint a line, a URL or a JSON object `{"url", "headers"?}`; blank lines
 * and `#` comments skipped. Errors name the line and the field, never a header's value or a URL's
 * query.
 */
export function parseEndpointFile(text: string): EndpointSpec[] {
  const specs: EndpointSpec[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const where = `line ${index + 1}`;
    if (!line.startsWith('{')) {
      const problem = endpointUrlProblem(line);
      if (problem) throw new Error(`${where}: ${problem}`);
      specs.push(Object.freeze({ url: line, headers: Object.freeze({}) }));
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new Error(`${where}: not a JSON object (write {"url": "ws://…", "headers": {"Authorization": "…"}} on one line)`);
    }
    const { url, headers, ...rest } = value as { url?: unknown; headers?: unknown };
    const unknown = Object.keys(rest);
    if (unknown.length > 0) throw new Error(`${where}: unknown field ${JSON.stringify(unknown[0])} (url and headers only)`);
    if (typeof url !== 'string') throw new Error(`${where}: url must be a string`);
    const problem = endpointUrlProblem(url);
    if (problem) throw new Error(`${where}: url ${problem}`);
    specs.push(Object.freeze({ url, headers: Object.freeze(parseHeaders(headers, where)) }));
  });
  return specs;
}

function parseHeaders(headers: unknown, where: string): Record<string, string> {
  if (headers === undefined) return {};
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) {
    throw new Error(`${where}: headers must be an object of header names to strings`);
  }
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name)) throw new Error(`${where}: ${JSON.stringify(name)} is not a header name`);
    if (typeof value !== 'string' || !HEADER_VALUE.test(value)) {
      throw new Error(`${where}: the value of header ${name} must be a string on one line`);
    }
    out[name] = value;
  }
  return out;
}
