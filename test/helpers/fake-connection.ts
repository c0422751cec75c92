// A client connection for event tests: the test controls its send buffer (bufferedAmount) and
// reads what notify() was given.

export class FakeConnection {
  readonly id: string;
  readonly principal = { id: 'p1' };
  readonly #controller = new AbortController();
  buffered = 0;
  /** notify() returns false when set (the socket is gone). */
  refuse = false;
  readonly sent: Array<Record<string, unknown>> = [];
  readonly methods: string[] = [];
  /** Runs inside notify, after recording (a re-entrant publisher, say). */
  onNotify: ((params: Record<string, unknown>) => void) | undefined;
  #waiters: Array<{ count: number; resolve: () => void }> = [];

  constructor(id = 'c1') {
    this.id = id;
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  notify(method: string, params: unknown): boolean {
    if (this.refuse || this.signal.aborted) return false;
    this.methods.push(method);
    this.sent.push(params as Record<string, unknown>);
    this.#waiters = this.#waiters.filter((w) => (this.sent.length >= w.count ? (w.resolve(), false) : true));
    this.onNotify?.(params as Record<string, unknown>);
    return true;
  }

  bufferedAmount(): number {
    return this.buffered;
  }

  /** Resolves once notify has been called `count` times in all. */
  delivered(count: number): Promise<void> {
    if (this.sent.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ count, resolve }));
  }

  close(): void {
    this.#controller.abort();
  }
}
