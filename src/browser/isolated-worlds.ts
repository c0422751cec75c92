// Isolated-world execution contexts per frame document: our in-page code runs there, away from
// page scripts that patch prototypes (Node.prototype.contains, focus…) and could fake its checks.
import type { CdpSession } from '../cdp/session.ts';
import { BoundedMap } from '../util/bounded-map.ts';

const WORLD_NAME = '__pagewire__';

export class IsolatedWorlds {
  readonly #contexts = new BoundedMap<string, Promise<number>>(256);

  contextFor(session: CdpSession, frameId: string, loaderId: string): Promise<number> {
    const key = `${frameId}\u0000${loaderId}`;
    let context = this.#contexts.get(key);
    if (!context) {
      context = session
        .send('Page.createIsolatedWorld', { frameId, worldName: WORLD_NAME, grantUniveralAccess: false })
        .then((r) => r.executionContextId);
      // A failed creation must be retried next time, not cached.
      context.catch(() => this.#contexts.delete(key));
      this.#contexts.set(key, context);
    }
    return context;
  }
}
