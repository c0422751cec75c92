// The domain policy inside the browser (docs/safety.md): every HTTP(S) request of a target session
// is paused by the Fetch domain and either let go or failed with BlockedByClient, before it leaves
// the browser. Redirects are paused again at each hop. Measured on Chromium 156: a page session
// also pauses the requests of its dedicated workers (which have no Fetch domain of their own) and
// the document request of its out-of-process iframes; an iframe's subresources are paused on the
// iframe's own session; service workers and shared workers need their own sessions. WebSockets
// are never paused (see the context proxy in src/runtime/socks-proxy.ts).
import type { CdpSession } from '../cdp/session.ts';

export type RequestVerdict = { allowed: true } | { allowed: false; rule: string };

export interface BlockedRequest {
  /** The session whose interception refused it. */
  session: CdpSession;
  /** The Network domain's id of the request, when Chromium gave one. */
  networkId: string | undefined;
  url: string;
  method: string;
  /** CDP's resource type (`Document`, `XHR`, …). */
  resourceType: string;
  frameId: string | undefined;
  rule: string;
}

export interface RequestGuardOptions {
  /** URL patterns (Fetch syntax) of the requests to pause; the others never stop. */
  patterns: readonly string[];
  decide(url: string): RequestVerdict;
  onBlocked(request: BlockedRequest): void;
}

/**
 * Starts intercepting on `session`: the commands to pipeline before the target runs. The listener
 * goes with the session (a detached session drops its listeners).
 */
export function guardRequests(session: CdpSession, options: RequestGuardOptions): Promise<unknown>[] {
  session.on('Fetch.requestPaused', (event) => {
    let verdict: RequestVerdict;
    try {
      verdict = options.decide(event.request.url);
    } catch {
      // A request we cannot judge is not let through: a paused request must still be answered.
      verdict = { allowed: false, rule: 'the domain policy could not check this URL' };
    }
    if (verdict.allowed) {
      session.send('Fetch.continueRequest', { requestId: event.requestId }).catch(() => {});
      return;
    }
    session.send('Fetch.failRequest', { requestId: event.requestId, errorReason: 'BlockedByClient' }).catch(() => {});
    options.onBlocked({
      session,
      networkId: event.networkId,
      url: event.request.url,
      method: event.request.method,
      resourceType: event.resourceType,
      frameId: event.frameId,
      rule: verdict.rule,
    });
  });
  return [
    session.send('Fetch.enable', { patterns: options.patterns.map((urlPattern) => ({ urlPattern, requestStage: 'Request' as const })) }),
  ];
}
