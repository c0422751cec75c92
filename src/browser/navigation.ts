// Navigating a frame and waiting for DOMContentLoaded of the *new* loader (CDP-NOTES §6):
// lifecycle events are buffered from before Page.navigate is sent, because enabling them
// replays the old document's events and the new loader's can arrive before the reply. A renderer
// that crashes meanwhile never sends that event (the session stays attached): the wait ends then.
import type { Cdp } from '../../protocol/generated/cdp.ts';
import type { CdpSession } from '../cdp/session.ts';
import type { Deadline } from '../util/deadline.ts';
import type { Disposable } from '../util/disposable.ts';

export type NavigationOutcome =
  | { kind: 'committed'; loaderId: string; errorText?: string }
  | { kind: 'same_document' }
  | { kind: 'download'; errorText: string }
  | { kind: 'failed'; errorText: string }
  | { kind: 'crashed'; errorText: string };

/** What an act says of a navigation whose renderer crashed before the new document was ready. */
export const CRASHED_DURING_NAVIGATION =
  'the page crashed before the new document reached DOMContentLoaded: navigate or reload the tab again';

const CRASHED: NavigationOutcome = { kind: 'crashed', errorText: CRASHED_DURING_NAVIGATION };

/**
 * Watches one frame's lifecycle from the moment it is created: `waitForDomContentLoaded(loaderId)`
 * resolves at once if that event was already seen. Dispose it when done.
 */
export class LifecycleWatcher {
  readonly #session: CdpSession;
  readonly #frameId: string;
  readonly #seen = new Set<string>();
  readonly #waiters = new Map<string, Array<{ resolve(): void; reject(error: Error): void }>>();
  readonly #subscriptions: Disposable[];
  #crashed = false;

  constructor(session: CdpSession, frameId: string) {
    this.#session = session;
    this.#frameId = frameId;
    this.#subscriptions = [
      session.on('Page.lifecycleEvent', (event) => {
        if (event.frameId !== this.#frameId || event.name !== 'DOMContentLoaded') return;
        this.#seen.add(event.loaderId);
        for (const waiter of this.#waiters.get(event.loaderId) ?? []) waiter.resolve();
        this.#waiters.delete(event.loaderId);
      }),
      session.on('Inspector.targetCrashed', () => {
        this.#crashed = true;
        for (const waiters of this.#waiters.values()) for (const waiter of waiters) waiter.reject(new Error('the page crashed'));
        this.#waiters.clear();
      }),
    ];
  }

  /** The session's renderer crashed since this watcher was made. */
  get crashed(): boolean {
    return this.#crashed;
  }

  waitForDomContentLoaded(loaderId: string, deadline: Deadline): Promise<void> {
    if (this.#seen.has(loaderId)) return Promise.resolve();
    if (this.#crashed) return Promise.reject(new Error('the page crashed'));
    let detach: Disposable | undefined;
    const wait = new Promise<void>((resolve, reject) => {
      const list = this.#waiters.get(loaderId) ?? [];
      list.push({ resolve, reject });
      this.#waiters.set(loaderId, list);
      detach = this.#session.onDetached((reason) => reject(new Error(`the frame's target went away (${reason})`)));
    });
    return deadline.race(wait, 'waiting for DOMContentLoaded').finally(() => detach?.dispose());
  }

  dispose(): void {
    for (const subscription of this.#subscriptions) subscription.dispose();
    this.#waiters.clear();
  }
}

/**
 * `Page.navigate` in `frameId` and, for a new document, waits for its DOMContentLoaded. An HTTP
 * error page is a document; an empty-body error commits Chrome's error page under the same loader
 * (so it is waited for too); a download leaves the document as it was. On the deadline the load
 * is stopped (a hung server would otherwise keep Page.navigate pending forever). A renderer crash
 * ends it at once: the navigation dies with the renderer (before its commit Page.navigate answers
 * net::ERR_ABORTED, after it the document never gets further).
 */
export async function navigateFrame(
  session: CdpSession,
  frameId: string,
  url: string,
  deadline: Deadline,
): Promise<NavigationOutcome> {
  const watcher = new LifecycleWatcher(session, frameId);
  try {
    let result: Cdp.Page.NavigateResult;
    try {
      result = await deadline.race(session.send('Page.navigate', { url, frameId }), 'Page.navigate');
    } catch (error) {
      if (watcher.crashed) return CRASHED;
      session.send('Page.stopLoading').catch(() => {});
      throw error;
    }
    if (watcher.crashed) return CRASHED;
    if (result.isDownload) return { kind: 'download', errorText: result.errorText ?? 'the navigation became a download' };
    if (!result.loaderId) {
      return result.errorText ? { kind: 'failed', errorText: result.errorText } : { kind: 'same_document' };
    }
    try {
      await watcher.waitForDomContentLoaded(result.loaderId, deadline);
    } catch (error) {
      if (watcher.crashed) return CRASHED;
      session.send('Page.stopLoading').catch(() => {});
      throw error;
    }
    return result.errorText
      ? { kind: 'committed', loaderId: result.loaderId, errorText: result.errorText }
      : { kind: 'committed', loaderId: result.loaderId };
  } finally {
    watcher.dispose();
  }
}
