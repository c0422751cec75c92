// A time budget shared by every step of one operation, plus the abort signal that ends it
// early (cancel, session close, socket gone). Every wait on browser state goes through here.

export class DeadlineExceededError extends Error {
  constructor(what: string, budgetMs: number) {
    super(`${what}: the ${budgetMs} ms budget ran out`);
    this.name = 'DeadlineExceededError';
  }
}

export class AbortedError extends Error {
  constructor(reason: unknown) {
    super(reason instanceof Error ? reason.message : String(reason ?? 'aborted'));
    this.name = 'AbortedError';
  }
}

export class Deadline {
  readonly budgetMs: number;
  readonly signal: AbortSignal;
  readonly #endsAt: number;
  readonly #now: () => number;

  constructor(budgetMs: number, options: { signal?: AbortSignal; now?: () => number } = {}) {
    this.#now = options.now ?? (() => performance.now());
    this.budgetMs = budgetMs;
    this.#endsAt = this.#now() + budgetMs;
    this.signal = options.signal ?? new AbortController().signal;
  }

  remaining(): number {
    return Math.max(0, this.#endsAt - this.#now());
  }

  get expired(): boolean {
    return this.remaining() <= 0;
  }

  /** A smaller budget inside this one (e.g. per frame), never longer than what is left. */
  sub(budgetMs: number): Deadline {
    return new Deadline(Math.min(budgetMs, this.remaining()), { signal: this.signal, now: this.#now });
  }

  /**
   * Settles with `promise`, or rejects with DeadlineExceededError / AbortedError, whichever comes
   * first. The losing promise is left to settle on its own (its rejection is swallowed).
   */
  race<T>(promise: Promise<T>, what: string): Promise<T> {
    promise.catch(() => {});
    if (this.signal.aborted) return Promise.reject(new AbortedError(this.signal.reason));
    const remaining = this.remaining();
    if (remaining <= 0) return Promise.reject(new DeadlineExceededError(what, this.budgetMs));
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        cleanup();
        reject(new DeadlineExceededError(what, this.budgetMs));
      }, remaining);
      const onAbort = () => {
        cleanup();
        reject(new AbortedError(this.signal.reason));
      };
      const cleanup = () => {
        clearTimeout(timer);
        this.signal.removeEventListener('abort', onAbort);
      };
      this.signal.addEventListener('abort', onAbort, { once: true });
      promise.then(
        (value) => {
          cleanup();
          resolve(value);
        },
        (error: unknown) => {
          cleanup();
          reject(error);
        },
      );
    });
  }
}
