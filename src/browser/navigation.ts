// Navigating a frame and waiting for DOMContentLoaded of the *new* loader (CDP-NOTES §6):
// lifecycle events are buffered from before Page.navigate is sent, because enabling them
// replays the old document's events and the new loader's can arrive before the reply.
import type { Cdp } from '../../protocol/generated/cdp.ts';
import type { CdpSession } from '../cdp/session.ts';
import type { Deadline } from '../util/deadline.ts';
import type { Disposable } from '../util/disposable.ts';

export type NavigationOutcome =
  | { kind: 'committed'; loaderId: string; errorText?: string }
  | { kind: 'same_document' }
  | { kind: 'download'; errorText: string }
  | { kind: 'failed'; errorText: string };

/**
 * Watches one frame's lifecycle from the moment it is created: `waitForDomContentLoaded(loaderId)`
 * resolves at once if that event was already seen. Dispose it when done.
 */
export class LifecycleWatcher {
  readonly #session: CdpSession;
  readonly #frameId: string;
  readonly #seen = new Set<string>();
  readonly #waiters = new Map<string, Array<() => void>>();
  readonly #subscription: Disposable;

  constructor(session: CdpSession, frameId: string) {
    this.#session = session;
    this.#frameId = frameId;
    this.#subscription = session.on('Page.lifecycleEvent', (event) => {
      if (event.frameId !== this.#frameId || event.name !== 'DOMContentLoaded') return;
      this.#seen.add(event.loaderId);
      for (const resolve of this.#waiters.get(event.loaderId) ?? []) resolve();
      this.#waiters.delete(event.loaderId);
    });
  }

  waitForDomContentLoaded(loaderId: string, deadline: Deadline): Promise<void> {
    if (this.#seen.has(loaderId)) return Promise.resolve();
    let detach: Disposable | undefined;
    const wait = new Promise<void>((resolve, reject) => {
      const list = this.#waiters.get(loaderId) ?? [];
      list.push(resolve);
      this.#waiters.set(loaderId, list);
      detach = this.#session.onDetached((reason) => reject(new Error(`the frame's target went away (${reason})`)));
    });
    return deadline.race(wait, 'waiting for DOMContentLoaded').finally(() => detach?.dispose());
  }

  dispose(): void {
    this.#subscription.dispose();
    this.#waiters.clear();
  }
}

/**
 * `Page.navigate` in `frameId` and, for a new document, waits for its DOMContentLoaded. An HTTP
 * error page is a document; an empty-body error commits Chrome's error page under the same loader
 * (so it is waited for too); a download leaves the document as it was. On the deadline the load
 * is stopped (a hung server would otherwise keep Page.navigate pending forever).
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
      session.send('Page.stopLoading').catch(() => {});
      throw error;
    }
    if (result.isDownload) return { kind: 'download', errorText: result.errorText ?? 'the navigation became a download' };
    if (!result.loaderId) {
      return result.errorText ? { kind: 'failed', errorText: result.errorText } : { kind: 'same_document' };
    }
    try {
      await watcher.waitForDomContentLoaded(result.loaderId, deadline);
    } catch (error) {
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
