// What the server keeps about each execution context of a renderer (the functions sent to it, the
// nodes resolved in it), keyed by session and context id.
import type { CdpSession } from '../cdp/session.ts';
import { BoundedMap } from '../util/bounded-map.ts';

/**
 * One value per (session, context), made by `create` on first use. Past `maxContexts` in a
 * session the oldest context is forgotten: contexts come and go with documents, and a forgotten
 * one only costs its value being made again.
 */
export class PerContext<T> {
  readonly #bySession = new WeakMap<CdpSession, Map<number, T>>();
  readonly #create: () => T;
  readonly #maxContexts: number;

  constructor(create: () => T, maxContexts: number) {
    this.#create = create;
    this.#maxContexts = maxContexts;
  }

  get(session: CdpSession, contextId: number): T {
    let contexts = this.#bySession.get(session);
    if (!contexts) this.#bySession.set(session, contexts = new BoundedMap(this.#maxContexts));
    let value = contexts.get(contextId);
    if (value === undefined) {
      contexts.set(contextId, value = this.#create());
    }
    return value;
  }
}
