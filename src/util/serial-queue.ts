// Runs tasks one at a time in arrival order (one queue per session, PROTOCOL.md §7).
export class SerialQueue {
  #tail: Promise<unknown> = Promise.resolve();
  #pending = 0;

  /** Tasks queued or running. */
  get size(): number {
    return this.#pending;
  }

  /** Resolves once every task queued so far has finished (later ones are not waited for). */
  settled(): Promise<void> {
    return this.#tail.then(() => {});
  }

  run<T>(task: () => Promise<T>): Promise<T> {
    this.#pending++;
    const result = this.#tail.then(task);
    const done = () => {
      this.#pending--;
    };
    this.#tail = result.then(done, done);
    return result;
  }
}
