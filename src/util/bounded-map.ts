// A Map that keeps at most `limit` entries: caches of per-document and per-request things whose
// keys come and go with pages, where forgetting the oldest only costs making it again.

/**
 * Insertion order is age: `set` keeps an existing key where it is (as Map does), `renew` moves
 * it to the newest end. Past the limit the oldest entries are dropped; `renew` returns their
 * values, for callers that must release what they held.
 */
export class BoundedMap<K, V> extends Map<K, V> {
  readonly #limit: number;

  constructor(limit: number) {
    super();
    this.#limit = limit;
  }

  override set(key: K, value: V): this {
    super.set(key, value);
    this.#evict();
    return this;
  }

  /** Sets `key` as the newest entry; returns the values dropped to stay within the limit. */
  renew(key: K, value: V): V[] {
    super.delete(key);
    super.set(key, value);
    return this.#evict();
  }

  #evict(): V[] {
    const dropped: V[] = [];
    for (const [oldest, value] of this) {
      if (this.size <= this.#limit) break;
      super.delete(oldest);
      dropped.push(value);
    }
    return dropped;
  }
}
