// The endpoints sessions are placed on (PROTOCOL.md §1 "Browsers from endpoints"): the operator's
// (--connect, --connect-file), connected on the first placement and tried again when lost, and
// those a client names at session.create under --allow-endpoint, each kept while it has sessions.
import type { Browser } from '../browser/browser.ts';
import type { ConnectionOptions } from '../cdp/connection.ts';
import { ServerError } from '../errors.ts';
import { Emitter } from '../util/emitter.ts';
import { IdSequence } from '../util/ids.ts';
import { urlMatches } from '../util/url-glob.ts';
import { Endpoint, type EndpointConnector, type EndpointSummary } from './endpoint.ts';
import { endpointLabel, type EndpointSpec, endpointUrlProblem, isLoopbackEndpoint } from './endpoint-spec.ts';

export interface EndpointPoolOptions {
  specs: readonly EndpointSpec[];
  /** URL globs a client-named endpoint must match (--allow-endpoint). */
  allow: readonly string[];
  connect: EndpointConnector;
  connectionOptions?: ConnectionOptions;
}

export interface PlacementRequest {
  /** An endpoint URL the client named at session.create. */
  endpoint?: string;
  /** The session has a domain policy: its browser must reach the loopback proxy. */
  needsLocalBrowser: boolean;
}

export interface Placement {
  browser: Browser;
  endpoint: Endpoint;
}

export interface EndpointPoolEvents extends Record<string, unknown> {
  lost: { browser: Browser; endpoint: Endpoint; reason: string };
}

const START_BUDGET_MS = 20_000;
const BACKOFF = { firstMs: 250, maxMs: 2_000 };

export class EndpointPool {
  readonly events = new Emitter<EndpointPoolEvents>();
  /** The operator's, in the order given. */
  readonly #endpoints: Endpoint[];
  /** Those clients named, by URL, while they have sessions. */
  readonly #named = new Map<string, Endpoint>();
  readonly #namedIds = new IdSequence('c');
  readonly #allow: readonly string[];
  readonly #connect: EndpointConnector;
  readonly #connectionOptions: ConnectionOptions;
  #closed = false;

  constructor(options: EndpointPoolOptions) {
    this.#allow = options.allow;
    this.#connect = options.connect;
    this.#connectionOptions = options.connectionOptions ?? {};
    const ids = new IdSequence('e');
    this.#endpoints = options.specs.map((spec) => this.#endpoint(ids.next(), spec, true));
  }

  /** Whether the operator gave endpoints (then no browser is launched). */
  get hasEndpoints(): boolean {
    return this.#endpoints.length > 0;
  }

  /** Every endpoint's browser that is live now. */
  browsers(): Browser[] {
    return this.#all().flatMap((endpoint) => (endpoint.browser ? [endpoint.browser] : []));
  }

  describe(): EndpointSummary[] {
    return this.#all().map((endpoint) => endpoint.describe());
  }

  /** The endpoint for a new session, counted as holding it until `release`. */
  async place(sessionId: string, request: PlacementRequest): Promise<Placement> {
    if (this.#closed) throw new ServerError('browser_unavailable', 'the server is shutting down');
    let endpoint: Endpoint;
    if (request.endpoint === undefined) {
      endpoint = await this.#leastBusy(sessionId, request.needsLocalBrowser);
    } else {
      endpoint = this.#clientNamed(request.endpoint, request.needsLocalBrowser);
      endpoint.take(sessionId);
    }
    try {
      return { browser: await endpoint.connect(), endpoint };
    } catch (error) {
      this.release(sessionId);
      throw error;
    }
  }

  release(sessionId: string): void {
    for (const endpoint of this.#endpoints) if (endpoint.release(sessionId)) return;
    for (const [url, endpoint] of this.#named) {
      if (!endpoint.release(sessionId)) continue;
      if (endpoint.sessionCount === 0) {
        this.#named.delete(url);
        endpoint.dispose('its last session closed');
      }
      return;
    }
  }

  /** Closes every connection of ours; never a browser. */
  shutdown(): void {
    this.#closed = true;
    for (const endpoint of this.#all()) endpoint.dispose('server shutting down');
    this.#named.clear();
  }

  #all(): Endpoint[] {
    return [...this.#endpoints, ...this.#named.values()];
  }

  #endpoint(id: string, spec: EndpointSpec, retry: boolean): Endpoint {
    const endpoint = new Endpoint({
      id,
      spec,
      connect: this.#connect,
      connectionOptions: this.#connectionOptions,
      retry,
      startMs: START_BUDGET_MS,
      backoff: BACKOFF,
    });
    endpoint.events.on('lost', ({ browser, reason }) => {
      this.events.emit('lost', { browser, endpoint, reason });
      // A client's endpoint is not tried again: its sessions are gone, and so is the reason to hold it.
      if (!retry && this.#named.get(spec.url) === endpoint) {
        this.#named.delete(spec.url);
        endpoint.dispose('lost');
      }
    });
    return endpoint;
  }

  /** Chooses and counts the session there in one step: concurrent placements see it, and spread. */
  async #leastBusy(sessionId: string, needsLocalBrowser: boolean): Promise<Endpoint> {
    // Every endpoint's first try settles before the choice, so the first sessions spread over all of them.
    await Promise.all(this.#endpoints.map((endpoint) => endpoint.firstTry()));
    const fit = this.#endpoints.filter((endpoint) => !needsLocalBrowser || endpoint.loopback);
    let best: Endpoint | undefined;
    for (const endpoint of fit) {
      if (endpoint.state !== 'live') continue;
      if (!best || endpoint.sessionCount < best.sessionCount) best = endpoint;
    }
    if (best) {
      best.take(sessionId);
      return best;
    }
    const states = this.#endpoints.map((endpoint) => `${endpoint.id} (${endpoint.label}) ${endpoint.state}`).join(', ');
    if (needsLocalBrowser) {
      throw new ServerError(
        'browser_unavailable',
        'a session with a domain policy needs a browser on this machine (its traffic goes through a proxy on 127.0.0.1), ' +
          `and no endpoint on a loopback host is live: ${states}`,
        {
          details: {
            reason: 'policy_needs_local_browser',
            fix: 'add an endpoint on 127.0.0.1 (--connect), or create the session without a domain policy on a server without one',
          },
        },
      );
    }
    throw new ServerError('browser_unavailable', `no endpoint is live: ${states}; they are tried again until they answer`, {
      details: { reason: 'no_live_endpoint', fix: 'start the farm browsers, or check the --connect URLs' },
    });
  }

  #clientNamed(url: string, needsLocalBrowser: boolean): Endpoint {
    // Userinfo is refused: `http://127.0.0.1:9222@elsewhere/` would match `http://127.0.0.1:*`.
    const problem = endpointUrlProblem(url) ??
      (hasUserinfo(url) ? 'must not carry user:password@ (use --connect-file headers)' : undefined);
    if (problem) {
      throw new ServerError('invalid_params', `Invalid params at endpoint: ${problem}`, {
        details: { issues: [{ path: 'endpoint', message: problem }] },
      });
    }
    const shown = endpointLabel(url);
    if (!this.#allow.some((pattern) => urlMatches(url, pattern))) {
      const why = this.#allow.length === 0
        ? 'this server lets no client name an endpoint (its operator can allow some with --allow-endpoint PATTERN)'
        : 'it matches no --allow-endpoint pattern of this server';
      throw new ServerError('forbidden', `the endpoint ${shown} may not be used: ${why}`, { details: { endpoint: shown } });
    }
    if (needsLocalBrowser && !isLoopbackEndpoint(url)) {
      throw new ServerError(
        'browser_unavailable',
        `a session with a domain policy needs a browser on this machine (its traffic goes through a proxy on 127.0.0.1); ` +
          `the endpoint ${shown} is on another host`,
        {
          details: {
            reason: 'policy_needs_local_browser',
            fix: 'name an endpoint on 127.0.0.1, or create the session without a domain policy',
          },
        },
      );
    }
    return this.#endpoints.find((candidate) => candidate.spec.url === url) ?? this.#named.get(url) ?? this.#adopt(url);
  }

  #adopt(url: string): Endpoint {
    const endpoint = this.#endpoint(this.#namedIds.next(), Object.freeze({ url, headers: Object.freeze({}) }), false);
    this.#named.set(url, endpoint);
    return endpoint;
  }
}

function hasUserinfo(url: string): boolean {
  const parsed = new URL(url);
  return parsed.username !== '' || parsed.password !== '';
}
