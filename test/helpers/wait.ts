// The one polling loop of the tests, for what no event announces (a frame loading after its
// parent, a request reaching the fixture server, a count settling): where the test can await an
// event instead (nextEvent, a notification), it should.

export interface WaitOptions {
  /** What is awaited, for the error when it does not come. */
  what?: string;
  /** How long to keep asking (default 10 s). */
  timeoutMs?: number;
  /** The pause between two asks (default 25 ms; 0 asks again at once). */
  intervalMs?: number;
}

/** The last answer, for the error: JSON where it can be (a live object may hold cycles). */
function describe(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * Asks `probe` until `done` holds for its answer and returns that answer; throws, naming `what`
 * and the last answer, once `timeoutMs` has passed without it, so a broken test ends and says why.
 */
export async function waitUntil<T>(
  probe: () => T | Promise<T>,
  done: (value: T) => boolean = Boolean,
  { what = 'the condition', timeoutMs = 10_000, intervalMs = 25 }: WaitOptions = {},
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > end) throw new Error(`${what}: not within ${timeoutMs} ms (last: ${describe(value)})`);
    if (intervalMs > 0) await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * `promise`'s value, or an error naming `what` (asked then, so it can say how things stand) once
 * `timeoutMs` has passed without one: an awaited event that never comes fails its test instead of
 * holding the whole run until the runner's watchdog.
 */
export async function within<T>(promise: Promise<T>, what: () => string, timeoutMs = 10_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what()}: not within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
