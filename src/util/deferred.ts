// A promise with its settle functions exposed, for waits that are resolved by events.
export interface Deferred<T> {
  readonly promise: Promise<T>;
  readonly settled: boolean;
  resolve(value: T): void;
  reject(error: unknown): void;
}

export function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  let settled = false;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // A deferred nobody awaits must not crash the process with an unhandled rejection.
  promise.catch(() => {});
  return {
    promise,
    get settled() {
      return settled;
    },
    resolve(value) {
      if (settled) return;
      settled = true;
      resolve(value);
    },
    reject(error) {
      if (settled) return;
      settled = true;
      reject(error);
    },
  };
}
