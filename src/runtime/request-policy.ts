// Who may use the listener (http-server.ts), decided on the HTTP request before any route or
// WebSocket sees it, in this order:
//   2. Host        → 403   (DNS rebinding; only when bound to loopback)
//   3. Origin      → 403   (browser pages; requests without Origin pass)
//   4. token       → 401   (query `token` or `Authorization: Bearer`; constant-time)
// Host and Origin come first because they say *who* is asking: a page in a browser is refused
// whatever credentials it guessed, and learns nothing about tokens from the answer. (Check 1,
// the path, is the listener's.)
import { Buffer } from 'node:buffer';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Principal } from '../rpc/context.ts';
import { hostForUrl, isLoopbackHost } from '../util/host.ts';

/** Principal ids come from token positions, never from the tokens themselves. */
export const NO_AUTH_PRINCIPAL: Principal = Object.freeze({ id: 'no-auth' });

export type Refusal = { status: 401 | 403 | 404; statusText: string; why: string };
export type Verdict = { status: 101; principal: Principal } | Refusal;

export interface RequestPolicyInit {
  /** Where the listener is bound: its own origins are accepted, and loopback binds check Host. */
  host: string;
  port: number;
  allowOrigins: readonly string[];
  /** The accepted tokens; undefined turns the token check off. */
  tokens: readonly string[] | undefined;
}

export class RequestPolicy {
  readonly #loopback: boolean;
  readonly #origins: ReadonlySet<string>;
  readonly #extraHosts: ReadonlySet<string>;
  readonly #auth: TokenChecker | undefined;

  /** `tokens` is undefined when auth is off (--no-auth): every caller that passes Host and Origin is let in. */
  constructor(o: RequestPolicyInit) {
    this.#auth = o.tokens === undefined ? undefined : new TokenChecker(o.tokens);
    this.#loopback = isLoopbackHost(o.host);
    const own = [`http://${hostForUrl(o.host)}:${o.port}`];
    if (this.#loopback) own.push(`http://localhost:${o.port}`, `http://127.0.0.1:${o.port}`, `http://[::1]:${o.port}`);
    this.#origins = new Set([...own, ...o.allowOrigins].map(normalizeOrigin));
    this.#extraHosts = new Set(o.allowOrigins.map(hostnameOfOrigin).filter((h): h is string => h !== undefined));
  }

  /** Host, Origin and token (header, else `query`), in that order; the caller has matched the path. */
  check(req: IncomingMessage, query: URLSearchParams): Verdict {
    const refused = this.checkCaller(req);
    if (refused) return refused;
    const auth = this.#auth;
    if (auth === undefined) return { status: 101, principal: NO_AUTH_PRINCIPAL };
    // The header wins when present, so a proxy-injected credential is not overridden by the URL.
    const candidate = bearerToken(req.headers.authorization) ?? query.get('token') ?? undefined;
    const principal = candidate === undefined ? undefined : auth.principalFor(candidate);
    if (principal === undefined) return { status: 401, statusText: 'Unauthorized', why: 'missing or wrong token' };
    return { status: 101, principal };
  }

  /** Host and Origin: who is asking (a CORS preflight passes these alone). */
  checkCaller(req: IncomingMessage): Refusal | undefined {
    if (this.#loopback) {
      const hostname = hostnameOfHostHeader(req.headers.host);
      if (hostname === undefined || !(isLoopbackHost(hostname) || this.#extraHosts.has(hostname))) {
        return { status: 403, statusText: 'Forbidden', why: 'host not allowed' };
      }
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !this.#origins.has(normalizeOrigin(origin))) {
      return { status: 403, statusText: 'Forbidden', why: 'origin not allowed' };
    }
    return undefined;
  }
}

class TokenChecker {
  readonly #digests: Buffer[];
  readonly #principals: Principal[];

  constructor(tokens: readonly string[]) {
    this.#digests = tokens.map(sha256);
    this.#principals = tokens.map((_, index) => Object.freeze({ id: `token-${index + 1}` }));
  }

  /**
   * Compares against every configured token, without stopping at a match: equal-length
   * digests through timingSafeEqual, so neither the length nor the content of a token nor
   * which one matched shows in the timing.
   */
  principalFor(candidate: string): Principal | undefined {
    const digest = sha256(candidate);
    let match = -1;
    for (let i = 0; i < this.#digests.length; i++) {
      const equal = timingSafeEqual(digest, this.#digests[i]!);
      match = equal && match === -1 ? i : match;
    }
    return match === -1 ? undefined : this.#principals[match];
  }
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

function hostnameOfHostHeader(header: string | undefined): string | undefined {
  if (header === undefined || header === '') return undefined;
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    return end === -1 ? undefined : h.slice(0, end + 1);
  }
  const colon = h.indexOf(':');
  // More than one colon without brackets is not a valid Host header.
  if (colon !== -1 && h.indexOf(':', colon + 1) !== -1) return undefined;
  return colon === -1 ? h : h.slice(0, colon);
}

function normalizeOrigin(origin: string): string {
  try {
    const url = new URL(origin);
    return url.origin === 'null' ? origin.toLowerCase() : url.origin;
  } catch {
    return origin.toLowerCase();
  }
}

function hostnameOfOrigin(origin: string): string | undefined {
  try {
    return new URL(origin).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}
