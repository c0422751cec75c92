// Reconnect delays: exponential with full jitter (a random point between 0 and the cap), so
// that many clients dropped at once by one server restart do not come back in step.

export interface ReconnectOptions {
  /** The cap of the first retry's delay, in ms (default 100). */
  initialDelayMs?: number;
  /** The largest cap, in ms (default 5000). */
  maxDelayMs?: number;
  /** Give up when the socket has been down this long, in ms (default 60000). */
  giveUpAfterMs?: number;
  /** A number in [0, 1) (default Math.random); a test can fix it. */
  random?: () => number;
}

export class Backoff {
  readonly #initial: number;
  readonly #max: number;
  readonly #random: () => number;
  readonly giveUpAfterMs: number;
  #attempt = 0;

  constructor(options: ReconnectOptions = {}) {
    this.#initial = options.initialDelayMs ?? 100;
    this.#max = options.maxDelayMs ?? 5_000;
    this.giveUpAfterMs = options.giveUpAfterMs ?? 60_000;
    this.#random = options.random ?? Math.random;
  }

  /** The delay before the next attempt. */
  next(): number {
    const cap = Math.min(this.#max, this.#initial * 2 ** this.#attempt);
    this.#attempt = Math.min(this.#attempt + 1, 30);
    return Math.floor(cap * this.#random());
  }

  reset(): void {
    this.#attempt = 0;
  }
}
