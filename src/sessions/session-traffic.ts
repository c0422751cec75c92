// A session's requests: the domain policy enforced in every target of its browser context (request
// interception on pages, iframes, service and shared workers; the context's proxy carries its
// WebSockets), and the network log fed by the Network domain while it records. Nothing of it runs
// for a session without a policy whose log nobody asked for (docs/safety.md).
import type { Browser } from '../browser/browser.ts';
import { serveBlankDocuments } from '../browser/blank-documents.ts';
import { disableNetwork, enableNetwork, watchNetwork } from '../browser/network-events.ts';
import { type BlockedRequest, guardRequests } from '../browser/request-guard.ts';
import { autoAttachParams, type ContextSetup, type Tab } from '../browser/tab.ts';
import type { CdpSession } from '../cdp/session.ts';
import type { NetworkEntry } from '../wire/index.ts';
import type { Disposable } from '../util/disposable.ts';
import type { PolicyChain } from './domain-policy.ts';
import { NetworkLog } from './network-log.ts';

/** Target types whose requests the log and the policy reach through their own session. */
const WORKERS_WITH_FETCH = ['service_worker', 'shared_worker'];

export interface SessionTrafficOptions {
  browser: Browser;
  policy: PolicyChain;
  /** The session's open tabs (to turn recording on in targets that already run). */
  tabs(): Tab[];
  /** The URL as the log and errors show it (redacted). */
  showUrl(url: string): string;
  /** The URL the session's storage helper tab opens with (it gets blank documents, no policy, no log). */
  helperUrl: string;
  /** An entry finished or failed (the session publishes it as a `network` event when asked to). */
  completed(entry: NetworkEntry): void;
}

export class SessionTraffic {
  readonly policy: PolicyChain;
  readonly log: NetworkLog;
  readonly #options: SessionTrafficOptions;
  /** What the interception pauses (PolicyChain.interceptPatterns). */
  readonly #patterns: readonly string[];
  /** Target sessions of the context that run (pages, iframes, workers), with their type. */
  readonly #targets = new Map<CdpSession, string>();
  /** Network watchers of the sessions that record now. */
  readonly #watching = new Map<CdpSession, Disposable>();
  #recording = false;

  constructor(options: SessionTrafficOptions) {
    this.#options = options;
    this.policy = options.policy;
    this.#patterns = options.policy.interceptPatterns();
    this.log = new NetworkLog({
      tabOf: (session) => options.browser.tabOfSession(session.id)?.targetId,
      showUrl: options.showUrl,
      completed: (entry) => options.completed(entry),
    });
  }

  get recording(): boolean {
    return this.#recording;
  }

  /** What the context asks of each of its targets, before the target runs. */
  readonly context: ContextSetup = {
    setup: (session, targetType, url) =>
      targetType === 'page' && url === this.#options.helperUrl ? serveBlankDocuments(session) : this.#setup(session, targetType),
    attachTypes: () => {
      // Service workers need their own session for interception and for the log.
      return !this.policy.empty || this.#recording ? ['service_worker'] : [];
    },
  };

  /** A request refused by the context's proxy (a WebSocket, or anything under --block-private-network). */
  refusedConnection(host: string, port: number, rule: string): void {
    this.log.refusedConnection(host, port, rule);
  }

  /**
   * Starts the Network domain in every target of the context, and in those that attach from now
   * on (dedicated workers included). Idempotent.
   */
  async startRecording(): Promise<void> {
    if (this.#recording) return;
    this.#recording = true;
    const steps: Promise<unknown>[] = [];
    for (const session of this.#targets.keys()) steps.push(...this.#record(session));
    // Pages and iframes that run already: attach their workers too, now that the log wants them.
    for (const tab of this.#options.tabs()) {
      for (const session of tab.sessions()) steps.push(session.send('Target.setAutoAttach', autoAttachParams(this.context)));
    }
    await Promise.allSettled(steps);
  }

  /** Stops the Network domain everywhere; the entries stay. */
  async stopRecording(): Promise<void> {
    if (!this.#recording) return;
    this.#recording = false;
    const steps: Promise<unknown>[] = [];
    for (const [session, watcher] of this.#watching) {
      watcher.dispose();
      steps.push(disableNetwork(session));
    }
    this.#watching.clear();
    await Promise.allSettled(steps);
  }

  #setup(session: CdpSession, targetType: string): Promise<unknown>[] {
    this.#targets.set(session, targetType);
    session.onDetached(() => {
      this.#targets.delete(session);
      this.#watching.get(session)?.dispose();
      this.#watching.delete(session);
    });
    const steps: Promise<unknown>[] = [];
    // Dedicated workers have no Fetch domain: their requests are paused on their page's session.
    if (!this.policy.empty && (targetType === 'page' || targetType === 'iframe' || WORKERS_WITH_FETCH.includes(targetType))) {
      steps.push(
        ...guardRequests(session, {
          patterns: this.#patterns,
          decide: (url) => this.policy.checkUrl(url),
          onBlocked: (request: BlockedRequest) => this.log.blocked(request, this.#watching.has(request.session)),
        }),
      );
    }
    if (this.#recording) steps.push(...this.#record(session));
    return steps;
  }

  #record(session: CdpSession): Promise<unknown>[] {
    if (this.#watching.has(session)) return [];
    this.#watching.set(session, watchNetwork(session, this.log));
    return [enableNetwork(session)];
  }
}
