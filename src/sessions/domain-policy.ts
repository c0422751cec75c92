// Domain policy (PROTOCOL.md §13, docs/safety.md): which hosts the browser may reach. A pattern
// names a host, optionally with a scheme and a port; `*` in a host stands for any run of
// characters, dots included. Globs rather than URLPattern: URLPattern is not in Node 20, and a
// policy about domains must not look as if it could tell paths apart (any page of a host can
// reach every path of that host).
//
//   example.com            that host, any scheme, any port
//   *.example.com          every subdomain of example.com (not example.com itself)
//   https://example.com    https (and wss) only
//   localhost:3000         that host and port
//   127.0.0.1, [::1]:8080  addresses as the URL parser writes them
//   *                      every host
//
// Block rules win over allow rules; with allow rules, a host must match one of them. A server
// policy and a session policy both apply: a session can only narrow what the server allows.

import { isLoopbackHost } from '../util/host.ts';

export type PolicySource = 'server' | 'session';

export interface DomainPattern {
  /** As given, for error texts and server.info. */
  readonly text: string;
  /** `http` (matches http and ws), `https` (https and wss), or undefined for any. */
  readonly scheme: 'http' | 'https' | undefined;
  readonly host: string;
  /** undefined: any port. */
  readonly port: number | undefined;
  /** The host has no `*`: it names one host exactly. */
  readonly literal: boolean;
  readonly test: (host: string) => boolean;
}

/** A pattern that cannot be read; the message says why (configuration and params errors quote it). */
export class PatternError extends Error {
  override readonly name = 'PatternError';
}

const SCHEMES: Record<string, 'http' | 'https'> = { http: 'http', https: 'https', ws: 'http', wss: 'https' };
const MAX_PATTERN = 300;

/** Reads one pattern of the syntax above. */
export function parseDomainPattern(text: string): DomainPattern {
  const given = text.trim();
  if (given === '' || given.length > MAX_PATTERN) throw new PatternError(`a domain pattern has 1 to ${MAX_PATTERN} characters`);
  let rest = given;
  let scheme: 'http' | 'https' | undefined;
  const schemeMatch = /^([a-z]+):\/\//i.exec(rest);
  if (schemeMatch) {
    scheme = SCHEMES[schemeMatch[1]!.toLowerCase()];
    if (!scheme) throw new PatternError(`${JSON.stringify(given)}: the scheme must be http, https, ws or wss`);
    rest = rest.slice(schemeMatch[0].length);
  }
  if (rest.endsWith('/')) rest = rest.slice(0, -1);
  if (/[/?#@\\]/.test(rest)) {
    throw new PatternError(`${JSON.stringify(given)}: a domain pattern names a host (and a port), not a path, query or user`);
  }
  let port: number | undefined;
  const portMatch = /:(\d{1,5}|\*)$/.exec(rest);
  if (portMatch && !(rest.startsWith('[') && !rest.includes(']:'))) {
    if (portMatch[1] !== '*') {
      port = Number(portMatch[1]);
      if (port < 1 || port > 65535) throw new PatternError(`${JSON.stringify(given)}: the port must be 1–65535`);
    }
    rest = rest.slice(0, -portMatch[0].length);
  }
  const host = normalizeHostPattern(rest, given);
  return { text: given, scheme, host, port, literal: !host.includes('*'), test: hostMatcher(host) };
}

function normalizeHostPattern(host: string, given: string): string {
  if (host === '') throw new PatternError(`${JSON.stringify(given)}: no host`);
  if (host.startsWith('[')) {
    if (!host.endsWith(']') || host.includes('*')) {
      throw new PatternError(`${JSON.stringify(given)}: an IPv6 address is written [like::this], without *`);
    }
    return canonicalHost(host, given);
  }
  if (!host.includes('*')) return canonicalHost(host, given);
  // Wildcards: each label on its own (the URL parser would refuse or rewrite `*`).
  return host
    .toLowerCase()
    .replace(/\.$/, '')
    .split('.')
    .map((label) => {
      if (label.includes('*')) {
        if (!/^[a-z0-9_*-]+$/.test(label)) {
          throw new PatternError(`${JSON.stringify(given)}: a label with * may hold only a-z, 0-9, - and _`);
        }
        return label.replace(/\*+/g, '*');
      }
      return canonicalHost(label, given);
    })
    .join('.');
}

/** The host as the URL parser writes it (lower case, punycode, IPv4 and IPv6 canonical). */
function canonicalHost(host: string, given: string): string {
  try {
    const parsed = new URL(`http://${host}/`);
    // The URL parser lets through characters no DNS name has (`!`, `$`…): such a pattern matches nothing real.
    if (!/^(\[[0-9a-f:.]+\]|[a-z0-9_.-]+)$/.test(parsed.hostname)) throw new Error('not a name');
    return parsed.hostname.replace(/\.$/, '');
  } catch {
    throw new PatternError(`${JSON.stringify(given)}: ${JSON.stringify(host)} is not a host name or address`);
  }
}

function hostMatcher(pattern: string): (host: string) => boolean {
  if (pattern === '*') return () => true;
  if (!pattern.includes('*')) return (host) => host === pattern;
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.+');
  const regex = new RegExp(`^${source}$`);
  return (host) => regex.test(host);
}

/** What a request is checked by: its scheme, host (as `URL.hostname` writes it) and port. */
export interface Destination {
  /** `http`, `https`, `ws`, `wss`, or undefined when only the host and port are known (a proxy tunnel). */
  readonly scheme: string | undefined;
  readonly host: string;
  readonly port: number;
}

/** The destination of a URL, or undefined for URLs that are not network requests (data:, blob:, about:…). */
export function destinationOf(url: string): Destination | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const scheme = parsed.protocol.slice(0, -1);
  if (!(scheme in SCHEMES)) return undefined;
  const port = parsed.port ? Number(parsed.port) : scheme === 'https' || scheme === 'wss' ? 443 : 80;
  return { scheme, host: parsed.hostname.replace(/\.$/, ''), port };
}

export function patternMatches(pattern: DomainPattern, destination: Destination): boolean {
  if (pattern.scheme !== undefined && destination.scheme !== undefined && SCHEMES[destination.scheme] !== pattern.scheme) return false;
  if (pattern.port !== undefined && pattern.port !== destination.port) return false;
  return pattern.test(destination.host);
}

// ---- private network -------------------------------------------------------------------------

function ipv4(host: string): number[] | undefined {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!match) return undefined;
  const octets = match.slice(1).map(Number);
  return octets.every((o) => o <= 255) ? octets : undefined;
}

function privateIpv4([a, b]: number[]): boolean {
  return (
    a === 0 || // "this network": 0.0.0.0 reaches the local machine
    a === 10 ||
    a === 127 ||
    (a === 100 && b! >= 64 && b! <= 127) || // carrier-grade NAT
    (a === 169 && b === 254) || // link-local
    (a === 172 && b! >= 16 && b! <= 31) ||
    (a === 192 && b === 168)
  );
}

/** The 8 groups of an IPv6 address (without brackets), or undefined. */
function ipv6Groups(address: string): number[] | undefined {
  let text = address.toLowerCase();
  const dotted = /:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(text);
  if (dotted) {
    const v4 = ipv4(dotted[1]!);
    if (!v4) return undefined;
    text = `${text.slice(0, dotted.index)}:${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const parse = (
    part: string,
  ) => (part === '' ? [] : part.split(':').map((group) => (/^[0-9a-f]{1,4}$/.test(group) ? parseInt(group, 16) : NaN)));
  const head = parse(halves[0]!);
  const tail = halves.length === 2 ? parse(halves[1]!) : [];
  const fill = halves.length === 2 ? 8 - head.length - tail.length : 0;
  const groups = [...head, ...new Array<number>(Math.max(0, fill)).fill(0), ...tail];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g)) ? groups : undefined;
}

/** Loopback, private, link-local and unspecified addresses, and `localhost` names. */
export function isPrivateAddress(host: string): boolean {
  let h = host.trim().toLowerCase().replace(/\.$/, '');
  if (isLoopbackHost(h)) return true;
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  const v4 = ipv4(h);
  if (v4) return privateIpv4(v4);
  if (!h.includes(':')) return false;
  const groups = ipv6Groups(h.replace(/%.*$/, ''));
  if (!groups) return false;
  if (groups.every((g) => g === 0)) return true; // ::
  if (groups.slice(0, 7).every((g) => g === 0) && groups[7] === 1) return true; // ::1
  if ((groups[0]! & 0xfe00) === 0xfc00) return true; // fc00::/7 unique local
  if ((groups[0]! & 0xffc0) === 0xfe80) return true; // fe80::/10 link-local
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    // ::ffff:a.b.c.d, an IPv4 address in IPv6 clothes
    return privateIpv4([groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff]);
  }
  return false;
}

/** Hosts that may be private as the URL parser writes them (the proxy checks resolved names). */
const PRIVATE_URL_PREFIXES = ['localhost', '*.localhost', '127.', '10.', '172.', '192.168.', '169.254.', '100.', '0.', '['];

// ---- policies ----------------------------------------------------------------------------------

export interface DomainPolicyInit {
  allow?: readonly string[];
  block?: readonly string[];
  blockPrivateNetwork?: boolean;
}

export type Verdict = { allowed: true } | { allowed: false; rule: string };

const ALLOWED: Verdict = { allowed: true };

/** One level's rules (the server's flags, or a session's params). */
export class DomainPolicy {
  readonly source: PolicySource;
  readonly allow: readonly DomainPattern[];
  readonly block: readonly DomainPattern[];
  readonly blockPrivateNetwork: boolean;

  constructor(source: PolicySource, init: DomainPolicyInit) {
    this.source = source;
    this.allow = (init.allow ?? []).map(parseDomainPattern);
    this.block = (init.block ?? []).map(parseDomainPattern);
    this.blockPrivateNetwork = init.blockPrivateNetwork === true;
  }

  get empty(): boolean {
    return this.allow.length === 0 && this.block.length === 0 && !this.blockPrivateNetwork;
  }

  /** How a rule of this level is named in errors and the network log. */
  ruleName(kind: 'block' | 'allow' | 'private', pattern?: DomainPattern): string {
    const server = this.source === 'server';
    if (kind === 'block') return `${server ? '--block-domain' : 'block_domains'} ${pattern!.text}`;
    if (kind === 'allow') return server ? 'no --allow-domain matches' : 'no allow_domains pattern matches';
    return server ? '--block-private-network' : 'block_private_network';
  }

  /**
   * The host check. `resolved` are the addresses the host resolved to, when the caller knows them
   * (the proxy does; the browser's request interception does not).
   */
  check(destination: Destination, resolved: readonly string[] = []): Verdict {
    const blocked = this.block.find((pattern) => patternMatches(pattern, destination));
    if (blocked) return { allowed: false, rule: this.ruleName('block', blocked) };
    const allowedBy = this.allow.filter((pattern) => patternMatches(pattern, destination));
    if (this.allow.length > 0 && allowedBy.length === 0) return { allowed: false, rule: this.ruleName('allow') };
    if (this.blockPrivateNetwork && (isPrivateAddress(destination.host) || resolved.some(isPrivateAddress))) {
      // A host named exactly by an allow rule is meant to be reached (a local app next to a
      // blocked private network); a wildcard does not name it.
      if (!allowedBy.some((pattern) => pattern.literal)) return { allowed: false, rule: this.ruleName('private') };
    }
    return ALLOWED;
  }

  describe(): { allow: string[]; block: string[]; block_private_network: boolean } {
    return { allow: this.allow.map((p) => p.text), block: this.block.map((p) => p.text), block_private_network: this.blockPrivateNetwork };
  }
}

/** The server's and a session's policies together: a request passes only if both let it. */
export class PolicyChain {
  readonly levels: readonly DomainPolicy[];

  constructor(levels: readonly DomainPolicy[]) {
    this.levels = levels.filter((level) => !level.empty);
  }

  get empty(): boolean {
    return this.levels.length === 0;
  }

  get blocksPrivateNetwork(): boolean {
    return this.levels.some((level) => level.blockPrivateNetwork);
  }

  check(destination: Destination, resolved: readonly string[] = []): Verdict {
    for (const level of this.levels) {
      const verdict = level.check(destination, resolved);
      if (!verdict.allowed) return verdict;
    }
    return ALLOWED;
  }

  /**
   * The URL patterns (CDP Fetch syntax: `*` any run, `?` one character) of every request that
   * might be refused: the rest need not be paused at all. An allow list can refuse anything, so it
   * needs every request; block rules need only URLs that hold their host; a blocked private network
   * the URLs with a private-looking host. Patterns are supersets (any URL that holds the host
   * anywhere): what they pause is checked here all the same.
   */
  interceptPatterns(): string[] {
    if (this.levels.some((level) => level.allow.length > 0)) return ['*'];
    const patterns = new Set<string>();
    for (const level of this.levels) {
      // Unanchored: `http://user@host/` must be paused as well as `http://host/`.
      for (const pattern of level.block) patterns.add(`*${pattern.host.replace(/[\\?]/g, '\\$&')}*`);
      if (level.blockPrivateNetwork) { for (const prefix of PRIVATE_URL_PREFIXES) patterns.add(`*${prefix}*`); }
    }
    return [...patterns];
  }

  /** A URL's verdict; URLs that are not network requests (data:, about:, blob:) always pass. */
  checkUrl(url: string): Verdict {
    const destination = destinationOf(url);
    return destination ? this.check(destination) : ALLOWED;
  }
}
