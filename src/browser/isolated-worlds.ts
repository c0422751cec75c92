// Isolated-world execution contexts per frame document: our in-page code runs there, away from
// page scripts that patch prototypes (Node.prototype.contains, focus…) and could fake its checks.
import type { CdpSession } from '../cdp/session.ts';
import { BoundedMap } from '../util/bounded-map.ts';

/** Chromium returns the same context for the same name and frame, so a frame has one world of ours. */
const WORLD_NAME = '__pagewire__';

export class IsolatedWorlds {
  readonly #contexts = new BoundedMap<string, Promise<number>>(256);

  contextFor(session: CdpSession, frameId: string, loaderId: string): Promise<number> {
    const key = worldKey(frameId, loaderId);
    let context = this.#contexts.get(key);
    if (!context) {
      const made = session
        .send('Page.createIsolatedWorld', { frameId, worldName: WORLD_NAME, grantUniveralAccess: false })
        .then((r) => r.executionContextId);
      // A failed creation must be retried next time, not cached.
      made.catch(() => this.#contexts.get(key) === made && this.#contexts.delete(key));
      this.#contexts.set(key, context = made);
    }
    return context;
  }

  /**
   * Drops the document's context, known to be dead though its loader is the same (document.open,
   * the world crashed): the next contextFor makes a new one.
   */
  forget(frameId: string, loaderId: string): void {
    this.#contexts.delete(worldKey(frameId, loaderId));
  }
}

function worldKey(frameId: string, loaderId: string): string {
  return `${frameId}\u0000${loaderId}`;
}
