// Every listener, timer and child resource has an owner that releases it.
export interface Disposable {
  dispose(): void;
}

export function toDisposable(fn: () => void): Disposable {
  let done = false;
  return {
    dispose() {
      if (done) return;
      done = true;
      fn();
    },
  };
}

/** Releases its members in reverse order of adding, once. */
export class DisposableStack implements Disposable {
  #items: Disposable[] = [];
  #disposed = false;

  get disposed(): boolean {
    return this.#disposed;
  }

  add<T extends Disposable>(item: T): T {
    if (this.#disposed) item.dispose();
    else this.#items.push(item);
    return item;
  }

  defer(fn: () => void): void {
    this.add(toDisposable(fn));
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const item of this.#items.reverse()) {
      try {
        item.dispose();
      } catch {
        // One failing release must not keep the others from running.
      }
    }
    this.#items = [];
  }
}
