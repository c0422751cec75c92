// A typed event emitter whose subscriptions are Disposables.
import { type Disposable, toDisposable } from './disposable.ts';

type Listener<T> = (payload: T) => void;

export class Emitter<Events extends Record<string, unknown>> {
  #listeners = new Map<keyof Events, Set<Listener<never>>>();

  on<K extends keyof Events>(event: K, listener: Listener<Events[K]>): Disposable {
    let set = this.#listeners.get(event);
    if (!set) {
      set = new Set();
      this.#listeners.set(event, set);
    }
    set.add(listener as Listener<never>);
    return toDisposable(() => {
      set.delete(listener as Listener<never>);
      if (set.size === 0 && this.#listeners.get(event) === set) this.#listeners.delete(event);
    });
  }

  emit<K extends keyof Events>(event: K, payload: Events[K]): void {
    const set = this.#listeners.get(event);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        (listener as Listener<Events[K]>)(payload);
      } catch (error) {
        // A throwing listener must not break delivery to the others or the emitter's caller.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  listenerCount(event?: keyof Events): number {
    if (event !== undefined) return this.#listeners.get(event)?.size ?? 0;
    let n = 0;
    for (const set of this.#listeners.values()) n += set.size;
    return n;
  }

  removeAll(): void {
    this.#listeners.clear();
  }
}
