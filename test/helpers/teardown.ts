// Shared resources (a browser, a fixture server) are created lazily by the suites that need
// them and released here once every suite has run, so no test run leaves a process behind.
const teardowns: Array<() => Promise<void> | void> = [];

export function onTeardown(fn: () => Promise<void> | void): void {
  teardowns.push(fn);
}

/** A teardown still running after this long is reported and left, so the others still run. */
const TEARDOWN_MS = 60_000;

export async function runTeardowns(): Promise<void> {
  while (teardowns.length > 0) {
    const fn = teardowns.pop()!;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), TEARDOWN_MS)));
    try {
      const outcome = await Promise.race([Promise.resolve(fn()), late]);
      if (outcome === 'late') {
        console.error(`teardown still running after ${TEARDOWN_MS / 1000} s, left behind: ${String(fn).slice(0, 300)}`);
      }
    } catch (error) {
      console.error('teardown failed:', error);
    } finally {
      clearTimeout(timer);
    }
  }
}
