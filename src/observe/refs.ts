// Stable refs: a DOM node keeps its ref for as long as its document lives, and a ref is never
// given to another node. Keyed by frame, loader (the document's epoch) and backendNodeId,
// because backendNodeIds restart after a cross-site navigation (CDP-NOTES §3).

import { BoundedMap } from '../util/bounded-map.ts';

/** Live refs one tab may hold before the oldest are forgotten (a node seen again gets a new ref). */
const MAX_REFS = 50_000;

export class RefRegistry {
  #next = 1;
  readonly #byKey = new BoundedMap<string, string>(MAX_REFS);

  get size(): number {
    return this.#byKey.size;
  }

  refFor(frameId: string, loaderId: string, backendNodeId: number): string {
    const key = `${frameId}\u0000${loaderId}\u0000${backendNodeId}`;
    let ref = this.#byKey.get(key);
    if (!ref) {
      ref = `@${this.#next++}`;
      this.#byKey.set(key, ref);
    }
    return ref;
  }

  /** Forgets the refs of documents that are gone: `isLive(frameId, loaderId)` says which stay. */
  prune(isLive: (frameId: string, loaderId: string) => boolean): void {
    for (const key of [...this.#byKey.keys()]) {
      const [frameId, loaderId] = key.split('\u0000');
      if (!isLive(frameId!, loaderId!)) this.#byKey.delete(key);
    }
  }
}
